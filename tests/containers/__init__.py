"""Matrix and Vector (hyblas.containers)."""
