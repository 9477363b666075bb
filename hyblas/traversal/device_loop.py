"""The device loop on the GPU: one cooperative launch of ``frontier_loop.cu`` runs rounds
until the frontier empties, the last round is done, or the next frontier is too wide; the
host reads a few counters once at the end instead of once a round."""

from __future__ import annotations

import contextlib
import functools
from typing import Any

import numpy as np

from ..backend import (
    compile_module,
    grid_stride_blocks,
    host_readback,
    multiprocessor_count,
    translate_oom,
    xp_for,
)
from ..containers.derived import known_symmetric, values_as
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..device.codegen import placeholder
from ..device.words import word_bytes
from ..operators.classes import BinaryOp, Semiring
from . import kernels as _k
from .params import THREADS, current_params
from .stamps import LevelStamps, StayStamps, borrow, borrow_stamps
from .walk import Entry, Walked, pull_bitmap_words

__all__ = ["walk", "frontier_facts", "improve_bitmaps", "HUGE_LIST"]

HUGE_LIST = 256  # HYBLAS_HUGE_LIST in frontier_loop.cu: a round's huge vertices the grid walks
# the kernel's counters (frontier_loop.cu, HYBLAS_SETS and after): three sets of a queue's
# [light count, other count, edges], then these, then the sets' huge counts
_SETS = 3
_WALKED, _LIGHT_BASE, _OTHER_BASE, _ROUNDS, _FIRST_LIGHT, _HUGE_COUNTS = 9, 10, 11, 12, 13, 14
_COUNTERS = _HUGE_COUNTS + _SETS


def frontier_facts(A: Matrix, frontier: Vector) -> tuple[int, int]:  # noqa: N803
    """The frontier's out-edges in ``A`` and the most of any one vertex: one kernel and one
    read back, from the frontier as it is stored (``propagate`` asks before each round)."""
    out = A.xp.zeros(2, dtype=np.uint64)
    if frontier.stored_bitmap is None:
        _launch_facts(A.indptr, out, ids=frontier.stored_sparse[0])
    else:
        _launch_facts(A.indptr, out, present=frontier.stored_bitmap[1])
    edges, widest = (int(v) for v in out.get())
    return edges, widest


def _launch_facts(indptr: Any, out: Any, *, ids: Any = None, present: Any = None) -> None:
    """Queue ``frontier_facts.cu`` over the vertices ``ids``, or those with ``present``:
    their out-edges and the widest one's are added into ``out[0]`` / ``out[1]``."""
    xp = xp_for("cuda")
    sparse = ids is not None
    count = int(ids.size) if sparse else int(present.size)
    blocks = grid_stride_blocks(count, THREADS)
    _facts_kernel(indptr.dtype)(
        (blocks,),
        (THREADS,),
        (
            np.int32(sparse),
            ids if sparse else placeholder(xp, np.int64),
            placeholder(xp, np.bool_) if sparse else present,
            np.int64(count),
            indptr,
            out,
        ),
    )


def improve_bitmaps(
    xp: Any, add: BinaryOp, state: tuple[Any, Any], reached: tuple[Any, Any], indptr: Any = None
) -> tuple[Any, Any, int, int, int | None]:
    """An improving round's state update over bitmaps (values, presence) of one value type,
    in one pass (``improve_bitmap.cu``): the state's arrays are updated in place. Returns
    the improved entries' bitmap, their count, the state's count of entries after and, given
    the CSR ``indptr`` of a matrix whose rows are the vertices, the improved vertices'
    out-edges (``frontier_facts.cu`` on the improved bitmap, read back with the counts: the
    next round's test then costs no read of its own), else None."""
    (values, present), (r_values, r_present) = state, reached
    n = values.size
    improved = xp.empty(n, dtype=values.dtype)
    improved_present = xp.empty(n, dtype=bool)
    counts = xp.zeros(2 if indptr is None else 4, dtype=np.uint64)
    blocks = grid_stride_blocks(n, THREADS)
    _improve_kernel(add, values.dtype)(
        (blocks,),
        (THREADS,),
        (np.int64(n), r_values, r_present, values, present, improved, improved_present, counts),
    )
    if indptr is not None:
        _launch_facts(indptr, counts[2:], present=improved_present)
    found, entries, *facts = (int(c) for c in counts.get())
    return improved, improved_present, found, entries, facts[0] if facts else None


