"""nx-hyblas: a NetworkX backend that runs NetworkX's graph algorithms on hyblas.

>>> import networkx as nx
>>> nx.pagerank(nx.karate_club_graph(), backend="hyblas")  # doctest: +SKIP

NetworkX's label-propagation community functions (``label_propagation_communities``,
``asyn_lpa_communities``, ``fast_label_propagation_communities``) are not dispatched: the
first is semi-synchronous over a greedy colouring with Prec-Max ties, the other two are
asynchronous and random, and none computes what :func:`hyblas.algorithms.cdlp` does
(synchronous rounds, ties to the smallest label). Call ``hyblas.algorithms.cdlp`` for that;
the README says more.
"""

from __future__ import annotations

from .graph import HyblasGraph
from .interface import BackendInterface, backend_interface

__all__ = ["BackendInterface", "HyblasGraph", "backend_interface"]
