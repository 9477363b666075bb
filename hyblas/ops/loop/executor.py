"""The device loop on the GPU: one cooperative launch of ``frontier_loop.cu`` runs rounds
until the frontier empties, the last round is done, or the next frontier is too wide; the
host reads a few counters once at the end instead of once a round."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...backend import compile_module, multiprocessor_count, translate_oom
from ...semiring.operators import Semiring
from ..kernels import cast_values
from ..kernels.words import word_bytes
from . import kernels as _k
from .params import THREADS, current_params
from .stamps import LevelStamps, borrow, level_stamps
from .walk import Entry, Walked

__all__ = ["walk"]


def walk(entry: Entry) -> Walked:
    """Run ``entry``'s rounds in one persistent kernel."""
    if not entry.levels:
        return _walk(entry, None, None)
    A, out_type = entry.A, entry.semiring.output_type(np.dtype(entry.op_type))
    identity = _identity_word(entry.semiring, out_type)
    make_ws = lambda: A._xp.full(A.nrows, identity, dtype=identity.dtype)  # noqa: E731
    with (borrow(A, ("loop_level_ws", identity.dtype.str, int(identity)), make_ws) as ws,
          borrow(A, "loop_level_stamps", level_stamps(A)) as stamps):  # fmt: skip
        return _walk(entry, ws, stamps)


def _walk(entry: Entry, level_ws: Any, stamps: LevelStamps | None) -> Walked:
    """``level_ws`` / ``stamps``: what levels rounds keep between stays (None otherwise)."""
    A, xp = entry.A, entry.A._xp
    params = current_params()
    n = A.nrows
    op_type = np.dtype(entry.op_type)
    out_type = entry.semiring.output_type(op_type)
    kernel = _kernel(entry.semiring, op_type, A._indptr.dtype, A._indices.dtype, entry.levels,
                     params.blocks_per_sm)  # fmt: skip
    identity = _identity_word(entry.semiring, out_type)
    weights = cast_values(A, op_type)
    ids = entry.ids.astype(np.int64)
    parity = (entry.first_round - 1) & 1
    with translate_oom("device loop work arrays"):
        if stamps is not None:
            # one queue region for all the rounds: each vertex is queued once, after the first
            # round's, which may hold vertices not in the state
            cap, regions = n + int(ids.size), 1
            prestamp, offset = stamps.open(entry.first_round, entry.state_ids)
            ws, stamp, present = level_ws, stamps.stamp, xp.zeros(1, dtype=np.int32)
            visited = entry.present if entry.present is not None else xp.zeros(1, dtype=bool)
        else:
            cap, regions, prestamp, offset = n, 2, 0, 0
            ws = xp.where(entry.present, _to_words(entry.values.astype(out_type)), identity)
            present = entry.present.astype(np.int32)
            stamp = xp.zeros(n, dtype=np.int64)
            visited = xp.zeros(1, dtype=bool)
        queue = xp.empty(regions * cap, dtype=np.int64)
        values = xp.empty(regions * cap, dtype=out_type)
        first_values = xp.empty(max(cap, 1), dtype=op_type)
        counters = xp.zeros(11, dtype=np.uint64)  # [9] rounds run, [10] first light count
        bucket = xp.asarray(_bucket_words(entry, out_type, identity))
        minima = xp.zeros(2, dtype=np.uint64)  # the queues' minima, set up by the kernel
    # the first queue, light vertices at the front of its region, the others from its end;
    # set up without a host synchronisation (a stay on a large graph may be a few rounds)
    degrees = (A._indptr[ids + 1] - A._indptr[ids]).astype(np.int64)
    light = degrees <= params.heavy
    lights_so_far = xp.cumsum(light)
    slot = xp.where(light, lights_so_far - 1, cap - 2 - xp.arange(ids.size) + lights_so_far)
    start = (parity * cap) if regions == 2 else 0
    queue[start + slot] = ids
    first_values[slot] = entry.x.astype(op_type, copy=False)
    light_count = lights_so_far[-1:]
    counts = xp.concatenate([light_count, ids.size - light_count, degrees.sum(keepdims=True)])
    counters[3 * parity:3 * parity + 3] = counts.astype(np.uint64)
    counters[10:] = light_count.astype(np.uint64)
    grid = (multiprocessor_count() * params.blocks_per_sm,)
    warp_vertices = params.warp_vertices
    if warp_vertices is None:
        warp_vertices = grid[0] * THREADS // 32
    kernel(grid, (THREADS,), (
        np.int64(n), A._indptr, A._indices, weights, first_values, ws, present, stamp,
        np.int64(cap), queue, values, counters, np.int64(params.heavy),
        np.int64(entry.first_round), np.int64(entry.last_round),
        np.uint64(min(entry.exit_edges, 2**64 - 1)), counters[9:10].view(np.int64),
        np.int32(entry.buckets is not None), np.int32(entry.threshold is not None), bucket,
        minima, np.int64(warp_vertices), np.int64(params.thread_edges), visited,
        np.int32(entry.present is not None), np.int64(prestamp), np.int64(offset),
    ))  # fmt: skip
    host_counters = [int(c) for c in counters.get()]  # the stay's one host synchronisation
    rounds = host_counters[9]
    last = entry.first_round + rounds - 1
    out = last & 1
    light_count, other_count = host_counters[3 * out], host_counters[3 * out + 1]
    light_base, other_base = host_counters[7], host_counters[8]
    start = (out * cap) if regions == 2 else 0
    slots = xp.concatenate([
        xp.arange(start + light_base, start + light_base + light_count),
        xp.arange(start + cap - other_base - other_count, start + cap - other_base),
    ])  # fmt: skip
    common = dict(ids=queue[slots], x=values[slots], rounds=rounds, edges=host_counters[6])
    if stamps is None:
        threshold = None
        if entry.buckets is not None:
            threshold = _from_words(bucket[:1], out_type).get()[0]
        return Walked(values=_from_words(ws, out_type), present=present != 0,
                      threshold=threshold, **common)  # fmt: skip
    stamps.close(last, offset)
    # every vertex reached: the queues after the first round's, front and back
    first_light = host_counters[10]
    first_other = int(ids.size) - first_light
    reached = xp.concatenate([queue[first_light:light_base + light_count],
                              queue[cap - other_base - other_count:cap - first_other]])
    return Walked(reached=reached, reached_rounds=stamp[reached] - offset, **common)


