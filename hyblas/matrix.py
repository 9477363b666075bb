"""The sparse Matrix: canonical CSR on one backend, with lazily cached derived forms."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from .backend import cupyx_csr, is_cupyx_sparse, resolve, to_backend, to_numpy, xp_for
from .errors import BackendError, DimensionMismatch, IndexOutOfBounds, InvalidObject
from .ops import primitives as _prim
from .ops.mask import Mask
from .semiring.operators import BinaryOp

if TYPE_CHECKING:
    from .vector import Vector

__all__ = ["Matrix"]


def _as_index_array(xp: Any, data: Any, argument: str) -> Any:
    arr = to_backend(data, "cuda" if xp is not np else "cpu")
    if arr.ndim != 1:
        raise InvalidObject(f"{argument} must be one-dimensional, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and bool((arr == xp.floor(arr)).all()):
            arr = arr.astype(np.int64)
        else:
            raise InvalidObject(f"{argument} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def _check_bounds(xp: Any, indices: Any, extent: int, argument: str) -> None:
    if indices.size == 0:
        return
    low, high = int(indices.min()), int(indices.max())
    if low < 0 or high >= extent:
        bad = low if low < 0 else high
        raise IndexOutOfBounds(f"{argument} holds index {bad}, outside [0, {extent})")


def _values_array(xp: Any, values: Any, count: int, dtype: Any, argument: str) -> Any:
    """Values as a backend array of length ``count`` (a scalar is broadcast)."""
    target = None if dtype is None else _dt.lookup(dtype)
    if values is None:
        values = 1.0 if target is None else 1
    if np.isscalar(values) or (hasattr(values, "ndim") and values.ndim == 0):
        scalar_dtype = target if target is not None else _dt.lookup(np.asarray(values).dtype)
        return xp.full(count, values, dtype=scalar_dtype)
    arr = to_backend(values, "cuda" if xp is not np else "cpu")
    if arr.ndim != 1 or arr.size != count:
        raise DimensionMismatch(
            f"{argument} has shape {arr.shape} but there are {count} indices"
        )
    return arr.astype(target if target is not None else _dt.lookup(arr.dtype), copy=False)


class Matrix:
    """A sparse matrix in canonical CSR (sorted column indices, no duplicates).

    An entry that is not stored is absent (GraphBLAS "no value"), which differs from a stored 0.
    Build one with :meth:`from_coo`, :meth:`from_scipy`, :meth:`from_cupyx`, :meth:`from_dense`
    or :meth:`new`. Derived forms (transpose, executor layouts) are cached and dropped whenever
    the matrix changes.
    """

    __array_priority__ = 20  # keep NumPy from broadcasting over a Matrix in mixed expressions

    def __init__(
        self,
        indptr: Any,
        indices: Any,
        values: Any,
        shape: tuple[int, int],
        *,
        backend: str,
    ):
        self._backend = backend
        self._xp = xp_for(backend)
        self._nrows, self._ncols = int(shape[0]), int(shape[1])
        self._indptr = indptr
        self._indices = indices
        self._values = values
        self._dtype = _dt.lookup(values.dtype)
        self._cache: dict[Any, Any] = {}

    # --- construction ----------------------------------------------------------------------

    @classmethod
    def new(cls, dtype: Any, nrows: int, ncols: int, *, backend: str | None = None) -> Matrix:
        """An empty (no entries) ``nrows x ncols`` matrix of ``dtype``."""
        name = resolve(backend)
        xp = xp_for(name)
        _check_shape(nrows, ncols)
        idx = _prim.index_dtype(nrows, ncols)
        return cls(
            xp.zeros(nrows + 1, dtype=idx),
            xp.zeros(0, dtype=idx),
            xp.zeros(0, dtype=_dt.lookup(dtype)),
            (nrows, ncols),
            backend=name,
        )

    @classmethod
    def from_coo(
        cls,
        rows: Any,
        cols: Any,
        values: Any = None,
        *,
        nrows: int | None = None,
        ncols: int | None = None,
        dtype: Any = None,
        dup_op: BinaryOp | None = None,
        backend: str | None = None,
    ) -> Matrix:
        """Build a matrix from COO triplets.

        Parameters
        ----------
        rows, cols : array_like of int
        values : array_like or scalar, optional
            Default 1.0 (float64, or 1 of ``dtype``).
        nrows, ncols : int, optional
            Default: one past the largest index.
        dtype : dtype, optional
        dup_op : BinaryOp, optional
            Combines values of repeated (row, col) pairs; without it, repeats raise.
        backend : {'cpu', 'cuda'}, optional
            Default: :func:`hyblas.backend`.

        Raises
        ------
        InvalidValue
            Repeated (row, col) pairs and no ``dup_op``.
        IndexOutOfBounds, DimensionMismatch, InvalidObject, DomainMismatch
        """
        name = resolve(backend)
        xp = xp_for(name)
        r = _as_index_array(xp, rows, "rows")
        c = _as_index_array(xp, cols, "cols")
        if r.size != c.size:
            raise DimensionMismatch(f"rows has {r.size} entries but cols has {c.size}")
        vals = _values_array(xp, values, r.size, dtype, "values")
        nrows = int(r.max()) + 1 if nrows is None and r.size else (nrows or 0)
        ncols = int(c.max()) + 1 if ncols is None and c.size else (ncols or 0)
        _check_shape(nrows, ncols)
        _check_bounds(xp, r, nrows, "rows")
        _check_bounds(xp, c, ncols, "cols")
        if dup_op is not None and not isinstance(dup_op, BinaryOp):
            raise InvalidObject(f"dup_op must be a BinaryOp, got {dup_op!r}")
        indptr, indices, vals = _prim.coo_to_csr(xp, r, c, vals, nrows, ncols, dup_op)
        return cls(indptr, indices, vals, (nrows, ncols), backend=name)

    @classmethod
    def from_scipy(cls, matrix: Any, *, dtype: Any = None, backend: str | None = None) -> Matrix:
        """A copy of a scipy.sparse matrix or array (explicit zeros stay stored entries)."""
        import scipy.sparse as sp  # noqa: PLC0415 - scipy is only needed for interop

        if not sp.issparse(matrix):
            raise InvalidObject(f"expected a scipy.sparse matrix, got {type(matrix).__name__}")
        csr = sp.csr_array(matrix)
        csr.sum_duplicates()
        csr.sort_indices()
        name = resolve(backend)
        idx = _prim.index_dtype(csr.nnz, *csr.shape)
        target = _dt.lookup(dtype if dtype is not None else csr.dtype, argument="matrix")
        return cls(
            to_backend(csr.indptr.astype(idx), name),
            to_backend(csr.indices.astype(idx), name),
            to_backend(csr.data.astype(target), name),
            csr.shape,
            backend=name,
        )

    @classmethod
    def from_cupyx(cls, matrix: Any, *, dtype: Any = None) -> Matrix:
        """A copy of a cupyx.scipy.sparse matrix, kept on the GPU."""
        if not is_cupyx_sparse(matrix):
            raise InvalidObject(f"expected a cupyx.scipy.sparse matrix, got {type(matrix)}")
        csr = matrix.tocsr(copy=True)
        csr.sum_duplicates()
        target = _dt.lookup(dtype if dtype is not None else csr.dtype, argument="matrix")
        idx = _prim.index_dtype(csr.nnz, *csr.shape)
        return cls(
            csr.indptr.astype(idx),
            csr.indices.astype(idx),
            csr.data.astype(target),
            csr.shape,
            backend="cuda",
        )

    @classmethod
    def from_dense(
        cls, array: Any, *, missing_value: Any = None, backend: str | None = None
    ) -> Matrix:
        """Every element of a 2-D array as an entry, except those equal to ``missing_value``."""
        name = resolve(backend)
        xp = xp_for(name)
        arr = to_backend(array, name)
        if arr.ndim != 2:
            raise InvalidObject(f"array must be two-dimensional, got shape {arr.shape}")
        keep = xp.ones(arr.shape, dtype=bool) if missing_value is None else arr != missing_value
        rows, cols = xp.nonzero(keep)
        return cls.from_coo(rows, cols, arr[rows, cols], nrows=arr.shape[0],
                            ncols=arr.shape[1], dtype=arr.dtype, backend=name)  # fmt: skip

    # --- properties ------------------------------------------------------------------------

    @property
    def nrows(self) -> int:
        """Number of rows."""
        return self._nrows

    @property
    def ncols(self) -> int:
        """Number of columns."""
        return self._ncols

    @property
    def shape(self) -> tuple[int, int]:
        """``(nrows, ncols)``."""
        return (self._nrows, self._ncols)

    @property
    def nnz(self) -> int:
        """Number of stored entries."""
        return int(self._values.size)

    @property
    def dtype(self) -> np.dtype:
        """The value type."""
        return self._dtype

    @property
    def backend(self) -> str:
        """``'cpu'`` or ``'cuda'``: where the arrays live."""
        return self._backend

    @property
    def S(self) -> Mask:  # noqa: N802 - GraphBLAS spelling
        """Structural mask view: an entry allows output wherever it is stored."""
        return Mask(self, structural=True)

    @property
    def V(self) -> Mask:  # noqa: N802 - GraphBLAS spelling
        """Value mask view: an entry allows output where it is stored and nonzero."""
        return Mask(self, structural=False)

    def __invert__(self) -> Mask:
        return Mask(self, structural=False, complement=True)

    @property
    def T(self) -> Matrix:  # noqa: N802 - scipy / numpy spelling
        """The transpose (computed once and cached until this matrix changes)."""
        at_hand = self._transpose_at_hand()
        if at_hand is not None:
            return at_hand
        indptr, indices, values = self._csr_of_transpose()
        transpose = Matrix(indptr, indices, values, (self._ncols, self._nrows),
                           backend=self._backend)  # fmt: skip
        # the transpose's own transpose is this matrix: a weak link, so that dropping this
        # matrix frees its device memory at once (a strong one would make a reference cycle)
        transpose._cache["transpose_of"] = weakref.ref(self)
        self._cache["T"] = transpose
        return transpose

    def _transpose_at_hand(self) -> Matrix | None:
        """The transpose if it exists without computing it: cached, or the matrix this one is
        the cached transpose of (None otherwise)."""
        cached = self._cache.get("T")
        if cached is not None:
            return cached
        origin = self._cache.get("transpose_of")
        return origin() if origin is not None else None

    def _csr_of_transpose(self) -> tuple[Any, Any, Any]:
        return _prim.transpose_csr(self._xp, self._indptr, self._indices, self._values,
                                   self._nrows, self._ncols)  # fmt: skip

    # --- export ----------------------------------------------------------------------------

    def to_coo(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(rows, cols, values)`` as NumPy arrays, in row-major order."""
        rows = _prim.row_ids(self._xp, self._indptr, self._nrows)
        return (
            to_numpy(rows),
            to_numpy(self._indices).astype(np.int64),
            to_numpy(self._values),
        )

    def to_scipy(self) -> Any:
        """A ``scipy.sparse.csr_array`` copy (on the host)."""
        import scipy.sparse as sp  # noqa: PLC0415

        return sp.csr_array(
            (
                to_numpy(self._values).copy(),
                to_numpy(self._indices).copy(),
                to_numpy(self._indptr).copy(),
            ),
            shape=self.shape,
        )

    def to_cupyx(self) -> Any:
        """A ``cupyx.scipy.sparse.csr_matrix`` copy (cuda backend only)."""
        if self._backend != "cuda":
            raise BackendError("to_cupyx() needs a matrix on the 'cuda' backend")
        return cupyx_csr(self._indptr.astype(np.int32), self._indices.astype(np.int32),
                                  self._values.copy(), self.shape)  # fmt: skip

    def to_dense(self, fill_value: Any = 0) -> np.ndarray:
        """A NumPy 2-D array with absent entries set to ``fill_value``."""
        rows, cols, values = self.to_coo()
        dtype = np.result_type(self._dtype, np.min_scalar_type(fill_value))
        out = np.full(self.shape, fill_value, dtype=dtype)
        out[rows, cols] = values
        return out

    def to_backend(self, name: str) -> Matrix:
        """This matrix on backend ``name`` (self if already there)."""
        name = resolve(name)
        if name == self._backend:
            return self
        return Matrix(to_backend(self._indptr, name),
                      to_backend(self._indices, name),
                      to_backend(self._values, name), self.shape,
                      backend=name)  # fmt: skip

    def dup(self, dtype: Any = None) -> Matrix:
        """A deep copy, optionally cast to ``dtype``."""
        target = self._dtype if dtype is None else _dt.lookup(dtype)
        return Matrix(self._indptr.copy(), self._indices.copy(), self._values.astype(target),
                      self.shape, backend=self._backend)  # fmt: skip

    def isequal(self, other: Matrix, *, check_dtype: bool = False) -> bool:
        """Same shape, same stored entries and equal values (and dtype, if asked)."""
        if not isinstance(other, Matrix):
            raise InvalidObject(f"isequal expects a Matrix, got {type(other).__name__}")
        if self.shape != other.shape or self.nnz != other.nnz:
            return False
        if check_dtype and self._dtype != other._dtype:
            return False
        o = other.to_backend(self._backend)
        xp = self._xp
        return bool(xp.array_equal(self._indptr.astype(np.int64), o._indptr.astype(np.int64))
                    and xp.array_equal(self._indices, o._indices)
                    and xp.array_equal(self._values, o._values))  # fmt: skip

    def isclose(self, other: Matrix, *, rel_tol: float = 1e-7, abs_tol: float = 0.0) -> bool:
        """Same structure, values equal within tolerances."""
        if not isinstance(other, Matrix):
            raise InvalidObject(f"isclose expects a Matrix, got {type(other).__name__}")
        if self.shape != other.shape or self.nnz != other.nnz:
            return False
        o = other.to_backend(self._backend)
        xp = self._xp
        if not (xp.array_equal(self._indptr.astype(np.int64), o._indptr.astype(np.int64))
                and xp.array_equal(self._indices, o._indices)):  # fmt: skip
            return False
        return bool(xp.allclose(self._values, o._values, rtol=rel_tol, atol=abs_tol,
                                equal_nan=True))  # fmt: skip

    # --- mutation (used by operations writing into an existing matrix) ----------------------

    def _set_content(self, indptr: Any, indices: Any, values: Any) -> None:
        """Replace the entries (same shape and dtype), dropping every cached derived form."""
        self._indptr, self._indices, self._values = indptr, indices, values
        # the cached transpose (kept by whoever holds it) is no longer this matrix's transpose,
        # nor is this matrix the transpose of the one it came from
        transpose = self._cache.get("T")
        if transpose is not None:
            transpose._cache.pop("transpose_of", None)
        origin = self._cache.get("transpose_of")
        source = origin() if origin is not None else None
        if source is not None and source._cache.get("T") is self:
            source._cache.pop("T")
        self._cache.clear()

    def clear(self) -> None:
        """Remove every entry."""
        xp = self._xp
        self._set_content(xp.zeros_like(self._indptr), self._indices[:0].copy(),
                          self._values[:0].copy())  # fmt: skip

    # --- operations as methods ---------------------------------------------------------------

    def mxv(self, u: Vector, semiring: Any, **kwargs: Any) -> Vector:
        """``w = A ⊕.⊗ u``; see :func:`hyblas.ops.mxv`."""
        from .ops import api  # noqa: PLC0415 - the api module imports this one

        return api.mxv(self, u, semiring, **kwargs)

    def mxm(self, other: Matrix, semiring: Any, **kwargs: Any) -> Matrix:
        """``C = A ⊕.⊗ B``; see :func:`hyblas.ops.mxm`."""
        from .ops import api  # noqa: PLC0415

        return api.mxm(self, other, semiring, **kwargs)

    def ewise_add(self, other: Matrix, op: Any, **kwargs: Any) -> Matrix:
        """Union of structures; see :func:`hyblas.ops.ewise_add`."""
        from .ops import api  # noqa: PLC0415

        return api.ewise_add(self, other, op, **kwargs)

    def ewise_mult(self, other: Matrix, op: Any, **kwargs: Any) -> Matrix:
        """Intersection of structures; see :func:`hyblas.ops.ewise_mult`."""
        from .ops import api  # noqa: PLC0415

        return api.ewise_mult(self, other, op, **kwargs)

    def apply(self, op: Any, **kwargs: Any) -> Matrix:
        """Apply an operator to every entry; see :func:`hyblas.ops.apply`."""
        from .ops import api  # noqa: PLC0415

        return api.apply(self, op, **kwargs)

    def select(self, op: Any, thunk: Any = 0, **kwargs: Any) -> Matrix:
        """Keep the entries an index-unary test accepts; see :func:`hyblas.ops.select`."""
        from .ops import api  # noqa: PLC0415

        return api.select(self, op, thunk, **kwargs)

    def reduce_rows(self, monoid: Any, **kwargs: Any) -> Vector:
        """Reduce each row to one value; see :func:`hyblas.ops.reduce_rows`."""
        from .ops import api  # noqa: PLC0415

        return api.reduce_rows(self, monoid, **kwargs)

    def reduce_columns(self, monoid: Any, **kwargs: Any) -> Vector:
        """Reduce each column to one value; see :func:`hyblas.ops.reduce_columns`."""
        from .ops import api  # noqa: PLC0415

        return api.reduce_columns(self, monoid, **kwargs)

    def reduce_scalar(self, monoid: Any) -> Any:
        """Reduce every entry to one value; see :func:`hyblas.ops.reduce_scalar`."""
        from .ops import api  # noqa: PLC0415

        return api.reduce_scalar(self, monoid)

    # --- display -------------------------------------------------------------------------------

    def __repr__(self) -> str:
        head = (f"hyblas.Matrix(nrows={self._nrows}, ncols={self._ncols}, nnz={self.nnz}, "
                f"dtype={self._dtype.name}, backend={self._backend!r})")  # fmt: skip
        if self.nnz == 0 or self.nnz > 8:
            return head
        rows, cols, values = self.to_coo()
        entries = ", ".join(f"({r},{c}): {v!r}" for r, c, v in zip(rows, cols, values.tolist()))
        return f"{head}\n  {{{entries}}}"

    def _repr_html_(self) -> str:
        """Jupyter's view: shape, nnz, dtype, backend, memory and a spy picture."""
        from .display import matrix_html  # noqa: PLC0415 - display imports this module

        return matrix_html(self)

    def __len__(self) -> int:
        raise TypeError("len() of a Matrix is ambiguous; use nrows, ncols or nnz")

    def __bool__(self) -> bool:
        raise TypeError("the truth value of a Matrix is ambiguous; use nnz or isequal")


def _check_shape(nrows: Any, ncols: Any) -> None:
    for name, value in (("nrows", nrows), ("ncols", ncols)):
        if not isinstance(value, int | np.integer) or value < 0:
            raise InvalidObject(f"{name} must be a non-negative integer, got {value!r}")
