"""Argument checks shared by the algorithms (cheap, O(1))."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import is_cuda_array, to_numpy
from ..containers.matrix import Matrix
from ..dtypes import short_repr
from ..errors import IndexOutOfBounds, InvalidObject, InvalidValue
from ..graph import as_graph


def adjacency(A: Any, algorithm: str) -> Matrix:  # noqa: N803
    """The adjacency matrix of ``A``: a Graph's (checked again if its matrix changed), or
    ``A`` itself if it is a square Matrix; InvalidObject / DimensionMismatch otherwise."""
    return as_graph(A, algorithm).A


def vertex(source: Any, n: int, algorithm: str, argument: str = "source") -> int:
    """``source`` as an int in [0, n); IndexOutOfBounds / InvalidObject otherwise."""
    if isinstance(source, bool) or not isinstance(source, int | np.integer):
        raise InvalidObject(f"{algorithm}: {argument} must be an integer vertex id, got {source!r}")
    if not 0 <= source < n:
        raise IndexOutOfBounds(
            f"{algorithm}: {argument}={source} outside the {n} vertices [0, {n})"
        )
    return int(source)


def vertices(sources: Any, n: int, algorithm: str, argument: str = "sources") -> np.ndarray:
    """``sources`` as a host int64 array of vertex ids in [0, n) (repeats kept).

    Accepts a sequence or a 1-D NumPy / CuPy integer array; an empty sequence is fine.
    InvalidObject for anything not one-dimensional or not integer, IndexOutOfBounds for an id
    outside [0, n).
    """
    if isinstance(sources, int | np.integer | str | bytes) or sources is None:
        raise InvalidObject(
            f"{algorithm}: {argument} must be a 1-D sequence of vertex ids, got {sources!r}"
        )
    try:
        arr = to_numpy(sources) if is_cuda_array(sources) else np.asarray(sources)
    except (TypeError, ValueError) as exc:
        raise InvalidObject(
            f"{algorithm}: {argument} must be a 1-D sequence of vertex ids, got "
            f"{type(sources).__name__}"
        ) from exc
    if arr.ndim != 1:
        raise InvalidObject(
            f"{algorithm}: {argument} must be one-dimensional, got shape {arr.shape}"
        )
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidObject(
            f"{algorithm}: {argument} must hold integer vertex ids, got dtype {arr.dtype}"
        )
    low, high = int(arr.min()), int(arr.max())
    if low < 0 or high >= n:
        bad = low if low < 0 else high
        raise IndexOutOfBounds(
            f"{algorithm}: {argument} holds vertex {bad}, outside the {n} vertices [0, {n})"
        )
    return arr.astype(np.int64)


def flag(value: Any, algorithm: str, argument: str) -> bool:
    """``value`` as a bool if it is one (Python or NumPy); InvalidObject otherwise."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise InvalidObject(f"{algorithm}: {argument} must be True or False, got {short_repr(value)}")


def real(value: Any, algorithm: str, argument: str) -> float:
    """``value`` as a float if it is a real number (not a bool); InvalidValue otherwise (the
    ValueError ``float()`` raised for a string)."""
    if isinstance(value, bool | np.bool_) or not isinstance(
        value, int | float | np.integer | np.floating
    ):
        raise InvalidValue(f"{algorithm}: {argument} must be a number, got {short_repr(value)}")
    return float(value)


def count(value: Any, algorithm: str, argument: str, least: int) -> int:
    """``value`` as an int >= ``least`` (a whole float such as ``1e3`` counts); InvalidValue
    otherwise."""
    if isinstance(value, float | np.floating) and float(value).is_integer():
        value = int(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise InvalidValue(
            f"{algorithm}: {argument} must be an integer >= {least}, got {short_repr(value)}"
        )
    if value < least:
        raise InvalidValue(f"{algorithm}: {argument} must be at least {least}, got {value}")
    return int(value)
