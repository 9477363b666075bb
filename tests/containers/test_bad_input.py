"""Bad input to the containers: every class of it gets a named error from hyblas.errors, and
nothing the caller passed (arrays, scipy matrices, containers) is changed, whatever happens.

Also matrices whose linear keys ``row * ncols + col`` overflow int64 (build, convert and compare
them; an operation that needs the keys raises DimensionMismatch, leaving ``out`` as it was), and
allocations too large for memory (OutOfMemory, not a raw MemoryError)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

import hyblas as hb
from hyblas.backend import xp_for
from hyblas.containers.vector import FEW_ON_THE_HOST
from hyblas.device import arrays as prim
from hyblas.errors import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBounds,
    InvalidObject,
    InvalidValue,
    OutOfMemory,
)
from tests.support.checks import raises_unchanged, snapshot

WIDE = 2**62  # 3 x WIDE: 3 * 2**62 positions, beyond the 2**63 that int64 keys number
HUGE = 2**40  # rows or entries whose arrays take terabytes: no allocation can succeed
FEW = FEW_ON_THE_HOST + 1  # entries: a 'cuda' vector of these is built on the device


def _snapshot(obj: Any) -> Any:
    """A deep copy of what ``obj`` holds, to compare with after a call."""
    if isinstance(obj, hb.Matrix | hb.Vector):
        return obj.dup()
    if sp.issparse(obj):
        return (obj.copy(), obj.format, obj.nnz, getattr(obj, "has_canonical_format", None))
    return obj.copy()


def _unchanged(obj: Any, before: Any) -> bool:
    if isinstance(obj, hb.Matrix | hb.Vector):
        return obj.isequal(before, check_dtype=True)
    if sp.issparse(obj):
        copy, fmt, nnz, canonical = before
        same = obj.format == fmt and obj.nnz == nnz and obj.shape == copy.shape
        for name in ("data", "indices", "indptr", "row", "col", "coords"):
            if hasattr(copy, name):
                a, b = getattr(obj, name), getattr(copy, name)
                pairs = zip(a, b) if isinstance(a, tuple) else [(a, b)]
                same = same and all(np.array_equal(x, y) for x, y in pairs)
        return same and getattr(obj, "has_canonical_format", None) == canonical
    xp = xp_for("cuda") if type(obj).__module__.startswith("cupy") else np
    nan = obj.dtype.kind in "fc"
    return bool(obj.dtype == before.dtype and xp.array_equal(obj, before, equal_nan=nan))


def _raises_unchanged(error: type, call: Callable[[], Any], *inputs: Any, match: str = "") -> None:
    """``call()`` raises ``error`` (matching ``match``) and leaves every input as it was."""
    before = [_snapshot(obj) for obj in inputs]
    with pytest.raises(error, match=match):
        call()
    for obj, copy in zip(inputs, before):
        assert _unchanged(obj, copy), f"{type(obj).__name__} changed"


def _array(backend: str, values: Any, dtype: Any = None) -> Any:
    return xp_for(backend).asarray(np.asarray(values, dtype=dtype))


def _builds_raise(
    error: type, match: str, rows: Any, cols: Any, vals: Any, *inputs: Any, **options: Any
) -> None:
    """``Matrix.from_coo(rows, cols, vals)`` and ``Vector.from_coo(rows, vals)`` (with
    ``options``) both raise ``error`` and leave ``inputs`` as they were."""
    _raises_unchanged(
        error, lambda: hb.Matrix.from_coo(rows, cols, vals, **options), *inputs, match=match
    )
    _raises_unchanged(
        error, lambda: hb.Vector.from_coo(rows, vals, **options), *inputs, match=match
    )


# --- shapes and sizes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nrows", "ncols", "error", "match"),
    [
        (-1, 2, InvalidObject, "nrows"),
        (2, -1, InvalidObject, "ncols"),
        (1.5, 2, InvalidObject, "nrows must be a non-negative integer, got 1.5"),
        ("3", 2, InvalidObject, "nrows"),
        (True, 2, InvalidObject, "nrows"),
        (2, None, InvalidObject, "ncols"),
        (2**63, 2, DimensionMismatch, "nrows=9223372036854775808 is too large"),
        (2, 2**64, DimensionMismatch, "ncols"),
    ],
)
def test_matrix_new_bad_shapes(
    backend: str, nrows: Any, ncols: Any, error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        hb.Matrix.new(np.float64, nrows, ncols, backend=backend)


@pytest.mark.parametrize(
    ("size", "error"),
    [
        (-1, InvalidObject),
        (2.0, InvalidObject),
        (True, InvalidObject),
        (2**60, DimensionMismatch),
        (2**62, DimensionMismatch),
    ],
)
def test_vector_bad_sizes(backend: str, size: Any, error: type) -> None:
    with pytest.raises(error, match="size"):
        hb.Vector.new(np.float64, size, backend=backend)
    with pytest.raises(error, match="size"):
        hb.Vector.from_scalar(1.0, size, backend=backend)
    with pytest.raises(error, match="size"):
        hb.Vector.from_coo([0], [1.0], size=size, backend=backend)


def test_coo_arrays_of_different_lengths_or_dimensions(backend: str) -> None:
    rows, cols, vals = _array(backend, [0, 1]), _array(backend, [0]), _array(backend, [1.0, 2.0])
    _raises_unchanged(
        DimensionMismatch,
        lambda: hb.Matrix.from_coo(rows, cols, vals, backend=backend),
        rows,
        cols,
        vals,
        match="rows has 2 entries but cols has 1",
    )
    cols = _array(backend, [0, 1])
    short = _array(backend, [1.0])
    _raises_unchanged(
        DimensionMismatch,
        lambda: hb.Matrix.from_coo(rows, cols, short, backend=backend),
        short,
        match="values has shape",
    )
    square = _array(backend, [[0, 1]])
    _raises_unchanged(
        InvalidObject,
        lambda: hb.Matrix.from_coo(square, square, backend=backend),
        square,
        match="rows must be one-dimensional",
    )
    with pytest.raises(InvalidObject, match="array must be two-dimensional"):
        hb.Matrix.from_dense(_array(backend, [1.0, 2.0]), backend=backend)
    with pytest.raises(InvalidObject, match="array must be one-dimensional"):
        hb.Vector.from_dense(_array(backend, [[1.0]]), backend=backend)
    with pytest.raises(DimensionMismatch, match="values has shape"):
        hb.Vector.from_coo([0, 1], [1.0], backend=backend)


# --- dtypes and values ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "dtype", "error", "match"),
    [
        ([1.5, 2.0], np.int64, InvalidValue, r"values\[0\] = 1.5 is not an integer"),
        ([1.0, np.nan], np.int32, InvalidValue, r"values\[1\] = nan is not an integer"),
        ([1.0, np.inf], np.int64, InvalidValue, r"values\[1\] = inf"),
        ([1, 300], np.int8, InvalidValue, r"300, outside the range \[-128, 127\] of int8"),
        ([-1, 2], np.uint8, InvalidValue, "-1, outside the range"),
        (np.array([2**63, 1], np.uint64), np.int64, InvalidValue, "9223372036854775808, outside"),
        ([1.0, 1e300], np.float32, InvalidValue, r"values\[1\] = 1e\+300 overflows float32"),
        (["a", "b"], None, DomainMismatch, "values has dtype"),
        ([1.0, 2.0], np.complex128, DomainMismatch, "complex128"),
        ([1.0, 2.0], "no-such-type", DomainMismatch, "not a dtype"),
        (1.5, np.int64, InvalidValue, "1.5 is not an integer"),
        (np.nan, np.int64, InvalidValue, "nan is not an integer"),
        (2**70, None, DomainMismatch, "values has dtype object"),
    ],
)
def test_values_a_dtype_cannot_hold(
    backend: str, values: Any, dtype: Any, error: type, match: str
) -> None:
    rows, cols = _array(backend, [0, 1]), _array(backend, [1, 0])
    vals = values if np.isscalar(values) else np.asarray(values)
    inputs = (rows, cols) if np.isscalar(values) else (rows, cols, vals)
    _builds_raise(error, match, rows, cols, vals, *inputs, dtype=dtype, backend=backend)


def test_casts_that_keep_the_values_pass(backend: str) -> None:
    M = hb.Matrix.from_coo([0, 1], [1, 0], [2.0, -3.0], dtype=np.int8, backend=backend)
    assert M.dtype == np.int8 and M.to_coo()[2].tolist() == [2, -3]
    v = hb.Vector.from_coo([0, 1], [0.1, 2.0], dtype=np.float32, backend=backend)  # rounding
    assert v.dtype == np.float32 and v.to_coo()[1].tolist() == [np.float32(0.1), 2.0]
    b = hb.Vector.from_coo([0, 1], [0.0, 2.5], dtype=bool, backend=backend)  # nonzero is True
    assert b.to_coo()[1].tolist() == [False, True]
    big = hb.Vector.from_coo([0], [2**64 - 1], dtype=np.uint64, backend=backend)
    assert big.to_coo()[1].tolist() == [2**64 - 1]
    nan = hb.Vector.from_coo([0], [np.nan], backend=backend)  # NaN is a float value
    assert np.isnan(nan.get(0))


def test_python_ints_are_converted_exactly(backend: str) -> None:
    """Python ints NumPy would take as float64 (some beyond int64) go into an integer dtype
    exactly, each from its own value."""
    for values, dtype in (
        ([2**63 + 1, 1], np.uint64),
        ([2**64 - 3, 1], np.uint64),
        ((2**64 - 1, 2.0, True), np.uint64),  # a whole float and a bool among them
        ([2**63 + 1, np.uint64(2**64 - 2)], np.uint64),
        ([2**63 - 1, 2**53 + 1, -(2**63)], np.int64),  # NumPy's int64 already: unchanged
    ):
        given = list(values)
        indices = list(range(len(values)))
        v = hb.Vector.from_coo(indices, values, dtype=dtype, backend=backend)
        M = hb.Matrix.from_coo(indices, indices, values, dtype=dtype, backend=backend)
        assert v.dtype == M.dtype == dtype
        assert v.to_coo()[1].tolist() == M.to_coo()[2].tolist() == [int(x) for x in given]
        assert list(values) == given
    # a float dtype rounds them, as it rounds any value
    assert hb.Vector.from_coo([0, 1], [2**63 + 1, 1], backend=backend).dtype == np.float64


@pytest.mark.parametrize(
    ("values", "dtype", "error", "match"),
    [
        ([2**63 + 1, -1], np.uint64, InvalidValue, r"-1, outside the range \[0, 1844"),
        ([2**63 + 1, 1], np.int64, InvalidValue, "9223372036854775809, outside the range"),
        ([2**63 + 1, 2.5], np.uint64, InvalidValue, r"values\[1\] = 2.5 is not an integer"),
        ([2**63 + 1, np.nan], np.uint64, InvalidValue, r"values\[1\] = nan is not an integer"),
        ([2**64 - 1, 1], np.uint32, InvalidValue, "18446744073709551615, outside the range"),
        ([1, 2**64], np.uint64, DomainMismatch, r"values\[1\] = 18446744073709551616 is an int"),
        ([2**70, 1], np.float64, DomainMismatch, "an int beyond 64 bits"),
        ([2**70, 1], None, DomainMismatch, "an int beyond 64 bits"),
    ],
)
def test_python_ints_a_dtype_cannot_hold(
    backend: str, values: list, dtype: Any, error: type, match: str
) -> None:
    given = list(values)
    rows = _array(backend, [0, 1])
    _builds_raise(error, match, rows, rows, values, rows, dtype=dtype, backend=backend)
    assert values == given


def _stored(backend: str, value: Any, form: str) -> hb.Matrix | hb.Vector:
    """One stored ``value`` in a matrix, a sparse vector or a bitmap vector."""
    if form == "matrix":
        return hb.Matrix.from_coo([0], [1], [value], nrows=2, ncols=2, backend=backend)
    vector = hb.Vector.from_coo([1], [value], size=2 if form == "bitmap" else 64, backend=backend)
    assert vector.format == ("bitmap" if form == "bitmap" else "sparse")
    return vector


@pytest.mark.parametrize("form", ["matrix", "sparse", "bitmap"])
@pytest.mark.parametrize(
    ("value", "dtype", "match"),
    [
        (1000.0, np.int8, r"dup\(dtype=int8\): values holds 1000.0, outside the range"),
        (300, np.uint8, r"holds 300, outside the range \[0, 255\] of uint8"),
        (np.nan, np.int64, r"values\[.\] = nan is not an integer; int64 cannot hold it"),
        (-1, np.uint8, "holds -1, outside the range"),
        (2**63, np.int64, "holds 9223372036854775808, outside the range"),
        (1e39, np.float32, r"= 1e\+39 overflows float32"),
        (1.5, np.int32, "= 1.5 is not an integer"),  # as from_coo: no truncation
    ],
)
def test_dup_to_a_dtype_that_cannot_hold_a_value(
    backend: str, form: str, value: Any, dtype: type, match: str
) -> None:
    x = _stored(backend, value, form)
    raises_unchanged(InvalidValue, match, lambda: x.dup(dtype), x)  # NaN equal to NaN
    with pytest.raises(InvalidValue, match="outside the range|not an integer|overflows"):
        hb.Vector.from_coo([0], [value], dtype=dtype, backend=backend)  # the same rule


@pytest.mark.parametrize("form", ["matrix", "sparse", "bitmap"])
def test_dup_to_a_dtype_that_holds_the_values(backend: str, form: str) -> None:
    for value, dtype, expected in (
        (2.0, np.int8, 2),
        (1.5, bool, True),
        (0.0, bool, False),
        (np.nan, bool, True),  # nonzero is True
        (0.1, np.float32, np.float32(0.1)),  # float rounding
        (-(2**63), np.float64, -(2.0**63)),
        (255, np.uint8, 255),
    ):
        x = _stored(backend, value, form)
        y = x.dup(dtype)
        assert y.dtype == dtype and y.to_coo()[-1].tolist() == [expected]
        assert y.to_coo()[0].tolist() == x.to_coo()[0].tolist()
    # the absent positions of a bitmap are no values: a placeholder 1000.0 is not checked
    holes = hb.Vector.from_dense(np.array([1000.0, 3.0]), missing_value=1000.0, backend=backend)
    assert holes.format == "bitmap" and holes.dup(np.int8).to_dense(fill_value=0).tolist() == [0, 3]


@pytest.mark.parametrize(
    ("value", "dtype", "error", "match"),
    [
        (1.5, np.int64, InvalidValue, "value.* = 1.5 is not an integer"),
        (np.nan, np.int64, InvalidValue, "nan is not an integer"),
        (300, np.int8, InvalidValue, "300, outside the range"),
        (1e300, np.float32, InvalidValue, "overflows float32"),
        ("x", None, DomainMismatch, "value has dtype"),
        (None, None, DomainMismatch, "value has dtype object"),
        (1, "no-such-type", DomainMismatch, "not a dtype"),
    ],
)
def test_from_scalar_values_a_dtype_cannot_hold(
    backend: str, value: Any, dtype: Any, error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        hb.Vector.from_scalar(value, 3, dtype=dtype, backend=backend)


def test_from_scipy_values_and_types() -> None:
    S = sp.csr_array(np.array([[1.5, 0.0], [0.0, 2.0]]))
    _raises_unchanged(InvalidValue, lambda: hb.Matrix.from_scipy(S, dtype=np.int64), S, match="1.5")
    C = sp.csr_array(np.array([[1 + 2j, 0.0]]))
    _raises_unchanged(DomainMismatch, lambda: hb.Matrix.from_scipy(C), C, match="complex128")
    with pytest.raises(InvalidObject, match="expected a scipy.sparse matrix"):
        hb.Matrix.from_scipy(np.eye(2))
    one_d = sp.coo_array((np.array([1.0]), (np.array([3]),)), shape=(5,))
    with pytest.raises(InvalidObject, match="two-dimensional"):
        hb.Matrix.from_scipy(one_d)


def test_from_scipy_malformed_matrix() -> None:
    # a column index beyond ncols: scipy builds it without a full check
    bad = sp.csr_array((np.array([1.0]), np.array([7]), np.array([0, 1])), shape=(1, 3), copy=False)
    _raises_unchanged(
        InvalidValue, lambda: hb.Matrix.from_scipy(bad), bad, match="not a well-formed"
    )


# --- indices ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "error", "match"),
    [
        ([0, -1], IndexOutOfBounds, r"rows holds index -1, outside \[0, 3\)"),
        ([0, 3], IndexOutOfBounds, r"rows holds index 3, outside \[0, 3\)"),
        ([0.0, 0.5], InvalidObject, "rows must hold integers"),
        ([0.0, np.nan], InvalidObject, "rows must hold integers"),
        ([0.0, np.inf], InvalidObject, "rows must hold integers"),
        ([True, False], InvalidObject, "rows must hold integers, got dtype bool"),
        (["0", "1"], InvalidObject, "rows must hold integers"),
        (np.array([0, 2**63], dtype=np.uint64), IndexOutOfBounds, "9223372036854775808"),
        ([0.0, 1e19], IndexOutOfBounds, "1e\\+19, beyond int64"),
        ([0, 2**70], InvalidObject, "rows must"),
        ([[0], [1, 2]], InvalidObject, "rows must"),
    ],
)
def test_bad_indices(backend: str, rows: Any, error: type, match: str) -> None:
    cols, vals = _array(backend, [0, 1]), _array(backend, [1.0, 2.0])
    given = rows if isinstance(rows, np.ndarray) else None
    inputs = (cols, vals) if given is None else (cols, vals, given)
    _raises_unchanged(
        error,
        lambda: hb.Matrix.from_coo(rows, cols, vals, nrows=3, ncols=3, backend=backend),
        *inputs,
        match=match,
    )
    vmatch = match.replace("rows", "indices").replace(r"\[0, 3\)", r"\[0, 3\)")
    _raises_unchanged(
        error,
        lambda: hb.Vector.from_coo(rows, vals, size=3, backend=backend),
        *inputs,
        match=vmatch,
    )


def test_whole_float_indices_are_integers(backend: str) -> None:
    M = hb.Matrix.from_coo([0.0, 2.0], [1.0, 0.0], [5, 6], backend=backend)
    assert M.shape == (3, 2) and M.to_coo()[0].tolist() == [0, 2]


def test_vector_get_needs_an_integer_index(backend: str) -> None:
    v = hb.Vector.from_coo([1], [2.0], size=3, backend=backend)
    with pytest.raises(InvalidObject, match="index must be an integer, got 1.5"):
        v.get(1.5)
    with pytest.raises(InvalidObject, match="index must be an integer"):
        v.get("1")
    with pytest.raises(IndexOutOfBounds, match="index 3 outside a vector of size 3"):
        v.get(3)
    assert v.get(np.int64(1)) == 2.0 and v.get(-2) == 2.0


def test_bad_dup_op(backend: str) -> None:
    rows = _array(backend, [0, 0])
    _raises_unchanged(
        InvalidObject,
        lambda: hb.Matrix.from_coo(rows, rows, dup_op="plus", backend=backend),
        rows,
        match="dup_op must be a BinaryOp",
    )
    with pytest.raises(InvalidObject, match="dup_op must be a BinaryOp"):
        hb.Vector.from_coo([0, 0], dup_op=max, backend=backend)


@pytest.mark.parametrize(
    ("values", "dup_op", "match"),
    [
        ([4.5, 3.5], "bor", "dup_op binary.bor does not serve float64"),
        ([4.5, 3.5], "band", "dup_op binary.band does not serve float64"),
        ([4.5, 3.5], "bxor", "does not serve float64"),
        ([True, False], "bor", "does not serve bool"),
        ([4, 3], "div", r"dup_op binary.div does not serve int64.*\(it serves float32, float64\)"),
        ([True, True], "minus", "does not serve bool"),
        ([1.5, 2.5], "lt", "dup_op binary.lt takes float64 and gives bool"),
        ([4, 3], "eq", "takes int64 and gives bool"),
        ([1.5, 2.5], "lor", "dup_op binary.lor takes bool and gives bool, but the values"),
    ],
)
@pytest.mark.parametrize("rows", [[0, 0], [0, 1]], ids=["repeated", "distinct"])
def test_a_dup_op_that_does_not_serve_the_dtype(
    backend: str, values: list, dup_op: str, match: str, rows: list
) -> None:
    """A dup_op must take and give the values' dtype: DomainMismatch before any work, even
    without repeats (binary.div on integers no longer truncates to 1)."""
    op = hb.binary[dup_op]
    r, v = _array(backend, rows), _array(backend, values)
    _builds_raise(DomainMismatch, match, r, r, v, r, v, dup_op=op, backend=backend)
    # typed for another dtype than the values'
    with pytest.raises(DomainMismatch, match=r"binary.plus\[float32\] takes float32.* are float64"):
        hb.Vector.from_coo([0, 0], [1.0, 2.0], dup_op=hb.binary.plus[np.float32], backend=backend)


def test_dup_ops_that_serve_the_dtype(backend: str) -> None:
    def built(values: list, op: str, dtype: Any = None) -> list:
        return (
            hb.Vector.from_coo([0, 0], values, dtype=dtype, dup_op=hb.binary[op], backend=backend)
            .to_coo()[1]
            .tolist()
        )

    assert built([6, 3], "bor") == [7] and built([6, 3], "band", np.uint8) == [2]
    assert built([4.0, 2.0], "div") == [2.0] and built([4.0, 1.0], "minus") == [3.0]
    assert built([True, False], "lor") == [True] and built([True, False], "lt") == [False]
    assert built([2, 5], "max", np.int8) == [5] and built([1.5, 2.5], "first") == [1.5]
    typed = hb.Vector.from_coo(
        [0, 0], [1.0, 2.0], dtype=np.float32, dup_op=hb.binary.plus[np.float32], backend=backend
    )
    assert typed.dtype == np.float32 and typed.to_coo()[1].tolist() == [3.0]


def test_out_of_memory_while_combining_repeats(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A MemoryError in the reduction of repeated entries is an OutOfMemory naming the
    build, for a Vector as for a Matrix."""

    def no_memory(*args: Any, **kwargs: Any) -> Any:
        raise MemoryError("no memory left for the reduction")

    monkeypatch.setattr(prim, "segment_reduce", no_memory)
    many = np.zeros(FEW, dtype=np.int64)  # more than the host path takes: built on `backend`
    vals = np.arange(FEW, dtype=np.float64)
    with pytest.raises(OutOfMemory, match=f"building a Vector of size 1 from {FEW} entries"):
        hb.Vector.from_coo(many, vals, dup_op=hb.binary.plus, backend=backend)
    with pytest.raises(OutOfMemory, match=f"building a 1x1 Matrix of {FEW} entries"):
        hb.Matrix.from_coo(many, many, vals, dup_op=hb.binary.plus, backend=backend)


