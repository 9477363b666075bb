"""Graph algorithms written only with :mod:`hyblas.ops` (masked products over semirings).

An algorithm takes an adjacency Matrix ``A`` with rows = sources (edge ``i -> j`` is
``A[i, j]``) and returns Vectors. Reference implementations (networkx, scipy.sparse.csgraph)
live in the tests, not here.
"""

from __future__ import annotations

from .bfs import bfs
from .pagerank import pagerank

__all__ = ["bfs", "pagerank"]
