"""The benchmark peers (``benchmarks/peers``) against networkx / dense NumPy references.

Every op a peer can run on the CPU is checked on small graphs: a Kronecker graph, a grid and a
disconnected graph with isolated vertices (unreachable vertices, dangling vertices, several
components). ``cupyx_naive`` runs through its NumPy / SciPy-parameterized builders here; the
real CuPy ``OPS`` of ``cusparse``, ``cupyx_naive`` and ``unionfind`` only on a GPU (marked
``gpu``); ``unionfind``'s algorithm runs here as its host model. The
``suitesparse`` tests skip where python-graphblas is not installed.
"""

from __future__ import annotations

import functools
import sys
import time
from types import SimpleNamespace
from typing import Any

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import hyblas
from benchmarks import peers
from benchmarks import run as harness
from benchmarks.peers import (
    OPS_ALL,
    PeerGraph,
    Unavailable,
    cupyx_naive,
    cusparse,
    make_peer_graph,
    scipy_peer,
    suitesparse,
    unionfind,
)

# --------------------------------------------------------------------------------------------
# Graphs
# --------------------------------------------------------------------------------------------


def _disconnected() -> sp.csr_array:
    """A Kronecker graph, a grid and 3 isolated vertices, vertex ids shuffled."""
    blocks = [
        hyblas.generators.kronecker(5, seed=3, backend="cpu").to_scipy(),
        hyblas.generators.grid_2d(3, 4, backend="cpu").to_scipy(),
        sp.csr_array((3, 3), dtype=np.float32),
    ]
    A = sp.csr_array(sp.block_diag(blocks, format="csr"))  # noqa: N806
    perm = np.random.default_rng(7).permutation(A.shape[0])
    A = sp.csr_array(A[perm][:, perm])  # noqa: N806
    A.sort_indices()
    return A


@functools.cache
def graphs() -> dict[str, PeerGraph]:
    return {
        "kron8": make_peer_graph(
            "kron8", hyblas.generators.kronecker(8, backend="cpu").to_scipy(), seed=1
        ),
        "grid6x7": make_peer_graph(
            "grid6x7", hyblas.generators.grid_2d(6, 7, backend="cpu").to_scipy(), seed=2
        ),
        "disconnected": make_peer_graph("disconnected", _disconnected(), seed=3),
    }


GRAPHS = ("kron8", "grid6x7", "disconnected")


# --------------------------------------------------------------------------------------------
# References (networkx, or plain loops / dense NumPy)
# --------------------------------------------------------------------------------------------


@functools.cache
def _digraph(name: str, weighted: bool = False) -> nx.DiGraph:
    g = graphs()[name]
    matrix = g.weights if weighted else g.csr
    return nx.from_scipy_sparse_array(
        sp.csr_array(matrix, dtype=np.float64), create_using=nx.DiGraph
    )


def _levels_reference(name: str, source: int) -> np.ndarray:
    levels = np.full(graphs()[name].n, -1, dtype=np.int64)
    for v, d in nx.single_source_shortest_path_length(_digraph(name), source).items():
        levels[v] = d
    return levels


def cdlp_reference(A: Any, rounds: int, directed: bool) -> np.ndarray:
    """CDLP (LDBC Graphalytics) by plain loops: neighbours are a row's entries, plus its
    column's for a directed graph (a vertex that is both counts twice); the most frequent
    label, the smallest on a tie; a vertex without neighbours keeps its label."""
    A = sp.csr_array(A)  # noqa: N806
    n = A.shape[0]
    neighbours = [list(A.indices[A.indptr[v] : A.indptr[v + 1]]) for v in range(n)]
    if directed:
        for v in range(n):
            for u in A.indices[A.indptr[v] : A.indptr[v + 1]]:
                neighbours[u].append(v)
    labels = list(range(n))
    for _ in range(rounds):
        new = labels[:]
        for v in range(n):
            counts: dict[int, int] = {}
            for u in neighbours[v]:
                counts[labels[u]] = counts.get(labels[u], 0) + 1
            if counts:
                most = max(counts.values())
                new[v] = min(label for label, c in counts.items() if c == most)
        labels = new
    return np.array(labels, dtype=np.int64)


