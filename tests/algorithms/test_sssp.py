"""Single-source shortest paths against networkx and scipy.sparse.csgraph."""

from __future__ import annotations

import importlib
from typing import Any

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.algorithms.sssp import _bucket_width, sssp
from hyblas.errors import (
    DimensionMismatch,
    IndexOutOfBounds,
    InvalidObject,
    InvalidValue,
    NegativeCycle,
)
from tests.support.graph_strategies import as_dict, graphs

# the module (hyblas.algorithms.sssp is also the function's name there)
sssp_module = importlib.import_module("hyblas.algorithms.sssp")

NEGATIVE_WEIGHTS = (-2.0, -1.0, -0.5, 0.0, 1.0, 2.5)


def _assert_distances(got: hb.Vector, expected: dict[int, float]) -> None:
    found = as_dict(got)
    assert set(found) == set(expected)
    for v, d in expected.items():
        assert found[v] == pytest.approx(d, rel=1e-12, abs=1e-12), v


def _reference(G: nx.Graph, source: int) -> dict[int, float] | None:
    """networkx Bellman-Ford distances, None if a negative cycle is reachable."""
    try:
        return nx.single_source_bellman_ford_path_length(G, source)
    except nx.NetworkXUnbounded:
        return None


# --- against networkx on hypothesis graphs --------------------------------------------------


@st.composite
def _negative_dags(draw: Any) -> tuple[nx.DiGraph, hb.Matrix]:
    """Directed acyclic graphs (edges from lower to higher ids) with negative weights."""
    G, _ = draw(graphs(max_n=14, directed=True, weights=NEGATIVE_WEIGHTS, self_loops=False))
    dag = nx.DiGraph()
    dag.add_nodes_from(G)
    dag.add_weighted_edges_from((min(u, v), max(u, v), w) for u, v, w in G.edges(data="weight"))
    return dag, hb.io.from_networkx(dag, nodelist=range(dag.number_of_nodes()))


@given(
    st.one_of(
        graphs(),  # weights 0 to 3, directed or not
        graphs(directed=True, weights=NEGATIVE_WEIGHTS),  # mostly with negative cycles
        _negative_dags(),  # negative weights, no cycle
    ),
    st.data(),
)
def test_sssp_matches_networkx(graph: tuple, data: Any) -> None:
    # networkx raises exactly when a negative cycle is reachable from the source
    G, A = graph
    n = A.nrows
    if n == 0:
        with pytest.raises(IndexOutOfBounds):
            sssp(A, 0)
        return
    source = data.draw(st.integers(0, n - 1))
    expected = _reference(G, source)
    if expected is None:
        with pytest.raises(NegativeCycle, match="negative cycle"):
            sssp(A, source)
        return
    dist = sssp(A, source)
    assert dist.dtype == np.float64 and dist.size == n
    _assert_distances(dist, expected)
    _, _, weights = A.to_coo()
    for delta in (None, 0.5, 7.0):  # plain rounds, and buckets of a width drawn by hand
        if delta is not None and weights.size and weights.min() < 0:
            with pytest.raises(InvalidValue, match="non-negative"):
                sssp(A, source, delta=delta)
        else:
            _assert_distances(sssp(A, source, delta=delta), expected)
    if np.array_equal(weights, np.round(weights)):  # the same graph with integer weights
        dist = sssp(A.dup(np.int32), source)
        assert dist.dtype == np.int64
        assert as_dict(dist) == {v: int(d) for v, d in expected.items()}


# --- negative cycles ------------------------------------------------------------------------


def test_sssp_negative_cycle_raises_only_when_reachable() -> None:
    # 1 -> 2 -> 1 (weight -2) is reachable from 0; 4 -> 5 -> 4 (weight -2) only from 4 and 5
    rows, cols = [0, 1, 2, 4, 5], [1, 2, 1, 5, 4]
    A = hb.Matrix.from_coo(rows, cols, [1.0, -3.0, 1.0, -1.0, -1.0], nrows=6, ncols=6)
    for source in (0, 1, 4, 5):
        with pytest.raises(InvalidValue, match="negative cycle"):
            sssp(A, source)
    assert as_dict(sssp(A, 3)) == {3: 0.0}
    B = hb.Matrix.from_coo([0, 1, 4, 5], [1, 2, 5, 4], [1.0, -3.0, -1.0, -1.0], nrows=6, ncols=6)
    assert as_dict(sssp(B, 0)) == {0: 0.0, 1: 1.0, 2: -2.0}
    assert as_dict(sssp(B, 3)) == {3: 0.0}


def test_sssp_negative_self_loop_is_a_negative_cycle() -> None:
    A = hb.Matrix.from_coo([0, 1], [1, 1], [1.0, -0.5], nrows=3, ncols=3)
    with pytest.raises(InvalidValue, match="negative cycle"):
        sssp(A, 0)
    assert as_dict(sssp(A, 2)) == {2: 0.0}
    with pytest.raises(InvalidValue):
        sssp(hb.Matrix.from_coo([0], [0], [-1.0], nrows=1, ncols=1), 0)


