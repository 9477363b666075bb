"""NumPy emulation of the sparse-frontier kernels' walk over the layout (``executor='sparse'``
on the CPU), so that CI checks the layout and the walk without a GPU.

:func:`walk_plan` splits the active inputs' edges exactly as the CUDA kernels do — blocks of
``INPUTS_PER_BLOCK`` inputs, gathered inputs, the shared-memory segment walk, the three stages —
and :func:`push` combines the products along those paths: per block and segment first for the
segment walk, then everything into the output, after the output mask.
"""

from __future__ import annotations

import numpy as np

from ...device import arrays as _prim
from ...operators.classes import Semiring
from .layout import SparseLayout
from .params import INPUTS_PER_BLOCK, THREADS, WARP, SparseParams

__all__ = ["walk_plan", "push"]


def walk_plan(
    layout: SparseLayout, params: SparseParams, active: np.ndarray, *, segments: bool = True
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Which path takes each edge of the active inputs: ``{path: (edges, owner)}``.

    ``owner`` is the position in ``active``. Paths: ``'spread'`` (gathered inputs: more than
    ``reach`` edges), ``'segment'`` (edges into high outputs, walked segment by segment in
    shared memory by blocks with at least ``segment_min_edges`` of them; none without
    ``segments``, as for the ``any`` monoid, whose calls claim outputs instead), and the three
    stages of the rest of each input's edges: ``'block'`` (whole multiples of ``THREADS``),
    ``'warp'`` (then multiples of ``WARP``), ``'virtual'`` (the last ``E mod WARP``).
    """
    active = np.asarray(active, dtype=np.int64)
    begin = layout.push_indptr[active]
    end = layout.push_indptr[active + 1]
    split = layout.push_split[active]
    gathered = end - begin > params.reach
    block = np.arange(active.size, dtype=np.int64) // INPUTS_PER_BLOCK
    high_edges = np.where(gathered, 0, split - begin)
    block_high = np.bincount(block, weights=high_edges, minlength=1).astype(np.int64)
    segment_block = segments & (block_high > 0) & (block_high >= params.segment_min_edges)
    segmented = segment_block[block] & ~gathered
    low = np.where(gathered, end, np.where(segmented, split, begin))
    count = end - low
    whole = count // THREADS * THREADS
    warps = count % THREADS // WARP * WARP
    return {
        "spread": _prim.ranges(np, begin, np.where(gathered, end - begin, 0)),
        "segment": _prim.ranges(np, begin, np.where(segmented, split - begin, 0)),
        "block": _prim.ranges(np, low, whole),
        "warp": _prim.ranges(np, low + whole, warps),
        "virtual": _prim.ranges(np, low + whole + warps, count % WARP),
    }


def push(
    layout: SparseLayout,
    params: SparseParams,
    active: np.ndarray,
    x: np.ndarray,
    semiring: Semiring,
    op_type: np.dtype,
    *,
    flip: bool,
    allowed: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """``t = Eᵀ-push of x`` over the active inputs, masked by ``allowed`` (None: no mask).

    ``x[k]`` is the value of input ``active[k]`` in ``op_type``. Returns the sorted user ids
    of the present outputs and their values (the semiring's output type).
    """
    out_type = semiring.output_type(op_type)
    mult = semiring.binaryop.numpy
    add = semiring.monoid.binaryop

    def products(edges: np.ndarray, owner: np.ndarray) -> np.ndarray:
        if layout.iso_value is not None:
            a = np.full(edges.size, layout.iso_value, dtype=op_type)
        else:
            a = layout.push_weights[edges].astype(op_type, copy=False)
        xs = x[owner]
        return np.asarray(mult(xs, a) if flip else mult(a, xs)).astype(out_type, copy=False)

    plan = walk_plan(layout, params, active, segments=semiring.monoid.name != "any")
    users, values = [], []
    for path in ("spread", "block", "warp", "virtual"):  # global atomics, mask before each
        edges, owner = plan[path]
        dst = layout.push_dst[edges].astype(np.int64)
        high = edges < layout.push_split[active[owner]]
        user = dst.copy()
        user[high] = layout.output_order[dst[high]]
        keep = slice(None) if allowed is None else allowed[user]
        users.append(user[keep])
        values.append(products(edges[keep], owner[keep]))
    # segment walk: combine per (block, high output) in shared memory, then mask and push
    edges, owner = plan["segment"]
    key = owner // INPUTS_PER_BLOCK * max(layout.high_count, 1) + layout.push_dst[edges]
    key, combined = _prim.combine_by_key(np, key.astype(np.int64), products(edges, owner), add)
    user = layout.output_order[key % max(layout.high_count, 1)].astype(np.int64)
    keep = slice(None) if allowed is None else allowed[user]
    users.append(user[keep])
    values.append(combined[keep])
    return _prim.combine_by_key(
        np, np.concatenate(users), np.concatenate(values).astype(out_type), add
    )
