"""The sparse Vector: sparse (indices + values) or bitmap (values + presence) storage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from .backend import is_cuda_array, resolve, to_backend, to_numpy, xp_for
from .errors import DimensionMismatch, IndexOutOfBounds, InvalidObject, InvalidValue
from .matrix import _as_index_array, _check_bounds, _values_array
from .ops import primitives as _prim
from .ops.mask import Mask
from .semiring.operators import BinaryOp

if TYPE_CHECKING:
    from .matrix import Matrix

__all__ = ["Vector"]

# A vector with fewer than size / SPARSE_BELOW entries is kept sparse, else as a bitmap.
SPARSE_BELOW = 32
# from_coo checks and sorts at most this many entries given as host data on the host (NumPy),
# more on the vector's backend.
FEW_ON_THE_HOST = 4096


def _few_on_the_host(indices: Any, values: Any) -> bool:
    """Whether ``from_coo``'s input is host data (not device arrays) of a few entries."""
    if is_cuda_array(indices) or is_cuda_array(values):
        return False
    return np.size(indices) <= FEW_ON_THE_HOST


class Vector:
    """A sparse vector. Absent entries are GraphBLAS "no value", not zero.

    The storage (sorted indices + values, or a bitmap of values + presence flags) follows the
    density and converts on demand (a GPU product may hand back its bitmap as written,
    counted only when asked); it never changes what the vector means.
    """

    __array_priority__ = 20

    def __init__(
        self,
        size: int,
        dtype: Any,
        *,
        backend: str,
        sparse: tuple[Any, Any] | None = None,
        bitmap: tuple[Any, Any] | None = None,
        nnz: int | None = None,
    ):
        if (sparse is None) == (bitmap is None):
            raise InvalidObject("a Vector is built from exactly one of sparse= or bitmap=")
        self._size = int(size)
        self._dtype = _dt.lookup(dtype)
        self._backend = backend
        self._xp = xp_for(backend)
        self._sparse = sparse
        self._bitmap = bitmap
        self._nnz = nnz  # cached count of present entries; None until known (counting syncs)

    # --- construction ----------------------------------------------------------------------

    @classmethod
    def new(cls, dtype: Any, size: int, *, backend: str | None = None) -> Vector:
        """An empty vector (no entries) of ``dtype`` and ``size``."""
        name = resolve(backend)
        xp = xp_for(name)
        _check_size(size)
        dt = _dt.lookup(dtype)
        empty = (xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=dt))
        return cls(size, dt, backend=name, sparse=empty)

    @classmethod
    def from_coo(
        cls,
        indices: Any,
        values: Any = None,
        *,
        size: int | None = None,
        dtype: Any = None,
        dup_op: BinaryOp | None = None,
        backend: str | None = None,
    ) -> Vector:
        """Build a vector from (index, value) pairs.

        Parameters
        ----------
        indices : array_like of int
        values : array_like or scalar, optional
            Default 1.0 (float64, or 1 of ``dtype``).
        size : int, optional
            Default: one past the largest index.
        dtype : dtype, optional
        dup_op : BinaryOp, optional
            Combines values of repeated indices; without it, repeats raise ``InvalidValue``.
        backend : {'cpu', 'cuda'}, optional
        """
        name = resolve(backend)
        if name != "cpu" and _few_on_the_host(indices, values):
            # checked, sorted and combined on the host, then copied once: a few entries given
            # from Python (a search's source) cost no device round trip
            return cls.from_coo(indices, values, size=size, dtype=dtype, dup_op=dup_op,
                                backend="cpu").to_backend(name)  # fmt: skip
        xp = xp_for(name)
        idx = _as_index_array(xp, indices, "indices")
        vals = _values_array(xp, values, idx.size, dtype, "values")
        size = int(idx.max()) + 1 if size is None and idx.size else (size or 0)
        _check_size(size)
        _check_bounds(xp, idx, size, "indices")
        if dup_op is not None and not isinstance(dup_op, BinaryOp):
            raise InvalidObject(f"dup_op must be a BinaryOp, got {dup_op!r}")
        idx, vals = _prim.sort_by_keys(xp, idx, vals)
        starts = _prim.segment_starts(xp, idx)
        if starts.size != idx.size:
            if dup_op is None:
                first = int(idx[xp.flatnonzero(idx[1:] == idx[:-1])[:1]][0])
                raise InvalidValue(f"duplicate index {first} in indices; pass dup_op= to "
                                   "combine repeated indices")  # fmt: skip
            vals = _prim.segment_reduce(xp, vals, starts, dup_op)
            idx = idx[starts]
        return cls(size, vals.dtype, backend=name, sparse=(idx, vals))._settled()

    @classmethod
    def from_dense(cls, array: Any, *, missing_value: Any = None,
                   backend: str | None = None) -> Vector:  # fmt: skip
        """Every element of a 1-D array as an entry, except those equal to ``missing_value``."""
        name = resolve(backend)
        xp = xp_for(name)
        arr = to_backend(array, name)
        if arr.ndim != 1:
            raise InvalidObject(f"array must be one-dimensional, got shape {arr.shape}")
        arr = arr.astype(_dt.lookup(arr.dtype, argument="array"), copy=True)
        present = xp.ones(arr.size, dtype=bool) if missing_value is None else arr != missing_value
        nnz = arr.size if missing_value is None else None
        return cls(arr.size, arr.dtype, backend=name, bitmap=(arr, present), nnz=nnz)._settled()

    @classmethod
    def from_scalar(cls, value: Any, size: int, *, dtype: Any = None,
                    backend: str | None = None) -> Vector:  # fmt: skip
        """A full vector: every one of ``size`` entries holds ``value``."""
        name = resolve(backend)
        xp = xp_for(name)
        _check_size(size)
        dt = _dt.lookup(dtype if dtype is not None else np.asarray(value).dtype)
        return cls(size, dt, backend=name, bitmap=_prim.full_bitmap(xp, size, value, dt),
                   nnz=size)  # fmt: skip

    @classmethod
    def _from_bitmap(cls, values: Any, present: Any, *, backend: str,
                     nnz: int | None = None) -> Vector:  # fmt: skip
        """Internal: wrap bitmap arrays (taken, not copied), then settle the storage.

        ``nnz``, when the caller knows it, saves counting the flags (a device sync).
        """
        return cls(values.size, values.dtype, backend=backend, bitmap=(values, present),
                   nnz=nnz)._settled()  # fmt: skip

    def _settled(self) -> Vector:
        """Keep the storage that suits the density (sparse below size / SPARSE_BELOW)."""
        sparse_wanted = self.nnz * SPARSE_BELOW < self._size
        if sparse_wanted and self._sparse is None:
            self._sparse = self._as_sparse()
            self._bitmap = None
        elif not sparse_wanted and self._bitmap is None:
            self._bitmap = self._as_bitmap()
            self._sparse = None
        return self

    # --- storage ---------------------------------------------------------------------------

    @property
    def format(self) -> str:
        """``'sparse'`` or ``'bitmap'``: the current storage (informational)."""
        return "sparse" if self._sparse is not None else "bitmap"

    def _as_sparse(self) -> tuple[Any, Any]:
        """(sorted int64 indices, values), converting from the bitmap if needed."""
        if self._sparse is None:
            values, present = self._bitmap
            idx = self._xp.flatnonzero(present).astype(np.int64)
            return idx, values[idx]
        return self._sparse

    def _as_bitmap(self) -> tuple[Any, Any]:
        """(values of length size, bool presence), converting from sparse if needed."""
        if self._bitmap is None:
            idx, vals = self._sparse
            return _prim.to_bitmap(self._xp, self._size, idx, vals.astype(self._dtype, copy=False))
        return self._bitmap

    def _presence(self) -> Any:
        """Bool presence over all positions (the bitmap's flags, or made from the sparse ids
        without a values array: what a structural mask reads)."""
        if self._bitmap is not None:
            return self._bitmap[1]
        present = self._xp.zeros(self._size, dtype=bool)
        present[self._sparse[0]] = True
        return present

    def _set_content(self, *, sparse: tuple[Any, Any] | None = None,
                     bitmap: tuple[Any, Any] | None = None, nnz: int | None = None,
                     settle: bool = True) -> None:  # fmt: skip
        """Replace the entries (same size and dtype); ``nnz`` when the caller knows it.

        ``settle=False`` keeps the storage given, whatever the density, and the count unknown
        until asked: for a working vector whose next step reads that storage anyway (settling
        counts a bitmap's flags, a device sync, and may convert it, for nothing)."""
        self._sparse, self._bitmap, self._nnz = sparse, bitmap, nnz
        if settle:
            self._settled()

    def clear(self) -> None:
        """Remove every entry."""
        xp = self._xp
        self._set_content(sparse=(xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=self._dtype)))

    # --- properties ------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """Length of the vector."""
        return self._size

    @property
    def shape(self) -> tuple[int]:
        """``(size,)``."""
        return (self._size,)

    @property
    def nnz(self) -> int:
        """Number of present entries."""
        if self._nnz is None:
            if self._sparse is not None:
                self._nnz = int(self._sparse[0].size)
            else:
                self._nnz = int(self._bitmap[1].sum())
        return self._nnz

    def _known_full(self) -> bool:
        """Internal: whether every entry is known present without counting (a device sync)."""
        return self._nnz is not None and self._nnz == self._size

    @property
    def dtype(self) -> np.dtype:
        """The value type."""
        return self._dtype

    @property
    def backend(self) -> str:
        """``'cpu'`` or ``'cuda'``."""
        return self._backend

    @property
    def S(self) -> Mask:  # noqa: N802 - GraphBLAS spelling
        """Structural mask view: allows output wherever an entry is present."""
        return Mask(self, structural=True)

    @property
    def V(self) -> Mask:  # noqa: N802
        """Value mask view: allows output where an entry is present and nonzero."""
        return Mask(self, structural=False)

    def __invert__(self) -> Mask:
        return Mask(self, structural=False, complement=True)

    # --- export ----------------------------------------------------------------------------

    def to_coo(self, *, device: bool = False) -> tuple[Any, Any]:
        """``(indices, values)``, indices ascending.

        Parameters
        ----------
        device : bool
            Return the backend's own arrays (CuPy arrays on the GPU, copies) instead of NumPy
            arrays, so that indices can go back into an operation without a host round trip.
        """
        idx, vals = self._as_sparse()
        if device:
            return idx.copy(), vals.copy()
        return to_numpy(idx), to_numpy(vals)

    def to_dense(self, fill_value: Any = None) -> np.ndarray:
        """A NumPy array of length ``size``; absent entries become ``fill_value``.

        Raises
        ------
        InvalidValue
            If entries are absent and no ``fill_value`` is given.
        """
        values, present = self._as_bitmap()
        values, present = to_numpy(values), to_numpy(present)
        if fill_value is None:
            if not present.all():
                raise InvalidValue(f"{self._size - int(present.sum())} entries are absent; "
                                   "pass fill_value= to fill them")  # fmt: skip
            return values.copy()
        dtype = np.result_type(self._dtype, np.min_scalar_type(fill_value))
        return np.where(present, values, np.asarray(fill_value, dtype=dtype)).astype(dtype)

    def get(self, index: int, default: Any = None) -> Any:
        """The value at ``index``, or ``default`` when absent."""
        if not -self._size <= index < self._size:
            raise IndexOutOfBounds(f"index {index} outside a vector of size {self._size}")
        index %= max(self._size, 1)
        if self._bitmap is not None:
            values, present = self._bitmap
            return values[index].item() if bool(present[index]) else default
        idx, vals = self._sparse
        pos = int(self._xp.searchsorted(idx, index))
        if pos < idx.size and int(idx[pos]) == index:
            return vals[pos].item()
        return default

    def to_backend(self, name: str) -> Vector:
        """This vector on backend ``name`` (self if already there)."""
        name = resolve(name)
        if name == self._backend:
            return self
        idx, vals = self._as_sparse()
        moved = (to_backend(idx, name), to_backend(vals, name))
        return Vector(self._size, self._dtype, backend=name, sparse=moved)._settled()

    def dup(self, dtype: Any = None) -> Vector:
        """A deep copy, optionally cast to ``dtype``."""
        target = self._dtype if dtype is None else _dt.lookup(dtype)
        if self._sparse is not None:
            idx, vals = self._sparse
            return Vector(self._size, target, backend=self._backend,
                          sparse=(idx.copy(), vals.astype(target)), nnz=self._nnz)  # fmt: skip
        values, present = self._bitmap
        return Vector(self._size, target, backend=self._backend,
                      bitmap=(values.astype(target), present.copy()), nnz=self._nnz)  # fmt: skip

    def isequal(self, other: Vector, *, check_dtype: bool = False) -> bool:
        """Same size, same present indices and equal values (and dtype, if asked)."""
        if not isinstance(other, Vector):
            raise InvalidObject(f"isequal expects a Vector, got {type(other).__name__}")
        if self._size != other._size or (check_dtype and self._dtype != other._dtype):
            return False
        a_idx, a_vals = self._as_sparse()
        b_idx, b_vals = other.to_backend(self._backend)._as_sparse()
        xp = self._xp
        return bool(xp.array_equal(a_idx, b_idx) and xp.array_equal(a_vals, b_vals))

    def isclose(self, other: Vector, *, rel_tol: float = 1e-7, abs_tol: float = 0.0) -> bool:
        """Same structure, values equal within tolerances."""
        if not isinstance(other, Vector):
            raise InvalidObject(f"isclose expects a Vector, got {type(other).__name__}")
        if self._size != other._size:
            return False
        a_idx, a_vals = self._as_sparse()
        b_idx, b_vals = other.to_backend(self._backend)._as_sparse()
        xp = self._xp
        if not xp.array_equal(a_idx, b_idx):
            return False
        return bool(xp.allclose(a_vals, b_vals, rtol=rel_tol, atol=abs_tol, equal_nan=True))

    # --- operations as methods ---------------------------------------------------------------

    def vxm(self, matrix: Matrix, semiring: Any, **kwargs: Any) -> Vector:
        """``w = u ⊕.⊗ A``; see :func:`hyblas.ops.vxm`."""
        from .ops import api  # noqa: PLC0415 - the api module imports this one

        return api.vxm(self, matrix, semiring, **kwargs)

    def ewise_add(self, other: Vector, op: Any, **kwargs: Any) -> Vector:
        """Union of structures; see :func:`hyblas.ops.ewise_add`."""
        from .ops import api  # noqa: PLC0415

        return api.ewise_add(self, other, op, **kwargs)

    def ewise_mult(self, other: Vector, op: Any, **kwargs: Any) -> Vector:
        """Intersection of structures; see :func:`hyblas.ops.ewise_mult`."""
        from .ops import api  # noqa: PLC0415

        return api.ewise_mult(self, other, op, **kwargs)

    def apply(self, op: Any, **kwargs: Any) -> Vector:
        """Apply an operator to every entry; see :func:`hyblas.ops.apply`."""
        from .ops import api  # noqa: PLC0415

        return api.apply(self, op, **kwargs)

    def select(self, op: Any, thunk: Any = 0, **kwargs: Any) -> Vector:
        """Keep the entries an index-unary test accepts; see :func:`hyblas.ops.select`."""
        from .ops import api  # noqa: PLC0415

        return api.select(self, op, thunk, **kwargs)

    def reduce(self, monoid: Any) -> Any:
        """Reduce every entry to one value; see :func:`hyblas.ops.reduce_scalar`."""
        from .ops import api  # noqa: PLC0415

        return api.reduce_scalar(self, monoid)

    def inner(self, other: Vector, semiring: Any) -> Any:
        """The inner product over both structures; see :func:`hyblas.ops.inner`."""
        from .ops import api  # noqa: PLC0415

        return api.inner(self, other, semiring)

    # --- display -------------------------------------------------------------------------------

    def __repr__(self) -> str:
        nnz = self.nnz
        head = (f"hyblas.Vector(size={self._size}, nnz={nnz}, dtype={self._dtype.name}, "
                f"backend={self._backend!r}, format={self.format!r})")  # fmt: skip
        if nnz == 0 or nnz > 10:
            return head
        idx, vals = self.to_coo()
        return f"{head}\n  {{{', '.join(f'{i}: {v!r}' for i, v in zip(idx, vals.tolist()))}}}"

    def _repr_html_(self) -> str:
        """Jupyter's view: size, nnz, dtype, backend, storage, memory and the first entries."""
        from .display import vector_html  # noqa: PLC0415 - display imports this module

        return vector_html(self)

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        raise TypeError("the truth value of a Vector is ambiguous; use nnz or isequal")


def _check_size(size: Any) -> None:
    if not isinstance(size, int | np.integer) or size < 0:
        raise InvalidObject(f"size must be a non-negative integer, got {size!r}")
    if size > np.iinfo(np.int64).max // 2:
        raise DimensionMismatch(f"size {size} is too large")
