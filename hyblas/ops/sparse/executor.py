"""Run a product on the sparse layout: CUDA kernels on the GPU, the NumPy emulation on the CPU.

The output mask is applied inside the walk, before any atomic; the present outputs come out as
a list, so a small result costs no pass over all outputs. With ``out`` (accum / replace), that
list is then written through :func:`hyblas.ops.mask.write_vector` like the reference path's
result.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...backend import (PreparedLaunch, compile_module, count_mailbox, elapsed_ms, launch,
                        record_event, run_behind, translate_oom, wait_for, zero_async)
from ...semiring.operators import BinaryOp, Semiring
from ...vector import Vector
from .. import mask as _mask
from ..kernels import placeholder
from ..kernels.words import word_bytes, word_holds_value
from . import emulation
from . import kernels as _k
from .layout import SparseLayout, layout_of
from .params import INPUTS_PER_BLOCK, THREADS, SparseParams, current_params

__all__ = ["spmspv", "push", "kernel_timing", "segment_bytes", "ONE_CALL", "ROUND_XS",
           "ROUND_WS"]

# the push and spread kernels' `rounds` mode (HYBLAS_ONE_CALL ... in sparse_push.cu)
ONE_CALL, ROUND_XS, ROUND_WS = np.int32(0), np.int32(1), np.int32(2)

_timed: list[tuple[Any, ...]] | None = None  # events of each GPU call inside kernel_timing()


@contextlib.contextmanager
def kernel_timing() -> Iterator[list[dict[str, float]]]:
    """Time the GPU calls of the sparse executor made inside the block (for benchmarks).

    Yields a list that, when the block ends, holds one dict per call: ``walk_ms`` (the push and
    spreading kernels, after an ``any`` call's claims kernel), ``finish_ms`` (the finish
    kernel: the values read out and the work array reset, unless a bitmap result takes it; the
    spare's refill runs on another stream and is not in it) and ``sync_gap_ms`` (from there to
    the call's end: the host waits for the output count, which the finish kernel writes first,
    and a list result is sorted).
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
            calls.append({"walk_ms": elapsed_ms(e0, e1), "finish_ms": elapsed_ms(e1, e2),
                          "sync_gap_ms": elapsed_ms(e2, e3)})  # fmt: skip


@dataclass
class Result:
    """A product's present outputs: ``sparse`` (sorted int64 ids, values) or, when that many
    would be stored as a bitmap anyway, ``bitmap`` (values, presence) over all outputs."""

    count: int
    sparse: tuple[Any, Any] | None = None
    bitmap: tuple[Any, Any] | None = None

    def as_sparse(self, xp: Any) -> tuple[Any, Any]:
        if self.sparse is not None:
            return self.sparse
        values, present = self.bitmap
        idx = xp.flatnonzero(present).astype(np.int64)
        return idx, values[idx]

    def as_bitmap(self, xp: Any, size: int) -> tuple[Any, Any]:
        if self.bitmap is not None:
            return self.bitmap
        indices, values = self.sparse
        t_values = xp.zeros(size, dtype=values.dtype)
        t_present = xp.zeros(size, dtype=bool)
        t_values[indices] = values
        t_present[indices] = True
        return t_values, t_present


def spmspv(
    edges: Any, u: Any, semiring: Semiring, *, flip: bool, mask: Any, accum: BinaryOp | None,
    replace: bool, out: Any, backend: str, build: bool = True,
) -> Any:  # fmt: skip
    """``w<mask> accum= E ⊕.⊗ u`` by pushing from ``u``'s entries over the sparse layout of the
    edge matrix ``edges``. ``flip`` multiplies ``u_j ⊗ E_ij`` (``vxm`` passes ``Aᵀ``).
    ``build=False``: push over the flat layout when the grouped one is not built yet and the
    flat one is at hand (:func:`.layout.layout_of`)."""
    mask = _mask.as_mask(mask)
    active, u_values = u._as_sparse()
    result = push(edges, active, u_values, semiring, flip=flip, mask=mask, build=build)
    out_type = _types(semiring, edges.dtype, u.dtype)[1]
    if out is None and accum is None:  # the mask was applied in the walk
        if result.sparse is not None:
            return Vector(edges.nrows, out_type, backend=backend, sparse=result.sparse,
                          nnz=result.count)._settled()  # fmt: skip
        return Vector._from_bitmap(*result.bitmap, backend=backend, nnz=result.count)
    t_values, t_present = result.as_bitmap(edges._xp, edges.nrows)
    return _mask.write_vector(out, t_values, t_present, mask=mask, accum=accum, replace=replace,
                              backend=backend, nnz=result.count)  # fmt: skip


