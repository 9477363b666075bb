"""Run a product on the sparse layout: CUDA kernels on the GPU, the NumPy emulation on the CPU.

The output mask is applied inside the walk, before any atomic; the present outputs come out as
a list, so a small result costs no pass over all outputs. With ``out`` (accum / replace), that
list is then written through :func:`hyblas.ops.output.write_vector` like the reference path's
result.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...backend import (
    PreparedLaunch,
    compile_module,
    count_mailbox,
    elapsed_ms,
    launch,
    record_event,
    run_behind,
    translate_oom,
    wait_for,
    zero_async,
)
from ...containers.mask import Mask
from ...containers.matrix import Matrix
from ...containers.vector import SPARSE_BELOW, Vector
from ...device.codegen import placeholder
from ...device.words import word_bytes, word_holds_value
from ...operators.classes import Semiring
from ...ops.dispatch import Product
from ...ops.output import write_vector
from ...ops.spec import OutputSpec
from . import emulation
from . import kernels as _k
from .layout import SparseLayout, layout_key, layout_of
from .params import INPUTS_PER_BLOCK, THREADS, SparseParams, current_params

__all__ = [
    "run",
    "has_layout",
    "push",
    "kernel_timing",
    "segment_bytes",
    "kernels_for",
    "workspace_for",
    "blocks",
    "Workspace",
    "SparseKernels",
    "ONE_CALL",
    "ROUND_XS",
    "ROUND_WS",
]

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
            calls.append(
                {
                    "walk_ms": elapsed_ms(e0, e1),
                    "finish_ms": elapsed_ms(e1, e2),
                    "sync_gap_ms": elapsed_ms(e2, e3),
                }
            )


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


def run(
    product: Product,
    spec: OutputSpec,
    *,
    may_build: bool = True,
    stats: dict[str, int] | None = None,
) -> Vector:
    """``w<mask> accum= E ⊕.⊗ u`` by pushing from ``u``'s entries over the sparse layout of the
    product's edge matrix ``E``, written as ``spec`` says. ``may_build=False`` (the policy
    chose): push over the flat layout when the grouped one is not built yet and the flat one
    is at hand (:func:`.layout.layout_of`). ``stats`` is not used (the trace counts the
    frontier's out-edges)."""
    edges, u, semiring = product.edges, product.u, product.semiring
    active, u_values = u.as_sparse()
    result = push(
        edges, active, u_values, semiring, flip=product.flip, mask=spec.mask, build=may_build
    )
    out_type = _types(semiring, edges.dtype, u.dtype)[1]
    if spec.out is None and spec.accum is None:  # the mask was applied in the walk
        if result.sparse is not None:
            return Vector(
                edges.nrows, out_type, backend=spec.backend, sparse=result.sparse, nnz=result.count
            ).settle()
        return Vector.wrap_bitmap(*result.bitmap, backend=spec.backend, nnz=result.count)
    t_values, t_present = result.as_bitmap(edges.xp, edges.nrows)
    return write_vector(spec, t_values, t_present, nnz=result.count)


def has_layout(edges: Matrix, params: SparseParams | None = None) -> bool:
    """Whether a push over ``edges`` needs no layout built: its grouped layout for ``params``
    (default: the current set) is cached, or the flat one is at hand (the CSR of the
    transpose)."""
    return (
        layout_key(params or current_params()) in edges.cache
        or edges.transpose_at_hand() is not None
    )


def push(
    edges: Matrix,
    active: Any,
    u_values: Any,
    semiring: Semiring,
    *,
    flip: bool,
    mask: Mask | None = None,
    params: SparseParams | None = None,
    build: bool = True,
) -> Result:
    """The masked product from the inputs ``active`` (any order, no repeats) with values
    ``u_values``, in the semiring's output type (``build`` as ``may_build`` in
    :func:`run`)."""
    params = params or current_params()
    op_type, out_type = _types(semiring, edges.dtype, u_values.dtype)
    layout = layout_of(edges, params, build=build)
    x = u_values.astype(op_type, copy=False)
    if edges.backend == "cpu":
        allowed = None if mask is None else mask.allowed()
        indices, values = emulation.push(
            layout, params, active, x, semiring, op_type, flip=flip, allowed=allowed
        )
        return Result(int(indices.size), sparse=(indices, values))
    return _push_cuda(
        layout, params, edges.xp, active, x, semiring, op_type, out_type, flip=flip, mask=mask
    )


def segment_bytes(params: SparseParams, out_type: np.dtype) -> int:
    """Dynamic shared memory of a push block: mirrors ``hyblas_segment_walk``'s carving."""
    words = (params.segment * word_bytes(out_type) + 7) & ~7
    return words + 4 * (-(-params.segment // 32)) + 2 * params.segment


@dataclass
class Workspace:
    """The work arrays of a layout's calls of one result type, identity and kind of monoid
    (cached on the layout by :func:`workspace_for`). User-indexed, except the high outputs'
    bits and words (by internal id); reset between calls by the finish kernels. An ``any``
    call rewrites the presence, claim and blocked bits whole before it walks, and leaves them
    set.

    Attributes
    ----------
    words : array
        The accumulator words of every output.
    presence : array
        Presence bits, 32 outputs a word.
    clean : bool
        Whether the arrays are reset (a call that failed part-way leaves them not clean, and
        the next one refills them).
    claims : array
        Claim (presence) bits of the high outputs.
    blocked : array
        Bits of the outputs an ``any`` call's mask blocks.
    high_words : array
        Accumulator words of the high outputs.
    refilled : event or None
        The refill of ``words`` (they were a spare): the current stream waits for it.
    spare : tuple or None
        ``(words, the event of their refill)`` for the next result that takes the work words
        (:func:`_spare_work_words`).
    """

    words: Any
    presence: Any
    clean: bool
    claims: Any
    blocked: Any
    high_words: Any
    refilled: Any = None
    spare: tuple[Any, Any] | None = None


def workspace_for(
    layout: SparseLayout, xp: Any, module: Any, semiring: Semiring, out_type: np.dtype
) -> Workspace:
    """The :class:`Workspace` of ``layout`` for ``semiring``'s results of ``out_type`` (made,
    waited for and filled as needed; ``module`` holds the fill kernel)."""
    cache = layout.__dict__.setdefault("_workspaces", {})
    key = _workspace_key(semiring, np.dtype(out_type))
    entry = cache.get(key)
    if entry is None:
        word = np.uint64 if key[0] else np.uint32
        bit_words = -(-max(layout.nrows, 1) // 32)
        with translate_oom("sparse SpMSpV work array"):
            entry = cache[key] = Workspace(
                words=xp.empty(max(layout.nrows, 1), dtype=word),
                presence=xp.empty(bit_words, dtype=np.uint32),
                clean=False,
                claims=xp.empty(-(-max(layout.high_count, 1) // 32), dtype=np.uint32),
                blocked=xp.empty(bit_words if key[3] else 1, dtype=np.uint32),
                high_words=xp.empty(max(layout.high_count, 1), dtype=word),
            )
    if entry.refilled is not None:
        if entry.refilled.done:
            entry.refilled = None
        else:
            wait_for(entry.refilled)
    if not entry.clean:
        launch(
            module.get_function(_k.FILL),
            (blocks(layout.nrows),),
            (THREADS,),
            (
                np.int64(layout.nrows),
                entry.words,
                entry.presence,
                np.int64(layout.high_count),
                entry.high_words,
                entry.claims,
            ),
        )
        entry.clean = True
    return entry


def _spare_work_words(xp: Any, workspace: Workspace, refill: PreparedLaunch) -> None:
    """Give ``workspace`` spare work words, filled with the identity by ``refill`` behind the
    current stream's work (:func:`hyblas.backend.run_behind`), unless it has them: the host
    does this while it waits for the output count, and a bitmap result then takes the work
    words with no fill in its own time (:func:`_hand_over_work_words`). A list result leaves
    the spare for a later call."""
    if workspace.spare is None:
        spare = xp.empty_like(workspace.words)
        workspace.spare = (spare, run_behind(lambda: refill.run(spare), keep=spare))


def _hand_over_work_words(layout: SparseLayout, key: tuple[Any, ...], workspace: Workspace) -> Any:
    """The work words of ``workspace`` (cached under ``key``), handed over to become a bitmap
    result's values (the finish left them as they are): the cache gets a new entry whose work
    words are the spare (:func:`_spare_work_words`), which the next call waits for. A new
    entry, not the old one changed: whatever still holds the old entry (a rounds graph points
    to its arrays) sees that it is not the cached one."""
    spare, refilled = workspace.spare
    layout.__dict__["_workspaces"][key] = dataclasses.replace(
        workspace, words=spare, clean=True, refilled=refilled, spare=None
    )
    return workspace.words


def _is_any(semiring: Semiring) -> bool:
    """The ``any`` monoid's calls claim outputs (``sparse_push.cu``'s header)."""
    return semiring.monoid.name == "any"


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
    return (
        out_type.itemsize == 8,
        out_type.str,
        repr(semiring.monoid.identity(out_type)),
        _is_any(semiring),
    )


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: one per specialization
class SparseKernels:
    """The compiled module of one specialization and its kernels (``finish`` and ``advance``
    serve the graph rounds, :mod:`hyblas.traversal.graph_rounds`)."""

    module: Any
    push: Any
    spread: Any
    finish: Any
    finish_call: Any
    claims: Any
    advance: Any
    finish_high: Any
    refill: Any


@functools.lru_cache(maxsize=256)
def kernels_for(
    semiring: Semiring,
    op_type: np.dtype,
    ids: np.dtype,
    mask_dtype: np.dtype | None,
    flags: tuple[bool, ...],
) -> SparseKernels:
    """The :class:`SparseKernels` of one specialization (cached: building the source and
    looking the module up cost more than a small frontier's kernels). ``flags``: flip, iso,
    and the mask's three; an ``any`` call's push and spread do not read the mask (the claims
    kernel folds it into the presence bits first)."""
    source = _k.specialize(semiring, op_type, index_dtype=ids, mask_dtype=mask_dtype)
    walk_flags = (*flags[:2], False, False, False) if _is_any(semiring) else flags
    names = (
        _k.push_name(*walk_flags),
        _k.spread_name(*walk_flags),
        _k.FINISH,
        _k.FINISH_CALL,
        _k.claims_name(*flags[2:]),
        _k.ADVANCE,
        _k.FINISH_HIGH,
        _k.REFILL,
        _k.FILL,
    )
    module = compile_module(source, names)
    return SparseKernels(module, *(module.get_function(name) for name in names[:8]))


def blocks(n: int) -> int:
    """A grid of ``THREADS``-thread blocks with a thread for each of ``n`` items (at most
    65535 blocks)."""
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


def _plan(
    layout: SparseLayout,
    params: SparseParams,
    xp: Any,
    kernels: SparseKernels,
    op_type: np.dtype,
    out_type: np.dtype,
    claiming: bool,
) -> _Plan:
    """The plan for ``kernels`` (from :func:`kernels_for`, which fix the operand and result
    types) on ``layout``, cached on it."""
    key = (kernels, params.segment, params.reach, params.segment_min_edges, params.spread_blocks)
    plans = layout.__dict__.setdefault("_plans", {})
    plan = plans.get(key)
    if plan is None:
        plan = plans[key] = _make_plan(layout, params, xp, kernels, op_type, out_type, claiming)
    return plan


def _make_plan(
    layout: SparseLayout,
    params: SparseParams,
    xp: Any,
    kernels: SparseKernels,
    op_type: np.dtype,
    out_type: np.dtype,
    claiming: bool,
) -> _Plan:
    push_kernel, spread_kernel, finish_call = kernels.push, kernels.spread, kernels.finish_call
    claims, finish_high, refill = kernels.claims, kernels.finish_high, kernels.refill
    iso = layout.iso_value is not None
    weights = placeholder(xp, op_type) if iso else layout.weights_as(op_type)
    iso_value = np.dtype(op_type).type(layout.iso_value if iso else 0)
    array = placeholder(xp, np.bool_)  # the example of an argument each call passes
    count = np.int64(0)  # and of a count each call passes
    no_queue = placeholder(xp, layout.push_dst.dtype)  # read in graph rounds only
    shared = segment_bytes(params, out_type) if layout.high_count and not claiming else 0
    plan_claims = plan_high = None
    if claiming:
        plan_claims = PreparedLaunch(
            claims,
            (blocks(layout.nrows),),
            (THREADS,),
            (
                np.int64(layout.nrows),
                np.int64(layout.high_count),
                layout.output_order,
                array,
                array,
                array,
                array,
                array,
            ),
            variable=(3, 4, 5, 6, 7),
        )  # the mask's values and presence, the bits
    plan_push = PreparedLaunch(
        push_kernel,
        (1,),
        (THREADS,),
        (
            count,
            array,
            array,
            layout.push_indptr,
            layout.push_split,
            layout.push_dst,
            weights,
            iso_value,
            layout.output_order,
            np.int64(layout.high_count),
            np.int32(params.segment),
            np.int64(params.reach),
            np.int64(params.segment_min_edges),
            array,
            array,
            array,
            array,
            array,
            array,
            array,
            array,
            array,
            count,
            no_queue,
            ONE_CALL,
        ),
        shared,
        variable=(0, 1, 2, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22),
    )
    plan_spread = PreparedLaunch(
        spread_kernel,
        (params.spread_blocks,),
        (THREADS,),
        (
            array,
            array,
            layout.push_indptr,
            layout.push_split,
            layout.push_dst,
            weights,
            iso_value,
            layout.output_order,
            array,
            array,
            array,
            array,
            array,
            array,
            array,
            array,
            array,
            count,
            no_queue,
            ONE_CALL,
        ),
        variable=(0, 1, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17),
    )
    if layout.high_count and not claiming:
        plan_high = PreparedLaunch(
            finish_high,
            (blocks(layout.high_count),),
            (THREADS,),
            (
                np.int64(layout.high_count),
                layout.output_order,
                array,
                array,
                array,
                array,
                array,
                array,
            ),
            variable=(2, 3, 4, 5, 6, 7),
        )
    hand_over = not claiming and word_holds_value(out_type)
    plan_finish = PreparedLaunch(
        finish_call,
        (_finish_blocks(layout.nrows),),
        (THREADS,),
        (
            np.int64(layout.nrows),
            array,
            array,
            array,
            array,
            array,
            np.int64(SPARSE_BELOW),
            np.int32(hand_over),
            array,
            array,
            np.uint64(0),
            np.uint64(0),
        ),
        variable=(1, 2, 3, 4, 5, 8, 9, 10, 11),
    )  # the last two: the count's mailbox, tag
    plan_refill = None
    if hand_over:
        plan_refill = PreparedLaunch(
            refill,
            (_finish_blocks(layout.nrows),),
            (THREADS,),
            (np.int64(layout.nrows), array),
            variable=(1,),
        )
    return _Plan(plan_claims, plan_push, plan_spread, plan_high, plan_finish, plan_refill, array)


@dataclass
class _CallArrays:
    """A single call's scratch arrays, kept on the layout from call to call: the allocations
    were a good part of the host time before a small product's first kernel. The next call on
    the stream reuses them only after this one's kernels (stream order), and nothing a call
    returns is a view of them."""

    counters: Any  # the output count and the gathered inputs' count
    listed: Any  # the output list
    gathered: Any  # gathered inputs' slots (2 * inputs: slots, then their first chunks)
    zeroed: bool  # whether the counters are zero (queued behind the last call's finish)


def _call_arrays(layout: SparseLayout, xp: Any, n_active: int) -> _CallArrays:
    """The layout's :class:`_CallArrays` for ``n_active`` inputs, counters zeroed. A call
    queues the zeroing of the counters behind its finish (:func:`_push_cuda`); after a call
    that failed part-way, the next one zeroes them first."""
    arrays = layout.__dict__.get("_call_arrays")
    if arrays is None or arrays.gathered.size < 2 * n_active:
        gathered_slots = max(2 * n_active, 2 * INPUTS_PER_BLOCK * 64)
        arrays = layout.__dict__["_call_arrays"] = _CallArrays(
            counters=xp.empty(2, dtype=np.uint64),
            listed=xp.empty(max(layout.nrows, 1), dtype=layout.push_dst.dtype),
            gathered=xp.empty(gathered_slots, dtype=np.int64),
            zeroed=False,
        )
    if not arrays.zeroed:
        zero_async(arrays.counters)
    arrays.zeroed = False
    return arrays


def _push_cuda(
    layout: SparseLayout,
    params: SparseParams,
    xp: Any,
    active: Any,
    x: Any,
    semiring: Semiring,
    op_type: np.dtype,
    out_type: np.dtype,
    *,
    flip: bool,
    mask: Mask | None,
) -> Result:
    n_active = int(active.size)
    if n_active == 0 or layout.nnz == 0:
        return Result(0, sparse=(xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=out_type)))
    iso = layout.iso_value is not None
    has_mask = mask is not None
    structural = has_mask and mask.structural
    complement = has_mask and mask.complement
    mask_values = mask_present = None
    if structural:  # only the presence is read
        mask_values, mask_present = placeholder(xp, mask.parent.dtype), mask.parent.presence()
    elif has_mask:
        mask_values, mask_present = mask.parent.as_bitmap()
    kernels = kernels_for(
        semiring,
        op_type,
        layout.push_dst.dtype,
        mask_values.dtype if has_mask else None,
        (flip, iso, has_mask, structural, complement),
    )
    claiming = _is_any(semiring)
    plan = _plan(layout, params, xp, kernels, op_type, out_type, claiming)
    if not has_mask:
        mask_values = mask_present = plan.unread
    active = active.astype(np.int64, copy=False)
    inputs = np.int64(n_active)
    with translate_oom("sparse SpMSpV"):
        workspace = workspace_for(layout, xp, kernels.module, semiring, out_type)
        ws, presence, claim_bits = workspace.words, workspace.presence, workspace.claims
        blocked, high_ws = workspace.blocked, workspace.high_words
        workspace.clean = False  # until the finish kernel has reset what this call touched
        call_arrays = _call_arrays(layout, xp, n_active)
        counters, listed, gathered = call_arrays.counters, call_arrays.listed, call_arrays.gathered
        events = [record_event()] if _timed is not None else None
        if plan.claims is not None:
            plan.claims.run(mask_values, mask_present, presence, claim_bits, blocked)
        plan.push.run(
            inputs,
            active,
            x,
            mask_values,
            mask_present,
            ws,
            presence,
            claim_bits,
            high_ws,
            listed,
            counters,
            gathered,
            inputs,
            grid=(-(-n_active // INPUTS_PER_BLOCK),),
        )
        plan.spread.run(
            active,
            x,
            mask_values,
            mask_present,
            ws,
            presence,
            claim_bits,
            high_ws,
            listed,
            counters,
            gathered,
            inputs,
        )
        if plan.finish_high is not None:
            plan.finish_high.run(high_ws, claim_bits, ws, presence, listed, counters)
        if events is not None:
            events.append(record_event())
        # the finish picks the result's format on the device (hyblas_sparse_finish_call)
        values = xp.empty(layout.nrows, dtype=out_type)
        present = xp.empty(layout.nrows, dtype=bool)
        mailbox = count_mailbox()
        tag = mailbox.next_tag()
        plan.finish_call.run(
            listed, ws, presence, blocked, counters, values, present, mailbox.address, tag
        )
        if plan.refill is not None:  # a bitmap result would take the work words
            _spare_work_words(xp, workspace, plan.refill)
        if events is not None:
            events.append(record_event())
        # behind the finish, which reads them; queued before the wait, not in the host's time
        # after the count, which the finish's remaining part may not cover
        zero_async(counters)
        # the finish writes the count first: the rest of it runs while the host goes on
        count = mailbox.wait(tag)
        if count * SPARSE_BELOW >= layout.nrows:  # a bitmap result: no sort
            if plan.refill is not None:
                key = _workspace_key(semiring, np.dtype(out_type))
                values = _hand_over_work_words(layout, key, workspace).view(out_type)
            result = Result(count, bitmap=(values, present))
        else:
            del present
            indices = listed[:count].astype(np.int64)
            order = xp.argsort(indices)
            result = Result(count, sparse=(indices[order], values[:count][order]))
        call_arrays.zeroed = True
        workspace.clean = True
    if events is not None:
        events.append(record_event())
        _timed.append(tuple(events))
    return result
