"""NumPy emulation of the dense executor's two phases, walking the same layout as the kernels.

It reads the tiles column by column as the heavy kernel's threads do (a run opens at each
negated destination and closes at the next one or at ``PAD``), combines the runs of one unit
per destination as the shared-memory accumulators do, writes each partial to the slot the
layout assigned, streams the light entries into their slots, and reduces each row panel's slots
by ``slot_dst`` as phase 2 does (chunk by chunk where the panel is split). So CI checks the
layout and both phases without a GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...device import arrays as _prim
from ...operators.classes import Semiring
from .layout import PAD, VECTOR, DenseLayout, tile_position

__all__ = ["phase1", "phase2"]


def _products(semiring: Semiring, weights: Any, x: Any, flip: bool, out_type: np.dtype) -> Any:
    products = semiring.binaryop.numpy(x, weights) if flip else semiring.binaryop.numpy(weights, x)
    return np.asarray(products).astype(out_type, copy=False)


def _weights(layout: DenseLayout, table: str, positions: Any, op_type: np.dtype) -> Any:
    if layout.iso_value is None:
        return layout.weights_as(table, op_type)[positions]
    return np.full(positions.size, layout.iso_value, dtype=op_type)


def _ranges(begin: Any, lengths: Any) -> tuple[Any, Any]:
    """For ranges ``[begin[u], begin[u] + lengths[u])``: each position's range and position."""
    lengths = np.asarray(lengths, dtype=np.int64)
    owner = _prim.expand(np, lengths)
    first = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    return owner, begin[owner] + (np.arange(owner.size, dtype=np.int64) - first[owner])


def _reduce_groups(keys: Any, values: Any, semiring: Semiring) -> tuple[Any, Any]:
    """Combine ``values`` of equal ascending ``keys``: (distinct keys, reduced values)."""
    starts = _prim.segment_starts(np, keys)
    reduced = _prim.segment_reduce(np, values, starts, semiring.monoid.binaryop)
    return keys[starts], reduced


def phase1(
    layout: DenseLayout,
    x: Any,
    x_present: Any | None,
    semiring: Semiring,
    op_type: np.dtype,
    *,
    flip: bool,
) -> tuple[Any, Any]:
    """Partial results ``(values, present)`` of every slot; ``x`` in internal input order."""
    out_type = semiring.output_type(op_type)
    width = layout.params.column_panel
    threads = layout.params.heavy_threads
    partial = np.zeros(layout.slots, dtype=out_type)
    partial_present = np.zeros(layout.slots, dtype=bool)

    # heavy units: each thread walks its tile column top to bottom
    steps = layout.heavy_steps.astype(np.int64)
    unit = _prim.expand(np, steps * threads * VECTOR)
    local = np.arange(unit.size, dtype=np.int64) - layout.heavy_offset[unit]
    step, thread, lane = local // (threads * VECTOR), (local // VECTOR) % threads, local % VECTOR
    # the column walk order: unit, thread, then the thread's tokens in order
    walk = np.lexsort((lane, step, thread, unit))
    position = tile_position(
        layout.heavy_offset[unit] + thread * VECTOR, step * VECTOR + lane, threads
    )[walk]
    token = layout.heavy_table[position].astype(np.int64)
    column = (unit * threads + thread)[walk]
    marker = (token < 0) & (token != PAD)
    # the run each entry belongs to: the last marker above it in its column
    last_marker = np.maximum.accumulate(np.where(marker, np.arange(token.size), -1))
    entry = (token >= 0) & (last_marker >= 0)
    if entry.any():
        opened = last_marker[entry]
        assert (column[opened] == column[entry]).all(), "a column starts without a marker"
    entry_unit = unit[walk][entry]
    entry_dst = -token[last_marker[entry]] - 1
    src = token[entry]
    x_index = layout.heavy_panel[entry_unit].astype(np.int64) * width + src
    live = np.ones(src.size, dtype=bool) if x_present is None else x_present[x_index]
    weights = _weights(layout, "heavy_weights", position[entry][live], op_type)
    products = _products(semiring, weights, x[x_index[live]], flip, out_type)
    # runs, then shared-memory accumulation per (unit, destination): both already ascending
    unit_dst = entry_unit[live] * np.int64(layout.params.row_panel) + entry_dst[live]
    acc_keys, acc_values = _reduce_groups(unit_dst, products, semiring)
    # write-out: slot s of a unit takes the accumulator of destination slot_dst[s]
    slot_unit, slot = _ranges(layout.heavy_slot_base, layout.heavy_slot_count)
    wanted = slot_unit * np.int64(layout.params.row_panel) + layout.slot_dst[slot]
    found = _prim.member(np, acc_keys, wanted)
    partial[slot[found]] = acc_values[np.searchsorted(acc_keys, wanted[found])]
    partial_present[slot[found]] = True

    # light units: one product per entry, into its own slot
    light_unit, k = _ranges(layout.light_begin, layout.light_end - layout.light_begin)
    x_index = layout.light_panel[light_unit].astype(np.int64) * width + layout.light_src[k]
    live = np.ones(k.size, dtype=bool) if x_present is None else x_present[x_index]
    weights = _weights(layout, "light_weights", k[live], op_type)
    slots = layout.light_slot[k]
    partial[slots[live]] = _products(semiring, weights, x[x_index[live]], flip, out_type)
    partial_present[slots[live]] = True
    return partial, partial_present


def phase2(
    layout: DenseLayout, partial: Any, partial_present: Any, semiring: Semiring
) -> tuple[Any, Any]:
    """Reduce each row panel's slots by ``slot_dst``: the result bitmap in the user's order.

    A split panel is reduced as the GPU does it: each chunk of its slots first (phase 2a), then
    the chunks' results; its slots outside every chunk are not read.
    """
    height = layout.params.row_panel
    slot_panel = _prim.expand(np, np.diff(layout.slot_ptr))
    output = slot_panel * np.int64(height) + layout.slot_dst  # internal output position
    chunk_of = np.zeros(layout.slots, dtype=np.int64)  # 0: the panel is not split
    owner, slot = _ranges(layout.chunk_begin, layout.chunk_end - layout.chunk_begin)
    chunk_of[slot] = owner + 1
    read = partial_present & ((layout.panel_split[slot_panel] < 0) | (chunk_of > 0))
    output, chunk_of, values = output[read], chunk_of[read], partial[read]
    positions = np.int64(layout.row_panels * height)
    stage = chunk_of * positions + output
    order = np.argsort(stage, kind="stable")
    chunk_keys, chunk_values = _reduce_groups(stage[order], values[order], semiring)
    output = chunk_keys % positions
    order = np.argsort(output, kind="stable")
    keys, reduced = _reduce_groups(output[order], chunk_values[order], semiring)
    values_out = np.zeros(layout.nrows, dtype=partial.dtype)
    present_out = np.zeros(layout.nrows, dtype=bool)
    values_out[keys] = reduced
    present_out[keys] = True
    if layout.row_position is not None:  # each user row reads its internal position
        values_out, present_out = values_out[layout.row_position], present_out[layout.row_position]
    return values_out, present_out
