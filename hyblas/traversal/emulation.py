"""NumPy emulation of the device loop (``propagate``'s narrow rounds on the CPU), so that CI
checks its protocol without a GPU: the same rounds, reached-once stamps (levels) or
improvement test and queue dedupe (improve), near / far vertices of bucketed rounds, the
values given to the next queue after the round, and the same stop rule (empty frontier, last
round, too many next edges). Levels rounds use the stamps kept on the matrix
(:mod:`.stamps`) as the kernel does, and give back only the vertices they reached."""

from __future__ import annotations

import numpy as np

from ..device import arrays as _prim
from .stamps import LevelStamps, borrow_stamps
from .walk import Entry, Walked, pull_bitmap_words

__all__ = ["walk"]


def walk(entry: Entry) -> Walked:
    """Run ``entry``'s rounds as ``frontier_loop.cu`` does, one vectorized step per round."""
    if entry.levels:
        with borrow_stamps(entry.A) as stamps:
            return _walk(entry, stamps)
    return _walk(entry, None)


def _walk(entry: Entry, stamps: LevelStamps | None) -> Walked:
    A, semiring, buckets = entry.A, entry.semiring, entry.buckets
    out_type = semiring.output_type(entry.op_type)
    mult, add = semiring.binaryop.numpy, semiring.monoid.binaryop
    identity = semiring.monoid.identity(out_type)
    indptr = A.indptr.astype(np.int64)
    indices = A.indices.astype(np.int64)
    weights = A.values.astype(entry.op_type, copy=False)
    # levels rounds in the `any` monoid keep each vertex's first contribution, as the kernel's
    # stamps let the first one through: found with a scratch array of positions, not a sort
    first_only = stamps is not None and semiring.monoid.name == "any"
    scratch = np.empty(A.nrows, dtype=np.int64) if first_only else None
    if stamps is not None:
        stay = stamps.open(entry.first_round, entry.last_round)
        if entry.state_ids is not None:
            stamps.stamp[entry.state_ids] = stay.state
        visited = entry.present
        reached = []
    else:
        values, present = entry.values.copy(), entry.present.copy()
    ids = entry.ids if entry.ids is not None else np.flatnonzero(entry.frontier_present)
    x = (entry.x if entry.ids is not None else entry.x[ids]).astype(entry.op_type, copy=False)
    ids = ids.astype(np.int64)
    threshold = entry.threshold
    walked = 0
    r = entry.first_round
    starts, degrees = _rows(indptr, ids)  # read once a round
    front_edges = int(degrees.sum())
    while True:
        # (as the kernel, a first round given as a list of vertices is pushed)
        first_listed = r == entry.first_round and entry.ids is not None
        if entry.pull is not None and front_edges > entry.exit_edges and not first_listed:
            ids, x, examined = _pull_round(entry, stamps, stay.floor, visited, ids, out_type)
            walked += examined
            stamps.stamp[ids] = stay.tag(r)
            reached.append(ids)
            starts, degrees = _rows(indptr, ids)
            front_edges = int(degrees.sum())
            if ids.size == 0 or r >= entry.last_round:
                break
            x = x.astype(entry.op_type, copy=False)
            r += 1
            continue
        waiting = ids[:0]
        if buckets is not None:  # the queue's minimum, combined from the identity as atomics do
            smallest = out_type.type(add.numpy.reduce(x, initial=identity))
            threshold = buckets.next_threshold(smallest, threshold)
            far = (x >= threshold) & (x != smallest)
            waiting, ids, x = ids[far], ids[~far], x[~far]
            starts, degrees = starts[~far], degrees[~far]
        edges, owner = _prim.ranges(np, starts, degrees)
        walked += int(edges.size)
        targets = indices[edges]
        z = np.asarray(mult(x[owner], weights[edges])).astype(out_type, copy=False)
        if stamps is not None:
            keep = stamps.stamp[targets] < stay.floor
            if visited is not None:
                keep &= ~visited[targets]
            targets, z = targets[keep], z[keep]
        if first_only:
            first = _first_of_each(scratch, targets)
            targets, z = targets[first], z[first]
        else:
            targets, z = _prim.combine_by_key(np, targets, z, add)
        if stamps is not None:
            stamps.stamp[targets] = stay.tag(r)
            reached.append(targets)
            ids, x = targets, z
        else:
            seen = values[targets]
            new = np.where(present[targets], np.asarray(add(seen, z)).astype(out_type), z)
            changed = ~present[targets] | (new != seen)
            values[targets], present[targets] = new, True
            ids = np.union1d(targets[changed], waiting)  # queued once (the round stamp)
            x = values[ids]  # the state after the round, as the kernel copies it out
        starts, degrees = _rows(indptr, ids)
        front_edges = int(degrees.sum())
        if (
            ids.size == 0
            or r >= entry.last_round
            or (front_edges > entry.exit_edges and entry.pull is None)
        ):
            break
        x = x.astype(entry.op_type, copy=False)
        r += 1
    common = dict(
        ids=ids,
        x=x.astype(out_type, copy=False),
        rounds=r - entry.first_round + 1,
        edges=walked,
        next_edges=front_edges,
        threshold=threshold,
    )
    if stamps is None:
        return Walked(values=values, present=present, **common)
    reached_ids = np.concatenate(reached)
    count = int(reached_ids.size)
    stamps.close(stay, count)
    bitmap = entry.into_bitmap(count) if entry.into_bitmap is not None else None
    if bitmap is not None:  # as the kernel does it: a pass over the stamps
        values, present = bitmap
        rounds = stay.round_of(stamps.stamp)
        hit = (rounds >= entry.first_round) & (rounds <= r)
        values[hit], present[hit] = rounds[hit], True
        return Walked(values=values, present=present, reached_count=count, **common)
    return Walked(
        reached=reached_ids,
        reached_rounds=stay.round_of(stamps.stamp[reached_ids]),
        reached_count=count,
        **common,
    )


