"""Bad input to the readers and writers: named errors from hyblas.errors, nothing written where
a writer raises (and an existing file left as it was), the containers passed in unchanged;
integers read exactly. (The generators' bad input: test_generators_bad_input.py.)"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pytest

import hyblas as hb
from hyblas.errors import (
    DomainMismatch,
    IndexOutOfBounds,
    InvalidObject,
    InvalidValue,
)
from hyblas.io import (
    from_networkx,
    read_edge_list,
    read_matrix_market,
    write_edge_list,
    write_matrix_market,
)
from tests.support.checks import snapshot

READERS = {"read_matrix_market": read_matrix_market, "read_edge_list": read_edge_list}
WRITERS = {"write_matrix_market": write_matrix_market, "write_edge_list": write_edge_list}


def _matrix(backend: str = "cpu") -> hb.Matrix:
    return hb.Matrix.from_coo([0, 1], [1, 0], [1.5, -2.0], nrows=2, ncols=2, backend=backend)


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (what a failed write must leave as it was)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# --- paths ------------------------------------------------------------------------------------


def _bad_paths(tmp_path: Path) -> list[tuple[Any, type, str]]:
    regular = _write(tmp_path / "regular.txt", "not a directory\n")
    (tmp_path / "a_directory").mkdir()
    return [
        (tmp_path / "no" / "such" / "dir" / "a.mtx", InvalidValue, "does not exist"),
        ("/no/such/dir/a.mtx", InvalidValue, "the directory '/no/such/dir' does not exist"),
        (regular / "a.mtx", InvalidValue, "a file, not a directory"),
        (regular / "deeper" / "a.mtx", InvalidValue, "a file, not a directory"),
        (tmp_path / "a_directory", InvalidValue, "is a directory, not a file"),
        ("", InvalidValue, "path is empty"),
        (tmp_path / "a\0b.mtx", InvalidValue, r"a\\x00b.mtx' holds a NUL byte"),
        ("a\0", InvalidValue, "holds a NUL byte"),
        (42, InvalidObject, "path must be a str or os.PathLike, got int"),
        (b"a.mtx", InvalidObject, "path must be a str or os.PathLike, got bytes"),
    ]


@pytest.mark.parametrize("writer", list(WRITERS))
def test_writers_raise_for_a_bad_path_and_write_nothing(tmp_path: Path, writer: str) -> None:
    A = _matrix()
    before = A.dup()
    for path, error, match in _bad_paths(tmp_path):
        files = _tree(tmp_path)
        with pytest.raises(error, match=match):
            WRITERS[writer](path, A)
        assert _tree(tmp_path) == files, path
    assert A.isequal(before, check_dtype=True)


@pytest.mark.parametrize("reader", list(READERS))
def test_readers_raise_for_a_bad_path(tmp_path: Path, reader: str, backend: str) -> None:
    for path, error, match in _bad_paths(tmp_path):
        with pytest.raises(error, match=match):
            READERS[reader](path, backend=backend)
    with pytest.raises(InvalidValue, match="missing.mtx'.*no such file"):
        READERS[reader](tmp_path / "missing.mtx", backend=backend)


@pytest.mark.parametrize("reader", list(READERS))
def test_readers_raise_for_an_unreadable_file(
    tmp_path: Path, reader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "a.txt", "%%MatrixMarket matrix coordinate real general\n1 1 0\n")
    if os.geteuid() != 0:  # root reads whatever the mode says
        path.chmod(0)
        with pytest.raises(InvalidValue, match="may not be read"):
            READERS[reader](path)
        path.chmod(0o600)
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if p == str(path) else real_access(p, mode)
    )
    with pytest.raises(InvalidValue, match=r"a.txt' may not be read \(permission denied\)"):
        READERS[reader](path)


@pytest.mark.parametrize("writer", list(WRITERS))
def test_writers_raise_for_an_unwritable_place(
    tmp_path: Path, writer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    existing = _write(tmp_path / "old.txt", "keep me\n")
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if str(tmp_path) in str(p) else real_access(p, mode)
    )
    with pytest.raises(InvalidValue, match="old.txt' may not be written"):
        WRITERS[writer](existing, _matrix())
    with pytest.raises(InvalidValue, match="may not be written"):
        WRITERS[writer](tmp_path / "new.txt", _matrix())
    monkeypatch.undo()
    assert _tree(tmp_path) == {"old.txt": b"keep me\n"}


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_writer_given_bad_arguments_leaves_the_file(tmp_path: Path, writer: str) -> None:
    existing = _write(tmp_path / "old.txt", "keep me\n")
    with pytest.raises(InvalidObject, match="A must be a Matrix, got ndarray"):
        WRITERS[writer](existing, np.eye(2))
    assert existing.read_text() == "keep me\n"


def test_a_silent_matrix_market_writer_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import scipy.io  # noqa: PLC0415

    monkeypatch.setattr(scipy.io, "mmwrite", lambda *args, **kwargs: None)
    with pytest.raises(InvalidValue, match="was not written"):
        write_matrix_market(tmp_path / "a.mtx", _matrix())


def test_writer_argument_types(tmp_path: Path) -> None:
    with pytest.raises(InvalidObject, match="comment must be a str"):
        write_matrix_market(tmp_path / "a.mtx", _matrix(), comment=3)
    with pytest.raises(InvalidObject, match="weighted must be a bool or None"):
        write_edge_list(tmp_path / "a.txt", _matrix(), weighted="yes")
    with pytest.raises(InvalidObject, match="delimiter must be a non-empty str"):
        write_edge_list(tmp_path / "a.txt", _matrix(), delimiter="")
    assert _tree(tmp_path) == {}


# --- integers, read and written exactly ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "dtype", "weights"),
    [
        ("0 1 9007199254740993\n1 0 -9223372036854775808\n", np.int64, [2**53 + 1, -(2**63)]),
        ("0 1 18446744073709551615\n1 0 0\n", np.uint64, [2**64 - 1, 0]),
        ("0 1 127\n1 0 -128\n", np.int8, [127, -128]),
        ("0 1 +7\n1 0 -0\n", np.int32, [7, 0]),
    ],
)
def test_edge_list_integers_are_exact(
    tmp_path: Path, backend: str, text: str, dtype: type, weights: list[int]
) -> None:
    path = _write(tmp_path / "w.txt", text)
    A = read_edge_list(path, dtype=dtype, backend=backend)
    assert A.dtype == dtype and A.to_coo()[2].tolist() == weights
    again = tmp_path / "again.txt"
    write_edge_list(again, A)
    assert read_edge_list(again, dtype=dtype, backend=backend).isequal(A, check_dtype=True)
    assert again.read_text().split()[2] == str(weights[0])


def test_edge_list_ids_are_exact(tmp_path: Path) -> None:
    # ids beyond 2**53 would be rounded through a float; read as integers they are exact (and
    # name a matrix too large for memory, not a wrong vertex)
    path = _write(tmp_path / "big.txt", "0 9007199254740993\n")
    with pytest.raises(IndexOutOfBounds, match="9007199254740993"):
        read_edge_list(path, nrows=10)
    floats = _write(tmp_path / "floats.txt", "0.0 2.0 1\n1.0 0 2\n")  # ids as whole floats
    A = read_edge_list(floats, dtype=np.int64)
    assert A.to_coo()[1].tolist() == [2, 0] and A.to_coo()[2].tolist() == [1, 2]


@pytest.mark.parametrize(
    ("text", "dtype", "match"),
    [
        ("0 1 2\n1 2 1.5\n", np.int64, "line 2, field 3: the weight 1.5 is not an integer"),
        ("0 1 nan\n", np.int32, "line 1, field 3: the weight nan is not an integer"),
        ("0 1 1e3\n", np.int64, "the weight 1e3 is not an integer"),
        (
            "0 1 2\n# c\n0 2 300\n",
            np.int8,
            r"line 3, field 3: the weight 300 is outside the range \[-128, 127\] of int8",
        ),
        ("0 1 -1\n", np.uint64, r"the weight -1 is outside the range \[0, 18446744073709551615\]"),
        ("0 1 9223372036854775808\n", np.int64, "the weight 9223372036854775808 is outside"),
        ("0 1 1e300\n", np.float32, r"line 1 \(0 1 1e300\): the weight 1e\+300 overflows float32"),
        ("0 1 x\n", np.int64, "line 1, field 3: 'x' is not a number"),
        ("0 9223372036854775808\n", None, "the vertex id 9223372036854775808 is beyond int64"),
        ("1e17 1\n", None, "the vertex id 1e\\+17 is a float too large to be exact"),
        ("0 1\n2.5 1\n", None, "line 2: vertex ids must be non-negative integers, got 2.5 1"),
        ("0 1\n-1 1\n", None, "line 2: vertex ids must be non-negative integers, got -1 1"),
    ],
)
def test_edge_list_values_a_dtype_cannot_hold(
    tmp_path: Path, backend: str, text: str, dtype: Any, match: str
) -> None:
    path = _write(tmp_path / "bad.txt", text)
    with pytest.raises(InvalidValue, match=match):
        read_edge_list(path, dtype=dtype, backend=backend)
    assert path.read_text() == text


def test_edge_list_argument_types(tmp_path: Path) -> None:
    path = _write(tmp_path / "e.txt", "0 1\n")
    with pytest.raises(InvalidObject, match="weighted must be a bool or None"):
        read_edge_list(path, weighted=1)
    with pytest.raises(InvalidObject, match="delimiter must be a non-empty str or None"):
        read_edge_list(path, delimiter="")
    with pytest.raises(InvalidObject, match="comments"):
        read_edge_list(path, comments=3)
    with pytest.raises(DomainMismatch, match="complex"):
        read_edge_list(path, dtype=np.complex64)
    with pytest.raises(InvalidObject, match="nrows"):
        read_edge_list(path, nrows=-1)


def test_edge_list_dup_op_must_serve_the_dtype(tmp_path: Path, backend: str) -> None:
    """Checked against dtype before the file is read: even a malformed file gives the dup_op's
    DomainMismatch."""
    text = "0 1 1.5\n0 1 2.5\n"
    path = _write(tmp_path / "w.txt", text)
    for op, match in (("bor", "dup_op binary.bor does not serve float64"), ("lt", "gives bool")):
        with pytest.raises(DomainMismatch, match=match):
            read_edge_list(path, dup_op=hb.binary[op], backend=backend)
    with pytest.raises(DomainMismatch, match="dup_op binary.div does not serve int64"):
        read_edge_list(path, dtype=np.int64, dup_op=hb.binary.div, backend=backend)
    malformed = _write(tmp_path / "bad.txt", "0 1 x\n")
    with pytest.raises(DomainMismatch, match="binary.band does not serve float32"):
        read_edge_list(malformed, dtype=np.float32, dup_op=hb.binary.band, backend=backend)
    with pytest.raises(InvalidObject, match="dup_op must be a BinaryOp"):
        read_edge_list(malformed, dup_op="plus", backend=backend)
    assert path.read_text() == text
    summed = read_edge_list(path, dup_op=hb.binary.plus, backend=backend)
    assert summed.to_coo()[2].tolist() == [4.0]


def test_matrix_market_values_a_dtype_cannot_hold(tmp_path: Path, backend: str) -> None:
    path = _write(
        tmp_path / "r.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1.5\n"
    )
    with pytest.raises(InvalidValue, match="r.mtx: the values.* 1.5 is not an integer"):
        read_matrix_market(path, dtype=np.int64, backend=backend)
    dense = _write(tmp_path / "d.mtx", "%%MatrixMarket matrix array real general\n1 2\n1\n2.5\n")
    with pytest.raises(InvalidValue, match="2.5 is not an integer"):
        read_matrix_market(dense, dtype=np.int32, backend=backend)
    big = _write(
        tmp_path / "i.mtx",
        "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 9223372036854775808\n",
    )
    with pytest.raises(InvalidValue, match="malformed"):
        read_matrix_market(big, backend=backend)
    exact = _write(
        tmp_path / "e.mtx",
        "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 9007199254740993\n",
    )
    assert read_matrix_market(exact, backend=backend).to_coo()[2].tolist() == [2**53 + 1]


def _random_matrix(seed: int, dtype: Any) -> hb.Matrix:
    """A small square matrix of explicit zeros (False), -0.0 and other values, whose
    structure, or structure and values, are symmetric one time in three each."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    present = rng.random((n, n)) < 0.5
    values = rng.choice(np.array([0.0, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0]), size=(n, n))
    if seed % 3 != 0:  # a symmetric structure: the zeros of one triangle make it look so
        present = present | present.T
    if seed % 3 == 2:  # symmetric values too, but for a -0.0 against a 0.0
        values = np.where(np.tril(np.ones((n, n), dtype=bool)), values, values.T)
    rows, cols = np.nonzero(present)
    vals = values[rows, cols]
    if dtype == np.dtype(bool):
        vals = vals > 0
    elif np.dtype(dtype).kind in "iu":
        vals = np.abs(np.round(vals)) if np.dtype(dtype).kind == "u" else np.round(vals)
    return hb.Matrix.from_coo(rows, cols, vals.astype(dtype), nrows=n, ncols=n, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.uint8, bool])
