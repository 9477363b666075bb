"""BFS and PageRank against networkx and scipy.sparse.csgraph."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.algorithms import bfs, pagerank
from hyblas.errors import (
    DimensionMismatch,
    IndexOutOfBounds,
    InvalidObject,
    InvalidValue,
    NotConverged,
)
from hyblas.traversal import loop_params
from tests.support.checks import built_no_transpose
from tests.support.graph_strategies import as_dict as _as_dict
from tests.support.graph_strategies import check_bfs_tree as _check_bfs_tree
from tests.support.graph_strategies import graphs


def _levels_reference(G: nx.Graph, source: int) -> dict[int, int]:
    return nx.single_source_shortest_path_length(G, source)


# --- BFS ------------------------------------------------------------------------------------


@given(graphs(), st.data())
def test_bfs_levels_match_networkx(graph: tuple, data: Any) -> None:
    G, A = graph
    n = A.nrows
    if n == 0:
        with pytest.raises(IndexOutOfBounds):
            bfs(A, 0)
        return
    source = data.draw(st.integers(0, n - 1))
    levels = bfs(A, source)
    assert levels.dtype == np.int64 and levels.size == n
    assert _as_dict(levels) == _levels_reference(G, source)


@given(graphs(), st.data())
def test_bfs_parents_form_a_bfs_tree(graph: tuple, data: Any) -> None:
    G, A = graph
    if A.nrows == 0:
        return
    source = data.draw(st.integers(0, A.nrows - 1))
    levels, parents = bfs(A, source, return_parents=True)
    assert parents.dtype == np.int64
    assert levels.isequal(bfs(A, source))
    _check_bfs_tree(A, source, levels, parents)


def test_bfs_parent_is_smallest_id_in_previous_level() -> None:
    #  0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3: vertex 3 has two candidate parents; min_first picks 1
    A = hb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 3, 3], [1.0, 1.0, 1.0, 1.0], nrows=4, ncols=4)
    levels, parents = bfs(A, 0, return_parents=True)
    assert _as_dict(levels) == {0: 0, 1: 1, 2: 1, 3: 2}
    assert _as_dict(parents) == {0: 0, 1: 0, 2: 0, 3: 1}


def test_bfs_directed_follows_rows_to_columns() -> None:
    # edge i -> j is A[i, j]: from 1 nothing is reachable, from 0 vertex 1 is
    A = hb.Matrix.from_coo([0], [1], [1.0], nrows=3, ncols=3)
    assert _as_dict(bfs(A, 0)) == {0: 0, 1: 1}
    assert _as_dict(bfs(A, 1)) == {1: 0}


def test_bfs_stored_zero_is_an_edge() -> None:
    A = hb.Matrix.from_coo([0, 1], [1, 2], [0.0, 0.0], nrows=3, ncols=3)
    assert _as_dict(bfs(A, 0)) == {0: 0, 1: 1, 2: 2}
    levels, parents = bfs(A, 0, return_parents=True)
    assert _as_dict(parents) == {0: 0, 1: 0, 2: 1}


def test_bfs_kronecker_against_csgraph(backend: str) -> None:
    A = hb.generators.kronecker(9, 8, seed=5, backend=backend)
    S = A.to_scipy()
    source = int(np.argmax(np.diff(S.indptr)))
    expected = csgraph.shortest_path(S, unweighted=True, indices=source)
    levels, parents = bfs(A, source, return_parents=True)
    assert levels.backend == backend
    reached = np.flatnonzero(np.isfinite(expected))
    idx, vals = levels.to_coo()
    assert np.array_equal(idx, reached)
    assert np.array_equal(vals, expected[reached].astype(np.int64))
    _check_bfs_tree(A.to_backend("cpu"), source, levels, parents)


def test_bfs_grid_levels_are_manhattan_distances(backend: str) -> None:
    A = hb.generators.grid_2d(5, 7, backend=backend)
    levels = bfs(A, 0).to_dense()
    r, c = np.divmod(np.arange(35), 7)
    assert np.array_equal(levels, r + c)


def test_bfs_single_vertex_and_isolated_source() -> None:
    A = hb.Matrix.new(np.float64, 1, 1)
    assert _as_dict(bfs(A, 0)) == {0: 0}
    levels, parents = bfs(A, 0, return_parents=True)
    assert _as_dict(parents) == {0: 0}
    B = hb.Matrix.from_coo([1], [2], nrows=4, ncols=4)
    assert _as_dict(bfs(B, 3)) == {3: 0}


def test_bfs_bad_input() -> None:
    with pytest.raises(DimensionMismatch):
        bfs(hb.Matrix.new(np.float64, 2, 3), 0)
    A = hb.generators.grid_2d(2, 2)
    with pytest.raises(IndexOutOfBounds):
        bfs(A, 4)
    with pytest.raises(IndexOutOfBounds):
        bfs(A, -1)
    with pytest.raises(InvalidObject):
        bfs(A, 1.0)
    with pytest.raises(InvalidObject):
        bfs(A.to_scipy(), 0)


# --- PageRank -------------------------------------------------------------------------------


def _assert_matches_networkx(
    ranks: hb.Vector, expected: dict[int, float], dtype: type = np.float64
) -> None:
    assert ranks.dtype == dtype
    values = ranks.to_dense()
    want = np.array([expected[v] for v in range(values.size)])
    np.testing.assert_allclose(values, want, rtol=1e-5, atol=1e-9)


@given(graphs(), st.sampled_from([0.85, 0.5, 0.99]))
def test_pagerank_matches_networkx(graph: tuple, damping: float) -> None:
    G, A = graph
    if A.nrows == 0:
        ranks = pagerank(A, damping)
        assert ranks.size == 0 and ranks.nnz == 0
        return
    try:
        expected = nx.pagerank(G, alpha=damping)
    except nx.PowerIterationFailedConvergence:  # e.g. a periodic graph with damping 0.99
        with pytest.raises(NotConverged, match="converge"):
            pagerank(A, damping)
        return
    ranks = pagerank(A, damping)
    _assert_matches_networkx(ranks, expected)
    assert abs(float(ranks.reduce(hb.monoid.plus)) - 1.0) < 1e-9


@given(graphs(max_n=8))
def test_pagerank_unweighted_matches_networkx(graph: tuple) -> None:
    G, _ = graph
    A = hb.io.from_networkx(G, nodelist=range(G.number_of_nodes()), weight=None)
    if A.nrows == 0:
        return
    _assert_matches_networkx(pagerank(A), nx.pagerank(G, weight=None))


def test_pagerank_tight_tolerance_and_iterations(backend: str) -> None:
    A = hb.generators.random_weights(hb.generators.kronecker(8, seed=2, backend=backend), 1, 4)
    ranks, iterations = pagerank(A, tol=1e-10, return_iterations=True, max_iter=200)
    assert ranks.backend == backend and iterations > 5
    G = nx.from_scipy_sparse_array(A.to_scipy(), create_using=nx.DiGraph)
    _assert_matches_networkx(ranks, nx.pagerank(G, tol=1e-10, max_iter=200))


@pytest.mark.parametrize("variant", ["power", "data"])
def test_pagerank_in_float32(backend: str, variant: str) -> None:
    """dtype=float32 ranks and products: the power method gives networkx's ranks to float32's
    precision; the data-driven variant stays within its L1 bound of the fixed point (plus
    float32's rounding); both sum to 1 as closely as float32 sums go."""
    A = hb.generators.random_weights(hb.generators.kronecker(9, seed=3, backend=backend), 1, 4)
    G = nx.from_scipy_sparse_array(A.to_scipy(), create_using=nx.DiGraph)
    tol = 1e-8
    ranks = pagerank(A, dtype=np.float32, variant=variant, tol=tol, max_iter=300)
    assert ranks.backend == backend and ranks.dtype == np.float32 and ranks.nnz == A.nrows
    assert abs(float(ranks.reduce(hb.monoid.plus[np.float64])) - 1.0) < 1e-5
    if variant == "power":
        _assert_matches_networkx(ranks, nx.pagerank(G, tol=tol, max_iter=300), np.float32)
    else:
        exact = pagerank(A, tol=1e-12, max_iter=1000).to_dense()
        bound = 0.85 / 0.15 * A.nrows * tol  # the data variant's own, see test_pagerank_data
        assert np.abs(ranks.to_dense() - exact).sum() <= 2 * bound + 1e-5
    assert pagerank(A, dtype="float32", iterations=3).dtype == np.float32


def test_pagerank_dangling_vertices_spread_uniformly() -> None:
    # 0 -> 1, 1 -> 2; vertex 2 dangles, vertex 3 is isolated (also dangling)
    A = hb.Matrix.from_coo([0, 1], [1, 2], [1.0, 1.0], nrows=4, ncols=4)
    G = nx.DiGraph([(0, 1), (1, 2)])
    G.add_node(3)
    _assert_matches_networkx(pagerank(A), nx.pagerank(G))


def test_pagerank_no_convergence_raises() -> None:
    A = hb.generators.kronecker(6, seed=1)
    G = nx.from_scipy_sparse_array(A.to_scipy(), create_using=nx.DiGraph)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=2, tol=1e-12)
    with pytest.raises(NotConverged, match="converge"):
        pagerank(A, max_iter=2, tol=1e-12)


