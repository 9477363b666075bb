"""Connected and weakly connected components (hyblas's connected_components: FastSV)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np

import hyblas as hb

from ..common import nodes_of, options
from ..graph import HyblasGraph


def _labels(G: HyblasGraph, executor: str) -> np.ndarray:
    """Each vertex's component label: the smallest vertex of its component."""
    if len(G) == 0:
        return np.zeros(0, dtype=np.int64)
    return hb.algorithms.connected_components(G.hb_graph(), executor=executor).to_dense()


def _components(G: HyblasGraph, executor: str) -> Iterator[set]:
    """The components as sets of nodes, in the order networkx finds them: by their first node
    in the graph's node order (a label is the smallest vertex of its component)."""
    labels = _labels(G, executor)
    order = np.argsort(labels, kind="stable")
    members = nodes_of(G, order)  # every node once, grouped by component
    bounds = [0, *(np.flatnonzero(np.diff(labels[order])) + 1).tolist(), len(members)]
    for start, end in zip(bounds[:-1], bounds[1:]) if members else []:
        yield set(members[start:end])


def _count(G: HyblasGraph, executor: str) -> int:
    return int(np.unique(_labels(G, executor)).size)


def _one_component(G: HyblasGraph, executor: str) -> bool:
    """Whether one search from the first vertex reaches every vertex (as networkx decides:
    the first component found holds them all); a directed graph's over ``A ∪ Aᵀ``."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    graph = G.hb_graph()
    either_way = graph.undirected_structure if G.is_directed() else graph.A
    reached = hb.algorithms.bfs(either_way, 0, executor=executor)
    return reached.nnz == len(G)


def connected_components(G, **kwargs) -> Iterator[set]:
    executor, _ = options(kwargs)
    yield from _components(G, executor)


def number_connected_components(G, **kwargs) -> int:
    return _count(G, options(kwargs)[0])


def is_connected(G, **kwargs) -> bool:
    return _one_component(G, options(kwargs)[0])


def node_connected_component(G, n, **kwargs) -> set[Any]:
    executor, _ = options(kwargs)
    vertex = G.vertex(n)
    if vertex is None:
        raise KeyError(n)  # as networkx's own search fails on a missing node
    reached = hb.algorithms.bfs(G.hb_graph().A, vertex, executor=executor).to_coo()[0]
    return set(nodes_of(G, reached))


def weakly_connected_components(G, **kwargs) -> Iterator[set]:
    executor, _ = options(kwargs)
    yield from _components(G, executor)


def number_weakly_connected_components(G, **kwargs) -> int:
    return _count(G, options(kwargs)[0])


def is_weakly_connected(G, **kwargs) -> bool:
    return _one_component(G, options(kwargs)[0])