def test_sssp_undirected_negative_edge_is_a_negative_cycle() -> None:
    G = nx.Graph([(0, 1, {"weight": 2.0}), (1, 2, {"weight": -1.0})])
    A = hb.io.from_networkx(G, nodelist=[0, 1, 2])
    with pytest.raises(InvalidValue):
        sssp(A, 0)


# --- semantics ------------------------------------------------------------------------------


def test_sssp_zero_weight_edges_and_self_loops() -> None:
    # a stored 0 is an edge of weight 0; a zero self loop changes nothing
    A = hb.Matrix.from_coo([0, 1, 1, 2], [1, 1, 2, 3], [0.0, 0.0, 2.0, 0.0], nrows=5, ncols=5)
    assert as_dict(sssp(A, 0)) == {0: 0.0, 1: 0.0, 2: 2.0, 3: 2.0}


def test_sssp_bool_and_float32_dtypes() -> None:
    A = hb.Matrix.from_coo([0, 1, 0], [1, 2, 2], [True, True, False], nrows=3, ncols=3)
    dist = sssp(A, 0)
    assert dist.dtype == np.int64 and as_dict(dist) == {0: 0, 1: 1, 2: 0}
    F = hb.Matrix.from_coo([0, 1], [1, 2], [0.5, 0.25], nrows=3, ncols=3, dtype=np.float32)
    dist = sssp(F, 0)
    assert dist.dtype == np.float32 and as_dict(dist) == {0: 0.0, 1: 0.5, 2: 0.75}


def test_sssp_single_vertex_and_isolated_source() -> None:
    assert as_dict(sssp(hb.Matrix.new(np.float64, 1, 1), 0)) == {0: 0.0}
    A = hb.Matrix.from_coo([0, 1], [1, 2], [1.0, 1.0], nrows=4, ncols=4)
    assert as_dict(sssp(A, 3)) == {3: 0.0}
    assert as_dict(sssp(A, 2)) == {2: 0.0}


def test_sssp_long_path_needs_n_minus_1_rounds() -> None:
    # the last vertex of a path is reached in round n - 1: no false negative-cycle report
    n = 50
    A = hb.io.from_networkx(nx.path_graph(n, create_using=nx.DiGraph))
    dist = sssp(A, 0)
    assert np.array_equal(dist.to_dense(), np.arange(n, dtype=np.float64))


# --- generator graphs (CPU and GPU) ---------------------------------------------------------


def test_sssp_kronecker_against_bellman_ford(backend: str) -> None:
    A = hb.generators.random_weights(
        hb.generators.kronecker(9, 8, seed=3, backend=backend), 0.5, 4.0, seed=1, dtype=np.float64
    )
    S = A.to_scipy()
    source = int(np.argmax(np.diff(S.indptr)))
    expected = csgraph.bellman_ford(S, indices=source)
    dist = sssp(A, source)
    assert dist.backend == backend and dist.dtype == np.float64
    reached = np.flatnonzero(np.isfinite(expected))
    idx, vals = dist.to_coo()
    assert np.array_equal(idx, reached)
    np.testing.assert_allclose(vals, expected[reached], rtol=1e-12)


def test_sssp_directed_kronecker_float32_against_dijkstra(backend: str) -> None:
    A = hb.generators.random_weights(
        hb.generators.kronecker(8, 8, seed=4, symmetric=False, backend=backend),
        1.0,
        10.0,
        seed=2,
    )
    assert A.dtype == np.float32
    S = A.to_scipy()
    expected = csgraph.dijkstra(S, directed=True, indices=0)
    dist = sssp(A, 0)
    assert dist.dtype == np.float32
    reached = np.flatnonzero(np.isfinite(expected))
    idx, vals = dist.to_coo()
    assert np.array_equal(idx, reached)
    np.testing.assert_allclose(vals, expected[reached], rtol=1e-5)


def test_sssp_grid_distances_are_manhattan(backend: str) -> None:
    A = hb.generators.grid_2d(6, 9, backend=backend)
    r, c = np.divmod(np.arange(54), 9)
    dist = sssp(A, 0)
    assert np.array_equal(dist.to_dense(), (r + c).astype(np.float32))


def test_sssp_buckets_on_a_weighted_grid_against_dijkstra(backend: str) -> None:
    A = hb.generators.grid_2d(19, 23, backend=backend)
    W = hb.generators.random_weights(A, 1.0, 64.0, seed=3, dtype=np.float64)  # noqa: N806
    expected = csgraph.dijkstra(W.to_scipy(), indices=7)
    for delta in ("auto", None, 1.0, 30.0, 1e6):
        dist = sssp(W, 7, delta=delta)
        np.testing.assert_allclose(dist.to_dense(), expected, rtol=1e-12)
    ints = hb.Matrix.from_coo(
        *W.to_coo()[:2],
        np.ceil(W.to_coo()[2]),
        nrows=W.nrows,
        ncols=W.ncols,
        dtype=np.int32,
        backend=backend,
    )
    expected = csgraph.dijkstra(ints.to_scipy().astype(np.float64), indices=7)
    for delta in ("auto", 1, 40):
        assert np.array_equal(sssp(ints, 7, delta=delta).to_dense(), expected.astype(np.int64))