def test_matrix_market_round_trip_keeps_every_entry(tmp_path: Path, dtype: Any) -> None:
    """Stored zeros and False are entries: a matrix they make look symmetric is written in
    full (issue: A = {(0, 1): 0.0} was written 'symmetric' with no entry and read back
    empty)."""
    zero = hb.Matrix.from_coo([0], [1], [0.0], nrows=2, ncols=2)
    write_matrix_market(tmp_path / "z.mtx", zero)
    assert read_matrix_market(tmp_path / "z.mtx").isequal(zero, check_dtype=True)
    for seed in range(60):
        A = _random_matrix(seed, dtype)
        before = snapshot(A)
        path = tmp_path / f"r{seed}.mtx"
        write_matrix_market(path, A)
        assert snapshot(A) == before
        B = read_matrix_market(path, dtype=dtype)
        assert snapshot(B) == before, (seed, A, B, path.read_text())  # -0.0 too
        header = path.read_text().splitlines()[0]
        if A.dtype == np.dtype(bool) and A.nnz:  # (scipy writes an empty one as 'real')
            assert ("pattern" in header) == bool(A.to_coo()[2].all())
        if "symmetric" in header:
            S = A.to_scipy()
            assert (S != S.T).nnz == 0 and (abs(S) != abs(S.T)).nnz == 0


