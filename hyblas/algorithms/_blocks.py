"""Row blocks: the algorithms whose products make a result per entry of the graph (the
clustering coefficient's masked product, CDLP's label counts) run them a block of rows at a
time, so that no such result is ever held for the whole graph."""

from __future__ import annotations

import numpy as np

from ..containers.vector import Vector
from ..device import arrays as _prim

#: About the most stored entries of a block of rows.
BLOCK_ENTRIES = 1 << 26


def row_blocks(per_row: Vector, entries: int) -> list[tuple[int, int]]:
    """Consecutive row ranges ``(start, stop)`` covering every row, each holding about
    ``entries`` of the ``per_row`` counts (absent: 0); a row holding more is a block of its
    own (:func:`hyblas.device.arrays.run_cuts` over the running counts, on the host). One
    block when the total is ``entries`` or fewer."""
    counts = per_row.to_dense(fill_value=0).astype(np.int64)
    before = np.concatenate([[0], np.cumsum(counts)])  # entries before each row
    cuts = _prim.run_cuts(np, before, entries)
    return list(zip(cuts[:-1], cuts[1:], strict=True))
