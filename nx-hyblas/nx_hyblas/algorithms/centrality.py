"""Betweenness centrality (hyblas's batched Brandes), scaled as the installed networkx
scales."""

from __future__ import annotations

import numpy as np

import hyblas as hb
from hyblas.algorithms.centrality import networkx_scale

from ..common import by_node, networkx_before, options


def betweenness_centrality(
    G,
    k=None,
    normalized=True,
    weight=None,
    endpoints=False,
    seed=None,
    **kwargs,
):
    executor, _ = options(kwargs)
    if weight is not None or endpoints:
        raise NotImplementedError("weighted paths and endpoints are networkx's own")
    n = len(G)
    if k is not None and k == 0:  # networkx divides by the number of samples
        raise ZeroDivisionError("betweenness_centrality: k=0 sampled sources")
    if k is None or k == n:
        sources = None
    else:
        # networkx's sampling, with the random.Random its py_random_state decorator made
        chosen = seed.sample(list(G.nodes), k)
        sources = np.sort(np.array([G.index[node] for node in chosen], dtype=np.int64))
    graph = G.hb_graph()
    raw = hb.algorithms.betweenness_centrality(
        graph,
        sources=sources,
        normalized=normalized,
        directed=G.is_directed(),
        executor=executor,
    )
    result = by_node(G, raw)
    # networkx before 3.5 scaled sampled sources differently (see networkx_scale)
    if sources is not None and networkx_before(3, 5):
        is_source = np.zeros(n, dtype=bool)
        is_source[sources] = True
        for vertex, node in enumerate(G.nodes):
            new = networkx_scale(
                n,
                sources.size,
                directed=G.is_directed(),
                normalized=normalized,
                source=bool(is_source[vertex]),
            )
            old = networkx_scale(
                n, sources.size, directed=G.is_directed(), normalized=normalized, legacy=True
            )
            result[node] = result[node] / new * old
    return result
