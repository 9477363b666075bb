"""SciPy on the CPU: ``scipy.sparse`` products and ``scipy.sparse.csgraph``.

Setup converts the matrices to the form each call works on (csgraph converts every input to a
float64 CSR matrix; doing that once, untimed, leaves the algorithm in the timing). SciPy's sparse
kernels and csgraph are single-threaded.

* ``spmv:plus_times``: ``A @ x`` (float32).
* ``spmv:lor_land``: as a SciPy user writes it: float SpMV on the 0/1 vector, then ``> 0``
  (the bool -> float32 copy of ``x_bool`` is made in setup).
* ``bfs``: ``csgraph.breadth_first_order`` (with predecessors) and the levels read off the BFS
  order: in a FIFO BFS the position of a vertex's parent never decreases along the order, so
  each level ends where the parents' positions pass the previous level's end (one
  ``searchsorted`` per level). This is 2-4x faster than ``shortest_path(unweighted=True)``
  (Dijkstra with unit weights) on kron18 and grid2048.
* ``sssp``: ``csgraph.dijkstra``.
* ``pagerank20``: a SpMV loop (the same code as the CuPy one, run with NumPy / SciPy).
* ``cc``: ``csgraph.connected_components(directed=False)``, the call for an undirected graph.
  (``directed=True, connection='strong'`` gives the same labels on a symmetric pattern; it is
  faster on Kronecker graphs and slower on grids.)
* ``tc``: ``(L @ L).multiply(L).sum()`` with ``L = tril(A, -1)`` in int32: every triangle
  ``k < j < i`` is counted once, at ``(i, j)``. ``L @ L`` does the same multiplications as
  ``L @ L.T`` restricted to ``k`` between ``j`` and ``i`` and builds about half the product.
  Refused above :data:`TC_MAX_WORK` multiply-adds (the product can hold that many entries).
* ``msbfs``: ``csgraph.shortest_path(unweighted=True, indices=source)`` for each source into
  the rows of one dense float64 ``(k, n)`` array (one call a source, so the harness's run
  limit can stop the run between two sources: one call with every source is one C call);
  refused when that output would exceed :data:`MSBFS_MAX_OUTPUT_BYTES`.
* ``cdlp10``: label propagation in NumPy over the CSR arrays (:func:`make_cdlp`): per round,
  gather the neighbours' labels, sort the (row, label) pairs (one int64 sort of
  ``row * n + label``, the same order as ``np.lexsort((label, row))``), run lengths, then per
  row the longest run, the smallest label on a tie (the first longest: runs are in label
  order). A directed graph's neighbour lists are the out- and in-lists concatenated (built in
  setup), so a vertex that is both counts twice.
* ``lcc``: ``t = rowsum((S @ Bᵀ) ∘ S)`` with ``S`` the structure of ``A ∪ Aᵀ`` without the
  diagonal and ``B`` that of ``A`` without it (``B = S`` for the harness's symmetric graphs;
  both built in setup, int32), then ``t / (d (d - 1))`` (:func:`make_lcc`). SciPy has no
  masked product, so ``S @ Bᵀ`` is built whole: refused above :data:`LCC_MAX_WORK`
  multiply-adds, as ``tc``.

No ``bc``: SciPy has no betweenness centrality.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from . import PeerGraph, Unavailable
from .cupyx_naive import make_pagerank

NAME = "scipy"
DEVICE = "cpu"

#: Triangle counting is refused when ``L @ L`` needs more multiply-adds than this. The count is
#: ``Σ_k (entries in row k of L) * (entries in column k of L)``, computed in setup; it bounds
#: the entries of the product too (about 8 bytes each plus SciPy's work arrays). SciPy's SpGEMM
#: runs at roughly 40 ns per multiply-add on one core: 1e9 is about 40 s per call (kron16 is
#: 2e8, kron18 1.6e9, grid2048 1.7e7).
TC_MAX_WORK = 1_000_000_000

#: The local clustering coefficient is refused when ``S @ Bᵀ`` needs more multiply-adds than
#: this (as :data:`TC_MAX_WORK`; it is ``Σ_v d(v)²`` on a symmetric graph: kron10 1.3e7,
#: grid2048 6.7e7, kron22 far above).
LCC_MAX_WORK = 1_000_000_000

#: CDLP rounds of ``cdlp10``.
CDLP_ROUNDS = 10

#: Multi-source BFS is refused when the dense float64 ``(k, n)`` result of ``shortest_path``
#: would exceed this many bytes (4 GiB: 64 sources of 8M vertices).
MSBFS_MAX_OUTPUT_BYTES = 4 * 2**30


def available() -> str | None:
    return None  # SciPy is a hard dependency of hyblas


def _csr(matrix: Any, dtype: Any) -> sp.csr_array:
    out = sp.csr_array(matrix, dtype=dtype)
    out.sort_indices()
    return out


def _csgraph_input(graph: PeerGraph) -> sp.csr_matrix:
    """The float64 CSR matrix csgraph converts every input to."""
    out = sp.csr_matrix(graph.csr, dtype=np.float64)
    out.sort_indices()
    return out


def bfs_levels(A: Any, source: int) -> np.ndarray:  # noqa: N803 - math spelling
    """BFS levels from ``source`` (-1 unreachable) from ``csgraph.breadth_first_order``."""
    n = A.shape[0]
    order, parent = csgraph.breadth_first_order(A, source, directed=True, return_predecessors=True)
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(order.size)
    parent_position = position[parent[order[1:]]]  # nondecreasing: FIFO order
    ends = [1]  # level 0 is order[:1]
    while ends[-1] < order.size:
        ends.append(int(np.searchsorted(parent_position, ends[-1], side="left")) + 1)
    sizes = np.diff(np.asarray([0, *ends]))
    levels = np.full(n, -1, dtype=np.int64)
    levels[order] = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
    return levels


def _spmv_plus_times(graph: PeerGraph) -> Callable[[], Any]:
    A = _csr(graph.csr, np.float32)  # noqa: N806
    x = np.asarray(graph.x, dtype=np.float32)
    return lambda: A @ x


def _spmv_lor_land(graph: PeerGraph) -> Callable[[], Any]:
    A = _csr(graph.csr, np.float32)  # noqa: N806
    x = np.asarray(graph.x_bool, dtype=np.float32)
    return lambda: (A @ x) > 0


def _bfs(graph: PeerGraph) -> Callable[[], Any]:
    A = graph.setup_once("scipy csgraph input", lambda: _csgraph_input(graph))  # noqa: N806
    source = int(graph.source)
    return lambda: bfs_levels(A, source)


def _sssp(graph: PeerGraph) -> Callable[[], Any]:
    W = graph.setup_once(  # noqa: N806
        "scipy float64 weights", lambda: sp.csr_matrix(graph.weights, dtype=np.float64)
    )
    source = int(graph.source)
    return lambda: csgraph.dijkstra(W, directed=True, indices=source)


def _pagerank20(graph: PeerGraph) -> Callable[[], Any]:
    return make_pagerank(graph, np, sp)


def _cc(graph: PeerGraph) -> Callable[[], Any]:
    A = _csgraph_input(graph)  # noqa: N806
    return lambda: csgraph.connected_components(A, directed=False, return_labels=True)[1]


def tc_work(L: Any) -> int:  # noqa: N803
    """Multiply-adds of ``L @ L``: Σ_k nnz(L[k, :]) * nnz(L[:, k])."""
    return product_work(L, L)


def product_work(X: Any, Y: Any) -> int:  # noqa: N803
    """Multiply-adds of ``X @ Y``: Σ_k nnz(X[:, k]) * nnz(Y[k, :])."""
    X, Y = sp.csr_array(X), sp.csr_array(Y)  # noqa: N806
    col_counts = np.bincount(X.indices, minlength=X.shape[1]).astype(np.int64)
    row_counts = np.diff(Y.indptr).astype(np.int64)
    return int(col_counts @ row_counts)


def _tc(graph: PeerGraph) -> Callable[[], Any]:
    L = sp.tril(_csr(graph.csr, np.int32), k=-1, format="csr")  # noqa: N806
    L.sort_indices()
    work = tc_work(L)
    if work > TC_MAX_WORK:
        raise Unavailable(
            f"scipy tc: L @ L needs {work:.3g} multiply-adds on {graph.name} "
            f"(limit TC_MAX_WORK = {TC_MAX_WORK:.3g})"
        )

    def run() -> Any:
        return (L @ L).multiply(L).sum(dtype=np.int64)

    return run


def _msbfs(graph: PeerGraph) -> Callable[[], Any]:
    sources = np.asarray(graph.msbfs_sources, dtype=np.int64)
    nbytes = 8 * sources.size * graph.n
    if nbytes > MSBFS_MAX_OUTPUT_BYTES:
        raise Unavailable(
            f"scipy msbfs: the dense ({sources.size}, {graph.n}) float64 output needs "
            f"{nbytes / 2**30:.1f} GiB (limit MSBFS_MAX_OUTPUT_BYTES = "
            f"{MSBFS_MAX_OUTPUT_BYTES / 2**30:.1f} GiB)"
        )
    A = _csgraph_input(graph)  # noqa: N806

    def run() -> np.ndarray:
        levels = np.empty((sources.size, graph.n))
        for row, source in zip(levels, sources.tolist(), strict=True):
            row[:] = csgraph.shortest_path(A, directed=True, unweighted=True, indices=source)
        return levels

    return run


def _structure(A: Any) -> sp.csr_array:  # noqa: N803
    """The pattern of ``A`` (explicit zeros included) as int32 ones, sorted, no duplicates."""
    A = sp.csr_array(A)  # noqa: N806
    out = sp.csr_array(
        (np.ones(A.indices.size, dtype=np.int32), A.indices, A.indptr), shape=A.shape
    )
    out.sum_duplicates()
    out.data[:] = 1
    return out


def _neighbour_lists(A: Any, directed: bool) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    """(row, neighbour) int64 arrays, grouped by row: a row's entries (an undirected graph),
    or its out- then in-neighbours (a directed one: a vertex that is both appears twice)."""
    A = _structure(A)  # noqa: N806
    n = A.shape[0]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(A.indptr))
    cols = A.indices.astype(np.int64)
    if directed:
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
        order = np.argsort(rows, kind="stable")
        rows, cols = rows[order], cols[order]
    return rows, cols


def cdlp_round(labels: np.ndarray, row_keys: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
    """One synchronous round: every vertex with a neighbour takes its neighbours' most frequent
    label, the smallest on a tie. ``row_keys`` is ``row * n`` per entry, rows grouped."""
    n = labels.size
    keys = row_keys + labels[neighbours]
    keys.sort()  # by (row, label): np.lexsort((label, row)) in one int64 sort
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    lengths = np.diff(np.append(starts, keys.size))
    run_rows, run_labels = np.divmod(keys[starts], n)
    row_starts = np.flatnonzero(np.concatenate(([True], run_rows[1:] != run_rows[:-1])))
    longest = np.maximum.reduceat(lengths, row_starts)
    per_run = np.repeat(longest, np.diff(np.append(row_starts, run_rows.size)))
    best = np.flatnonzero(lengths == per_run)  # in (row, label) order
    first = best[np.concatenate(([True], run_rows[best[1:]] != run_rows[best[:-1]]))]
    out = labels.copy()  # a vertex without neighbours keeps its label
    out[run_rows[first]] = run_labels[first]
    return out


def make_cdlp(A: Any, rounds: int = CDLP_ROUNDS, *, directed: bool = False) -> Callable[[], Any]:  # noqa: N803
    """CDLP (LDBC Graphalytics) of the graph ``A`` (rows = sources; values ignored, a self loop
    makes a vertex its own neighbour). ``directed=False`` reads the rows only, which is right
    for a structurally symmetric ``A``; ``directed=True`` counts in- and out-neighbours."""
    n = A.shape[0]
    rows, neighbours = _neighbour_lists(A, directed)
    row_keys = rows * n  # setup: the row half of every sort key

    def run() -> np.ndarray:
        labels = np.arange(n, dtype=np.int64)
        if neighbours.size == 0:
            return labels
        for _ in range(rounds):
            labels = cdlp_round(labels, row_keys, neighbours)
        return labels

    return run


def lcc_matrices(A: Any, directed: bool) -> tuple[sp.csr_array, sp.csr_array]:  # noqa: N803
    """``S`` (structure of ``A ∪ Aᵀ`` without the diagonal) and ``Bᵀ`` (``B`` the structure of
    ``A`` without it), int32 CSR; ``Bᵀ = S`` for ``directed=False`` (symmetric ``A``)."""
    B = _structure(A).tocoo()  # noqa: N806
    off = B.row != B.col
    B = _structure(sp.coo_array((B.data[off], (B.row[off], B.col[off])), shape=B.shape))  # noqa: N806
    S = _structure(B + B.T) if directed else B  # noqa: N806
    Bt = _csr(B.T, np.int32) if directed else S  # noqa: N806
    return S, Bt


def make_lcc(A: Any, *, directed: bool = False, name: str = "") -> Callable[[], Any]:  # noqa: N803
    """LCC (LDBC Graphalytics) of the graph ``A``: ``t / (d (d - 1))`` with ``t`` the row sums
    of ``(S @ Bᵀ) ∘ S`` and ``d`` the row counts of ``S`` (see :func:`lcc_matrices`); 0 where
    ``d < 2``. Raises Unavailable above :data:`LCC_MAX_WORK` multiply-adds."""
    S, Bt = lcc_matrices(A, directed)  # noqa: N806
    work = product_work(S, Bt)
    if work > LCC_MAX_WORK:
        raise Unavailable(
            f"scipy lcc: S @ Bᵀ needs {work:.3g} multiply-adds on {name or 'this graph'} "
            f"(limit LCC_MAX_WORK = {LCC_MAX_WORK:.3g})"
        )

    def run() -> np.ndarray:
        links = (S @ Bt).multiply(S).sum(axis=1, dtype=np.int64)
        degree = np.diff(S.indptr).astype(np.float64)
        possible = degree * (degree - 1.0)
        out = np.zeros(degree.size, dtype=np.float64)
        np.divide(
            np.asarray(links, dtype=np.float64).ravel(), possible, out=out, where=possible > 0
        )
        return out

    return run


def _cdlp10(graph: PeerGraph) -> Callable[[], Any]:
    return make_cdlp(graph.csr, CDLP_ROUNDS)  # the harness's graphs are symmetric


def _lcc(graph: PeerGraph) -> Callable[[], Any]:
    return make_lcc(graph.csr, name=graph.name)


OPS: dict[str, Callable[[PeerGraph], Callable[[], Any]]] = {
    "spmv:plus_times": _spmv_plus_times,
    "spmv:lor_land": _spmv_lor_land,
    "bfs": _bfs,
    "sssp": _sssp,
    "pagerank20": _pagerank20,
    "cc": _cc,
    "tc": _tc,
    "msbfs": _msbfs,
    "cdlp10": _cdlp10,
    "lcc": _lcc,
}


def _levels(distances: Any) -> np.ndarray:
    d = np.asarray(distances)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def to_numpy(op: str, result: Any) -> np.ndarray | int:
    if op == "spmv:plus_times":
        return np.asarray(result, dtype=np.float32)
    if op == "spmv:lor_land":
        return np.asarray(result, dtype=bool)
    if op == "bfs":
        return np.asarray(result, dtype=np.int64)
    if op in ("sssp", "pagerank20"):
        return np.asarray(result, dtype=np.float64)
    if op in ("cc", "cdlp10"):
        return np.asarray(result, dtype=np.int64)
    if op == "lcc":
        return np.asarray(result, dtype=np.float64)
    if op == "tc":
        return int(result)
    if op == "msbfs":
        return _levels(result).reshape(-1, np.asarray(result).shape[-1])
    raise KeyError(f"{NAME}: no op {op!r}")
