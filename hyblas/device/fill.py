"""A full vector's bitmap arrays on the GPU, in one kernel (``fill_bitmap.cu``).

``cupy.full`` and ``cupy.ones`` take a thread per element in two launches, where one launch of
16-byte stores writes both arrays; PageRank fills such a vector every iteration, for the one
its product accumulates into.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..backend import compile_module, grid_stride_blocks
from ..errors import InvalidValue
from .codegen import kernel_text

_KERNELS = Path(__file__).parent / "kernels"

__all__ = ["fill_bitmap", "builtin_specializations", "NAME"]

NAME = "hyblas_fill_bitmap"
THREADS = 256
PATTERN_BYTES = 16


@functools.cache
def _kernel() -> Any:
    return compile_module(kernel_text(_KERNELS / "fill_bitmap.cu"), (NAME,)).get_function(NAME)


def fill_bitmap(xp: Any, size: int, value: Any, dtype: np.dtype) -> tuple[Any, Any]:
    """Fresh bitmap arrays ``(values, presence)`` of ``size`` positions, every one holding
    ``value`` (cast to ``dtype`` as ``numpy.full`` casts it). CuPy arrays."""
    dtype = np.dtype(dtype)
    if PATTERN_BYTES % dtype.itemsize:
        raise InvalidValue(
            f"fill_bitmap: {dtype} values do not tile a {PATTERN_BYTES}-byte pattern"
        )
    pattern = np.full(PATTERN_BYTES // dtype.itemsize, value, dtype=dtype).view(np.uint32)
    values = xp.empty(size, dtype=dtype)
    present = xp.empty(size, dtype=bool)
    if size:
        value_bytes = size * dtype.itemsize
        blocks = grid_stride_blocks(-(-value_bytes // PATTERN_BYTES), THREADS)
        _kernel()(
            (blocks,),
            (THREADS,),
            (
                values,
                np.int64(value_bytes),
                *(np.uint32(word) for word in pattern),
                present,
                np.int64(size),
            ),
        )
    return values, present


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """(label, source, kernel names) for the compile check: one kernel for every value type."""
    yield "fill_bitmap", kernel_text(_KERNELS / "fill_bitmap.cu"), [NAME]
