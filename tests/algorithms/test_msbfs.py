"""Multi-source BFS against networkx, scipy.sparse.csgraph and single-source bfs."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse import csgraph

import hyblas as hb
from hyblas.algorithms.bfs import bfs
from hyblas.algorithms.msbfs import multi_source_bfs
from hyblas.errors import DimensionMismatch, IndexOutOfBounds, InvalidObject, InvalidValue
from tests.support.graph_strategies import as_dict as _as_dict
from tests.support.graph_strategies import graphs


def _rows(levels: hb.Matrix) -> list[dict[int, int]]:
    """Each row of a levels matrix as ``{vertex: level}`` (any backend)."""
    rows, cols, vals = levels.to_coo()
    out: list[dict[int, int]] = [{} for _ in range(levels.nrows)]
    for r, c, v in zip(rows.tolist(), cols.tolist(), vals.tolist()):
        out[r][c] = v
    return out


def _csgraph_levels(A: hb.Matrix, sources: Any) -> np.ndarray:  # noqa: N803
    """Unweighted distances from each source (inf: unreachable); stored zeros are edges."""
    S = A.to_backend("cpu").to_scipy().astype(np.float64)  # noqa: N806
    S.data[:] = 1.0
    return np.atleast_2d(csgraph.shortest_path(S, unweighted=True, indices=np.asarray(sources)))


def _assert_matches_dense(levels: hb.Matrix, expected: np.ndarray) -> None:
    got = levels.to_backend("cpu").to_dense(fill_value=-1)
    want = np.where(np.isfinite(expected), expected, -1).astype(np.int64)
    assert np.array_equal(got, want)


@given(graphs(), st.data())
def test_msbfs_matches_networkx(graph: tuple, data: Any) -> None:
    G, A = graph
    n = A.nrows
    sources = data.draw(st.lists(st.integers(0, n - 1), max_size=6) if n else st.just([]))
    levels = multi_source_bfs(A, sources)
    assert levels.dtype == np.int64 and levels.shape == (len(sources), n)
    expected = [nx.single_source_shortest_path_length(G, s) for s in sources]
    assert _rows(levels) == expected


@given(graphs(max_n=8), st.data())
def test_msbfs_rows_equal_single_source_bfs_and_csgraph(graph: tuple, data: Any) -> None:
    _, A = graph
    n = A.nrows
    if n == 0:
        return
    sources = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=5))
    levels = multi_source_bfs(A, np.asarray(sources, dtype=np.int32), executor="reference")
    for row, s in zip(_rows(levels), sources):
        assert row == _as_dict(bfs(A, s))
    _assert_matches_dense(levels, _csgraph_levels(A, sources))


def test_msbfs_repeated_sources_repeat_rows() -> None:
    #  0 -> 1 -> 2, 3 isolated
    A = hb.Matrix.from_coo([0, 1], [1, 2], nrows=4, ncols=4)
    levels = multi_source_bfs(A, [1, 0, 1, 3])
    assert _rows(levels) == [{1: 0, 2: 1}, {0: 0, 1: 1, 2: 2}, {1: 0, 2: 1}, {3: 0}]


def test_msbfs_directed_stored_zero_and_self_loop() -> None:
    # edge i -> j is A[i, j]; a stored 0 is an edge; the self loop on 1 changes nothing
    A = hb.Matrix.from_coo([0, 1, 1], [1, 1, 2], [0.0, 5.0, 0.0], nrows=3, ncols=3)
    assert _rows(multi_source_bfs(A, [0, 2])) == [{0: 0, 1: 1, 2: 2}, {2: 0}]


@pytest.mark.parametrize(
    "G",
    [
        nx.karate_club_graph(),
        nx.convert_node_labels_to_integers(nx.florentine_families_graph()),
        nx.path_graph(9),
        nx.star_graph(6),
        nx.complete_graph(5),
        nx.gn_graph(25, seed=3),
    ],
    ids=["karate", "florentine", "path", "star", "complete", "gn-directed"],
)
def test_msbfs_classic_graphs(G: nx.Graph) -> None:  # noqa: N803
    n = G.number_of_nodes()
    A = hb.io.from_networkx(G, nodelist=range(n))
    sources = list(range(n))
    levels = multi_source_bfs(A, sources)
    assert _rows(levels) == [nx.single_source_shortest_path_length(G, s) for s in sources]


def test_msbfs_kronecker_against_csgraph(backend: str) -> None:
    A = hb.generators.kronecker(9, 8, seed=5, backend=backend)
    degrees = np.diff(A.to_backend("cpu").to_scipy().indptr)
    sources = np.concatenate([np.argsort(degrees)[-8:], np.flatnonzero(degrees == 0)[:2], [3]])
    levels = multi_source_bfs(A, sources)
    assert levels.backend == backend and levels.shape == (sources.size, A.nrows)
    _assert_matches_dense(levels, _csgraph_levels(A, sources))


def test_msbfs_directed_kronecker_against_csgraph(backend: str) -> None:
    A = hb.generators.kronecker(8, 4, seed=2, symmetric=False, backend=backend)
    sources = np.arange(0, 256, 7)
    _assert_matches_dense(multi_source_bfs(A, sources), _csgraph_levels(A, sources))


def test_msbfs_grid_levels_are_manhattan_distances(backend: str) -> None:
    A = hb.generators.grid_2d(4, 6, backend=backend)
    sources = [0, 23, 9]
    levels = multi_source_bfs(A, sources).to_backend("cpu").to_dense()
    r, c = np.divmod(np.arange(24), 6)
    for row, s in zip(levels, sources):
        sr, sc = divmod(s, 6)
        assert np.array_equal(row, np.abs(r - sr) + np.abs(c - sc))


def test_msbfs_empty_sources_and_empty_graph() -> None:
    A = hb.generators.grid_2d(2, 3)
    for empty in ([], (), np.zeros(0, dtype=np.int64), np.zeros(0)):
        levels = multi_source_bfs(A, empty)
        assert levels.shape == (0, 6) and levels.nnz == 0 and levels.dtype == np.int64
    none = multi_source_bfs(hb.Matrix.new(np.float64, 0, 0), [])
    assert none.shape == (0, 0) and none.nnz == 0
    one = multi_source_bfs(hb.Matrix.new(np.float64, 1, 1), [0, 0])
    assert _rows(one) == [{0: 0}, {0: 0}]


def test_msbfs_bad_input() -> None:
    A = hb.generators.grid_2d(2, 2)
    with pytest.raises(DimensionMismatch):
        multi_source_bfs(hb.Matrix.new(np.float64, 2, 3), [0])
    with pytest.raises(InvalidObject):
        multi_source_bfs(A.to_scipy(), [0])
    for bad in ([4], [0, -1], [0, 1, 2, 3, 4]):
        with pytest.raises(IndexOutOfBounds):
            multi_source_bfs(A, bad)
    with pytest.raises(IndexOutOfBounds):
        multi_source_bfs(hb.Matrix.new(np.float64, 0, 0), [0])
    for bad in (
        1,
        None,
        "01",
        [[0, 1]],
        np.zeros((2, 1), dtype=int),
        [0.5],
        [True, False],
        [[0], [1, 2]],
    ):
        with pytest.raises(InvalidObject):
            multi_source_bfs(A, bad)
    with pytest.raises(InvalidValue):
        multi_source_bfs(A, [0], executor="nonsense")