# --- duplicates -------------------------------------------------------------------------------


def test_duplicates_name_the_entry_and_leave_the_input(backend: str) -> None:
    rows, cols = _array(backend, [2, 0, 2, 2]), _array(backend, [1, 0, 1, 1])
    vals = _array(backend, [1.0, 2.0, 3.0, 4.0])
    _raises_unchanged(
        InvalidValue,
        lambda: hb.Matrix.from_coo(rows, cols, vals, backend=backend),
        rows,
        cols,
        vals,
        match=r"duplicate entry at \(row 2, col 1\) and 2 duplicates in all",
    )
    M = hb.Matrix.from_coo(rows, cols, vals, dup_op=hb.binary.second, backend=backend)
    assert M.to_coo()[2].tolist() == [2.0, 4.0]  # the last given wins: ties keep their order
    _raises_unchanged(
        InvalidValue,
        lambda: hb.Vector.from_coo(rows, vals, backend=backend),
        rows,
        vals,
        match="duplicate index 2",
    )


# --- NaN, inf, missing and fill values ----------------------------------------------------------


def test_missing_value_nan_drops_the_nans(backend: str) -> None:
    arr = np.array([[1.0, np.nan], [np.inf, 0.0]])
    M = hb.Matrix.from_dense(arr, missing_value=np.nan, backend=backend)
    assert M.nnz == 3 and M.to_dense(-1.0).tolist() == [[1.0, -1.0], [np.inf, 0.0]]
    v = hb.Vector.from_dense(arr[0], missing_value=float("nan"), backend=backend)
    assert v.to_coo()[0].tolist() == [0]
    ints = hb.Vector.from_dense(np.array([1, 2]), missing_value=np.nan, backend=backend)
    assert ints.nnz == 2  # no int is NaN
    kept = hb.Vector.from_dense(arr[0], backend=backend)  # NaN is a value like any other
    assert kept.nnz == 2 and np.isnan(kept.get(1))


