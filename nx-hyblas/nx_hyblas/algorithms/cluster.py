"""Triangles, transitivity and clustering of undirected graphs: one masked product
``C<S> = S plus.pair S`` over the structure ``S`` without self loops, whose row sums are twice
each vertex's triangles (hyblas's local clustering coefficient is the same product)."""

from __future__ import annotations

from typing import Any

import numpy as np

import hyblas as hb

from ..common import options
from ..graph import HyblasGraph


def _undirected_simple(G: HyblasGraph, what: str) -> None:
    """networkx's own rules for the cases it handles otherwise: directed graphs (another
    definition of clustering) and multigraphs (not implemented there)."""
    if G.is_directed() or G.is_multigraph():
        raise NotImplementedError(f"{what} of a directed graph or a multigraph: networkx's own")


def _links_and_degrees(G: HyblasGraph, executor: str) -> tuple[np.ndarray, np.ndarray]:
    """Per vertex: twice its triangles, and its neighbours other than itself."""
    S = hb.ops.select(G.hb_graph().undirected_structure, "offdiag", 0)
    product = hb.ops.mxm(S, S, hb.semiring["plus_pair"][np.int64], mask=S.S, executor=executor)
    links = hb.ops.reduce_rows(product, "plus")
    degrees = hb.ops.reduce_rows(hb.ops.apply(S, hb.unary["one"][np.int64]), "plus")
    return links.to_dense(fill_value=0), degrees.to_dense(fill_value=0)


def _chosen(G: HyblasGraph, nodes: Any) -> list[int]:
    """The vertices of ``nodes`` (an iterable of nodes; those not in G are skipped, as
    networkx's ``nbunch_iter`` does)."""
    return [G.index[node] for node in nodes if node in G]


def triangles(G, nodes=None, **kwargs):
    executor, _ = options(kwargs)
    if nodes is not None and G.is_multigraph():
        raise NotImplementedError("triangles of given nodes of a multigraph: networkx's own")
    links, _ = _links_and_degrees(G, executor)
    counts = (links // 2).tolist()
    if nodes is None:
        return dict(zip(G.nodes, counts, strict=True))
    if nodes in G:
        return counts[G.index[nodes]]
    return {G.nodes[v]: counts[v] for v in _chosen(G, nodes)}


def transitivity(G, **kwargs):
    executor, _ = options(kwargs)
    _undirected_simple(G, "transitivity")
    if len(G) == 0:
        return 0
    links, degrees = _links_and_degrees(G, executor)
    found = int(links.sum())
    possible = int((degrees * (degrees - 1)).sum())
    return 0 if found == 0 else found / possible


def clustering(G, nodes=None, weight=None, **kwargs):
    executor, _ = options(kwargs)
    _undirected_simple(G, "clustering")
    if weight is not None:
        raise NotImplementedError("weighted clustering: networkx's own")
    links, degrees = _links_and_degrees(G, executor)
    values = [
        0 if t == 0 else t / (d * (d - 1))
        for t, d in zip(links.tolist(), degrees.tolist(), strict=True)
    ]
    if nodes is None:
        return dict(zip(G.nodes, values, strict=True))
    if nodes in G:
        return values[G.index[nodes]]
    return {G.nodes[v]: values[v] for v in _chosen(G, nodes)}


def average_clustering(G, nodes=None, weight=None, count_zeros=True, **kwargs):
    found = clustering(G, nodes, weight=weight, **kwargs)
    values = list(found.values()) if isinstance(found, dict) else [found]
    if not count_zeros:
        values = [v for v in values if abs(v) > 0]
    return sum(values) / len(values)
