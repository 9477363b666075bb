"""Core numbers (hyblas's parallel peeling) and the k-core they select."""

from __future__ import annotations

from typing import Any

import networkx as nx

import hyblas as hb

from ..common import by_node, options
from ..graph import HyblasGraph

SELF_LOOPS = (
    "Input graph has self loops which is not permitted; "
    "Consider using G.remove_edges_from(nx.selfloop_edges(G))."
)


def _cores(G: HyblasGraph, executor: str) -> dict[Any, int]:
    graph = G.hb_graph()
    if graph.nself_edges:
        raise nx.NetworkXNotImplemented(SELF_LOOPS)
    return by_node(G, hb.algorithms.core_number(graph, executor=executor))


def core_number(G, **kwargs):
    return _cores(G, options(kwargs)[0])


def k_core(G, k=None, core_number=None, **kwargs):
    """The subgraph of the nodes whose core number is at least ``k`` (default: the largest),
    copied from the NetworkX graph with every attribute, as NetworkX's own ``k_core`` does;
    only the core numbers are computed on hyblas (can_run leaves a call that gives them to
    NetworkX)."""
    executor, _ = options(kwargs)
    if G.is_multigraph():  # what networkx's core_number (or k_core's own check) raises
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")
    if G.source is None:
        raise NotImplementedError("k_core copies from the NetworkX graph the conversion kept")
    core = _cores(G, executor)
    if k is None:
        k = max(core.values())
    return G.source.subgraph(v for v in core if core[v] >= k).copy()
