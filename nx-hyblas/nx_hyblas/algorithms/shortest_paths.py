"""Traversals and shortest path lengths: BFS, multi-source BFS, and single-source shortest
paths (hyblas's sssp) with NetworkX's signatures, results and errors."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np

import hyblas as hb

from ..common import by_node, networkx_before, nodes_of, options, sorted_by_value
from ..graph import HyblasGraph

ALL_PAIRS_BATCH = 256  # sources per multi-source BFS


def _levels(G: HyblasGraph, vertex: int, executor: str, reverse: bool = False) -> hb.Vector:
    graph = G.hb_graph()
    A = graph.AT if reverse else graph.A
    return hb.algorithms.bfs(A, vertex, executor=executor)


def _within(found: dict[Any, Any], cutoff: Any) -> dict[Any, Any]:
    if cutoff is None:
        return found
    return {node: d for node, d in found.items() if d <= cutoff}


def single_source_shortest_path_length(G, source, cutoff=None, **kwargs):
    executor, _ = options(kwargs)
    vertex = G.vertex(source)
    if vertex is None:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    return _within(sorted_by_value(by_node(G, _levels(G, vertex, executor))), cutoff)


def single_target_shortest_path_length(G, target, cutoff=None, **kwargs):
    executor, _ = options(kwargs)
    vertex = G.vertex(target)
    if vertex is None:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    found = _within(sorted_by_value(by_node(G, _levels(G, vertex, executor, reverse=True))), cutoff)
    if networkx_before(3, 5):
        warnings.warn(  # networkx 3.4 returns an iterator, and warns of the dict to come
            "\n\nsingle_target_shortest_path_length will return a dict instead of"
            "\nan iterator in version 3.5",
            FutureWarning,
            stacklevel=3,
        )
        return iter(found.items())
    return found


def all_pairs_shortest_path_length(G, cutoff=None, **kwargs) -> Iterator:
    executor, _ = options(kwargs)
    n = len(G)
    A = G.hb_graph().A
    for first in range(0, n, ALL_PAIRS_BATCH):
        sources = np.arange(first, min(n, first + ALL_PAIRS_BATCH), dtype=np.int64)
        levels = hb.algorithms.multi_source_bfs(A, sources, executor=executor)
        rows, cols, values = levels.to_coo()
        starts = np.searchsorted(rows, np.arange(sources.size + 1))
        targets, depths = cols.tolist(), values.tolist()
        for r, vertex in enumerate(sources.tolist()):
            lo, hi = int(starts[r]), int(starts[r + 1])
            found = {G.nodes[t]: d for t, d in zip(targets[lo:hi], depths[lo:hi], strict=True)}
            yield G.nodes[vertex], _within(sorted_by_value(found), cutoff)


def _kind(G: HyblasGraph) -> str:
    return "digraph" if G.is_directed() else "graph"


def descendants(G, source, **kwargs):
    executor, _ = options(kwargs)
    vertex = G.vertex(source)
    if vertex is None:
        raise nx.NetworkXError(f"The node {source} is not in the {_kind(G)}.")
    reached = _levels(G, vertex, executor).to_coo()[0]
    return set(nodes_of(G, reached[reached != vertex]))


def ancestors(G, source, **kwargs):
    executor, _ = options(kwargs)
    vertex = G.vertex(source)
    if vertex is None:
        raise nx.NetworkXError(f"The node {source} is not in the {_kind(G)}.")
    reached = _levels(G, vertex, executor, reverse=True).to_coo()[0]
    return set(nodes_of(G, reached[reached != vertex]))


def descendants_at_distance(G, source, distance, **kwargs):
    executor, _ = options(kwargs)
    vertex = G.vertex(source)
    if vertex is None:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    ids, levels = _levels(G, vertex, executor).to_coo()
    return set(nodes_of(G, ids[levels == distance]))


def has_path(G, source, target, **kwargs):
    executor, _ = options(kwargs)
    start, end = G.vertex(source), G.vertex(target)
    if start is None:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if end is None:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    ids = _levels(G, start, executor).to_coo()[0]
    return bool(np.isin(end, ids))


def bfs_layers(G, sources, **kwargs) -> Iterator[list]:
    executor, _ = options(kwargs)
    if sources in G:
        sources = [sources]
    starts = []
    for source in sources:
        vertex = G.vertex(source)
        if vertex is None:
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
        starts.append(vertex)
    if not starts:
        return
    n = len(G)
    # one search from all the sources at once: a virtual vertex joined to each
    A = G.hb_graph().A
    levels = hb.Vector.from_coo(
        starts, 0, size=n, dtype=np.int64, dup_op=hb.binary.min, backend=A.backend
    )
    frontier = hb.Vector.from_coo(
        starts, True, size=n, dtype=bool, dup_op=hb.binary.any, backend=A.backend
    )
    hb.ops.propagate(
        levels, frontier, A, hb.semiring["any_pair"][np.bool_], levels=True, executor=executor
    )
    ids, depths = levels.to_coo()
    order = np.lexsort((ids, depths))
    ids, depths = ids[order], depths[order]
    bounds = np.flatnonzero(np.diff(depths)) + 1
    for layer in np.split(ids, bounds):
        yield nodes_of(G, layer)


# --- weighted --------------------------------------------------------------------------------


def search(G: HyblasGraph, vertex: int, weight: str | None, kwargs: dict) -> hb.Vector:
    """The distances from ``vertex`` along edge attribute ``weight`` (None: every edge 1), by
    vertex: hyblas's sssp."""
    executor, dtype = options(kwargs)
    graph = G.hb_graph(weight, "min", dtype=dtype) if weight is not None else G.hb_graph()
    if weight is None:  # every edge of length 1
        A = hb.ops.apply(graph.A, hb.unary["one"][np.float64])
    else:
        A = graph.A
    try:
        return hb.algorithms.sssp(A, vertex, executor=executor)
    except hb.errors.NegativeCycle as exc:
        raise nx.NetworkXUnbounded("Negative cycle detected.") from exc


