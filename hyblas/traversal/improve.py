"""The state update of an improving round (``propagate(levels=False)``), in one step.

A round's products ``reached`` improve the state where ``state ⊕ reached`` differs from the
state (or the state has no entry yet); those entries are written into the state and are the
next frontier. Written with the GraphBLAS operations (:func:`improve_with_ops`) that is four
calls, each a pass over every position of the vector (a mask, a bitmap, a scatter), which on
a large graph take longer a round than the dense product itself. :func:`improve` does the
same on the storages as they are: a pass over ``reached``'s entries when it is sparse, one
element-wise pass over the positions when it is a bitmap (on the GPU one kernel,
``kernels/improve_bitmap.cu``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..device import arrays as _prim
from ..operators.classes import BinaryOp
from . import device_loop
from .kernels import improve_types

__all__ = ["improve", "improve_counting", "improve_with_ops"]


def improve(state: Vector, reached: Vector, add: BinaryOp) -> Vector:
    """``state ⊕= reached`` where that changes ``state``; returns the entries that changed it.

    The entries of ``reached`` whose position the state lacks, or where ``add(reached,
    state)`` is not the state's value, take that combined value in ``state`` (updated in
    place; its arrays may be changed where they lie) and in the returned vector. Equal to
    :func:`improve_with_ops`.

    Parameters
    ----------
    state : Vector
        Changed in place: give it arrays no other vector shares.
    reached : Vector
        Same size as ``state``.
    add : BinaryOp
        The add monoid's operator.

    Returns
    -------
    Vector
        The improved entries, of ``add``'s output type.
    """
    return improve_counting(state, reached, add)[0]


def improve_counting(
    state: Vector, reached: Vector, add: BinaryOp, A: Matrix | None = None
) -> tuple[Vector, int | None]:  # noqa: N803
    """:func:`improve`, and the improved vertices' out-edges in ``A`` (rows are the vertices)
    where the update counted them on the way (the GPU's one-kernel update), else None."""
    op_type = add.input_type(reached.dtype, state.dtype)
    out_type = add.output_type(op_type)
    if reached.stored_bitmap is not None:
        return _over_positions(state, reached, add, op_type, out_type, A)
    return _over_entries(state, reached, add, op_type, out_type), None


def _combine(
    add: BinaryOp,
    reached: Any,
    current: Any,
    had: Any,
    op_type: np.dtype,
    out_type: np.dtype,
    xp: Any,
) -> tuple[Any, Any]:
    """The combined values (``reached``'s own where the state had none) and where they
    differ from ``current`` or the state had none."""
    with np.errstate(all="ignore"):  # placeholders of absent positions are combined too
        both = add.numpy(reached.astype(op_type, copy=False), current.astype(op_type, copy=False))
        combined = xp.where(
            had, xp.asarray(both).astype(out_type, copy=False), reached.astype(out_type, copy=False)
        )
        better = ~had | (combined != current)
    return combined, better


def _over_positions(
    state: Vector,
    reached: Vector,
    add: BinaryOp,
    op_type: np.dtype,
    out_type: np.dtype,
    A: Matrix | None,
) -> tuple[Vector, int | None]:  # noqa: N803
    """``reached`` is a bitmap: one element-wise pass over the positions (one kernel on the
    GPU where state and products have one type the kernel serves, which also counts the
    improved vertices' out-edges in ``A``)."""
    xp = state.xp
    r_values, r_present = reached.stored_bitmap
    values, present = state.as_bitmap()
    if (
        state.backend == "cuda"
        and state.dtype == reached.dtype == op_type == out_type
        and out_type in improve_types(add)
    ):
        improved, improved_present, found, entries, edges = device_loop.improve_bitmaps(
            xp, add, (values, present), (r_values, r_present), None if A is None else A.indptr
        )
        state.set_storage(bitmap=(values, present), nnz=entries)
        improved_vector = Vector.wrap_bitmap(
            improved, improved_present, backend=state.backend, nnz=found
        )
        return improved_vector, edges
    combined, better = _combine(add, r_values, values, present, op_type, out_type, xp)
    better &= r_present
    xp.copyto(values, combined.astype(state.dtype, copy=False), where=better)
    present |= better
    state.set_storage(bitmap=(values, present))
    return Vector.wrap_bitmap(combined, better, backend=state.backend), None


def _over_entries(
    state: Vector, reached: Vector, add: BinaryOp, op_type: np.dtype, out_type: np.dtype
) -> Vector:
    """``reached`` is sparse: a pass over its entries, gathering the state's values there."""
    xp = state.xp
    ids, r_values = reached.stored_sparse
    if state.stored_bitmap is not None:
        values, present = state.stored_bitmap
        current, had = values[ids], present[ids]
    else:
        s_ids, s_values = state.stored_sparse
        if s_ids.size:
            at, had = _prim.locate(xp, s_ids, ids)
            current = s_values[at]
        else:
            had, current = xp.zeros(ids.size, dtype=bool), xp.zeros(ids.size, dtype=state.dtype)
    combined, better = _combine(add, r_values, current, had, op_type, out_type, xp)
    keep = xp.flatnonzero(better)
    ids, combined = ids[keep], combined[keep]
    if state.stored_bitmap is not None:
        values[ids], present[ids] = combined.astype(state.dtype, copy=False), True
        state.set_storage(bitmap=(values, present))
    else:
        merged = _prim.union_keys(
            xp, s_ids, s_values, ids, combined, lambda old, new: new, state.dtype
        )
        state.set_storage(sparse=merged, nnz=int(merged[0].size))
    return Vector(
        state.size, out_type, backend=state.backend, sparse=(ids, combined), nnz=int(ids.size)
    ).settle()


def improve_with_ops(state: Vector, reached: Vector, add: BinaryOp) -> Vector:
    """What :func:`improve` does, written with the GraphBLAS operations (the definition)."""
    combined = ops.ewise_add(reached, state, add, mask=reached.S)
    unchanged = ops.ewise_mult(combined, state, "eq")
    improved = ops.apply(combined, "identity", mask=~unchanged)
    ops.assign(state, improved, None, mask=improved.S)
    return improved