def lcc_reference(A: Any) -> np.ndarray:  # noqa: N803
    """LCC (LDBC Graphalytics) by plain loops: N(v) the other vertices joined to v either way;
    directed edges u -> w between two of them over d (d - 1); 0 for d < 2."""
    A = sp.coo_array(A)  # noqa: N806
    edges = {(int(u), int(w)) for u, w in zip(A.row, A.col) if u != w}
    around: list[set[int]] = [set() for _ in range(A.shape[0])]
    for u, w in edges:
        around[u].add(w)
        around[w].add(u)
    out = np.zeros(A.shape[0])
    for v, near in enumerate(around):
        d = len(near)
        if d >= 2:
            out[v] = sum((u, w) in edges for u in near for w in near) / (d * (d - 1))
    return out


def _rows(g: PeerGraph) -> list[np.ndarray]:
    A = sp.csr_array(g.csr)  # noqa: N806
    return [A.indices[A.indptr[i] : A.indptr[i + 1]] for i in range(g.n)]


def _pagerank_reference(g: PeerGraph, iterations: int = 20, d: float = 0.85) -> np.ndarray:
    """Dense power iteration of networkx's formula."""
    M = sp.csr_array(g.csr, dtype=np.float64).toarray()  # noqa: N806
    M[M != 0] = 1.0
    out = M.sum(axis=1)
    n = g.n
    r = np.full(n, 1.0 / n)
    for _ in range(iterations):
        share = np.divide(r, out, out=np.zeros(n), where=out > 0)
        r = d * (M.T @ share) + (d * r[out == 0].sum() + 1.0 - d) / n
    return r


@functools.cache
def reference(name: str, op: str) -> Any:
    g = graphs()[name]
    if op == "spmv:plus_times":
        return sp.csr_array(g.csr, dtype=np.float64) @ g.x.astype(np.float64)
    if op == "spmv:min_plus":
        return np.array(
            [
                (1.0 + g.x[cols].astype(np.float64)).min() if cols.size else np.inf
                for cols in _rows(g)
            ]
        )
    if op == "spmv:lor_land":
        return np.array([bool(g.x_bool[cols].any()) for cols in _rows(g)])
    if op == "bfs":
        return _levels_reference(name, g.source)
    if op == "sssp":
        dist = np.full(g.n, np.inf)
        found = nx.single_source_dijkstra_path_length(_digraph(name, True), g.source)
        for v, d in found.items():
            dist[v] = d
        return dist
    if op == "pagerank20":
        return _pagerank_reference(g)
    if op == "cc":
        return _canonical([sorted(c) for c in nx.weakly_connected_components(_digraph(name))], g.n)
    if op == "bc":
        bc = nx.betweenness_centrality_subset(
            _digraph(name),
            sources=[int(s) for s in g.bc_sources],
            targets=list(range(g.n)),
            normalized=False,
        )
        return np.array([bc[v] for v in range(g.n)])
    if op == "tc":
        return sum(nx.triangles(_digraph(name).to_undirected()).values()) // 3
    if op == "msbfs":
        return np.stack([_levels_reference(name, int(s)) for s in g.msbfs_sources])
    if op == "cdlp10":
        return cdlp_reference(g.csr, 10, directed=False)
    if op == "lcc":
        return lcc_reference(g.csr)
    raise KeyError(op)


def _canonical(components: list[list[int]], n: int) -> np.ndarray:
    """Label every vertex with the smallest vertex of its component."""
    labels = np.full(n, -1, dtype=np.int64)
    for component in components:
        labels[component] = min(component)
    return labels


def _canonical_labels(labels: np.ndarray) -> np.ndarray:
    labels = np.asarray(labels)
    out = np.full(labels.size, -1, dtype=np.int64)
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        out[members] = members.min()
    return out


_DTYPES = {
    "spmv:plus_times": np.float32,
    "spmv:min_plus": np.float32,
    "spmv:lor_land": np.bool_,
    "bfs": np.int64,
    "sssp": np.float64,
    "pagerank20": np.float64,
    "cc": np.int64,
    "bc": np.float64,
    "msbfs": np.int64,
    "cdlp10": np.int64,
    "lcc": np.float64,
}