@pytest.mark.parametrize("bad", ["x", [0], None, 2**70, 1j])
def test_missing_and_fill_values_must_be_numbers(backend: str, bad: Any) -> None:
    arr = np.array([[1.0, 0.0]])
    if bad is not None:  # None means no missing value
        _raises_unchanged(
            InvalidObject,
            lambda: hb.Matrix.from_dense(arr, missing_value=bad, backend=backend),
            arr,
            match="missing_value must be a number or a bool",
        )
        with pytest.raises(InvalidObject, match="missing_value"):
            hb.Vector.from_dense(arr[0], missing_value=bad, backend=backend)
    M = hb.Matrix.from_dense(arr, backend=backend)
    with pytest.raises(InvalidObject, match="fill_value must be a number or a bool"):
        M.to_dense(fill_value=bad)
    if bad is not None:  # a Vector's None fill means "raise if absent"
        v = hb.Vector.from_coo([0], [1.0], size=2, backend=backend)
        with pytest.raises(InvalidObject, match="fill_value"):
            v.to_dense(fill_value=bad)


def _one_entry(backend: str, value: Any, dtype: Any, kind: str) -> hb.Matrix | hb.Vector:
    """One stored ``value`` of ``dtype`` and an absent entry, in a matrix or a vector."""
    if kind == "matrix":
        return hb.Matrix.from_coo([0], [0], [value], nrows=1, ncols=2, dtype=dtype, backend=backend)
    return hb.Vector.from_coo([0], [value], size=2, dtype=dtype, backend=backend)


