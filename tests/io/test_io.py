"""I/O: Matrix Market, edge lists, networkx; round trips and malformed input."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import hyblas as hb
from hyblas.errors import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBounds,
    InvalidObject,
    InvalidValue,
)
from hyblas.io import (
    from_networkx,
    read_edge_list,
    read_matrix_market,
    to_networkx,
    write_edge_list,
    write_matrix_market,
)


def _dense(A: hb.Matrix) -> np.ndarray:
    return A.to_dense(fill_value=0)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# --- Matrix Market --------------------------------------------------------------------------


def test_mm_general_real(tmp_path: Path, backend: str) -> None:
    path = _write(
        tmp_path / "a.mtx",
        "%%MatrixMarket matrix coordinate real general\n"
        "% a comment\n3 4 3\n1 1 1.5\n2 4 -2\n3 2 0\n",
    )
    A = read_matrix_market(path, backend=backend)
    assert A.backend == backend and A.shape == (3, 4) and A.dtype == np.float64
    rows, cols, values = A.to_coo()
    assert rows.tolist() == [0, 1, 2] and cols.tolist() == [0, 3, 1]
    assert values.tolist() == [1.5, -2.0, 0.0]  # explicit zero stays an entry


def test_mm_symmetric_expands_both_triangles(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "s.mtx",
        "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 5\n2 1 7\n3 2 9\n",
    )
    A = read_matrix_market(path)
    assert A.dtype == np.int64
    assert _dense(A).tolist() == [[5, 7, 0], [7, 0, 9], [0, 9, 0]]


def test_mm_pattern_gives_true(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "p.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n"
    )
    A = read_matrix_market(path)
    assert A.dtype == np.bool_ and A.nnz == 3
    assert _dense(A).tolist() == [[0, 1, 0], [1, 0, 0], [0, 0, 1]]
    B = read_matrix_market(path, dtype=np.float32)
    assert B.dtype == np.float32 and B.to_coo()[2].tolist() == [1.0, 1.0, 1.0]


def test_mm_array_format(tmp_path: Path) -> None:
    path = _write(tmp_path / "d.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n")
    A = read_matrix_market(path)
    assert A.nnz == 4 and _dense(A).tolist() == [[1, 3], [2, 4]]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.bool_])
def test_mm_round_trip(tmp_path: Path, dtype: type) -> None:
    rng = np.random.default_rng(0)
    dense = rng.integers(-3, 4, size=(5, 7)) * (rng.random((5, 7)) < 0.4)
    if dtype is np.float64:
        dense = dense / 3.0  # values that need all 17 digits
    A = hb.Matrix.from_dense(dense.astype(dtype), missing_value=0)
    path = tmp_path / "rt.mtx"
    write_matrix_market(path, A, comment="written by hyblas")
    assert "written by hyblas" in path.read_text()
    B = read_matrix_market(path, dtype=dtype)
    assert B.isequal(A, check_dtype=True)
    assert read_matrix_market(path).dtype == (
        np.bool_ if dtype is np.bool_ else np.int64 if dtype in (np.int32, np.int64) else np.float64
    )


def test_mm_round_trip_symmetric(tmp_path: Path) -> None:
    A = hb.generators.kronecker(6, seed=1, dtype=np.float64)
    path = tmp_path / "k.mtx"
    write_matrix_market(path, A)
    assert "symmetric" in path.read_text().splitlines()[0]
    assert read_matrix_market(path).isequal(A)
    assert (scipy.io.mmread(path) != A.to_scipy()).nnz == 0


def test_mm_empty_matrix(tmp_path: Path) -> None:
    A = hb.Matrix.new(np.float64, 3, 2)
    path = tmp_path / "e.mtx"
    write_matrix_market(path, A)
    B = read_matrix_market(path)
    assert B.shape == (3, 2) and B.nnz == 0


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("hello\n1 1 1\n", "line 1"),
        ("%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 2\n", "line 1"),
        ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 2\n", "malformed"),
        ("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 2\n", "malformed"),
        ("%%MatrixMarket matrix coordinate real general\n2 2\n", "malformed"),
        ("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 2\n", "3"),
        ("", "line 1"),
    ],
)
def test_mm_malformed(tmp_path: Path, text: str, pattern: str) -> None:
    path = _write(tmp_path / "bad.mtx", text)
    with pytest.raises((InvalidValue, IndexOutOfBounds), match=pattern):
        read_matrix_market(path)


def test_mm_complex_and_bad_types(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "c.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n"
    )
    with pytest.raises(DomainMismatch):
        read_matrix_market(path)
    with pytest.raises(InvalidObject):
        read_matrix_market(42)
    with pytest.raises(InvalidObject):
        write_matrix_market(tmp_path / "x.mtx", np.eye(2))


# --- edge lists -------------------------------------------------------------------------------


def test_edge_list_unweighted(tmp_path: Path, backend: str) -> None:
    path = _write(tmp_path / "e.txt", "# a comment\n0 1\n1 2   # trailing comment\n\n3 0\n")
    A = read_edge_list(path, backend=backend)
    assert A.backend == backend and A.shape == (4, 4) and A.dtype == np.float64
    assert sorted(zip(*A.to_coo()[:2])) == [(0, 1), (1, 2), (3, 0)]
    assert np.all(A.to_coo()[2] == 1)


def test_edge_list_weighted_delimiter_nrows(tmp_path: Path) -> None:
    path = _write(tmp_path / "w.csv", "0,1,2.5\n2,0,-1\n")
    A = read_edge_list(path, delimiter=",", nrows=6, dtype=np.float32)
    assert A.shape == (6, 6) and A.dtype == np.float32
    assert _dense(A)[0, 1] == 2.5 and _dense(A)[2, 0] == -1
    with pytest.raises(InvalidValue, match="3 fields"):
        read_edge_list(path, delimiter=",", weighted=False)


def test_edge_list_symmetric(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.txt", "0 1 3\n1 0 3\n1 2 4\n2 2 7\n")
    A = read_edge_list(path, symmetric=True)
    assert _dense(A).tolist() == [[0, 3, 0], [3, 0, 4], [0, 4, 7]]


def test_edge_list_duplicates(tmp_path: Path) -> None:
    path = _write(tmp_path / "d.txt", "0 1 1\n0 1 2\n")
    with pytest.raises(InvalidValue, match="duplicate"):
        read_edge_list(path)
    A = read_edge_list(path, dup_op=hb.binary.plus)
    assert _dense(A)[0, 1] == 3


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("0 1\n1 x\n", "line 2, field 2: 'x'"),
        ("# header\n0 1\n\n1 2 3\n", "line 4 has 3 fields but line 2 has 2"),
        ("0 1\n# c\n-1 2\n", "line 3: vertex ids"),
        ("0 1\n1.5 2\n", "line 2: vertex ids"),
        ("0\n1\n", "1 fields"),
    ],
)
def test_edge_list_malformed(tmp_path: Path, text: str, pattern: str) -> None:
    path = _write(tmp_path / "bad.txt", text)
    with pytest.raises(InvalidValue, match=pattern):
        read_edge_list(path)


def test_edge_list_out_of_range_and_empty(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.txt", "0 5\n")
    with pytest.raises(IndexOutOfBounds):
        read_edge_list(path, nrows=3)
    empty = _write(tmp_path / "empty.txt", "# nothing here\n")
    A = read_edge_list(empty)
    assert A.shape == (0, 0) and A.nnz == 0
    assert read_edge_list(empty, nrows=4).shape == (4, 4)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
def test_edge_list_round_trip(tmp_path: Path, dtype: type) -> None:
    A = hb.generators.random_weights(
        hb.generators.erdos_renyi(30, 80, seed=5), -2.0, 2.0, dtype=np.float64
    )
    if dtype in (np.int64, np.bool_):
        A = hb.generators.random_weights(A, 1, 9, dtype=np.int64)
    A = A.dup(dtype) if dtype is not np.float64 else A
    path = tmp_path / "rt.txt"
    write_edge_list(path, A)
    B = read_edge_list(path, nrows=A.nrows, dtype=dtype)
    assert B.isequal(A, check_dtype=True)
    if dtype is np.bool_:
        assert len(path.read_text().splitlines()[0].split()) == 2


def test_edge_list_round_trip_keeps_a_stored_false(tmp_path: Path) -> None:
    """A bool matrix that stores False is written with 0 / 1 weights, so none reads back True."""
    A = hb.Matrix.from_coo([0, 1, 2], [1, 0, 2], [True, False, True], nrows=3, ncols=3)
    path = tmp_path / "rt.txt"
    write_edge_list(path, A)
    assert path.read_text().split() == ["0", "1", "1", "1", "0", "0", "2", "2", "1"]
    assert read_edge_list(path, nrows=3, dtype=bool).isequal(A, check_dtype=True)


# --- networkx ---------------------------------------------------------------------------------


def test_from_networkx_directed_weighted(backend: str) -> None:
    G = nx.DiGraph()
    G.add_nodes_from(["a", "b", "c", "d"])
    G.add_edge("a", "b", weight=2.0)
    G.add_edge("b", "c")  # no weight attribute: 1
    G.add_edge("c", "a", weight=0.0)  # an explicit zero is still an edge
    A = from_networkx(G, backend=backend)
    assert A.backend == backend and A.shape == (4, 4) and A.nnz == 3
    assert _dense(A).tolist() == [[0, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    rows, cols, values = A.to_coo()
    assert (2, 0, 0.0) in zip(rows.tolist(), cols.tolist(), values.tolist())
    B = from_networkx(G, weight=None, dtype=np.int32)
    assert B.dtype == np.int32 and set(B.to_coo()[2].tolist()) == {1}


def test_from_networkx_undirected_symmetric_and_nodelist() -> None:
    G = nx.Graph()
    G.add_weighted_edges_from([(10, 20, 1.5), (20, 30, 2.5), (30, 30, 4.0)])
    A = from_networkx(G, nodelist=[30, 20, 10])
    assert _dense(A).tolist() == [[4.0, 2.5, 0], [2.5, 0, 1.5], [0, 1.5, 0]]
    S = A.to_scipy()
    assert (S != S.T).nnz == 0


def test_from_networkx_multigraph_sums() -> None:
    G = nx.MultiDiGraph()
    G.add_edge(0, 1, weight=1.0)
    G.add_edge(0, 1, weight=2.0)
    assert _dense(from_networkx(G))[0, 1] == 3.0


@pytest.mark.parametrize("kind", [nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph])
def test_from_networkx_matches_networkx(kind: type) -> None:
    """Self loops, parallel edges, nodes left out of nodelist, missing weights: the matrix
    networkx itself gives."""
    rng = np.random.default_rng(4)
    G = kind()
    G.add_nodes_from(range(12))
    for _ in range(60):
        u, v = (int(x) for x in rng.integers(0, 12, size=2))
        G.add_edge(u, v, weight=float(rng.integers(-4, 5)) / 4)
    G.add_edge(3, 3)  # no weight attribute: 1
    nodelist = [int(x) for x in rng.permutation(12)[:10]]
    for weight in ("weight", None):
        want = nx.to_scipy_sparse_array(G, nodelist=nodelist, weight=weight, format="csr")
        want.sort_indices()
        got = from_networkx(G, nodelist=nodelist, weight=weight).to_scipy()
        assert got.shape == want.shape
        assert got.indptr.tolist() == want.indptr.tolist()
        assert got.indices.tolist() == want.indices.tolist()
        assert got.data.tolist() == want.data.tolist()


def test_from_networkx_errors_and_empty() -> None:
    G = nx.path_graph(3)
    with pytest.raises(InvalidObject):
        from_networkx(np.eye(3))
    with pytest.raises(InvalidValue):
        from_networkx(G, nodelist=[0, 1, 1])
    with pytest.raises(InvalidValue):
        from_networkx(G, nodelist=[0, 7])
    A = from_networkx(nx.Graph())
    assert A.shape == (0, 0)


def test_to_networkx_round_trip() -> None:
    G = nx.gnp_random_graph(25, 0.2, seed=3, directed=True)
    for u, v in G.edges:
        G[u][v]["weight"] = float(u + 2 * v)
    A = from_networkx(G, nodelist=range(25))
    H = to_networkx(A)
    assert isinstance(H, nx.DiGraph)
    assert sorted(H.nodes) == list(range(25))
    assert sorted(H.edges(data="weight")) == sorted(G.edges(data="weight"))
    U = to_networkx(hb.generators.grid_2d(3, 3), directed=False, weight=None)
    assert isinstance(U, nx.Graph) and U.number_of_edges() == 12
    assert nx.is_isomorphic(U, nx.grid_2d_graph(3, 3))


def test_to_networkx_errors() -> None:
    with pytest.raises(DimensionMismatch):
        to_networkx(hb.Matrix.new(np.float64, 2, 3))
    with pytest.raises(InvalidObject):
        to_networkx(sp.eye(3))