def walk(entry: Entry) -> Walked:
    """Run ``entry``'s rounds in one persistent kernel."""
    if not entry.levels:
        return _walk(entry, None, None)
    A, out_type = entry.A, entry.semiring.output_type(np.dtype(entry.op_type))
    identity = _identity_word(entry.semiring, out_type)
    with contextlib.ExitStack() as kept:
        stamps = kept.enter_context(borrow_stamps(A))
        if _one_barrier(entry):  # a vertex gets its value as it is queued: no ws
            ws = placeholder(A.xp, identity.dtype)
        else:
            make_ws = lambda: A.xp.full(A.nrows, identity, dtype=identity.dtype)  # noqa: E731
            key = ("loop_level_ws", identity.dtype.str, int(identity))
            ws = kept.enter_context(borrow(A, key, make_ws))
        bits = None
        if entry.pull is not None:  # the kernel writes them before it reads them
            words = 2 * pull_bitmap_words(A.nrows)
            make_bits = lambda: A.xp.empty(words, dtype=np.uint32)  # noqa: E731
            bits = kept.enter_context(borrow(A, "loop_pull_bits", make_bits))
        return _walk(entry, ws, stamps, bits)


def _walk(entry: Entry, level_ws: Any, stamps: LevelStamps | None, pull_bits: Any = None) -> Walked:
    """``level_ws`` / ``stamps``: what levels rounds keep between stays (None otherwise);
    ``pull_bits``: the pull rounds' frontier bitmaps (None: the stay does not pull)."""
    A, xp = entry.A, entry.A.xp
    params = current_params()
    one_barrier = _one_barrier(entry)
    blocks_per_sm = params.blocks_for(one_barrier, A.nnz / max(A.nrows, 1))
    n = A.nrows
    op_type = np.dtype(entry.op_type)
    out_type = entry.semiring.output_type(op_type)
    kernel = _kernel(
        entry.semiring, op_type, A.indptr.dtype, A.indices.dtype, entry.levels, blocks_per_sm
    )
    identity = _identity_word(entry.semiring, out_type)
    weights = values_as(A, op_type)
    pull = entry.pull
    if pull is not None:
        pull_arrays = (pull.indptr, pull.indices, values_as(pull, op_type))
    else:  # read by pull rounds only
        pull_arrays = (A.indptr, A.indices, weights)
    pull_first = (
        entry.frontier_present if entry.frontier_present is not None else placeholder(xp, np.bool_)
    )
    # every CuPy call costs the host tens of microseconds, and a stay on a large graph may be
    # a few short rounds: the kernel builds the first queue itself, scratch arrays are only
    # allocated (empty), and the host reads the counters once, at the end
    sparse = entry.ids is not None
    first_ids = entry.ids if sparse else placeholder(xp, np.int64)
    first_present = placeholder(xp, np.bool_) if sparse else entry.frontier_present
    read_stamps = stamps is not None and _most_in_edges(A, pull) > params.atomic_stamp_degree
    with translate_oom("device loop work arrays"):
        if stamps is not None:
            # one queue region for all the rounds: each vertex is queued once, after the first
            # round's, which may hold vertices not in the state
            cap, regions = n + entry.first_count, 1
            # the kernel stamps a sparse state's vertices (a scatter here costs the host more)
            stay = stamps.open(entry.first_round, entry.last_round)
            prestamp, offset = stay.floor, stay.offset
            ws, stamp, present = level_ws, stamps.stamp, placeholder(xp, np.bool_)  # unread
            visited = entry.present if entry.present is not None else placeholder(xp, np.bool_)
        else:
            cap, regions, prestamp, offset = n, 2, 0, 0
            ws = xp.where(
                entry.present, _to_words(entry.values.astype(out_type, copy=False)), identity
            )
            present = entry.present.copy()  # the kernel marks what it reaches (a byte each)
            stamp = xp.zeros(n, dtype=np.int64)
            visited = placeholder(xp, np.bool_)
        queue = xp.empty(regions * cap, dtype=np.int64)
        values = xp.empty(regions * cap, dtype=out_type)
        first_values = xp.empty(max(cap, 1), dtype=op_type)
        counters = xp.zeros(_COUNTERS, dtype=np.uint64)
        huge_slots = xp.empty(_SETS * HUGE_LIST, dtype=np.int64)
        if entry.buckets is None:  # read and written by bucketed rounds only
            bucket = xp.empty(4, dtype=identity.dtype)
            minima = placeholder(xp, np.uint64)
        else:
            bucket = xp.asarray(_bucket_words(entry, out_type))
            minima = xp.empty(2, dtype=np.uint64)  # the queues' minima, set up by the kernel
    to_stamp = entry.state_ids  # a sparse levels state's vertices (None: none to stamp)
    stamp_count = 0 if to_stamp is None else int(to_stamp.size)
    if to_stamp is None:
        to_stamp = placeholder(xp, np.int64)  # unread
    grid = (multiprocessor_count() * blocks_per_sm,)
    warp_vertices = params.warp_vertices
    if warp_vertices is None:
        warp_vertices = grid[0] * THREADS // 32
    kernel(
        grid,
        (THREADS,),
        (
            np.int64(n),
            A.indptr,
            A.indices,
            weights,
            first_values,
            ws,
            present,
            stamp,
            np.int64(cap),
            queue,
            values,
            counters,
            np.int64(params.heavy),
            np.int64(entry.first_round),
            np.int64(entry.last_round),
            np.uint64(min(entry.exit_edges, 2**64 - 1)),
            np.int32(entry.buckets is not None),
            np.int32(entry.threshold is not None),
            bucket,
            minima,
            np.int64(warp_vertices),
            np.int64(params.thread_edges),
            visited,
            np.int32(entry.present is not None),
            np.int64(prestamp),
            np.int64(offset),
            np.int32(sparse),
            first_ids,
            first_present,
            entry.x.astype(op_type, copy=False),
            np.int64(entry.ids.size if sparse else n),
            np.int32(pull is not None),
            *pull_arrays,
            pull_first,
            pull_bits if pull_bits is not None else placeholder(xp, np.uint32),
            np.int64(params.huge),
            huge_slots,
            to_stamp,
            np.int64(stamp_count),
            np.int32(read_stamps),
        ),
    )
    readback = host_readback()
    readback.start(counters)  # the stay's one host synchronisation: waited for below
    ahead = _levels_ahead(entry, stamps, stay) if stamps is not None else None
    host_counters = readback.wait()
    rounds = host_counters[_ROUNDS]
    last = entry.first_round + rounds - 1
    # the last round's queue: its counters' set (by parity where the rounds end at two barriers)
    out = last % (_SETS if one_barrier else 2)
    light_count, other_count = host_counters[3 * out], host_counters[3 * out + 1]
    light_base, other_base = host_counters[_LIGHT_BASE], host_counters[_OTHER_BASE]
    start = ((last & 1) * cap) if regions == 2 else 0
    front = slice(start + light_base, start + light_base + light_count)
    back = slice(start + cap - other_base - other_count, start + cap - other_base)
    if light_count + other_count:
        ids, x = _joined(xp, queue, front, back), _joined(xp, values, front, back)
    else:  # the rounds ran to the end (new arrays: views would keep the queues alive)
        ids, x = xp.empty(0, dtype=queue.dtype), xp.empty(0, dtype=values.dtype)
    common = dict(
        ids=ids,
        x=x,
        rounds=rounds,
        edges=host_counters[_WALKED],
        next_edges=host_counters[3 * out + 2],
    )
    if stamps is None:
        threshold = None
        if entry.buckets is not None:
            threshold = _from_words(bucket[:1], out_type).get()[0]
        return Walked(
            values=_from_words(ws, out_type), present=present, threshold=threshold, **common
        )
    # every vertex reached: the queues after the first round's, front and back
    first_light = host_counters[_FIRST_LIGHT]
    first_other = entry.first_count - first_light
    front = slice(first_light, light_base + light_count)
    back = slice(cap - other_base - other_count, cap - first_other)
    count = (front.stop - front.start) + (back.stop - back.start)
    stamps.close(stay, count)
    into = entry.into_bitmap
    if into is not None and into.wants_bitmap(count):
        bitmap = ahead
        if bitmap is None:
            bitmap = into(count)
            _fill_levels(stamp, entry.first_round, last, stay, *bitmap)
        return Walked(values=bitmap[0], present=bitmap[1], reached_count=count, **common)
    # (a bitmap filled ahead on a wrong guess is dropped: it was made from a sparse state)
    reached = _joined(xp, queue, front, back)
    return Walked(
        reached=reached, reached_rounds=stay.round_of(stamp[reached]), reached_count=count, **common
    )


