"""Connected components (Afforest's union-find, and FastSV in GraphBLAS operations) against
networkx and scipy.sparse.csgraph, every method and executor on both backends."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas import ops
from hyblas.algorithms.components import connected_components
from hyblas.backend import to_numpy
from hyblas.errors import DimensionMismatch, InvalidObject, InvalidValue
from hyblas.traversal import UnionFindParams, afforest, union_find
from hyblas.traversal.afforest import HEAVY
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


def sp_block_diag(*blocks: hb.Matrix) -> hb.Matrix:
    """The block-diagonal matrix of ``blocks`` (CPU), their ids one after the other."""
    import scipy.sparse as sp

    return hb.Matrix.from_scipy(sp.block_diag([b.to_scipy() for b in blocks], format="csr"))


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
    # a star beside a path of 3000 vertices, labelled by FastSV (a named executor): plain
    # label propagation needs about the diameter (here 2999) rounds; FastSV's pointer jumping
    # needs about log2 of it. Each round makes one mxv call.
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
    """The same labels from every executor, whatever the device loop's parameters (FastSV
    runs no loop: they change nothing); here the giant component is a grid with a tail of
    small pieces (isolated vertices, pairs, a triangle)."""
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


# --- every method and executor ----------------------------------------------------------------

METHODS = ("auto", "afforest", "fastsv")


def _many_components(seed: int, n: int, directed: bool) -> hb.Matrix:
    """A random graph of ``n`` vertices with many components: a few hundred edges among
    blocks of ids (so most components are small), a star of ``3 * HEAVY`` leaves (a vertex
    the full pass walks with a thread block), isolated vertices, self loops and explicit
    zeros; symmetrized unless ``directed``."""
    rng = np.random.default_rng(seed)
    block = rng.integers(0, n // 8, n)  # each vertex's block: edges stay inside it
    u = rng.integers(0, n, 3 * n // 4)
    v = rng.permutation(n)[: u.size]
    keep = block[u] == block[v]
    rows = [u[keep], np.full(3 * HEAVY, n - 1), rng.integers(0, n, 5)]
    cols = [v[keep], rng.permutation(n - 1)[: 3 * HEAVY], None]
    cols[2] = rows[2]  # self loops
    r, c = np.concatenate(rows), np.concatenate(cols)
    if not directed:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
    values = rng.choice([0.0, 1.0, -2.0], r.size)  # a stored zero is an edge
    return hb.Matrix.from_coo(r, c, values, nrows=n, ncols=n, dup_op=hb.binary.any)


@pytest.mark.parametrize("directed", [False, True], ids=["symmetric", "directed"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_method_and_executor_against_csgraph(backend: str, seed: int, directed: bool) -> None:
    A = _many_components(seed, 600, directed)
    want = _labels_from_scipy(A.to_scipy())
    assert len(set(want.tolist())) > 50  # many components, isolated vertices among them
    A = A.to_backend(backend)
    graphs = [A] if directed else [A, hb.Graph(A, "undirected")]
    for G in graphs:
        for method in METHODS:
            for executor in ("auto", "loop", "reference", "dense", "sparse", "pull"):
                got = connected_components(G, method=method, executor=executor)
                assert got.backend == backend
                assert np.array_equal(got.to_dense(), want), (method, executor)


def test_afforest_kernels_equal_their_emulation(backend: str) -> None:
    """The union-find passes with and without the giant component skipped, without sampling,
    and on a hub outside the giant component (more than HEAVY neighbours left after
    sampling: a thread block links it) give the emulation's labels, the smallest id of each
    component."""
    A = _many_components(5, 3000, directed=False)
    giant = hb.generators.grid_2d(40, 40)  # a giant component for the sample to find
    S = sp_block_diag(giant, A).to_backend(backend)
    want = _labels_from_scipy(S.to_scipy())
    for params in (
        UnionFindParams(),
        UnionFindParams(skip_giant=False),
        UnionFindParams(sample=0, skip_giant=False),
    ):
        got = union_find(S, params)
        emulated = afforest.emulate(to_numpy(S.indptr), to_numpy(S.indices), S.nrows, params)
        assert np.array_equal(got.to_dense(), want), params
        assert np.array_equal(emulated, want), params


def test_the_kernels_and_their_emulation_share_the_heavy_threshold() -> None:
    source = (Path(afforest.__file__).parent / "kernels" / "union_find.cu").read_text()
    assert f"#define HYBLAS_UF_HEAVY {HEAVY} " in source


def test_auto_is_afforest_and_names_its_kernels_in_the_trace(backend: str) -> None:
    A = hb.generators.grid_2d(20, 20, backend=backend)
    with hb.trace() as t:
        labels = connected_components(A)
    assert labels.to_dense().tolist() == [0] * 400
    rows = t.records()
    assert [(r["op"], r["executor"]) for r in rows] == [("link", "union-find")]
    assert "hyblas_uf_" in rows[0]["reason"] and "skipping the giant" in rows[0]["reason"]
    with hb.trace() as t:
        connected_components(A, executor="reference")  # a named executor: FastSV's products
    assert {r["executor"] for r in t.records()} == {"reference"}


def test_a_directed_graph_is_linked_as_stored() -> None:
    """A directed graph whose structure is not symmetric: the full pass walks every vertex
    (no giant component skipped), and its weak components come out without A ∪ Aᵀ built."""
    A = hb.Matrix.from_coo([0, 2, 3, 5], [1, 1, 4, 4], True, nrows=7, ncols=7)
    G = hb.Graph(A, "directed")
    with hb.trace() as t:
        assert connected_components(G).to_dense().tolist() == [0, 0, 0, 3, 3, 3, 6]
    assert "over the giant" in t.records()[0]["reason"]
    assert "undirected_structure" not in G.cached()


def test_unknown_method_and_a_matrix_that_is_not_square() -> None:
    with pytest.raises(InvalidValue, match="method must be one of"):
        connected_components(hb.generators.grid_2d(2, 2), method="bfs")
    with pytest.raises(DimensionMismatch, match="must be square, got 2x3"):
        union_find(hb.Matrix.from_coo([0], [2], True, nrows=2, ncols=3))
