"""Checks and conversions of the arguments the containers' constructors take (shared with the
operations that take index arrays)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import to_backend
from ..errors import DimensionMismatch, IndexOutOfBounds, InvalidObject

__all__ = ["as_index_array", "check_bounds", "values_array", "check_shape", "check_size"]


def as_index_array(xp: Any, data: Any, argument: str) -> Any:
    """``data`` as a one-dimensional int64 array of ``xp``'s backend (whole floats are taken as
    integers); InvalidObject for anything else."""
    arr = to_backend(data, "cuda" if xp is not np else "cpu")
    if arr.ndim != 1:
        raise InvalidObject(f"{argument} must be one-dimensional, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and bool((arr == xp.floor(arr)).all()):
            arr = arr.astype(np.int64)
        else:
            raise InvalidObject(f"{argument} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def check_bounds(xp: Any, indices: Any, extent: int, argument: str) -> None:
    """IndexOutOfBounds unless every index lies in ``[0, extent)``."""
    if indices.size == 0:
        return
    low, high = int(indices.min()), int(indices.max())
    if low < 0 or high >= extent:
        bad = low if low < 0 else high
        raise IndexOutOfBounds(f"{argument} holds index {bad}, outside [0, {extent})")


def values_array(xp: Any, values: Any, count: int, dtype: Any, argument: str) -> Any:
    """Values as a backend array of length ``count`` (a scalar is broadcast)."""
    target = None if dtype is None else _dt.lookup(dtype)
    if values is None:
        values = 1.0 if target is None else 1
    if np.isscalar(values) or (hasattr(values, "ndim") and values.ndim == 0):
        scalar_dtype = (
            target
            if target is not None
            else _dt.lookup(np.asarray(values).dtype, argument=argument)
        )
        # DomainMismatch for a value the dtype cannot hold (1000 into int8, NaN into int64)
        return xp.full(
            count, _dt.scalar(values, scalar_dtype, argument=argument), dtype=scalar_dtype
        )
    arr = to_backend(values, "cuda" if xp is not np else "cpu")
    if arr.ndim != 1 or arr.size != count:
        raise DimensionMismatch(f"{argument} has shape {arr.shape} but there are {count} indices")
    return arr.astype(target if target is not None else _dt.lookup(arr.dtype), copy=False)


def check_shape(nrows: Any, ncols: Any) -> None:
    for name, value in (("nrows", nrows), ("ncols", ncols)):
        if not isinstance(value, int | np.integer) or value < 0:
            raise InvalidObject(f"{name} must be a non-negative integer, got {value!r}")


def check_size(size: Any) -> None:
    if not isinstance(size, int | np.integer) or size < 0:
        raise InvalidObject(f"size must be a non-negative integer, got {size!r}")
    if size > np.iinfo(np.int64).max // 2:
        raise DimensionMismatch(f"size {size} is too large")