def _distances(G: HyblasGraph, vertex: int, weight: str | None, kwargs: dict) -> dict:
    """``{node: distance}`` from ``vertex``, nearest first."""
    return sorted_by_value(by_node(G, search(G, vertex, weight, kwargs)))


def no_negative_weights(G: HyblasGraph, weight: str | None) -> None:
    """Dijkstra's answer with a negative weight is networkx's own business (it may raise or
    not, depending on the order it meets edges): leave those graphs to it."""
    if weight is not None and weight in G.values and G.values[weight].size:
        if float(G.values[weight].min()) < 0:
            raise NotImplementedError("a negative weight: networkx's Dijkstra decides")


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight", **kwargs):
    vertex = G.vertex(source)
    if vertex is None:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    no_negative_weights(G, weight)
    return _within(_distances(G, vertex, weight, kwargs), cutoff)


def dijkstra_path_length(G, source, target, weight="weight", **kwargs):
    vertex = G.vertex(source)
    if vertex is None:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if source == target:
        return 0
    no_negative_weights(G, weight)
    found = _distances(G, vertex, weight, kwargs)
    if target not in found:
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return found[target]


def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight", **kwargs) -> Iterator:
    no_negative_weights(G, weight)
    for vertex, node in enumerate(G.nodes):
        yield node, _within(_distances(G, vertex, weight, kwargs), cutoff)


def single_source_bellman_ford_path_length(G, source, weight="weight", **kwargs):
    vertex = G.vertex(source)
    if vertex is None:
        raise nx.NodeNotFound(f"Source {source} not in G")
    return _distances(G, vertex, weight, kwargs)


def bellman_ford_path_length(G, source, target, weight="weight", **kwargs):
    if source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} not found in graph")
        return 0
    vertex = G.vertex(source)
    if vertex is None:
        raise nx.NodeNotFound(f"Source {source} not in G")
    found = _distances(G, vertex, weight, kwargs)
    if target not in found:
        raise nx.NetworkXNoPath(f"node {target} not reachable from {source}")
    return found[target]
