"""nx-hyblas: a NetworkX backend that runs NetworkX's graph algorithms on hyblas.

>>> import networkx as nx
>>> nx.pagerank(nx.karate_club_graph(), backend="hyblas")  # doctest: +SKIP
"""

from __future__ import annotations

from .graph import HyblasGraph
from .interface import BackendInterface, backend_interface

__all__ = ["BackendInterface", "HyblasGraph", "backend_interface"]
