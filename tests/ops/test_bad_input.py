"""Bad input to the operations (issue 42): each class raises its named error, before anything
is computed, and leaves every input and ``out`` as it was. Correct answers where a strange but
valid input used to fail (thunks and scalars at the edges of a dtype, 0-size objects)."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import numpy as np
import pytest

import hyblas as hb
from hyblas.errors import DimensionMismatch, DomainMismatch, InvalidObject, InvalidValue
from tests.support.checks import OPAQUE, raises_unchanged, snapshot

INDEX_TESTS = ["tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt"]
VALUE_TESTS = ["valueeq", "valuene", "valuelt", "valuele", "valuegt", "valuege"]
PYTHON_TESTS = {  # the exact meaning of each test, in Python numbers
    "valueeq": lambda x, k: x == k,
    "valuene": lambda x, k: x != k,
    "valuelt": lambda x, k: x < k,
    "valuele": lambda x, k: x <= k,
    "valuegt": lambda x, k: x > k,
    "valuege": lambda x, k: x >= k,
}
NOT_NUMBERS = ["abc", None, 1j, b"x", OPAQUE, {"k": 1}]
NOT_ONE_NUMBER = [[1, 2], (3,), np.arange(3)]


def _containers(backend: str, dtype: Any = np.int64) -> dict[str, Any]:
    """A matrix, a sparse vector and a bitmap vector holding the values -2, 0, 3, 7."""
    values = np.array([-2, 0, 3, 7]).astype(dtype)
    sparse = hb.Vector.from_coo([0, 2, 5, 9], values, size=10, backend=backend)
    return {
        "matrix": hb.Matrix.from_coo(
            [0, 1, 2, 3], [1, 1, 0, 3], values, nrows=4, ncols=4, backend=backend
        ),
        "sparse": sparse,
        "bitmap": hb.Vector(10, sparse.dtype, backend=backend, bitmap=sparse.as_bitmap()),
    }


@pytest.fixture(params=["matrix", "sparse", "bitmap"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def _out_for(x: Any) -> Any:
    """An ``out`` of ``x``'s kind and shape with an entry the failed call must not touch."""
    if isinstance(x, hb.Matrix):
        return hb.Matrix.from_coo([0], [0], [5], nrows=x.nrows, ncols=x.ncols, backend=x.backend)
    return hb.Vector.from_coo([1], [5], size=x.size, backend=x.backend)


# --- select's thunk -----------------------------------------------------------------------


@pytest.mark.parametrize("name", INDEX_TESTS + VALUE_TESTS)
def test_select_thunk_not_a_number(backend: str, kind: str, name: str) -> None:
    x = _containers(backend)[kind]
    out = _out_for(x)
    for thunk in NOT_NUMBERS:
        raises_unchanged(
            DomainMismatch, f"select: {name}'s thunk", partial(hb.ops.select, x, name, thunk), x
        )
        call = partial(hb.ops.select, x, hb.indexunary[name], thunk, out=out, mask=out.S)
        raises_unchanged(DomainMismatch, f"{name}'s thunk", call, x, out)
    exc = DomainMismatch if name in INDEX_TESTS else InvalidObject
    for thunk in NOT_ONE_NUMBER:
        call = partial(hb.ops.select, x, name, thunk, out=out)
        raises_unchanged(exc, "thunk", call, x, out, thunk)


@pytest.mark.parametrize("name", INDEX_TESTS)
@pytest.mark.parametrize("thunk", [1.5, 2.0, np.float32(1), True, np.bool_(False), np.nan])
def test_select_index_thunk_must_be_an_integer(
    backend: str, kind: str, name: str, thunk: Any
) -> None:
    x = _containers(backend)[kind]
    raises_unchanged(
        DomainMismatch, "an integer", lambda: hb.ops.select(x, name, thunk, out=_out_for(x)), x
    )


def _entries(x: Any) -> list[tuple]:
    arrays = x.to_coo()
    return list(zip(*(a.tolist() for a in arrays)))