def _identity_word(semiring: Semiring, out_type: np.dtype) -> Any:
    """The add monoid's identity as the kernel's accumulator word."""
    return _to_words(np.full(1, semiring.monoid.identity(out_type), out_type))[0]


def _bucket_words(entry: Entry, out_type: np.dtype, identity: Any) -> np.ndarray:
    """The kernel's ``bucket`` words: the threshold, delta, limit and top of bucketed rounds
    (unused otherwise)."""
    buckets = entry.buckets
    if buckets is None:
        return np.full(4, identity, dtype=identity.dtype)
    threshold = entry.threshold if entry.threshold is not None else buckets.top
    return _to_words(np.array([threshold, buckets.delta, buckets.limit, buckets.top],
                              dtype=out_type))  # fmt: skip


@functools.lru_cache(maxsize=256)
def _kernel(semiring: Semiring, op_type: np.dtype, indptr_dtype: np.dtype, index_dtype: np.dtype,
            levels: bool, blocks_per_sm: int) -> Any:  # fmt: skip
    source = _k.specialize(semiring, op_type, indptr_dtype=indptr_dtype, index_dtype=index_dtype,
                           blocks_per_sm=blocks_per_sm)  # fmt: skip
    name = _k.loop_name(levels)
    return compile_module(source, (name,), cooperative=True).get_function(name)


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
