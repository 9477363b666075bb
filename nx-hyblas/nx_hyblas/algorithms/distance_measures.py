"""Eccentricity, from which NetworkX's diameter, radius, center and periphery are computed:
a multi-source BFS per batch of the nodes asked for, or one single-source search per node with
a weight."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

import hyblas as hb

from ..common import options
from ..graph import HyblasGraph
from .shortest_paths import no_negative_weights, search

# the most distances (int64) a batch of the multi-source BFS holds at once
ECCENTRICITY_BATCH_ENTRIES = 2**24
ECCENTRICITY_BATCH_SOURCES = 256


def eccentricity(G, v=None, sp=None, weight=None, **kwargs):
    executor, _ = options(kwargs)
    nodes = list(G.nbunch_iter(v))
    vertices = np.fromiter((G.vertex(node) for node in nodes), dtype=np.int64, count=len(nodes))
    if weight is None:
        found = _hops(G, vertices, executor)
    else:
        no_negative_weights(G, weight)
        found = [_farthest(G, search(G, vertex, weight, kwargs)) for vertex in vertices]
    e = dict(zip(nodes, found, strict=True))
    if v in G:
        return e[v]  # one node asked for: its value, as networkx returns it
    return e


def _hops(G: HyblasGraph, vertices: np.ndarray, executor: str) -> list[int]:
    """The largest number of edges from each of ``vertices`` to any vertex: the maximum of
    each row of a multi-source BFS, which must reach every vertex."""
    n = len(G)
    A = G.hb_graph().A
    batch = max(1, min(ECCENTRICITY_BATCH_SOURCES, ECCENTRICITY_BATCH_ENTRIES // max(n, 1)))
    found: list[int] = []
    for first in range(0, vertices.size, batch):
        levels = hb.algorithms.multi_source_bfs(
            A, vertices[first : first + batch], executor=executor
        )
        if levels.nnz < levels.nrows * n:  # a node one of them does not reach
            _unreachable(G)
        _, farthest = hb.ops.reduce_rows(levels, "max").to_coo()
        found += farthest.tolist()
    return found


def _farthest(G: HyblasGraph, reached: hb.Vector) -> Any:
    """The largest of one search's distances, as a Python number; the search must reach
    every vertex."""
    if reached.nnz != len(G):
        _unreachable(G)
    return hb.ops.reduce_scalar(reached, "max").item()


def _unreachable(G: HyblasGraph) -> None:
    if G.is_directed():
        raise nx.NetworkXError(
            "Found infinite path length because the digraph is not strongly connected"
        )
    raise nx.NetworkXError("Found infinite path length because the graph is not connected")
