"""Matrix / Vector construction, export, storage and mask views on small exact fixtures."""

from __future__ import annotations

import gc

import numpy as np
import pytest
import scipy.sparse as sp

import hyblas as hb
from hyblas.backend import xp_for
from hyblas.containers.vector import one_entries, one_entry
from hyblas.errors import InvalidValue

#   A (3x4), float64
#       0    1    2    3
#   0 [ 1.0  .    2.0  .  ]
#   1 [ .    .    .    .  ]
#   2 [ .    0.0  .    3.5]      (2,1) holds an explicit 0.0: an entry, not an absence
A_ROWS, A_COLS, A_VALS = [0, 0, 2, 2], [0, 2, 1, 3], [1.0, 2.0, 0.0, 3.5]


@pytest.fixture
def A(backend: str) -> hb.Matrix:  # noqa: N802
    return hb.Matrix.from_coo(A_ROWS, A_COLS, A_VALS, nrows=3, ncols=4, backend=backend)


def test_from_coo_to_coo(A: hb.Matrix) -> None:  # noqa: N803
    assert A.shape == (3, 4) and A.nnz == 4 and A.dtype == np.float64
    r, c, v = A.to_coo()
    assert r.tolist() == A_ROWS and c.tolist() == A_COLS and v.tolist() == A_VALS


def test_from_coo_unsorted_input_is_canonicalised(backend: str) -> None:
    M = hb.Matrix.from_coo([2, 0, 0], [1, 2, 0], [5, 6, 7], backend=backend)
    assert M.shape == (3, 3)  # default shape: one past the largest index
    r, c, v = M.to_coo()
    assert list(zip(r.tolist(), c.tolist(), v.tolist())) == [(0, 0, 7), (0, 2, 6), (2, 1, 5)]


def test_from_coo_duplicates(backend: str) -> None:
    #   (0,1) given three times: 1 + 2 + 4 with dup_op=plus, max 4 with dup_op=max
    rows, cols, vals = [0, 0, 1, 0], [1, 1, 0, 1], [1, 2, 9, 4]
    M = hb.Matrix.from_coo(rows, cols, vals, dup_op=hb.binary.plus, backend=backend)
    assert M.to_dense(0).tolist() == [[0, 7], [9, 0]]
    M = hb.Matrix.from_coo(rows, cols, vals, dup_op=hb.binary.max, backend=backend)
    assert M.to_dense(0).tolist() == [[0, 4], [9, 0]]
    with pytest.raises(InvalidValue, match="duplicate"):
        hb.Matrix.from_coo(rows, cols, vals, backend=backend)
    v = hb.Vector.from_coo([3, 1, 3], [1, 2, 5], dup_op=hb.binary.times, backend=backend)
    assert v.to_coo()[0].tolist() == [1, 3] and v.to_coo()[1].tolist() == [2, 5]
    with pytest.raises(InvalidValue, match="duplicate index 3"):
        hb.Vector.from_coo([3, 1, 3], [1, 2, 5], backend=backend)


def test_scipy_round_trip(A: hb.Matrix, backend: str) -> None:  # noqa: N803
    s = A.to_scipy()
    assert sp.issparse(s) and s.shape == (3, 4) and s.nnz == 4  # explicit 0 kept
    expected = np.array([[1, 0, 2, 0], [0, 0, 0, 0], [0, 0, 0, 3.5]])
    assert np.array_equal(s.toarray(), expected)
    back = hb.Matrix.from_scipy(s, backend=backend)
    assert back.isequal(A, check_dtype=True)
    # scipy COO with duplicates and unsorted entries: summed on the way in
    coo = sp.coo_array(([1, 2, 3], ([1, 1, 0], [0, 0, 2])), shape=(2, 3))
    M = hb.Matrix.from_scipy(coo, dtype=np.int32, backend=backend)
    assert M.dtype == np.int32 and M.to_dense(0).tolist() == [[0, 0, 3], [3, 0, 0]]


