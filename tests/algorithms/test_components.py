"""Connected components (BFS, then FastSV) against networkx and scipy.sparse.csgraph."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas import ops
from hyblas.algorithms.components import connected_components
from hyblas.errors import DimensionMismatch, InvalidObject, InvalidValue
from tests.support.graph_strategies import graphs


def _min_id_labels(G: nx.Graph) -> np.ndarray:
    """Each vertex's label: the smallest vertex id of its (weakly) connected component."""
    parts = nx.weakly_connected_components(G) if G.is_directed() else nx.connected_components(G)
    labels = np.empty(G.number_of_nodes(), dtype=np.int64)
    for part in parts:
        labels[list(part)] = min(part)
    return labels


def _labels_from_scipy(S: object) -> np.ndarray:
    """Min-id labels from csgraph's (weak) component numbering."""
    _, numbers = csgraph.connected_components(S, directed=True, connection="weak")
    smallest = np.full(numbers.max(initial=-1) + 1, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(smallest, numbers, np.arange(numbers.size))
    return smallest[numbers]


def _labels(A: hb.Matrix, **kwargs: object) -> np.ndarray:
    labels = connected_components(A, **kwargs)
    assert labels.dtype == np.int64 and labels.size == A.nrows and labels.nnz == A.nrows
    return labels.to_dense()


@given(st.one_of(graphs(max_n=16), graphs(max_n=16, directed=True, weights=(0.0, -1.0, 2.0))))
def test_components_match_networkx(graph: tuple) -> None:
    # directed graphs give their weakly connected components; direction, values (stored
    # zeros, negatives) and self loops do not matter
    G, A = graph
    labels = _labels(A)
    assert np.array_equal(labels, _min_id_labels(G))
    if G.is_directed():
        assert np.array_equal(labels, _labels(ops.transpose(A)))


def test_components_classic_graphs() -> None:
    for G in (
        nx.karate_club_graph(),
        nx.petersen_graph(),
        nx.complete_graph(9),
        nx.path_graph(40),
        nx.disjoint_union(nx.cycle_graph(5), nx.star_graph(6)),
        nx.disjoint_union(nx.complete_graph(40), nx.path_graph(3)),
    ):  # dense: FastSV only
        assert np.array_equal(_labels(hb.io.from_networkx(G)), _min_id_labels(G))


def test_components_relabelled_path_is_one_component() -> None:
    # a path whose ids are shuffled: the smallest id sits somewhere in the middle
    rng = np.random.default_rng(7)
    order = rng.permutation(300)
    A = hb.io.from_networkx(nx.path_graph(300), nodelist=order.tolist())
    assert np.array_equal(_labels(A), np.zeros(300, dtype=np.int64))


def test_components_isolated_vertices_and_empty() -> None:
    A = hb.Matrix.new(np.float64, 5, 5)
    assert np.array_equal(_labels(A), np.arange(5))
    empty = connected_components(hb.Matrix.new(np.float32, 0, 0))
    assert empty.size == 0 and empty.dtype == np.int64
    assert _labels(hb.Matrix.new(bool, 1, 1)).tolist() == [0]
    # one directed edge joins its ends; the self loop of 3 changes nothing
    B = hb.Matrix.from_coo([4, 3], [1, 3], [0.0, 1.0], nrows=5, ncols=5)
    assert _labels(B).tolist() == [0, 1, 2, 3, 1]


def test_components_kronecker_against_csgraph(backend: str) -> None:
    A = hb.generators.kronecker(10, 4, seed=11, symmetric=False, backend=backend)
    labels = connected_components(A)
    assert labels.backend == backend
    assert np.array_equal(labels.to_dense(), _labels_from_scipy(A.to_scipy()))


def test_components_grid_and_disjoint_grids(backend: str) -> None:
    A = hb.generators.grid_2d(40, 30, backend=backend)
    assert np.array_equal(connected_components(A).to_dense(), np.zeros(1200, dtype=np.int64))
    # a 6 x 8 grid with its middle column of edges cut: two components of ids in each half
    S = hb.generators.grid_2d(6, 8).to_scipy().tolil()
    for r in range(6):
        S[r * 8 + 3, r * 8 + 4] = S[r * 8 + 4, r * 8 + 3] = 0
    S = S.tocsr()
    S.eliminate_zeros()
    B = hb.Matrix.from_scipy(S, backend=backend)
    expected = _labels_from_scipy(S)
    assert len(set(expected.tolist())) == 2
    assert np.array_equal(connected_components(B).to_dense(), expected)


def test_components_take_few_rounds_on_long_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    # a star (the BFS's component) beside a path of 3000 vertices, which FastSV labels: plain
    # label propagation needs about the diameter (here 2999) rounds; FastSV's pointer jumping
    # needs about log2 of it. Each round makes two mxv calls (one more finds the degrees).
    calls = []
    real_mxv = ops.mxv

    def counting_mxv(*args: object, **kwargs: object) -> object:
        calls.append(kwargs.get("executor"))
        return real_mxv(*args, **kwargs)

    monkeypatch.setattr(ops, "mxv", counting_mxv)
    G = nx.disjoint_union(nx.star_graph(10), nx.path_graph(3000))  # path: 11 .. 3010
    path = np.arange(11, 3011)
    order = np.random.default_rng(3).permutation(path)
    for path_ids in (path, path[::-1], order):
        calls.clear()
        A = hb.io.from_networkx(G, nodelist=[*range(11), *path_ids.tolist()])
        assert np.array_equal(
            _labels(A, executor="reference"), np.repeat(np.array([0, 11]), [11, 3000])
        )
        assert 2 <= len(calls) - 1 and (len(calls) - 1) // 2 <= 20
        assert set(calls) == {"reference"}


def test_components_with_and_without_the_device_loop(backend: str) -> None:
    """The BFS part gives the same labels whether its rounds run in the device loop (the
    emulation on the CPU) or one vxm each; here the giant component is a grid with a tail of
    small pieces (isolated vertices, pairs, a triangle) for FastSV."""
    grid = hb.generators.grid_2d(23, 17).to_scipy().tocoo()
    n = grid.shape[0] + 9
    rows = [*grid.row, n - 9, n - 7, n - 6, n - 5, n - 4]
    cols = [*grid.col, n - 8, n - 6, n - 5, n - 4, n - 6]
    A = hb.Matrix.from_coo(rows, cols, 1.0, nrows=n, ncols=n, backend=backend)
    want = _labels_from_scipy(A.to_scipy())
    assert len(set(want.tolist())) == 6
    for executor in ("loop", "auto", "reference"):
        for device_loop in (True, False):
            with hb.ops.loop.loop_params(device_loop=device_loop, exit_edges=40):
                assert np.array_equal(_labels(A, executor=executor), want)


def test_components_bad_input() -> None:
    with pytest.raises(DimensionMismatch):
        connected_components(hb.Matrix.new(np.float64, 2, 3))
    with pytest.raises(InvalidObject):
        connected_components(hb.generators.grid_2d(2, 2).to_scipy())
    with pytest.raises(InvalidValue):
        connected_components(hb.generators.grid_2d(2, 2), executor="nonsense")