def test_sssp_auto_buckets_sparse_graphs_only() -> None:
    grid = hb.generators.random_weights(
        hb.generators.grid_2d(10, 10), 1.0, 3.0, seed=2, dtype=np.float64
    )
    _, _, w = grid.to_coo()
    assert _bucket_width(grid, np.dtype(np.float64), "auto") == pytest.approx(
        32 * w.mean() / (w.size / 100)
    )
    dense = hb.generators.random_weights(
        hb.generators.kronecker(8, 32, seed=1), 1.0, 3.0, seed=2, dtype=np.float64
    )
    assert (
        dense.nnz / dense.nrows > 16 and _bucket_width(dense, np.dtype(np.float64), "auto") is None
    )
    negative = hb.Matrix.from_coo([0, 1], [1, 0], [-1.0, 2.0], nrows=2, ncols=2)
    assert _bucket_width(negative, np.dtype(np.float64), "auto") is None
    ints = hb.Matrix.from_coo([0, 1], [1, 0], [1, 2], nrows=2, ncols=2, dtype=np.int32)
    assert _bucket_width(ints, np.dtype(np.int64), "auto") == 48  # 32 * 1.5 / 1


def test_sssp_classic_graphs() -> None:
    for G in (nx.karate_club_graph(), nx.petersen_graph(), nx.complete_graph(6)):
        A = hb.io.from_networkx(G, nodelist=range(G.number_of_nodes()))
        _assert_distances(sssp(A, 0), nx.single_source_dijkstra_path_length(G, 0))


# --- bad input ------------------------------------------------------------------------------


def test_sssp_bad_input() -> None:
    with pytest.raises(DimensionMismatch):
        sssp(hb.Matrix.new(np.float64, 2, 3), 0)
    A = hb.generators.grid_2d(2, 2)
    with pytest.raises(IndexOutOfBounds):
        sssp(A, 4)
    with pytest.raises(IndexOutOfBounds):
        sssp(A, -1)
    with pytest.raises(InvalidObject):
        sssp(A, 0.0)
    with pytest.raises(InvalidObject):
        sssp(A.to_scipy(), 0)
    with pytest.raises(IndexOutOfBounds):
        sssp(hb.Matrix.new(np.float64, 0, 0), 0)
    with pytest.raises(InvalidValue):
        sssp(A, 0, executor="nonsense")
    for delta in ("fast", True, -1.0, 0, float("nan"), [1.0]):
        with pytest.raises(InvalidValue):
            sssp(A, 0, delta=delta)
    with pytest.raises(InvalidValue):  # int distances: a width must be a whole number
        sssp(A.dup(np.int32), 0, delta=0.5)


def test_sssp_checks_a_matrix_s_weights_once_until_they_change(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The passes over the weights (their sum, NaN check) run on the first search of a matrix
    only; once its entries change they run again, and a NaN written in is still refused."""
    calls = []
    check = sssp_module._check_weights

    def counted(A: hb.Matrix) -> Any:  # noqa: N803
        calls.append(A.nnz)
        return check(A)

    monkeypatch.setattr(sssp_module, "_check_weights", counted)
    with hb.using_backend(backend):
        A = hb.generators.kronecker(8, 8, seed=2)  # noqa: N806
        W = hb.generators.random_weights(A, 1.0, 9.0, seed=3, dtype=np.float64)  # noqa: N806
        want = [sssp(W, s, executor="reference") for s in (0, 1)]
        assert len(calls) == 1
        assert [sssp(W, s).isclose(w) for s, w in zip((0, 1), want, strict=True)] == [True] * 2
        assert len(calls) == 1
        hb.ops.assign(W, np.nan, None, None, mask=hb.ops.select(W, "rowle", 0).S)
        with pytest.raises(InvalidValue, match="NaN"):
            sssp(W, 1)
    assert len(calls) == 2


def test_sssp_passes_over_a_grid_s_weights_on_its_first_search_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a low-degree graph ``delta='auto'`` also needs the smallest weight and the weights'
    sum: like the checks, those passes run on the first search of a matrix only."""
    passes = []
    reduce_scalar = sssp_module.ops.reduce_scalar

    def counted(*args: Any, **kwargs: Any) -> Any:
        passes.append(args[1])
        return reduce_scalar(*args, **kwargs)

    monkeypatch.setattr(sssp_module.ops, "reduce_scalar", counted)
    A = hb.generators.grid_2d(6, 7)  # noqa: N806
    W = hb.generators.random_weights(A, 1, 9, seed=1, dtype=np.int32)  # noqa: N806
    first = sssp(W, 0)
    assert passes and sssp_module._bucket_width(W, np.dtype(np.int64), "auto") is not None
    done = len(passes)
    again = sssp(W, 0)
    assert len(passes) == done and again.isequal(first)
