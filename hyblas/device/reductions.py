"""Reductions and key merges over arrays, shared by the operations and the executors: a CSR
matrix's rows reduced, a whole array reduced to one scalar, values reduced by sorted ids into a
bitmap, and the union / intersection of two sorted key sets under an operator."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import numpy as np

from ..backend import to_numpy
from ..operators.classes import BinaryOp, Monoid
from ..operators.extrema import OrderedExtremum, ordered_max, ordered_min
from . import arrays as _prim
from .segments import reduce_offsets

__all__ = ["reduce_csr_rows", "reduce_all", "scatter_segments", "ewise_union", "ewise_intersection"]


def _cast(values: Any, dtype: np.dtype) -> Any:
    return values.astype(dtype, copy=False)


def scatter_segments(
    xp: ModuleType, ids: Any, values: Any, monoid: Monoid, size: int, dtype: np.dtype
) -> tuple[Any, Any]:
    """Reduce ``values`` grouped by ascending ``ids`` into a bitmap of length ``size``."""
    starts = _prim.segment_starts(xp, ids)
    reduced = _prim.segment_reduce(xp, values, starts, monoid.binaryop)
    return _prim.to_bitmap(xp, size, ids[starts], _cast(reduced, dtype))


def reduce_csr_rows(
    xp: ModuleType, indptr: Any, values: Any, monoid: Monoid, *, iso: Any = None, heavy: Any = None
) -> tuple[Any, Any]:
    """Bitmap ``(values, present)`` of each row of a CSR matrix reduced with ``monoid`` (empty
    rows absent). ``iso``: the one value every entry holds, if so (its sums need no entry
    read); ``heavy``: the rows longer than :data:`~.segments.HEAVY_ROW` when known."""
    nrows = int(indptr.size) - 1
    op_type = monoid.input_type(values.dtype)
    out_type = monoid.binaryop.output_type(op_type)
    if monoid.binaryop.name == "plus" and op_type.kind in "iufc":
        if iso is not None:  # d copies of v sum to d * v: one multiply per row, no entry read
            degrees = xp.diff(indptr)
            sums = degrees.astype(op_type) * op_type.type(iso)
            return _cast(sums, out_type), degrees > 0
    if xp is not np:  # one kernel over the rows as they are stored
        reduced, present = reduce_offsets(
            xp, values, indptr, monoid.binaryop, long_segments=heavy, dtype=op_type
        )
        return _cast(reduced, out_type), present
    rows = _prim.row_ids(xp, indptr, nrows)
    return scatter_segments(xp, rows, _cast(values, op_type), monoid, nrows, out_type)


def reduce_all(xp: ModuleType, values: Any, monoid: Monoid, present: Any = None) -> Any:
    """All ``values`` reduced to one NumPy scalar (the monoid's identity when empty).

    With ``present`` (a bitmap's flags), only the flagged values count. For sum, product, or
    and and, the others are replaced by the identity, which changes no result and needs no
    compaction (on the GPU, compacting a bitmap waits for the device to size the result).
    """
    op_type = monoid.input_type(values.dtype)
    out_type = monoid.binaryop.output_type(op_type)
    combine = monoid.binaryop.numpy
    whole = _WHOLE_ARRAY_REDUCTIONS.get(combine)  # an operator's numpy: a function, hashable
    if present is not None:
        if whole in _IDENTITY_FILLED:
            fill = values.dtype.type(monoid.identity(op_type))
            values = xp.where(present, values, fill)
        else:
            values = values[present]
    if values.size == 0:
        return monoid.identity(out_type)
    if whole is not None:  # one library reduction instead of a segmented scan
        with warnings.catch_warnings():  # nanmin / nanmax of all-NaN: NaN, as fmin gives
            warnings.simplefilter("ignore", RuntimeWarning)
            if whole in ("sum", "prod") and values.dtype.kind in "iuf" and op_type.kind in "iuf":
                # cast inside the reduction: float32 -> float64 would copy the whole array first
                reduced = getattr(xp, whole)(values, dtype=op_type)
            else:
                reduced = getattr(xp, whole)(_cast(values, op_type))
        if isinstance(combine, OrderedExtremum):
            reduced = combine.settle_zero(xp, values, reduced)
        return out_type.type(to_numpy(xp.asarray(reduced).astype(out_type)).reshape(()))
    starts = xp.zeros(1, dtype=np.int64)
    reduced = _prim.segment_reduce(xp, _cast(values, op_type), starts, monoid.binaryop)
    return out_type.type(to_numpy(reduced)[0])


# monoids whose whole-array reduction NumPy and CuPy both provide (the min / max monoids are
# fmin / fmax, which skip NaN like nanmin / nanmax; a zero result then takes its sign from
# OrderedExtremum.settle_zero)
_WHOLE_ARRAY_REDUCTIONS = {
    np.add: "sum",
    np.multiply: "prod",
    np.minimum: "min",
    np.maximum: "max",
    np.fmin: "nanmin",
    np.fmax: "nanmax",
    ordered_min: "nanmin",
    ordered_max: "nanmax",
    np.logical_or: "any",
    np.logical_and: "all",
}
# those whose result no identity element changes, NaN included (fmin(+inf, NaN) is +inf where
# the reduction of NaN alone is NaN): absent bitmap positions may be filled with the identity
_IDENTITY_FILLED = frozenset({"sum", "prod", "any", "all"})


def ewise_union(
    xp: ModuleType, a_keys: Any, a_vals: Any, b_keys: Any, b_vals: Any, op: BinaryOp
) -> tuple[Any, Any]:
    """Union of two ascending key sets; keys in both get ``op(a, b)`` (GrB eWiseAdd)."""
    op_type = op.input_type(a_vals.dtype, b_vals.dtype)
    return _prim.union_keys(
        xp,
        a_keys,
        a_vals,
        b_keys,
        b_vals,
        lambda a, b: op.numpy(_cast(a, op_type), _cast(b, op_type)),
        op.output_type(op_type),
    )


def ewise_aligned(a_vals: Any, b_vals: Any, op: BinaryOp) -> Any:
    """``op(a, b)`` entry by entry, for two operands of one structure (their union and their
    intersection are that structure: GrB eWiseAdd and eWiseMult agree there)."""
    op_type = op.input_type(a_vals.dtype, b_vals.dtype)
    return _cast(op.numpy(_cast(a_vals, op_type), _cast(b_vals, op_type)), op.output_type(op_type))


def ewise_intersection(
    xp: ModuleType, a_keys: Any, a_vals: Any, b_keys: Any, b_vals: Any, op: BinaryOp
) -> tuple[Any, Any]:
    """Intersection of two ascending key sets with values ``op(a, b)`` (GrB eWiseMult)."""
    op_type = op.input_type(a_vals.dtype, b_vals.dtype)
    out_type = op.output_type(op_type)
    in_b = _prim.member(xp, b_keys, a_keys)
    in_a = _prim.member(xp, a_keys, b_keys)
    values = op.numpy(_cast(a_vals[in_b], op_type), _cast(b_vals[in_a], op_type))
    return a_keys[in_b], _cast(values, out_type)
