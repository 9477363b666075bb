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
    in the graph's node order (a label is the smallest vertex of its component)."""
    labels = _labels(G, executor)
    n = labels.size
    if n == 0:
        return []
    # row ``label`` of the transpose of M[v, label[v]] lists the component's vertices in
    # ascending order, and its rows come in networkx's order of the components (on the host:
    # the sets are built there)
    M = hb.Matrix.from_coo(
        np.arange(n), labels, True, nrows=n, ncols=n, dtype=bool, backend="cpu"
    ).T
    indptr = M.indptr
    members = nodes_of(G, M.indices)  # every node once, grouped by component
    starts = indptr[:-1][indptr[1:] > indptr[:-1]].tolist()
    ends = [*starts[1:], n]
    with many_small_objects():
        return [
            {members[start]} if end - start == 1 else set(members[start:end])
            for start, end in zip(starts, ends)
        ]


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
