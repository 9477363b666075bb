"""Reading and writing matrices: Matrix Market, edge lists, networkx graphs, the LDBC
Graphalytics formats.

>>> import hyblas as hb
>>> A = hb.io.read_edge_list("graph.txt", symmetric=True)  # doctest: +SKIP
>>> G = hb.io.to_networkx(A, directed=False)  # doctest: +SKIP
"""

from __future__ import annotations

from .edgelist import read_edge_list, write_edge_list
from .graphalytics import GraphalyticsGraph, read_graphalytics, write_graphalytics_output
from .matrixmarket import read_matrix_market, write_matrix_market
from .networkx import from_networkx, to_networkx

__all__ = [
    "read_matrix_market",
    "write_matrix_market",
    "read_edge_list",
    "write_edge_list",
    "from_networkx",
    "to_networkx",
    "GraphalyticsGraph",
    "read_graphalytics",
    "write_graphalytics_output",
]