@pytest.mark.parametrize("kind", ["matrix", "vector"])
@pytest.mark.parametrize(
    ("value", "dtype", "fill", "expected"),
    [
        # the container's dtype holds the fill
        (True, bool, False, np.bool_),
        (3, np.int8, 0, np.int8),  # was int16
        (3, np.int8, -128, np.int8),
        (3, np.uint64, 2**64 - 1, np.uint64),
        (1.5, np.float32, 0.1, np.float32),  # a float fill rounds in a float container
        (1.5, np.float32, -1, np.float32),
        (1.5, np.float32, np.nan, np.float32),
        (1.5, np.float32, True, np.float32),
        # the type of both: never float16 for a Python float
        (True, bool, 1e-8, np.float64),
        (True, bool, 0, np.uint8),
        (3, np.int8, 0.5, np.float64),
        (3, np.uint8, 1e-8, np.float64),
        (3, np.uint8, -1, np.int16),
        (3, np.int16, np.float32(0.5), np.float32),
        (3, np.int64, np.nan, np.float64),
        (2**53, np.int64, -0.5, np.float64),  # a stored value float64 holds exactly
        (5, np.int64, 2**63, np.float64),
        (1.5, np.float32, 1e300, np.float64),
    ],
)
def test_to_dense_dtype_keeps_every_value(
    backend: str, kind: str, value: Any, dtype: Any, fill: Any, expected: type
) -> None:
    x = _one_entry(backend, value, dtype, kind)
    dense = x.to_dense(fill_value=fill).ravel()
    assert dense.dtype == expected
    assert dense[0] == value and dense[0].item() == x.to_coo()[-1][0].item()
    assert (np.isnan(dense[1]) and np.isnan(fill)) or dense[1] == expected(fill)