@pytest.mark.parametrize("name", INDEX_TESTS)
@pytest.mark.parametrize("thunk", [2**70, -(2**70), np.uint64(2**64 - 1), np.int8(-100), 10**4])
def test_select_index_thunk_beyond_the_extent(
    backend: str, kind: str, name: str, thunk: Any
) -> None:
    """A huge offset answers as the largest meaningful one does (no OverflowError)."""
    x = _containers(backend)[kind]
    extent = max(x.shape) + 1
    clamped = extent if thunk > 0 else -extent
    assert _entries(hb.ops.select(x, name, thunk)) == _entries(hb.ops.select(x, name, clamped))
    # and a 0-d array is its number
    assert _entries(hb.ops.select(x, name, np.array(3))) == _entries(hb.ops.select(x, name, 3))


@pytest.mark.parametrize("name", VALUE_TESTS)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint64, np.float32, bool])
def test_select_value_thunk_compares_exactly(
    backend: str, kind: str, name: str, dtype: Any
) -> None:
    """Any real number compares with any values as the numbers themselves compare (an int
    beyond the values' type too)."""
    x = _containers(backend, dtype)[kind]
    out = _out_for(x).dup(x.dtype)
    before = snapshot(x)
    for thunk in (
        *(1000, -1000, 2**70, -(2**70), np.uint64(2**64 - 1), np.int64(-1), np.int8(3)),
        *(2.5, np.nan, np.inf, -np.inf, np.float32(-0.5), True, np.array(1000), np.array(-0.5)),
    ):
        got = hb.ops.select(x, name, thunk)
        assert snapshot(x) == before
        k = thunk.item() if isinstance(thunk, np.ndarray) else thunk
        number = float if isinstance(k, float | np.floating) else int
        expected = [e for e in _entries(x) if PYTHON_TESTS[name](number(e[-1]), k)]
        assert _entries(got) == expected, thunk
        # through out= and a mask as well
        hb.ops.select(x, name, thunk, out=out, mask=x.S, replace=True)
        assert _entries(out) == expected, thunk


@pytest.mark.parametrize("name", VALUE_TESTS)
def test_select_value_thunk_beyond_float32(backend: str, kind: str, name: str) -> None:
    x = _containers(backend, np.float32)[kind]
    for thunk in (1e300, -1e300, 2**200):
        expected = [e for e in _entries(x) if PYTHON_TESTS[name](e[-1], thunk)]
        assert _entries(hb.ops.select(x, name, thunk)) == expected
    raises_unchanged(
        DomainMismatch, "does not fit float64", lambda: hb.ops.select(x, name, 2**1100), x
    )


def test_select_of_zero_size(backend: str) -> None:
    for x in (hb.Vector.new(np.int8, 0, backend=backend), hb.Matrix.new(float, 0, 3)):
        x = x.to_backend(backend)
        for name in INDEX_TESTS + VALUE_TESTS:
            assert hb.ops.select(x, name, 2**70).nnz == 0
            raises_unchanged(DomainMismatch, "thunk", partial(hb.ops.select, x, name, "a"), x)


def test_user_test_without_a_thunk_kind_takes_any_thunk(backend: str) -> None:
    """A user's index-unary operator without ``thunk=`` gets the thunk as it is."""
    name = "test_bad_input_any_thunk"
    if name not in hb.indexunary:  # names are global: registered once a session
        hb.indexunary.register_new(name, lambda x, i, j, k: x == len(k))
        hb.indexunary.register_new(name + "_int", lambda x, i, j, k: i <= k, thunk="index")
    op, strict = hb.indexunary[name], hb.indexunary[name + "_int"]
    x = _containers(backend)["sparse"]
    assert _entries(hb.ops.select(x, op, "abc")) == [(5, 3)]
    raises_unchanged(DomainMismatch, "an integer", lambda: hb.ops.select(x, strict, 0.5), x)
    assert _entries(hb.ops.select(x, strict, 2)) == [(0, -2), (2, 0)]


# --- scalars into a dtype: apply's left= / right=, assign, from_scalar, from_coo ------------


