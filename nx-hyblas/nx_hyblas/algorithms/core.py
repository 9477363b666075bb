"""Core numbers (hyblas's parallel peeling)."""

from __future__ import annotations

import networkx as nx

import hyblas as hb

from ..common import by_node, options

SELF_LOOPS = (
    "Input graph has self loops which is not permitted; "
    "Consider using G.remove_edges_from(nx.selfloop_edges(G))."
)


def core_number(G, **kwargs):
    executor, _ = options(kwargs)
    graph = G.hb_graph()
    if graph.nself_edges:
        raise nx.NetworkXNotImplemented(SELF_LOOPS)
    return by_node(G, hb.algorithms.core_number(graph, executor=executor))