@pytest.mark.parametrize("kind", ["matrix", "vector"])
@pytest.mark.parametrize(
    ("value", "dtype", "fill", "match"),
    [
        (2**62 + 1, np.uint64, -1, "float64 .* would change the stored value 4611686018427387905"),
        (2**62 + 1, np.int64, np.nan, r"fill_value=nan\): int64 cannot hold the fill"),
        (2**63 - 1, np.int64, 0.5, "would change the stored value 9223372036854775807"),
        (2**64 - 1, np.uint64, -1, "would change the stored value 18446744073709551615"),
        (5, np.int64, 2**64 - 1, "nor can float64 .* hold it exactly"),
    ],
)
def test_to_dense_refuses_a_fill_that_would_change_a_value(
    backend: str, kind: str, value: Any, dtype: Any, fill: Any, match: str
) -> None:
    x = _one_entry(backend, value, dtype, kind)
    raises_unchanged(InvalidValue, match, lambda: x.to_dense(fill_value=fill), x)
    assert x.to_dense(fill_value=0).ravel().tolist() == [value, 0]  # a fill it holds


def test_to_dense_dtype_does_not_depend_on_what_is_absent(backend: str) -> None:
    """The dtype follows the container's and the fill's, whether or not an entry is absent;
    a full vector needs no fill (None keeps its dtype)."""
    full = hb.Vector.from_coo([0, 1], [2**40 + 1, 1], dtype=np.uint64, backend=backend)
    assert full.to_dense(fill_value=-1).dtype == np.float64
    assert full.to_dense(fill_value=-1).tolist() == [2**40 + 1, 1]
    big = hb.Vector.from_coo([0, 1], [2**62 + 1, 1], dtype=np.uint64, backend=backend)
    raises_unchanged(InvalidValue, "4611686018427387905", lambda: big.to_dense(-1), big)
    assert big.to_dense().dtype == np.uint64 and big.to_dense().tolist() == [2**62 + 1, 1]


def test_dense_arrays_of_other_types(backend: str) -> None:
    words = np.array([["a", "b"]])
    _raises_unchanged(
        DomainMismatch, lambda: hb.Matrix.from_dense(words, backend=backend), words, match="array"
    )
    with pytest.raises(DomainMismatch, match="array"):
        hb.Vector.from_dense(np.array([1 + 1j]), backend=backend)
    with pytest.raises(InvalidObject, match="array must be"):
        hb.Matrix.from_dense([[0], [1, 2]], backend=backend)