def check(name: str, op: str, got: Any, *, rtol: float = 1e-5) -> None:
    """``got`` (a ``to_numpy`` result) follows the conventions and equals the reference."""
    g = graphs()[name]
    ref = reference(name, op)
    if op == "tc":
        assert isinstance(got, int) and not isinstance(got, bool), type(got)
        assert got == ref
        return
    assert isinstance(got, np.ndarray), type(got)
    assert got.dtype == _DTYPES[op], (op, got.dtype)
    expected_shape = (len(g.msbfs_sources), g.n) if op == "msbfs" else (g.n,)
    assert got.shape == expected_shape
    if op == "cc":
        np.testing.assert_array_equal(_canonical_labels(got), ref)
    elif got.dtype.kind in "bi":
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_array_equal(np.isinf(got), np.isinf(ref))
        finite = np.isfinite(ref)
        np.testing.assert_allclose(got[finite], ref[finite], rtol=rtol, atol=1e-12)


# --------------------------------------------------------------------------------------------
# The graphs and the interface
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GRAPHS)
def test_peer_graph_invariants(name: str) -> None:
    g = graphs()[name]
    A, W = sp.csr_array(g.csr), sp.csr_array(g.weights)  # noqa: N806
    assert A.dtype == np.float32 and np.all(A.data == 1.0)
    assert A.has_sorted_indices and not A.diagonal().any()
    assert (A != A.T).nnz == 0
    assert W.dtype == np.float32 and np.array_equal(W.indptr, A.indptr)
    assert np.array_equal(W.indices, A.indices)
    assert W.data.min() >= 1.0 and W.data.max() < 64.0
    assert (W != W.T).nnz == 0
    assert g.x.dtype == np.float32 and g.x.min() >= 1.0 and g.x.max() < 2.0
    assert g.x_bool.dtype == np.bool_ and 0 < g.x_bool.sum() < g.n
    degree = np.diff(A.indptr)
    for sources in (g.bc_sources, g.msbfs_sources):
        assert sources.dtype == np.int64 and np.all(degree[sources] > 0)
    assert g.bc_sources.size == 4 and g.msbfs_sources.size == 64
    assert degree[g.source] > 0


def test_disconnected_graph_exercises_the_edge_cases() -> None:
    g = graphs()["disconnected"]
    assert np.any(np.diff(g.csr.indptr) == 0)  # isolated = dangling vertices, empty rows
    assert np.any(reference("disconnected", "bfs") == -1)
    assert len(np.unique(reference("disconnected", "cc"))) >= 5


def test_modules_follow_the_interface() -> None:
    loaded = peers.load_peers()
    assert set(loaded) == {"cusparse", "cupyx-naive", "scipy", "suitesparse", "unionfind"}
    for key, module in loaded.items():
        assert module.NAME == key
        assert module.DEVICE in ("gpu", "cpu")
        assert set(module.OPS) <= set(OPS_ALL)
        reason = module.available()
        assert reason is None or isinstance(reason, str)
    assert set(cusparse.OPS) == {"spmv:plus_times"}
    assert set(cupyx_naive.OPS) == {"bfs", "sssp", "pagerank20"}
    assert set(scipy_peer.OPS) == set(OPS_ALL) - {"spmv:min_plus", "bc"}
    assert set(suitesparse.OPS) == set(OPS_ALL)
    assert set(unionfind.OPS) == {"cc"}
    assert (cusparse.DEVICE, cupyx_naive.DEVICE, unionfind.DEVICE) == ("gpu", "gpu", "gpu")
    assert (scipy_peer.DEVICE, suitesparse.DEVICE) == ("cpu", "cpu")


def test_lcc_reference_is_networkx_clustering_on_the_symmetric_graphs() -> None:
    for name in GRAPHS:
        theirs = nx.clustering(_digraph(name).to_undirected())
        np.testing.assert_allclose(
            reference(name, "lcc"), [theirs[v] for v in range(graphs()[name].n)], rtol=1e-12
        )


def test_references_agree_with_networkx_pagerank() -> None:
    """The dense reference is networkx's formula: converged, it equals ``nx.pagerank``."""
    for name in GRAPHS:
        g = graphs()[name]
        ours = _pagerank_reference(g, iterations=300)
        theirs = nx.pagerank(_digraph(name), alpha=0.85, tol=1e-14, max_iter=1000, weight=None)
        np.testing.assert_allclose(ours, [theirs[v] for v in range(g.n)], rtol=1e-8)


# --------------------------------------------------------------------------------------------
# scipy
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GRAPHS)
@pytest.mark.parametrize("op", sorted(scipy_peer.OPS))
def test_scipy_peer(op: str, name: str) -> None:
    run = scipy_peer.OPS[op](graphs()[name])
    rtol = 1e-5 if op.startswith("spmv") else 1e-9
    check(name, op, scipy_peer.to_numpy(op, run()), rtol=rtol)
    check(name, op, scipy_peer.to_numpy(op, run()), rtol=rtol)  # the closure is reusable


