"""Graph algorithms written only with :mod:`hyblas.ops` (masked products over semirings).

An algorithm takes an adjacency Matrix ``A`` with rows = sources (edge ``i -> j`` is
``A[i, j]``) and returns Vectors (or a Matrix, for several searches at once). Each accepts
``executor=`` and passes it to the products it runs. Reference implementations (networkx,
scipy.sparse.csgraph) live in the tests, not here.
"""

from __future__ import annotations

from .bfs import bfs
from .cdlp import cdlp
from .centrality import betweenness_centrality
from .clustering import local_clustering_coefficient
from .components import connected_components
from .cores import core_number
from .msbfs import multi_source_bfs
from .pagerank import pagerank
from .sssp import sssp
from .triangles import triangle_count

__all__ = [
    "betweenness_centrality",
    "bfs",
    "cdlp",
    "connected_components",
    "core_number",
    "local_clustering_coefficient",
    "multi_source_bfs",
    "pagerank",
    "sssp",
    "triangle_count",
]
