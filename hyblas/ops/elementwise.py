"""Element-wise operations: ``ewise_add`` (the union of two structures), ``ewise_mult`` (the
intersection) and ``inner`` (the inner product of two vectors)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import names_oom
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..device import arrays as _prim
from ..device import reductions as _red
from ..device.ewise import ewise_bitmaps
from ..device.inner import inner_bitmaps
from ..errors import DimensionMismatch, InvalidObject
from ..operators.classes import BinaryOp, Semiring
from . import checks
from .output import matrix_keys, new_sparse_vector, write_matrix, write_vector
from .reductions import reduce_scalar
from .spec import output_spec, same_backend

__all__ = ["ewise_add", "ewise_mult", "inner"]


def _ewise(
    name: str, x: Any, y: Any, op: Any, mask: Any, accum: Any, replace: bool, out: Any, combine: Any
) -> Any:
    """``ewise_add`` (``combine``: the union of the key sets) or ``ewise_mult`` (the
    intersection)."""
    bop = checks.binary_of(op, "op")
    checks.container(x, (Vector, Matrix), "x")
    if type(y) is not type(x):
        raise InvalidObject(f"{name}: x is a {type(x).__name__} but y is a {type(y).__name__}")
    if x.shape != y.shape:
        raise DimensionMismatch(f"{name}: x has shape {x.shape} but y has shape {y.shape}")
    spec = output_spec(
        name, type(x), x.shape, mask=mask, accum=accum, replace=replace, out=out, x=x, y=y
    )
    xp = x.xp
    if isinstance(x, Vector):
        if x.format == "bitmap" and y.format == "bitmap":
            union = combine is _red.ewise_union
            both_full = x.known_full() and y.known_full()
            values, present = _ewise_bitmaps(x, y, bop, union=union, full=both_full)
            # full operands give a full result, known without a count (a device sync)
            full = (x.known_full() or y.known_full()) if union else both_full
            return write_vector(spec, values, present, nnz=x.size if full else None)
        (xi, xv), (yi, yv) = x.as_sparse(), y.as_sparse()
        keys, values = combine(xp, xi, xv, yi, yv, bop)  # new arrays
        if out is None:
            return new_sparse_vector(spec, x.size, keys, values)
        out_values, present = _prim.to_bitmap(xp, x.size, keys, values)
        return write_vector(spec, out_values, present)
    if spec.bare and _same_structure(x, y):
        # one pass over the values: no linear keys, no merge (e.g. a matrix and another of
        # its own pattern, as mxm with a diagonal makes)
        values = _red.ewise_aligned(x.values, y.values, bop)
        indptr, indices = x.indptr.copy(), x.indices.copy()
        return Matrix(indptr, indices, values, x.shape, backend=spec.backend)
    keys, values = combine(xp, matrix_keys(x), x.values, matrix_keys(y), y.values, bop)
    return write_matrix(spec, keys, values, x.shape)


def _same_structure(x: Matrix, y: Matrix) -> bool:
    """Whether two matrices of one shape store the same positions (a pass over the row
    pointers, and over the column ids only where those agree)."""
    if x.nnz != y.nnz:
        return False
    xp = x.xp
    for a, b in ((x.indptr, y.indptr), (x.indices, y.indices)):
        if a is not b and not bool(xp.array_equal(a, b)):
            return False
    return True


def _ewise_bitmaps(
    x: Vector, y: Vector, op: BinaryOp, *, union: bool, full: bool = False
) -> tuple[Any, Any]:
    """Element-wise over two bitmap vectors position by position: no key merge.

    On the CPU ``op`` also runs on the absent positions' placeholder values; those results are
    discarded (floating-point warnings there are silenced). On the GPU one kernel does it all,
    without reading the flags where both are ``full`` (known to hold every position).
    """
    xp = x.xp
    (xv, xpres), (yv, ypres) = x.as_bitmap(), y.as_bitmap()
    if xp is not np:  # one kernel instead of five or six array passes
        return ewise_bitmaps(xp, (xv, xpres), (yv, ypres), op, union=union, full=full)
    op_type = op.input_type(xv.dtype, yv.dtype)
    out_type = op.output_type(op_type)
    with _prim.quiet_placeholders():
        both = xp.asarray(
            op.numpy(xv.astype(op_type, copy=False), yv.astype(op_type, copy=False))
        ).astype(out_type, copy=False)
    if not union:
        return both, xpres & ypres
    single = xp.where(xpres, xv.astype(out_type, copy=False), yv.astype(out_type, copy=False))
    return xp.where(xpres & ypres, both, single), xpres | ypres


@names_oom("ewise_add")
def ewise_add(
    x: Any,
    y: Any,
    op: Any,
    *,
    mask: Any = None,
    accum: Any = None,
    replace: bool = False,
    out: Any = None,
) -> Any:
    """Element-wise "add" over the union of structures: ``op(x, y)`` where both are present,
    the present one where only one is (GrB_eWiseAdd).

    Parameters
    ----------
    x, y : Vector or Matrix
        Same kind and shape.
    op : BinaryOp, Monoid, Semiring (its add monoid) or str
    mask, accum, replace, out
        As in :func:`~hyblas.ops.mxv`.

    Examples
    --------
    >>> u = hb.Vector.from_coo([0, 1], [1.0, 2.0], size=4)
    >>> v = hb.Vector.from_coo([1, 3], [10.0, 30.0], size=4)
    >>> print(hb.ops.ewise_add(u, v, hb.binary.plus))  # union: a lone entry is kept as it is
    hyblas.Vector(size=4, nnz=3, dtype=float64, backend='cpu', format='bitmap')
      {0: 1.0, 1: 12.0, 3: 30.0}
    """
    return _ewise("ewise_add", x, y, op, mask, accum, replace, out, _red.ewise_union)


@names_oom("ewise_mult")
def ewise_mult(
    x: Any,
    y: Any,
    op: Any,
    *,
    mask: Any = None,
    accum: Any = None,
    replace: bool = False,
    out: Any = None,
) -> Any:
    """Element-wise "multiply" over the intersection of structures: ``op(x, y)`` where both are
    present (GrB_eWiseMult). Parameters as in :func:`ewise_add`.

    Examples
    --------
    >>> u = hb.Vector.from_coo([0, 1], [1.0, 2.0], size=4)
    >>> v = hb.Vector.from_coo([1, 3], [10.0, 30.0], size=4)
    >>> print(hb.ops.ewise_mult(u, v, hb.binary.times))  # intersection
    hyblas.Vector(size=4, nnz=1, dtype=float64, backend='cpu', format='bitmap')
      {1: 20.0}
    """
    return _ewise("ewise_mult", x, y, op, mask, accum, replace, out, _red.ewise_intersection)


@names_oom("inner")
def inner(u: Vector, v: Vector, semiring: Semiring | str) -> Any:
    """The inner product ``⊕_i u_i ⊗ v_i`` over the positions where both have an entry, as one
    NumPy scalar (python-graphblas's ``Vector.inner``); the add monoid's identity where the
    structures do not meet.

    The same as ``reduce_scalar(ewise_mult(u, v, semiring.binaryop), semiring.monoid)``, with
    no vector in between: on the GPU two bitmap vectors take one pass.

    Parameters
    ----------
    u, v : Vector
        Of one size.
    semiring : Semiring or str
        E.g. ``semiring.plus_times`` (the dot product) or ``"min_plus"``.

    Returns
    -------
    NumPy scalar
        Of the semiring's result type for ``u``'s and ``v``'s dtypes.

    Raises
    ------
    InvalidObject
        If ``u`` or ``v`` is not a Vector, or ``semiring`` is not a Semiring.
    InvalidValue
        If ``semiring`` names no semiring.
    DimensionMismatch
        If the sizes differ.
    BackendError
        If ``u`` and ``v`` live on different backends.

    Examples
    --------
    >>> u = hb.Vector.from_coo([0, 1, 2], [1.0, 2.0, 3.0], size=4)
    >>> v = hb.Vector.from_coo([1, 2, 3], [10.0, 20.0, 30.0], size=4)
    >>> print(hb.ops.inner(u, v, hb.semiring.plus_times))  # 2*10 + 3*20
    80.0
    >>> print(hb.ops.inner(u, v, "min_plus"))
    12.0
    """
    sr = checks.operator(semiring, (Semiring,), "semiring")
    checks.container(u, (Vector,), "u")
    checks.container(v, (Vector,), "v")
    if u.size != v.size:
        raise DimensionMismatch(f"inner: u has size {u.size} but v has size {v.size}")
    same_backend("inner", u=u, v=v)
    if u.xp is not np and u.format == "bitmap" and v.format == "bitmap":
        partials, found = inner_bitmaps(
            u.xp, u.as_bitmap(), v.as_bitmap(), sr, full=u.known_full() and v.known_full()
        )
        return _red.reduce_all(u.xp, partials, sr.monoid, present=found)
    # the product on the semiring's operand type; the monoid casts it to its own domain
    products = ewise_mult(u, v, sr.binaryop[sr.input_type(u.dtype, v.dtype)])
    return reduce_scalar(products, sr.monoid)
