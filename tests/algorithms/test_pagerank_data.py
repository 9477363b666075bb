"""Data-driven PageRank (variant='data') and fixed-iteration power PageRank (iterations=)."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas import ops
from hyblas.algorithms.pagerank import pagerank
from hyblas.errors import InvalidValue, NotConverged
from tests.support.graph_strategies import graphs


def _transition(S: Any) -> tuple[np.ndarray, np.ndarray]:
    """The row-normalized dense matrix of ``S`` and the dangling vertices."""
    M = S.toarray().astype(np.float64)
    out = M.sum(axis=1)
    dangling = out == 0
    P = np.divide(M, out[:, None], out=np.zeros_like(M), where=~dangling[:, None])
    return P, dangling


def _exact(A: hb.Matrix, damping: float) -> np.ndarray:
    """The fixed point ``x = α (xP + d(x) / n) + (1 - α) / n``, by a dense solve (α < 1)."""
    P, dangling = _transition(A.to_scipy())
    n = P.shape[0]
    G = damping * (P + np.outer(dangling, np.ones(n)) / n)
    return np.linalg.solve((np.eye(n) - G).T, np.full(n, (1 - damping) / n))


def _bound(n: int, damping: float, tol: float) -> float:
    """The documented L1 error bound of variant='data' (normalization included)."""
    return 2 * damping / (1 - damping) * n * tol


# --- variant='data' ------------------------------------------------------------------------


@given(graphs(), st.sampled_from([0.5, 0.85]), st.sampled_from([1e-4, 1e-6, 1e-9]))
def test_data_driven_within_tolerance_of_fixed_point(
    graph: tuple, damping: float, tol: float
) -> None:
    # periodic graphs (a star, a 2-cycle) damp their residuals by only α per round
    G, A = graph
    n = A.nrows
    ranks = pagerank(A, damping, tol=tol, variant="data", max_iter=1000)
    assert ranks.dtype == np.float64 and ranks.size == n
    if n == 0:
        return
    assert ranks.nnz == n
    assert abs(float(ranks.reduce(hb.monoid.plus)) - 1.0) < 1e-12
    error = np.abs(ranks.to_dense() - _exact(A, damping)).sum()
    assert error <= _bound(n, damping, tol)
    if tol == 1e-6:
        # networkx stops within α / (1 - α) * n * tol of the fixed point, hyblas within twice
        expected = nx.pagerank(G, alpha=damping, tol=tol)
        want = np.array([expected[v] for v in range(n)])
        assert np.abs(ranks.to_dense() - want).sum() <= 1.5 * _bound(n, damping, tol)


def test_data_driven_agrees_with_power_method(backend: str) -> None:
    A = hb.generators.random_weights(
        hb.generators.kronecker(9, 8, seed=4, symmetric=False, backend=backend), 1, 4
    )
    data, rounds = pagerank(A, variant="data", tol=1e-10, return_iterations=True, max_iter=500)
    power = pagerank(A, tol=1e-10, max_iter=500)
    assert data.backend == backend and rounds > 5
    np.testing.assert_allclose(data.to_dense(), power.to_dense(), rtol=1e-6, atol=1e-12)
    error = np.abs(data.to_dense() - _exact(A.to_backend("cpu"), 0.85)).sum()
    assert error <= _bound(A.nrows, 0.85, 1e-10)


def test_data_driven_pushes_only_from_active_vertices(monkeypatch: pytest.MonkeyPatch) -> None:
    # every vertex pushes in the first round; later frontiers shrink to the vertices whose
    # rank still changes by more than tol
    pushed = []
    real_vxm = ops.vxm

    def recording_vxm(u: hb.Vector, *args: Any, **kwargs: Any) -> hb.Vector:
        pushed.append((u.nnz, kwargs.get("executor")))
        return real_vxm(u, *args, **kwargs)

    monkeypatch.setattr(ops, "vxm", recording_vxm)
    A = hb.generators.grid_2d(20, 20)  # no dangling vertex: every pusher uses vxm
    ranks, rounds = pagerank(
        A, variant="data", tol=1e-9, return_iterations=True, executor="reference"
    )
    sizes = [size for size, _ in pushed]
    assert {executor for _, executor in pushed} == {"reference"}
    assert len(sizes) == rounds and sizes[0] == A.nrows
    assert min(sizes[1:]) < A.nrows // 2
    assert sum(sizes) < rounds * A.nrows
    assert np.abs(ranks.to_dense() - _exact(A, 0.85)).sum() <= _bound(400, 0.85, 1e-9)


def test_data_driven_dangling_and_isolated_vertices() -> None:
    # 0 -> 1 -> 2 with 2 dangling, 3 isolated (also dangling), 4 -> 4 a self loop
    A = hb.Matrix.from_coo([0, 1, 4], [1, 2, 4], [1.0, 2.0, 1.0], nrows=5, ncols=5)
    G = nx.DiGraph([(0, 1), (1, 2), (4, 4)])
    G.add_node(3)
    ranks = pagerank(A, variant="data", tol=1e-12).to_dense()
    np.testing.assert_allclose(ranks, _exact(A, 0.85), rtol=1e-9)
    expected = nx.pagerank(G, tol=1e-12)
    np.testing.assert_allclose(ranks, [expected[v] for v in range(5)], rtol=1e-9)


def test_data_driven_bool_and_int_matrices() -> None:
    A = hb.generators.erdos_renyi(40, 150, seed=3, dtype=bool)
    exact = _exact(A, 0.85)
    for M in (A, A.dup(np.int32)):
        ranks = pagerank(M, variant="data", tol=1e-10).to_dense()
        assert np.abs(ranks - exact).sum() <= _bound(40, 0.85, 1e-10)


def test_data_driven_small_and_empty() -> None:
    empty, rounds = pagerank(
        hb.Matrix.new(np.float64, 0, 0), variant="data", return_iterations=True
    )
    assert empty.size == 0 and rounds == 0
    assert pagerank(hb.Matrix.new(np.float64, 1, 1), variant="data").to_dense().tolist() == [1.0]
    # damping 0 and damping 1 (on a strongly connected aperiodic graph)
    A = hb.io.from_networkx(nx.complete_graph(4, create_using=nx.DiGraph))
    assert np.allclose(pagerank(A, 0.0, variant="data").to_dense(), 0.25)
    G = nx.gnp_random_graph(20, 0.3, seed=2, directed=True)
    B = hb.io.from_networkx(G, nodelist=range(20))
    ranks = pagerank(B, 1.0, variant="data", tol=1e-11, max_iter=1000).to_dense()
    expected = nx.pagerank(G, alpha=1.0, tol=1e-13, max_iter=10_000)
    np.testing.assert_allclose(ranks, [expected[v] for v in range(20)], atol=1e-8)


def test_data_driven_no_convergence_raises() -> None:
    A = hb.generators.kronecker(6, seed=1)
    with pytest.raises(NotConverged, match="converge"):
        pagerank(A, variant="data", max_iter=2, tol=1e-12)
    _, rounds = pagerank(A, variant="data", max_iter=200, tol=1e-12, return_iterations=True)
    assert 2 < rounds <= 200


# --- iterations= (power method, fixed work) ------------------------------------------------


def _power_by_hand(S: Any, damping: float, iterations: int) -> np.ndarray:
    """``iterations`` networkx-style power steps from the uniform vector, in dense NumPy."""
    P, dangling = _transition(S)
    n = P.shape[0]
    x = np.full(n, 1.0 / n)
    for _ in range(iterations):
        x = damping * (x @ P + x[dangling].sum() / n) + (1 - damping) / n
    return x


@pytest.mark.parametrize("iterations", [0, 1, 2, 20])
def test_fixed_iterations_match_hand_computed_power_steps(iterations: int, backend: str) -> None:
    A = hb.generators.random_weights(
        hb.generators.kronecker(7, 4, seed=9, symmetric=False, backend=backend), 1, 3
    )
    ranks, count = pagerank(A, iterations=iterations, return_iterations=True)
    assert count == iterations and ranks.backend == backend and ranks.nnz == A.nrows
    np.testing.assert_allclose(
        ranks.to_dense(), _power_by_hand(A.to_scipy(), 0.85, iterations), rtol=1e-10
    )


@given(graphs(max_n=8), st.integers(1, 6))
def test_fixed_iterations_never_test_convergence(graph: tuple, iterations: int) -> None:
    _, A = graph
    if A.nrows == 0:
        assert pagerank(A, iterations=iterations).size == 0
        return
    fixed = pagerank(A, iterations=iterations, max_iter=1, tol=1e-300)
    np.testing.assert_allclose(
        fixed.to_dense(), _power_by_hand(A.to_scipy(), 0.85, iterations), rtol=1e-10, atol=1e-15
    )


def test_fixed_iterations_equal_converged_run() -> None:
    # iterations=k does what a converging run does in its first k iterations
    A = hb.generators.random_weights(hb.generators.kronecker(8, seed=5, symmetric=False), 1, 2)
    ranks, count = pagerank(A, tol=1e-9, return_iterations=True)
    assert count > 3
    assert pagerank(A, iterations=count).isclose(ranks, rel_tol=0.0)


def test_fixed_iterations_ignore_convergence() -> None:
    A = hb.generators.kronecker(6, seed=1)
    with pytest.raises(InvalidValue, match="converge"):
        pagerank(A, max_iter=2, tol=1e-12)
    ranks, count = pagerank(A, iterations=2, tol=1e-12, return_iterations=True)
    assert count == 2 and abs(float(ranks.reduce(hb.monoid.plus)) - 1.0) < 1e-12
    assert ranks.isclose(pagerank(A, iterations=2), rel_tol=0.0)
    assert np.allclose(pagerank(A, iterations=0).to_dense(), 1 / A.nrows)


def test_pagerank_variant_and_iterations_errors() -> None:
    A = hb.generators.grid_2d(3, 3)
    with pytest.raises(InvalidValue, match="variant"):
        pagerank(A, variant="pull")
    with pytest.raises(InvalidValue, match="iterations"):
        pagerank(A, variant="data", iterations=5)
    with pytest.raises(InvalidValue, match="iterations"):
        pagerank(A, iterations=-1)
    for kwargs in ({"damping": 1.5}, {"tol": 0.0}, {"max_iter": 0}):
        with pytest.raises(InvalidValue):
            pagerank(A, variant="data", **kwargs)