def test_from_dense_and_to_dense(backend: str) -> None:
    arr = np.array([[0, 5], [-1, 0]], dtype=np.int32)
    full = hb.Matrix.from_dense(arr, backend=backend)
    assert full.nnz == 4 and full.dtype == np.int32  # zeros are entries by default
    holes = hb.Matrix.from_dense(arr, missing_value=0, backend=backend)
    assert holes.nnz == 2
    assert holes.to_dense(fill_value=7).tolist() == [[7, 5], [-1, 7]]
    assert holes.to_dense().tolist() == [[0, 5], [-1, 0]]


def test_transpose_dup_isequal(A: hb.Matrix) -> None:  # noqa: N803
    T = A.T
    assert T.shape == (4, 3)
    assert np.array_equal(T.to_dense(-9), A.to_dense(-9).T)
    assert A.T is T  # cached
    B = A.dup()
    assert B.isequal(A) and B is not A
    C = A.dup(np.float32)
    assert C.dtype == np.float32 and C.isequal(A) and not C.isequal(A, check_dtype=True)
    # a stored 0 differs from an absent entry
    D = hb.Matrix.from_coo(
        [0, 0, 2], [0, 2, 3], [1.0, 2.0, 3.5], nrows=3, ncols=4, backend=A.backend
    )
    assert not D.isequal(A)
    assert A.nnz == 4 and D.nnz == 3


def test_writing_into_a_matrix_drops_its_cached_transpose(A: hb.Matrix) -> None:  # noqa: N803
    before = A.T.to_dense(0)
    hb.ops.apply(A, hb.binary.times, right=2.0, out=A)
    assert np.array_equal(A.T.to_dense(0), before * 2)


def test_transpose_of_the_transpose_is_the_matrix_while_both_hold(A: hb.Matrix) -> None:  # noqa: N803
    dense = A.to_dense(-9)
    T = A.T
    assert T.T is A
    # writing into the transpose: it is no longer A's transpose, nor A its transpose
    hb.ops.apply(T, hb.binary.times, right=2.0, out=T)
    assert T.T is not A and np.array_equal(T.T.to_dense(-9), np.where(dense == -9, -9, dense * 2))
    assert np.array_equal(A.T.to_dense(-9), dense.T) and A.T is not T
    # the link back is weak: a dropped matrix is not kept alive by its transpose
    B = A.dup()  # (pytest holds the fixture)
    U = B.T
    del B
    gc.collect()
    assert U.transpose_at_hand() is None
    assert np.array_equal(U.T.to_dense(-9), dense)


def test_repr(A: hb.Matrix, backend: str) -> None:  # noqa: N803
    text = repr(A)
    assert "nrows=3" in text and "ncols=4" in text and "nnz=4" in text and "float64" in text
    assert "(2,3): 3.5" in text
    v = hb.Vector.from_coo([1], [2], size=3, backend=backend)
    assert "size=3" in repr(v) and "nnz=1" in repr(v) and "1: 2" in repr(v)


def test_vector_constructors(backend: str) -> None:
    e = hb.Vector.new(np.int32, 5, backend=backend)
    assert e.size == 5 and e.nnz == 0 and e.dtype == np.int32
    assert e.to_dense(fill_value=-1).tolist() == [-1] * 5
    with pytest.raises(InvalidValue):
        e.to_dense()  # absent entries and no fill value
    s = hb.Vector.from_scalar(2.5, 3, backend=backend)
    assert s.nnz == 3 and s.to_dense().tolist() == [2.5, 2.5, 2.5]
    d = hb.Vector.from_dense(np.array([0, 4, 0, 1]), missing_value=0, backend=backend)
    assert d.to_coo()[0].tolist() == [1, 3] and d.to_coo()[1].tolist() == [4, 1]
    c = hb.Vector.from_coo([4, 0], [1.5, -1.0], backend=backend)
    assert c.size == 5 and c.get(4) == 1.5 and c.get(1) is None and c.get(1, 0) == 0
    z = hb.Vector.new(bool, 0, backend=backend)
    assert z.size == 0 and z.to_coo()[0].size == 0 and z.to_dense().size == 0