def test_scipy_bfs_levels_on_a_path_and_a_star() -> None:
    path = sp.diags([np.ones(5), np.ones(5)], [-1, 1], shape=(6, 6), format="csr")
    np.testing.assert_array_equal(scipy_peer.bfs_levels(path, 2), [2, 1, 0, 1, 2, 3])
    star = sp.csr_array(([1.0] * 6, ([0, 0, 0, 1, 2, 3], [1, 2, 3, 0, 0, 0])), shape=(5, 5))
    np.testing.assert_array_equal(scipy_peer.bfs_levels(star, 3), [1, 2, 2, 0, -1])


def test_scipy_refuses_oversized_work(monkeypatch: pytest.MonkeyPatch) -> None:
    g = graphs()["kron8"]
    L = sp.tril(sp.csr_array(g.csr), k=-1, format="csr")  # noqa: N806
    monkeypatch.setattr(scipy_peer, "TC_MAX_WORK", scipy_peer.tc_work(L) - 1)
    with pytest.raises(Unavailable, match="TC_MAX_WORK"):
        scipy_peer.OPS["tc"](g)
    monkeypatch.setattr(scipy_peer, "TC_MAX_WORK", scipy_peer.tc_work(L))
    scipy_peer.OPS["tc"](g)
    monkeypatch.setattr(scipy_peer, "MSBFS_MAX_OUTPUT_BYTES", 8 * 64 * g.n - 1)
    with pytest.raises(Unavailable, match="MSBFS_MAX_OUTPUT_BYTES"):
        scipy_peer.OPS["msbfs"](g)


