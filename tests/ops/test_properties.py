"""Property tests: every operation against the dense model in ``tests/support/model.py``.

Each test draws COO triplets (``tests/support/strategies.py``) that feed both hyblas and the model,
plus a mask kind, an accumulator, ``replace`` and an existing ``out``, and compares structure
first, then values (exact for bool / ints, ``rtol=1e-5`` for floats). Operators are drawn inside
the tests; ``test_every_semiring_every_dtype`` walks the whole semiring catalogue
deterministically so none is left to chance.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.backend import to_numpy
from hyblas.containers import derived
from hyblas.errors import DomainMismatch
from hyblas.executors.reference import spgemm
from hyblas.ops import indexing, transform
from tests.support import model
from tests.support import strategies as S
from tests.support.checks import (
    SEMIRINGS,
    assert_matches,
    expected_after,
    run_op,
    semiring_and_dtype,
    served,
    values_close,
)

MONOIDS = list(hb.monoid)
# Deterministic binary operators (GrB_ANY may return either operand).
BINARY = [n for n in hb.binary if n != "any"]
UNARY = list(hb.unary)
SELECTS = sorted(model.SELECT_TESTS)


# --- products -----------------------------------------------------------------------------------


@given(data=st.data())
def test_mxv(backend: str, data: st.DataObject) -> None:
    sr, dtype = data.draw(semiring_and_dtype())
    A = data.draw(S.matrices(dtype=dtype))
    u = data.draw(S.vectors(size=A.ncols, dtype=dtype))
    t = model.mxv(model.of(A), model.of(u), sr)
    ctl = data.draw(S.write_controls((A.nrows,), t.dtype, accum=sr.monoid.name != "any"))
    executor = data.draw(st.sampled_from(["auto", "reference"]))
    result = run_op(
        hb.ops.mxv, ctl, backend, A.hyblas(backend), u.hyblas(backend), sr, executor=executor
    )
    assert_matches(result, expected_after(ctl, t))


@given(data=st.data())
def test_vxm(backend: str, data: st.DataObject) -> None:
    sr, dtype = data.draw(semiring_and_dtype())
    A = data.draw(S.matrices(dtype=dtype))
    u = data.draw(S.vectors(size=A.nrows, dtype=dtype))
    t = model.vxm(model.of(u), model.of(A), sr)
    ctl = data.draw(S.write_controls((A.ncols,), t.dtype, accum=sr.monoid.name != "any"))
    result = run_op(hb.ops.vxm, ctl, backend, u.hyblas(backend), A.hyblas(backend), sr.name)
    assert_matches(result, expected_after(ctl, t))


@given(data=st.data())
def test_mxm(backend: str, data: st.DataObject) -> None:
    sr, dtype = data.draw(semiring_and_dtype())
    A = data.draw(S.matrices(dtype=dtype))
    B = data.draw(S.matrices(nrows=A.ncols, dtype=dtype))
    t = model.mxm(model.of(A), model.of(B), sr)
    ctl = data.draw(S.write_controls((A.nrows, B.ncols), t.dtype, accum=sr.monoid.name != "any"))
    result = run_op(hb.ops.mxm, ctl, backend, A.hyblas(backend), B.hyblas(backend), sr)
    assert_matches(result, expected_after(ctl, t))


# Small operands take the single-group saxpy path; these settings push them through the
# others: groups of at most 3 products (the mask's keys made for all of a group's rows at once,
# or a run of a row or two at a time), a row SpMV for every row, the masked dot product for
# every non-complemented mask (its rows in one slice, or a slice per row or two).
_SPGEMM_STRATEGIES = {
    "groups": dict(PRODUCT_BUDGET={"cpu": 3, "cuda": 3}, _dot_cost=lambda *args: 1 << 62),
    "groups-mask-runs": dict(
        PRODUCT_BUDGET={"cpu": 3, "cuda": 3}, _dot_cost=lambda *args: 1 << 62, DOT_SLICE=2
    ),
    "mask-runs": dict(_dot_cost=lambda *args: 1 << 62, DOT_SLICE=2),
    "rows": dict(
        DENSE_ROW_FRACTION=1 << 40,
        DENSE_ROW_MIN={"cpu": 1, "cuda": 1},
        _dot_cost=lambda *args: 1 << 62,
    ),
    "dot": dict(_dot_cost=lambda *args: -1),
    "dot-slices": dict(_dot_cost=lambda *args: -1, DOT_SLICE=2),
}


@pytest.mark.parametrize("strategy", sorted(_SPGEMM_STRATEGIES))
@given(data=st.data())
def test_mxm_strategies(backend: str, strategy: str, data: st.DataObject) -> None:
    sr, dtype = data.draw(semiring_and_dtype())
    A = data.draw(S.matrices(dtype=dtype))
    B = data.draw(S.matrices(nrows=A.ncols, dtype=dtype))
    t = model.mxm(model.of(A), model.of(B), sr)
    ctl = data.draw(S.write_controls((A.nrows, B.ncols), t.dtype, accum=sr.monoid.name != "any"))
    with mock.patch.multiple(spgemm, **_SPGEMM_STRATEGIES[strategy]):
        result = run_op(hb.ops.mxm, ctl, backend, A.hyblas(backend), B.hyblas(backend), sr)
    assert_matches(result, expected_after(ctl, t))


# A fixed operand pair used to walk the whole catalogue:
#
#   A (3x4)            u (4)         B = A.T (4x3)
#       0  1  2  3
#   0 [ 2  .  -1 . ]   [ 3 ]
#   1 [ .  0  .  3 ]   [ . ]
#   2 [ 1  1  .  . ]   [ -2 ]
#                      [ 1 ]
_A = ([0, 0, 1, 1, 2, 2], [0, 2, 1, 3, 0, 1], [2, -1, 0, 3, 1, 1], 3, 4)
_U = ([0, 2, 3], [3, -2, 1], 4)


@pytest.mark.parametrize("name", SEMIRINGS)
@pytest.mark.parametrize("dtype", S.DTYPES, ids=str)
def test_every_semiring_every_dtype(backend: str, name: str, dtype: np.dtype) -> None:
    sr = hb.semiring[name]
    rows, cols, vals, m, n = _A
    A_data = S.MatrixData(m, n, np.array(rows), np.array(cols), np.array(vals).astype(dtype))
    u_data = S.VectorData(n, np.array(_U[0]), np.array(_U[1]).astype(dtype))
    A, u = A_data.hyblas(backend), u_data.hyblas(backend)
    if dtype not in served(sr):
        with pytest.raises(DomainMismatch):
            hb.ops.mxv(A, u, sr)
        with pytest.raises(DomainMismatch):
            hb.ops.mxm(A, A.T, sr)
        return
    mA, mu = model.of(A_data), model.of(u_data)
    assert_matches(hb.ops.mxv(A, u, sr), model.mxv(mA, mu, sr))
    assert_matches(
        hb.ops.vxm(_first3(u_data, backend), A, sr),
        model.vxm(model.of(_first3_data(u_data)), mA, sr),
    )
    assert_matches(hb.ops.mxm(A, A.T, sr), model.mxm(mA, model.transpose(mA), sr))
    # typed lookup gives the same answer as the untyped operator
    assert_matches(hb.ops.mxv(A, u, sr[sr.input_type(dtype, dtype)]), model.mxv(mA, mu, sr))


def _first3_data(u: S.VectorData) -> S.VectorData:
    keep = u.indices < 3
    return S.VectorData(3, u.indices[keep], u.values[keep])


def _first3(u: S.VectorData, backend: str) -> hb.Vector:
    return _first3_data(u).hyblas(backend)


# --- element-wise -------------------------------------------------------------------------------


@st.composite
def binary_and_dtype(draw: Any) -> tuple[Any, Any, np.dtype]:
    """(op argument as passed to hyblas, the BinaryOp it means, dtype)."""
    how = draw(st.sampled_from(["binary", "binary", "binary", "name", "monoid", "semiring"]))
    if how == "monoid":
        mon = hb.monoid[draw(st.sampled_from([m for m in MONOIDS if m != "any"]))]
        return mon, mon.binaryop, draw(st.sampled_from(served(mon)))
    if how == "semiring":
        sr = hb.semiring[draw(st.sampled_from([s for s in SEMIRINGS if not s.startswith("any_")]))]
        op = sr.monoid.binaryop
        return sr, op, draw(st.sampled_from(served(op)))
    op = hb.binary[draw(st.sampled_from(BINARY))]
    return (op.name if how == "name" else op), op, draw(st.sampled_from(served(op)))


@pytest.mark.parametrize("which", ["ewise_add", "ewise_mult"])
@given(data=st.data())
def test_ewise(backend: str, which: str, data: st.DataObject) -> None:
    arg, op, dtype = data.draw(binary_and_dtype())
    x = data.draw(S.vectors(dtype=dtype) | S.matrices(dtype=dtype))
    y = data.draw(S.like(x, dtype=data.draw(st.sampled_from([dtype] * 3 + served(op)))))
    t = getattr(model, which)(model.of(x), model.of(y), op)
    ctl = data.draw(S.write_controls(x.shape, t.dtype))
    result = run_op(getattr(hb.ops, which), ctl, backend, x.hyblas(backend), y.hyblas(backend), arg)
    assert_matches(result, expected_after(ctl, t))


@pytest.mark.parametrize("which", ["ewise_add", "ewise_mult"])
@given(data=st.data())
def test_ewise_of_one_structure(backend: str, which: str, data: st.DataObject) -> None:
    """Two matrices storing the same positions (the values-only path when nothing else is
    asked for): as the model, with and without write controls."""
    arg, op, dtype = data.draw(binary_and_dtype())
    x = data.draw(S.matrices(dtype=dtype))
    y_dtype = data.draw(st.sampled_from([dtype] * 3 + served(op)))
    y_values = np.array([data.draw(S.values_of(y_dtype)) for _ in x.values], dtype=y_dtype)
    y = S.MatrixData(x.nrows, x.ncols, x.rows, x.cols, y_values)
    t = getattr(model, which)(model.of(x), model.of(y), op)
    bare = data.draw(st.booleans())
    ctl = (
        S.WriteControls("none", None, "object", None, False, None)
        if bare
        else data.draw(S.write_controls(x.shape, t.dtype))
    )
    result = run_op(getattr(hb.ops, which), ctl, backend, x.hyblas(backend), y.hyblas(backend), arg)
    assert_matches(result, expected_after(ctl, t))


@pytest.mark.parametrize("which", ["ewise_add", "ewise_mult"])
@pytest.mark.parametrize("full", ["both", "x", "neither"])
def test_ewise_of_full_bitmaps_knows_its_count(backend: str, which: str, full: str) -> None:
    """Full operands (their counts known) give a result whose count is known without counting
    its flags on the device; a result that is not full is not taken for one."""
    size = 64
    gaps = np.arange(size) % 9 != 4  # 57 of 64: stored as a bitmap
    x = (
        hb.Vector.from_scalar(2.0, size, backend=backend)
        if full != "neither"
        else hb.Vector.from_coo(
            np.flatnonzero(gaps), np.full(gaps.sum(), 2.0), size=size, backend=backend
        )
    )
    y = (
        hb.Vector.from_scalar(3.0, size, backend=backend)
        if full == "both"
        else hb.Vector.from_coo(
            np.flatnonzero(~gaps | (np.arange(size) < 8)),
            np.full((~gaps | (np.arange(size) < 8)).sum(), 3.0),
            size=size,
            backend=backend,
        )
    )
    assert x.format == "bitmap" and y.format == "bitmap"
    known_full = (full != "neither") if which == "ewise_add" else (full == "both")

    def uncounted(v: hb.Vector) -> int:  # Vector.nnz that fails where it would count
        assert v.known_nnz is not None, "the op counted the result's flags"
        return v.known_nnz

    counting = (
        mock.patch.object(hb.Vector, "nnz", property(uncounted))
        if known_full
        else contextlib.nullcontext()
    )
    with counting:
        result = getattr(hb.ops, which)(x, y, "plus" if which == "ewise_add" else "times")
    values, present = (to_numpy(a) for a in result.as_bitmap())
    x_here, y_here = (to_numpy(v.as_bitmap()[1]) for v in (x, y))
    expected = (x_here | y_here) if which == "ewise_add" else (x_here & y_here)
    np.testing.assert_array_equal(present, expected)
    np.testing.assert_array_equal(
        values[present],
        np.where(x_here & y_here, 5.0 if which == "ewise_add" else 6.0, np.where(x_here, 2.0, 3.0))[
            present
        ],
    )
    assert result.nnz == int(expected.sum())


# --- apply / select -----------------------------------------------------------------------------


@given(data=st.data())
def test_apply_unary(backend: str, data: st.DataObject) -> None:
    op = hb.unary[data.draw(st.sampled_from(UNARY))]
    dtype = data.draw(st.sampled_from(served(op)))
    x = data.draw(S.vectors(dtype=dtype) | S.matrices(dtype=dtype))
    t = model.apply_unary(model.of(x), op)
    ctl = data.draw(S.write_controls(x.shape, t.dtype))
    with np.errstate(all="ignore"):
        result = run_op(hb.ops.apply, ctl, backend, x.hyblas(backend), op)
    assert_matches(result, expected_after(ctl, t))


@given(data=st.data())
def test_apply_binary_scalar(backend: str, data: st.DataObject) -> None:
    op = hb.binary[data.draw(st.sampled_from(BINARY))]
    dtype = data.draw(st.sampled_from(served(op)))
    x = data.draw(S.vectors(dtype=dtype) | S.matrices(dtype=dtype))
    raw = data.draw(S.values_of(dtype))
    scalar = data.draw(st.sampled_from([np.dtype(dtype).type(raw), raw]))  # typed or Python
    side = data.draw(st.sampled_from(["left", "right"]))
    try:
        op.input_type(dtype, model.scalar_dtype(dtype, scalar))
    except DomainMismatch:  # e.g. bor with a Python float: hyblas must refuse it too
        with pytest.raises(DomainMismatch):
            hb.ops.apply(x.hyblas(backend), op, **{side: scalar})
        return
    t = model.apply_binary(model.of(x), op, **{side: scalar})
    ctl = data.draw(S.write_controls(x.shape, t.dtype))
    with np.errstate(all="ignore"):
        result = run_op(hb.ops.apply, ctl, backend, x.hyblas(backend), op, **{side: scalar})
    assert_matches(result, expected_after(ctl, t))


@pytest.mark.parametrize("row_part", [transform.ROW_PART, 2], ids=["whole", "runs-of-rows"])
@given(data=st.data())
def test_select(backend: str, row_part: int, data: st.DataObject) -> None:
    """A matrix's entries tested (and its kept ones counted) all at once, or a run of rows of
    about 2 entries at a time."""
    transform.ROW_PART, default = row_part, transform.ROW_PART
    try:
        _check_select(backend, data)
    finally:
        transform.ROW_PART = default


def _check_select(backend: str, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(SELECTS))
    dtype = data.draw(S.dtypes)
    x = data.draw(S.vectors(dtype=dtype) | S.matrices(dtype=dtype))
    if name.startswith("value"):
        thunk = data.draw(S.values_of(dtype))
    else:
        thunk = data.draw(st.integers(-2, 4))
    t = model.select(model.of(x), name, thunk)
    ctl = data.draw(S.write_controls(x.shape, t.dtype))
    op = data.draw(st.sampled_from([name, hb.indexunary[name]]))
    result = run_op(hb.ops.select, ctl, backend, x.hyblas(backend), op, thunk)
    assert_matches(result, expected_after(ctl, t))


@given(data=st.data())
def test_select_of_a_bitmap(backend: str, data: st.DataObject) -> None:
    """A vector stored as a bitmap, however few its entries, selects from its present
    positions only (the op also sees the absent positions' placeholders) and is left
    unchanged."""
    name = data.draw(st.sampled_from(SELECTS))
    dtype = data.draw(S.dtypes)
    x = data.draw(S.vectors(dtype=dtype))
    thunk = data.draw(S.values_of(dtype) if name.startswith("value") else st.integers(-2, 4))
    t = model.select(model.of(x), name, thunk)
    ctl = data.draw(S.write_controls(x.shape, t.dtype))
    sparse = x.hyblas(backend)
    stored = hb.Vector(x.size, sparse.dtype, backend=backend, bitmap=sparse.as_bitmap())
    before = stored.dup()
    result = run_op(hb.ops.select, ctl, backend, stored, name, thunk)
    assert_matches(result, expected_after(ctl, t))
    assert stored.isequal(before)


# Long vectors with few entries are stored sparse (a vector keeps a bitmap only from size / 32
# entries on), as are some of their masks and outputs: the paths that skip passes over every
# position (a sparse result with no output to write through, a mask read at the entries only).
LONG = 8 * hb.containers.SPARSE_BELOW + 1


@pytest.mark.parametrize("which", ["ewise_add", "ewise_mult", "apply", "select"])
@given(data=st.data())
def test_vector_ops_on_sparse_storage(backend: str, which: str, data: st.DataObject) -> None:
    size = data.draw(st.integers(LONG, LONG + 40))
    if which.startswith("ewise"):
        arg, op, dtype = data.draw(binary_and_dtype())
        x, y = (data.draw(S.vectors(size=size, dtype=dtype, max_entries=8)) for _ in "xy")
        t = getattr(model, which)(model.of(x), model.of(y), op)
        args, kwargs = (x.hyblas(backend), y.hyblas(backend), arg), {}
    elif which == "apply":
        op = hb.unary[data.draw(st.sampled_from(UNARY))]
        dtype = data.draw(st.sampled_from(served(op)))
        x = data.draw(S.vectors(size=size, dtype=dtype, max_entries=8))
        with np.errstate(all="ignore"):
            t = model.apply_unary(model.of(x), op)
        args, kwargs = (x.hyblas(backend), op), {}
    else:
        name = data.draw(st.sampled_from(SELECTS))
        dtype = data.draw(S.dtypes)
        x = data.draw(S.vectors(size=size, dtype=dtype, max_entries=8))
        thunk = data.draw(S.values_of(dtype) if name.startswith("value") else st.integers(-2, 4))
        t = model.select(model.of(x), name, thunk)
        args, kwargs = (x.hyblas(backend), name, thunk), {}
    assert args[0].format == "sparse"
    ctl = data.draw(S.write_controls(x.shape, t.dtype, max_entries=8))
    with np.errstate(all="ignore"):
        result = run_op(getattr(hb.ops, which), ctl, backend, *args, **kwargs)
    assert_matches(result, expected_after(ctl, t))


# --- reductions ---------------------------------------------------------------------------------


@st.composite
def monoid_and_dtype(draw: Any) -> tuple[Any, np.dtype]:
    mon = hb.monoid[draw(st.sampled_from(MONOIDS))]
    return mon, draw(st.sampled_from(served(mon)))


@pytest.mark.parametrize("which", ["reduce_rows", "reduce_columns"])
@given(data=st.data())
def test_reduce_rows_columns(backend: str, which: str, data: st.DataObject) -> None:
    mon, dtype = data.draw(monoid_and_dtype())
    A = data.draw(S.matrices(dtype=dtype))
    t = getattr(model, which)(model.of(A), mon)
    ctl = data.draw(S.write_controls(t.shape, t.dtype, accum=mon.name != "any"))
    arg = data.draw(st.sampled_from([mon, mon.name]))
    result = run_op(getattr(hb.ops, which), ctl, backend, A.hyblas(backend), arg)
    assert_matches(result, expected_after(ctl, t))


@given(data=st.data())
def test_reduce_rows_of_an_iso_matrix(backend: str, data: st.DataObject) -> None:
    """Every entry holding one value (an unweighted graph): the plus monoid's row sums are the
    degrees times that value, the other monoids reduce as always."""
    mon, dtype = data.draw(monoid_and_dtype())
    shape = data.draw(S.matrices(dtype=dtype))
    value = data.draw(S.values_of(dtype))
    A = dataclasses.replace(shape, values=np.full(shape.values.size, value, dtype=dtype))
    t = model.reduce_rows(model.of(A), mon)
    ctl = data.draw(S.write_controls(t.shape, t.dtype, accum=mon.name != "any"))
    matrix = A.hyblas(backend)
    result = run_op(hb.ops.reduce_rows, ctl, backend, matrix, mon)
    assert_matches(result, expected_after(ctl, t))
    assert derived.iso_value(matrix) == (value if shape.values.size and value == value else None)


def test_reduce_rows_of_an_iso_matrix_wraps_and_rounds_like_a_sum(backend: str) -> None:
    """Integer row sums wrap as repeated additions do (300 x 3 in int8), and a float32 row of
    2**25 ones sums to 2**25, not to the 2**24 at which adding one at a time would stop."""
    rows = np.zeros(300, dtype=np.int64)
    A = hb.Matrix.from_coo(
        rows, np.arange(300), np.full(300, 3, dtype=np.int8), nrows=2, ncols=300, backend=backend
    )
    got = hb.ops.reduce_rows(A, hb.monoid.plus)
    assert got.dtype == np.int8 and got.to_coo()[0].tolist() == [0]
    assert got.get(0) == np.int8(np.int64(900).astype(np.int8))  # 900 mod 256 = -124
    n = 2**25
    ones = hb.Matrix.from_coo(
        np.zeros(n, dtype=np.int64),
        np.arange(n),
        np.ones(n, dtype=np.float32),
        nrows=1,
        ncols=n,
        backend=backend,
    )
    assert hb.ops.reduce_rows(ones, hb.monoid.plus[np.float32]).get(0) == np.float32(n)


def _assert_reduced_to(got: Any, value: Any, cands: set | None) -> None:
    """``got`` is the model's reduction: its type, and its value or one of its candidates."""
    assert got.dtype == np.asarray(value).dtype
    if cands is not None:
        assert any(values_close(got, c, got.dtype) for c in cands), (got, cands)
    else:
        assert values_close(got, value, got.dtype), (got, value)


@given(data=st.data())
def test_reduce_scalar(backend: str, data: st.DataObject) -> None:
    mon, dtype = data.draw(monoid_and_dtype())
    x = data.draw(S.vectors(dtype=dtype) | S.matrices(dtype=dtype))
    value, cands = model.reduce_scalar(model.of(x), mon)
    got = hb.ops.reduce_scalar(x.hyblas(backend), mon)
    assert isinstance(got, np.generic), type(got)
    _assert_reduced_to(got, value, cands)


@given(data=st.data())
def test_reduce_scalar_of_a_bitmap(backend: str, data: st.DataObject) -> None:
    """A vector stored as a bitmap, however few its entries, reduces over its present
    positions only (sum / product / or / and fill the others with the identity)."""
    mon, dtype = data.draw(monoid_and_dtype())
    x = data.draw(S.vectors(dtype=dtype))
    value, cands = model.reduce_scalar(model.of(x), mon)
    sparse = x.hyblas(backend)
    stored = hb.Vector(x.size, sparse.dtype, backend=backend, bitmap=sparse.as_bitmap())
    assert stored.format == "bitmap"
    got = hb.ops.reduce_scalar(stored, mon)
    _assert_reduced_to(got, value, cands)


def _stored(data: S.VectorData, backend: str, bitmap: bool) -> hb.Vector:
    """``data`` as a hyblas vector, forced into bitmap storage if ``bitmap``."""
    vector = data.hyblas(backend)
    if not bitmap:
        return vector
    return hb.Vector(data.size, vector.dtype, backend=backend, bitmap=vector.as_bitmap())


@given(data=st.data())
def test_inner(backend: str, data: st.DataObject) -> None:
    """The inner product over both structures (two bitmaps: one kernel on the GPU; any other
    storage: the multiply and the reduction), of one dtype or two."""
    sr, dtype = data.draw(semiring_and_dtype())
    u = data.draw(S.vectors(dtype=dtype))
    v = data.draw(S.vectors(size=u.size, dtype=data.draw(st.sampled_from(served(sr)))))
    value, cands = model.inner(model.of(u), model.of(v), sr)
    hu = _stored(u, backend, data.draw(st.booleans()))
    hv = _stored(v, backend, data.draw(st.booleans()))
    got = hb.ops.inner(hu, hv, data.draw(st.sampled_from([sr, sr.name])))
    assert isinstance(got, np.generic), type(got)
    _assert_reduced_to(got, value, cands)
    assert hu.inner(hv, sr) == got or got != got  # the method is the op (NaN is unequal)


@pytest.mark.parametrize("full", ["both", "u", "neither"])
def test_inner_of_full_bitmaps(backend: str, full: str) -> None:
    """Two vectors known full skip their flags on the GPU; one with gaps is still folded over
    the positions both hold (the flags where the count does not say every position)."""
    rng = np.random.default_rng(3)
    size = 3000  # more than one block's grid-stride round
    xs, ys = (rng.integers(1, 5, size).astype(np.float64) for _ in range(2))
    gaps = rng.random(size) < 0.8
    u = (
        hb.Vector.from_dense(xs, backend=backend)
        if full != "neither"
        else hb.Vector.from_coo(np.flatnonzero(gaps), xs[gaps], size=size, backend=backend)
    )
    v = (
        hb.Vector.from_dense(ys, backend=backend)
        if full == "both"
        else hb.Vector.from_coo(np.flatnonzero(~gaps), ys[~gaps], size=size, backend=backend)
    )
    assert u.format == v.format == "bitmap" or full != "both"
    assert (u.known_full() and v.known_full()) == (full == "both")
    u_here = gaps if full == "neither" else np.ones(size, dtype=bool)
    v_here = np.ones(size, dtype=bool) if full == "both" else ~gaps
    expected = float(np.sum((xs * ys)[u_here & v_here]))
    assert float(hb.ops.inner(u, v, "plus_times")) == expected


def test_inner_checks_its_arguments(backend: str) -> None:
    u = hb.Vector.from_dense(np.ones(3), backend=backend)
    with pytest.raises(hb.errors.DimensionMismatch):
        hb.ops.inner(u, hb.Vector.from_dense(np.ones(4), backend=backend), "plus_times")
    with pytest.raises(hb.errors.InvalidObject):
        hb.ops.inner(u, np.ones(3), "plus_times")
    with pytest.raises(hb.errors.InvalidValue):
        hb.ops.inner(u, u, "no_such_semiring")


# --- extract / assign / transpose ---------------------------------------------------------------


@given(data=st.data())
def test_extract_vector(backend: str, data: st.DataObject) -> None:
    u = data.draw(S.vectors())
    index = data.draw(S.index_choice(u.size))
    t = model.extract_vector(model.of(u), S.positions(index, u.size))
    ctl = data.draw(S.write_controls(t.shape, t.dtype))
    result = run_op(hb.ops.extract, ctl, backend, u.hyblas(backend), index)
    assert_matches(result, expected_after(ctl, t))


@given(data=st.data())
def test_extract_matrix(backend: str, data: st.DataObject) -> None:
    A = data.draw(S.matrices())
    rows = data.draw(S.index_choice(A.nrows, allow_int=True))
    cols = data.draw(S.index_choice(A.ncols, allow_int=not isinstance(rows, int)))
    sub = model.extract_matrix(model.of(A), S.positions(rows, A.nrows), S.positions(cols, A.ncols))
    if isinstance(rows, int):  # one row as a Vector
        t = model.Vec(sub.values[0], sub.present[0])
    elif isinstance(cols, int):  # one column as a Vector
        t = model.Vec(sub.values[:, 0].copy(), sub.present[:, 0].copy())
    else:
        t = sub
    ctl = data.draw(S.write_controls(t.shape, t.dtype))
    result = run_op(hb.ops.extract, ctl, backend, A.hyblas(backend), rows, cols)
    assert_matches(result, expected_after(ctl, t))


def _assign_expected(ctl: S.WriteControls, w: Any, region: tuple, value: Any) -> Any:
    z = model.assign_region(w, region, value, ctl.hyblas_accum())
    return model.write(
        w,
        z,
        mask=None if ctl.mask is None else model.of(ctl.mask),
        mask_kind=ctl.mask_kind,
        accum=None,
        replace=ctl.replace,
    )


def _run_assign(ctl: S.WriteControls, backend: str, value: Any, *indices: Any) -> Any:
    out = ctl.out.hyblas(backend)
    result = hb.ops.assign(
        out,
        value,
        *indices,
        mask=ctl.hyblas_mask(backend),
        accum=ctl.hyblas_accum(),
        replace=ctl.replace,
    )
    assert result is out
    return result


@given(data=st.data())
def test_assign_vector(backend: str, data: st.DataObject) -> None:
    dtype = data.draw(S.dtypes)
    ctl = data.draw(S.write_controls((data.draw(S.dims),), dtype, need_out=True))
    size = ctl.out.size
    index = data.draw(S.index_choice(size, unique=True))
    region = S.positions(index, size)
    if data.draw(st.booleans()):
        value_data = data.draw(S.vectors(size=region.size, dtype=dtype))
        value, model_value = value_data.hyblas(backend), model.of(value_data)
    else:
        value = model_value = dtype.type(data.draw(S.values_of(dtype)))
    expected = _assign_expected(ctl, model.of(ctl.out), (region,), model_value)
    assert_matches(_run_assign(ctl, backend, value, index), expected)


@given(data=st.data())
def test_assign_matrix(backend: str, data: st.DataObject) -> None:
    dtype = data.draw(S.dtypes)
    ctl = data.draw(S.write_controls((data.draw(S.dims), data.draw(S.dims)), dtype, need_out=True))
    nrows, ncols = ctl.out.shape
    kind = data.draw(st.sampled_from(["matrix", "scalar", "row", "column"]))
    rows = data.draw(S.index_choice(nrows, unique=True, allow_int=kind == "row"))
    cols = data.draw(S.index_choice(ncols, unique=True, allow_int=kind == "column"))
    if kind in ("row", "column") and not isinstance(rows if kind == "row" else cols, int):
        kind = "matrix"  # no int index could be drawn (an empty dimension)
    r, c = S.positions(rows, nrows), S.positions(cols, ncols)
    if kind == "scalar":
        value = model_value = dtype.type(data.draw(S.values_of(dtype)))
    elif kind == "matrix":
        value_data = data.draw(S.matrices(nrows=r.size, ncols=c.size, dtype=dtype))
        value, model_value = value_data.hyblas(backend), model.of(value_data)
    else:
        value_data = data.draw(S.vectors(size=c.size if kind == "row" else r.size, dtype=dtype))
        value = value_data.hyblas(backend)
        v = model.of(value_data)
        shape = (1, c.size) if kind == "row" else (r.size, 1)
        model_value = model.Mat(v.values.reshape(shape), v.present.reshape(shape))
    expected = _assign_expected(ctl, model.of(ctl.out), (r, c), model_value)
    assert_matches(_run_assign(ctl, backend, value, rows, cols), expected)


@given(data=st.data())
def test_transpose(backend: str, data: st.DataObject) -> None:
    A = data.draw(S.matrices())
    t = model.transpose(model.of(A))
    ctl = data.draw(S.write_controls(t.shape, t.dtype))
    result = run_op(hb.ops.transpose, ctl, backend, A.hyblas(backend))
    assert_matches(result, expected_after(ctl, t))


@given(data=st.data())
def test_assign_scalar_into_a_sparse_vector(backend: str, data: st.DataObject) -> None:
    """``out(I) = s`` into a sparse ``out`` without a mask takes a path of its own (a merge of
    the indices into its keys): indices unsorted, some on entries, some not, repeats refused."""
    dtype = data.draw(S.dtypes)
    size = 4096
    keys = data.draw(st.lists(st.integers(0, size - 1), max_size=12, unique=True))
    old = [dtype.type(data.draw(S.values_of(dtype))) for _ in keys]
    out = hb.Vector.from_coo(
        keys, np.array(old, dtype=dtype), size=size, dtype=dtype, backend=backend
    )
    assert out.format == "sparse"
    near = st.sampled_from(keys) if keys else st.nothing()
    index = data.draw(st.lists(near | st.integers(0, size - 1), max_size=12, unique=True))
    value = dtype.type(data.draw(S.values_of(dtype)))
    want = dict(zip(keys, old, strict=True)) | dict.fromkeys(index, value)
    got = hb.ops.assign(out, value, np.array(index, dtype=np.int64))
    ids, values = got.to_coo()
    assert ids.tolist() == sorted(want) and got.nnz == len(want) and got.dtype == dtype
    np.testing.assert_array_equal(values, np.array([want[k] for k in sorted(want)], dtype=dtype))
    if len(index) > 1:
        with pytest.raises(hb.errors.InvalidValue):
            hb.ops.assign(got, value, np.array([index[0], *index], dtype=np.int64))
        assert got.to_coo()[0].tolist() == sorted(want)  # unchanged by the refused call


@given(data=st.data(), large=st.booleans())
def test_assign_scalar_through_a_structural_mask(
    backend: str, data: st.DataObject, large: bool
) -> None:
    """``out<m.S> = s`` over all positions (a BFS level update) takes a path of its own: it
    equals the general assign (reached here through ``slice(None)``). ``large``: a few
    entries in 4096 positions, so that both vectors are sparse (the merge of keys)."""
    dtype = data.draw(S.dtypes)
    if large:
        size = 4096
        out = _few_entries(data, size, dtype, backend)
        where = _few_entries(data, size, data.draw(S.dtypes), backend)
        assert out.format == where.format == "sparse"
    else:
        size = data.draw(S.dims)
        out = data.draw(S.vectors(size=size, dtype=dtype)).hyblas(backend)
        where = data.draw(S.vectors(size=size, dtype=data.draw(S.dtypes))).hyblas(backend)
    value = dtype.type(data.draw(S.values_of(dtype)))
    general = hb.ops.assign(out.dup(), value, slice(None), mask=where.S)
    fast = hb.ops.assign(out, value, None, mask=where.S)
    assert fast.isequal(general, check_dtype=True) and fast.nnz == general.nnz


def _few_entries(data: st.DataObject, size: int, dtype: np.dtype, backend: str) -> hb.Vector:
    keys = data.draw(st.lists(st.integers(0, size - 1), max_size=40, unique=True))
    values = np.array([data.draw(S.values_of(dtype)) for _ in keys], dtype=dtype)
    return hb.Vector.from_coo(keys, values, size=size, dtype=dtype, backend=backend)


@pytest.mark.parametrize("rows", [slice(2, 7), slice(None, 3), slice(5, None), slice(4, 4)])
def test_extract_of_a_row_range_is_the_csr_slice_copied(
    backend: str, rows: slice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``A[start:stop, :]`` takes the CSR's own rows (nothing sorted), as a copy: writing into
    the block leaves ``A`` as it was."""
    rng = np.random.default_rng(11)
    dense = np.where(rng.random((9, 6)) < 0.4, rng.integers(1, 9, (9, 6)), 0).astype(np.float64)
    A = hb.Matrix.from_dense(dense, backend=backend)  # noqa: N806
    before = A.to_coo()
    monkeypatch.setattr(indexing._prim, "sort_by_keys", _never_called)
    block = hb.ops.extract(A, rows, None)
    monkeypatch.undo()
    want = dense[rows]
    np.testing.assert_array_equal(block.to_dense(fill_value=0), want)
    assert block.shape == want.shape
    if block.nnz:
        hb.ops.assign(block, -1.0, None, None)
        for got, kept in zip(A.to_coo(), before, strict=True):
            np.testing.assert_array_equal(got, kept)


def _never_called(*args: object) -> None:
    raise AssertionError("the row range was sorted as keys")


@pytest.mark.parametrize("cols", [[], [4], [1, 4], [5, 0, 2]], ids=["none", "one", "two", "three"])
def test_extract_of_a_row_range_and_an_index_array_of_columns(backend: str, cols: list) -> None:
    """A row range with the columns given as a NumPy array (of any length, none included)
    takes the general path: the rows' entries in the asked columns, in the asked order."""
    rng = np.random.default_rng(12)
    dense = np.where(rng.random((9, 6)) < 0.5, rng.integers(1, 9, (9, 6)), 0).astype(np.float64)
    A = hb.Matrix.from_dense(dense, backend=backend)  # noqa: N806
    block = hb.ops.extract(A, slice(2, 7), np.array(cols, dtype=np.int64))
    want = dense[2:7][:, cols]
    assert block.shape == want.shape
    np.testing.assert_array_equal(block.to_dense(fill_value=0), want)
