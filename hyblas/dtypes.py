"""The value types hyblas stores, their CUDA C names, and how mixed types unify."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .errors import DomainMismatch, InvalidObject, InvalidValue

__all__ = [
    "DTYPES",
    "lookup",
    "unify",
    "cuda_name",
    "check_cast",
    "is_float",
    "is_bool",
    "is_real_scalar",
    "check_real_scalar",
    "dtype_of",
    "scalar",
    "short_repr",
    "int_range",
    "float_max",
    "REAL_SCALARS",
]

DTYPES: tuple[np.dtype, ...] = tuple(
    np.dtype(name)
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float32",
        "float64",
    )
)

_CUDA_NAMES = {
    "bool": "bool",
    "int8": "signed char",
    "int16": "short",
    "int32": "int",
    "int64": "long long",
    "uint8": "unsigned char",
    "uint16": "unsigned short",
    "uint32": "unsigned int",
    "uint64": "unsigned long long",
    "float32": "float",
    "float64": "double",
}


def lookup(dtype: Any, *, argument: str = "dtype") -> np.dtype:
    """The hyblas dtype for ``dtype`` (a NumPy dtype, type, or name such as ``'float32'``).

    Raises
    ------
    DomainMismatch
        If the type is not one hyblas stores.
    """
    try:
        result = np.dtype(dtype)
    except TypeError as exc:
        raise DomainMismatch(f"{argument}={dtype!r} is not a dtype") from exc
    if result not in DTYPES:
        names = ", ".join(d.name for d in DTYPES)
        raise DomainMismatch(f"{argument} has dtype {result.name}; hyblas stores only {names}")
    return result


def unify(*dtypes: np.dtype) -> np.dtype:
    """The common dtype of operands, following NumPy promotion but never past float64.

    Raises
    ------
    DomainMismatch
        If one of ``dtypes`` is not a dtype hyblas stores.
    """
    try:
        result = np.result_type(*dtypes)
    except (TypeError, ValueError):  # not dtypes, or none
        result = None
    if result is None or result not in DTYPES:  # (None == np.dtype("float64"): test it first)
        for dtype in dtypes:
            lookup(dtype, argument="an operand's dtype")  # DomainMismatch unless a hyblas one
        if result is None:
            raise InvalidValue("unify takes at least one dtype")
        result = np.dtype("float64")  # int64 with uint64 promotes to float64 in NumPy: keep it
    return result


def cuda_name(dtype: np.dtype) -> str:
    """The CUDA C type spelling of a hyblas dtype."""
    return _CUDA_NAMES[np.dtype(dtype).name]


def is_float(dtype: np.dtype) -> bool:
    """Whether the dtype is a floating-point type."""
    return np.dtype(dtype).kind == "f"


def is_bool(dtype: np.dtype) -> bool:
    """Whether the dtype is bool."""
    return np.dtype(dtype).kind == "b"


def check_cast(source: np.dtype, target: np.dtype, *, argument: str = "out") -> None:
    """Raise DomainMismatch unless ``source`` values can go into ``target`` (same-kind casting).

    int → float, bool → anything and narrowing within a kind are allowed (the values then
    written must fit ``target``: the operations' writers check them, InvalidValue otherwise);
    float → int and numbers → bool are not (use ``apply`` with an explicit cast instead).
    """
    if not np.can_cast(source, target, casting="same_kind"):
        raise DomainMismatch(
            f"{argument} has dtype {np.dtype(target).name} but the result has dtype "
            f"{np.dtype(source).name}; casting {np.dtype(source).name} -> "
            f"{np.dtype(target).name} would lose information"
        )


_INT_BOUNDS = {d: (int(np.iinfo(d).min), int(np.iinfo(d).max)) for d in DTYPES if d.kind in "iu"}
_FLOAT_MAX = {d: float(np.finfo(d).max) for d in DTYPES if d.kind == "f"}
REAL_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)
_INT64_MIN, _UINT64_MAX = -(2**63), 2**64 - 1


def int_range(dtype: np.dtype) -> tuple[int, int]:
    """The smallest and largest value of an integer dtype, as Python ints."""
    return _INT_BOUNDS[dtype]


def float_max(dtype: np.dtype) -> float:
    """The largest finite value of a float dtype."""
    return _FLOAT_MAX[dtype]


def is_real_scalar(value: Any) -> bool:
    """Whether ``value`` is one real number: a Python or NumPy bool, int or float (a 0-d NumPy
    or CuPy array of one counts too)."""
    return isinstance(value, REAL_SCALARS) or _zero_d(value)


def dtype_of(value: Any) -> np.dtype:
    """The dtype of a scalar: a NumPy scalar's or 0-d array's own (a CuPy one too, without a
    copy to the host), NumPy's for a Python number."""
    dtype = getattr(value, "dtype", None)
    return dtype if isinstance(dtype, np.dtype) else np.asarray(value).dtype


def check_real_scalar(value: Any, *, argument: str = "value") -> None:
    """InvalidObject for an array or sequence, DomainMismatch for anything else that is not
    one real number (:func:`is_real_scalar`)."""
    if not is_real_scalar(value):
        _not_a_number(value, argument)


def _zero_d(value: Any) -> bool:
    """A 0-d array (NumPy or CuPy) of bool, integers or floats."""
    return (
        getattr(value, "ndim", None) == 0
        and getattr(value, "dtype", np.dtype(object)).kind in "biuf"
    )


def scalar(value: Any, dtype: Any, *, argument: str = "value") -> np.generic:
    """``value`` as a NumPy scalar of ``dtype`` (a hyblas dtype), checked.

    A float going into an integer type is truncated (as a C cast); a number going into bool is
    True unless 0.

    Raises
    ------
    InvalidObject
        If ``value`` is an array or sequence (not one number).
    DomainMismatch
        If ``value`` is not a real number hyblas stores (a string, None, a complex, an int
        beyond 64 bits).
    InvalidValue
        If ``value`` is NaN or infinite for an integer type, or lies outside the type's range
        (a finite float too large for float32 included): the dtype cannot hold it.
    """
    dt = np.dtype(dtype)
    if not isinstance(value, REAL_SCALARS):
        if not _zero_d(value):
            _not_a_number(value, argument)
        value = value.item()  # a 0-d array (on the GPU: read once)
    if dt.kind == "b" or isinstance(value, bool | np.bool_):
        return dt.type(bool(value)) if dt.kind == "b" else dt.type(int(value))
    bounds = _INT_BOUNDS.get(dt)
    if bounds is not None:
        if isinstance(value, float | np.floating):
            if not math.isfinite(value):
                raise InvalidValue(f"{argument}={value!r} has no {dt.name} value")  # NaN, inf
            number = math.trunc(value)
        else:
            number = int(value)
            if not _INT64_MIN <= number <= _UINT64_MAX:
                raise DomainMismatch(f"{argument}={short_repr(value)} is an int beyond 64 bits")
        if not bounds[0] <= number <= bounds[1]:
            raise InvalidValue(
                f"{argument}={short_repr(value)} does not fit {dt.name} "
                f"(its values lie in [{bounds[0]}, {bounds[1]}])"
            )
        return dt.type(number)
    try:
        number = float(value)
    except OverflowError:  # an int beyond float64
        number = math.inf
    overflows = math.isfinite(number) and abs(number) > _FLOAT_MAX[dt]
    if isinstance(value, int | np.integer) and not _INT64_MIN <= int(value) <= _UINT64_MAX:
        raise DomainMismatch(f"{argument}={short_repr(value)} is an int beyond 64 bits")
    if overflows or (math.isinf(number) and not isinstance(value, float | np.floating)):
        raise InvalidValue(
            f"{argument}={short_repr(value)} does not fit {dt.name} (its largest value is "
            f"{_FLOAT_MAX[dt]:.6g})"
        )
    return dt.type(number)


def _not_a_number(value: Any, argument: str) -> None:
    if getattr(value, "ndim", None) != 0 and (
        isinstance(value, list | tuple | np.ndarray) or hasattr(value, "__array__")
    ):
        raise InvalidObject(
            f"{argument} must be one number (a scalar), got {type(value).__name__} "
            f"{short_repr(value)}"
        )
    raise DomainMismatch(
        f"{argument}={short_repr(value)} is not a number (a bool, int or float, Python or NumPy)"
    )


def short_repr(value: Any) -> str:
    """``repr(value)``, cut to 60 characters (for messages)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
