"""The reference executor: vectorized array code shared by NumPy and CuPy.

Correct for every semiring, dtype and mask; the oracle the fast executors are tested against.
On the GPU, ``mxv`` with plus_times on floats and a full input vector goes through cuSPARSE
(cupyx), any other semiring through the generic one-warp-per-row CSR kernel in
``kernels/csr_spmv.cu``. Functions here compute the raw result ``T`` of an operation; masks,
accumulation and replace are applied afterwards by :mod:`hyblas.ops.mask`.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import numpy as np

from ..backend import cupyx_csr, to_numpy
from ..semiring.operators import BinaryOp, Monoid, Semiring
from . import kernels
from . import primitives as _prim
from .kernels.segments import reduce_offsets

__all__ = ["spmv", "cusparse_applies", "iso_value", "reduce_rows", "reduce_all", "scatter_segments",
           "ewise_union", "ewise_intersection"]


def _cast(values: Any, dtype: np.dtype) -> Any:
    return values.astype(dtype, copy=False)


def spmv(
    matrix: Any, u_values: Any, u_present: Any, semiring: Semiring, *, flip: bool,
    all_present: bool,
) -> tuple[Any, Any, int | None]:  # fmt: skip
    """``t_i = ⊕_j mult(A_ij, u_j)`` over present ``u_j`` (``mult(u_j, A_ij)`` if ``flip``).

    ``all_present`` says every ``u_j`` is present. Returns the bitmap ``(values, present)`` of
    length ``matrix.nrows`` and the number of present outputs when known without counting.
    """
    xp = matrix._xp
    op_type = semiring.input_type(matrix.dtype, u_values.dtype)
    out_type = semiring.output_type(op_type)
    if matrix.backend == "cuda":
        if all_present and cusparse_applies(semiring, op_type, matrix):
            return _spmv_cusparse(matrix, u_values, op_type)
        values, present = kernels.spmv_csr(matrix, u_values, u_present, semiring, op_type,
                                           flip=flip, all_present=all_present)  # fmt: skip
        return values, present, None
    rows = _prim.row_ids(xp, matrix._indptr, matrix.nrows)
    cols = matrix._indices
    if not all_present:
        active = u_present[cols]
        rows, cols = rows[active], cols[active]
        a = matrix._values[active]
    else:
        a = matrix._values
    a = _cast(a, op_type)
    x = _cast(u_values[cols], op_type)
    products = semiring.binaryop.numpy(x, a) if flip else semiring.binaryop.numpy(a, x)
    products = _cast(products, out_type)
    values, present = scatter_segments(xp, rows, products, semiring.monoid, matrix.nrows,
                                        out_type)  # fmt: skip
    return values, present, None


def cusparse_applies(semiring: Semiring, op_type: np.dtype, matrix: Any) -> bool:
    """cuSPARSE computes plus_times on float32/float64 CSR with int32 indices."""
    return (
        semiring.monoid.binaryop.name == "plus"
        and semiring.binaryop.name == "times"
        and op_type.kind == "f"
        and matrix.dtype == op_type
        and matrix._indptr.dtype == np.int32
    )


def nonempty_rows(matrix: Any) -> tuple[Any, int]:
    """(flags, count) of the rows holding at least one entry, cached on the matrix: the
    outputs a product with a full input vector produces."""
    if "nonempty_rows" not in matrix._cache:
        nonempty = matrix._xp.diff(matrix._indptr) > 0
        matrix._cache["nonempty_rows"] = (nonempty, int(nonempty.sum()))
    return matrix._cache["nonempty_rows"]


def iso_value(matrix: Any) -> Any:
    """The one value every stored entry of ``matrix`` holds (a NumPy scalar), or None if the
    entries differ or there are none; cached on the matrix (an unweighted graph's adjacency
    matrix is iso: its products need no weights, and its row sums are its degrees)."""
    if "iso_value" not in matrix._cache:
        values = matrix._values
        iso = None
        if values.size and bool((values == values[:1]).all()):  # a NaN is unequal: not iso
            iso = values.dtype.type(values[:1].item())
        matrix._cache["iso_value"] = iso
    return matrix._cache["iso_value"]


def _spmv_cusparse(matrix: Any, u_values: Any, op_type: np.dtype) -> tuple[Any, Any, int]:
    key = ("cusparse", op_type.str)
    if key not in matrix._cache:  # a cupyx view sharing the matrix's arrays: no copy
        matrix._cache[key] = cupyx_csr(matrix._indptr, matrix._indices, matrix._values,
                                       matrix.shape)  # fmt: skip
    nonempty, count = nonempty_rows(matrix)
    # rows without entries are absent; cuSPARSE wrote 0 there
    return matrix._cache[key] @ _cast(u_values, op_type), nonempty.copy(), count


def scatter_segments(
    xp: ModuleType, ids: Any, values: Any, monoid: Monoid, size: int, dtype: np.dtype
) -> tuple[Any, Any]:
    """Reduce ``values`` grouped by ascending ``ids`` into a bitmap of length ``size``."""
    starts = _prim.segment_starts(xp, ids)
    reduced = _prim.segment_reduce(xp, values, starts, monoid.binaryop)
    return _prim.to_bitmap(xp, size, ids[starts], _cast(reduced, dtype))


def reduce_rows(matrix: Any, monoid: Monoid) -> tuple[Any, Any]:
    """Bitmap ``(values, present)`` of each row reduced with ``monoid`` (empty rows absent)."""
    xp = matrix._xp
    op_type = monoid.input_type(matrix.dtype)
    out_type = monoid.binaryop.output_type(op_type)
    if monoid.binaryop.name == "plus" and op_type.kind in "iufc":
        iso = iso_value(matrix)
        if iso is not None:  # d copies of v sum to d * v: one multiply per row, no entry read
            degrees = xp.diff(matrix._indptr)
            values = degrees.astype(op_type) * op_type.type(iso)
            return _cast(values, out_type), degrees > 0
    if xp is not np:  # one kernel over the rows as they are stored
        values, present = reduce_offsets(xp, matrix._values, matrix._indptr, monoid.binaryop,
                                         long_segments=kernels.heavy_rows(matrix),
                                         dtype=op_type)  # fmt: skip
        return _cast(values, out_type), present
    rows = _prim.row_ids(xp, matrix._indptr, matrix.nrows)
    return scatter_segments(xp, rows, _cast(matrix._values, op_type), monoid, matrix.nrows,
                             out_type)  # fmt: skip


def reduce_all(xp: ModuleType, values: Any, monoid: Monoid, present: Any = None) -> Any:
    """All ``values`` reduced to one NumPy scalar (the monoid's identity when empty).

    With ``present`` (a bitmap's flags), only the flagged values count. For sum, product, or
    and and, the others are replaced by the identity, which changes no result and needs no
    compaction (on the GPU, compacting a bitmap waits for the device to size the result).
    """
    op_type = monoid.input_type(values.dtype)
    out_type = monoid.binaryop.output_type(op_type)
    whole = _WHOLE_ARRAY_REDUCTIONS.get(monoid.binaryop.ufunc)
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
        return out_type.type(to_numpy(xp.asarray(reduced).astype(out_type)).reshape(()))
    starts = xp.zeros(1, dtype=np.int64)
    reduced = _prim.segment_reduce(xp, _cast(values, op_type), starts, monoid.binaryop)
    return out_type.type(to_numpy(reduced)[0])


# ufunc-backed monoids whose whole-array reduction NumPy and CuPy both provide (the min / max
# monoids are fmin / fmax, which skip NaN like nanmin / nanmax)
_WHOLE_ARRAY_REDUCTIONS = {np.add: "sum", np.multiply: "prod", np.minimum: "min",
                           np.maximum: "max", np.fmin: "nanmin", np.fmax: "nanmax",
                           np.logical_or: "any", np.logical_and: "all"}
# those whose result no identity element changes, NaN included (fmin(+inf, NaN) is +inf where
# the reduction of NaN alone is NaN): absent bitmap positions may be filled with the identity
_IDENTITY_FILLED = frozenset({"sum", "prod", "any", "all"})


def ewise_union(
    xp: ModuleType, a_keys: Any, a_vals: Any, b_keys: Any, b_vals: Any, op: BinaryOp
) -> tuple[Any, Any]:
    """Union of two ascending key sets; keys in both get ``op(a, b)`` (GrB eWiseAdd)."""
    op_type = op.input_type(a_vals.dtype, b_vals.dtype)
    return _prim.union_keys(
        xp, a_keys, a_vals, b_keys, b_vals,
        lambda a, b: op.numpy(_cast(a, op_type), _cast(b, op_type)), op.output_type(op_type),
    )  # fmt: skip


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
