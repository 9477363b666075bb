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
    """``w = A ⊕.⊗ u``; see :func:`hyblas.ops.mxv`.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
    >>> u = hb.Vector.from_coo([0, 1], [1.0, 1.0], size=2)
    >>> A.mxv(u, "plus_times").to_coo()
    (array([0, 1]), array([3., 3.]))
    """
    return mxv(self, u, semiring, **kwargs)


def _matrix_mxm(self: Matrix, other: Matrix, semiring: Any, **kwargs: Any) -> Matrix:
    """``C = A ⊕.⊗ B``; see :func:`hyblas.ops.mxm`.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
    >>> A.mxm(A, "plus_times").to_coo()
    (array([0, 0, 1]), array([0, 1, 1]), array([1., 8., 9.]))
    """
    return mxm(self, other, semiring, **kwargs)


def _vector_vxm(self: Vector, matrix: Matrix, semiring: Any, **kwargs: Any) -> Vector:
    """``w = u ⊕.⊗ A``; see :func:`hyblas.ops.vxm`.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
    >>> u = hb.Vector.from_coo([0], [1.0], size=2)
    >>> u.vxm(A, "min_plus").to_coo()
    (array([0, 1]), array([2., 3.]))
    """
    return vxm(self, matrix, semiring, **kwargs)


def _ewise_add(self: Any, other: Any, op: Any, **kwargs: Any) -> Any:
    """Union of structures; see :func:`hyblas.ops.ewise_add`.

    Examples
    --------
    >>> u = hb.Vector.from_coo([0], [1.0], size=2)
    >>> u.ewise_add(hb.Vector.from_coo([1], [5.0], size=2), "plus").to_coo()
    (array([0, 1]), array([1., 5.]))
    """
    return ewise_add(self, other, op, **kwargs)


def _ewise_mult(self: Any, other: Any, op: Any, **kwargs: Any) -> Any:
    """Intersection of structures; see :func:`hyblas.ops.ewise_mult`.

    Examples
    --------
    >>> u = hb.Vector.from_coo([0, 1], [1.0, 2.0], size=2)
    >>> u.ewise_mult(hb.Vector.from_coo([1], [5.0], size=2), "times").to_coo()
    (array([1]), array([10.]))
    """
    return ewise_mult(self, other, op, **kwargs)


def _apply(self: Any, op: Any, **kwargs: Any) -> Any:
    """Apply an operator to every entry; see :func:`hyblas.ops.apply`.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
    >>> A.apply(hb.unary.ainv).to_coo()
    (array([0, 0, 1]), array([0, 1, 1]), array([-1., -2., -3.]))
    """
    return apply(self, op, **kwargs)


def _select(self: Any, op: Any, thunk: Any = 0, **kwargs: Any) -> Any:
    """Keep the entries an index-unary test accepts; see :func:`hyblas.ops.select`.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
    >>> A.select("offdiag").to_coo()
    (array([0]), array([1]), array([2.]))
    """
    return select(self, op, thunk, **kwargs)


def _reduce_rows(self: Matrix, monoid: Any, **kwargs: Any) -> Vector:
    """Reduce each row to one value; see :func:`hyblas.ops.reduce_rows`.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
    >>> A.reduce_rows("plus").to_coo()
    (array([0, 1]), array([3., 3.]))
    """
    return reduce_rows(self, monoid, **kwargs)


def _reduce_columns(self: Matrix, monoid: Any, **kwargs: Any) -> Vector:
    """Reduce each column to one value; see :func:`hyblas.ops.reduce_columns`.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
    >>> A.reduce_columns("min").to_coo()
    (array([0, 1]), array([1., 2.]))
    """
    return reduce_columns(self, monoid, **kwargs)


def _reduce_scalar(self: Any, monoid: Any) -> Any:
    """Reduce every entry to one value; see :func:`hyblas.ops.reduce_scalar`.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
    >>> A.reduce_scalar("max"), hb.Vector.from_coo([0, 1], [2, 3], size=4).reduce("times")
    (np.float64(3.0), np.int64(6))
    """
    return reduce_scalar(self, monoid)


def _inner(self: Vector, other: Vector, semiring: Any) -> Any:
    """The inner product over both structures; see :func:`hyblas.ops.inner`.

    Examples
    --------
    >>> u = hb.Vector.from_coo([0, 1], [1.0, 2.0], size=2)
    >>> u.inner(u, "plus_times")
    np.float64(5.0)
    """
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
