"""The sparse Matrix: canonical CSR on one backend, with lazily cached derived forms."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import (
    cupyx_csr,
    host_copy,
    is_cupyx_sparse,
    resolve,
    to_backend,
    to_numpy,
    translate_oom,
    xp_for,
)
from ..device import arrays as _prim
from ..errors import BackendError, DimensionMismatch, InvalidObject, InvalidValue
from ..operators.classes import BinaryOp
from .arguments import (
    array_of,
    as_index_array,
    cast_values,
    check_bounds,
    check_dup_op,
    check_scalar,
    check_shape,
    check_tolerance,
    present_unless,
    values_array,
)
from .dense import dense_dtype
from .derived import FACTS, known_symmetric_values
from .held import held_bytes
from .mask import Mask

__all__ = ["Matrix"]


class Matrix:
    """A sparse matrix in canonical CSR (sorted column indices, no duplicates).

    An entry that is not stored is absent (GraphBLAS "no value"), which differs from a stored 0.
    Build one with :meth:`from_coo`, :meth:`from_scipy`, :meth:`from_cupyx`, :meth:`from_dense`
    or :meth:`new`. Derived forms (transpose, executor layouts) are cached and dropped whenever
    the matrix changes.

    Notes
    -----
    The internal interface: hyblas's operations and executors read a matrix through these members
    only (not part of the user API; the arrays must not be written): :attr:`xp`, :attr:`indptr`,
    :attr:`indices`, :attr:`values`, :attr:`cache`, :meth:`transpose_at_hand`, and replace its
    entries with :meth:`set_storage`. The constructor ``Matrix(indptr, indices, values, shape,
    backend=...)`` takes canonical CSR arrays as they are (no checks, no copies).
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
        """An empty (no entries) ``nrows x ncols`` matrix of ``dtype``.

        Examples
        --------
        >>> A = hb.Matrix.new("int32", 2, 3)
        >>> A.shape, A.nnz, A.dtype
        ((2, 3), 0, dtype('int32'))
        """
        name = resolve(backend)
        xp = xp_for(name)
        check_shape(nrows, ncols)
        dt = _dt.lookup(dtype)
        idx = _prim.index_dtype(nrows, ncols)
        what = f"building an empty {nrows}x{ncols} Matrix (its {nrows + 1} row pointers)"
        _prim.check_fits(nrows + 1, idx, what)
        with translate_oom(what):
            indptr = xp.zeros(nrows + 1, dtype=idx)
        return cls(
            indptr, xp.zeros(0, dtype=idx), xp.zeros(0, dtype=dt), (nrows, ncols), backend=name
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
            Default 1.0 (float64, or 1 of ``dtype``). A list's Python ints go into an integer
            ``dtype`` exactly (not through the float64 NumPy infers for ints beyond int64).
        nrows, ncols : int, optional
            Default: one past the largest index.
        dtype : dtype, optional
        dup_op : BinaryOp, optional
            Combines values of repeated (row, col) pairs, in the order given; without it,
            repeats raise. It must take and give the values' dtype (``binary.plus``,
            ``binary.first``...; not ``binary.bor`` on floats nor ``binary.lt``).
        backend : {'cpu', 'cuda'}, optional
            Default: :func:`hyblas.backend`.

        Raises
        ------
        InvalidValue
            Repeated (row, col) pairs and no ``dup_op``; a value ``dtype`` cannot hold (not an
            integer of an integer ``dtype``, out of its range, or overflowing a float one).
        DomainMismatch
            If ``dup_op`` does not take and give the values' dtype (checked before any work),
            or for a value of no hyblas type (a str, an int beyond 64 bits).
        IndexOutOfBounds, DimensionMismatch, InvalidObject
        OutOfMemory
            If the matrix does not fit in memory.

        The arrays given are never written, and the matrix keeps copies of them.

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 2, 1], [1.0, 2.0, 3.0])
        >>> print(A)
        hyblas.Matrix(nrows=2, ncols=3, nnz=3, dtype=float64, backend='cpu')
          {(0,0): 1.0, (0,2): 2.0, (1,1): 3.0}
        >>> P = hb.Matrix.from_coo([0, 1], [1, 0], nrows=3, ncols=3)  # no values: 1.0 each
        >>> P.dtype, P.shape
        (dtype('float64'), (3, 3))
        """
        name = resolve(backend)
        xp = xp_for(name)
        r = as_index_array(xp, rows, "rows")
        c = as_index_array(xp, cols, "cols")
        if r.size != c.size:
            raise DimensionMismatch(f"rows has {r.size} entries but cols has {c.size}")
        vals = values_array(xp, values, r.size, dtype, "values")
        if dup_op is not None:
            check_dup_op(dup_op, vals.dtype)
        nrows = int(r.max()) + 1 if nrows is None and r.size else (0 if nrows is None else nrows)
        ncols = int(c.max()) + 1 if ncols is None and c.size else (0 if ncols is None else ncols)
        check_shape(nrows, ncols)
        check_bounds(xp, r, nrows, "rows")
        check_bounds(xp, c, ncols, "cols")
        with translate_oom(f"building a {nrows}x{ncols} Matrix of {r.size} entries"):
            indptr, indices, vals = _prim.coo_to_csr(xp, r, c, vals, nrows, ncols, dup_op)
        return cls(indptr, indices, vals, (nrows, ncols), backend=name)

    @classmethod
    def from_scipy(cls, matrix: Any, *, dtype: Any = None, backend: str | None = None) -> Matrix:
        """A copy of a scipy.sparse matrix or array (explicit zeros stay stored entries;
        repeated entries are summed, as scipy does). ``matrix`` itself is not changed.

        Raises
        ------
        InvalidObject
            If ``matrix`` is not a two-dimensional scipy.sparse matrix.
        InvalidValue
            If it is malformed (indices out of range, inconsistent arrays), or holds a value
            ``dtype`` cannot hold.
        DomainMismatch
            For a value type hyblas does not store.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> A = hb.Matrix.from_scipy(sp.csr_array([[0.0, 2.0], [3.0, 0.0]]))
        >>> A.to_coo()
        (array([0, 1]), array([1, 0]), array([2., 3.]))
        """
        import scipy.sparse as sp  # noqa: PLC0415 - scipy is only needed for interop

        if not sp.issparse(matrix):
            raise InvalidObject(f"expected a scipy.sparse matrix, got {type(matrix).__name__}")
        if matrix.ndim != 2:
            raise InvalidObject(f"expected a two-dimensional matrix, got shape {matrix.shape}")
        own = _dt.lookup(matrix.dtype, argument="matrix")
        target = _dt.lookup(dtype, argument="dtype") if dtype is not None else own
        name = resolve(backend)
        nrows, ncols = matrix.shape
        check_shape(int(nrows), int(ncols))
        with translate_oom(f"copying a {nrows}x{ncols} scipy matrix of {matrix.nnz} entries"):
            try:
                # a copy: sum_duplicates and sort_indices work in place, and a csr input would
                # share its arrays with the conversion
                csr = sp.csr_array(matrix, copy=True)
                csr.check_format(full_check=True)
            except ValueError as exc:
                raise InvalidValue(
                    f"matrix is not a well-formed scipy.sparse matrix: {exc}"
                ) from exc
            csr.sum_duplicates()
            csr.sort_indices()
            idx = _prim.index_dtype(csr.nnz, nrows, ncols)
            return cls(
                to_backend(csr.indptr.astype(idx), name),
                to_backend(csr.indices.astype(idx), name),
                to_backend(cast_values(np, csr.data, target, "matrix"), name),  # the copy's own
                (int(nrows), int(ncols)),
                backend=name,
            )

    @classmethod
    def from_cupyx(cls, matrix: Any, *, dtype: Any = None) -> Matrix:
        """A copy of a cupyx.scipy.sparse matrix, kept on the GPU (repeated entries summed);
        ``matrix`` itself is not changed.

        Examples
        --------
        >>> import cupyx.scipy.sparse as csp  # doctest: +SKIP
        >>> A = hb.Matrix.from_cupyx(csp.eye(3, format="csr"))  # doctest: +SKIP
        >>> A.backend  # doctest: +SKIP
        'cuda'
        """
        if not is_cupyx_sparse(matrix):
            raise InvalidObject(f"expected a cupyx.scipy.sparse matrix, got {type(matrix)}")
        own = _dt.lookup(matrix.dtype, argument="matrix")
        target = _dt.lookup(dtype, argument="dtype") if dtype is not None else own
        nrows, ncols = (int(n) for n in matrix.shape)
        with translate_oom(f"copying a {nrows}x{ncols} cupyx matrix of {matrix.nnz} entries"):
            csr = matrix.tocsr(copy=True)  # a copy: sum_duplicates works in place
            if csr is matrix or csr.data is matrix.data:
                csr = csr.copy()
            csr.sum_duplicates()
            csr.sort_indices()
            idx = _prim.index_dtype(csr.nnz, nrows, ncols)
            return cls(
                csr.indptr.astype(idx),
                csr.indices.astype(idx),
                cast_values(xp_for("cuda"), csr.data, target, "matrix"),  # the copy's own
                (nrows, ncols),
                backend="cuda",
            )

    @classmethod
    def from_dense(
        cls, array: Any, *, missing_value: Any = None, backend: str | None = None
    ) -> Matrix:
        """Every element of a 2-D array as an entry, except those equal to ``missing_value``
        (NaN: the NaN elements). ``array`` is not changed, nor shared.

        Examples
        --------
        >>> A = hb.Matrix.from_dense(np.array([[0.0, 1.5], [2.0, 0.0]]), missing_value=0.0)
        >>> print(A)
        hyblas.Matrix(nrows=2, ncols=2, nnz=2, dtype=float64, backend='cpu')
          {(0,1): 1.5, (1,0): 2.0}
        >>> hb.Matrix.from_dense(np.eye(2)).nnz  # without missing_value every element is an entry
        4
        """
        name = resolve(backend)
        xp = xp_for(name)
        arr = array_of(array, "array", "numbers")
        if arr.ndim != 2:
            raise InvalidObject(f"array must be two-dimensional, got shape {arr.shape}")
        _dt.lookup(arr.dtype, argument="array")
        arr = to_backend(arr, name)
        keep = present_unless(xp, arr, missing_value)
        with translate_oom(f"building a {arr.shape[0]}x{arr.shape[1]} Matrix from a dense array"):
            rows, cols = xp.nonzero(keep)
            return cls.from_coo(
                rows,
                cols,
                arr[rows, cols],
                nrows=arr.shape[0],
                ncols=arr.shape[1],
                dtype=arr.dtype,
                backend=name,
            )

    # --- internal interface (for hyblas's operations and executors) ----------------------------

    @property
    def xp(self) -> Any:
        """The array module of the matrix's backend (numpy or cupy)."""
        return self._xp

    @property
    def indptr(self) -> Any:
        """The CSR row pointers (the matrix's own array: read only)."""
        return self._indptr

    @property
    def indices(self) -> Any:
        """The CSR column indices, ascending within each row (read only)."""
        return self._indices

    @property
    def values(self) -> Any:
        """The stored values, in CSR order (read only)."""
        return self._values

    @property
    def cache(self) -> dict[Any, Any]:
        """Derived forms cached on the matrix (layouts, degrees, the transpose...), keyed by
        whoever caches them; emptied whenever the entries change."""
        return self._cache

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
        """The transpose (computed once and cached until this matrix changes); the matrix
        itself where it is known to equal its transpose (an undirected Graph's matrix whose
        values are all one, or agree with their mirror as ``random_weights`` makes them)."""
        at_hand = self.transpose_at_hand()
        if at_hand is not None:
            return at_hand
        indptr, indices, values = self._csr_of_transpose()
        transpose = Matrix(
            indptr, indices, values, (self._ncols, self._nrows), backend=self._backend
        )
        # the transpose's own transpose is this matrix: a weak link, so that dropping this
        # matrix frees its device memory at once (a strong one would make a reference cycle)
        transpose._cache["transpose_of"] = weakref.ref(self)
        self._cache["T"] = transpose
        return transpose

    def transpose_at_hand(self) -> Matrix | None:
        """The transpose if it exists without computing it: this matrix where it is known to
        equal its transpose, its cached transpose, or the matrix this one is the cached
        transpose of (None otherwise)."""
        if known_symmetric_values(self):
            return self
        cached = self._cache.get("T")
        if cached is not None:
            return cached
        origin = self._cache.get("transpose_of")
        return origin() if origin is not None else None

    def _csr_of_transpose(self) -> tuple[Any, Any, Any]:
        shape = f"{self._ncols}x{self._nrows}"
        with translate_oom(f"building the {shape} transpose (its {self._ncols + 1} row pointers)"):
            return _prim.transpose_csr(
                self._xp, self._indptr, self._indices, self._values, self._nrows, self._ncols
            )

    # --- export ----------------------------------------------------------------------------

    def to_coo(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(rows, cols, values)`` as NumPy arrays, in row-major order.

        New arrays, the caller's own: writing into them does not change the matrix (as
        :meth:`to_dense`, :meth:`to_scipy` and :meth:`to_cupyx` give copies; only the
        internal :attr:`indptr`, :attr:`indices` and :attr:`values` are the matrix's own).

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
        >>> rows, cols, values = A.to_coo()
        >>> rows, cols, values
        (array([0, 0, 1]), array([0, 1, 1]), array([1., 2., 3.]))
        """
        rows, cols, values = self._host_coo()
        return rows, cols, host_copy(self._values) if values is self._values else values

    def _host_coo(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(rows, cols, values)`` on the host; ``values`` may be the matrix's own (read
        only)."""
        return (
            _prim.host_row_ids(self._xp, self._indptr),
            to_numpy(self._indices).astype(np.int64),  # a copy, whatever the index dtype
            to_numpy(self._values),
        )

    def to_scipy(self) -> Any:
        """A ``scipy.sparse.csr_array`` copy (on the host).

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
        >>> A.to_scipy().toarray()
        array([[1., 2.],
               [0., 3.]])
        """
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
        """A ``cupyx.scipy.sparse.csr_matrix`` copy (cuda backend only).

        Raises
        ------
        DimensionMismatch
            If the shape or the number of entries does not fit the int32 indices of cupyx.

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], backend="cuda")  # doctest: +SKIP
        >>> A.to_cupyx().toarray()  # doctest: +SKIP
        array([[0., 1.],
               [2., 0.]])
        """
        if self._backend != "cuda":
            raise BackendError("to_cupyx() needs a matrix on the 'cuda' backend")
        if _prim.index_dtype(self.nnz, *self.shape) != np.int32:
            raise DimensionMismatch(
                f"to_cupyx: a {self._nrows}x{self._ncols} matrix of {self.nnz} entries does "
                f"not fit cupyx's int32 indices (each must be below {np.iinfo(np.int32).max})"
            )
        return cupyx_csr(
            self._indptr.astype(np.int32),
            self._indices.astype(np.int32),
            self._values.copy(),
            self.shape,
        )

    def to_dense(self, fill_value: Any = 0) -> np.ndarray:
        """A NumPy 2-D array with absent entries set to ``fill_value`` (a number or a bool).

        The array has the matrix's dtype where that holds ``fill_value`` (a float one rounds
        a float fill), else the type of both (a bool or int8 matrix with fill 0.5: float64;
        a uint8 one with fill -1: int16), never one that changes a stored value (see
        :mod:`hyblas.containers.dense`).

        Raises
        ------
        InvalidObject
            If ``fill_value`` is not a number or a bool.
        InvalidValue
            If no dtype holds both the fill and every stored value exactly (a uint64 matrix
            holding 2**62 + 1, with fill -1: float64 would round it).
        OutOfMemory
            If the array does not fit in memory.

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
        >>> A.to_dense()  # absent entries as 0
        array([[1., 2.],
               [0., 3.]])
        >>> A.to_dense(fill_value=np.nan)
        array([[ 1.,  2.],
               [nan,  3.]])
        """
        check_scalar(fill_value, "fill_value")
        rows, cols, values = self._host_coo()
        dtype = dense_dtype(self._dtype, fill_value, values)
        with translate_oom(f"building a dense {self._nrows}x{self._ncols} array"):
            out = np.full(self.shape, fill_value, dtype=dtype)
        out[rows, cols] = values
        return out

    def to_backend(self, name: str) -> Matrix:
        """This matrix on backend ``name`` (self if already there).

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
        >>> A.to_backend("cpu") is A
        True
        >>> A.to_backend("cuda").backend  # doctest: +SKIP
        'cuda'
        """
        name = resolve(name)
        if name == self._backend:
            return self
        with translate_oom(f"copying a {self._nrows}x{self._ncols} Matrix to {name!r}"):
            return Matrix(
                to_backend(self._indptr, name),
                to_backend(self._indices, name),
                to_backend(self._values, name),
                self.shape,
                backend=name,
            )

    def dup(self, dtype: Any = None) -> Matrix:
        """A deep copy, optionally cast to ``dtype``.

        Raises
        ------
        InvalidValue
            If ``dtype`` cannot hold a stored value, by the rule of :meth:`from_coo`: a value
            that is not an integer (1.5, NaN) or lies outside the range of an integer
            ``dtype``, or a finite value that overflows a float one. Casts to bool (nonzero
            is True) and float roundings pass.
        DomainMismatch
            For a ``dtype`` hyblas does not store.

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
        >>> B = A.dup(dtype="int64")
        >>> B.dtype, B.isequal(A)
        (dtype('int64'), True)
        """
        target = self._dtype if dtype is None else _dt.lookup(dtype)
        if target == self._dtype:
            values = self._values.copy()
        else:
            values = cast_values(
                self._xp, self._values, target, f"dup(dtype={target.name}): values"
            )
        return Matrix(
            self._indptr.copy(), self._indices.copy(), values, self.shape, backend=self._backend
        )

    def isequal(self, other: Matrix, *, check_dtype: bool = False) -> bool:
        """Same shape, same stored entries and equal values (and dtype, if asked).

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
        >>> A.isequal(A.dup())
        True
        >>> A.isequal(A.dup(dtype="float32")), A.isequal(A.dup(dtype="float32"), check_dtype=True)
        (True, False)
        """
        if not isinstance(other, Matrix):
            raise InvalidObject(f"isequal expects a Matrix, got {type(other).__name__}")
        if self.shape != other.shape or self.nnz != other.nnz:
            return False
        if check_dtype and self._dtype != other._dtype:
            return False
        o = other.to_backend(self._backend)
        xp = self._xp
        return bool(
            xp.array_equal(self._indptr.astype(np.int64), o._indptr.astype(np.int64))
            and xp.array_equal(self._indices, o._indices)
            and xp.array_equal(self._values, o._values)
        )

    def isclose(self, other: Matrix, *, rel_tol: float = 1e-7, abs_tol: float = 0.0) -> bool:
        """Same structure, values equal within tolerances (NaN equal to NaN).

        Raises
        ------
        InvalidObject
            If ``other`` is not a Matrix, or a tolerance not a real number.
        InvalidValue
            If a tolerance is negative, infinite or NaN.

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
        >>> B = hb.ops.apply(A, hb.binary.plus, right=1e-9)
        >>> A.isequal(B), A.isclose(B)
        (False, True)
        """
        if not isinstance(other, Matrix):
            raise InvalidObject(f"isclose expects a Matrix, got {type(other).__name__}")
        rel_tol = check_tolerance(rel_tol, "rel_tol")
        abs_tol = check_tolerance(abs_tol, "abs_tol")
        if self.shape != other.shape or self.nnz != other.nnz:
            return False
        o = other.to_backend(self._backend)
        xp = self._xp
        if not (
            xp.array_equal(self._indptr.astype(np.int64), o._indptr.astype(np.int64))
            and xp.array_equal(self._indices, o._indices)
        ):
            return False
        return bool(
            xp.allclose(self._values, o._values, rtol=rel_tol, atol=abs_tol, equal_nan=True)
        )

    # --- mutation (used by operations writing into an existing matrix) ----------------------

    def cache_nbytes(self) -> int:
        """Bytes held by :attr:`cache`: the derived forms cached on this matrix (the transpose,
        the executors' layouts, a Graph's degrees and symmetrized structure, the suitesparse
        executor's copy), each array counted once; the matrix's own entries are not counted.

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 1], [1, 2], [1.0, 2.0], nrows=3, ncols=3)
        >>> A.cache_nbytes()
        0
        >>> A.T.nnz
        2
        >>> A.cache_nbytes() > 0
        True
        """
        return held_bytes(self._cache, exclude=(self, self._indptr, self._indices, self._values))

    def clear_cache(self) -> int:
        """Drop every cached derived form (see :meth:`cache_nbytes`); returns the bytes they
        held. Each is built again when next needed. What is known of the entries and holds no
        memory stays (a structure known symmetric, values known to agree with their mirror,
        the one value of every entry): it is true until the entries change. On the GPU the
        freed memory goes back to CuPy's memory pool, which serves the next arrays from it
        (``hyblas.backend.free_gpu_memory_pool()`` hands the pool's free blocks to the device).

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 1], [1, 2], [1.0, 2.0], nrows=3, ncols=3)
        >>> A.T.nnz
        2
        >>> A.clear_cache()  # the transpose's 4 row pointers, 2 indices (int32), 2 values
        40
        >>> A.cache_nbytes()
        0
        """
        freed = self.cache_nbytes()
        facts = {key: value for key, value in self._cache.items() if key in FACTS}
        self._drop_cache()
        self._cache.update(facts)
        return freed

    def set_storage(self, indptr: Any, indices: Any, values: Any) -> None:
        """Replace the entries (same shape and dtype), dropping every cached derived form."""
        self._indptr, self._indices, self._values = indptr, indices, values
        self._drop_cache()

    def _drop_cache(self) -> None:
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
        """Remove every entry.

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0])
        >>> A.clear()
        >>> A.nnz, A.shape
        (0, (2, 2))
        """
        xp = self._xp
        self.set_storage(
            xp.zeros_like(self._indptr), self._indices[:0].copy(), self._values[:0].copy()
        )

    # --- display -------------------------------------------------------------------------------

    def __repr__(self) -> str:
        head = (
            f"hyblas.Matrix(nrows={self._nrows}, ncols={self._ncols}, nnz={self.nnz}, "
            f"dtype={self._dtype.name}, backend={self._backend!r})"
        )
        if self.nnz == 0 or self.nnz > 8:
            return head
        rows, cols, values = self._host_coo()
        entries = ", ".join(f"({r},{c}): {v!r}" for r, c, v in zip(rows, cols, values.tolist()))
        return f"{head}\n  {{{entries}}}"

    def __len__(self) -> int:
        raise TypeError("len() of a Matrix is ambiguous; use nrows, ncols or nnz")

    def __bool__(self) -> bool:
        raise TypeError("the truth value of a Matrix is ambiguous; use nnz or isequal")
