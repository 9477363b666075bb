"""The masked dot-product SpGEMM on the GPU (``kernels/masked_dot.cu``): every allowed entry
``(i, j)`` of a mask is ``⊕_k A_ik ⊗ B_kj`` over the ``k`` in both row ``i`` of ``A`` and row
``j`` of ``Bᵀ``, one thread per entry, or one warp where the shorter of the two rows has at
least :data:`LONG_ENTRY` indices (a hub's entries in triangle counting and the clustering
coefficient). On the CPU, and as its check, the same intersections are computed by the array
code of :func:`hyblas.executors.reference.spgemm.spgemm`'s dot strategy."""

from __future__ import annotations

import functools
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ... import dtypes as _dt
from ...backend import compile_module, launch, translate_oom
from ...containers.derived import values_as
from ...device.codegen import kernel_text
from ...operators import BUILTIN_NAMES, NAMESPACES
from ...operators.classes import Semiring
from .kernels import INDEX_TYPES

__all__ = ["masked_dot", "builtin_specializations", "LONG_ENTRY", "THREADS"]

_SOURCE = Path(__file__).parent / "kernels" / "masked_dot.cu"
THREADS = 256  # HYBLAS_DOT_THREADS in the kernel
#: An entry whose shorter row has at least this many indices is walked by a warp.
LONG_ENTRY = 64


def specialize(semiring: Semiring, op_type: np.dtype) -> str:
    """The kernel source for ``semiring`` on operands of ``op_type``."""
    return string.Template(kernel_text(_SOURCE)).substitute(
        T=_dt.cuda_name(op_type),
        Z=_dt.cuda_name(semiring.output_type(op_type)),
        MULT=semiring.binaryop.cuda,
        ADD=semiring.monoid.binaryop.cuda,
        READS_X=str(semiring.binaryop.reads_x).lower(),
        READS_Y=str(semiring.binaryop.reads_y).lower(),
    )


def kernel_names(index_dtype: np.dtype) -> tuple[str, str]:
    """The thread and warp kernels' template instance names for ``index_dtype``."""
    index = INDEX_TYPES[np.dtype(index_dtype)]
    return f"hyblas_masked_dot_thread<{index}>", f"hyblas_masked_dot_warp<{index}>"


@functools.lru_cache(maxsize=256)
def _module(semiring: Semiring, op_type: np.dtype, index_dtype: np.dtype) -> Any:
    return compile_module(specialize(semiring, op_type), kernel_names(index_dtype))


def masked_dot(
    a: Any, bt: Any, semiring: Semiring, rows: Any, cols: Any, op_type: np.dtype
) -> tuple[Any, Any]:
    """``(values, found)`` for the entries ``(rows[e], cols[e])``: ``values[e]`` is
    ``⊕_k A_ik ⊗ B_kj`` (``bt`` is ``Bᵀ``, its rows sorted like ``a``'s), set where
    ``found[e]``, that is where some ``k`` is in both rows; CuPy arrays."""
    xp = a.xp
    count = int(rows.size)
    values = xp.empty(count, dtype=semiring.output_type(op_type))
    found = xp.zeros(count, dtype=bool)
    a_index, b_index = a.indices, bt.indices
    if a_index.dtype != b_index.dtype:
        a_index, b_index = a_index.astype(np.int64), b_index.astype(np.int64)
    a_ptr, b_ptr = a.indptr.astype(np.int64), bt.indptr.astype(np.int64)
    shorter = xp.minimum(a_ptr[rows + 1] - a_ptr[rows], b_ptr[cols + 1] - b_ptr[cols])
    long = shorter >= LONG_ENTRY
    module = _module(semiring, np.dtype(op_type), np.dtype(a_index.dtype))
    operands = (
        rows,
        cols,
        a_ptr,
        a_index,
        _operand_values(a, op_type, semiring.binaryop.reads_x),
        b_ptr,
        b_index,
        _operand_values(bt, op_type, semiring.binaryop.reads_y),
        values,
        found,
    )
    with translate_oom("masked dot product"):
        for name, which, per_block in zip(
            kernel_names(a_index.dtype),
            (xp.flatnonzero(~long & (shorter > 0)), xp.flatnonzero(long)),
            (THREADS, THREADS // 32),
            strict=True,
        ):
            if which.size:
                blocks = (int(which.size) + per_block - 1) // per_block
                launch(
                    module.get_function(name),
                    (blocks,),
                    (THREADS,),
                    (np.int64(which.size), which, *operands),
                )
    return values, found


def _operand_values(matrix: Any, op_type: np.dtype, read: bool) -> Any:
    """The values the kernel reads as ``op_type``; a one-element placeholder where the
    multiply does not read them (no converted copy of a matrix's values for a pattern)."""
    if read:
        return values_as(matrix, op_type)
    return matrix.xp.zeros(1, dtype=op_type)


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel names)`` for the compile test: every built-in semiring on every
    dtype it serves, both kernels for both index types."""
    names = [name for index in INDEX_TYPES for name in kernel_names(index)]
    for name in sorted(BUILTIN_NAMES["semiring"]):
        semiring = NAMESPACES["semiring"][name]
        for dtype in sorted(semiring.types, key=lambda d: d.name):
            yield f"masked_dot_{name}_{dtype.name}", specialize(semiring, dtype), names