def test_matrix_market_bool_false_is_kept(tmp_path: Path) -> None:
    A = hb.Matrix.from_coo([0, 1, 1], [1, 0, 1], [True, True, False], nrows=2, ncols=2)
    write_matrix_market(tmp_path / "b.mtx", A)
    text = (tmp_path / "b.mtx").read_text()
    assert text.startswith("%%MatrixMarket matrix coordinate integer symmetric")
    assert read_matrix_market(tmp_path / "b.mtx", dtype=bool).isequal(A, check_dtype=True)
    assert read_matrix_market(tmp_path / "b.mtx").to_coo()[2].tolist() == [1, 1, 0]


def test_matrix_market_uint64_beyond_int64(tmp_path: Path) -> None:
    A = hb.Matrix.from_coo([0], [0], [2**64 - 1], dtype=np.uint64)
    with pytest.raises(InvalidValue, match="18446744073709551615, outside the range"):
        write_matrix_market(tmp_path / "u.mtx", A)
    assert _tree(tmp_path) == {}
    fits = hb.Matrix.from_coo([0], [0], [2**63 - 1], dtype=np.uint64)
    write_matrix_market(tmp_path / "u.mtx", fits)
    assert read_matrix_market(tmp_path / "u.mtx", dtype=np.uint64).isequal(fits)


