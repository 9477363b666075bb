"""NumPy emulation of the pull kernels' walk: each allowed output reduces its row of the edge
matrix over the present inputs, and stops, with the thread (``THREAD_STEP`` edges a step, rows
of at most ``THREAD_EDGES``), warp (32) or block (1024, rows of more than ``HEAVY_ROW``) that
walks it, after the step where a contribution first makes the row final (the monoid's terminal
value; any contribution for ``any``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...device import arrays as _prim
from ...device.reductions import scatter_segments
from ...device.segments import HEAVY_ROW
from ...operators.classes import Semiring
from ..reference.kernels import BLOCK_KERNEL_THREADS
from .kernels import THREAD_EDGES, THREAD_STEP

__all__ = ["pull", "stops_at", "walk_rows", "examined_per_row", "RowWalk"]


def stops_at(xp: Any, semiring: Semiring, products: Any, out_type: np.dtype) -> Any:
    """Where a contribution makes its row final (bool per contribution; NumPy or CuPy)."""
    if semiring.monoid.name == "any":
        return xp.ones(products.size, dtype=bool)
    terminal = semiring.monoid.terminal(out_type)
    if terminal is None:
        return xp.zeros(products.size, dtype=bool)
    return products == terminal


@dataclass
class RowWalk:
    """The edges of some rows in CSR order: for each edge its row (position in the list) and
    offset in the row, the product, whether the input was present and whether the
    contribution settles the row; and each listed row's degree."""

    owner: Any
    offset: Any
    degrees: Any
    products: Any
    present: Any
    final: Any


def walk_rows(
    xp: Any,
    edges: Any,
    rows: Any,
    x: Any,
    x_present: Any | None,
    semiring: Semiring,
    op_type: np.dtype,
    *,
    flip: bool,
    cap: int | None = None,
) -> RowWalk:
    """Walk ``rows`` of the edge matrix (at most ``cap`` edges each) over the inputs ``x``
    (``op_type``; ``x_present`` None: all present), with NumPy or CuPy."""
    out_type = semiring.output_type(op_type)
    starts = edges.indptr[rows].astype(np.int64)
    degrees = edges.indptr[rows + 1].astype(np.int64) - starts
    walked = degrees if cap is None else xp.minimum(degrees, cap)
    owner = _prim.expand(xp, walked)
    offset = xp.arange(owner.size, dtype=np.int64) - (xp.cumsum(walked) - walked)[owner]
    position = starts[owner] + offset
    inputs = edges.indices[position]
    present = xp.ones(position.size, dtype=bool) if x_present is None else x_present[inputs]
    a = edges.values[position].astype(op_type, copy=False)
    xv = x[inputs]
    products = semiring.binaryop.numpy(xv, a) if flip else semiring.binaryop.numpy(a, xv)
    products = xp.asarray(products).astype(out_type, copy=False)
    final = present & stops_at(xp, semiring, products, out_type)
    return RowWalk(owner, offset, degrees, products, present, final)


def examined_per_row(xp: Any, walk: RowWalk) -> Any:
    """Edges each row's walker examines: it stops after the step (``THREAD_STEP`` edges for a
    thread, 32 for a warp, 1024 for a heavy row's block) holding the row's first final
    contribution; a row with none within the walk is taken as walked whole."""
    first = walk.degrees.copy()
    hits = xp.flatnonzero(walk.final)  # ascending, so grouped by row
    if hits.size:
        rows = walk.owner[hits]
        leads = xp.concatenate([xp.ones(1, dtype=bool), rows[1:] != rows[:-1]])
        first[rows[leads]] = walk.offset[hits[leads]]
    step = xp.where(
        walk.degrees > HEAVY_ROW,
        BLOCK_KERNEL_THREADS,
        xp.where(walk.degrees > THREAD_EDGES, 32, THREAD_STEP),
    )
    steps = (first // step + 1) * step
    return xp.where(first < walk.degrees, xp.minimum(walk.degrees, steps), walk.degrees)


def pull(
    edges: Any,
    rows: np.ndarray | None,
    x: np.ndarray,
    x_present: np.ndarray | None,
    semiring: Semiring,
    op_type: np.dtype,
    *,
    flip: bool,
) -> tuple[Any, Any, int]:
    """``(values, present, examined)``: the bitmap over all outputs (only ``rows`` computed;
    every row when None) and the number of edges the kernels examine."""
    if rows is None:
        rows = np.arange(edges.nrows, dtype=np.int64)
    walk = walk_rows(np, edges, rows, x, x_present, semiring, op_type, flip=flip)
    examined = int(examined_per_row(np, walk).sum())
    values, here = scatter_segments(
        np,
        rows[walk.owner][walk.present],
        walk.products[walk.present],
        semiring.monoid,
        edges.nrows,
        semiring.output_type(op_type),
    )
    return values, here, examined
