"""Argument checks shared by the algorithms (cheap, O(1))."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DimensionMismatch, IndexOutOfBounds, InvalidObject
from ..matrix import Matrix


def square_matrix(A: Any, algorithm: str) -> Matrix:  # noqa: N803
    """``A`` if it is a square Matrix; InvalidObject / DimensionMismatch otherwise."""
    if not isinstance(A, Matrix):
        raise InvalidObject(f"{algorithm}: A must be a hyblas Matrix, got {type(A).__name__}")
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"{algorithm}: A must be square (an adjacency matrix), got "
                                f"{A.nrows}x{A.ncols}")  # fmt: skip
    return A


def vertex(source: Any, n: int, algorithm: str, argument: str = "source") -> int:
    """``source`` as an int in [0, n); IndexOutOfBounds / InvalidObject otherwise."""
    if isinstance(source, bool) or not isinstance(source, int | np.integer):
        raise InvalidObject(f"{algorithm}: {argument} must be an integer vertex id, got "
                            f"{source!r}")  # fmt: skip
    if not 0 <= source < n:
        raise IndexOutOfBounds(f"{algorithm}: {argument}={source} outside the {n} vertices "
                               f"[0, {n})")  # fmt: skip
    return int(source)