# A number the dtype cannot hold is an InvalidValue; an int no 64-bit type holds, like a
# string, is not a value of any hyblas domain (DomainMismatch).
@pytest.mark.parametrize(
    ("dtype", "scalar", "exc", "match"),
    [
        (np.int8, 1000, InvalidValue, "does not fit int8"),
        (np.uint8, -1, InvalidValue, "does not fit uint8"),
        (np.int8, -129, InvalidValue, "does not fit int8"),
        (np.uint8, 256, InvalidValue, "does not fit uint8"),
        (np.int64, 2**63, InvalidValue, "does not fit int64"),
        (np.int64, 2**70, DomainMismatch, "is an int beyond 64 bits"),
        (np.uint64, 2**64, DomainMismatch, "is an int beyond 64 bits"),
        (np.float32, 1e300, InvalidValue, "does not fit float32"),
    ],
)
@pytest.mark.parametrize("side", ["left", "right"])
def test_apply_scalar_must_fit(
    backend: str, kind: str, dtype: Any, scalar: Any, exc: type, match: str, side: str
) -> None:
    x = _containers(backend, dtype)[kind]
    out = _out_for(x).dup(x.dtype)
    raises_unchanged(
        exc,
        f"apply: {side}={re.escape(str(scalar))} {match}",
        lambda: hb.ops.apply(x, hb.binary.plus, **{side: scalar}, out=out, accum=hb.binary.plus),
        x,
        out,
    )


@pytest.mark.parametrize("scalar", [np.nan, np.inf, -np.inf, 1e30])
def test_apply_non_finite_into_an_integer_operator(backend: str, kind: str, scalar: Any) -> None:
    x = _containers(backend)[kind]
    out = _out_for(x)
    raises_unchanged(
        InvalidValue,
        "int64",
        lambda: hb.ops.apply(x, hb.binary.plus[np.int64], right=scalar, out=out),
        x,
        out,
    )
    # untyped, a float scalar promotes: NaN is a value like another
    assert hb.ops.apply(x, hb.binary.plus, right=scalar).dtype == np.float64


@pytest.mark.parametrize("scalar", NOT_NUMBERS + NOT_ONE_NUMBER, ids=repr)
def test_apply_scalar_not_one_number(backend: str, kind: str, scalar: Any) -> None:
    x = _containers(backend)[kind]
    out = _out_for(x)
    exc = InvalidObject if any(scalar is s for s in NOT_ONE_NUMBER) else DomainMismatch
    if scalar is None:  # None is "not given"
        exc = InvalidValue
    raises_unchanged(
        exc, None, lambda: hb.ops.apply(x, "plus", left=scalar, out=out), x, out, scalar
    )


def test_apply_scalar_at_the_edge_of_its_dtype(backend: str) -> None:
    x = _containers(backend, np.int8)["sparse"]
    assert hb.ops.apply(x, hb.binary.max, right=127).to_coo()[1].tolist() == [127] * 4
    assert hb.ops.apply(x, hb.binary.min, left=-128).to_coo()[1].tolist() == [-128] * 4
    # a NumPy scalar keeps its type: the operator computes in int64 and 1000 fits
    wide = hb.ops.apply(x, hb.binary.plus, right=np.int64(1000))
    assert wide.dtype == np.int64 and wide.to_coo()[1].tolist() == [998, 1000, 1003, 1007]


