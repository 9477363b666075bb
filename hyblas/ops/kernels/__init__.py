"""CUDA kernels of the reference executor and their specialization per semiring and dtype.

Each ``.cu`` file here is one kernel family written against ``string.Template`` placeholders;
:func:`specialize` splices in a semiring's CUDA expressions and types, and
:func:`hyblas.backend.compile_module` compiles the result with NVRTC (cached).
"""

from __future__ import annotations

import functools
import math
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ... import dtypes as _dt
from ...backend import compile_module, translate_oom
from ...semiring.operators import Semiring

__all__ = ["source", "cuda_literal", "specialize_spmv", "spmv_csr", "heavy_rows", "cast_values",
           "placeholder",
           "builtin_specializations"]

_HERE = Path(__file__).parent
# Kernel parameters (tuned on the H100, kron22; see benchmarks/results/):
#   light rows (<= HEAVY_ROW entries): one warp each, WARP_KERNEL_THREADS / 32 rows per block;
#   heavy rows: one block of BLOCK_KERNEL_THREADS threads each.
WARP_KERNEL_THREADS = 256
BLOCK_KERNEL_THREADS = 1024
HEAVY_ROW = 4096
INDEX_TYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}


@functools.cache
def source(name: str) -> str:
    """The raw text of kernel file ``name`` (e.g. ``'csr_spmv.cu'``)."""
    return (_HERE / name).read_text()


def cuda_literal(value: Any, dtype: np.dtype) -> str:
    """``value`` spelled as a CUDA C constant of ``dtype`` (infinities included)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return "true" if bool(value) else "false"
    if dt.kind == "f":
        v = float(value)
        if math.isinf(v):
            if dt == np.float32:
                return "__int_as_float(0x7f800000)" if v > 0 else "__int_as_float(0xff800000)"
            bits = "0x7ff0000000000000ULL" if v > 0 else "0xfff0000000000000ULL"
            return f"__longlong_as_double({bits})"
        return f"{v!r}f" if dt == np.float32 else repr(v)
    v = int(value)
    if dt.kind == "u":
        return f"(({_dt.cuda_name(dt)}){v}ULL)"
    if v == np.iinfo(np.int64).min:
        return "(-9223372036854775807LL - 1)"
    return f"(({_dt.cuda_name(dt)}){v}LL)"


def specialize_spmv(semiring: Semiring, op_type: np.dtype) -> str:
    """The CSR SpMV source specialized for ``semiring`` on operands of ``op_type``."""
    out_type = semiring.output_type(op_type)
    monoid = semiring.monoid
    terminal = monoid.terminal(out_type)
    return string.Template(source("csr_spmv.cu")).substitute(
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


def heavy_rows(matrix: Any) -> Any:
    """Rows with more than HEAVY_ROW entries (int64 ids), cached on the matrix."""
    key = ("heavy_rows", HEAVY_ROW)
    if key not in matrix._cache:
        degrees = matrix._xp.diff(matrix._indptr)
        matrix._cache[key] = matrix._xp.flatnonzero(degrees > HEAVY_ROW).astype(np.int64)
    return matrix._cache[key]


def spmv_csr(
    matrix: Any, u_values: Any, u_present: Any, semiring: Semiring, op_type: np.dtype, *,
    flip: bool, all_present: bool = False,
) -> tuple[Any, Any]:  # fmt: skip
    """Run the generic CSR SpMV kernels; returns the bitmap ``(values, present)``.

    ``all_present`` promises that every input entry is present (its flags are then not read).
    """
    xp = matrix._xp
    out_type = semiring.output_type(op_type)
    source_text = specialize_spmv(semiring, op_type)
    names = tuple(spmv_name(k, matrix._indptr.dtype, flip, all_present) for k in ("warp", "block"))
    module = compile_module(source_text, names)
    a = cast_values(matrix, op_type)
    u = u_values.astype(op_type, copy=False)
    present = u_present.astype(bool, copy=False)
    nrows = matrix.nrows
    out = xp.empty(nrows, dtype=out_type)
    out_present = xp.empty(nrows, dtype=bool)
    if nrows == 0:
        return out, out_present
    heavy = heavy_rows(matrix)
    operands = (matrix._indptr, matrix._indices, a, u, present, out, out_present)
    with translate_oom("CSR SpMV"):
        blocks = (nrows * 32 + WARP_KERNEL_THREADS - 1) // WARP_KERNEL_THREADS
        module.get_function(names[0])((blocks,), (WARP_KERNEL_THREADS,),
                                      (np.int64(nrows), np.int64(HEAVY_ROW), *operands))
        if heavy.size:
            module.get_function(names[1])((int(heavy.size),), (BLOCK_KERNEL_THREADS,),
                                          (np.int64(heavy.size), heavy, *operands))
    return out, out_present


def cast_values(matrix: Any, op_type: np.dtype) -> Any:
    """The matrix's values as ``op_type`` (the converted copy is cached on the matrix)."""
    if matrix.dtype == op_type:
        return matrix._values
    key = ("values_as", op_type.str)
    if key not in matrix._cache:
        matrix._cache[key] = matrix._values.astype(op_type)
    return matrix._cache[key]


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel name expressions)`` for every built-in semiring and dtype.

    Used by the compile test, which builds each with ``nvcc -arch=sm_90``. Every (semiring,
    dtype) source is instantiated twice (both kernels, different template flags); plus_times
    is instantiated for every combination of index type and flags.
    """
    from ...semiring.catalogue import BUILTIN_NAMES, NAMESPACES  # noqa: PLC0415

    every = [spmv_name(k, i, f, p) for k in ("warp", "block") for i in INDEX_TYPES
             for f in (False, True) for p in (False, True)]  # fmt: skip
    some = [spmv_name("warp", np.int32, False, False), spmv_name("block", np.int64, True, True)]
    for semiring_name in sorted(BUILTIN_NAMES["semiring"]):
        semiring = NAMESPACES["semiring"][semiring_name]
        for op_type in sorted(semiring.types, key=lambda d: d.name):
            names = every if semiring_name == "plus_times" else some
            yield f"{semiring_name}_{op_type.name}", specialize_spmv(semiring, op_type), names


_PLACEHOLDERS: dict[tuple[int, str], Any] = {}


def placeholder(xp: Any, dtype: Any) -> Any:
    """A one-element array for a kernel argument the specialization neither reads nor writes
    (cached per device and dtype: allocating it per product costs host time)."""
    key = (xp.cuda.runtime.getDevice(), np.dtype(dtype).str)
    if key not in _PLACEHOLDERS:
        _PLACEHOLDERS[key] = xp.zeros(1, dtype=dtype)
    return _PLACEHOLDERS[key]