def test_pagerank_bad_input_and_empty() -> None:
    with pytest.raises(DimensionMismatch):
        pagerank(hb.Matrix.new(np.float64, 2, 3))
    A = hb.generators.grid_2d(2, 2)
    for kwargs in (
        {"damping": 1.5},
        {"tol": 0.0},
        {"max_iter": 0},
        {"dtype": np.int32},
        {"dtype": "float16"},
        {"dtype": "no such type"},
        {"dtype": None},
    ):
        with pytest.raises(InvalidValue):
            pagerank(A, **kwargs)
    empty = pagerank(hb.Matrix.new(np.float32, 0, 0))
    assert empty.size == 0 and empty.dtype == np.float64
    assert pagerank(hb.Matrix.new(np.float32, 0, 0), dtype=np.float32).dtype == np.float32
    one = pagerank(hb.Matrix.new(np.float32, 1, 1))
    assert one.to_dense().tolist() == [1.0]


def test_pagerank_bool_and_int_matrices() -> None:
    A = hb.generators.erdos_renyi(40, 150, seed=2, dtype=bool)
    G = nx.from_scipy_sparse_array(sp.csr_array(A.to_scipy(), dtype=float), create_using=nx.DiGraph)
    _assert_matches_networkx(pagerank(A), nx.pagerank(G))
    _assert_matches_networkx(pagerank(A.dup(np.int32)), nx.pagerank(G))


