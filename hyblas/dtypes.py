"""The value types hyblas stores, their CUDA C names, and how mixed types unify."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import DomainMismatch

__all__ = ["DTYPES", "lookup", "unify", "cuda_name", "check_cast", "is_float", "is_bool"]

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
    """The common dtype of operands, following NumPy promotion but never past float64."""
    result = np.result_type(*dtypes)
    if result not in DTYPES:  # e.g. int64 with uint64 promotes to float64 in NumPy: keep that
        result = np.dtype("float64")
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

    int → float, bool → anything and narrowing within a kind are allowed; float → int and
    numbers → bool are not (use ``apply`` with an explicit cast instead).
    """
    if not np.can_cast(source, target, casting="same_kind"):
        raise DomainMismatch(
            f"{argument} has dtype {np.dtype(target).name} but the result has dtype "
            f"{np.dtype(source).name}; casting {np.dtype(source).name} -> "
            f"{np.dtype(target).name} would lose information"
        )