@pytest.mark.parametrize(
    ("tolerances", "error", "match"),
    [
        ({"rel_tol": "x"}, InvalidObject, "rel_tol must be a real number, got 'x'"),
        ({"abs_tol": None}, InvalidObject, "abs_tol must be a real number, got None"),
        ({"rel_tol": True}, InvalidObject, "rel_tol must be a real number"),
        ({"abs_tol": [0.1]}, InvalidObject, "abs_tol must be a real number"),
        ({"abs_tol": 1j}, InvalidObject, "abs_tol must be a real number"),
        ({"rel_tol": -1e-9}, InvalidValue, "rel_tol must be finite and >= 0, got -1e-09"),
        ({"abs_tol": np.float32(-1)}, InvalidValue, "abs_tol must be finite and >= 0"),
        ({"rel_tol": np.nan}, InvalidValue, "rel_tol must be finite and >= 0, got nan"),
        ({"abs_tol": np.inf}, InvalidValue, "abs_tol must be finite and >= 0, got inf"),
        ({"abs_tol": 10**400}, InvalidValue, "abs_tol must be finite"),
    ],
)
def test_isclose_bad_tolerances(backend: str, tolerances: dict, error: type, match: str) -> None:
    A = hb.Matrix.from_coo([0, 1], [1, 0], [1.0, np.nan], backend=backend)
    v = hb.Vector.from_coo([0, 3], [1.0, 2.0], size=4, backend=backend)
    raises_unchanged(error, match, lambda: A.isclose(A.dup(), **tolerances), A)
    raises_unchanged(error, match, lambda: v.isclose(v.dup(), **tolerances), v)


def test_isclose_good_tolerances(backend: str) -> None:
    A = hb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], backend=backend)
    B = hb.Matrix.from_coo([0, 1], [1, 0], [1.5, 2.0], backend=backend)
    assert not A.isclose(B) and A.isclose(B, abs_tol=0.5) and A.isclose(B, rel_tol=1e300)
    assert A.isclose(B, abs_tol=1) and A.isclose(B, abs_tol=np.int8(1), rel_tol=0)
    u, w = (hb.Vector.from_coo([1], [x], size=3, backend=backend) for x in (1.0, 1.1))
    assert not u.isclose(w) and u.isclose(w, rel_tol=np.float32(0.2)) and u.isclose(w, abs_tol=0.2)


# --- empty and 0-size -------------------------------------------------------------------------


def test_empty_and_zero_size(backend: str) -> None:
    E = hb.Matrix.from_coo([], [], backend=backend)
    assert E.shape == (0, 0) and E.nnz == 0 and E.to_dense().shape == (0, 0)
    Z = hb.Matrix.from_coo([], [], [], nrows=2, ncols=0, dtype=np.int8, backend=backend)
    assert Z.shape == (2, 0) and Z.dtype == np.int8 and Z.T.shape == (0, 2)
    assert Z.to_scipy().shape == (2, 0) and Z.isequal(Z.T.T)
    assert hb.Matrix.from_dense(np.zeros((0, 3)), backend=backend).shape == (0, 3)
    assert hb.Vector.from_dense(np.zeros(0), backend=backend).size == 0
    assert hb.Vector.from_scalar(1.5, 0, backend=backend).nnz == 0
    assert hb.Vector.from_coo([], size=4, backend=backend).nnz == 0
    assert hb.Matrix.from_scipy(sp.csr_array((0, 5)), backend=backend).shape == (0, 5)


# --- the caller's objects are never changed, nor shared ------------------------------------


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_from_scipy_leaves_the_callers_matrix(backend: str, fmt: str) -> None:
    #   three entries in one line, out of order, two of them repeated (summed: 5)
    data, line, other = np.array([1.0, 2.0, 3.0]), np.array([2, 0, 0]), np.array([0, 0, 0])
    if fmt == "coo":
        S = sp.coo_array((data, (other, line)), shape=(2, 3))
    elif fmt == "csr":
        S = sp.csr_array((data, line, np.array([0, 3, 3])), shape=(2, 3))
    else:
        S = sp.csc_array((data, line, np.array([0, 3, 3])), shape=(3, 2))
    expected = S.copy().toarray()
    before = _snapshot(S)
    M = hb.Matrix.from_scipy(S, backend=backend)
    assert _unchanged(S, before) and S.nnz == 3
    assert M.to_dense(0).tolist() == expected.tolist() and M.nnz == 2
    S.data[...] = -7.0  # the matrix holds its own copy
    assert M.to_dense(0).tolist() == expected.tolist()