@pytest.mark.parametrize("storage", ["sparse", "bitmap", "matrix"])
@pytest.mark.parametrize(
    ("dtype", "value", "exc", "match"),
    [
        (np.int8, 1000, InvalidValue, "does not fit int8"),
        (np.int8, np.int64(1000), InvalidValue, "does not fit int8"),
        (np.uint8, -1, InvalidValue, "does not fit uint8"),
        (np.int64, 2**63, InvalidValue, "does not fit int64"),
        (np.float32, 1e300, InvalidValue, "does not fit float32"),
        # a float into an integer out: refused by type (same-kind casting), whatever its value
        (np.int64, np.nan, DomainMismatch, "int64"),
        (np.int64, np.inf, DomainMismatch, "int64"),
        (np.int64, "abc", DomainMismatch, "not a number"),
        (np.int64, 1j, DomainMismatch, "not a number"),
        (np.int64, [1, 2], InvalidObject, "one number"),
        (np.float64, np.ones(3), InvalidObject, "one number"),
    ],
    ids=lambda v: getattr(v, "__name__", repr(v))[:20],
)
def test_assign_scalar_must_fit(
    backend: str, storage: str, dtype: Any, value: Any, exc: type, match: str
) -> None:
    target = _containers(backend, dtype)[storage]
    if isinstance(target, hb.Matrix):
        where = (None, None)
        mask = target.S
    else:
        where = (None,)
        mask = _containers(backend)["sparse"].S
    for kwargs in ({}, {"mask": mask}, {"accum": "plus"}):
        call = partial(hb.ops.assign, target, value, *where, **kwargs)
        raises_unchanged(exc, match, call, target, value)
    if isinstance(target, hb.Vector):  # the sparse paths: a list of indices, no mask
        raises_unchanged(exc, match, lambda: hb.ops.assign(target, value, [1, 3]), target, value)


@pytest.mark.parametrize(
    ("value", "dtype", "exc"),
    [
        (1000, np.int8, InvalidValue),
        (-1, np.uint16, InvalidValue),
        (np.nan, np.int64, InvalidValue),
        (np.inf, np.int32, InvalidValue),
        (1e300, np.float32, InvalidValue),
        (2**70, np.int64, DomainMismatch),
        ("abc", None, DomainMismatch),
        (1j, np.float64, DomainMismatch),
        ([1, 2], np.int64, InvalidObject),
    ],
    ids=repr,
)
def test_containers_from_a_scalar_that_does_not_fit(
    backend: str, value: Any, dtype: Any, exc: type
) -> None:
    with pytest.raises(exc, match="value"):
        hb.Vector.from_scalar(value, 4, dtype=dtype, backend=backend)
    if not isinstance(value, list):  # a list of values is from_coo's other form
        with pytest.raises(exc, match="value"):
            hb.Vector.from_coo([0, 2], value, size=4, dtype=dtype, backend=backend)
        with pytest.raises(exc, match="value"):
            hb.Matrix.from_coo([0], [1], value, nrows=2, ncols=2, dtype=dtype, backend=backend)


def test_scalars_at_the_edges_still_fit(backend: str) -> None:
    assert hb.Vector.from_scalar(-128, 2, dtype=np.int8, backend=backend).to_dense().tolist() == [
        -128,
        -128,
    ]
    assert hb.Vector.from_scalar(np.inf, 1, dtype=np.float32, backend=backend).get(0) == np.inf
    big = hb.Vector.from_coo([1], 2**64 - 1, size=2, dtype=np.uint64, backend=backend)
    assert big.get(1) == 2**64 - 1
    v = hb.Vector.from_coo([0], [1], size=3, dtype=np.int8, backend=backend)
    hb.ops.assign(v, 127, None)
    assert v.to_dense().tolist() == [127, 127, 127]
    # a Python int is checked by its value, into unsigned types too
    u = hb.Vector.new(np.uint8, 3, backend=backend)
    hb.ops.assign(u, 255, [1])
    assert u.to_coo()[1].tolist() == [255]
    # a float into an integer type stays refused whatever its value (same-kind casting)
    raises_unchanged(DomainMismatch, "out has dtype int8", lambda: hb.ops.assign(v, 2.0, [1]), v)


# --- the output arguments and executor= ------------------------------------------------------


