"""The 2D-blocked layout of the dense-frontier executor (MultiGraphD), built with array code.

The edge matrix ``E`` (rows = outputs, columns = inputs; ``A`` for ``mxv``, ``Aᵀ`` for ``vxm``)
is cut into blocks of ``row_panel`` outputs x ``column_panel`` inputs, after an optional internal
renumbering by descending degree (``DenseParams.reorder``).

* A **heavy** block (at least ``heavy_threshold`` entries) is split into units of at most
  ``heavy_unit_edges`` entries, each walked by ``heavy_threads`` threads (a group of a heavy
  thread block, which walks a *team* of units of one column panel). A unit's entries, sorted by
  destination, are dealt out to ``heavy_threads`` threads in contiguous ranges; each thread's
  range becomes a column of an int16 tile stored column-major in groups of ``VECTOR`` tokens
  (step ``k`` of thread ``t`` is ``VECTOR`` tokens at ``offset + (k * threads + t) * VECTOR``,
  so a step is one 16-byte load per thread and coalesced across a warp). A column holds local
  source ids (``>= 0``) interleaved with negated local destinations (``-(dst + 1)``), which open
  a run; ``PAD`` ends a column. A matching weight table sits beside it unless every stored value
  is equal (an *iso* matrix, e.g. an unweighted graph), when one scalar stands for all.
* **Light** blocks of one column panel form that panel's stream of ``(local input id, weight,
  slot)``, cut into units of at most ``light_unit_edges`` entries.
* **Slots** hold the partial results phase 1 writes: one per distinct destination of a heavy
  unit, one per light entry. They are numbered by (row panel, column panel, ...), so phase 2 of a
  row panel reads one contiguous range; ``slot_dst`` is each slot's output within its row panel.
* **Chunks**: a row panel with more than ``reduce_chunk_slots`` slots is *split*: its slot range
  is cut into near-equal chunks, each reduced by a thread block of its own into the panel's
  accumulator (phase 2a); phase 2 then reads that accumulator instead of the slots.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...backend import translate_oom
from ...containers import derived
from ...device import arrays as _prim
from ...errors import InvalidValue
from .params import SKEWED, DenseParams

__all__ = [
    "DenseLayout",
    "PAD",
    "VECTOR",
    "build_layout",
    "layout_key",
    "layout_of",
    "tile_position",
]

PAD = np.int16(-32768)
VECTOR = 8  # int16 tokens per thread per step (one 16-byte load)
_SLOT_LIMIT = np.iinfo(np.int32).max


@dataclass
class DenseLayout:
    """Arrays of one matrix's dense layout (on the matrix's backend) and its shape."""

    params: DenseParams
    nrows: int
    ncols: int
    nnz: int
    row_panels: int
    column_panels: int
    row_position: Any  # the user's row id -> its internal output position (None: identity)
    # internal input position -> the user's column id, for the columns with entries only (the
    # others come last and are never read); None: identity
    column_order: Any
    iso_value: Any  # the one stored value of an iso matrix (NumPy scalar), else None
    # rows with entries: with row_position, those are the first internal positions (a row
    # past them has no result, and its output is written without reading one)
    live_rows: int
    # heavy units
    heavy_panel: Any  # int32: column panel of each unit
    team_begin: Any  # int64: first heavy unit of each team (one thread block)
    team_end: Any  # int64: one past its last unit (all of one column panel)
    heavy_steps: Any  # int32: tile height in steps of VECTOR tokens
    heavy_offset: Any  # int64: start of the unit's tile in heavy_table
    heavy_slot_base: Any  # int64: first slot of the unit
    heavy_slot_count: Any  # int32: slots (distinct destinations) of the unit
    heavy_table: Any  # int16 tiles
    heavy_weights: Any  # matrix dtype, aligned with heavy_table (None when iso)
    heavy_entries: int
    # light units
    light_panel: Any  # int32
    light_begin: Any  # int64: first entry of the unit in the light arrays
    light_end: Any  # int64
    light_src: Any  # int16: input id within the column panel
    light_slot: Any  # int32
    light_weights: Any  # matrix dtype (None when iso)
    # slots
    slot_ptr: Any  # int64, row_panels + 1: each row panel's slot range
    slot_dst: Any  # uint16: output within the row panel
    # phase-2 chunks of split row panels
    panel_split: Any  # int32, per row panel: its index among split panels, or -1
    chunk_split: Any  # int32: the split panel each chunk belongs to
    chunk_begin: Any  # int64: first slot of the chunk
    chunk_end: Any  # int64: one past its last slot
    split_panels: int  # row panels reduced in chunks (a host int: no device read per product)
    reorder: str = "none"  # the renumbering applied ('auto' resolved)
    build_seconds: float = 0.0
    # the executor's launch plans, one per specialization (hyblas.executors.dense.executor)
    plans: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def slots(self) -> int:
        """Number of partial-result slots."""
        return int(self.slot_dst.size)

    @property
    def heavy_units(self) -> int:
        return int(self.heavy_panel.size)

    @property
    def heavy_teams(self) -> int:
        return int(self.team_begin.size)

    @property
    def light_units(self) -> int:
        return int(self.light_panel.size)

    @property
    def chunks(self) -> int:
        return int(self.chunk_split.size)

    def nbytes(self) -> int:
        """Device bytes the layout holds (its arrays, not the per-call partials)."""
        total = 0
        for value in vars(self).values():
            total += int(getattr(value, "nbytes", 0)) if hasattr(value, "shape") else 0
        return total

    def weights_as(self, table: str, dtype: np.dtype) -> Any:
        """``heavy_weights`` / ``light_weights`` cast to ``dtype`` (cached)."""
        key = f"_{table}_as_{np.dtype(dtype).str}"
        cached = self.__dict__.get(key)
        if cached is None:
            cached = getattr(self, table).astype(dtype)
            self.__dict__[key] = cached
        return cached

    def phase1_work(self, xp: Any) -> Any:
        """Block by block, what the one-launch phase 1 walks (cached, int32): heavy team ``t``
        as ``t``, light unit ``u`` as ``-1 - u``, the light units spread evenly among the heavy
        teams (both run in column-panel order, so a light unit sits near its panel's teams)."""
        cached = self.__dict__.get("_phase1_work")
        if cached is None:
            teams, units = self.heavy_teams, self.light_units
            at = np.concatenate(
                [(np.arange(teams) + 0.5) / max(teams, 1), (np.arange(units) + 0.5) / max(units, 1)]
            )
            work = np.concatenate([np.arange(teams), -1 - np.arange(units)])
            cached = xp.asarray(work[np.argsort(at, kind="stable")].astype(np.int32))
            self.__dict__["_phase1_work"] = cached
        return cached

    def stats(self) -> dict[str, Any]:
        """Sizes worth reporting: units, entries by kind, slots, memory."""
        return {
            "heavy_units": self.heavy_units,
            "heavy_teams": self.heavy_teams,
            "light_units": self.light_units,
            "heavy_entries": self.heavy_entries,
            "light_entries": int(self.light_src.size),
            "heavy_table_tokens": int(self.heavy_table.size),
            "slots": self.slots,
            "split_panels": self.split_panels,
            "chunks": self.chunks,
            "iso": self.iso_value is not None,
            "reorder_applied": self.reorder,
            "layout_bytes": self.nbytes(),
            "build_s": self.build_seconds,
        }


def tile_position(column_base: Any, token: Any, threads: int) -> Any:
    """Where token ``token`` of a tile column lives: columns advance ``VECTOR`` tokens at a
    time, so one step of a thread is a 16-byte load and one step of a warp is 512 bytes."""
    position = column_base + token % VECTOR
    step = token // VECTOR
    step *= threads * VECTOR
    position += step  # in place: the layout build calls this on every heavy entry
    return position


def layout_key(params: DenseParams) -> tuple[Any, ...]:
    """The key of a matrix's cached dense layout for ``params``."""
    return ("dense_layout", params)


def layout_of(matrix: Any, params: DenseParams) -> DenseLayout:
    """The dense layout of ``matrix`` (as the edge matrix) for ``params``, cached on it."""
    key = layout_key(params)
    if key not in matrix.cache:
        with translate_oom("building the dense executor's layout"):  # cached only when whole
            matrix.cache[key] = build_layout(matrix, params)
    return matrix.cache[key]


def _order_by_degree(xp: Any, degrees: Any) -> tuple[Any, Any]:
    """(order, position): ids by descending degree (ties by id) and each id's position."""
    n = degrees.size
    key = (degrees.max() - degrees).astype(np.int64) * np.int64(n) + xp.arange(n, dtype=np.int64)
    order = xp.argsort(key)
    position = xp.empty(n, dtype=np.int64)
    position[order] = xp.arange(n, dtype=np.int64)
    return order, position


def _skewed(xp: Any, matrix: Any) -> bool:
    """Whether the row degrees follow a power law closely enough to renumber by degree."""
    if matrix.nnz == 0 or matrix.nrows == 0:
        return False
    longest = int(xp.diff(matrix.indptr).max())
    return longest > SKEWED * matrix.nnz / matrix.nrows


def _exclusive_cumsum(xp: Any, counts: Any) -> Any:
    out = xp.zeros(counts.size + 1, dtype=np.int64)
    xp.cumsum(counts, out=out[1:])
    return out


def _phase2_chunks(xp: Any, slot_ptr: Any, most: int) -> dict[str, Any]:
    """Split the row panels with more than ``most`` slots into near-equal chunks."""
    panel_slots = xp.diff(slot_ptr)
    panel_chunks = xp.where(panel_slots > most, -(-panel_slots // most), 0)
    split = panel_chunks > 0
    panel_split = xp.where(split, xp.cumsum(split) - 1, -1).astype(np.int32)
    chunk_base = _exclusive_cumsum(xp, panel_chunks)
    chunk_panel = _prim.expand(xp, panel_chunks)
    rank = xp.arange(chunk_panel.size, dtype=np.int64) - chunk_base[chunk_panel]
    size = -(-panel_slots[chunk_panel] // panel_chunks[chunk_panel])
    chunk_begin = slot_ptr[chunk_panel] + rank * size
    chunk_end = xp.minimum(chunk_begin + size, slot_ptr[chunk_panel + 1])
    return {
        "panel_split": panel_split,
        "split_panels": int(split.sum()),
        "chunk_split": panel_split[chunk_panel],
        "chunk_begin": chunk_begin.astype(np.int64),
        "chunk_end": chunk_end.astype(np.int64),
    }


def build_layout(matrix: Any, params: DenseParams) -> DenseLayout:
    """Build the layout of ``matrix`` for ``params`` with vectorized array code (no row loops)."""
    started = time.perf_counter()
    xp = matrix.xp
    m, n = matrix.shape
    width, height = params.column_panel, params.row_panel
    threads = params.heavy_threads
    row_panels = -(-m // height)
    column_panels = -(-n // width)
    # int32 ids while they fit: a kron24 build holds several arrays of nnz entries at once
    ids = np.int32 if max(m, n, row_panels * column_panels) < 2**31 - 1 else np.int64
    rows = _prim.row_ids(xp, matrix.indptr, m).astype(ids)
    cols = matrix.indices.astype(ids, copy=False)
    values = matrix.values
    nnz = int(cols.size)

    reorder = params.reorder
    if reorder == "auto":
        reorder = "both" if _skewed(xp, matrix) else "none"
    column_order = row_position = None
    if reorder in ("columns", "both") and n:
        column_degrees = xp.bincount(cols, minlength=n)
        column_order, column_position = _order_by_degree(xp, column_degrees)
        # the columns without entries, last in this order, are left out of the input's gather
        column_order = column_order[: int(xp.count_nonzero(column_degrees))].astype(ids)
        del column_degrees
        cols = column_position.astype(ids)[cols]
        del column_position
    if reorder == "both" and m:
        row_position = _order_by_degree(xp, xp.diff(matrix.indptr))[1].astype(ids)
        rows = row_position[rows]

    iso_value = derived.iso_value(matrix)

    # one sort puts entries in (column panel, row panel, destination, source) order. The key
    # is distinct per entry and holds all three: after the sort the ids are freed and each
    # entry's block, destination and source are read back from it. Built and read in place:
    # an int64 temporary of nnz entries is the size of the CSR itself.
    panel = np.int64(height * width)
    key = cols // width
    key *= row_panels
    key += rows // height
    key = key.astype(np.int64)
    key *= panel
    within = rows % height  # a panel's positions (height * width) fit the ids' type
    del rows
    within *= width
    within += cols % width
    del cols
    key += within
    del within
    weights = None
    if iso_value is not None:
        key.sort()  # no permutation to carry: values are all one
    else:
        order = xp.argsort(key)
        key = key[order]
        weights = values[order]
        del order
    block = (key // panel).astype(ids)
    key %= panel
    dst = (key // width).astype(np.int32)
    key %= width
    src = key.astype(np.int16)
    del key

    nblocks = row_panels * column_panels
    block_count = xp.bincount(block, minlength=nblocks) if nnz else xp.zeros(nblocks, np.int64)
    block_start = _exclusive_cumsum(xp, block_count)
    heavy_block = block_count >= params.heavy_threshold
    # counts within the layout (entries, tokens) in int32 while twice nnz fits
    counts = np.int32 if 2 * nnz < _SLOT_LIMIT else np.int64
    position_in_block = xp.arange(nnz, dtype=counts) - block_start[block].astype(counts)
    entry_heavy = heavy_block[block]
    # the light entries' share of the per-entry arrays, taken now: the per-entry arrays are
    # freed before the heavy units' build, whose temporaries are the largest of the layout's
    light = ~entry_heavy
    l_block = block[light]
    l_position = position_in_block[light]
    l_dst = dst[light]
    l_src = src[light]
    l_weights = None if weights is None else weights[light]
    del light

    # --- heavy units --------------------------------------------------------------------------
    units_per_block = xp.where(heavy_block, -(-block_count // params.heavy_unit_edges), 0)
    unit_base = _exclusive_cumsum(xp, units_per_block)
    heavy_units = int(unit_base[-1])
    # per heavy entry: its unit, its thread and its token in that thread's tile column (int32
    # where it fits; temporaries are dropped as soon as they are used)
    unit_size = -(-block_count // xp.maximum(units_per_block, 1))
    h_block = block[entry_heavy]
    del block
    # unit ids in the counts type (int32 while twice nnz fits; units never outnumber entries)
    h_unit = position_in_block[entry_heavy]
    del position_in_block
    h_unit //= unit_size.astype(counts)[h_block]
    h_unit += unit_base.astype(counts)[h_block]
    del h_block, unit_size
    h_dst = dst[entry_heavy]
    del dst
    h_src = src[entry_heavy]
    del src
    h_weights = None if weights is None else weights[entry_heavy]
    del weights, entry_heavy
    unit_entries = (
        xp.bincount(h_unit, minlength=heavy_units) if heavy_units else xp.zeros(0, dtype=np.int64)
    )
    unit_start = _exclusive_cumsum(xp, unit_entries)
    pos_in_unit = (xp.arange(h_unit.size, dtype=counts) - unit_start[h_unit].astype(counts)).astype(
        np.int32
    )
    per_thread = (-(-unit_entries // threads)).astype(np.int32)[h_unit]  # entries per thread
    thread = pos_in_unit // per_thread
    pos_in_thread = pos_in_unit - thread * per_thread
    del per_thread
    new_dst = xp.ones(h_unit.size, dtype=bool)
    if h_unit.size:
        new_dst[1:] = h_dst[1:] != h_dst[:-1]
    thread_start = pos_in_thread == 0
    run_start = new_dst | thread_start  # a marker precedes this entry
    unit_new_dst = new_dst | (pos_in_unit == 0)  # this entry's destination gets a unit slot
    del new_dst, pos_in_unit
    # tokens so far in this thread: entries before it plus markers up to it
    markers_before = xp.cumsum(run_start, dtype=counts) - 1
    columns = counts if heavy_units * threads < _SLOT_LIMIT else np.int64
    thread_id = h_unit.astype(columns) * threads + thread
    thread_first = xp.zeros(heavy_units * threads + 1, dtype=counts)
    if h_unit.size:
        starts = xp.flatnonzero(thread_start)
        thread_first[thread_id[starts]] = markers_before[starts]
        del starts
    token = thread_first[thread_id]
    del thread_first
    xp.subtract(markers_before, token, out=token)
    del markers_before
    token += pos_in_thread
    token += 1
    del pos_in_thread
    token = token.astype(np.int32, copy=False)
    tokens_per_thread = xp.zeros(heavy_units * threads, dtype=np.int64)
    if h_unit.size:
        last = xp.ones(h_unit.size, dtype=bool)
        last[:-1] = thread_start[1:]
        tokens_per_thread[thread_id[last]] = token[last] + 1
        del last
    del thread_id, thread_start
    longest = (
        tokens_per_thread.reshape(heavy_units, threads).max(axis=1)
        if heavy_units
        else xp.zeros(0, dtype=np.int64)
    )
    steps = -(-longest // VECTOR)
    heavy_offset = _exclusive_cumsum(xp, steps * threads * VECTOR)
    table = xp.full(int(heavy_offset[-1]), PAD, dtype=np.int16)
    # table positions in int32 where the table allows (every term of one is below its size)
    position_type = np.int32 if int(heavy_offset[-1]) < _SLOT_LIMIT else np.int64
    base = heavy_offset.astype(position_type)[h_unit]
    thread *= VECTOR
    base += thread
    del thread
    at = tile_position(base, token, threads)
    table[at] = h_src
    del h_src
    table[tile_position(base[run_start], token[run_start] - 1, threads)] = (
        -h_dst[run_start] - 1
    ).astype(np.int16)
    del base, token, run_start
    heavy_weights = None
    if h_weights is not None:
        heavy_weights = xp.zeros(table.size, dtype=values.dtype)
        heavy_weights[at] = h_weights
    del at, h_weights
    slot_count = (
        xp.bincount(h_unit[unit_new_dst], minlength=heavy_units)
        if heavy_units
        else xp.zeros(0, dtype=np.int64)
    )

    # --- slots: (row panel, column panel) order ------------------------------------------------
    unit_block = _prim.expand(xp, units_per_block)
    block_slots = block_count
    if heavy_units:
        heavy_block_slots = xp.bincount(unit_block, weights=slot_count, minlength=nblocks)
        block_slots = xp.where(heavy_block, heavy_block_slots.astype(np.int64), block_count)
    by_row_panel = block_slots.reshape(column_panels, row_panels).T.ravel()
    base_by_row_panel = _exclusive_cumsum(xp, by_row_panel)
    total_slots = int(base_by_row_panel[-1])
    if total_slots > _SLOT_LIMIT:
        raise InvalidValue(
            f"dense layout: {total_slots} partial-result slots exceed int32; use "
            "larger panels or the reference executor"
        )
    block_slot_base = base_by_row_panel[:-1].reshape(row_panels, column_panels).T.ravel()
    if column_panels:
        slot_ptr = xp.concatenate([base_by_row_panel[:-1][::column_panels], base_by_row_panel[-1:]])
    else:
        slot_ptr = xp.zeros(row_panels + 1, dtype=np.int64)
    slot_dst = xp.zeros(total_slots, dtype=np.uint16)
    heavy_slot_base = xp.zeros(heavy_units, dtype=np.int64)
    if heavy_units:
        slots_before = _exclusive_cumsum(xp, slot_count)[:-1]
        within_block = slots_before - slots_before[unit_base[unit_block]]
        heavy_slot_base = block_slot_base[unit_block] + within_block
        # slot ids fit int32 (total_slots was checked above)
        slot_rank = xp.cumsum(unit_new_dst, dtype=np.int32) - 1
        slot_rank -= slot_rank[unit_start[h_unit]]
        owned = heavy_slot_base.astype(np.int32)[h_unit] + slot_rank
        slot_dst[owned[unit_new_dst]] = h_dst[unit_new_dst].astype(np.uint16)

    phase2_chunks = _phase2_chunks(xp, slot_ptr, params.reduce_chunk_slots)

    # --- teams: runs of heavy units of one column panel with about heavy_team_edges entries per
    # group of the heavy thread block ---
    unit_panel = unit_block // row_panels
    team_begin = xp.zeros(0, dtype=np.int64)
    if heavy_units:
        before = unit_start[:-1]
        new_panel = xp.ones(heavy_units, dtype=bool)
        new_panel[1:] = unit_panel[1:] != unit_panel[:-1]
        panel_first = xp.flatnonzero(new_panel)
        owner = xp.cumsum(new_panel) - 1
        in_panel = before - before[panel_first][owner]
        chunk = in_panel // (params.heavy_team_edges * params.block_groups)
        starts = new_panel.copy()
        starts[1:] |= chunk[1:] != chunk[:-1]
        team_begin = xp.flatnonzero(starts).astype(np.int64)
    team_end = (
        xp.concatenate([team_begin[1:], xp.asarray([heavy_units], dtype=np.int64)])
        if heavy_units
        else team_begin
    )

    # --- light stream --------------------------------------------------------------------------
    light_slot = (block_slot_base[l_block] + l_position).astype(np.int32)
    slot_dst[light_slot] = l_dst.astype(np.uint16)
    l_panel = l_block // row_panels
    panel_count = (
        xp.bincount(l_panel, minlength=column_panels)
        if l_panel.size
        else xp.zeros(column_panels, dtype=np.int64)
    )
    panel_units = -(-panel_count // params.light_unit_edges)
    panel_start = _exclusive_cumsum(xp, panel_count)
    light_unit_base = _exclusive_cumsum(xp, panel_units)
    light_units = int(light_unit_base[-1])
    light_panel = _prim.expand(xp, panel_units)
    unit_rank = xp.arange(light_units, dtype=np.int64) - light_unit_base[light_panel]
    light_begin = panel_start[light_panel] + unit_rank * params.light_unit_edges
    light_end = xp.minimum(light_begin + params.light_unit_edges, panel_start[light_panel + 1])

    layout = DenseLayout(
        params=params,
        nrows=m,
        ncols=n,
        nnz=nnz,
        row_panels=row_panels,
        column_panels=column_panels,
        row_position=row_position,
        column_order=column_order,
        iso_value=iso_value,
        live_rows=int(derived.nonempty_rows(matrix)[1]),
        heavy_panel=unit_panel.astype(np.int32),
        team_begin=team_begin,
        team_end=team_end,
        heavy_steps=steps.astype(np.int32),
        heavy_offset=heavy_offset[:-1].copy(),
        heavy_slot_base=heavy_slot_base,
        heavy_slot_count=slot_count.astype(np.int32),
        heavy_table=table,
        heavy_weights=heavy_weights,
        heavy_entries=int(h_unit.size),
        light_panel=light_panel.astype(np.int32),
        light_begin=light_begin,
        light_end=light_end,
        light_src=l_src,
        light_slot=light_slot,
        light_weights=l_weights,
        slot_ptr=slot_ptr,
        slot_dst=slot_dst,
        **phase2_chunks,
        reorder=reorder,
    )
    layout.build_seconds = time.perf_counter() - started
    return layout
