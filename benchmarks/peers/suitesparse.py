"""SuiteSparse:GraphBLAS on the CPU through python-graphblas, every op.

Written as the python-graphblas / LAGraph idioms are; SuiteSparse runs multithreaded (OpenMP,
all cores unless ``graphblas.ss.config["nthreads"]`` says otherwise) and chooses push / pull
(saxpy / dot) per product itself. Setup builds the ``graphblas.Matrix`` / ``Vector`` objects;
``run()`` returns graphblas objects, converted by :func:`to_numpy` (untimed). Every ``run()``
ends with ``wait()`` on its result, so no deferred work escapes the timing.

* ``spmv:*``: ``A.mxv(x, semiring)`` with ``plus_times`` / ``min_plus`` (float32) and
  ``lor_land`` (a bool copy of the pattern, a full bool vector).
* ``bfs``: ``frontier<¬levels.S, replace> = frontier any.pair A`` per level; ``levels`` is
  held as a bitmap (as LAGraph does), so the masks are O(1) tests and no pending tuples pile up.
* ``sssp``: frontier Bellman-Ford: ``cand = frontier min.+ W``; the next frontier is the
  entries of ``cand`` that are new or smaller than ``dist`` (float32, the weights' dtype;
  ``dist`` held as a bitmap, as ``levels`` in ``bfs``).
* ``pagerank20``: ``r' = d Aᵀ plus.times (r ⊙ 1/outdeg) + (d Σ_dangling r + 1 - d) / n``, with
  ``Aᵀ`` stored (built in setup), as LAGraph's PageRank does.
* ``cc``: FastSV (Zhang, Azad & Hu 2020) as LAGraph's ``LG_CC_FastSV6`` without its sampling
  phase: stochastic hooking ``mngp = min(mngp, A min.second gp)``, the scatter-min
  ``parent[parent[j]] = min(parent[parent[j]], mngp[j])`` as a product with the matrix
  ``C(parent[j], j) = true``, aggressive hooking and shortcutting, until the grandparents
  stop changing.
* ``bc``: batched Brandes (LAGraph's ``LAGr_Betweenness``): a forward sweep of the (k x n)
  frontier with ``plus.first`` counting shortest paths, keeping each level's pattern, then a
  backward sweep with ``plus.first`` on ``Aᵀ``; ``Σ_s δ_s(v) = Σ_s (1 + δ_s(v)) - k``
  (``paths`` held as a bitmap, as LAGraph does).
* ``tc``: ``C<L.S> = L plus.pair Lᵀ`` (masked dot products, SandiaDot) with
  ``L = tril(A, -1)``, then the sum. On a graph where that is more than
  :data:`DOT_BLOCK_STEPS` merge steps, in row blocks (:func:`row_blocks`).
* ``msbfs``: the BFS above with a (k x n) frontier matrix, ``mxm`` per level (``levels`` a
  (k x n) bitmap).
* ``cdlp10``: label propagation written in GraphBLAS (not LAGraph's sort-based CDLP, which
  sorts the extracted tuples of each row): per round, with the labels as the matrix ``L``
  (``L[u, label[u]] = 1``, built from the host copy of the labels, as ``cc`` builds ``C``),
  ``C = A plus.first L`` counts each row's neighbours per label; ``m`` = row maxima;
  ``T = select(diag(m) any.eq C, True)`` keeps each row's most frequent labels and
  ``T min.firstj 1`` (a full vector) is the smallest of them. A directed graph's ``A`` is
  ``A + Aᵀ`` (built in setup: an edge both ways counts 2).
* ``lcc``: LAGraph's LCC formulation: ``C<S> = S plus.pair Bᵀ`` (masked dot products) with
  ``S`` the structure of ``A ∪ Aᵀ`` without the diagonal and ``B`` that of ``A`` without it
  (``B = S`` for a symmetric ``A``; both built in setup), ``t`` = row sums of ``C``, ``d`` =
  row counts of ``S``, ``lcc = t / (d (d - 1))`` (no entry, read as 0, where ``t`` has none).
  Row blocks as in ``tc``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import PeerGraph, Unavailable

NAME = "suitesparse"
DEVICE = "cpu"

#: One GraphBLAS call is one C call, which the harness's run limit (an alarm, taken between
#: two Python bytecodes) cannot stop: on kron24 ``tc`` took minutes to learn that it exceeds
#: the limit. The masked dot products of ``tc`` and ``lcc`` with more merge steps than this in
#: all (the sum over the mask's entries ``(i, j)`` of the two rows' lengths) run in row blocks
#: of about this many steps each (a few seconds on the 16 threads of a canonical run's
#: shard), so the limit stops a run about one block past it; with fewer they are one call, as
#: a user writes them.
DOT_BLOCK_STEPS = 20_000_000_000

DAMPING = 0.85
PAGERANK_ITERATIONS = 20
CDLP_ROUNDS = 10


def available() -> str | None:
    try:
        import graphblas as gb  # noqa: PLC0415 - optional
        from graphblas import Matrix  # noqa: PLC0415

        Matrix(bool, 1, 1)  # initializes the backend
        if gb.backend != "suitesparse":
            return f"python-graphblas runs backend {gb.backend!r}, not 'suitesparse'"
    except Exception as exc:  # ImportError, or a library that fails to load
        return f"python-graphblas is not usable: {type(exc).__name__}: {exc}"
    return None


def _gb() -> Any:
    reason = available()
    if reason is not None:
        raise Unavailable(reason)
    import graphblas  # noqa: PLC0415

    return graphblas


def _matrix(gb: Any, csr: Any, dtype: Any, values: Any = None) -> Any:
    """A graphblas Matrix with the pattern of ``csr``; ``values=None`` keeps its values."""
    import scipy.sparse as sp  # noqa: PLC0415

    m = sp.csr_array(csr)
    m.sort_indices()
    n_rows, n_cols = m.shape
    data = m.data if values is None else values
    return gb.Matrix.from_csr(m.indptr, m.indices, data, dtype=dtype, nrows=n_rows, ncols=n_cols)


# --------------------------------------------------------------------------------------------
# SpMV
# --------------------------------------------------------------------------------------------


def _spmv(semiring_name: str, boolean: bool) -> Callable[[PeerGraph], Callable[[], Any]]:
    def setup(graph: PeerGraph) -> Callable[[], Any]:
        gb = _gb()
        semiring = getattr(gb.semiring, semiring_name)
        if boolean:
            A = _matrix(gb, graph.csr, bool, True)  # noqa: N806
            x = gb.Vector.from_dense(np.asarray(graph.x_bool, dtype=bool))
        else:
            A = _matrix(gb, graph.csr, np.float32)  # noqa: N806
            x = gb.Vector.from_dense(np.asarray(graph.x, dtype=np.float32))

        def run() -> Any:
            y = A.mxv(x, semiring).new()
            y.wait()
            return y

        return run

    return setup


# --------------------------------------------------------------------------------------------
# Traversals
# --------------------------------------------------------------------------------------------


def _bfs(graph: PeerGraph) -> Callable[[], Any]:
    gb = _gb()
    A = graph.setup_once(  # noqa: N806
        "suitesparse bool pattern", lambda: _matrix(gb, graph.csr, bool, True)
    )
    n, source = graph.n, int(graph.source)
    any_pair = gb.semiring.any_pair[bool]

    def run() -> Any:
        levels = gb.Vector(np.int64, n)
        levels.ss.config["sparsity_control"] = "bitmap"  # as LAGraph: O(1) mask tests, no
        levels[source] = 0  # pending tuples piling up on a sparse vector
        frontier = gb.Vector(bool, n)
        frontier[source] = True
        level = 0
        while True:
            level += 1
            frontier(~levels.S, replace=True) << frontier.vxm(A, any_pair)
            if not frontier.nvals:
                break
            levels(frontier.S) << level
        levels.wait()
        return levels

    return run


def _msbfs(graph: PeerGraph) -> Callable[[], Any]:
    gb = _gb()
    A = _matrix(gb, graph.csr, bool, True)  # noqa: N806
    n = graph.n
    sources = np.asarray(graph.msbfs_sources, dtype=np.int64)
    k = sources.size
    rows = np.arange(k, dtype=np.int64)
    any_pair = gb.semiring.any_pair[bool]

    def run() -> Any:
        levels = gb.Matrix.from_coo(rows, sources, 0, dtype=np.int64, nrows=k, ncols=n)
        levels.ss.config["sparsity_control"] = "bitmap"  # as in bfs
        frontier = gb.Matrix.from_coo(rows, sources, True, dtype=bool, nrows=k, ncols=n)
        level = 0
        while True:
            level += 1
            frontier(~levels.S, replace=True) << frontier.mxm(A, any_pair)
            if not frontier.nvals:
                break
            levels(frontier.S) << level
        levels.wait()
        return levels

    return run


def _sssp(graph: PeerGraph) -> Callable[[], Any]:
    gb = _gb()
    W = graph.setup_once(  # noqa: N806
        "suitesparse float32 weights", lambda: _matrix(gb, graph.weights, np.float32)
    )
    n, source = graph.n, int(graph.source)
    min_plus = gb.semiring.min_plus[np.float32]
    lt = gb.binary.lt[np.float32]

    def run() -> Any:
        dist = gb.Vector(np.float32, n)
        dist.ss.config["sparsity_control"] = "bitmap"  # as in bfs
        dist[source] = 0.0
        frontier = gb.Vector(np.float32, n)
        frontier[source] = 0.0
        while frontier.nvals:
            cand = frontier.vxm(W, min_plus).new()
            improved = cand.ewise_mult(dist, lt).new()  # True where cand < dist
            frontier = cand.dup(mask=~dist.S)  # newly reached
            frontier(improved.V) << cand  # plus the improved ones
            dist(frontier.S) << frontier
        dist.wait()
        return dist

    return run


# --------------------------------------------------------------------------------------------
# PageRank
# --------------------------------------------------------------------------------------------


def _pagerank20(graph: PeerGraph) -> Callable[[], Any]:
    gb = _gb()
    A = _matrix(gb, graph.csr, np.float64, 1.0)  # noqa: N806
    AT = A.T.new()  # noqa: N806 - stored transpose: pull (dot product) SpMV, as LAGraph
    n = graph.n
    d = float(DAMPING)
    out_degree = A.reduce_rowwise(gb.monoid.plus).new()  # no entry for dangling vertices
    inv_out = out_degree.apply(gb.unary.minv).new()
    dangling = gb.Vector(np.float64, n)
    dangling(~out_degree.S)[:] << 1.0
    plus_times = gb.semiring.plus_times[np.float64]
    times, plus = gb.binary.times[np.float64], gb.binary.plus[np.float64]

    def run() -> Any:
        r = gb.Vector(np.float64, n)
        r[:] << 1.0 / n
        for _ in range(PAGERANK_ITERATIONS):
            lost = r.inner(dangling).new().get(0.0)  # Σ of r over dangling vertices
            share = r.ewise_mult(inv_out, times).new()
            spread = AT.mxv(share, plus_times).new()
            r = gb.Vector(np.float64, n)
            r[:] << (d * lost + (1.0 - d)) / n
            r(accum=plus) << spread.apply(times, right=d)
        r.wait()
        return r

    return run


# --------------------------------------------------------------------------------------------
# Connected components: FastSV
# --------------------------------------------------------------------------------------------


def _cc(graph: PeerGraph) -> Callable[[], Any]:
    gb = _gb()
    A = _matrix(gb, graph.csr, bool, True)  # noqa: N806 - values unused by min.second
    n = graph.n
    ids = np.arange(n, dtype=np.uint64)  # GrB_Index: no conversions in from_csc / extract
    column_starts = np.arange(n + 1, dtype=np.uint64)
    min_second = gb.semiring.min_second[np.int64]
    imin = gb.binary.min[np.int64]

    def run() -> Any:
        parent = gb.Vector.from_dense(ids, dtype=np.int64)
        gp = parent.dup()
        mngp = parent.dup()
        px = ids  # host copy of parent, the row indices of C
        while True:
            # stochastic hooking: mngp(i) = min(mngp(i), min over neighbours j of gp(j))
            mngp(accum=imin) << A.mxv(gp, min_second)
            # parent(px(j)) = min(parent(px(j)), mngp(j)) with C(px(j), j) present
            C = gb.Matrix.from_csc(column_starts, px, True, dtype=bool, nrows=n, ncols=n)  # noqa: N806
            parent(accum=imin) << C.mxv(mngp, min_second)
            # aggressive hooking and shortcutting
            parent(accum=imin) << mngp.ewise_add(gp, imin)
            # grandparents
            px = parent.to_dense(dtype=np.uint64)
            gp_new = parent[px].new()
            if gp_new.isequal(gp):
                break
            gp = gp_new
        parent.wait()
        return parent

    return run


# --------------------------------------------------------------------------------------------
# Betweenness (batched Brandes)
# --------------------------------------------------------------------------------------------


def _bc(graph: PeerGraph) -> Callable[[], Any]:
    gb = _gb()
    A = _matrix(gb, graph.csr, np.float64, 1.0)  # noqa: N806
    n = graph.n
    sources = np.asarray(graph.bc_sources, dtype=np.int64)
    k = sources.size
    rows = np.arange(k, dtype=np.int64)
    plus_first = gb.semiring.plus_first[np.float64]
    plus, times, div = (
        gb.binary.plus[np.float64],
        gb.binary.times[np.float64],
        gb.binary.truediv[np.float64],
    )

    def run() -> Any:
        # forward: paths(s, v) = number of shortest s-v paths; levels[i] = pattern at depth i+1
        paths = gb.Matrix.from_coo(rows, sources, 1.0, dtype=np.float64, nrows=k, ncols=n)
        paths.ss.config["sparsity_control"] = "bitmap"  # as LAGraph: it only grows
        frontier = gb.Matrix(np.float64, k, n)
        frontier(~paths.S, replace=True) << paths.mxm(A, plus_first)
        levels = []
        while frontier.nvals:
            levels.append(frontier.dup(dtype=bool))
            paths(accum=plus) << frontier
            frontier(~paths.S, replace=True) << frontier.mxm(A, plus_first)
        # backward: update(s, v) = 1 + δ_s(v)
        update = gb.Matrix(np.float64, k, n)
        update[:, :] << 1.0
        w = gb.Matrix(np.float64, k, n)
        for depth in range(len(levels) - 1, 0, -1):
            w(levels[depth].S, replace=True) << update.ewise_mult(paths, div)
            w(levels[depth - 1].S, replace=True) << w.mxm(A.T, plus_first)
            update(accum=plus) << w.ewise_mult(paths, times)
        centrality = update.reduce_columnwise(plus).new()
        centrality << centrality.apply(gb.binary.minus[np.float64], right=float(k))
        centrality.wait()
        return centrality

    return run


# --------------------------------------------------------------------------------------------
# Triangles
# --------------------------------------------------------------------------------------------


def row_blocks(gb: Any, X: Any, Y: Any, most: float | None = None) -> list[tuple[int, int]]:  # noqa: N803
    """Row ranges ``[lo, hi)`` covering ``X``'s rows, of about ``most`` (default
    :data:`DOT_BLOCK_STEPS`) merge steps each, of the masked dot products
    ``C<X.S> = X any.pair Yᵀ``: row ``i`` costs the sum over its entries ``j`` of
    ``len(X[i]) + len(Y[j])``. ``[(0, n)]`` where all of them cost at most ``most``; a block
    goes over ``most`` by its last row only."""
    most = DOT_BLOCK_STEPS if most is None else most
    n = X.nrows
    count = gb.agg.count
    lengths = X.reduce_rowwise(count).new(dtype=np.float64)
    own = lengths.ewise_mult(lengths, gb.binary.times).new()  # len(X[i]) once an entry
    theirs = X.mxv(Y.reduce_rowwise(count).new(dtype=np.float64), gb.semiring.plus_second)
    steps = np.zeros(n)
    for part in (own, theirs.new()):
        rows, values = part.to_coo()
        steps[rows] += values
    reach = np.cumsum(steps)
    if n == 0 or reach[-1] <= most:
        return [(0, n)]
    marks = np.arange(1, int(np.ceil(reach[-1] / most))) * most
    ends = np.searchsorted(reach, marks) + 1  # a block ends at the row that reaches its mark
    bounds = np.unique(np.concatenate(([0], np.minimum(ends, n), [n])))
    return [(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


def _blocks_of(gb: Any, X: Any, Y: Any) -> list[tuple[int, Any]]:  # noqa: N803
    """``X``'s row blocks (:func:`row_blocks`) as ``(first row, rows)``: ``X`` itself where
    it is one block, else the blocks extracted (setup: untimed)."""
    ranges = row_blocks(gb, X, Y)
    if len(ranges) == 1:
        return [(0, X)]
    return [(lo, X[lo:hi, :].new()) for lo, hi in ranges]


def _tc(graph: PeerGraph) -> Callable[[], Any]:
    gb = _gb()
    A = _matrix(gb, graph.csr, bool, True)  # noqa: N806
    L = gb.select.tril(A, -1).new()  # noqa: N806 - strictly lower
    n = graph.n
    plus_pair = gb.semiring.plus_pair[np.int64]
    plus = gb.monoid.plus[np.int64]
    blocks = _blocks_of(gb, L, L)

    def run() -> Any:
        triangles = 0
        for _, rows in blocks:
            C = gb.Matrix(np.int64, rows.nrows, n)  # noqa: N806
            C(rows.S) << rows.mxm(L.T, plus_pair)  # C(i, j) = #k < j < i closing the triangle
            triangles += C.reduce_scalar(plus).new().get(0)
            C.clear()
        return gb.Scalar.from_value(triangles, dtype=np.int64)

    return run


# --------------------------------------------------------------------------------------------
# Community detection by label propagation (LDBC Graphalytics CDLP)
# --------------------------------------------------------------------------------------------


def make_cdlp(A: Any, rounds: int = CDLP_ROUNDS, *, directed: bool = False) -> Callable[[], Any]:  # noqa: N803
    """CDLP of the graph with scipy adjacency ``A`` (rows = sources, values ignored, a self loop
    makes a vertex its own neighbour); ``directed=False`` reads the rows only, right for a
    structurally symmetric ``A``; ``directed=True`` counts in- and out-neighbours."""
    gb = _gb()
    A = _matrix(gb, A, np.int64, 1)  # noqa: N806
    if directed:
        A = A.ewise_add(A.T, gb.binary.plus[np.int64]).new()  # noqa: N806 - in + out
    n = A.nrows
    vertices = np.arange(n, dtype=np.uint64)
    plus_first = gb.semiring.plus_first[np.int64]
    any_eq = gb.semiring.any_eq[np.int64]
    min_firstj = gb.semiring.ss.min_firstj[np.int64]  # the column index k of T[i, k]
    imax = gb.monoid.max[np.int64]
    everywhere = gb.Vector.from_dense(np.ones(n, dtype=bool))

    def run() -> Any:
        labels = gb.Vector.from_dense(np.arange(n, dtype=np.int64))
        # Every round writes into the same objects, as LAGraph reuses its matrices: a
        # python-graphblas object is freed only by Python's cycle collector, so new matrices
        # each round would pile up (gigabytes on grid2048 before a collection).
        L = gb.Matrix(np.int64, n, n)  # noqa: N806 - L[u, labels[u]] = 1
        counts = gb.Matrix(np.int64, n, n)
        D = gb.Matrix(np.int64, n, n)  # noqa: N806 - diag(most)
        tied = gb.Matrix(bool, n, n)
        most = gb.Vector(np.int64, n)
        smallest = gb.Vector(np.int64, n)
        for _ in range(rounds):
            L.clear()
            L.ss.build_scalar(vertices, labels.to_dense(dtype=np.uint64), 1)  # host labels
            counts << A.mxm(L, plus_first)  # counts[v, l]: neighbours of v labelled l
            most << counts.reduce_rowwise(imax)
            D.ss.build_diag(most)
            tied << D.mxm(counts, any_eq)  # tied[v, l]: counts[v, l] == most[v]
            tied << gb.select.valueeq(tied, True)  # each row's most frequent labels
            smallest << tied.mxv(everywhere, min_firstj)  # the smallest of them
            labels(smallest.S) << smallest  # a vertex without neighbours keeps its label
        labels.wait()
        for matrix in (L, counts, D, tied):
            matrix.clear()  # free now (GrB_free in C), not at the next cycle collection
        return labels

    return run


def _cdlp10(graph: PeerGraph) -> Callable[[], Any]:
    return make_cdlp(graph.csr, CDLP_ROUNDS)  # the harness's graphs are symmetric


# --------------------------------------------------------------------------------------------
# Local clustering coefficient (LDBC Graphalytics LCC)
# --------------------------------------------------------------------------------------------


def make_lcc(A: Any, *, directed: bool = False) -> Callable[[], Any]:  # noqa: N803
    """LCC of the graph with scipy adjacency ``A`` (rows = sources; values and self loops
    ignored); ``directed=False`` takes ``A`` as structurally symmetric (``B = S``)."""
    gb = _gb()
    B = gb.select.offdiag(_matrix(gb, A, bool, True)).new()  # noqa: N806
    S = B.ewise_add(B.T, gb.binary.lor).new() if directed else B  # noqa: N806
    n = S.nrows
    plus_pair = gb.semiring.plus_pair[np.int64]
    plus, minus, times = (
        gb.monoid.plus[np.int64],
        gb.binary.minus[np.int64],
        gb.binary.times[np.int64],
    )

    blocks = _blocks_of(gb, S, B)

    def run() -> Any:
        links = gb.Vector(np.int64, n)
        for lo, rows in blocks:
            C = gb.Matrix(np.int64, rows.nrows, n)  # noqa: N806
            C(rows.S) << rows.mxm(B.T, plus_pair)  # C[v, u]: neighbours w of v with an edge u -> w
            links[lo : lo + rows.nrows] << C.reduce_rowwise(plus)
            C.clear()  # free now (GrB_free in C), not at the next cycle collection (see cdlp)
        degree = S.reduce_rowwise(gb.agg.count).new()
        possible = degree.ewise_mult(degree.apply(minus, right=1), times).new()
        lcc = links.ewise_mult(possible, gb.binary.truediv[np.float64]).new(dtype=np.float64)
        lcc.wait()
        return lcc

    return run


def _lcc(graph: PeerGraph) -> Callable[[], Any]:
    return make_lcc(graph.csr)  # the harness's graphs are symmetric


OPS: dict[str, Callable[[PeerGraph], Callable[[], Any]]] = {
    "spmv:plus_times": _spmv("plus_times", boolean=False),
    "spmv:min_plus": _spmv("min_plus", boolean=False),
    "spmv:lor_land": _spmv("lor_land", boolean=True),
    "bfs": _bfs,
    "sssp": _sssp,
    "pagerank20": _pagerank20,
    "cc": _cc,
    "bc": _bc,
    "tc": _tc,
    "msbfs": _msbfs,
    "cdlp10": _cdlp10,
    "lcc": _lcc,
}

# op -> (dtype, value of a missing entry)
_DENSE = {
    "spmv:plus_times": (np.float32, 0.0),
    "spmv:min_plus": (np.float32, np.inf),
    "spmv:lor_land": (bool, False),
    "bfs": (np.int64, -1),
    "sssp": (np.float64, np.inf),
    "pagerank20": (np.float64, 0.0),
    "cc": (np.int64, -1),
    "bc": (np.float64, 0.0),
    "msbfs": (np.int64, -1),
    "cdlp10": (np.int64, -1),
    "lcc": (np.float64, 0.0),
}


def to_numpy(op: str, result: Any) -> np.ndarray | int:
    if op == "tc":
        return int(result.get(0))
    if op not in _DENSE:
        raise KeyError(f"{NAME}: no op {op!r}")
    dtype, missing = _DENSE[op]
    return np.asarray(result.to_dense(fill_value=missing), dtype=dtype)
