"""Reductions: each row or column of a matrix to a vector, or every entry to one scalar."""

from __future__ import annotations

from typing import Any

from ..backend import names_oom
from ..containers.derived import heavy_rows, iso_value
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..device import reductions as _red
from ..operators.classes import Monoid
from . import checks
from .output import write_vector
from .spec import output_spec

__all__ = ["reduce_rows", "reduce_columns", "reduce_scalar"]


@names_oom("reduce_rows")
def reduce_rows(
    A: Matrix,
    monoid: Monoid | str,
    *,
    mask: Any = None,
    accum: Any = None,  # noqa: N803
    replace: bool = False,
    out: Vector | None = None,
) -> Vector:
    """``w_i = ⊕_j A_ij``: each row reduced with ``monoid``; empty rows give absent entries.

    Parameters
    ----------
    A : Matrix
    monoid : Monoid or str
    mask, accum, replace, out
        As in :func:`~hyblas.ops.mxv` (``out`` of size ``A.nrows``).

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 0], [1.0, 2.0, 3.0, 4.0], nrows=3, ncols=3)
    >>> print(hb.ops.reduce_rows(A, hb.monoid.plus))
    hyblas.Vector(size=3, nnz=3, dtype=float64, backend='cpu', format='bitmap')
      {0: 3.0, 1: 3.0, 2: 4.0}
    >>> print(hb.ops.reduce_rows(hb.Matrix.new("float64", 2, 2), "plus"))  # empty rows: absent
    hyblas.Vector(size=2, nnz=0, dtype=float64, backend='cpu', format='sparse')
    """
    mon = checks.monoid_of(monoid)
    checks.container(A, (Matrix,), "A")
    spec = output_spec(
        "reduce_rows", Vector, (A.nrows,), mask=mask, accum=accum, replace=replace, out=out, A=A
    )
    values, present = _red.reduce_csr_rows(
        A.xp, A.indptr, A.values, mon, iso=iso_value(A), heavy=heavy_rows(A)
    )
    return write_vector(spec, values, present)


@names_oom("reduce_columns")
def reduce_columns(
    A: Matrix,
    monoid: Monoid | str,
    *,
    mask: Any = None,
    accum: Any = None,  # noqa: N803
    replace: bool = False,
    out: Vector | None = None,
) -> Vector:
    """``w_j = ⊕_i A_ij``: each column reduced; parameters as in :func:`reduce_rows`.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 0], [1.0, 2.0, 3.0, 4.0], nrows=3, ncols=3)
    >>> print(hb.ops.reduce_columns(A, hb.monoid.max))
    hyblas.Vector(size=3, nnz=3, dtype=float64, backend='cpu', format='bitmap')
      {0: 4.0, 1: 1.0, 2: 3.0}
    """
    checks.container(A, (Matrix,), "A")
    return reduce_rows(A.T, monoid, mask=mask, accum=accum, replace=replace, out=out)


@names_oom("reduce_scalar")
def reduce_scalar(x: Any, monoid: Monoid | str) -> Any:
    """Every entry of a Vector or Matrix reduced to one NumPy scalar.

    An object without entries reduces to the monoid's identity (GrB_reduce with a monoid).

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 0], [1.0, 2.0, 3.0, 4.0], nrows=3, ncols=3)
    >>> hb.ops.reduce_scalar(A, hb.monoid.plus)
    np.float64(10.0)
    >>> hb.ops.reduce_scalar(hb.Vector.new("int64", 3), "plus")  # no entry: the identity
    np.int64(0)
    """
    mon = checks.monoid_of(monoid)
    checks.container(x, (Vector, Matrix), "x")
    if isinstance(x, Vector) and x.format == "bitmap":
        values, present = x.as_bitmap()
        return _red.reduce_all(x.xp, values, mon, present=present)
    values = x.values if isinstance(x, Matrix) else x.as_sparse()[1]  # no keys needed
    return _red.reduce_all(x.xp, values, mon)
