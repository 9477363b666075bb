"""The reference executor's matrix-vector product: on the CPU scipy's CSR product where it
serves the semiring (:mod:`.scipy_spmv`), else vectorized NumPy (each row's products reduced
from where the CSR row pointer says it starts); on the GPU cuSPARSE (cupyx) for plus_times on
floats with a full input vector, and the generic CSR kernels (``kernels/csr_spmv.cu``) for
every other case. It computes the raw result ``T``; masks, accumulation and replace are
applied afterwards (:mod:`hyblas.ops.output`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...backend import cupyx_csr
from ...containers.derived import nonempty_rows, values_as
from ...device import arrays as _prim
from ...operators.classes import Semiring
from ..builtin import binary_name
from . import kernels, scipy_spmv

__all__ = ["spmv", "spmv_rows", "cusparse_applies"]


def _cast(values: Any, dtype: np.dtype) -> Any:
    return values.astype(dtype, copy=False)


def spmv(
    matrix: Any,
    u_values: Any,
    u_present: Any,
    semiring: Semiring,
    *,
    flip: bool,
    all_present: bool,
) -> tuple[Any, Any, int | None]:
    """``t_i = ⊕_j mult(A_ij, u_j)`` over present ``u_j`` (``mult(u_j, A_ij)`` if ``flip``).

    ``all_present`` says every ``u_j`` is present. Returns the bitmap ``(values, present)`` of
    length ``matrix.nrows`` and the number of present outputs when known without counting.
    """
    op_type = semiring.input_type(matrix.dtype, u_values.dtype)
    out_type = semiring.output_type(op_type)
    if matrix.backend == "cuda":
        if all_present and cusparse_applies(semiring, op_type, matrix):
            return _spmv_cusparse(matrix, u_values, op_type)
        values, present = kernels.spmv_csr(
            matrix, u_values, u_present, semiring, op_type, flip=flip, all_present=all_present
        )
        return values, present, None
    if scipy_spmv.applies(matrix, semiring, op_type, flip=flip, full=all_present):
        return scipy_spmv.spmv_scipy(
            matrix, u_values, u_present, semiring, op_type, flip=flip, all_present=all_present
        )
    return _spmv_numpy(matrix, u_values, u_present, semiring, op_type, out_type, flip, all_present)


#: A partial input whose entries hold fewer than this share of the matrix's entries finds its
#: entries' rows by binary search; more, by a running count over the entries.
_SEARCH_BELOW = 1 / 64


def _spmv_numpy(
    matrix: Any,
    u_values: Any,
    u_present: Any,
    semiring: Semiring,
    op_type: np.dtype,
    out_type: np.dtype,
    flip: bool,
    all_present: bool,
) -> tuple[Any, Any, int | None]:
    """The CPU path for every product scipy does not serve: the products of the entries whose
    input is present, reduced per row. Each row's run of products starts where the CSR row
    pointer (of the entries kept) says, so no row id is made per entry."""
    cols = matrix.indices
    if all_present:
        nonempty, count = nonempty_rows(matrix)
        starts = _row_starts(matrix)
        a = values_as(matrix, op_type)
        x = u_values[cols]
    else:
        active = u_present[cols]
        kept = np.flatnonzero(active)
        count = None
        if kept.size < _SEARCH_BELOW * matrix.nnz:  # few: the row of each by binary search
            rows = np.searchsorted(matrix.indptr, kept, side="right") - 1
            first = _prim.segment_starts(np, rows)
            nonempty = np.zeros(matrix.nrows, dtype=bool)
            nonempty[rows[first]] = True
            starts = first
        else:  # many: the row pointer of the kept entries from their running count
            running = np.zeros(matrix.nnz + 1, dtype=_prim.index_dtype(matrix.nnz + 1))
            np.cumsum(active, out=running[1:])
            kept_ptr = running[matrix.indptr]
            nonempty = kept_ptr[1:] > kept_ptr[:-1]
            starts = kept_ptr[:-1][nonempty]
        a = values_as(matrix, op_type)[kept]
        x = u_values[cols[kept]]
    x = _cast(x, op_type)  # a new array (gathered): the multiply may write into it
    products = _cast(_multiply(semiring.binaryop, a, x, flip, op_type), out_type)
    reduced = _prim.segment_reduce(
        np, products, starts.astype(np.int64, copy=False), semiring.monoid.binaryop
    )
    values = np.zeros(matrix.nrows, dtype=out_type)
    values[nonempty] = _cast(reduced, out_type)
    return values, nonempty.copy() if all_present else nonempty, count


def spmv_rows(
    matrix: Any, rows: Any, u_values: Any, u_present: Any, semiring: Semiring, *, flip: bool
) -> Any:
    """``t_i`` for the outputs ``rows`` only (CPU; each must have a contribution, i.e. be
    present in the product): the generic path over those rows' entries."""
    op_type = semiring.input_type(matrix.dtype, u_values.dtype)
    out_type = semiring.output_type(op_type)
    rows = rows.astype(np.int64, copy=False)
    firsts = matrix.indptr[rows].astype(np.int64)
    positions, owner = _prim.ranges(np, firsts, matrix.indptr[rows + 1] - firsts)
    cols = matrix.indices[positions]
    kept = u_present[cols]
    positions, owner, cols = positions[kept], owner[kept], cols[kept]
    a = values_as(matrix, op_type)[positions]
    x = _cast(u_values[cols], op_type)
    products = _cast(_multiply(semiring.binaryop, a, x, flip, op_type), out_type)
    starts = _prim.segment_starts(np, owner)
    return _cast(_prim.segment_reduce(np, products, starts, semiring.monoid.binaryop), out_type)