@pytest.mark.parametrize("replace", [np.array([True, False]), "yes", 1, None, [True]], ids=repr)
def test_replace_must_be_a_bool(backend: str, replace: Any) -> None:
    c = _containers(backend)
    u, A = c["sparse"], c["matrix"]  # noqa: N806
    out = _out_for(u)
    for fn in (
        lambda: hb.ops.apply(u, "abs", mask=out.S, replace=replace, out=out),
        lambda: hb.ops.select(u, "valuegt", 0, replace=replace, out=out),
        lambda: hb.ops.ewise_add(u, u, "plus", replace=replace, out=out),
        lambda: hb.ops.assign(out, 1, None, mask=u.S, replace=replace),
        lambda: hb.ops.transpose(A, replace=replace),
        lambda: hb.ops.mxm(A, A, "plus_times", replace=replace),
        lambda: hb.ops.reduce_rows(A, "plus", replace=replace),
    ):
        raises_unchanged(InvalidObject, "replace must be True or False", fn, u, A, out)
    # a NumPy bool is a bool
    hb.ops.apply(u, "abs", mask=out.S, replace=np.bool_(True), out=out)


@pytest.mark.parametrize(
    "executor", [np.array(["auto"]), ["auto"], None, 3, b"auto", "fastest"], ids=repr
)
def test_executor_must_name_one(backend: str, executor: Any) -> None:
    c = _containers(backend)
    A = c["matrix"]  # noqa: N806
    u = hb.Vector.from_coo([1], [2], size=4, backend=backend)
    out = _out_for(u)
    for fn in (
        lambda: hb.ops.mxv(A, u, "plus_times", executor=executor, out=out),
        lambda: hb.ops.vxm(u, A, "plus_times", executor=executor, out=out),
        lambda: hb.ops.mxm(A, A, "plus_times", executor=executor),
    ):
        raises_unchanged(InvalidValue, "executor must be one of", fn, A, u, out)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"mask": np.ones(4, dtype=bool)}, InvalidObject, "mask must be"),
        ({"mask": "S"}, InvalidObject, "mask must be"),
        ({"accum": np.add}, InvalidObject, "accum must be a BinaryOp"),
        ({"accum": "plus"}, InvalidObject, "accum must be a BinaryOp"),
        ({"out": np.zeros(4)}, InvalidObject, "out must be a Vector"),
        ({"semiring": "min_pluss"}, InvalidValue, "did you mean min_plus"),
        ({"semiring": hb.monoid.min}, InvalidObject, "semiring must be a Semiring"),
        ({"semiring": 3}, InvalidObject, "semiring must be a Semiring"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_product_arguments_of_the_wrong_kind(
    backend: str, kwargs: dict, exc: type, match: str
) -> None:
    A = _containers(backend)["matrix"]  # noqa: N806
    u = hb.Vector.from_coo([1], [2], size=4, backend=backend)
    out = _out_for(u)
    call = {"semiring": "plus_times", "out": out, **kwargs}
    raises_unchanged(exc, match, lambda: hb.ops.mxv(A, u, **call), A, u, out)


# --- index arguments ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("index", "exc", "match"),
    [
        (slice(0, 4, 0), InvalidValue, "a slice's step cannot be 0"),
        (slice(None, None, 0), InvalidValue, "a slice's step cannot be 0"),
        (slice("a", 3), InvalidObject, "must be integers or None"),
        (slice(0, 3, 1.5), InvalidObject, "must be integers or None"),
    ],
    ids=repr,
)
def test_bad_slices(backend: str, kind: str, index: slice, exc: type, match: str) -> None:
    """extract and assign with a slice of step 0, or of bounds that are not integers."""
    x = _containers(backend)[kind]
    indices = (index,) if isinstance(x, hb.Vector) else (index, slice(None))
    out = hb.Vector.new(x.dtype, 4, backend=backend) if isinstance(x, hb.Vector) else None
    raises_unchanged(exc, match, lambda: hb.ops.extract(x, *indices, out=out), x, out)
    raises_unchanged(exc, match, lambda: hb.ops.assign(x, 1, *indices), x)
    raises_unchanged(exc, match, lambda: hb.ops.assign(x, 1, *indices[::-1]), x)
    assert hb.ops.extract(x, *(slice(None, None, -1),) * len(indices)).nnz == x.nnz


# --- shapes and dtypes -----------------------------------------------------------------------