def test_from_cupyx_leaves_the_callers_matrix(cuda_usable: bool) -> None:
    if not cuda_usable:
        pytest.skip("cupyx matrices need the 'cuda' backend")
    import cupyx.scipy.sparse as cusparse  # noqa: PLC0415

    cp = xp_for("cuda")
    #   three entries in row 0, out of order, two of them repeated (summed: 5)
    data = cp.asarray([1.0, 2.0, 3.0])
    rows, cols = cp.asarray([0, 0, 0], dtype=cp.int32), cp.asarray([2, 0, 0], dtype=cp.int32)
    coo = cusparse.coo_matrix((data, (rows, cols)), shape=(2, 3))
    indptr = cp.asarray([0, 3, 3], dtype=cp.int32)
    csr = cusparse.csr_matrix((data.copy(), cols.copy(), indptr), shape=(2, 3))
    for S in (coo, csr):
        kept = {
            name: getattr(S, name).copy()
            for name in ("data", "row", "col", "indices", "indptr")
            if hasattr(S, name)
        }
        nnz = S.nnz
        M = hb.Matrix.from_cupyx(S)
        assert M.to_dense(0).tolist() == [[5.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
        assert S.nnz == nnz
        for name, array in kept.items():
            assert cp.array_equal(getattr(S, name), array), name
        S.data[...] = -7.0
        assert M.to_dense(0).tolist() == [[5.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    with pytest.raises(InvalidValue, match="1.5"):
        hb.Matrix.from_cupyx(cusparse.csr_matrix(cp.asarray([[1.5, 0.0]])), dtype=np.int64)


def test_built_containers_own_their_arrays_both_ways(backend: str) -> None:
    """The caller's arrays (already in order and of the stored dtypes: nothing to convert)
    are neither written by hyblas nor seen through afterwards."""
    xp = xp_for(backend)
    rows, cols = xp.asarray([0, 1, 2], dtype=np.int64), xp.asarray([0, 1, 2], dtype=np.int64)
    vals = xp.asarray([1.0, 2.0, 3.0])
    dense = xp.asarray([[1.0, 0.0], [0.0, 2.0]])
    line = xp.asarray([1.0, 0.0, 3.0])
    inputs = (rows, cols, vals, dense, line)
    before = [_snapshot(a) for a in inputs]
    A = hb.Matrix.from_coo(rows, cols, vals, backend=backend)
    D = hb.Matrix.from_dense(dense, backend=backend)
    u = hb.Vector.from_coo(rows, vals, backend=backend)
    w = hb.Vector.from_dense(line, backend=backend)
    z = hb.Vector.from_dense(line, missing_value=0, backend=backend)
    # hyblas writing into the containers does not reach the caller's arrays
    hb.ops.apply(A, hb.binary.times, right=10.0, out=A)
    hb.ops.assign(D, 9.0, [0, 1], [0, 1])
    hb.ops.apply(u, hb.unary.ainv, out=u)
    hb.ops.assign(w, 5.0, None)
    hb.ops.apply(z, hb.unary.ainv, out=z)
    for array, copy in zip(inputs, before):
        assert _unchanged(array, copy)
    # nor does the caller writing into its arrays reach the containers
    for array in inputs:
        array[...] = -1
    assert A.to_coo()[2].tolist() == [10.0, 20.0, 30.0]
    assert D.to_dense().tolist() == [[9.0, 9.0], [9.0, 9.0]]
    assert u.to_coo()[1].tolist() == [-1.0, -2.0, -3.0]
    assert w.to_dense().tolist() == [5.0, 5.0, 5.0]
    assert z.to_coo()[1].tolist() == [-1.0, -3.0]


@pytest.mark.parametrize("form", ["matrix", "sparse", "bitmap"])
def test_conversions_hand_out_arrays_of_their_own(backend: str, form: str) -> None:
    """Writing into what to_coo, to_dense, to_scipy (and to_coo(device=True)) return does
    not change the container (issue: a sparse Vector's to_coo gave its own indices and
    values, a Matrix's to_coo its own values)."""
    if form == "matrix":
        x = hb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], nrows=2, ncols=3, backend=backend)
    else:
        x = hb.Vector.from_coo([0, 50], [1.0, 2.0], size=100 if form == "sparse" else 51)
        x = x.to_backend(backend)
        assert x.format == form
    before = snapshot(x)
    handed = [*x.to_coo(), x.to_dense(fill_value=0.0)]
    if form == "matrix":
        S = x.to_scipy()
        handed += [S.data, S.indices, S.indptr]
    else:
        handed += [xp_for(backend).asarray(a) for a in x.to_coo(device=True)]
    for array in handed:
        array[...] = 77
    assert snapshot(x) == before


def test_read_only_input_arrays(backend: str) -> None:
    rows, vals = np.array([1, 0]), np.array([2.0, 1.0])
    rows.flags.writeable = vals.flags.writeable = False
    M = hb.Matrix.from_coo(rows, rows, vals, backend=backend)
    v = hb.Vector.from_coo(rows, vals, backend=backend)
    hb.ops.apply(M, hb.unary.ainv, out=M)
    hb.ops.apply(v, hb.unary.ainv, out=v)
    assert M.to_coo()[2].tolist() == [-1.0, -2.0] and v.to_coo()[1].tolist() == [-1.0, -2.0]
    assert rows.tolist() == [1, 0] and vals.tolist() == [2.0, 1.0]


# --- shapes whose linear keys overflow int64 ------------------------------------------------


def test_a_wide_matrix_is_built_right(backend: str) -> None:
    # issue 42: row * ncols + col overflowed, giving one row id for two entries, values swapped
    A = hb.Matrix.from_coo([0, 2], [1, 1], [1.0, 2.0], nrows=3, ncols=WIDE, backend=backend)
    rows, cols, vals = A.to_coo()
    assert rows.tolist() == [0, 2] and cols.tolist() == [1, 1] and vals.tolist() == [1.0, 2.0]
    # unsorted, repeated, at the last column: combined in the order given
    B = hb.Matrix.from_coo(
        [2, 0, 2, 0, 2],
        [WIDE - 1, 5, 3, WIDE - 1, WIDE - 1],
        [1.0, 2.0, 3.0, 4.0, 5.0],
        nrows=3,
        ncols=WIDE,
        dup_op=hb.binary.minus,
        backend=backend,
    )
    rows, cols, vals = B.to_coo()
    assert rows.tolist() == [0, 0, 2, 2]
    assert cols.tolist() == [5, WIDE - 1, 3, WIDE - 1]
    assert vals.tolist() == [2.0, 4.0, 3.0, -4.0]  # 1 - 5
    S = B.to_scipy()
    assert S.shape == (3, WIDE) and S.nnz == 4 and S.indices.tolist() == [5, WIDE - 1, 3, WIDE - 1]
    assert hb.Matrix.from_scipy(S, backend=backend).isequal(B, check_dtype=True)
    assert B.isequal(B.dup()) and not B.isequal(A) and B.isclose(B.dup())
    assert "(2,4611686018427387903): -4.0" in repr(B)


def test_a_wide_duplicate_is_named(backend: str) -> None:
    rows, cols = np.array([2, 0, 2]), np.array([WIDE - 1, 0, WIDE - 1])
    _raises_unchanged(
        InvalidValue,
        lambda: hb.Matrix.from_coo(rows, cols, nrows=3, ncols=WIDE, backend=backend),
        rows,
        cols,
        match=rf"duplicate entry at \(row 2, col {WIDE - 1}\)",
    )


def test_the_transpose_of_a_wide_matrix_does_not_fit(backend: str) -> None:
    A = hb.Matrix.from_coo([0, 2], [1, 1], [1.0, 2.0], nrows=3, ncols=WIDE, backend=backend)
    _raises_unchanged(OutOfMemory, lambda: A.T, A, match=f"the {WIDE + 1} row pointers")
    assert A.transpose_at_hand() is None
    # listing every column is as impossible: refused before asking (CuPy would miscount it)
    _raises_unchanged(
        OutOfMemory, lambda: hb.ops.extract(A, [0], None), A, match=f"the {WIDE} positions cols"
    )


def test_transposing_by_pairs_where_keys_overflow() -> None:
    """The transpose of a matrix of 2**32 rows and columns sorts by column, not by key."""
    n = 2**32
    indptr = np.array([0, 2, 3, 3])  # rows 0..2 of an n x n matrix: (0,n-1) (0,5) (1,5)
    indices, values = np.array([5, n - 1, 5]), np.array([1.0, 2.0, 3.0])
    with pytest.raises(DimensionMismatch, match="4294967296x4294967296"):
        prim.csr_keys(np, indptr, indices, n, n)
    rows = prim.row_ids(np, indptr, 3)
    cols_t, rows_t, values_t = prim.sort_by_keys(np, indices, rows, values)
    assert cols_t.tolist() == [5, 5, n - 1] and rows_t.tolist() == [0, 1, 0]
    assert values_t.tolist() == [1.0, 3.0, 2.0]
    major, minor, payload = prim.sort_by_pairs(
        np, np.array([1, 0, 1, 0]), np.array([n, n + 1, 0, n]), np.array([0, 1, 2, 3])
    )
    assert major.tolist() == [0, 0, 1, 1] and minor.tolist() == [n, n + 1, 0, n]
    assert payload.tolist() == [3, 1, 2, 0]


def _wide_operations() -> dict[str, Callable[[hb.Matrix, hb.Matrix], Any]]:
    return {
        "ewise_add": lambda A, out: hb.ops.ewise_add(A, A, hb.binary.plus, out=out),
        "ewise_mult": lambda A, out: hb.ops.ewise_mult(A, A, hb.binary.times, out=out),
        "apply": lambda A, out: hb.ops.apply(A, hb.unary.ainv, out=out),
        "select": lambda A, out: hb.ops.select(A, "valuegt", 1.5, out=out),
        "apply with a mask": lambda A, out: hb.ops.apply(A, hb.unary.ainv, mask=A.S, out=out),
        "assign": lambda A, out: hb.ops.assign(out, 5.0, [0], [1]),
    }


@pytest.mark.parametrize("name", list(_wide_operations()))
def test_operations_needing_keys_of_a_wide_matrix_raise(backend: str, name: str) -> None:
    A = hb.Matrix.from_coo([0, 2], [1, WIDE - 1], [1.0, 2.0], nrows=3, ncols=WIDE, backend=backend)
    out = hb.Matrix.from_coo([1], [7], [9.0], nrows=3, ncols=WIDE, backend=backend)
    _raises_unchanged(
        DimensionMismatch,
        lambda: _wide_operations()[name](A, out),
        A,
        out,
        match=f"a 3x{WIDE} matrix has {3 * WIDE} positions",
    )


def test_operations_without_keys_on_a_wide_matrix(backend: str) -> None:
    A = hb.Matrix.from_coo([0, 2], [1, WIDE - 1], [1.0, 2.0], nrows=3, ncols=WIDE, backend=backend)
    assert hb.ops.reduce_rows(A, "plus").to_coo()[1].tolist() == [1.0, 2.0]
    assert hb.ops.reduce_scalar(A, "plus") == 3.0
    sub = hb.ops.extract(A, [0, 2], [1, WIDE - 1])
    assert sub.to_dense(0).tolist() == [[1.0, 0.0], [0.0, 2.0]]


def test_keys_at_the_edge_of_int64(backend: str) -> None:
    """2 x 2**62 has exactly 2**63 positions: the largest key is int64's largest value."""
    edge = 2**62
    A = hb.Matrix.from_coo(
        [1, 0, 1], [edge - 1, 0, 0], [1.0, 2.0, 3.0], nrows=2, ncols=edge, backend=backend
    )
    assert A.to_coo()[1].tolist() == [0, 0, edge - 1]
    doubled = hb.ops.apply(A, hb.binary.times, right=2.0)
    assert doubled.to_coo()[2].tolist() == [4.0, 6.0, 2.0]
    assert hb.ops.ewise_add(A, A, hb.binary.plus).isequal(doubled)


# --- allocations too large for memory -----------------------------------------------------------


def test_too_large_for_memory_is_out_of_memory(backend: str) -> None:
    with pytest.raises(OutOfMemory, match=f"empty {HUGE}x3 Matrix") as raised:
        hb.Matrix.new(np.float64, HUGE, 3, backend=backend)
    if backend == "cpu":
        assert raised.value.requested_bytes == 8 * (HUGE + 1)  # int64 row pointers
    assert isinstance(raised.value, MemoryError)
    with pytest.raises(OutOfMemory, match=f"full bitmap of {HUGE} positions"):
        hb.Vector.from_scalar(1.0, HUGE, backend=backend)
    with pytest.raises(OutOfMemory, match=f"{HUGE}x1 Matrix of 1 entries"):
        hb.Matrix.from_coo([0], [0], [1.0], nrows=HUGE, ncols=1, backend=backend)
    # an empty vector is stored sparse: it fits, until something needs every position
    v = hb.Vector.new(np.float64, HUGE, backend=backend)
    assert v.size == HUGE and v.nnz == 0
    with pytest.raises(OutOfMemory, match=f"bitmap of {HUGE} positions"):
        v.to_dense(fill_value=0.0)
    u = hb.Vector.from_coo([3], [1.0], size=HUGE, backend=backend)
    _raises_unchanged(OutOfMemory, lambda: hb.ops.apply(u, hb.unary.ainv, out=u), u, match="bitmap")


def test_a_product_too_large_for_memory(backend: str) -> None:
    A = hb.Matrix.from_coo([0, 2], [1, 7], [1.0, 2.0], nrows=3, ncols=HUGE, backend=backend)
    u = hb.Vector.from_coo([1, 7], [3.0, 4.0], size=HUGE, backend=backend)
    w = hb.Vector.from_coo([1], [5.0], size=3, backend=backend)
    _raises_unchanged(
        OutOfMemory,
        lambda: hb.ops.mxv(A, u, hb.semiring.plus_times, out=w, executor="reference"),
        A,
        u,
        w,
        match=f"bitmap of {HUGE} positions",
    )
