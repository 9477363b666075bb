"""The reference executor's matrix-vector product: vectorized array code on the CPU, on the GPU
cuSPARSE (cupyx) for plus_times on floats with a full input vector, and the generic CSR kernels
(``kernels/csr_spmv.cu``) for every other case. It computes the raw result ``T``; masks,
accumulation and replace are applied afterwards (:mod:`hyblas.ops.output`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...backend import cupyx_csr
from ...containers.derived import nonempty_rows
from ...device import arrays as _prim
from ...device.reductions import scatter_segments
from ...operators.classes import Semiring
from . import kernels

__all__ = ["spmv", "cusparse_applies"]


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
    xp = matrix.xp
    op_type = semiring.input_type(matrix.dtype, u_values.dtype)
    out_type = semiring.output_type(op_type)
    if matrix.backend == "cuda":
        if all_present and cusparse_applies(semiring, op_type, matrix):
            return _spmv_cusparse(matrix, u_values, op_type)
        values, present = kernels.spmv_csr(
            matrix, u_values, u_present, semiring, op_type, flip=flip, all_present=all_present
        )
        return values, present, None
    rows = _prim.row_ids(xp, matrix.indptr, matrix.nrows)
    cols = matrix.indices
    if not all_present:
        active = u_present[cols]
        rows, cols = rows[active], cols[active]
        a = matrix.values[active]
    else:
        a = matrix.values
    a = _cast(a, op_type)
    x = _cast(u_values[cols], op_type)
    products = semiring.binaryop.numpy(x, a) if flip else semiring.binaryop.numpy(a, x)
    products = _cast(products, out_type)
    values, present = scatter_segments(xp, rows, products, semiring.monoid, matrix.nrows, out_type)
    return values, present, None


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