def push(edges: Any, active: Any, u_values: Any, semiring: Semiring, *, flip: bool,
         mask: Any = None, params: SparseParams | None = None,
         build: bool = True) -> Result:  # fmt: skip
    """The masked product from the inputs ``active`` (any order, no repeats) with values
    ``u_values``, in the semiring's output type (``build`` as in :func:`spmspv`)."""
    params = params or current_params()
    op_type, out_type = _types(semiring, edges.dtype, u_values.dtype)
    layout = layout_of(edges, params, build=build)
    x = u_values.astype(op_type, copy=False)
    if edges.backend == "cpu":
        allowed = None if mask is None else _mask.vector_allowed(mask)
        indices, values = emulation.push(layout, params, active, x, semiring, op_type,
                                         flip=flip, allowed=allowed)  # fmt: skip
        return Result(int(indices.size), sparse=(indices, values))
    return _push_cuda(layout, params, edges._xp, active, x, semiring, op_type, out_type,
                      flip=flip, mask=mask)  # fmt: skip


def segment_bytes(params: SparseParams, out_type: np.dtype) -> int:
    """Dynamic shared memory of a push block: mirrors ``hyblas_segment_walk``'s carving."""
    words = (params.segment * word_bytes(out_type) + 7) & ~7
    return words + 4 * (-(-params.segment // 32)) + 2 * params.segment


def _workspace(layout: SparseLayout, xp: Any, module: Any, semiring: Semiring,
               out_type: np.dtype) -> list[Any]:  # fmt: skip
    """[work words, presence bits (32 outputs a word), clean, claim (presence) bits of the high
    outputs, blocked bits, work words of the high outputs, refilled, spare]: user-indexed (the
    high outputs' bits and words by internal id), reset between calls by the finish kernels,
    cached on the layout per result type, identity and whether the monoid is ``any`` (whose
    calls rewrite the presence, claim and blocked bits whole before they walk, and leave them
    set). A call that failed part-way leaves its workspace marked not clean, and the next call
    refills it. ``refilled``: None, or the event of the refill of the work words (they were a
    spare), which the current stream waits for here; ``spare``: None, or (work words, the event
    of their refill) for the next result that takes the work words (:func:`_spare_work_words`).
    """
    cache = layout.__dict__.setdefault("_workspaces", {})
    key = _workspace_key(semiring, np.dtype(out_type))
    entry = cache.get(key)
    if entry is None:
        word = np.uint64 if key[0] else np.uint32
        with translate_oom("sparse SpMSpV work array"):
            entry = cache[key] = [xp.empty(max(layout.nrows, 1), dtype=word),
                                  xp.empty(-(-max(layout.nrows, 1) // 32), dtype=np.uint32),
                                  False,
                                  xp.empty(-(-max(layout.high_count, 1) // 32), dtype=np.uint32),
                                  xp.empty(-(-max(layout.nrows, 1) // 32) if key[3] else 1,
                                           dtype=np.uint32),
                                  xp.empty(max(layout.high_count, 1), dtype=word), None,
                                  None]  # fmt: skip
    if entry[6] is not None:
        if entry[6].done:
            entry[6] = None
        else:
            wait_for(entry[6])
    if not entry[2]:
        launch(module.get_function(_k.FILL), (_blocks(layout.nrows),), (THREADS,),
               (np.int64(layout.nrows), entry[0], entry[1], np.int64(layout.high_count), entry[5],
                entry[3]))  # fmt: skip
        entry[2] = True
    return entry


def _spare_work_words(xp: Any, workspace: list[Any], refill: PreparedLaunch) -> None:
    """Give ``workspace`` spare work words, filled with the identity by ``refill`` behind the
    current stream's work (:func:`hyblas.backend.run_behind`), unless it has them: the host
    does this while it waits for the output count, and a bitmap result then takes the work
    words with no fill in its own time (:func:`_hand_over_work_words`). A list result leaves
    the spare for a later call."""
    if workspace[7] is None:
        spare = xp.empty_like(workspace[0])
        workspace[7] = (spare, run_behind(lambda: refill.run(spare), keep=spare))


def _hand_over_work_words(layout: SparseLayout, key: tuple[Any, ...],
                          workspace: list[Any]) -> Any:  # fmt: skip
    """The work words of ``workspace`` (cached under ``key``), handed over to become a bitmap
    result's values (the finish left them as they are): the cache gets a new entry whose work
    words are the spare (:func:`_spare_work_words`), which the next call waits for. A new
    entry, not the old one changed: whatever still holds the old entry (a rounds graph points
    to its arrays) sees that it is not the cached one."""
    spare, refilled = workspace[7]
    layout.__dict__["_workspaces"][key] = [spare, workspace[1], True, *workspace[3:6], refilled,
                                           None]  # fmt: skip
    return workspace[0]


def _is_any(semiring: Semiring) -> bool:
    """The ``any`` monoid's calls claim outputs (``sparse_push.cu``'s header)."""
    return semiring.monoid.name == "any"


@functools.cache
def _sparse_below() -> int:
    from ...vector import SPARSE_BELOW  # noqa: PLC0415 - the containers import this package

    return SPARSE_BELOW


# Host time is a good part of a small product's time: what depends only on the semiring and
# the types is worked out once (a dtype promotion or a NumPy scalar's repr costs microseconds).
@functools.lru_cache(maxsize=256)
def _types(semiring: Semiring, edge_type: np.dtype, u_type: np.dtype) -> tuple[np.dtype, np.dtype]:
    """(operand type, result type) of ``semiring`` on an edge matrix and a vector of these
    types."""
    op_type = semiring.input_type(edge_type, u_type)
    return op_type, semiring.output_type(op_type)


@functools.lru_cache(maxsize=256)
def _workspace_key(semiring: Semiring, out_type: np.dtype) -> tuple[Any, ...]:
    """What a workspace serves: word size, result type, identity, and whether the monoid is
    ``any``."""
    return (out_type.itemsize == 8, out_type.str, repr(semiring.monoid.identity(out_type)),
            _is_any(semiring))  # fmt: skip


@functools.lru_cache(maxsize=256)
def _kernels(semiring: Semiring, op_type: np.dtype, ids: np.dtype, mask_dtype: np.dtype | None,
             flags: tuple[bool, ...]) -> tuple[Any, ...]:  # fmt: skip
    """(module, push, spread, finish, finish_call, claims, advance, finish_high, refill) for one
    specialization (finish and advance: the graph rounds' kernels, :mod:`.rounds`; cached:
    building the source and looking the module up cost more than a small frontier's
    kernels). ``flags``: flip, iso, and the mask's three; an ``any`` call's push and spread
    do not read the mask (the claims kernel folds it into the presence bits first)."""
    source = _k.specialize(semiring, op_type, index_dtype=ids, mask_dtype=mask_dtype)
    walk_flags = (*flags[:2], False, False, False) if _is_any(semiring) else flags
    names = (_k.push_name(*walk_flags), _k.spread_name(*walk_flags), _k.FINISH,
             _k.FINISH_CALL, _k.claims_name(*flags[2:]), _k.ADVANCE, _k.FINISH_HIGH,
             _k.REFILL, _k.FILL)  # fmt: skip
    module = compile_module(source, names)
    return (module, *(module.get_function(name) for name in names[:8]))


def _blocks(n: int) -> int:
    return max(1, min(-(-n // THREADS), 65535))


def _finish_blocks(n: int) -> int:
    """The finish kernel's grid: a bitmap's n outputs, 4 a thread, in up to 2048 blocks (grid-
    stride beyond), so that a small list result does not start a grid as large as n."""
    return max(1, min(-(-n // (4 * THREADS)), 2048))


@dataclass(frozen=True)
class _Plan:
    """The launches of a single call on one layout for one specialization, their layout
    arguments set once (kept on the layout): a CuPy launch converts every argument each time,
    host time that the GPU spends idle before a small product's first kernel."""

    claims: PreparedLaunch | None  # `any` calls only
    push: PreparedLaunch
    spread: PreparedLaunch
    finish_high: PreparedLaunch | None  # not `any`, and only with high outputs
    finish_call: PreparedLaunch
    refill: PreparedLaunch | None  # where a bitmap result takes the work words (the finish's
    # hand_over, fixed here)
    unread: Any  # a placeholder array for the arguments a call neither reads nor writes


def _plan(layout: SparseLayout, params: SparseParams, xp: Any, kernels: tuple[Any, ...],
          op_type: np.dtype, out_type: np.dtype, claiming: bool) -> _Plan:  # fmt: skip
    """The plan for ``kernels`` (from :func:`_kernels`, which fix the operand and result
    types) on ``layout``, cached on it."""
    key = (kernels, params.segment, params.reach, params.segment_min_edges, params.spread_blocks)
    plans = layout.__dict__.setdefault("_plans", {})
    plan = plans.get(key)
    if plan is None:
        plan = plans[key] = _make_plan(layout, params, xp, kernels, op_type, out_type, claiming)
    return plan


def _make_plan(layout: SparseLayout, params: SparseParams, xp: Any, kernels: tuple[Any, ...],
               op_type: np.dtype, out_type: np.dtype, claiming: bool) -> _Plan:  # fmt: skip
    _, push_kernel, spread_kernel, _, finish_call, claims, _, finish_high, refill = kernels
    iso = layout.iso_value is not None
    weights = placeholder(xp, op_type) if iso else layout.weights_as(op_type)
    iso_value = np.dtype(op_type).type(layout.iso_value if iso else 0)
    array = placeholder(xp, np.bool_)  # the example of an argument each call passes
    count = np.int64(0)  # and of a count each call passes
    no_queue = placeholder(xp, layout.push_dst.dtype)  # read in rounds only (.rounds)
    shared = segment_bytes(params, out_type) if layout.high_count and not claiming else 0
    plan_claims = plan_high = None
    if claiming:
        plan_claims = PreparedLaunch(claims, (_blocks(layout.nrows),), (THREADS,), (
            np.int64(layout.nrows), np.int64(layout.high_count), layout.output_order,
            array, array, array, array, array,
        ), variable=(3, 4, 5, 6, 7))  # the mask's values and presence, the bits  # fmt: skip
    plan_push = PreparedLaunch(push_kernel, (1,), (THREADS,), (
        count, array, array, layout.push_indptr, layout.push_split, layout.push_dst, weights,
        iso_value, layout.output_order, np.int64(layout.high_count), np.int32(params.segment),
        np.int64(params.reach), np.int64(params.segment_min_edges), array, array, array, array,
        array, array, array, array, array, count, no_queue, ONE_CALL,
    ), shared, variable=(0, 1, 2, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22))  # fmt: skip
    plan_spread = PreparedLaunch(spread_kernel, (params.spread_blocks,), (THREADS,), (
        array, array, layout.push_indptr, layout.push_split, layout.push_dst, weights, iso_value,
        layout.output_order, array, array, array, array, array, array, array, array, array,
        count, no_queue, ONE_CALL,
    ), variable=(0, 1, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17))  # fmt: skip
    if layout.high_count and not claiming:
        plan_high = PreparedLaunch(finish_high, (_blocks(layout.high_count),), (THREADS,), (
            np.int64(layout.high_count), layout.output_order, array, array, array, array, array,
            array,
        ), variable=(2, 3, 4, 5, 6, 7))  # fmt: skip
    hand_over = not claiming and word_holds_value(out_type)
    plan_finish = PreparedLaunch(finish_call, (_finish_blocks(layout.nrows),), (THREADS,), (
        np.int64(layout.nrows), array, array, array, array, array,
        np.int64(_sparse_below()), np.int32(hand_over), array, array, np.uint64(0), np.uint64(0),
    ), variable=(1, 2, 3, 4, 5, 8, 9, 10, 11))  # the last two: the count's mailbox, tag
    plan_refill = None
    if hand_over:
        plan_refill = PreparedLaunch(refill, (_finish_blocks(layout.nrows),), (THREADS,),
                                     (np.int64(layout.nrows), array), variable=(1,))  # fmt: skip
    return _Plan(plan_claims, plan_push, plan_spread, plan_high, plan_finish, plan_refill, array)


def _call_arrays(layout: SparseLayout, xp: Any, n_active: int) -> list[Any]:
    """[counters, output list, gathered inputs' slots (``2 * n_active``: slots, then their
    first chunks), whether the counters are zero], kept on the layout from call to call: the
    allocations were a good part of the host time before a small product's first kernel. The
    next call on the stream reuses them only after this one's kernels (stream order), and
    nothing a call returns is a view of them. A call queues the zeroing of the counters behind
    its finish (:func:`_push_cuda`); after a call that failed part-way, the next one zeroes
    them first."""
    arrays = layout.__dict__.get("_call_arrays")
    if arrays is None or arrays[2].size < 2 * n_active:
        gathered_slots = max(2 * n_active, 2 * INPUTS_PER_BLOCK * 64)
        arrays = layout.__dict__["_call_arrays"] = [
            xp.empty(2, dtype=np.uint64),
            xp.empty(max(layout.nrows, 1), dtype=layout.push_dst.dtype),
            xp.empty(gathered_slots, dtype=np.int64), False]  # fmt: skip
    if not arrays[3]:
        zero_async(arrays[0])
    arrays[3] = False
    return arrays


def _push_cuda(layout: SparseLayout, params: SparseParams, xp: Any, active: Any, x: Any,
               semiring: Semiring, op_type: np.dtype, out_type: np.dtype, *, flip: bool,
               mask: Any) -> Result:  # fmt: skip
    n_active = int(active.size)
    if n_active == 0 or layout.nnz == 0:
        return Result(0, sparse=(xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=out_type)))
    iso = layout.iso_value is not None
    has_mask = mask is not None
    structural = has_mask and mask.structural
    complement = has_mask and mask.complement
    mask_values = mask_present = None
    if structural:  # only the presence is read
        mask_values, mask_present = placeholder(xp, mask.parent.dtype), mask.parent._presence()
    elif has_mask:
        mask_values, mask_present = mask.parent._as_bitmap()
    kernels = _kernels(semiring, op_type, layout.push_dst.dtype,
                       mask_values.dtype if has_mask else None,
                       (flip, iso, has_mask, structural, complement))  # fmt: skip
    claiming = _is_any(semiring)
    plan = _plan(layout, params, xp, kernels, op_type, out_type, claiming)
    if not has_mask:
        mask_values = mask_present = plan.unread
    active = active.astype(np.int64, copy=False)
    inputs = np.int64(n_active)
    with translate_oom("sparse SpMSpV"):
        workspace = _workspace(layout, xp, kernels[0], semiring, out_type)
        ws, presence, claim_bits, blocked, high_ws = workspace[0], workspace[1], *workspace[3:6]
        workspace[2] = False  # dirty until the finish kernel has reset what this call touched
        call_arrays = _call_arrays(layout, xp, n_active)
        counters, listed, gathered = call_arrays[:3]
        events = [record_event()] if _timed is not None else None
        if plan.claims is not None:
            plan.claims.run(mask_values, mask_present, presence, claim_bits, blocked)
        plan.push.run(inputs, active, x, mask_values, mask_present, ws, presence, claim_bits,
                      high_ws, listed, counters, gathered, inputs,
                      grid=(-(-n_active // INPUTS_PER_BLOCK),))  # fmt: skip
        plan.spread.run(active, x, mask_values, mask_present, ws, presence, claim_bits,
                        high_ws, listed, counters, gathered, inputs)  # fmt: skip
        if plan.finish_high is not None:
            plan.finish_high.run(high_ws, claim_bits, ws, presence, listed, counters)
        if events is not None:
            events.append(record_event())
        # the finish picks the result's format on the device (hyblas_sparse_finish_call)
        values = xp.empty(layout.nrows, dtype=out_type)
        present = xp.empty(layout.nrows, dtype=bool)
        mailbox = count_mailbox()
        tag = mailbox.next_tag()
        plan.finish_call.run(listed, ws, presence, blocked, counters, values, present,
                             mailbox.address, tag)  # fmt: skip
        if plan.refill is not None:  # a bitmap result would take the work words
            _spare_work_words(xp, workspace, plan.refill)
        if events is not None:
            events.append(record_event())
        # behind the finish, which reads them; queued before the wait, not in the host's time
        # after the count, which the finish's remaining part may not cover
        zero_async(counters)
        # the finish writes the count first: the rest of it runs while the host goes on
        count = mailbox.wait(tag)
        if count * _sparse_below() >= layout.nrows:  # a bitmap result: no sort
            if plan.refill is not None:
                key = _workspace_key(semiring, np.dtype(out_type))
                values = _hand_over_work_words(layout, key, workspace).view(out_type)
            result = Result(count, bitmap=(values, present))
        else:
            del present
            indices = listed[:count].astype(np.int64)
            order = xp.argsort(indices)
            result = Result(count, sparse=(indices[order], values[:count][order]))
        call_arrays[3] = True
        workspace[2] = True
    if events is not None:
        events.append(record_event())
        _timed.append(tuple(events))
    return result
