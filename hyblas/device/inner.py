"""The inner product of two bitmap vectors on the GPU in one kernel (``inner_bitmap.cu``): the
array-code version multiplies into a new vector, fills its absent positions and reduces it,
three passes over whole vectors."""

from __future__ import annotations

import functools
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import compile_module, grid_stride_blocks, launch
from ..operators import BUILTIN_NAMES, NAMESPACES
from ..operators.classes import Semiring
from .codegen import kernel_text

_KERNELS = Path(__file__).parent / "kernels"

__all__ = ["inner_bitmaps", "builtin_specializations", "kernel_name", "KERNEL"]

THREADS = 256  # HYBLAS_INNER_THREADS in the kernel
KERNEL = "hyblas_inner_bitmap"


def specialize(semiring: Semiring, x_type: np.dtype, y_type: np.dtype) -> str:
    """The kernel source for ``semiring`` over values stored as ``x_type`` and ``y_type``."""
    op_type = semiring.input_type(np.dtype(x_type), np.dtype(y_type))
    return string.Template(kernel_text(_KERNELS / "inner_bitmap.cu")).substitute(
        X=_dt.cuda_name(np.dtype(x_type)),
        Y=_dt.cuda_name(np.dtype(y_type)),
        T=_dt.cuda_name(op_type),
        Z=_dt.cuda_name(semiring.output_type(op_type)),
        MULT=semiring.binaryop.cuda,
        ADD=semiring.monoid.binaryop.cuda,
    )


def kernel_name(full: bool) -> str:
    return f"{KERNEL}<{'true' if full else 'false'}>"


@functools.lru_cache(maxsize=256)
def _kernel(semiring: Semiring, x_type: np.dtype, y_type: np.dtype, full: bool) -> Any:
    name = kernel_name(full)
    return compile_module(specialize(semiring, x_type, y_type), (name,)).get_function(name)


def inner_bitmaps(
    xp: Any, x: tuple[Any, Any], y: tuple[Any, Any], semiring: Semiring, *, full: bool = False
) -> tuple[Any, Any]:
    """``(partials, found)``: one fold per thread block of ``x_i ⊗ y_i`` over the positions
    where both bitmaps (each ``(values, present)``, CuPy arrays of one size) hold an entry,
    and whether the block found any. The caller folds the partials it found. ``full``: both
    are known to hold every position (their flags are not read)."""
    x_values, x_present, y_values, y_present = (xp.ascontiguousarray(a) for a in (*x, *y))
    op_type = semiring.input_type(x_values.dtype, y_values.dtype)
    size = int(x_values.size)
    blocks = grid_stride_blocks(size, THREADS, 8) if size else 0  # no launch: no partial
    partials = xp.empty(blocks, dtype=semiring.output_type(op_type))
    found = xp.empty(blocks, dtype=bool)  # every block writes its flag
    if blocks:
        launch(
            _kernel(semiring, x_values.dtype, y_values.dtype, full),
            (blocks,),
            (THREADS,),
            (np.int64(size), x_values, x_present, y_values, y_present, partials, found),
        )
    return partials, found


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel names)`` for the compile test: every built-in semiring on every
    dtype it serves (with and without flags), and plus_times over float32 and float64
    operands."""
    names = [kernel_name(True), kernel_name(False)]
    for name in sorted(BUILTIN_NAMES["semiring"]):
        semiring = NAMESPACES["semiring"][name]
        for dtype in sorted(semiring.types, key=lambda d: d.name):
            yield f"inner_{name}_{dtype.name}", specialize(semiring, dtype, dtype), names
    plus_times = NAMESPACES["semiring"]["plus_times"]
    yield (
        "inner_plus_times_float32_float64",
        specialize(plus_times, np.dtype(np.float32), np.dtype(np.float64)),
        names,
    )