def _multiply(op: Any, a: Any, x: Any, flip: bool, op_type: np.dtype) -> Any:
    """``op(a, x)`` (``op(x, a)`` if ``flip``) over operands of ``op_type``: ``first`` /
    ``second`` pick an operand without a copy (read only afterwards), and a ufunc whose result
    has the operands' type writes into ``x`` (a scratch array)."""
    name = binary_name(op)
    if name in ("first", "second"):
        return x if (name == "first") == flip else a
    function = op.numpy
    if isinstance(function, np.ufunc) and name is not None and op.output_type(op_type) == op_type:
        return function(x, a, out=x) if flip else function(a, x, out=x)
    return function(x, a) if flip else function(a, x)


def _row_starts(matrix: Any) -> Any:
    """Where each nonempty row's entries start (int64), cached on the matrix."""
    cache = matrix.cache
    found = cache.get("reference_row_starts")
    if found is None:
        nonempty, _ = nonempty_rows(matrix)
        found = matrix.indptr[:-1][nonempty].astype(np.int64)
        cache["reference_row_starts"] = found
    return found


def cusparse_applies(semiring: Semiring, op_type: np.dtype, matrix: Any) -> bool:
    """cuSPARSE computes plus_times on float32/float64 CSR with int32 indices."""
    return (
        semiring.monoid.binaryop.name == "plus"
        and semiring.binaryop.name == "times"
        and op_type.kind == "f"
        and matrix.dtype == op_type
        and matrix.indptr.dtype == np.int32
    )


def _spmv_cusparse(matrix: Any, u_values: Any, op_type: np.dtype) -> tuple[Any, Any, int]:
    key = ("cusparse", op_type.str)
    if key not in matrix.cache:  # a cupyx view sharing the matrix's arrays: no copy
        matrix.cache[key] = cupyx_csr(matrix.indptr, matrix.indices, matrix.values, matrix.shape)
    nonempty, count = nonempty_rows(matrix)
    # rows without entries are absent; cuSPARSE wrote 0 there
    return matrix.cache[key] @ _cast(u_values, op_type), nonempty.copy(), count
