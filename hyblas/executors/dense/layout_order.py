"""The dense layout's entry order, reached a part at a time so that the build stays small.

The layout walks a matrix's entries by *block* (column panel major, then row panel), and within
a block by destination, then source. One int64 key per entry holds all three and is distinct per
entry: ``block * (row_panel * column_panel) + destination * column_panel + source``. Sorting the
keys of a non-iso matrix in one piece, with the permutation its weights need, holds the key, its
sorted copy, the int64 order and the sort's double buffers at once on the GPU: about 40 bytes an
entry, five times a float32 CSR. Here an iso matrix's keys are sorted in place (no weights to
carry), and the other keys one *part* at a time: a run of whole blocks of about
``part_entries`` entries, whose order is found among that part's keys only. What the build then
keeps per entry is its destination and source (int16) and its weight: an entry's block is
found again from its position (the blocks' entries are consecutive) one part at a time.

The later passes of the build (:mod:`.layout_tiles`) walk spans of about the same size, cut
where a block or a heavy unit starts, so that their per-entry temporaries also exist for one
span at a time, inside a large block too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...device import arrays as _prim

__all__ = [
    "EntrySpan",
    "LayoutPart",
    "SortedEntries",
    "layout_keys",
    "part_entries_for",
    "sorted_entries",
]

#: A large build walks its entries in about PARTS parts (of at least MIN_PART_ENTRIES and at
#: most MAX_PART_ENTRIES entries): a part's temporaries are then a few percent of the CSR, and
#: the parts' launches and host reads few.
PARTS = 32
MIN_PART_ENTRIES = 1 << 20
MAX_PART_ENTRIES = 1 << 24


def part_entries_for(nnz: int) -> int:
    """How many entries one part of the build of a matrix of ``nnz`` entries holds."""
    return min(MAX_PART_ENTRIES, max(MIN_PART_ENTRIES, -(-nnz // PARTS)))


@dataclass(frozen=True)
class LayoutPart:
    """A run of whole blocks, ``first_block`` up to ``end_block``, and its entries' positions
    ``begin`` up to ``end`` in layout order: what one step of the sort handles."""

    first_block: int
    end_block: int
    begin: int
    end: int


@dataclass(frozen=True)
class EntrySpan:
    """Entries ``begin`` up to ``end`` in layout order."""

    begin: int
    end: int


@dataclass
class SortedEntries:
    """Every entry of the matrix in layout order (:mod:`.layout_order`), an array each."""

    dst: Any  # int16: the destination within its row panel
    src: Any  # int16: the source within its column panel
    weights: Any  # the matrix's dtype; None for an iso matrix
    block_count: Any  # int64, per block
    block_start: Any  # int64, blocks + 1: each block's first entry
    parts: list[LayoutPart]

    def blocks(self, xp: Any, part: LayoutPart | EntrySpan) -> Any:
        """The block (column panel * row panels + row panel) of each entry of ``part``."""
        return _prim.run_ids(xp, self.block_start, part.begin, part.end)


def layout_keys(
    xp: Any,
    matrix: Any,
    row_position: Any,
    column_position: Any,
    *,
    row_panel: int,
    column_panel: int,
    part_entries: int,
) -> Any:
    """Each entry's key (int64, :mod:`.layout_order`) in the CSR's order, after the internal
    renumbering ``row_position`` / ``column_position`` (None: none), made a part at a time:
    what the build holds per entry meanwhile is the key alone."""
    nnz = matrix.nnz
    row_panels = -(-matrix.nrows // row_panel)
    panel = np.int64(row_panel * column_panel)
    key = xp.empty(nnz, dtype=np.int64)
    for begin in range(0, nnz, part_entries):
        end = min(begin + part_entries, nnz)
        rows = _prim.run_ids(xp, matrix.indptr, begin, end)
        if row_position is not None:
            rows = row_position[rows].astype(np.int64)
        cols = matrix.indices[begin:end].astype(np.int64)
        if column_position is not None:
            cols = column_position[cols].astype(np.int64)
        part = cols // column_panel
        part *= row_panels
        part += rows // row_panel
        part *= panel
        rows %= row_panel
        rows *= column_panel
        part += rows
        cols %= column_panel
        part += cols
        key[begin:end] = part
    return key


def sorted_entries(
    xp: Any,
    key: Any,
    values: Any,
    *,
    nblocks: int,
    row_panel: int,
    column_panel: int,
    part_entries: int,
) -> SortedEntries:
    """The entries of ``key`` (consumed: sorted in place or freed) in layout order, with
    ``values`` (None: iso) carried along."""
    panel = np.int64(row_panel * column_panel)
    nnz = int(key.size)
    block_count = xp.zeros(nblocks, dtype=np.int64)
    for begin in range(0, nnz, part_entries):
        block_count += xp.bincount(key[begin : begin + part_entries] // panel, minlength=nblocks)
    block_start = _prim.exclusive_cumsum(xp, block_count)
    parts = _parts(xp, block_start, part_entries)
    dst = xp.empty(nnz, dtype=np.int16)
    src = xp.empty(nnz, dtype=np.int16)
    weights = None
    if values is None:
        key.sort()  # no permutation to carry: values are all one
        for begin in range(0, nnz, part_entries):
            end = min(begin + part_entries, nnz)
            _split(key[begin:end], panel, column_panel, dst[begin:end], src[begin:end])
    else:
        weights = xp.empty(nnz, dtype=values.dtype)
        for part in parts:
            lowest, highest = part.first_block * panel, part.end_block * panel
            picked = key >= lowest
            picked &= key < highest
            picked = xp.flatnonzero(picked)
            part_keys = key[picked]
            order = xp.argsort(part_keys)  # keys are distinct: any sort gives this order
            picked = picked[order]
            part_keys = part_keys[order]
            del order
            span = slice(part.begin, part.end)
            weights[span] = values[picked]
            del picked
            _split(part_keys, panel, column_panel, dst[span], src[span])
            del part_keys
    del key
    return SortedEntries(dst, src, weights, block_count, block_start, parts)


def _parts(xp: Any, block_start: Any, part_entries: int) -> list[LayoutPart]:
    """Runs of whole blocks of about ``part_entries`` entries (more where one block holds
    more); blocks without entries between parts belong to none."""
    cuts = _prim.run_cuts(xp, block_start, part_entries)
    starts = block_start[xp.asarray(cuts, dtype=np.int64)].tolist()
    return [
        LayoutPart(first, end, begin, stop)
        for first, end, begin, stop in zip(cuts, cuts[1:], starts, starts[1:], strict=False)
        if stop > begin
    ]


def _split(keys: Any, panel: Any, width: int, dst: Any, src: Any) -> None:
    """Write the destination and source that ``keys`` hold."""
    within = keys % panel
    dst[...] = within // width
    within %= width
    src[...] = within
