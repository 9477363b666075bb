"""Run a product on the sparse layout: CUDA kernels on the GPU, the NumPy emulation on the CPU.

The output mask is applied inside the walk, before any atomic; the present outputs come out as
a list, so a small result costs no pass over all outputs. With ``out`` (accum / replace), that
list is then written through :func:`hyblas.ops.mask.write_vector` like the reference path's
result.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from ...backend import compile_module, elapsed_ms, launch, record_event, translate_oom
from ...semiring.operators import BinaryOp, Semiring
from .. import mask as _mask
from . import emulation
from . import kernels as _k
from .layout import SparseLayout, layout_of
from .params import INPUTS_PER_BLOCK, THREADS, SparseParams, current_params

__all__ = ["spmspv", "push", "kernel_timing", "segment_bytes"]

_timed: list[tuple[Any, ...]] | None = None  # events of each GPU call inside kernel_timing()


@contextlib.contextmanager
def kernel_timing() -> Iterator[list[dict[str, float]]]:
    """Time the GPU calls of the sparse executor made inside the block (for benchmarks).

    Yields a list that, when the block ends, holds one dict per call: ``walk_ms`` (the push and
    spreading kernels), ``sync_gap_ms`` (the GPU idle while the host reads the output count and
    launches the rest) and ``finish_ms`` (reading the values out, resetting, sorting).
    """
    global _timed
    events: list[tuple[Any, ...]] = []
    calls: list[dict[str, float]] = []
    _timed = events
    try:
        yield calls
    finally:
        _timed = None
        for e0, e1, e2, e3 in events:
            calls.append({"walk_ms": elapsed_ms(e0, e1), "sync_gap_ms": elapsed_ms(e1, e2),
                          "finish_ms": elapsed_ms(e2, e3)})  # fmt: skip


def spmspv(
    edges: Any, u: Any, semiring: Semiring, *, flip: bool, mask: Any, accum: BinaryOp | None,
    replace: bool, out: Any, backend: str,
) -> Any:  # fmt: skip
    """``w<mask> accum= E ⊕.⊗ u`` by pushing from ``u``'s entries over the sparse layout of the
    edge matrix ``edges``. ``flip`` multiplies ``u_j ⊗ E_ij`` (``vxm`` passes ``Aᵀ``)."""
    from ...vector import Vector  # noqa: PLC0415 - the containers import this package

    mask = _mask.as_mask(mask)
    active, u_values = u._as_sparse()
    indices, values = push(edges, active, u_values, semiring, flip=flip, mask=mask)
    if out is None and accum is None:  # the mask was applied in the walk
        return Vector(edges.nrows, values.dtype, backend=backend, sparse=(indices, values),
                      nnz=int(indices.size))._settled()  # fmt: skip
    xp = edges._xp
    t_values = xp.zeros(edges.nrows, dtype=values.dtype)
    t_present = xp.zeros(edges.nrows, dtype=bool)
    t_values[indices] = values
    t_present[indices] = True
    return _mask.write_vector(out, t_values, t_present, mask=mask, accum=accum, replace=replace,
                              backend=backend, nnz=int(indices.size))  # fmt: skip


def push(edges: Any, active: Any, u_values: Any, semiring: Semiring, *, flip: bool,
         mask: Any = None, params: SparseParams | None = None) -> tuple[Any, Any]:  # fmt: skip
    """The masked product from the inputs ``active`` (any order, no repeats) with values
    ``u_values``: (sorted int64 output ids, values of the semiring's output type)."""
    params = params or current_params()
    op_type = semiring.input_type(edges.dtype, u_values.dtype)
    layout = layout_of(edges, params)
    x = u_values.astype(op_type, copy=False)
    if edges.backend == "cpu":
        allowed = None if mask is None else _mask.vector_allowed(mask)
        return emulation.push(layout, params, active, x, semiring, op_type, flip=flip,
                              allowed=allowed)  # fmt: skip
    return _push_cuda(layout, params, edges._xp, active, x, semiring, op_type, flip=flip,
                      mask=mask)  # fmt: skip


def segment_bytes(params: SparseParams, out_type: np.dtype) -> int:
    """Dynamic shared memory of a push block: mirrors ``hyblas_segment_walk``'s carving."""
    words = (params.segment * np.dtype(np.uint64 if np.dtype(out_type).itemsize == 8
                                       else np.uint32).itemsize + 7) & ~7  # fmt: skip
    return words + 4 * (-(-params.segment // 32)) + 2 * params.segment


def _workspace(layout: SparseLayout, xp: Any, module: Any, semiring: Semiring,
               out_type: np.dtype) -> list[Any]:  # fmt: skip
    """[work words, presence flags, clean]: user-indexed, reset between calls by the finish
    kernel, cached on the layout per result type and identity. A call that failed part-way
    leaves its workspace marked not clean, and the next call refills it."""
    cache = layout.__dict__.setdefault("_workspaces", {})
    key = (np.dtype(out_type).itemsize == 8, np.dtype(out_type).str,
           repr(semiring.monoid.identity(out_type)))  # fmt: skip
    entry = cache.get(key)
    if entry is None:
        word = np.uint64 if key[0] else np.uint32
        with translate_oom("sparse SpMSpV work array"):
            entry = cache[key] = [xp.empty(max(layout.nrows, 1), dtype=word),
                                  xp.empty(max(layout.nrows, 1), dtype=np.uint32), False]
    if not entry[2]:
        launch(module.get_function(_k.FILL), (_blocks(layout.nrows),), (THREADS,),
               (np.int64(layout.nrows), entry[0], entry[1]))  # fmt: skip
        entry[2] = True
    return entry


def _blocks(n: int) -> int:
    return max(1, min(-(-n // THREADS), 65535))


def _push_cuda(layout: SparseLayout, params: SparseParams, xp: Any, active: Any, x: Any,
               semiring: Semiring, op_type: np.dtype, *, flip: bool,
               mask: Any) -> tuple[Any, Any]:  # fmt: skip
    out_type = semiring.output_type(op_type)
    n_active = int(active.size)
    if n_active == 0 or layout.nnz == 0:
        return xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=out_type)
    iso = layout.iso_value is not None
    has_mask = mask is not None
    structural = has_mask and mask.structural
    complement = has_mask and mask.complement
    dummy_b = xp.zeros(1, dtype=bool)
    mask_values = mask_present = dummy_b
    if has_mask:
        mask_values, mask_present = mask.parent._as_bitmap()
    ids = layout.push_dst.dtype
    source = _k.specialize(semiring, op_type, index_dtype=ids,
                           mask_dtype=mask_values.dtype if has_mask else None)  # fmt: skip
    flags = (flip, iso, has_mask, structural, complement)
    names = (_k.push_name(*flags), _k.spread_name(*flags), _k.FINISH, _k.FILL)
    module = compile_module(source, names)
    push_kernel, spread_kernel, finish = (module.get_function(n) for n in names[:3])
    weights = xp.zeros(1, dtype=op_type) if iso else layout.weights_as(op_type)
    iso_value = np.dtype(op_type).type(layout.iso_value if iso else 0)
    active = active.astype(np.int64, copy=False)
    with translate_oom("sparse SpMSpV"):
        workspace = _workspace(layout, xp, module, semiring, out_type)
        ws, presence = workspace[0], workspace[1]
        workspace[2] = False  # dirty until the finish kernel has reset what this call touched
        counters = xp.zeros(2, dtype=np.uint64)
        listed = xp.empty(max(layout.nrows, 1), dtype=ids)
        gathered = xp.empty(n_active, dtype=np.int64)
        shared = segment_bytes(params, out_type) if layout.high_count else 0
        events = [record_event()] if _timed is not None else None
        launch(push_kernel, (-(-n_active // INPUTS_PER_BLOCK),), (THREADS,), (
            np.int64(n_active), active, x, layout.push_indptr, layout.push_split,
            layout.push_dst, weights, iso_value, layout.output_order,
            np.int64(layout.high_count), np.int32(params.segment), np.int64(params.reach),
            np.int64(params.segment_min_edges), mask_values, mask_present, ws, presence,
            listed, counters, gathered,
        ), shared)  # fmt: skip
        launch(spread_kernel, (params.spread_blocks,), (THREADS,), (
            active, x, layout.push_indptr, layout.push_split, layout.push_dst, weights,
            iso_value, layout.output_order, mask_values, mask_present, ws, presence, listed,
            counters, gathered,
        ))  # fmt: skip
        if events is not None:
            events.append(record_event())
        count = int(counters[0])  # the one host synchronisation of a call
        if events is not None:
            events.append(record_event())
        values = xp.empty(count, dtype=out_type)
        if count:
            launch(finish, (_blocks(count),), (THREADS,),
                   (np.int64(count), listed, ws, presence, values))  # fmt: skip
        workspace[2] = True
        indices = listed[:count].astype(np.int64)
        order = xp.argsort(indices)
        indices, values = indices[order], values[order]
    if events is not None:
        events.append(record_event())
        _timed.append(tuple(events))
    return indices, values
