"""Connected and weakly connected components (hyblas's connected_components: union-find)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np

import hyblas as hb

from ..common import many_small_objects, nodes_of, options
from ..graph import HyblasGraph


def _labels(G: HyblasGraph, executor: str) -> np.ndarray:
    """Each vertex's component label: the smallest vertex of its component."""
    if len(G) == 0:
        return np.zeros(0, dtype=np.int64)
    return hb.algorithms.connected_components(G.hb_graph(), executor=executor).to_dense()


def _components(G: HyblasGraph, executor: str) -> list[set]:
    """The components as sets of nodes, in the order networkx finds them: by their first node
    in the graph's node order (a label is the smallest vertex of its component).

    A vertex alone in its component (most of them, in a graph of many isolated vertices) is
    its component's label: those sets are made straight from the vertices whose label counts
    one vertex, in one pass. Only the vertices of the larger components are sorted by label
    (stable: each component's vertices ascending), each such component one slice of their
    nodes; the larger components are then put among the single-vertex ones by their labels.
    """
    labels = _labels(G, executor)
    n = labels.size
    if n == 0:
        return []
    sizes = np.bincount(labels, minlength=n)  # a component's size at its label
    alone = np.flatnonzero(sizes == 1)  # the single-vertex components' vertices, ascending
    roots = np.flatnonzero(sizes > 1)  # the larger components' labels, ascending
    with many_small_objects():
        singles = [{node} for node in nodes_of(G, alone)]
        if roots.size == 0:
            return singles
        grouped = np.flatnonzero(sizes[labels] > 1)
        members = nodes_of(G, grouped[np.argsort(labels[grouped], kind="stable")])
        ends = np.cumsum(sizes[roots]).tolist()
        cuts = np.searchsorted(alone, roots).tolist()  # the single-vertex ones before each
        found: list[set] = []
        start = done = 0
        for cut, end in zip(cuts, ends, strict=True):
            found += singles[done:cut]
            found.append(set(members[start:end]))
            start, done = end, cut
        found += singles[done:]
        return found


def _count(G: HyblasGraph, executor: str) -> int:
    """The number of components: of vertices that are their component's label."""
    labels = _labels(G, executor)
    return int(np.count_nonzero(labels == np.arange(labels.size)))


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
    # an iterator over the sets already made: networkx's generator would resume once per set,
    # which for hundreds of thousands of components costs more than making them
    executor, _ = options(kwargs)
    return iter(_components(G, executor))


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
    return iter(_components(G, executor))


def number_weakly_connected_components(G, **kwargs) -> int:
    return _count(G, options(kwargs)[0])


def is_weakly_connected(G, **kwargs) -> bool:
    return _one_component(G, options(kwargs)[0])
