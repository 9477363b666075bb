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
from .walk import Entry, Walked

__all__ = ["walk"]


def walk(entry: Entry) -> Walked:
    """Run ``entry``'s rounds in one persistent kernel."""
    A, xp = entry.A, entry.A._xp
    params = current_params()
    n = A.nrows
    op_type = np.dtype(entry.op_type)
    out_type = entry.semiring.output_type(op_type)
    kernel = _kernel(entry.semiring, op_type, A._indptr.dtype, A._indices.dtype, entry.levels,
                     params.blocks_per_sm)  # fmt: skip
    identity = _to_words(np.full(1, entry.semiring.monoid.identity(out_type), out_type))[0]
    weights = cast_values(A, op_type)
    with translate_oom("device loop work arrays"):
        if entry.levels:
            ws = xp.full(n, identity, dtype=identity.dtype)
            present = xp.zeros(1, dtype=np.int32)
            stamp = xp.where(entry.present, np.int64(0), np.int64(-1))
        else:
            ws = xp.where(entry.present, _to_words(entry.values.astype(out_type)), identity)
            present = entry.present.astype(np.int32)
            stamp = xp.zeros(n, dtype=np.int64)
        queue = xp.empty(2 * n, dtype=np.int64)
        values = xp.empty(2 * n, dtype=out_type)
        first_values = xp.empty(max(n, 1), dtype=op_type)
        counters = xp.zeros(7, dtype=np.uint64)
        rounds_run = xp.zeros(1, dtype=np.int64)
        bucket = xp.asarray(_bucket_words(entry, out_type, identity))
        minima = xp.zeros(2, dtype=np.uint64)  # the queues' minima, set up by the kernel
    parity = (entry.first_round - 1) & 1
    ids = entry.ids.astype(np.int64)
    degrees = (A._indptr[ids + 1] - A._indptr[ids]).astype(np.int64)
    light = degrees <= params.heavy
    light_ids, other_ids = ids[light], ids[~light][::-1]  # the others fill the queue from its end
    x = entry.x.astype(op_type, copy=False)
    start = parity * n
    queue[start:start + light_ids.size] = light_ids
    queue[start + n - other_ids.size:start + n] = other_ids
    first_values[:light_ids.size] = x[light]
    first_values[n - other_ids.size:n] = x[~light][::-1]
    counters[3 * parity] = light_ids.size
    counters[3 * parity + 1] = other_ids.size
    counters[3 * parity + 2] = degrees.sum()
    grid = (multiprocessor_count() * params.blocks_per_sm,)
    warp_vertices = params.warp_vertices
    if warp_vertices is None:
        warp_vertices = grid[0] * THREADS // 32
    kernel(grid, (THREADS,), (
        np.int64(n), A._indptr, A._indices, weights, first_values, ws, present, stamp, queue,
        values, counters, np.int64(params.heavy), np.int64(entry.first_round),
        np.int64(entry.last_round), np.uint64(min(entry.exit_edges, 2**64 - 1)), rounds_run,
        np.int32(entry.buckets is not None), np.int32(entry.threshold is not None), bucket,
        minima, np.int64(warp_vertices), np.int64(params.thread_edges),
    ))  # fmt: skip
    rounds = int(rounds_run[0])  # the one host synchronisation of a stay in the loop
    out = (entry.first_round + rounds - 1) & 1
    host_counters = counters.get()
    light_count, other_count = int(host_counters[3 * out]), int(host_counters[3 * out + 1])
    start = out * n
    slots = xp.concatenate([xp.arange(start, start + light_count),
                            xp.arange(start + n - other_count, start + n)])  # fmt: skip
    if entry.levels:
        state_present = stamp >= 0
        state_values = xp.where(stamp > 0, stamp.astype(entry.values.dtype, copy=False),
                                entry.values)  # fmt: skip
    else:
        state_present = present != 0
        state_values = _from_words(ws, out_type)
    threshold = None
    if entry.buckets is not None:
        threshold = _from_words(bucket[:1], out_type).get()[0]
    return Walked(values=state_values, present=state_present, ids=queue[slots], x=values[slots],
                  rounds=rounds, edges=int(host_counters[6]), threshold=threshold)  # fmt: skip


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
