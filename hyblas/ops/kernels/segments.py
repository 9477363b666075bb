"""Segmented reduction on the GPU (``segment_reduce.cu``), order kept, for any BinaryOp.

Replaces the O(log longest) vectorized scan for CuPy arrays: one pass over the values. The
kernel folds each segment left to right in tiles, so operators that do not commute (a
build's ``first`` / ``second``) give the same result as a sequential fold.
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from typing import Any

import numpy as np

from ... import dtypes as _dt
from ...backend import compile_module, launch, translate_oom
from ...semiring.operators import BinaryOp
from . import HEAVY_ROW, source

__all__ = ["reduce_offsets", "group_lanes", "builtin_specializations"]

GROUPS = (1, 2, 4, 8, 16, 32)
GROUP_KERNEL_THREADS = 256
BLOCK_KERNEL_THREADS = 1024
LONG_SEGMENT = HEAVY_ROW  # longer segments get a thread block each (power-law hubs), as the
# CSR SpMV's heavy rows do, so a matrix's cached heavy-row list serves both


def specialize(op: BinaryOp, dtype: np.dtype, stored: np.dtype | None = None) -> str:
    """The kernel source for ``op`` folding values of ``dtype``, read from an array of
    ``stored`` (default ``dtype``) and cast as they are read."""
    stored = np.dtype(dtype if stored is None else stored)
    return string.Template(source("segment_reduce.cu")).substitute(
        V=_dt.cuda_name(np.dtype(dtype)), S=_dt.cuda_name(stored), OP=op.cuda
    )


def group_name(lanes: int) -> str:
    return f"hyblas_segment_reduce_group<{lanes}>"


BLOCK_NAME = "hyblas_segment_reduce_block"


def group_lanes(entries: int, segments: int) -> int:
    """Lanes per segment: the mean segment length rounded up to a power of two, 1 to 32."""
    mean = entries / max(segments, 1)
    return next((g for g in GROUPS if g >= mean), GROUPS[-1])


def reduce_offsets(xp: Any, values: Any, offsets: Any, op: BinaryOp, *,
                   long_segments: Any = None,
                   dtype: np.dtype | None = None) -> tuple[Any, Any]:  # fmt: skip
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
    lanes = group_lanes(int(values.size), nsegments)
    names = (group_name(lanes), BLOCK_NAME)
    module = compile_module(specialize(op, dtype, values.dtype), names)
    group, block = (module.get_function(name) for name in names)
    with translate_oom("segmented reduction"):
        threads = nsegments * lanes
        blocks = (threads + GROUP_KERNEL_THREADS - 1) // GROUP_KERNEL_THREADS
        launch(group, (blocks,), (GROUP_KERNEL_THREADS,),
               (np.int64(nsegments), np.int64(LONG_SEGMENT), offsets, values, out, found))
        if long_segments is None and values.size > LONG_SEGMENT:
            long_segments = xp.flatnonzero(xp.diff(offsets) > LONG_SEGMENT)
        if long_segments is not None and long_segments.size:
            launch(block, (int(long_segments.size),), (BLOCK_KERNEL_THREADS,),
                   (np.int64(long_segments.size), long_segments, offsets, values, out, found))
    return out, found


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel names)`` for the compile test: every built-in monoid's operator
    and ``first`` / ``second`` (a build's duplicate rules) on every dtype each serves; every
    group width for plus on float64 and first on bool, the widest and narrowest otherwise."""
    from ...semiring.catalogue import BUILTIN_NAMES, NAMESPACES  # noqa: PLC0415

    ops = [NAMESPACES["monoid"][name].binaryop for name in sorted(BUILTIN_NAMES["monoid"])]
    ops += [NAMESPACES["binary"]["first"], NAMESPACES["binary"]["second"]]
    every = [group_name(g) for g in GROUPS] + [BLOCK_NAME]
    some = [group_name(1), group_name(32), BLOCK_NAME]
    for op in ops:
        for dtype in sorted(op.types, key=lambda d: d.name):
            full = (op.name, dtype) in (("plus", np.dtype(np.float64)), ("first", np.dtype(bool)))
            yield f"reduce_{op.name}_{dtype.name}", specialize(op, dtype), every if full else some
    plus = NAMESPACES["binary"]["plus"]  # a matrix's float32 values summed in float64
    yield "reduce_plus_float64_from_float32", specialize(plus, np.float64, np.float32), some
