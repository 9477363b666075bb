"""The sparse-frontier (MultiGraphS) layout: push adjacency with outputs grouped by in-degree.

The edge matrix ``E`` has rows = outputs and columns = inputs (``A`` for ``mxv``, ``Aᵀ`` for
``vxm``). The layout is the CSR of ``Eᵀ`` — each input's out-edges — built on the device with
vectorized array code and cached on the edge matrix:

- **Groups.** Outputs are renumbered internally by in-degree group (``params.group_bounds``;
  the groups in that order, ids ascending within a group). ``output_order[k]`` is the user id
  of internal output ``k``. The first ``params.shared_groups`` groups hold the *high*
  in-degree outputs, internal ids ``[0, high_count)``; a kernel cuts that range into
  segments of ``params.segment`` outputs and accumulates a segment in shared memory.
- **Push adjacency.** ``push_indptr`` / ``push_dst`` / ``push_weights``: the edges of input
  ``j`` are ``push_indptr[j] : push_indptr[j+1]``, sorted by internal output id, so its edges
  into high outputs come first, up to ``push_split[j]``, in segment order. Those store the
  *internal* id (a segment offset away from a shared-memory slot); the rest store the *user*
  id, because they are combined straight into the user-indexed output with global atomics
  and need no translation.
- **Iso matrices** (every stored value equal, e.g. an unweighted graph) keep no weights.

The **flat layout** (:func:`flat_layout`) is the push adjacency with no high outputs: the CSR of
``Eᵀ`` as it is, every output combined with global atomics. When that CSR is already at hand —
``vxm`` multiplies by ``A`` and pushes over ``A``'s own rows, ``mxv`` once ``A.T`` exists — the
flat layout borrows its arrays and costs no build, so ``executor='auto'`` can push a small
frontier on a matrix it has no layout for yet.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...backend import to_numpy, translate_oom
from ...containers import derived
from ...device import arrays as _prim
from .params import SparseParams

__all__ = ["SparseLayout", "build_layout", "layout_of", "flat_layout", "FLAT_KEY"]


@dataclass
class SparseLayout:
    """Device arrays of the push adjacency (see the module docstring)."""

    nrows: int  # outputs
    ncols: int  # inputs
    group_bounds: tuple[int, ...]
    group_start: tuple[int, ...]  # internal id where each group starts, and the end
    high_count: int  # internal ids [0, high_count) are the high in-degree outputs
    output_order: Any  # internal output id -> user id (index dtype)
    push_indptr: Any  # int64, ncols + 1
    push_split: Any  # int64, ncols: end of each input's edges into high outputs
    push_dst: Any  # index dtype: internal id before push_split, user id after
    push_weights: Any  # matrix dtype, aligned with push_dst (None when iso)
    iso_value: Any  # the one stored value of an iso matrix (NumPy scalar), else None
    build_seconds: float
    borrowed: tuple[str, ...] = ()  # fields that are another matrix's arrays (flat layout)

    @property
    def nnz(self) -> int:
        return int(self.push_dst.size)

    def nbytes(self) -> int:
        """Device bytes the layout holds (not the per-call or cached work arrays, nor the
        arrays it borrows)."""
        return sum(
            int(v.nbytes)
            for k, v in vars(self).items()
            if hasattr(v, "shape") and not k.startswith("_") and k not in self.borrowed
        )

    def weights_as(self, dtype: np.dtype) -> Any:
        """``push_weights`` cast to ``dtype`` (cached)."""
        key = f"_weights_as_{np.dtype(dtype).str}"
        cached = self.__dict__.get(key)
        if cached is None:
            cached = self.push_weights.astype(dtype, copy=False)
            self.__dict__[key] = cached
        return cached

    def stats(self) -> dict[str, Any]:
        """Sizes worth reporting: group sizes, high outputs, memory, build time."""
        starts = self.group_start
        return {
            "group_sizes": [starts[g + 1] - starts[g] for g in range(len(starts) - 1)],
            "high_outputs": self.high_count,
            "iso": self.iso_value is not None,
            "layout_bytes": self.nbytes(),
            "build_s": self.build_seconds,
        }


def layout_key(params: SparseParams) -> tuple[Any, ...]:
    """What the layout depends on: the other parameters only shape the kernels."""
    return ("sparse_layout", params.group_bounds, params.shared_groups)


FLAT_KEY = ("sparse_flat_layout",)


def layout_of(matrix: Any, params: SparseParams, *, build: bool = True) -> SparseLayout:
    """The sparse layout of ``matrix`` (as the edge matrix) for ``params``, cached on it.

    ``build=False``: a layout for ``params`` if one is built already, else the flat layout if
    the CSR of the transpose is at hand (:func:`flat_layout`), else the layout is built.
    """
    key = layout_key(params)
    if key not in matrix.cache:
        if not build:
            flat = flat_layout(matrix)
            if flat is not None:
                return flat
        with translate_oom("building the sparse executor's layout"):  # cached only when whole
            matrix.cache[key] = build_layout(matrix, params)
    return matrix.cache[key]


def flat_layout(matrix: Any) -> SparseLayout | None:
    """The flat layout of ``matrix`` (see the module docstring), cached on it, or None when
    the CSR of its transpose is not at hand."""
    cached = matrix.cache.get(FLAT_KEY)
    if cached is not None:
        return cached
    transpose = matrix.transpose_at_hand()
    if transpose is None:
        return None
    started = time.perf_counter()
    xp = matrix.xp
    m, n = matrix.shape
    ids = _prim.index_dtype(m, n)
    indptr = transpose.indptr.astype(np.int64, copy=False)
    dst = transpose.indices.astype(ids, copy=False)
    values = transpose.values
    iso_value = derived.iso_value(transpose)
    borrowed = tuple(
        name
        for name, array, own in (
            ("push_indptr", indptr, transpose.indptr),
            ("push_dst", dst, transpose.indices),
        )
        if array is own
    )
    layout = SparseLayout(
        nrows=m,
        ncols=n,
        group_bounds=(),
        group_start=(0, m),
        high_count=0,
        output_order=xp.zeros(0, dtype=ids),
        push_indptr=indptr,
        push_split=indptr[:-1],
        push_dst=dst,
        push_weights=None if iso_value is not None else values,
        iso_value=iso_value,
        build_seconds=time.perf_counter() - started,
        borrowed=(*borrowed, "push_split", "push_weights"),
    )
    matrix.cache[FLAT_KEY] = layout
    return layout


def group_of(xp: Any, degrees: Any, bounds: tuple[int, ...]) -> Any:
    """The group of each in-degree: 0 for ``>= bounds[0]``, ..., ``len(bounds)`` below all."""
    ascending = xp.asarray(np.array(bounds[::-1], dtype=np.int64))
    return len(bounds) - xp.searchsorted(ascending, degrees.astype(np.int64), side="right")


def build_layout(matrix: Any, params: SparseParams) -> SparseLayout:
    """Build the layout of ``matrix`` for ``params`` with vectorized array code (no loops)."""
    started = time.perf_counter()
    xp = matrix.xp
    m, n = matrix.shape
    ids = _prim.index_dtype(m, n)
    bounds = params.group_bounds
    group = group_of(xp, xp.diff(matrix.indptr), bounds)
    sizes = to_numpy(xp.bincount(group, minlength=len(bounds) + 1))
    group_start = (0, *(int(v) for v in np.cumsum(sizes)))
    high_count = group_start[params.shared_groups]
    # internal ids: by group, ids ascending within a group (unique keys: a deterministic order)
    output_order = xp.argsort(group.astype(np.int64) * np.int64(m) + xp.arange(m, dtype=np.int64))
    del group
    internal = xp.empty(m, dtype=np.int64)
    internal[output_order] = xp.arange(m, dtype=np.int64)

    rows = _prim.row_ids(xp, matrix.indptr, m)  # outputs
    cols = matrix.indices  # inputs
    values = matrix.values
    nnz = int(cols.size)
    rank = internal[rows]
    del internal
    order = xp.argsort(cols.astype(np.int64) * np.int64(max(m, 1)) + rank)
    rank = rank[order]
    users = rows[order]
    del rows
    sorted_cols = cols[order]
    high = rank < high_count
    push_dst = xp.where(high, rank, users).astype(ids)
    del rank, users
    push_indptr = xp.zeros(n + 1, dtype=np.int64)
    if nnz:
        xp.cumsum(xp.bincount(sorted_cols, minlength=n), out=push_indptr[1:])
    push_split = push_indptr[:-1] + (xp.bincount(sorted_cols[high], minlength=n) if nnz else 0)
    del sorted_cols, high
    iso_value = derived.iso_value(matrix)
    weights = None if iso_value is not None else values[order]
    return SparseLayout(
        nrows=m,
        ncols=n,
        group_bounds=bounds,
        group_start=group_start,
        high_count=high_count,
        output_order=output_order.astype(ids),
        push_indptr=push_indptr,
        push_split=push_split.astype(np.int64),
        push_dst=push_dst,
        push_weights=weights,
        iso_value=iso_value,
        build_seconds=time.perf_counter() - started,
    )
