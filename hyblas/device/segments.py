"""Segmented reduction on the GPU (``segment_reduce.cu``), order kept, for any BinaryOp.

Replaces the O(log longest) vectorized scan for CuPy arrays: one pass over the values. A
segment of at most 32 entries is folded by one lane, a longer one by a warp in tiles, a hub
(over ``LONG_SEGMENT``) by a thread block in pieces; each folds left to right, so operators
that do not commute (a build's ``first`` / ``second``) give the same result as a sequential
fold.
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import compile_module, launch, translate_oom
from ..operators import BUILTIN_NAMES, NAMESPACES
from ..operators.classes import BinaryOp
from .codegen import kernel_text

_KERNELS = Path(__file__).parent / "kernels"

__all__ = ["reduce_offsets", "builtin_specializations"]

WARP_KERNEL_THREADS = 256  # 8 warps, each taking 32 segments
BLOCK_KERNEL_THREADS = 256  # per long segment: 8 warps, each folding a piece of it
# Longer segments get a thread block each (power-law hubs). The CSR kernels give rows longer
# than this a block too, so a matrix's cached heavy-row list serves both.
HEAVY_ROW = 4096
LONG_SEGMENT = HEAVY_ROW


def specialize(op: BinaryOp, dtype: np.dtype, stored: np.dtype | None = None) -> str:
    """The kernel source for ``op`` folding values of ``dtype``, read from an array of
    ``stored`` (default ``dtype``) and cast as they are read."""
    stored = np.dtype(dtype if stored is None else stored)
    return string.Template(kernel_text(_KERNELS / "segment_reduce.cu")).substitute(
        V=_dt.cuda_name(np.dtype(dtype)), S=_dt.cuda_name(stored), OP=op.cuda
    )


WARP_NAME = "hyblas_segment_reduce_warp"
BLOCK_NAME = "hyblas_segment_reduce_block"


def reduce_offsets(
    xp: Any,
    values: Any,
    offsets: Any,
    op: BinaryOp,
    *,
    long_segments: Any = None,
    dtype: np.dtype | None = None,
) -> tuple[Any, Any]:
    """Fold ``values[offsets[s]:offsets[s + 1]]`` with ``op`` for every segment ``s``.

    Returns ``(reduced, found)``: ``found[s]`` is False for an empty segment, whose value is 0.
    ``values`` is a CuPy array; ``offsets`` is non-decreasing, starts at 0 and ends at
    ``values.size`` (a CSR ``indptr``, for example). ``long_segments``, when known (a matrix's
    cached heavy rows), lists the segments longer than ``LONG_SEGMENT`` (int64). ``dtype``
    (default ``values.dtype``) is the type ``op`` folds in: each value is cast to it as it is
    read, so a matrix's values need no cast copy.
    """
    dtype = values.dtype if dtype is None else np.dtype(dtype)
    nsegments = int(offsets.size) - 1
    out = xp.empty(max(nsegments, 0), dtype=dtype)
    found = xp.empty(max(nsegments, 0), dtype=bool)
    if nsegments <= 0:
        return out, found
    offsets = offsets.astype(np.int64, copy=False)
    names = (WARP_NAME, BLOCK_NAME)
    module = compile_module(specialize(op, dtype, values.dtype), names)
    warp, block = (module.get_function(name) for name in names)
    with translate_oom("segmented reduction"):
        blocks = -(-nsegments // WARP_KERNEL_THREADS)  # a thread per segment, in whole warps
        launch(
            warp,
            (blocks,),
            (WARP_KERNEL_THREADS,),
            (np.int64(nsegments), np.int64(LONG_SEGMENT), offsets, values, out, found),
        )
        if long_segments is None and values.size > LONG_SEGMENT:
            long_segments = xp.flatnonzero(xp.diff(offsets) > LONG_SEGMENT)
        if long_segments is not None and long_segments.size:
            launch(
                block,
                (int(long_segments.size),),
                (BLOCK_KERNEL_THREADS,),
                (np.int64(long_segments.size), long_segments, offsets, values, out, found),
            )
    return out, found


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel names)`` for the compile test: every built-in monoid's operator
    and ``first`` / ``second`` (a build's duplicate rules) on every dtype each serves."""
    ops = [NAMESPACES["monoid"][name].binaryop for name in sorted(BUILTIN_NAMES["monoid"])]
    ops += [NAMESPACES["binary"]["first"], NAMESPACES["binary"]["second"]]
    names = [WARP_NAME, BLOCK_NAME]
    for op in ops:
        for dtype in sorted(op.types, key=lambda d: d.name):
            yield f"reduce_{op.name}_{dtype.name}", specialize(op, dtype), names
    plus = NAMESPACES["binary"]["plus"]  # a matrix's float32 values summed in float64
    yield "reduce_plus_float64_from_float32", specialize(plus, np.float64, np.float32), names
