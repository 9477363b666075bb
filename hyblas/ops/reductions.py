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
    """``w_j = ⊕_i A_ij``: each column reduced; parameters as in :func:`reduce_rows`."""
    checks.container(A, (Matrix,), "A")
    return reduce_rows(A.T, monoid, mask=mask, accum=accum, replace=replace, out=out)


@names_oom("reduce_scalar")
def reduce_scalar(x: Any, monoid: Monoid | str) -> Any:
    """Every entry of a Vector or Matrix reduced to one NumPy scalar.

    An object without entries reduces to the monoid's identity (GrB_reduce with a monoid).
    """
    mon = checks.monoid_of(monoid)
    checks.container(x, (Vector, Matrix), "x")
    if isinstance(x, Vector) and x.format == "bitmap":
        values, present = x.as_bitmap()
        return _red.reduce_all(x.xp, values, mon, present=present)
    values = x.values if isinstance(x, Matrix) else x.as_sparse()[1]  # no keys needed
    return _red.reduce_all(x.xp, values, mon)
