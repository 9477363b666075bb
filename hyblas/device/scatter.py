"""A sparse vector's entries written into fresh bitmap arrays on the GPU, in one kernel
(``scatter_bitmap.cu``): the two fancy-index assignments it replaces are each a CuPy call of
a few tens of microseconds of host time, and a traversal converts its frontier every round."""

from __future__ import annotations

import functools
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..backend import compile_module, grid_stride_blocks
from .codegen import kernel_text

_KERNELS = Path(__file__).parent / "kernels"

__all__ = ["builtin_specializations", "scatter_bitmap", "word_type"]

NAME = "hyblas_scatter_bitmap"
THREADS = 256
_WORDS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}


def word_type(dtype: np.dtype) -> np.dtype:
    """The unsigned integer type of ``dtype``'s size, whose bits the kernel copies."""
    return np.dtype(f"u{np.dtype(dtype).itemsize}")


def specialize(itemsize: int) -> str:
    """The kernel source for values of ``itemsize`` bytes."""
    return string.Template(kernel_text(_KERNELS / "scatter_bitmap.cu")).substitute(
        W=_WORDS[itemsize]
    )


@functools.lru_cache(maxsize=8)
def _kernel(itemsize: int) -> Any:
    return compile_module(specialize(itemsize), (NAME,)).get_function(NAME)


def scatter_bitmap(xp: Any, size: int, ids: Any, values: Any) -> tuple[Any, Any]:
    """Bitmap arrays ``(values of size, presence)``: zeros and False, except ``values`` at
    ``ids`` (int64, no repeats). CuPy arrays."""
    dtype = values.dtype
    out = xp.zeros(size, dtype=dtype)
    present = xp.zeros(size, dtype=bool)
    count = int(ids.size)
    if count:
        word = word_type(dtype)
        blocks = grid_stride_blocks(count, THREADS)
        _kernel(dtype.itemsize)(
            (blocks,),
            (THREADS,),
            (
                np.int64(count),
                ids.astype(np.int64, copy=False),
                xp.ascontiguousarray(values).view(word),
                out.view(word),
                present,
            ),
        )
    return out, present


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """(label, source, kernel names) for every value size, for the compile check."""
    for itemsize in _WORDS:
        yield f"scatter_bitmap_{itemsize}", specialize(itemsize), [NAME]