def _levels_ahead(entry: Entry, stamps: LevelStamps, stay: StayStamps) -> tuple[Any, Any] | None:
    """Where the vertices a levels stay reached go into the state's bitmap, and the stay
    before on this matrix reached as many as that takes (a guess: the last stay's count),
    the bitmap, with the rounds written into it by a kernel queued now, behind the loop's,
    before the host waits for the stay's counts (the host's work then overlaps the loop's
    kernel, and the fill the host's wrap-up). Else None. Every stamp of the stay lies at or
    above ``stay.floor``, so the fill needs no count of its rounds."""
    into = entry.into_bitmap
    if into is None or not into.wants_bitmap(stamps.reached):
        return None
    bitmap = into(stamps.reached)
    _fill_levels(stamps.stamp, entry.first_round, stay.round_of(stay.floor), stay, *bitmap)
    return bitmap


def _most_in_edges(A: Matrix, pull: Matrix | None) -> int:  # noqa: N803
    """The most in-edges of any vertex of ``A`` (``pull`` is ``A.T`` where at hand), kept in
    ``A``'s cache: whether a levels round reads a vertex's stamp before its atomic."""
    most = A.cache.get(_MOST_IN_EDGES)
    if most is None:
        xp = A.xp
        if pull is not None or known_symmetric(A):
            counts = xp.diff((pull if pull is not None else A).indptr)
        else:
            counts = xp.bincount(A.indices, minlength=A.ncols)
        most = A.cache[_MOST_IN_EDGES] = int(counts.max()) if counts.size else 0
    return most


