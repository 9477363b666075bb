"""The dense layout's heavy tiles and light stream, written one span of the entries at a time.

A heavy unit's entries are dealt out to its threads and become tokens of their tile columns
(:mod:`.layout` describes the tiles); a token's place depends only on the entries of its own
unit, and units never cross a span (:func:`tile_spans` cuts the entries, in layout order, only
where a block or a unit starts). So the build walks the spans twice: :func:`measure_tiles`
finds each thread's column height and each unit's slots (which size the tiles and number the
slots), then :func:`fill_tiles` writes the tokens, the weights, the slots' destinations and
the light stream. The per-entry temporaries of either pass exist for one span at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...device import arrays as _prim
from .layout_order import EntrySpan, SortedEntries

__all__ = [
    "HeavyUnits",
    "TileTargets",
    "fill_tiles",
    "heavy_units",
    "measure_tiles",
    "tile_position",
    "tile_spans",
]

VECTOR = 8  # int16 tokens per thread per step (one 16-byte load)
_INT32_LIMIT = np.iinfo(np.int32).max


@dataclass
class HeavyUnits:
    """The heavy blocks' units (a heavy block of ``c`` entries is cut into ``ceil(c / E)``
    units of ``ceil(c / units)`` entries, the last one fewer)."""

    count: int
    base: Any  # int64, per block + 1: the block's first unit
    size: Any  # int64, per block: entries per unit
    block: Any  # int64, per unit: its block
    start: Any  # int64, units + 1: each unit's first entry among the heavy entries
    per_thread: Any  # int32, per unit: entries per thread (the last threads hold fewer)
    threads: int
    counts: Any  # dtype of entry counts within the layout (int32 while twice nnz fits)


@dataclass
class TileTargets:
    """What :func:`fill_tiles` writes into (allocated once :func:`measure_tiles` sized it)."""

    table: Any  # int16 tiles
    weights: Any  # matrix dtype beside the table; None when iso
    offset: Any  # per unit: its tile's start, in the table's position dtype
    slot_base: Any  # int32 per unit: its first slot
    slot_dst: Any  # uint16 per slot
    block_slot_base: Any  # int64 per block: its first slot
    light_before: Any  # int64 per block + 1: light entries before the block
    light_src: Any  # int16 per light entry
    light_slot: Any  # int32 per light entry
    light_weights: Any  # matrix dtype per light entry; None when iso


@dataclass
class _PartTokens:
    """One span's heavy entries and their places in their units' tile columns."""

    picked: Any  # their positions within the span
    unit: Any  # counts dtype
    dst: Any  # int16
    thread: Any  # int32: thread within the unit
    token: Any  # int32: position in the thread's column, markers included
    local_thread: Any  # the thread's number among the span's units' threads
    thread_start: Any  # bool: first entry of its thread
    run_start: Any  # bool: a marker (the negated destination) precedes the entry
    unit_new_dst: Any  # bool: the entry's destination takes a slot of its unit
    first_unit: int
    end_unit: int


def heavy_units(
    xp: Any, block_count: Any, heavy_block: Any, unit_edges: int, threads: int, counts: Any
) -> HeavyUnits:
    """The units of the heavy blocks, from the blocks' entry counts alone."""
    units_per_block = xp.where(heavy_block, -(-block_count // unit_edges), 0)
    base = _prim.exclusive_cumsum(xp, units_per_block)
    count = int(base[-1])
    size = -(-block_count // xp.maximum(units_per_block, 1))
    block = _prim.expand(xp, units_per_block)
    rank = xp.arange(count, dtype=np.int64) - base[block]
    entries = xp.clip(block_count[block] - rank * size[block], 0, size[block])
    per_thread = (-(-entries // threads)).astype(np.int32)
    return HeavyUnits(
        count, base, size, block, _prim.exclusive_cumsum(xp, entries), per_thread, threads, counts
    )


def tile_spans(
    xp: Any, entries: SortedEntries, units: HeavyUnits, part_entries: int
) -> list[EntrySpan]:
    """Runs of about ``part_entries`` consecutive entries, cut only where a block or a heavy
    unit starts: a unit's entries are in one span, and a large block in several."""
    nnz = int(entries.block_start[-1])
    if nnz == 0:
        return []
    rank = xp.arange(units.count, dtype=np.int64) - units.base[units.block]
    unit_begin = entries.block_start[units.block] + rank * units.size[units.block]
    starts = xp.unique(xp.concatenate([entries.block_start, unit_begin]))  # nnz last
    cuts = starts[xp.asarray(_prim.run_cuts(xp, starts, part_entries), dtype=np.int64)].tolist()
    return [
        EntrySpan(begin, end) for begin, end in zip(cuts, cuts[1:], strict=False) if end > begin
    ]


def measure_tiles(
    xp: Any, entries: SortedEntries, spans: list[EntrySpan], units: HeavyUnits, heavy_block: Any
) -> tuple[Any, Any]:
    """(tokens per thread, int64 per unit x threads; slots per unit, int64): each thread's
    column height and each unit's number of distinct destinations."""
    threads = units.threads
    tokens_per_thread = xp.zeros(units.count * threads, dtype=np.int64)
    slot_count = xp.zeros(units.count, dtype=np.int64)
    for part in spans:
        tokens = _part_tokens(xp, entries, part, entries.blocks(xp, part), units, heavy_block)
        if tokens is None:
            continue
        last = xp.ones(tokens.unit.size, dtype=bool)
        last[:-1] = tokens.thread_start[1:]
        thread_id = tokens.local_thread[last].astype(np.int64) + tokens.first_unit * threads
        tokens_per_thread[thread_id] = tokens.token[last] + 1
        in_part = tokens.unit[tokens.unit_new_dst] - tokens.first_unit
        slot_count[tokens.first_unit : tokens.end_unit] = xp.bincount(
            in_part, minlength=tokens.end_unit - tokens.first_unit
        )
    return tokens_per_thread, slot_count


def fill_tiles(
    xp: Any,
    entries: SortedEntries,
    spans: list[EntrySpan],
    units: HeavyUnits,
    heavy_block: Any,
    into: TileTargets,
) -> None:
    """Write every span's heavy tokens, weights and slot destinations, and its light entries."""
    for part in spans:
        block = entries.blocks(xp, part)
        tokens = _part_tokens(xp, entries, part, block, units, heavy_block)
        if tokens is not None:
            _fill_heavy(xp, entries, part, units, tokens, into)
            del tokens
        _fill_light(xp, entries, part, block, heavy_block, into)


def _part_tokens(
    xp: Any,
    entries: SortedEntries,
    part: EntrySpan,
    block: Any,
    units: HeavyUnits,
    heavy_block: Any,
) -> _PartTokens | None:
    """The tokens of the heavy entries of the span ``part`` (whose blocks are ``block``)."""
    counts, threads = units.counts, units.threads
    span = slice(part.begin, part.end)
    picked = xp.flatnonzero(heavy_block[block])
    if picked.size == 0:
        return None
    block = block[picked]
    position = picked + (part.begin - entries.block_start[block])  # within its block
    size = units.size[block]
    rank = position // size  # the unit within its block
    unit = (units.base[block] + rank).astype(counts)
    first_unit, end_unit = int(unit[0]), int(unit[-1]) + 1  # whole units (tile_spans)
    pos_in_unit = (position - rank * size).astype(np.int32)
    del position, size, rank, block
    per_thread = units.per_thread[unit]
    thread = pos_in_unit // per_thread
    pos_in_thread = pos_in_unit - thread * per_thread
    del per_thread
    dst = entries.dst[span][picked]
    new_dst = xp.ones(dst.size, dtype=bool)
    new_dst[1:] = dst[1:] != dst[:-1]
    thread_start = pos_in_thread == 0
    run_start = new_dst | thread_start
    unit_new_dst = new_dst | (pos_in_unit == 0)
    del new_dst, pos_in_unit
    # tokens so far in this thread: entries before it plus markers up to it
    markers_before = xp.cumsum(run_start, dtype=counts) - 1
    local_type = np.int32 if (end_unit - first_unit) * threads < _INT32_LIMIT else np.int64
    local_thread = (unit - first_unit).astype(local_type) * threads + thread
    thread_first = xp.zeros((end_unit - first_unit) * threads + 1, dtype=counts)
    starts = xp.flatnonzero(thread_start)
    thread_first[local_thread[starts]] = markers_before[starts]
    del starts
    token = thread_first[local_thread]
    del thread_first
    xp.subtract(markers_before, token, out=token)
    del markers_before
    token += pos_in_thread
    token += 1
    return _PartTokens(
        picked,
        unit,
        dst,
        thread,
        token.astype(np.int32, copy=False),
        local_thread,
        thread_start,
        run_start,
        unit_new_dst,
        first_unit,
        end_unit,
    )


def tile_position(column_base: Any, token: Any, threads: int) -> Any:
    """Where token ``token`` of a tile column lives: columns advance ``VECTOR`` tokens at a
    time, so one step of a thread is a 16-byte load and one step of a warp is 512 bytes."""
    position = column_base + token % VECTOR
    step = token // VECTOR
    step *= threads * VECTOR
    position += step  # in place: the layout build calls this on every heavy entry
    return position


def _fill_heavy(
    xp: Any,
    entries: SortedEntries,
    part: EntrySpan,
    units: HeavyUnits,
    tokens: _PartTokens,
    into: TileTargets,
) -> None:
    threads = units.threads
    span = slice(part.begin, part.end)
    base = into.offset[tokens.unit]
    thread = tokens.thread
    thread *= VECTOR
    base += thread
    del thread
    at = tile_position(base, tokens.token, threads)
    into.table[at] = entries.src[span][tokens.picked]
    run = tokens.run_start
    markers = tile_position(base[run], tokens.token[run] - 1, threads)
    into.table[markers] = (-tokens.dst[run].astype(np.int32) - 1).astype(np.int16)
    del base, markers
    if into.weights is not None:
        into.weights[at] = entries.weights[span][tokens.picked]
    del at
    # each entry that opens a destination of its unit owns the unit's next slot
    new = tokens.unit_new_dst
    slot_rank = xp.cumsum(new, dtype=np.int32) - 1
    first_entry = units.start[tokens.unit] - units.start[tokens.first_unit]
    slot_rank -= slot_rank[first_entry]
    del first_entry
    owned = into.slot_base[tokens.unit] + slot_rank
    into.slot_dst[owned[new]] = tokens.dst[new].astype(np.uint16)


def _fill_light(
    xp: Any,
    entries: SortedEntries,
    part: EntrySpan,
    block: Any,
    heavy_block: Any,
    into: TileTargets,
) -> None:
    span = slice(part.begin, part.end)
    picked = xp.flatnonzero(~heavy_block[block])
    if picked.size == 0:
        return
    block = block[picked]
    # a span starts a light block where it starts in one (tile_spans)
    begin = int(into.light_before[block[0]])
    light = slice(begin, begin + int(picked.size))
    position = picked + (part.begin - entries.block_start[block])  # within its block
    slot = (into.block_slot_base[block] + position).astype(np.int32)
    del position, block
    into.light_slot[light] = slot
    into.slot_dst[slot] = entries.dst[span][picked].astype(np.uint16)
    del slot
    into.light_src[light] = entries.src[span][picked]
    if into.light_weights is not None:
        into.light_weights[light] = entries.weights[span][picked]
