"""Facts derived from a matrix's stored entries, computed once and cached on the matrix (in
:attr:`Matrix.cache <hyblas.containers.matrix.Matrix.cache>`, dropped whenever it changes).

The executors and operations read them instead of recomputing them per product: whether every
stored value is equal (an unweighted graph), which rows hold entries, which rows are long
enough to get a thread block of their own, each column's entry count, and the values cast to an
operand type.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..device.segments import HEAVY_ROW

__all__ = [
    "iso_value",
    "nonempty_rows",
    "heavy_rows",
    "column_counts",
    "values_as",
    "drop_value_copies",
    "SYMMETRIC_STRUCTURE",
    "known_symmetric",
    "known_symmetric_values",
    "mark_mirrored_values",
    "mark_symmetric",
    "transpose_for",
    "FACTS",
]

# the cache key of whether the matrix's structure is symmetric, as hyblas.Graph stores it
SYMMETRIC_STRUCTURE = ("graph", "is_symmetric_structure")


def known_symmetric(matrix: Any) -> bool:
    """Whether ``matrix`` is known to be structurally symmetric without a check: an undirected
    :class:`~hyblas.Graph` found it so, or was told so (``check=False``), and the matrix has
    not changed since. Then the matrix is its own transpose's pattern."""
    return bool(matrix.cache.get(SYMMETRIC_STRUCTURE))


def mark_symmetric(matrix: Any) -> None:
    """Record that ``matrix``'s structure is symmetric (dropped when the matrix changes)."""
    matrix.cache[SYMMETRIC_STRUCTURE] = True


# the cache key of whether every stored A[i, j] equals A[j, i] where that is stored too
MIRRORED_VALUES = ("values", "agree_with_mirror")

#: What is known of a matrix's entries, cached with its derived forms but holding no memory:
#: true until the entries change, so ``clear_cache`` keeps it (knowing a structure symmetric
#: again takes a transpose; that values mirror, a check hyblas never makes by itself).
FACTS = frozenset({SYMMETRIC_STRUCTURE, MIRRORED_VALUES, "iso_value"})


def mark_mirrored_values(matrix: Any) -> None:
    """Record that ``matrix``'s values agree with their mirror: ``A[i, j] == A[j, i]``
    wherever both are stored (as :func:`hyblas.generators.random_weights` makes them);
    dropped when the matrix changes."""
    matrix.cache[MIRRORED_VALUES] = True


def known_symmetric_values(matrix: Any) -> bool:
    """Whether ``matrix`` is known to equal its transpose, values included: its structure is
    known symmetric (:func:`known_symmetric`) and its values agree with their mirror (marked
    so, or all equal). Then ``matrix.T`` is ``matrix`` itself."""
    if not known_symmetric(matrix):
        return False
    return bool(matrix.cache.get(MIRRORED_VALUES)) or iso_value(matrix) is not None


def transpose_for(matrix: Any, *, reads_values: bool) -> Any:
    """What stands for ``matrix``'s transpose in a product: ``matrix.T`` (``matrix`` itself
    where it equals its transpose, :func:`known_symmetric_values`), or ``matrix`` where its
    structure is known symmetric (:func:`known_symmetric`) and the product reads only the
    pattern, not the values (then no transpose is built either)."""
    if not reads_values and known_symmetric(matrix):
        return matrix
    return matrix.T


def iso_value(matrix: Any) -> Any:
    """The one value every stored entry of ``matrix`` holds (a NumPy scalar), or None if the
    entries differ or there are none. An unweighted graph's adjacency matrix is iso: its
    products need no weights, and its row sums are its degrees."""
    cache = matrix.cache
    if "iso_value" not in cache:
        values = matrix.values
        iso = None
        if values.size and bool((values == values[:1]).all()):  # a NaN is unequal: not iso
            iso = values.dtype.type(values[:1].item())
        cache["iso_value"] = iso
    return cache["iso_value"]


def nonempty_rows(matrix: Any) -> tuple[Any, int]:
    """(flags, count) of the rows holding at least one entry: the outputs a product with a full
    input vector produces."""
    cache = matrix.cache
    if "nonempty_rows" not in cache:
        nonempty = matrix.xp.diff(matrix.indptr) > 0
        cache["nonempty_rows"] = (nonempty, int(nonempty.sum()))
    return cache["nonempty_rows"]


def heavy_rows(matrix: Any, threshold: int = HEAVY_ROW) -> Any:
    """Rows with more than ``threshold`` entries (int64 ids): the rows the CSR kernels and the
    segmented reduction walk with a whole thread block."""
    cache = matrix.cache
    key = ("heavy_rows", threshold)
    if key not in cache:
        degrees = matrix.xp.diff(matrix.indptr)
        cache[key] = matrix.xp.flatnonzero(degrees > threshold).astype(np.int64)
    return cache[key]


def column_counts(matrix: Any) -> Any:
    """Entries per column (for an edge matrix, each input's out-degree)."""
    cache = matrix.cache
    if "column_counts" not in cache:
        cache["column_counts"] = matrix.xp.bincount(matrix.indices, minlength=matrix.ncols)
    return cache["column_counts"]


def drop_value_copies(matrix: Any) -> None:
    """Forget the converted copies of the matrix's values that :func:`values_as` cached (each
    as large as the values, or twice that): they are made again if asked for."""
    for key in [k for k in matrix.cache if isinstance(k, tuple) and k[0] == "values_as"]:
        del matrix.cache[key]


def values_as(matrix: Any, dtype: np.dtype) -> Any:
    """The matrix's values as ``dtype`` (the converted copy is cached)."""
    dtype = np.dtype(dtype)
    if matrix.dtype == dtype:
        return matrix.values
    cache = matrix.cache
    key = ("values_as", dtype.str)
    if key not in cache:
        cache[key] = matrix.values.astype(dtype)
    return cache[key]