def test_the_run_limit_stops_scipy_msbfs_between_two_sources(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The harness's run limit is an alarm, which Python takes between two C calls: the
    scipy msbfs peer searches one source a call, so a run over the limit stops after the
    source it is on, not after all of them."""
    calls = []

    def one_slow_call(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["indices"])
        time.sleep(0.05)  # a search that takes a while (the sleep is the C call here)
        return csgraph.shortest_path(*args, **kwargs)

    run = scipy_peer.OPS["msbfs"](graphs()["kron8"])
    monkeypatch.setattr(scipy_peer.csgraph, "shortest_path", one_slow_call)
    with pytest.raises(harness.RunLimitExceeded), harness.run_limit(0.2):
        run()
    assert 0 < len(calls) < 10  # of 64 sources: stopped between two
    assert all(np.ndim(source) == 0 for source in calls)


# --------------------------------------------------------------------------------------------
# cupyx-naive, run with NumPy / SciPy
# --------------------------------------------------------------------------------------------


def _cupyx_naive_on_numpy(op: str, g: PeerGraph) -> Any:
    if op == "bfs":
        return cupyx_naive.make_bfs(g, np, sp)
    if op == "sssp":
        return cupyx_naive.make_sssp(g, np, np.minimum.at)
    return cupyx_naive.make_pagerank(g, np, sp)


@pytest.mark.parametrize("name", GRAPHS)
@pytest.mark.parametrize("op", sorted(cupyx_naive.OPS))
def test_cupyx_naive_algorithms_on_numpy(op: str, name: str) -> None:
    run = _cupyx_naive_on_numpy(op, graphs()[name])
    result = run()
    assert isinstance(result, np.ndarray)
    check(name, op, cupyx_naive.to_numpy(op, result), rtol=1e-5 if op == "sssp" else 1e-9)


def test_cupyx_naive_sssp_stops_when_nothing_improves() -> None:
    """Bellman-Ford runs a round past the last improvement, not n rounds."""
    g = graphs()["grid6x7"]
    calls = []

    def counting_min_at(a: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
        calls.append(1)
        np.minimum.at(a, index, values)

    cupyx_naive.make_sssp(g, np, counting_min_at)()
    assert 1 < len(calls) < g.n // 2


# --------------------------------------------------------------------------------------------
# GPU peers: without a GPU they refuse; with one, the real CuPy OPS are checked
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GRAPHS)
def test_unionfind_model_labels_each_component_by_its_smallest_vertex(name: str) -> None:
    """The union-find peer's algorithm (edges once each, larger root under the smaller, path
    halving, final compression), run edge by edge on the host: each label is the smallest
    vertex of its component, as in the reference."""
    g = graphs()[name]
    rows, cols = unionfind.edge_list(g.csr)
    assert rows.dtype == np.int32 and np.all(rows < cols)
    assert 2 * rows.size == sp.csr_array(g.csr).nnz  # each undirected edge once
    labels = unionfind.model_labels(rows, cols, g.n)
    assert np.array_equal(labels, reference(name, "cc"))  # the smallest vertex of each
    # edges in another order (reversed, ends swapped): other races, the same labels
    assert np.array_equal(unionfind.model_labels(cols[::-1], rows[::-1], g.n), labels)


def test_gpu_peers_refuse_without_a_gpu(cuda_usable: bool) -> None:
    if cuda_usable:
        pytest.skip("a GPU is usable here; test_gpu_peers covers it")
    for module in (cusparse, cupyx_naive, unionfind):
        assert isinstance(module.available(), str)
        for make in module.OPS.values():
            with pytest.raises(Unavailable):
                make(graphs()["grid6x7"])


@pytest.mark.gpu
@pytest.mark.parametrize("name", GRAPHS)
def test_gpu_peers(name: str, cuda_usable: bool) -> None:
    if not cuda_usable:
        pytest.skip("needs CuPy and a usable GPU; hyblas.cuda_available() is False")
    import cupy  # noqa: PLC0415

    for module in (cusparse, cupyx_naive, unionfind):
        assert module.available() is None
        for op, make in module.OPS.items():
            result = make(graphs()[name])()
            assert isinstance(result, cupy.ndarray), (module.NAME, op, type(result))
            check(name, op, module.to_numpy(op, result), rtol=1e-5)


@pytest.mark.gpu
def test_unionfind_on_a_large_grid_equals_csgraph(cuda_usable: bool) -> None:
    """A grid's long paths make the link pass's halving writes race with one another and,
    before the compression walked without halving, with the final writes (a few thousand
    vertices of a 2048 x 2048 grid kept a parent that was no root): every run gives the
    smallest vertex of each component."""
    if not cuda_usable:
        pytest.skip("needs CuPy and a usable GPU; hyblas.cuda_available() is False")
    side = 1024
    grid = hyblas.generators.grid_2d(side, side, backend="cpu").to_scipy()
    upper = sp.triu(grid, k=1, format="coo")
    kept = np.arange(upper.nnz) % 97 != 0  # cut some edges: several components, not one
    upper = sp.coo_array((upper.data[kept], (upper.row[kept], upper.col[kept])), shape=grid.shape)
    pattern = sp.csr_array(upper + upper.T)
    n = pattern.shape[0]
    _, labels = csgraph.connected_components(pattern, directed=False)
    smallest = np.full(labels.max() + 1, n)
    np.minimum.at(smallest, labels, np.arange(n))
    run = unionfind.OPS["cc"](SimpleNamespace(csr=pattern, n=n))
    for _ in range(5):
        assert np.array_equal(unionfind.to_numpy("cc", run()), smallest[labels])


# --------------------------------------------------------------------------------------------
# SuiteSparse:GraphBLAS through python-graphblas
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GRAPHS)
@pytest.mark.parametrize("op", sorted(suitesparse.OPS))
def test_suitesparse(op: str, name: str) -> None:
    pytest.importorskip("graphblas")
    assert suitesparse.available() is None
    run = suitesparse.OPS[op](graphs()[name])
    result = run()
    assert type(result).__module__.startswith("graphblas"), type(result)
    rtol = 1e-5 if op.startswith("spmv") or op == "sssp" else 1e-9
    check(name, op, suitesparse.to_numpy(op, result), rtol=rtol)


def _dot_steps(X: sp.csr_array, Y: sp.csr_array) -> np.ndarray:  # noqa: N803
    """Each row's merge steps in ``C<X.S> = X any.pair Yᵀ``, written out in NumPy."""
    x_len, y_len = np.diff(X.indptr), np.diff(Y.indptr)
    rows = np.repeat(np.arange(X.shape[0]), x_len)
    return np.bincount(rows, weights=x_len[rows] + y_len[X.indices], minlength=X.shape[0])


