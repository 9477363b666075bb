"""Kernel source helpers: reading a ``.cu`` file once, spelling a value as a CUDA C constant, and
placeholder arrays for kernel arguments a specialization does not use.

Kernel families are ``.cu`` files written against ``string.Template`` placeholders; each
launcher splices in an operator's CUDA expressions and types and compiles the result with
:func:`hyblas.backend.compile_module` (NVRTC, cached).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

import numpy as np

from .. import dtypes as _dt

__all__ = ["kernel_text", "cuda_literal", "placeholder"]


@functools.cache
def kernel_text(path: Path) -> str:
    """The raw text of the kernel file at ``path`` (read once)."""
    return Path(path).read_text()


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


_PLACEHOLDERS: dict[tuple[int, str], Any] = {}


def placeholder(xp: Any, dtype: Any) -> Any:
    """A one-element array for a kernel argument the specialization neither reads nor writes
    (cached per device and dtype: allocating it per product costs host time)."""
    key = (xp.cuda.runtime.getDevice(), np.dtype(dtype).str)
    if key not in _PLACEHOLDERS:
        _PLACEHOLDERS[key] = xp.zeros(1, dtype=dtype)
    return _PLACEHOLDERS[key]