def test_networkx_weights_a_dtype_cannot_hold(backend: str) -> None:
    G = nx.DiGraph()
    G.add_edge(0, 1, weight=1.5)
    with pytest.raises(InvalidValue, match="1.5 is not an integer"):
        from_networkx(G, dtype=np.int64, backend=backend)
    G.add_edge(1, 0, weight="heavy")
    with pytest.raises(InvalidValue, match="edge attribute 'weight' is not a number"):
        from_networkx(G, backend=backend)


def test_networkx_weights_of_no_hyblas_type_and_bad_nodelists(backend: str) -> None:
    G = nx.DiGraph([(0, 1, {"weight": 2**1100})])
    with pytest.raises(DomainMismatch, match=r"edge weights \('weight'\).*an int beyond 64 bits"):
        from_networkx(G, backend=backend)
    with pytest.raises(DomainMismatch, match="an int beyond 64 bits"):
        from_networkx(G, dtype=np.uint64, backend=backend)
    P = nx.path_graph(3)
    with pytest.raises(InvalidValue, match=r"nodelist holds \[0\], which is no node of G"):
        from_networkx(P, nodelist=[[0]], backend=backend)
    with pytest.raises(InvalidValue, match="nodelist holds"):
        from_networkx(P, nodelist=[0, {1: 2}], backend=backend)
    with pytest.raises(InvalidObject, match="nodelist must be an iterable of nodes, got int"):
        from_networkx(P, nodelist=3, backend=backend)
    P.add_edge(1, 2, weight=None)  # a weight attribute that holds no number
    with pytest.raises(InvalidValue, match=r"not a number on every edge: edge \(1, 2\) holds None"):
        from_networkx(P, backend=backend)
    assert P.number_of_edges() == 2 and P[1][2] == {"weight": None}
    M = nx.MultiDiGraph([(0, 1, {"weight": 100}), (0, 1, {"weight": 100})])
    with pytest.raises(InvalidValue, match=r"200, outside the range \[-128, 127\] of int8"):
        from_networkx(M, dtype=np.int8, backend=backend)  # the exact sum, not a wrapped one