@pytest.mark.parametrize("executor", ["auto", "loop"])
def test_bfs_on_an_undirected_graph_builds_no_transpose(backend: str, executor: str) -> None:
    """An undirected Graph's A is its own pattern transpose: the device loop's pull rounds
    read A, and no transpose is built (on the largest graphs there is no room for one)."""
    A = hb.generators.kronecker(10, 16, seed=4, backend=backend)
    want = bfs(A.dup(), 0, executor=executor).to_coo()
    G = hb.Graph(A, "undirected", check=False)
    with loop_params(exit_edges=0):  # every round a pull round in the loop
        got = bfs(G, 0, executor=executor).to_coo()
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert built_no_transpose(A)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pagerank_on_an_undirected_graph_reads_rows(backend: str, dtype: type) -> None:
    """On an undirected Graph the ranks travel by ``mxv`` over A (its own transpose): the
    ranks of the Matrix taken as directed, and no transpose built."""
    A = hb.generators.random_weights(hb.generators.kronecker(9, seed=3, backend=backend), 1, 4)
    A = hb.ops.ewise_add(A, hb.ops.transpose(A), "max")  # symmetric weights  # noqa: N806
    want = pagerank(A.dup(), iterations=30, dtype=dtype).to_dense()
    G = hb.Graph(A, "undirected", check=False)  # built symmetric; the check caches a transpose
    got = pagerank(G, iterations=30, dtype=dtype).to_dense()
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)
    assert built_no_transpose(A)
