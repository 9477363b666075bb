"""Entry-by-entry operations: ``apply`` (an operator on every entry) and ``select`` (keep the
entries an index-unary test accepts)."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..device import arrays as _prim
from ..errors import InvalidValue
from ..operators.classes import BinaryOp, IndexUnaryOp, UnaryOp
from . import checks
from .output import matrix_keys, new_sparse_vector, write_matrix, write_vector
from .spec import OutputSpec, output_spec

__all__ = ["apply", "select"]


def entries(x: Any) -> tuple[Any, Any, Any]:
    """(rows, cols, values) of a Matrix's entries; (indices, zeros, values) of a Vector's."""
    xp = x.xp
    if isinstance(x, Vector):
        idx, vals = x.as_sparse()
        return idx, xp.zeros_like(idx), vals
    return _prim.row_ids(xp, x.indptr, x.nrows), x.indices.astype(np.int64), x.values


def _rebuild(x: Any, keep: Any, values: Any, spec: OutputSpec) -> Any:
    """Write the entries of ``x`` selected by ``keep`` (None: all) with new ``values``
    (one value per kept entry) as ``spec`` says."""
    xp = x.xp
    if isinstance(x, Vector):
        idx, _ = x.as_sparse()
        if keep is not None:
            idx = idx[keep]
        if spec.out is None:
            if keep is None:  # x's own arrays (apply's values too, cast with copy=False)
                idx, values = idx.copy(), values.copy()
            return new_sparse_vector(spec, x.size, idx, values)
        out_values, present = _prim.to_bitmap(xp, x.size, idx, values)
        return write_vector(spec, out_values, present)
    keys = matrix_keys(x)
    if keep is not None:
        keys = keys[keep]
    return write_matrix(spec, keys, values, x.shape)


def _quiet(placeholders: bool) -> Any:
    """Silence floating-point warnings when an op also runs on absent positions' placeholders."""
    return _prim.quiet_placeholders() if placeholders else contextlib.nullcontext()


def apply(
    x: Any,
    op: UnaryOp | BinaryOp | str,
    *,
    left: Any = None,
    right: Any = None,
    mask: Any = None,
    accum: Any = None,
    replace: bool = False,
    out: Any = None,
) -> Any:
    """Apply an operator to every entry: ``op(x)``, or ``op(left, x)`` / ``op(x, right)``.

    Parameters
    ----------
    x : Vector or Matrix
    op : UnaryOp, BinaryOp or str
        A typed UnaryOp casts: ``apply(x, unary.identity[np.float64])``.
    left, right : scalar, optional
        Bind one side of a BinaryOp to a scalar (exactly one, for a BinaryOp).
    mask, accum, replace, out
        As in :func:`~hyblas.ops.mxv`.
    """
    found = checks.operator(op, (UnaryOp, BinaryOp), "op")
    checks.container(x, (Vector, Matrix), "x")
    spec = output_spec(
        "apply", type(x), x.shape, mask=mask, accum=accum, replace=replace, out=out, x=x
    )
    bitmap = isinstance(x, Vector) and x.format == "bitmap"
    if isinstance(x, Matrix):
        values = x.values  # the keys are not needed
    else:
        values = x.as_bitmap()[0] if bitmap else x.as_sparse()[1]
    xp = x.xp
    if isinstance(found, UnaryOp):
        if left is not None or right is not None:
            raise InvalidValue("apply: left= / right= bind a BinaryOp; op is a UnaryOp")
        op_type = found.input_type(x.dtype)
        with _quiet(bitmap):
            result = found.numpy(values.astype(op_type, copy=False))
        result = xp.asarray(result).astype(found.output_type(op_type), copy=False)
    else:
        if (left is None) == (right is None):
            raise InvalidValue("apply with a BinaryOp needs exactly one of left= or right=")
        scalar = left if left is not None else right
        # a Python scalar is "weak" (NEP 50): int32 + 1 stays int32, float32 * 0.5 float32
        weak = isinstance(scalar, bool | int | float)
        scalar_type = _dt.lookup(
            np.result_type(x.dtype, scalar) if weak else np.asarray(scalar).dtype,
            argument="left/right",
        )
        op_type = found.input_type(x.dtype, scalar_type)
        own = values.astype(op_type, copy=False)
        bound = xp.full(own.shape, scalar, dtype=op_type)
        with _quiet(bitmap):
            result = found.numpy(bound, own) if left is not None else found.numpy(own, bound)
        result = result.astype(found.output_type(op_type), copy=False)
    if bitmap:  # the op also ran on absent positions' placeholders; their results are dropped
        return write_vector(spec, result, x.as_bitmap()[1])
    return _rebuild(x, None, result, spec)


def select(
    x: Any,
    op: IndexUnaryOp | str,
    thunk: Any = 0,
    *,
    mask: Any = None,
    accum: Any = None,
    replace: bool = False,
    out: Any = None,
) -> Any:
    """Keep the entries for which ``op(value, row, col, thunk)`` is true (GrB_select).

    Parameters
    ----------
    x : Vector or Matrix
    op : IndexUnaryOp or str
        ``tril``, ``triu``, ``diag``, ``offdiag`` (thunk = diagonal offset), ``rowle``,
        ``rowgt``, ``colle``, ``colgt`` (thunk = index), ``valueeq`` ... ``valuege``
        (thunk = value). For a Vector the row is the index and the column 0.
    thunk : scalar
    mask, accum, replace, out
        As in :func:`~hyblas.ops.mxv`.
    """
    found = checks.operator(op, (IndexUnaryOp,), "op")
    checks.container(x, (Vector, Matrix), "x")
    spec = output_spec(
        "select", type(x), x.shape, mask=mask, accum=accum, replace=replace, out=out, x=x
    )
    if isinstance(x, Vector) and x.format == "bitmap":  # it stays one: no compaction
        return _select_bitmap(x, found, thunk, spec)
    rows, cols, values = entries(x)
    keep = x.xp.asarray(found.numpy(values, rows, cols, thunk)).astype(bool)
    return _rebuild(x, keep, values[keep], spec)


def _select_bitmap(x: Vector, op: IndexUnaryOp, thunk: Any, spec: OutputSpec) -> Vector:
    """``select`` of a bitmap Vector over its bitmap: the op runs on every position (absent
    ones' placeholders too; those results are dropped), and the kept flags are the present
    ones it accepts. The result settles into the storage its density suits; compacting the
    whole input first would cost a pass more (on the GPU, one that waits for the device)."""
    xp = x.xp
    values, present = x.as_bitmap()
    index = xp.arange(x.size, dtype=np.int64)
    with _quiet(True):
        accepted = xp.asarray(op.numpy(values, index, xp.zeros_like(index), thunk))
    keep = present & accepted.astype(bool, copy=False)
    # a new vector shares x's values, as apply's shares x's flags: stored arrays are replaced,
    # never written in place (only private working copies are)
    return write_vector(spec, values, keep)
