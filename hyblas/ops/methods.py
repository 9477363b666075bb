"""The operations as methods of the containers (``A.mxv(u, semiring)``, ``v.vxm(A, semiring)``,
...), attached here at import: the containers know nothing of the operations."""

from __future__ import annotations

from typing import Any

from ..containers.matrix import Matrix
from ..containers.vector import Vector
from .elementwise import ewise_add, ewise_mult, inner
from .products import mxm, mxv, vxm
from .reductions import reduce_columns, reduce_rows, reduce_scalar
from .transform import apply, select

__all__ = ["attach", "MATRIX_METHODS", "VECTOR_METHODS"]


def _matrix_mxv(self: Matrix, u: Vector, semiring: Any, **kwargs: Any) -> Vector:
    """``w = A ⊕.⊗ u``; see :func:`hyblas.ops.mxv`."""
    return mxv(self, u, semiring, **kwargs)


def _matrix_mxm(self: Matrix, other: Matrix, semiring: Any, **kwargs: Any) -> Matrix:
    """``C = A ⊕.⊗ B``; see :func:`hyblas.ops.mxm`."""
    return mxm(self, other, semiring, **kwargs)


def _vector_vxm(self: Vector, matrix: Matrix, semiring: Any, **kwargs: Any) -> Vector:
    """``w = u ⊕.⊗ A``; see :func:`hyblas.ops.vxm`."""
    return vxm(self, matrix, semiring, **kwargs)


def _ewise_add(self: Any, other: Any, op: Any, **kwargs: Any) -> Any:
    """Union of structures; see :func:`hyblas.ops.ewise_add`."""
    return ewise_add(self, other, op, **kwargs)


def _ewise_mult(self: Any, other: Any, op: Any, **kwargs: Any) -> Any:
    """Intersection of structures; see :func:`hyblas.ops.ewise_mult`."""
    return ewise_mult(self, other, op, **kwargs)


def _apply(self: Any, op: Any, **kwargs: Any) -> Any:
    """Apply an operator to every entry; see :func:`hyblas.ops.apply`."""
    return apply(self, op, **kwargs)


def _select(self: Any, op: Any, thunk: Any = 0, **kwargs: Any) -> Any:
    """Keep the entries an index-unary test accepts; see :func:`hyblas.ops.select`."""
    return select(self, op, thunk, **kwargs)


def _reduce_rows(self: Matrix, monoid: Any, **kwargs: Any) -> Vector:
    """Reduce each row to one value; see :func:`hyblas.ops.reduce_rows`."""
    return reduce_rows(self, monoid, **kwargs)


def _reduce_columns(self: Matrix, monoid: Any, **kwargs: Any) -> Vector:
    """Reduce each column to one value; see :func:`hyblas.ops.reduce_columns`."""
    return reduce_columns(self, monoid, **kwargs)


def _reduce_scalar(self: Any, monoid: Any) -> Any:
    """Reduce every entry to one value; see :func:`hyblas.ops.reduce_scalar`."""
    return reduce_scalar(self, monoid)


def _inner(self: Vector, other: Vector, semiring: Any) -> Any:
    """The inner product over both structures; see :func:`hyblas.ops.inner`."""
    return inner(self, other, semiring)


MATRIX_METHODS = {
    "mxv": _matrix_mxv,
    "mxm": _matrix_mxm,
    "ewise_add": _ewise_add,
    "ewise_mult": _ewise_mult,
    "apply": _apply,
    "select": _select,
    "reduce_rows": _reduce_rows,
    "reduce_columns": _reduce_columns,
    "reduce_scalar": _reduce_scalar,
}
VECTOR_METHODS = {
    "vxm": _vector_vxm,
    "ewise_add": _ewise_add,
    "ewise_mult": _ewise_mult,
    "apply": _apply,
    "select": _select,
    "reduce": _reduce_scalar,
    "inner": _inner,
}


def attach() -> None:
    """Give Matrix and Vector their operation methods."""
    for cls, methods in ((Matrix, MATRIX_METHODS), (Vector, VECTOR_METHODS)):
        for name, function in methods.items():
            setattr(cls, name, function)
