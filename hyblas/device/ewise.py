"""Element-wise add / multiply of two bitmap vectors on the GPU, in one kernel
(``ewise_bitmap.cu``): the array-code version is five or six CuPy passes (the operator, the
presence flags, one or two selections), each reading and writing whole vectors."""

from __future__ import annotations

import functools
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import compile_module, grid_stride_blocks, launch, translate_oom
from ..operators import BUILTIN_NAMES, NAMESPACES
from ..operators.classes import BinaryOp
from .codegen import kernel_text

_KERNELS = Path(__file__).parent / "kernels"

__all__ = ["ewise_bitmaps", "builtin_specializations"]

THREADS = 256


def specialize(op: BinaryOp, x_type: np.dtype, y_type: np.dtype) -> str:
    """The kernel source for ``op`` over values stored as ``x_type`` and ``y_type``."""
    op_type = op.input_type(x_type, y_type)
    return string.Template(kernel_text(_KERNELS / "ewise_bitmap.cu")).substitute(
        X=_dt.cuda_name(np.dtype(x_type)),
        Y=_dt.cuda_name(np.dtype(y_type)),
        T=_dt.cuda_name(op_type),
        Z=_dt.cuda_name(op.output_type(op_type)),
        OP=op.cuda,
    )


def kernel_name(union: bool, full: bool) -> str:
    return f"hyblas_ewise_bitmap<{'true' if union else 'false'}, {'true' if full else 'false'}>"


@functools.lru_cache(maxsize=256)
def _kernel(op: BinaryOp, x_type: np.dtype, y_type: np.dtype, union: bool, full: bool) -> Any:
    name = kernel_name(union, full)
    return compile_module(specialize(op, x_type, y_type), (name,)).get_function(name)


def ewise_bitmaps(
    xp: Any,
    x: tuple[Any, Any],
    y: tuple[Any, Any],
    op: BinaryOp,
    *,
    union: bool,
    full: bool = False,
) -> tuple[Any, Any]:
    """``(values, present)`` of ``op`` over the bitmaps ``x`` and ``y`` (each ``(values,
    present)``, CuPy arrays of one size): over the union of their entries (eWiseAdd) or the
    intersection (eWiseMult). New arrays; absent positions hold 0. ``full``: both are known to
    hold every position (their flags are not read)."""
    # contiguous for the kernel (no copy if they are)
    x_values, x_present, y_values, y_present = (xp.ascontiguousarray(a) for a in (*x, *y))
    op_type = op.input_type(x_values.dtype, y_values.dtype)
    size = int(x_values.size)
    with translate_oom("element-wise"):
        values = xp.empty(size, dtype=op.output_type(op_type))
        present = xp.empty(size, dtype=bool)
    if size:
        blocks = grid_stride_blocks(size, THREADS, 16)
        launch(
            _kernel(op, x_values.dtype, y_values.dtype, union, full),
            (blocks,),
            (THREADS,),
            (np.int64(size), x_values, x_present, y_values, y_present, values, present),
        )
    return values, present


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel names)`` for the compile test: every built-in binary operator
    on every dtype it serves (all four kernels), and plus over float32 and float64 operands."""
    names = [kernel_name(union, full) for union in (True, False) for full in (True, False)]
    for op_name in sorted(BUILTIN_NAMES["binary"]):
        op = NAMESPACES["binary"][op_name]
        for dtype in sorted(op.types, key=lambda d: d.name):
            yield f"ewise_{op_name}_{dtype.name}", specialize(op, dtype, dtype), names
    plus = NAMESPACES["binary"]["plus"]
    yield (
        "ewise_plus_float32_float64",
        specialize(plus, np.dtype(np.float32), np.dtype(np.float64)),
        names,
    )
