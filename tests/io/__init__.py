"""Getting graphs in and out: hyblas.io and hyblas.generators."""
