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

The build works on a part of the entries at a time: :mod:`.layout_order` brings the entries
into the layout's order, :mod:`.layout_tiles` writes the heavy tiles and the light stream.
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
from .layout_order import layout_keys, part_entries_for, sorted_entries
from .layout_tiles import (
    VECTOR,
    TileTargets,
    fill_tiles,
    heavy_units,
    measure_tiles,
    tile_position,
    tile_spans,
)
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


def _phase2_chunks(xp: Any, slot_ptr: Any, most: int) -> dict[str, Any]:
    """Split the row panels with more than ``most`` slots into near-equal chunks."""
    panel_slots = xp.diff(slot_ptr)
    panel_chunks = xp.where(panel_slots > most, -(-panel_slots // most), 0)
    split = panel_chunks > 0
    panel_split = xp.where(split, xp.cumsum(split) - 1, -1).astype(np.int32)
    chunk_base = _prim.exclusive_cumsum(xp, panel_chunks)
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


def build_layout(
    matrix: Any, params: DenseParams, *, part_entries: int | None = None
) -> DenseLayout:
    """Build the layout of ``matrix`` for ``params`` with vectorized array code (no row loops).

    The entries are sorted and walked about ``part_entries`` at a time (default:
    :func:`.layout_order.part_entries_for`), which bounds the build's temporaries; the layout
    does not depend on it."""
    started = time.perf_counter()
    xp = matrix.xp
    m, n = matrix.shape
    width, height = params.column_panel, params.row_panel
    threads = params.heavy_threads
    row_panels = -(-m // height)
    column_panels = -(-n // width)
    # int32 ids while they fit: a kron24 build holds several arrays of nnz entries at once
    ids = np.int32 if max(m, n, row_panels * column_panels) < 2**31 - 1 else np.int64
    nnz = matrix.nnz
    part_entries = part_entries or part_entries_for(nnz)
    values = matrix.values

    reorder = params.reorder
    if reorder == "auto":
        reorder = "both" if _skewed(xp, matrix) else "none"
    column_order = column_position = row_position = None
    if reorder in ("columns", "both") and n:
        column_degrees = xp.bincount(matrix.indices, minlength=n)
        column_order, column_position = _order_by_degree(xp, column_degrees)
        # the columns without entries, last in this order, are left out of the input's gather
        column_order = column_order[: int(xp.count_nonzero(column_degrees))].astype(ids)
        del column_degrees
        column_position = column_position.astype(ids)
    if reorder == "both" and m:
        row_position = _order_by_degree(xp, xp.diff(matrix.indptr))[1].astype(ids)

    iso_value = derived.iso_value(matrix)
    key = layout_keys(
        xp,
        matrix,
        row_position,
        column_position,
        row_panel=height,
        column_panel=width,
        part_entries=part_entries,
    )
    del column_position
    nblocks = row_panels * column_panels
    entries = sorted_entries(
        xp,
        key,
        None if iso_value is not None else values,
        nblocks=nblocks,
        row_panel=height,
        column_panel=width,
        part_entries=part_entries,
    )
    del key
    block_count = entries.block_count
    heavy_block = block_count >= params.heavy_threshold
    # counts within the layout (entries, tokens) in int32 while twice nnz fits
    counts = np.int32 if 2 * nnz < _SLOT_LIMIT else np.int64

    # --- heavy units: each thread's column and each unit's slots, then the tiles' sizes -------
    units = heavy_units(xp, block_count, heavy_block, params.heavy_unit_edges, threads, counts)
    heavy_units_count = units.count
    spans = tile_spans(xp, entries, units, part_entries)
    tokens_per_thread, slot_count = measure_tiles(xp, entries, spans, units, heavy_block)
    longest = (
        tokens_per_thread.reshape(heavy_units_count, threads).max(axis=1)
        if heavy_units_count
        else xp.zeros(0, dtype=np.int64)
    )
    del tokens_per_thread
    steps = -(-longest // VECTOR)
    heavy_offset = _prim.exclusive_cumsum(xp, steps * threads * VECTOR)
    table = xp.full(int(heavy_offset[-1]), PAD, dtype=np.int16)
    # table positions in int32 where the table allows (every term of one is below its size)
    position_type = np.int32 if int(heavy_offset[-1]) < _SLOT_LIMIT else np.int64
    heavy_weights = None if iso_value is not None else xp.zeros(table.size, dtype=values.dtype)

    # --- slots: (row panel, column panel) order ------------------------------------------------
    unit_block = units.block
    block_slots = block_count
    if heavy_units_count:
        heavy_block_slots = xp.bincount(unit_block, weights=slot_count, minlength=nblocks)
        block_slots = xp.where(heavy_block, heavy_block_slots.astype(np.int64), block_count)
    by_row_panel = block_slots.reshape(column_panels, row_panels).T.ravel()
    base_by_row_panel = _prim.exclusive_cumsum(xp, by_row_panel)
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
    heavy_slot_base = xp.zeros(heavy_units_count, dtype=np.int64)
    if heavy_units_count:
        slots_before = _prim.exclusive_cumsum(xp, slot_count)[:-1]
        within_block = slots_before - slots_before[units.base[unit_block]]
        heavy_slot_base = block_slot_base[unit_block] + within_block

    # --- light stream: the light blocks' entries, by column panel --------------------------------
    light_count = xp.where(heavy_block, 0, block_count)
    light_entries = int(light_count.sum()) if nblocks else 0
    into = TileTargets(
        table=table,
        weights=heavy_weights,
        offset=heavy_offset[:-1].astype(position_type),
        slot_base=heavy_slot_base.astype(np.int32),
        slot_dst=xp.zeros(total_slots, dtype=np.uint16),
        block_slot_base=block_slot_base,
        light_before=_prim.exclusive_cumsum(xp, light_count),
        light_src=xp.empty(light_entries, dtype=np.int16),
        light_slot=xp.empty(light_entries, dtype=np.int32),
        light_weights=None if iso_value is not None else xp.empty(light_entries, values.dtype),
    )
    fill_tiles(xp, entries, spans, units, heavy_block, into)
    del entries
    slot_dst = into.slot_dst

    phase2_chunks = _phase2_chunks(xp, slot_ptr, params.reduce_chunk_slots)

    # --- teams: runs of heavy units of one column panel with about heavy_team_edges entries per
    # group of the heavy thread block ---
    unit_panel = unit_block // row_panels
    team_begin = xp.zeros(0, dtype=np.int64)
    if heavy_units_count:
        before = units.start[:-1]
        new_panel = xp.ones(heavy_units_count, dtype=bool)
        new_panel[1:] = unit_panel[1:] != unit_panel[:-1]
        panel_first = xp.flatnonzero(new_panel)
        owner = xp.cumsum(new_panel) - 1
        in_panel = before - before[panel_first][owner]
        chunk = in_panel // (params.heavy_team_edges * params.block_groups)
        starts = new_panel.copy()
        starts[1:] |= chunk[1:] != chunk[:-1]
        team_begin = xp.flatnonzero(starts).astype(np.int64)
    team_end = (
        xp.concatenate([team_begin[1:], xp.asarray([heavy_units_count], dtype=np.int64)])
        if heavy_units_count
        else team_begin
    )

    # --- light units: each column panel's light entries cut into light_unit_edges --------------
    panel_count = light_count.reshape(column_panels, row_panels).sum(axis=1)
    panel_units = -(-panel_count // params.light_unit_edges)
    panel_start = _prim.exclusive_cumsum(xp, panel_count)
    light_unit_base = _prim.exclusive_cumsum(xp, panel_units)
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
        heavy_entries=int(units.start[-1]),
        light_panel=light_panel.astype(np.int32),
        light_begin=light_begin,
        light_end=light_end,
        light_src=into.light_src,
        light_slot=into.light_slot,
        light_weights=into.light_weights,
        slot_ptr=slot_ptr,
        slot_dst=slot_dst,
        **phase2_chunks,
        reorder=reorder,
    )
    layout.build_seconds = time.perf_counter() - started
    return layout