@pytest.mark.parametrize(
    ("dtype", "value"),
    [
        (np.int64, 0),
        (np.bool_, True),
        (np.float32, 0.0),
        (np.float64, -2.5),
        (np.int8, -3),
        (np.uint16, 65535),
        (np.uint64, 2**63 + 5),
    ],
)
def test_one_entry_is_the_vector_from_coo_builds(backend: str, dtype: type, value: object) -> None:
    """A search's source vector, packed into one copy: the same vector as from_coo's, and it
    works as any other (the index and the value are views of one buffer)."""
    got = one_entry(6, value, size=9, dtype=dtype, backend=backend)
    want = hb.Vector.from_coo([6], [value], size=9, dtype=dtype, backend=backend)
    assert got.backend == backend and got.dtype == want.dtype and got.size == 9 and got.nnz == 1
    assert got.isequal(want)
    ids, values = got.to_coo()
    assert ids.dtype == np.int64 and ids.tolist() == [6] and values.tolist() == [value]
    assert got.dup(np.float64).get(6) == float(np.array(value, dtype=dtype))
    assert hb.ops.ewise_add(got, want, "plus").nnz == 1


def test_one_entries_are_the_vectors_from_coo_builds(backend: str) -> None:
    """A search's state and frontier from one copy: each is its own vector of its dtype,
    equal to from_coo's, and an operation on one leaves the other as it was."""
    entries = ((0, np.int64), (True, np.bool_), (-2.5, np.float32), (2**63 + 5, np.uint64))
    got = one_entries(3, entries, size=7, backend=backend)
    assert len(got) == len(entries)
    for vector, (value, dtype) in zip(got, entries, strict=True):
        want = hb.Vector.from_coo([3], [value], size=7, dtype=dtype, backend=backend)
        assert vector.dtype == want.dtype and vector.nnz == 1 and vector.isequal(want)
    levels, frontier = got[:2]
    hb.ops.assign(levels, 4, None, mask=frontier.S)
    assert levels.to_coo()[1].tolist() == [4]
    assert got[2].to_coo()[1].tolist() == [-2.5] and got[3].to_coo()[1].tolist() == [2**63 + 5]
    assert frontier.to_coo()[0].tolist() == [3] and frontier.to_coo()[1].tolist() == [True]


def test_built_containers_do_not_share_the_callers_arrays(backend: str) -> None:
    """Input already in order skips the sort (one entry, any work); the containers still hold
    their own copies."""
    from hyblas.backend import xp_for

    xp = xp_for(backend)
    rows, cols, vals = xp.asarray([0, 1, 2]), xp.asarray([0, 1, 2]), xp.asarray([1.0, 2.0, 3.0])
    A = hb.Matrix.from_coo(rows, cols, vals, backend=backend)
    idx, v = xp.asarray([0, 2]), xp.asarray([5.0, 6.0])
    x = hb.Vector.from_coo(idx, v, size=3, backend=backend)
    one_idx, one_v = xp.asarray([1], dtype=np.int64), xp.asarray([7.0])
    y = hb.Vector.from_coo(one_idx, one_v, size=10_000, backend=backend)  # stays sparse
    vals[0], idx[0], v[0], one_idx[0], one_v[0] = 99.0, 1, -1.0, 2, -7.0
    assert A.to_coo()[2].tolist() == [1.0, 2.0, 3.0]
    assert x.to_coo()[0].tolist() == [0, 2] and x.to_coo()[1].tolist() == [5.0, 6.0]
    assert y.to_coo()[0].tolist() == [1] and y.to_coo()[1].tolist() == [7.0]


def test_to_coo_on_the_device_gives_copies_of_the_backend_arrays(backend: str) -> None:
    from hyblas.backend import xp_for

    v = hb.Vector.from_coo([4, 1], [1.5, -1.0], size=6, backend=backend)
    for storage in ("sparse", "bitmap"):
        v.as_bitmap() if storage == "bitmap" else v.as_sparse()
        idx, vals = v.to_coo(device=True)
        assert isinstance(idx, xp_for(backend).ndarray) and isinstance(vals, type(idx))
        assert idx.tolist() == [1, 4] and vals.tolist() == [-1.0, 1.5]
        idx[0], vals[0] = 5, 9.0  # the vector keeps its own entries
        assert v.to_coo()[0].tolist() == [1, 4] and v.get(1) == -1.0


