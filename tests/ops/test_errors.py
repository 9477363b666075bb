"""Bad input raises the right hyblas error, names the argument, and leaves ``out`` unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hyblas as hb
from hyblas import errors

#   A (2x3) int64        u (3)       w (2): the output, checked unchanged after each failure
#   [ 1  .  2 ]          [ 1 . 2 ]   [ 9 . ]
#   [ .  3  . ]


@pytest.fixture
def objs(backend: str) -> dict[str, Any]:
    return {
        "A": hb.Matrix.from_coo([0, 0, 1], [0, 2, 1], [1, 2, 3], nrows=2, ncols=3, backend=backend),
        "u": hb.Vector.from_coo([0, 2], [1, 2], size=3, backend=backend),
        "w": hb.Vector.from_coo([0], [9], size=2, backend=backend),
        "C": hb.Matrix.from_coo([1], [1], [4], nrows=2, ncols=2, backend=backend),
        "b": hb.Vector.from_coo([1], [5], size=4, backend=backend),  # wrong size
    }


def _snapshot(x: Any) -> tuple:
    return tuple(a.tolist() for a in x.to_coo()) + (str(x.dtype), x.shape)


def raises_unchanged(exc: type, match: str | None, out: Any, fn: Callable[[], Any]) -> None:
    """``fn()`` raises ``exc`` (message matching ``match``) and ``out`` is left as it was."""
    before = _snapshot(out)
    with pytest.raises(exc, match=match):
        fn()
    assert _snapshot(out) == before


def test_every_error_is_a_hyblas_error() -> None:
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.HyblasError)
    assert issubclass(errors.DimensionMismatch, ValueError)
    assert issubclass(errors.DomainMismatch, TypeError)
    assert issubclass(errors.IndexOutOfBounds, IndexError)


def test_dimension_mismatch(objs: dict[str, Any]) -> None:
    A, w, b, C = objs["A"], objs["w"], objs["b"], objs["C"]  # noqa: N806
    raises_unchanged(
        errors.DimensionMismatch,
        "u has size 4 but A has 3 columns",
        w,
        lambda: hb.ops.mxv(A, b, hb.semiring.plus_times, out=w),
    )
    raises_unchanged(
        errors.DimensionMismatch,
        "u has size 4 but A has 2 rows",
        w,
        lambda: hb.ops.vxm(b, A, "plus_times", out=w),
    )
    raises_unchanged(
        errors.DimensionMismatch,
        "mask has shape",
        w,
        lambda: hb.ops.mxv(A, objs["u"], "plus_times", mask=b.S, out=w),
    )
    raises_unchanged(
        errors.DimensionMismatch,
        "out has shape",
        C,
        lambda: hb.ops.mxm(A, A.T, "plus_times", out=hb.Matrix.new(int, 3, 3)),
    )
    raises_unchanged(
        errors.DimensionMismatch, "A is 2x3 but B is 2x3", C, lambda: hb.ops.mxm(A, A, "plus_times")
    )
    raises_unchanged(
        errors.DimensionMismatch, "x has shape", w, lambda: hb.ops.ewise_add(w, b, "plus", out=w)
    )
    raises_unchanged(
        errors.DimensionMismatch, "value has size", w, lambda: hb.ops.assign(w, objs["u"], [0, 1])
    )
    raises_unchanged(
        errors.DimensionMismatch, "value has shape", C, lambda: hb.ops.assign(C, A, None, None)
    )
    with pytest.raises(errors.DimensionMismatch, match="rows has 2 entries but cols has 1"):
        hb.Matrix.from_coo([0, 1], [0], [1, 2])


def test_domain_mismatch(objs: dict[str, Any], backend: str) -> None:
    A, u, w = objs["A"], objs["u"], objs["w"]  # noqa: N806
    Af = hb.Matrix.from_coo([0], [0], [1.5], nrows=2, ncols=3, backend=backend)  # noqa: N806
    # a float result into an int out
    raises_unchanged(
        errors.DomainMismatch,
        "out has dtype int64",
        w,
        lambda: hb.ops.mxv(Af, u, "plus_times", out=w),
    )
    raises_unchanged(
        errors.DomainMismatch, "out has dtype int64", w, lambda: hb.ops.assign(w, 2.5, None)
    )
    # an operator that does not serve the operands' dtype
    raises_unchanged(
        errors.DomainMismatch,
        "bor",
        w,
        lambda: hb.ops.ewise_add(w, w.dup(np.float64), hb.binary.bor),
    )
    raises_unchanged(
        errors.DomainMismatch,
        "does not serve dtype bool",
        w,
        lambda: hb.ops.mxv(A.dup(bool), u.dup(bool), "plus_minus", out=w),
    )
    raises_unchanged(errors.DomainMismatch, None, w, lambda: hb.ops.apply(w, hb.unary.sqrt, out=w))
    with pytest.raises(errors.DomainMismatch, match="complex64"):
        hb.Vector.new(np.complex64, 3, backend=backend)


def test_index_out_of_bounds(objs: dict[str, Any], backend: str) -> None:
    w, u = objs["w"], objs["u"]
    with pytest.raises(errors.IndexOutOfBounds, match="rows holds index 5"):
        hb.Matrix.from_coo([5], [0], [1], nrows=2, ncols=2, backend=backend)
    with pytest.raises(errors.IndexOutOfBounds, match="indices holds index -1"):
        hb.Vector.from_coo([-1], [1], size=3, backend=backend)
    raises_unchanged(
        errors.IndexOutOfBounds,
        "indices holds index 7",
        w,
        lambda: hb.ops.extract(u, [0, 7], out=w),
    )
    raises_unchanged(
        errors.IndexOutOfBounds, "indices holds index 2", w, lambda: hb.ops.assign(w, 1, [2])
    )
    raises_unchanged(
        errors.IndexOutOfBounds, "rows=4", w, lambda: hb.ops.extract(objs["A"], 4, None)
    )
    with pytest.raises(errors.IndexOutOfBounds):
        u.get(3)


def test_invalid_value(objs: dict[str, Any]) -> None:
    A, u, w = objs["A"], objs["u"], objs["w"]  # noqa: N806
    raises_unchanged(
        errors.InvalidValue,
        "'no_such_semiring'",
        w,
        lambda: hb.ops.mxv(A, u, "no_such_semiring", out=w),
    )
    raises_unchanged(
        errors.InvalidValue,
        "executor must be one of",
        w,
        lambda: hb.ops.mxv(A, u, "plus_times", out=w, executor="fastest"),
    )
    raises_unchanged(
        errors.InvalidValue, "repeated indices", w, lambda: hb.ops.assign(w, 1, [0, 0])
    )
    raises_unchanged(
        errors.InvalidValue,
        "exactly one of left= or right=",
        w,
        lambda: hb.ops.apply(w, hb.binary.plus, out=w),
    )
    raises_unchanged(
        errors.InvalidValue, "takes one index", w, lambda: hb.ops.extract(u, 0, 1, out=w)
    )
    with pytest.raises(errors.InvalidValue, match="duplicate"):
        hb.Matrix.from_coo([0, 0], [1, 1], [1, 2])


def test_invalid_object(objs: dict[str, Any]) -> None:
    A, u, w, C = objs["A"], objs["u"], objs["w"], objs["C"]  # noqa: N806
    raises_unchanged(
        errors.InvalidObject,
        "u must be a Vector",
        w,
        lambda: hb.ops.mxv(A, np.ones(3), "plus_times", out=w),
    )
    raises_unchanged(
        errors.InvalidObject, "A must be a Matrix", w, lambda: hb.ops.mxv(u, u, "plus_times", out=w)
    )
    raises_unchanged(
        errors.InvalidObject,
        "out must be a Vector",
        C,
        lambda: hb.ops.mxv(A, u, "plus_times", out=C),
    )
    raises_unchanged(
        errors.InvalidObject,
        "mask must be",
        w,
        lambda: hb.ops.mxv(A, u, "plus_times", mask=[1, 0], out=w),
    )
    raises_unchanged(
        errors.InvalidObject,
        "semiring must be a Semiring",
        w,
        lambda: hb.ops.mxv(A, u, hb.binary.plus, out=w),
    )
    raises_unchanged(
        errors.InvalidObject,
        "x is a Vector but y is a Matrix",
        w,
        lambda: hb.ops.ewise_mult(w, C, "times", out=w),
    )
    raises_unchanged(
        errors.InvalidObject,
        "accum must be a BinaryOp",
        w,
        lambda: hb.ops.apply(w, hb.unary.abs, accum="plus", out=w),
    )
    with pytest.raises(errors.InvalidObject, match="nrows must be a non-negative integer"):
        hb.Matrix.new(int, -1, 2)


def test_typed_lookup_of_unserved_dtype_is_key_error() -> None:
    with pytest.raises(KeyError, match="complex64"):
        hb.semiring.min_plus["complex64"]
    with pytest.raises(KeyError, match="float32"):
        hb.binary.bor[np.float32]
    with pytest.raises(KeyError, match="no semiring named"):
        hb.semiring["min_pluss"]
    with pytest.raises(AttributeError, match="did you mean min_plus"):
        hb.semiring.min_pluss  # noqa: B018


def test_backend_error_without_gpu(cuda_usable: bool) -> None:
    if cuda_usable:
        pytest.skip("this machine has a usable GPU; 'cuda' does not fail here")
    before = hb.backend()
    with pytest.raises(errors.BackendError, match="'cuda'"):
        hb.set_backend("cuda")
    assert hb.backend() == before  # the failed switch changed nothing
    with pytest.raises(errors.BackendError, match="'cuda'"):
        hb.Vector.new(int, 3, backend="cuda")
    with pytest.raises(errors.BackendError, match="backend must be one of"):
        hb.set_backend("tpu")


@pytest.mark.gpu
def test_backend_error_mixing_backends(cuda_usable: bool) -> None:
    if not cuda_usable:
        pytest.skip("mixing backends needs a usable GPU; hyblas.cuda_available() is False")
    A = hb.Matrix.from_coo([0], [0], [1.0], nrows=2, ncols=2, backend="cuda")  # noqa: N806
    u = hb.Vector.from_coo([0], [1.0], size=2, backend="cpu")
    w = hb.Vector.from_coo([1], [3.0], size=2, backend="cuda")
    raises_unchanged(
        errors.BackendError, "different backends", w, lambda: hb.ops.mxv(A, u, "plus_times", out=w)
    )
    raises_unchanged(
        errors.BackendError,
        "different backends",
        w,
        lambda: hb.ops.mxv(A, w, "plus_times", mask=u.S, out=w),
    )