def test_shapes_and_dtypes(backend: str) -> None:
    c = _containers(backend)
    A, u = c["matrix"], c["sparse"]  # noqa: N806
    short = hb.Vector.from_coo([0], [1], size=3, backend=backend)
    out = _out_for(short)
    raises_unchanged(
        DimensionMismatch, "u has size 10", lambda: hb.ops.mxv(A, u, "plus_times"), A, u
    )
    raises_unchanged(
        DimensionMismatch, "out has shape", lambda: hb.ops.apply(u, "abs", out=out), u, out
    )
    raises_unchanged(
        DimensionMismatch, "x has shape", lambda: hb.ops.ewise_mult(u, short, "times"), u, short
    )
    raises_unchanged(
        DomainMismatch,
        "does not serve dtype",
        lambda: hb.ops.apply(u.dup(np.float64), "bor", right=1),
        u,
    )
    floats = hb.Vector.from_coo([1], [0.5], size=3, backend=backend)
    raises_unchanged(
        DomainMismatch,
        "out has dtype int64",
        lambda: hb.ops.apply(floats, "identity", out=out),
        floats,
        out,
    )


def _narrow_outs(backend: str) -> dict[str, Any]:
    """int64 operands holding 1000 (int8 cannot hold it), and int8 outs with an entry."""
    v = hb.Vector.from_coo([0, 1], [1000, 7], size=3, backend=backend)
    M = hb.Matrix.from_coo([0, 1], [0, 1], [1000, 7], nrows=2, ncols=2, backend=backend)  # noqa: N806
    A = hb.Matrix.from_coo([0], [1], [1000], nrows=3, ncols=3, backend=backend)  # noqa: N806
    return {
        "v": v,
        "M": M,
        "A": A,
        "u": hb.Vector.from_coo([0], [1], size=3, backend=backend),
        "out": hb.Vector.from_coo([2], [5], size=3, dtype=np.int8, backend=backend),
        "out_M": hb.Matrix.from_coo([1], [0], np.int8([5]), nrows=2, ncols=2, backend=backend),
    }


def test_values_that_do_not_fit_a_narrower_out(backend: str) -> None:
    """A value cast into ``out``'s narrower dtype must fit, as a scalar must: InvalidValue (it
    wrapped: 1000 became -24 in int8), every operation and executor alike, nothing changed."""
    o = _narrow_outs(backend)
    v, M, A, u, out, out_M = (o[k] for k in ("v", "M", "A", "u", "out", "out_M"))  # noqa: N806
    match = r"out has dtype int8; a value cast into it, (1000|2000), does not fit"
    calls = [
        lambda: hb.ops.assign(out, v, None),
        lambda: hb.ops.assign(out, v, [2, 1, 0]),
        lambda: hb.ops.ewise_add(v, v, "plus", out=out),
        lambda: hb.ops.ewise_mult(v, v, "plus", out=out, mask=out.S),  # cast before the mask
        lambda: hb.ops.apply(v, "identity", out=out),
        lambda: hb.ops.apply(v, "identity", out=out, accum=hb.binary.plus),
        lambda: hb.ops.extract(v, None, out=out),
        lambda: hb.ops.select(v, "valuegt", 0, out=out, replace=True, mask=~out.S),
        lambda: hb.ops.apply(M, "identity", out=out_M),
        lambda: hb.ops.apply(M, "identity", out=out_M, accum=hb.binary.max),
        lambda: hb.ops.assign(out_M, M, None, None),
        lambda: hb.ops.assign(out_M, M, None, None, accum=hb.binary.plus),
        lambda: hb.ops.assign(out_M, hb.ops.extract(v, [0, 1]), 0, None),
        lambda: hb.ops.transpose(M, out=out_M),
        lambda: hb.ops.reduce_rows(M, "plus", out=hb.Vector.new(np.int8, 2, backend=backend)),
    ]
    calls += [
        partial(hb.ops.vxm, u, A, "plus_times", out=out, executor=executor)
        for executor in ("reference", "dense", "sparse", "pull")
    ]
    for call in calls:
        raises_unchanged(InvalidValue, match, call, v, M, A, u, out, out_M)
    wide = hb.Vector.from_coo([0], [1e39], size=3, backend=backend)
    out32 = hb.Vector.new(np.float32, 3, backend=backend)
    raises_unchanged(
        InvalidValue,
        "out has dtype float32; a value cast into it, 1e\\+39, does not fit",
        lambda: hb.ops.apply(wide, "identity", out=out32),
        wide,
        out32,
    )


