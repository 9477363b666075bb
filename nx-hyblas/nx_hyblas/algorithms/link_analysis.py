"""PageRank (hyblas's power iteration, networkx's stopping test)."""

from __future__ import annotations

import networkx as nx

import hyblas as hb

from ..common import by_node, options


def pagerank(
    G,
    alpha=0.85,
    personalization=None,
    max_iter=100,
    tol=1e-06,
    nstart=None,
    weight="weight",
    dangling=None,
    **kwargs,
):
    executor, dtype = options(kwargs)
    if personalization is not None or nstart is not None or dangling is not None:
        raise NotImplementedError("personalization, nstart and dangling are networkx's own")
    if len(G) == 0:
        return {}
    if max_iter < 1:
        raise nx.PowerIterationFailedConvergence(max_iter)
    A = G.hb_graph(weight, "sum", dtype=dtype).A  # parallel edges add up
    if A.nnz and float(hb.ops.reduce_scalar(A, "min")) < 0:
        raise NotImplementedError("a negative weight: networkx's PageRank decides")
    try:
        ranks = hb.algorithms.pagerank(
            A, alpha, tol=tol, max_iter=max_iter, executor=executor, dtype=A.dtype
        )
    except hb.errors.NotConverged as exc:
        raise nx.PowerIterationFailedConvergence(max_iter) from exc
    return by_node(G, ranks)