def _first_of_each(scratch: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """A mask of one position of each key of ``keys``, its first: ``scratch``, indexed by
    key, is written here. (NumPy writes a repeated index in order, so a key's earliest
    position, written last, stays; were it another, the mask would still hold one position
    per key, which is all the `any` monoid asks.)"""
    order = np.arange(keys.size)
    scratch[keys[::-1]] = order[::-1]
    return scratch[keys] == order


def _rows(indptr: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the rows of vertices ``ids`` start in the CSR, and their out-edges."""
    starts = indptr[ids]
    return starts, indptr[ids + 1] - starts


def _pull_round(
    entry: Entry,
    stamps: LevelStamps,
    floor: int,
    visited: np.ndarray | None,
    ids: np.ndarray,
    out_type: np.dtype,
) -> tuple[np.ndarray, np.ndarray, int]:
    """A pull round as the kernel's: every vertex not reached yet reads its in-edges (rows of
    ``entry.pull``) up to the first from the frontier ``ids``, which reaches it. Returns the
    reached vertices (sorted), their values and the in-edges read."""
    pull = entry.pull
    indptr = pull.indptr.astype(np.int64)
    sources = pull.indices.astype(np.int64)
    bits = _frontier_bits(ids, pull.nrows)
    candidate = stamps.stamp < floor  # not reached yet
    if visited is not None:
        candidate &= ~visited
    rows = np.flatnonzero(candidate)
    starts, degrees = _rows(indptr, rows)
    edges, owner = _prim.ranges(np, starts, degrees)
    tails = sources[edges]
    hit = ((bits[tails >> 5] >> (tails & 31).astype(np.uint32)) & 1).astype(bool)
    # the first hit of each row: edges come row by row, in order within a row
    hit_rows, first = np.unique(owner[hit], return_index=True)
    first_edge = edges[hit][first]
    examined = int(degrees.sum()) - int(degrees[hit_rows].sum())
    examined += int((first_edge - indptr[rows[hit_rows]] + 1).sum())
    weights = pull.values[first_edge].astype(entry.op_type, copy=False)
    mult = entry.semiring.binaryop.numpy
    values = np.asarray(mult(np.zeros(weights.size, dtype=entry.op_type), weights))
    return rows[hit_rows], values.astype(out_type, copy=False), examined


def _frontier_bits(ids: np.ndarray, n: int) -> np.ndarray:
    """The kernel's frontier bitmap of pull rounds (:func:`.walk.pull_bitmap_words`)."""
    bits = np.zeros(pull_bitmap_words(n), dtype=np.uint32)
    np.bitwise_or.at(bits, ids >> 5, np.left_shift(np.uint32(1), (ids & 31).astype(np.uint32)))
    return bits