def test_vector_storage_switch_is_invisible(backend: str) -> None:
    size = 100
    sparse = hb.Vector.from_coo([3, 50], [1, 2], size=size, dtype=np.int64, backend=backend)
    dense = hb.Vector.from_dense(np.arange(size) % 7, missing_value=0, backend=backend)
    assert sparse.format == "sparse" and dense.format == "bitmap"
    # the same entries built both ways are equal whatever the storage
    grown = hb.ops.ewise_add(sparse, dense, hb.binary.plus)
    assert grown.format == "bitmap"
    expected = (np.arange(size) % 7).astype(np.int64)
    expected[3] += 1
    expected[50] += 2
    present = np.arange(size) % 7 != 0
    present[[3, 50]] = True
    idx, vals = grown.to_coo()
    assert idx.tolist() == np.flatnonzero(present).tolist()
    assert vals.tolist() == expected[present].tolist()
    shrunk = hb.ops.select(grown, "rowle", 1)  # keep indices <= 1: sparse again
    assert shrunk.format == "sparse"
    assert shrunk.to_coo()[0].tolist() == [1] and shrunk.to_coo()[1].tolist() == [1]
    as_bitmap = hb.Vector.from_dense(np.array([0, 1] + [0] * 98), missing_value=0, backend=backend)
    assert as_bitmap.isequal(shrunk) and shrunk.isequal(as_bitmap)


def test_a_failure_while_settling_new_storage_leaves_the_vector_as_it_was(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Settling converts the new storage (here a sparse bitmap to ids and values), which
    allocates; an allocation that fails there must not leave the vector half replaced."""
    v = hb.Vector.from_dense(np.arange(1, 101, dtype=np.float64), backend=backend)
    before = v.to_coo()
    xp = xp_for(backend)
    values, present = xp.zeros(100), xp.zeros(100, dtype=bool)
    present[7] = True

    def no_memory(self: hb.Vector) -> None:
        raise MemoryError("no memory for the conversion")

    monkeypatch.setattr(hb.Vector, "as_sparse", no_memory)
    with pytest.raises(MemoryError):
        v.set_storage(bitmap=(values, present))
    monkeypatch.undo()
    after = v.to_coo()
    assert v.nnz == 100 and v.format == "bitmap"
    assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))


#   mask m (size 4): index 0 -> 1, index 1 -> 0 (a stored zero), 2 absent, 3 -> 2
#   value mask allows {0, 3}; structural {0, 1, 3}; ~value {1, 2}; ~structural {2}
@pytest.mark.parametrize(
    ("spelling", "allowed"),
    [
        ("m", [0, 3]),
        ("m.V", [0, 3]),
        ("m.S", [0, 1, 3]),
        ("~m", [1, 2]),
        ("~m.V", [1, 2]),
        ("~m.S", [2]),
    ],
)
def test_mask_views(backend: str, spelling: str, allowed: list[int]) -> None:
    m = hb.Vector.from_coo([0, 1, 3], [1, 0, 2], size=4, backend=backend)
    mask = eval(spelling, {"m": m})  # noqa: S307 - the spelling is the test's own literal
    u = hb.Vector.from_scalar(5, 4, backend=backend)
    w = hb.ops.apply(u, hb.unary.identity, mask=mask)
    assert w.to_coo()[0].tolist() == allowed
    if spelling != "m":  # a view, e.g. ~m.S -> "~Vector.S" (~m is the value view)
        kind = "S" if spelling.endswith("S") else "V"
        assert repr(mask) == f"{'~' if spelling.startswith('~') else ''}Vector.{kind}"


def test_absence_is_not_zero(backend: str) -> None:
    #   A (2x2) = [[0, .], [., .]] : one stored zero
    A = hb.Matrix.from_coo([0], [0], [0], nrows=2, ncols=2, backend=backend)  # noqa: N806
    u = hb.Vector.from_coo([0], [7], size=2, backend=backend)
    w = hb.ops.mxv(A, u, hb.semiring.plus_times)
    assert w.to_coo()[0].tolist() == [0] and w.to_coo()[1].tolist() == [0]  # 0*7 is an entry
    assert hb.ops.reduce_rows(A, "plus").to_coo()[0].tolist() == [0]  # row 1 empty: absent
    with pytest.raises(TypeError):
        bool(u)
