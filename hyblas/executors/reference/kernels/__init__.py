"""The reference executor's CUDA kernels (``csr_spmv.cu``: a warp per light row, a block per
heavy row), specialized per semiring and operand type.

:func:`specialize_spmv` splices a semiring's CUDA expressions and types into the file's
``string.Template`` placeholders; :func:`hyblas.backend.compile_module` compiles the result
with NVRTC (cached). The pull executor's kernels extend this specialization.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .... import dtypes as _dt
from ....backend import compile_module, translate_oom
from ....containers.derived import heavy_rows, values_as
from ....device.codegen import cuda_literal, kernel_text
from ....device.segments import HEAVY_ROW
from ....operators import BUILTIN_NAMES, NAMESPACES
from ....operators.classes import Semiring

__all__ = [
    "specialize_spmv",
    "spmv_name",
    "spmv_csr",
    "builtin_specializations",
    "WARP_KERNEL_THREADS",
    "BLOCK_KERNEL_THREADS",
    "INDEX_TYPES",
]

_HERE = Path(__file__).parent
# Light rows (at most HEAVY_ROW entries): one warp each, WARP_KERNEL_THREADS / 32 rows per
# block; heavy rows: one block of BLOCK_KERNEL_THREADS threads each.
WARP_KERNEL_THREADS = 256
BLOCK_KERNEL_THREADS = 1024
INDEX_TYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}


@functools.lru_cache(maxsize=256)
def specialize_spmv(semiring: Semiring, op_type: np.dtype) -> str:
    """The CSR SpMV source specialized for ``semiring`` on operands of ``op_type`` (made once:
    every reference product asks for it, and the substitution costs the host more than some
    of those products take)."""
    out_type = semiring.output_type(op_type)
    monoid = semiring.monoid
    terminal = monoid.terminal(out_type)
    return string.Template(kernel_text(_HERE / "csr_spmv.cu")).substitute(
        T=_dt.cuda_name(op_type),
        Z=_dt.cuda_name(out_type),
        MULT=semiring.binaryop.cuda,
        ADD=monoid.binaryop.cuda,
        IDENTITY=cuda_literal(monoid.identity(out_type), out_type),
        HAS_TERMINAL="1" if terminal is not None else "0",
        TERMINAL=cuda_literal(terminal if terminal is not None else 0, out_type),
    )


def spmv_name(kernel: str, index_dtype: np.dtype, flip: bool, all_present: bool) -> str:
    """Template instance name of CSR SpMV ``kernel`` (``'warp'`` or ``'block'``)."""
    index = INDEX_TYPES[np.dtype(index_dtype)]
    return f"hyblas_spmv_csr_{kernel}<{index}, {str(flip).lower()}, {str(all_present).lower()}>"


def spmv_csr(
    matrix: Any,
    u_values: Any,
    u_present: Any,
    semiring: Semiring,
    op_type: np.dtype,
    *,
    flip: bool,
    all_present: bool = False,
) -> tuple[Any, Any]:
    """Run the generic CSR SpMV kernels; returns the bitmap ``(values, present)``.

    ``all_present`` promises that every input entry is present (its flags are then not read).
    """
    xp = matrix.xp
    out_type = semiring.output_type(op_type)
    source_text = specialize_spmv(semiring, op_type)
    names = tuple(spmv_name(k, matrix.indptr.dtype, flip, all_present) for k in ("warp", "block"))
    module = compile_module(source_text, names)
    a = values_as(matrix, op_type)
    u = u_values.astype(op_type, copy=False)
    present = u_present.astype(bool, copy=False)
    nrows = matrix.nrows
    out = xp.empty(nrows, dtype=out_type)
    out_present = xp.empty(nrows, dtype=bool)
    if nrows == 0:
        return out, out_present
    heavy = heavy_rows(matrix)
    operands = (matrix.indptr, matrix.indices, a, u, present, out, out_present)
    with translate_oom("CSR SpMV"):
        blocks = (nrows * 32 + WARP_KERNEL_THREADS - 1) // WARP_KERNEL_THREADS
        module.get_function(names[0])(
            (blocks,), (WARP_KERNEL_THREADS,), (np.int64(nrows), np.int64(HEAVY_ROW), *operands)
        )
        if heavy.size:
            module.get_function(names[1])(
                (int(heavy.size),),
                (BLOCK_KERNEL_THREADS,),
                (np.int64(heavy.size), heavy, *operands),
            )
    return out, out_present


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel name expressions)`` for every built-in semiring and dtype.

    Used by the compile test, which builds each with ``nvcc -arch=sm_90``. Every (semiring,
    dtype) source is instantiated twice (both kernels, different template flags); plus_times
    is instantiated for every combination of index type and flags.
    """
    every = [
        spmv_name(k, i, f, p)
        for k in ("warp", "block")
        for i in INDEX_TYPES
        for f in (False, True)
        for p in (False, True)
    ]
    some = [spmv_name("warp", np.int32, False, False), spmv_name("block", np.int64, True, True)]
    for semiring_name in sorted(BUILTIN_NAMES["semiring"]):
        semiring = NAMESPACES["semiring"][semiring_name]
        for op_type in sorted(semiring.types, key=lambda d: d.name):
            names = every if semiring_name == "plus_times" else some
            yield f"{semiring_name}_{op_type.name}", specialize_spmv(semiring, op_type), names