@pytest.mark.parametrize(
    ("weights", "dtype", "expected"),
    [
        ([2**53 + 1], np.int64, [2**53 + 1]),
        ([2**63 - 1, -(2**63)], np.int64, [2**63 - 1, -(2**63)]),
        ([2**64 - 1], np.uint64, [2**64 - 1]),
        ([2**64 - 1, 3], np.uint64, [2**64 - 1, 3]),  # NumPy would take these as float64
        ([2**63 + 1, 2.0], np.uint64, [2**63 + 1, 2]),
        ([True, 7], np.int8, [1, 7]),
    ],
)
def test_networkx_integer_weights_are_exact(
    backend: str, weights: list, dtype: type, expected: list
) -> None:
    G = nx.DiGraph()
    G.add_weighted_edges_from((0, k + 1, w) for k, w in enumerate(weights))
    A = from_networkx(G, dtype=dtype, backend=backend)
    assert A.dtype == dtype and A.to_coo()[2].tolist() == expected
    M = nx.MultiDiGraph()
    M.add_weighted_edges_from([(0, 1, 2**62), (0, 1, 2**62 + 1), (1, 0, 5)])
    summed = from_networkx(M, dtype=np.uint64, backend=backend)
    assert summed.to_coo()[2].tolist() == [2**63 + 1, 5]