def test_values_that_fit_a_narrower_out(backend: str) -> None:
    """What fits is written: values in range, float rounding, an accumulated value that fits
    where the result's own would not (accum runs on the uncast operands)."""
    o = _narrow_outs(backend)
    v, out = o["v"], o["out"]
    small = hb.Vector.from_coo([0, 1], [-128, 127], size=3, backend=backend)
    assert hb.ops.assign(out.dup(), small, None).to_coo()[1].tolist() == [-128, 127]
    kept = hb.Vector.from_coo([0, 1], [3, 4], size=3, dtype=np.int8, backend=backend)
    hb.ops.apply(v, "identity", out=kept, accum=hb.binary.min)  # min(3, 1000), min(4, 7)
    assert kept.to_coo()[1].tolist() == [3, 4] and kept.dtype == np.int8
    tenth = hb.Vector.from_coo([0], [0.1], size=3, backend=backend)
    out32 = hb.ops.apply(tenth, "identity", out=hb.Vector.new(np.float32, 3, backend=backend))
    assert out32.to_coo()[1].tolist() == [np.float32(0.1)]
    M = hb.Matrix.from_coo([0], [0], [1000], nrows=2, ncols=2, backend=backend)  # noqa: N806
    out_M = hb.Matrix.from_coo([0], [0], np.int8([5]), nrows=2, ncols=2, backend=backend)  # noqa: N806
    hb.ops.assign(out_M, M, None, None, accum=hb.binary.min)
    assert out_M.to_coo()[2].tolist() == [5]


def test_zero_size_objects(backend: str) -> None:
    """0-size vectors and matrices go through every operation (empty results)."""
    v = hb.Vector.new(np.int8, 0, backend=backend)
    M = hb.Matrix.new(np.float64, 0, 0, backend=backend)  # noqa: N806
    E = hb.Matrix.new(np.float64, 3, 0, backend=backend)  # noqa: N806
    assert hb.ops.apply(v, hb.binary.plus, right=127).size == 0
    assert hb.ops.apply(M, "abs").nnz == 0
    assert hb.ops.ewise_add(v, v, "plus").size == 0
    assert hb.ops.mxv(M, hb.Vector.new(float, 0, backend=backend), "plus_times").size == 0
    assert hb.ops.mxv(E, hb.Vector.new(float, 0, backend=backend), "plus_times").nnz == 0
    assert hb.ops.mxm(E, E.T, "plus_times").shape == (3, 3)
    assert hb.ops.reduce_scalar(v, "max") == np.iinfo(np.int8).min
    assert hb.ops.reduce_rows(E, "plus").nnz == 0
    assert hb.ops.extract(v, []).size == 0
    assert hb.ops.assign(v.dup(), 5, None).size == 0
    assert hb.ops.transpose(E).shape == (0, 3)
    assert hb.ops.inner(v, v, "plus_times") == 0
    # the errors stay: 1000 does not fit int8, even where nothing is written
    raises_unchanged(InvalidValue, "int8", lambda: hb.ops.assign(v, 1000, None), v)
    raises_unchanged(InvalidValue, "int8", lambda: hb.ops.apply(v, hb.binary.plus, right=1000), v)
    # an empty frontier: nothing reached, nothing written
    A = _containers(backend)["matrix"]  # noqa: N806
    empty = hb.Vector.new(bool, 4, backend=backend)
    seen = hb.Vector.from_coo([0], [True], size=4, backend=backend)
    assert hb.ops.vxm(empty, A, "any_pair", mask=~seen.S).nnz == 0
