"""Checks and conversions of the arguments the containers' constructors take (shared with the
operations that take index arrays).

Nothing here writes into an array it is given; an array it returns may be the one given (the
constructors copy before they store)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import is_cuda_array, to_backend
from ..errors import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBounds,
    InvalidObject,
    InvalidValue,
)
from ..operators.classes import BinaryOp

__all__ = [
    "array_of",
    "as_index_array",
    "check_bounds",
    "values_array",
    "cast_values",
    "check_dup_op",
    "check_tolerance",
    "scalar_value",
    "check_scalar",
    "present_unless",
    "check_shape",
    "check_size",
]

_INT64 = np.iinfo(np.int64)
_INT64_MIN, _UINT64_MAX = int(_INT64.min), int(np.iinfo(np.uint64).max)
#: The largest number of rows or columns: ``nrows + 1`` row pointers must still be numbered.
MAX_EXTENT = int(_INT64.max) - 1


def _is_integer(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def array_of(data: Any, argument: str, what: str) -> Any:
    """``data`` as an array where it is (a CuPy array as it is, anything else as a NumPy
    array, not copied where it already is one), so that its dtype can be looked at before it
    moves; InvalidObject for what makes no array (a ragged list)."""
    if is_cuda_array(data):
        return data
    try:
        return np.asarray(data)
    except (OverflowError, TypeError, ValueError) as exc:
        raise InvalidObject(f"{argument} must be an array of {what}: {exc}") from exc


def _backend_of(xp: Any) -> str:
    return "cuda" if xp is not np else "cpu"


def as_index_array(xp: Any, data: Any, argument: str) -> Any:
    """``data`` as a one-dimensional int64 array of ``xp``'s backend (whole floats are taken as
    integers); InvalidObject for anything else, IndexOutOfBounds for an index int64 cannot
    hold."""
    arr = array_of(data, argument, "integers")
    if arr.ndim != 1:
        raise InvalidObject(f"{argument} must be one-dimensional, got shape {arr.shape}")
    kind = arr.dtype.kind
    if arr.size and kind not in "iuf":  # e.g. bool, str, object (ints beyond 64 bits)
        raise InvalidObject(f"{argument} must hold integers, got dtype {arr.dtype}")
    arr = to_backend(arr, _backend_of(xp))
    if arr.size == 0:
        return arr.astype(np.int64)
    if kind == "f":
        whole = bool((xp.isfinite(arr) & (arr == xp.floor(arr))).all())
        if not whole:
            raise InvalidObject(
                f"{argument} must hold integers, got dtype {arr.dtype} with non-integer values"
            )
        low, high = float(arr.min()), float(arr.max())
        if low < _INT64.min or high >= 2.0**63:
            bad = low if low < _INT64.min else high
            raise IndexOutOfBounds(f"{argument} holds index {bad:g}, beyond int64")
    elif kind == "u" and arr.dtype.itemsize == 8 and int(arr.max()) > _INT64.max:
        raise IndexOutOfBounds(f"{argument} holds index {int(arr.max())}, beyond int64")
    return arr.astype(np.int64, copy=False)


def check_bounds(xp: Any, indices: Any, extent: int, argument: str) -> None:
    """IndexOutOfBounds unless every index lies in ``[0, extent)``."""
    if indices.size == 0:
        return
    low, high = int(indices.min()), int(indices.max())
    if low < 0 or high >= extent:
        bad = low if low < 0 else high
        raise IndexOutOfBounds(f"{argument} holds index {bad}, outside [0, {extent})")


def cast_values(xp: Any, arr: Any, target: np.dtype, argument: str) -> Any:
    """``arr`` as ``target`` (the same array when it already is); InvalidValue where the cast
    would change a value beyond rounding: a value that is not an integer, or lies outside the
    range, of an integer ``target``, or a finite value that overflows a float ``target`` to
    infinity. Casts to bool (nonzero is True) and float roundings pass."""
    source = arr.dtype
    if source == target or arr.size == 0 or np.can_cast(source, target, "safe"):
        return arr.astype(target, copy=False)
    if target.kind == "f":
        with np.errstate(over="ignore"):  # an overflow is reported below, with its value
            cast = arr.astype(target)
        overflow = xp.isinf(cast) & xp.isfinite(arr)
        if bool(overflow.any()):
            at = int(xp.flatnonzero(overflow)[0])
            raise InvalidValue(
                f"{argument}[{at}] = {arr[at].item()!r} overflows {target.name} "
                f"(largest finite {np.finfo(target).max})"
            )
        return cast
    if target.kind in "iu" and source.kind in "fiu":
        if source.kind == "f":
            whole = xp.isfinite(arr) & (arr == xp.floor(arr))
            if not bool(whole.all()):
                at = int(xp.flatnonzero(~whole)[0])
                raise InvalidValue(
                    f"{argument}[{at}] = {arr[at].item()!r} is not an integer; "
                    f"{target.name} cannot hold it"
                )
        info = np.iinfo(target)
        low, high = arr.min().item(), arr.max().item()
        if low < info.min or high > info.max:
            bad = low if low < info.min else high
            raise InvalidValue(
                f"{argument} holds {bad!r}, outside the range [{info.min}, {info.max}] "
                f"of {target.name}"
            )
    return arr.astype(target, copy=False)


def check_dup_op(dup_op: Any, dtype: np.dtype) -> None:
    """Check a build's ``dup_op`` (None: repeats are refused) against the dtype of the values
    it would combine, before any work: it must take two values of ``dtype`` as they are and
    give one of ``dtype``, as a fold of the repeated values does.

    Raises
    ------
    InvalidObject
        If ``dup_op`` is neither None nor a BinaryOp.
    DomainMismatch
        If it does not serve ``dtype`` (``binary.bor`` on floats, ``binary.div`` on integers),
        takes another type (a logical operator casts to bool; an operator typed for another
        dtype) or gives another (``binary.lt`` gives bool).
    """
    if dup_op is None:
        return
    if not isinstance(dup_op, BinaryOp):
        raise InvalidObject(f"dup_op must be a BinaryOp, got {dup_op!r}")
    if dup_op.dtype is None and dup_op.cast_inputs_to is None and dtype not in dup_op.types:
        served = ", ".join(sorted(t.name for t in dup_op.types))
        raise DomainMismatch(
            f"dup_op {dup_op!r} does not serve {dtype.name}, the dtype of the values it would "
            f"combine (it serves {served})"
        )
    taken = dup_op.input_type(dtype)
    given = dup_op.output_type(taken)
    if taken != dtype or given != dtype:
        raise DomainMismatch(
            f"dup_op {dup_op!r} takes {taken.name} and gives {given.name}, but the values it "
            f"would combine are {dtype.name}: a dup_op must take and give the values' dtype"
        )


def check_tolerance(value: Any, argument: str) -> float:
    """A tolerance of ``isclose`` as a float: InvalidObject unless it is a real number (a
    Python or NumPy int or float, not a bool), InvalidValue unless it is finite and >= 0
    (NumPy's allclose takes no infinite one)."""
    if isinstance(value, bool | np.bool_) or not isinstance(
        value, int | float | np.integer | np.floating
    ):
        raise InvalidObject(f"{argument} must be a real number, got {_dt.short_repr(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int beyond float64
        number = math.inf
    if not 0 <= number < math.inf:
        raise InvalidValue(f"{argument} must be finite and >= 0, got {_dt.short_repr(value)}")
    return number


def check_scalar(value: Any, argument: str) -> Any:
    """``value`` if it is a real number or a bool (a Python or NumPy scalar, or a 0-d array),
    else InvalidObject."""
    if isinstance(value, str | bytes) or not (
        np.isscalar(value) or (hasattr(value, "ndim") and value.ndim == 0)
    ):
        raise InvalidObject(f"{argument} must be a number or a bool, got {value!r}")
    if np.asarray(value).dtype.kind not in "biuf":
        raise InvalidObject(f"{argument} must be a number or a bool, got {value!r}")
    return value


def scalar_value(value: Any, dtype: Any, argument: str) -> tuple[Any, np.dtype]:
    """``(value as a 0-d NumPy array of the dtype, the dtype)``: ``dtype``, or the value's own
    when None; DomainMismatch for a value of a type hyblas does not store (a str, an int
    beyond 64 bits), InvalidValue where the cast changes the value (as :func:`cast_values`)."""
    if np.ndim(value) != 0:
        raise InvalidObject(f"{argument} must be one number (a scalar), got {type(value).__name__}")
    host = np.asarray(value)
    own = _dt.lookup(host.dtype, argument=argument)
    target = _dt.lookup(dtype, argument="dtype") if dtype is not None else own
    return cast_values(np, host.reshape(1), target, argument).reshape(()), target


def values_array(xp: Any, values: Any, count: int, dtype: Any, argument: str) -> Any:
    """Values as a backend array of length ``count`` (a scalar is broadcast), cast to
    ``dtype`` when given (InvalidValue where that would change a value). The Python ints of a
    list or tuple are converted exactly (:func:`_exact_numbers`) where NumPy may have rounded
    them (:func:`_maybe_rounded`); DomainMismatch for one beyond 64 bits."""
    target = None if dtype is None else _dt.lookup(dtype)
    if values is None:
        values = 1.0 if target is None else 1
    if np.isscalar(values) or (hasattr(values, "ndim") and values.ndim == 0):
        scalar, scalar_dtype = scalar_value(values, target, argument)
        return xp.full(count, scalar, dtype=scalar_dtype)
    arr = array_of(values, argument, "numbers")
    if arr.ndim != 1 or arr.size != count:
        raise DimensionMismatch(f"{argument} has shape {arr.shape} but there are {count} indices")
    kind = arr.dtype.kind
    if (kind == "O" or (kind == "f" and target is not None and target.kind in "iu")) and (
        isinstance(values, list | tuple) and _maybe_rounded(arr)
    ):
        exact = _exact_numbers(values, target, argument)
        if exact is not None:
            return to_backend(exact, _backend_of(xp))
    own = _dt.lookup(arr.dtype, argument=argument)
    arr = to_backend(arr, _backend_of(xp))
    return cast_values(xp, arr, target if target is not None else own, argument)


#: Every integer of smaller magnitude is a float64 exactly.
_EXACT_IN_FLOAT64 = 2.0**53


def _maybe_rounded(arr: np.ndarray) -> bool:
    """Whether NumPy may have rounded Python ints of a list on the way to ``arr``, an object
    array (ints beyond 64 bits among them) or a float64 one going into an integer dtype (ints
    beyond int64 among them, or ints mixed with floats): one of 2**53 or more. One pass over
    the array, only for such a list."""
    if arr.dtype.kind == "O":
        return True
    return arr.size > 0 and not float(np.abs(arr).max()) < _EXACT_IN_FLOAT64  # NaN: refused


def _exact_numbers(items: Any, target: np.dtype | None, argument: str) -> np.ndarray | None:
    """The numbers of a Python list as a NumPy array of ``target``, each converted from its own
    exact value (not through a float64 NumPy inferred): an integer ``target`` takes Python
    ints and whole floats in its range. None where an item is not a number (the dtype checks
    name it); DomainMismatch for an int beyond 64 bits; InvalidValue, as
    :func:`cast_values`, for a number ``target`` cannot hold."""
    numbers = list(items)
    for at, item in enumerate(numbers):
        if not isinstance(item, _dt.REAL_SCALARS):
            return None
        if _is_integer(item) and not _INT64_MIN <= int(item) <= _UINT64_MAX:
            raise DomainMismatch(
                f"{argument}[{at}] = {_dt.short_repr(item)} is an int beyond 64 bits"
            )
    if target is None:  # a list NumPy made objects of: its dtype is no hyblas dtype
        return None
    if target.kind not in "iu":  # rounding to a float is no loss; overflow is checked
        with np.errstate(over="ignore"):
            floats = np.array([float(item) for item in numbers], dtype=np.float64)
        return cast_values(np, floats, target, argument)
    whole = []
    for at, item in enumerate(numbers):
        if isinstance(item, float | np.floating):
            if not (math.isfinite(item) and item == math.floor(item)):
                raise InvalidValue(
                    f"{argument}[{at}] = {item!r} is not an integer; {target.name} cannot hold it"
                )
        whole.append(int(item))
    info = np.iinfo(target)
    low, high = min(whole), max(whole)
    if low < info.min or high > info.max:
        bad = low if low < info.min else high
        raise InvalidValue(
            f"{argument} holds {bad!r}, outside the range [{info.min}, {info.max}] of {target.name}"
        )
    return np.array(whole, dtype=target)


def present_unless(xp: Any, arr: Any, missing_value: Any) -> Any:
    """Where the elements of ``arr`` are entries: all of them (``missing_value`` None), else
    those not equal to ``missing_value`` (NaN: those that are not NaN)."""
    if missing_value is None:
        return xp.ones(arr.shape, dtype=bool)
    check_scalar(missing_value, "missing_value")
    if isinstance(missing_value, float | np.floating) and math.isnan(missing_value):
        return ~xp.isnan(arr) if arr.dtype.kind == "f" else xp.ones(arr.shape, dtype=bool)
    return arr != missing_value


def check_shape(nrows: Any, ncols: Any) -> None:
    """InvalidObject unless both are non-negative integers; DimensionMismatch above
    :data:`MAX_EXTENT`."""
    for name, value in (("nrows", nrows), ("ncols", ncols)):
        if not _is_integer(value) or value < 0:
            raise InvalidObject(f"{name} must be a non-negative integer, got {value!r}")
        if value > MAX_EXTENT:
            raise DimensionMismatch(f"{name}={value} is too large (at most {MAX_EXTENT})")


#: The largest size of a Vector: an int64 array over all its positions stays below 2**63
#: bytes (larger ones CuPy's ``arange`` miscounts instead of failing).
MAX_SIZE = 2**60 - 1


def check_size(size: Any) -> None:
    """InvalidObject unless ``size`` is a non-negative integer; DimensionMismatch above
    :data:`MAX_SIZE`."""
    if not _is_integer(size) or size < 0:
        raise InvalidObject(f"size must be a non-negative integer, got {size!r}")
    if size > MAX_SIZE:
        raise DimensionMismatch(f"size {size} is too large (at most 2**60 - 1 = {MAX_SIZE})")
