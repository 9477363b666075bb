"""NumPy emulation of the pull kernels' walk: each allowed output reduces its row of the edge
matrix over the present inputs, and stops, with the warp (32 edges a step) or block (1024) that
walks it, at the step where a contribution first makes the row final (the monoid's terminal
value; any contribution for ``any``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...semiring.operators import Semiring
from .. import primitives as _prim
from ..kernels import BLOCK_KERNEL_THREADS, HEAVY_ROW
from ..reference import scatter_segments

__all__ = ["pull", "stops_at"]


def stops_at(xp: Any, semiring: Semiring, products: Any, out_type: np.dtype) -> Any:
    """Where a contribution makes its row final (bool per contribution; NumPy or CuPy)."""
    if semiring.monoid.name == "any":
        return xp.ones(products.size, dtype=bool)
    terminal = semiring.monoid.terminal(out_type)
    if terminal is None:
        return xp.zeros(products.size, dtype=bool)
    return products == terminal


def pull(edges: Any, rows: np.ndarray | None, x: np.ndarray, x_present: np.ndarray | None,
         semiring: Semiring, op_type: np.dtype, *, flip: bool) -> tuple[Any, Any, int]:  # fmt: skip
    """``(values, present, examined)``: the bitmap over all outputs (only ``rows`` computed;
    every row when None) and the number of edges the kernels examine."""
    out_type = semiring.output_type(op_type)
    indptr = edges._indptr.astype(np.int64)
    if rows is None:
        rows = np.arange(edges.nrows, dtype=np.int64)
    starts = indptr[rows]
    degrees = indptr[rows + 1] - starts
    which = _prim.expand(np, degrees)  # the listed row (position in rows) of each edge
    offset = np.arange(which.size, dtype=np.int64) - np.repeat(np.cumsum(degrees) - degrees,
                                                               degrees)  # fmt: skip
    position = starts[which] + offset
    inputs = edges._indices[position]
    present = np.ones(position.size, dtype=bool) if x_present is None else x_present[inputs]
    a = edges._values[position].astype(op_type, copy=False)
    xv = x[inputs]
    products = semiring.binaryop.numpy(xv, a) if flip else semiring.binaryop.numpy(a, xv)
    products = np.asarray(products).astype(out_type, copy=False)
    final = present & stops_at(np, semiring, products, out_type)
    examined = _examined(degrees, which, offset, final)
    values, here = scatter_segments(np, rows[which][present], products[present],
                                    semiring.monoid, edges.nrows, out_type)  # fmt: skip
    return values, here, examined


def _examined(degrees: np.ndarray, which: np.ndarray, offset: np.ndarray,
              stop: np.ndarray) -> int:  # fmt: skip
    """Edges walked: a row's walker stops after the step (32 edges for a warp, 1024 for a
    heavy row's block) holding its first final contribution."""
    first = np.full(degrees.size, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, which[stop], offset[stop])
    step = np.where(degrees > HEAVY_ROW, BLOCK_KERNEL_THREADS, 32)
    stopped = first < degrees
    walked = np.where(stopped, np.minimum(degrees, (first // step + 1) * step), degrees)
    return int(walked.sum())
