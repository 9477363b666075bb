"""The traversal rounds (hyblas.traversal): propagate, improve, the sparse executor's graph
rounds."""