_MOST_IN_EDGES = "loop_most_in_edges"


def _joined(xp: Any, array: Any, front: slice, back: slice) -> Any:
    """``array[front]`` followed by ``array[back]``: a view where one of them is empty (a
    concatenation costs the host tens of microseconds; whoever keeps the ids makes new arrays
    of them anyway, by sorting, gathering or scattering, so the queues are not kept alive)."""
    if front.stop == front.start:
        return array[back]
    if back.stop == back.start:
        return array[front]
    return xp.concatenate([array[front], array[back]])


def _one_barrier(entry: Entry) -> bool:
    """Whether the kernel's rounds end at one barrier (levels rounds in the ``any`` monoid),
    taking the counter sets by round modulo 3 rather than by parity."""
    return entry.levels and entry.semiring.monoid.name == "any"


def _fill_levels(
    stamp: Any, first: int, last: int, stay: StayStamps, values: Any, present: Any
) -> None:
    """Give the vertices ``stay`` stamped in rounds ``first .. last`` their round in ``values`` /
    ``present``: one pass over the vertices, where listing them and scattering costs a few
    (about 16M reached of kron24's 16.7M vertices)."""
    n = stamp.size
    blocks = grid_stride_blocks(n, THREADS)
    _reached_kernel(values.dtype)(
        (blocks,),
        (THREADS,),
        (
            np.int64(n),
            stamp,
            np.int64(first),
            np.int64(last),
            np.int64(stay.offset),
            values,
            present,
        ),
    )


@functools.lru_cache(maxsize=256)
def _identity_word(semiring: Semiring, out_type: np.dtype) -> Any:
    """The add monoid's identity as the kernel's accumulator word."""
    return _to_words(np.full(1, semiring.monoid.identity(out_type), out_type))[0]


def _bucket_words(entry: Entry, out_type: np.dtype) -> np.ndarray:
    """The kernel's ``bucket`` words: the threshold, delta, limit and top of bucketed rounds."""
    buckets = entry.buckets
    threshold = entry.threshold if entry.threshold is not None else buckets.top
    return _to_words(
        np.array([threshold, buckets.delta, buckets.limit, buckets.top], dtype=out_type)
    )


@functools.lru_cache(maxsize=256)
def _kernel(
    semiring: Semiring,
    op_type: np.dtype,
    indptr_dtype: np.dtype,
    index_dtype: np.dtype,
    levels: bool,
    blocks_per_sm: int,
) -> Any:
    source = _k.specialize(
        semiring,
        op_type,
        indptr_dtype=indptr_dtype,
        index_dtype=index_dtype,
        blocks_per_sm=blocks_per_sm,
    )
    name = _k.loop_name(levels)
    return compile_module(source, (name,), cooperative=True).get_function(name)


@functools.lru_cache(maxsize=8)
def _facts_kernel(indptr_dtype: np.dtype) -> Any:
    source = _k.specialize_facts(indptr_dtype)
    return compile_module(source, (_k.FACTS_NAME,)).get_function(_k.FACTS_NAME)


@functools.lru_cache(maxsize=16)
def _reached_kernel(state_dtype: np.dtype) -> Any:
    source = _k.specialize_reached(state_dtype)
    return compile_module(source, (_k.REACHED_NAME,)).get_function(_k.REACHED_NAME)


@functools.lru_cache(maxsize=64)
def _improve_kernel(add: BinaryOp, dtype: np.dtype) -> Any:
    source = _k.specialize_improve(add, dtype)
    return compile_module(source, (_k.IMPROVE_NAME,)).get_function(_k.IMPROVE_NAME)


def _word_type(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.uint64 if word_bytes(dtype) == 8 else np.uint32)


def _to_words(values: Any) -> Any:
    """Values as the kernel's accumulator words (``hyblas_to_word``)."""
    dt = values.dtype
    if dt.itemsize in (4, 8):
        return values.view(_word_type(dt))
    return values.astype(np.int32).view(np.uint32)  # narrow types are widened through int


def _from_words(words: Any, dtype: np.dtype) -> Any:
    """The kernel's accumulator words as values of ``dtype`` (``hyblas_from_word``)."""
    dt = np.dtype(dtype)
    if dt.itemsize in (4, 8):
        return words.view(dt)
    return words.view(np.int32).astype(dt)