@pytest.mark.parametrize("name", GRAPHS)
def test_suitesparse_row_blocks_cover_the_rows_in_blocks_of_about_the_steps_asked(
    name: str,
) -> None:
    gb = pytest.importorskip("graphblas")
    L = sp.tril(sp.csr_array(graphs()[name].csr), k=-1, format="csr")  # noqa: N806
    L.sort_indices()
    steps = _dot_steps(L, L)
    M = gb.io.from_scipy_sparse(L.astype(bool))  # noqa: N806
    assert suitesparse.row_blocks(gb, M, M, most=steps.sum()) == [(0, L.shape[0])]
    most = steps.sum() / 7
    blocks = suitesparse.row_blocks(gb, M, M, most=most)
    assert blocks[0][0] == 0 and blocks[-1][1] == L.shape[0]
    assert all(hi == lo for (_, hi), (lo, _) in zip(blocks, blocks[1:], strict=False))
    assert 7 <= len(blocks) <= 8
    for lo, hi in blocks:  # over `most` only by its last row, which reaches the block's mark
        assert hi > lo and steps[lo : hi - 1].sum() <= most


@pytest.mark.parametrize("name", GRAPHS)
def test_suitesparse_tc_and_lcc_in_row_blocks_equal_the_reference(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    gb = pytest.importorskip("graphblas")
    g = graphs()[name]
    L = sp.tril(sp.csr_array(g.csr), k=-1, format="csr")  # noqa: N806
    monkeypatch.setattr(suitesparse, "DOT_BLOCK_STEPS", max(_dot_steps(L, L).sum() / 5, 1))
    for op in ("tc", "lcc"):
        check(name, op, suitesparse.to_numpy(op, suitesparse.OPS[op](g)()), rtol=1e-9)
    assert len(suitesparse.row_blocks(gb, *[gb.io.from_scipy_sparse(L.astype(bool))] * 2)) > 1


def test_the_run_limit_stops_a_blocked_suitesparse_product_between_blocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As scipy's msbfs between sources: a run of many blocks over the limit stops after the
    block it is on."""
    gb = pytest.importorskip("graphblas")
    g = graphs()["kron8"]
    L = sp.tril(sp.csr_array(g.csr), k=-1, format="csr")  # noqa: N806
    monkeypatch.setattr(suitesparse, "DOT_BLOCK_STEPS", _dot_steps(L, L).sum() / 64)
    run = suitesparse.OPS["tc"](g)
    calls = []
    mxm = gb.Matrix.mxm

    def one_slow_block(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        time.sleep(0.05)  # a block that takes a while (the sleep is the C call here)
        return mxm(*args, **kwargs)

    monkeypatch.setattr(gb.Matrix, "mxm", one_slow_block)
    with pytest.raises(harness.RunLimitExceeded), harness.run_limit(0.2):
        run()
    assert 0 < len(calls) < 10  # of about 64 blocks: stopped between two


def test_suitesparse_unavailable_without_graphblas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "graphblas", None)  # `import graphblas` now fails
    reason = suitesparse.available()
    assert isinstance(reason, str) and "graphblas" in reason
    with pytest.raises(Unavailable):
        suitesparse.OPS["bfs"](graphs()["grid6x7"])


# --------------------------------------------------------------------------------------------
# cdlp10 and lcc on small random graphs, directed and undirected: the peers' builders against
# hyblas, the loops above and networkx
# --------------------------------------------------------------------------------------------


def _random_graph(n: int, density: float, seed: int, directed: bool, loops: int) -> sp.csr_array:
    """A random pattern (float ones) with ``loops`` self loops and a few isolated vertices;
    symmetrized unless ``directed``."""
    rng = np.random.default_rng(seed)
    A = sp.random_array((n, n), density=density, random_state=rng, format="coo")  # noqa: N806
    keep = (A.row < n - 3) & (A.col < n - 3)  # the last 3 vertices are isolated
    rows, cols = A.row[keep], A.col[keep]
    rows, cols = rows[rows != cols], cols[rows != cols]
    looped = rng.choice(n - 3, size=loops, replace=False)
    rows, cols = np.concatenate([rows, looped]), np.concatenate([cols, looped])
    if not directed:
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
    A = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))  # noqa: N806
    A.sum_duplicates()
    A.data[:] = 1.0
    A.sort_indices()
    return A


#: (n, density, seed, directed, self loops)
RANDOM_GRAPHS = {
    "undirected-40": (40, 0.06, 1, False, 0),
    "undirected-60-loops": (60, 0.03, 2, False, 3),
    "directed-40": (40, 0.05, 3, True, 0),
    "directed-60-loops": (60, 0.04, 4, True, 3),
}


@pytest.mark.parametrize("rounds", [1, 3, 10])
@pytest.mark.parametrize("name", sorted(RANDOM_GRAPHS))
def test_cdlp_peers_agree_with_hyblas_and_the_loops(name: str, rounds: int) -> None:
    n, density, seed, directed, loops = RANDOM_GRAPHS[name]
    A = _random_graph(n, density, seed, directed, loops)  # noqa: N806
    expected = cdlp_reference(A, rounds, directed)
    assert np.unique(expected).size > 3  # several communities, not one label everywhere
    G = hyblas.Graph.from_scipy(A, "directed" if directed else "undirected")  # noqa: N806
    ours = hyblas.algorithms.cdlp(G, rounds).to_dense()
    np.testing.assert_array_equal(ours, expected)
    got = scipy_peer.make_cdlp(A, rounds, directed=directed)()
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)
    if suitesparse.available() is None:
        result = suitesparse.make_cdlp(A, rounds, directed=directed)()
        np.testing.assert_array_equal(suitesparse.to_numpy("cdlp10", result), expected)


@pytest.mark.parametrize("name", sorted(RANDOM_GRAPHS))
def test_lcc_peers_agree_with_hyblas_the_loops_and_networkx(name: str) -> None:
    n, density, seed, directed, loops = RANDOM_GRAPHS[name]
    A = _random_graph(n, density, seed, directed, loops)  # noqa: N806
    expected = lcc_reference(A)
    assert 0 < np.count_nonzero(expected) < n
    if not directed:  # networkx's clustering is Graphalytics' LCC on an undirected graph
        theirs = nx.clustering(nx.from_scipy_sparse_array(A))
        np.testing.assert_allclose(expected, [theirs[v] for v in range(n)], rtol=1e-12)
    G = hyblas.Graph.from_scipy(A, "directed" if directed else "undirected")  # noqa: N806
    ours = hyblas.algorithms.local_clustering_coefficient(G).to_dense()
    np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-12)
    got = scipy_peer.make_lcc(A, directed=directed)()
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-12)
    if suitesparse.available() is None:
        result = suitesparse.make_lcc(A, directed=directed)()
        np.testing.assert_allclose(
            suitesparse.to_numpy("lcc", result), expected, rtol=1e-6, atol=1e-12
        )
        with pytest.MonkeyPatch.context() as patch:  # in row blocks
            patch.setattr(suitesparse, "DOT_BLOCK_STEPS", max(A.nnz, 1))
            result = suitesparse.make_lcc(A, directed=directed)()
        np.testing.assert_allclose(
            suitesparse.to_numpy("lcc", result), expected, rtol=1e-6, atol=1e-12
        )


def test_cdlp_round_breaks_ties_to_the_smallest_label() -> None:
    # vertex 0 sees labels 5, 5, 3, 3, 9 (a tie of 5 and 3: 3); vertex 1 sees 9, 9, 3 (9);
    # vertex 2 sees nothing (keeps 2)
    labels = np.array([0, 1, 2, 5, 5, 3, 3, 9, 8, 9], dtype=np.int64)
    rows = np.array([0, 0, 0, 0, 0, 1, 1, 1], dtype=np.int64)
    neighbours = np.array([3, 4, 5, 6, 7, 7, 9, 6], dtype=np.int64)
    new = scipy_peer.cdlp_round(labels, rows * labels.size, neighbours)
    np.testing.assert_array_equal(new, [3, 9, 2, 5, 5, 3, 3, 9, 8, 9])


def test_scipy_lcc_refuses_oversized_work(monkeypatch: pytest.MonkeyPatch) -> None:
    g = graphs()["kron8"]
    S, Bt = scipy_peer.lcc_matrices(g.csr, directed=False)  # noqa: N806
    monkeypatch.setattr(scipy_peer, "LCC_MAX_WORK", scipy_peer.product_work(S, Bt) - 1)
    with pytest.raises(Unavailable, match="LCC_MAX_WORK"):
        scipy_peer.OPS["lcc"](g)
    monkeypatch.setattr(scipy_peer, "LCC_MAX_WORK", scipy_peer.product_work(S, Bt))
    scipy_peer.OPS["lcc"](g)
