"""The graph algorithms as a CuPy user writes them without a GraphBLAS: cupyx SpMV and dense
vectors, one host check per level / round.

* ``bfs``: level-synchronous; each level is one cuSPARSE SpMV ``Aᵀ @ frontier`` on a dense
  float32 0/1 frontier, a visited mask, and ``new.any()`` read on the host.
* ``sssp``: Bellman-Ford on dense distances. cuSPARSE has no min-plus product, so every round
  relaxes *all* edges from the edge arrays (``cand = dist[src] + w``) and scatters them with
  ``cupyx.scatter_min`` (CuPy's ``numpy.minimum.at``); it stops after the first round that
  improves nothing (host check per round). Distances are kept in the weights' dtype (float32).
* ``pagerank20``: 20 power iterations, cuSPARSE SpMV ``Aᵀ @ (r / outdeg)`` in float64 plus the
  dangling / teleport term, all on the device (no host reads).

The algorithm builders take the array module ``xp``, the sparse module ``xsparse`` (anything
with ``csr_matrix(scipy_csr_matrix)``) and, for SSSP, a scatter-min function with the signature
of ``numpy.minimum.at(a, indices, values)``, so the tests run them with NumPy / SciPy. ``OPS``
binds CuPy, ``cupyx.scipy.sparse`` and ``cupyx.scatter_min``.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import PeerGraph
from ._gpu import asnumpy, host_csr, modules, unavailable_reason

NAME = "cupyx-naive"
DEVICE = "gpu"

DAMPING = 0.85
PAGERANK_ITERATIONS = 20

ScatterMin = Callable[[Any, Any, Any], Any]


def available() -> str | None:
    return unavailable_reason()


# --------------------------------------------------------------------------------------------
# Algorithms, parameterized by the array and sparse modules
# --------------------------------------------------------------------------------------------


def make_bfs(graph: PeerGraph, xp: ModuleType, xsparse: ModuleType) -> Callable[[], Any]:
    """Setup for BFS levels from ``graph.source``; returns ``run() -> levels`` (int64, -1)."""
    n = graph.n
    source = int(graph.source)
    # y = Aᵀ f pushes the frontier along the edges i -> j (rows of A are sources).
    host = graph.setup_once("cupyx float32 transpose", lambda: host_csr(graph.csr.T, np.float32))
    AT = xsparse.csr_matrix(host)  # noqa: N806

    def run() -> Any:
        levels = xp.full(n, -1, dtype=xp.int64)
        visited = xp.zeros(n, dtype=xp.bool_)
        frontier = xp.zeros(n, dtype=xp.float32)
        levels[source] = 0
        visited[source] = True
        frontier[source] = 1.0
        level = 0
        while True:
            level += 1
            new = (AT @ frontier > 0) & ~visited
            if not bool(new.any()):  # host check, once per level
                return levels
            visited |= new
            levels[new] = level
            frontier = new.astype(xp.float32)

    return run


def make_sssp(
    graph: PeerGraph, xp: ModuleType, scatter_min: ScatterMin, dtype: Any = None
) -> Callable[[], Any]:
    """Setup for Bellman-Ford from ``graph.source``; returns ``run() -> dist`` (+inf unreached).

    ``dtype`` defaults to the weights' dtype (float32).
    """
    n = graph.n
    source = int(graph.source)
    coo = graph.setup_once("cupyx weights as coo", lambda: sp.coo_array(graph.weights))
    dtype = np.dtype(coo.dtype if dtype is None else dtype)
    index = np.int32 if n < 2**31 else np.int64
    src = xp.asarray(coo.row.astype(index))
    dst = xp.asarray(coo.col.astype(index))
    w = xp.asarray(coo.data.astype(dtype))

    def run() -> Any:
        dist = xp.full(n, xp.inf, dtype=dtype)
        dist[source] = 0
        for _ in range(max(n, 1)):  # at most n - 1 improving rounds (weights are positive)
            before = dist.copy()
            scatter_min(dist, dst, dist[src] + w)  # relax every edge
            if not bool((dist < before).any()):  # host check, once per round
                break
        return dist

    return run


def make_pagerank(
    graph: PeerGraph,
    xp: ModuleType,
    xsparse: ModuleType,
    *,
    iterations: int = PAGERANK_ITERATIONS,
    damping: float = DAMPING,
) -> Callable[[], Any]:
    """Setup for PageRank (networkx's formula, fixed iteration count); ``run() -> ranks``."""
    n = graph.n
    pattern = host_csr(graph.csr, np.float64)
    pattern.data[:] = 1.0
    out_degree = np.diff(pattern.indptr).astype(np.float64)
    AT = xsparse.csr_matrix(host_csr(pattern.T, np.float64))  # noqa: N806
    inv_out = xp.asarray(np.divide(1.0, out_degree, out=np.zeros(n), where=out_degree > 0))
    dangling = xp.asarray((out_degree == 0).astype(np.float64))
    d = float(damping)

    def run() -> Any:
        r = xp.full(n, 1.0 / n, dtype=xp.float64)
        for _ in range(iterations):
            lost = xp.dot(dangling, r)  # rank sitting on dangling vertices, stays on the device
            r = d * (AT @ (r * inv_out)) + (d * lost + (1.0 - d)) / n
        return r

    return run


# --------------------------------------------------------------------------------------------
# CuPy bindings
# --------------------------------------------------------------------------------------------


def _bfs(graph: PeerGraph) -> Callable[[], Any]:
    cp, _, cupyx_sparse = modules()
    return make_bfs(graph, cp, cupyx_sparse)


def _sssp(graph: PeerGraph) -> Callable[[], Any]:
    cp, cupyx, _ = modules()
    return make_sssp(graph, cp, cupyx.scatter_min)


def _pagerank20(graph: PeerGraph) -> Callable[[], Any]:
    cp, _, cupyx_sparse = modules()
    return make_pagerank(graph, cp, cupyx_sparse)


OPS: dict[str, Callable[[PeerGraph], Callable[[], Any]]] = {
    "bfs": _bfs,
    "sssp": _sssp,
    "pagerank20": _pagerank20,
}

_DTYPES = {"bfs": np.int64, "sssp": np.float64, "pagerank20": np.float64}


def to_numpy(op: str, result: Any) -> np.ndarray:
    if op not in _DTYPES:
        raise KeyError(f"{NAME}: no op {op!r}")
    return asnumpy(result).astype(_DTYPES[op], copy=False)
