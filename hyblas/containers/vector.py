"""The sparse Vector: sparse (indices + values) or bitmap (values + presence) storage."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import (
    host_copy,
    is_cuda_array,
    resolve,
    to_backend,
    to_numpy,
    translate_oom,
    xp_for,
)
from ..device import arrays as _prim
from ..errors import IndexOutOfBounds, InvalidObject, InvalidValue
from ..operators.classes import BinaryOp
from .arguments import (
    array_of,
    as_index_array,
    cast_values,
    check_bounds,
    check_dup_op,
    check_scalar,
    check_size,
    check_tolerance,
    present_unless,
    scalar_value,
    values_array,
)
from .dense import dense_dtype
from .mask import Mask

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
    try:
        return np.size(indices) <= FEW_ON_THE_HOST
    except (TypeError, ValueError):  # no array (a ragged list): the checks say so
        return False


class Vector:
    """A sparse vector. Absent entries are GraphBLAS "no value", not zero.

    The storage (sorted indices + values, or a bitmap of values + presence flags) follows the
    density and converts on demand (a GPU product may hand back its bitmap as written,
    counted only when asked); it never changes what the vector means.

    Notes
    -----
    The internal interface: hyblas's operations and executors read and replace a vector's storage
    through these members only (not part of the user API; the arrays they return must not be
    written): :attr:`xp`, :attr:`stored_sparse`, :attr:`stored_bitmap`, :attr:`known_nnz`,
    :meth:`known_full`, :meth:`as_sparse`, :meth:`as_bitmap`, :meth:`presence`, :meth:`settle`,
    :meth:`set_storage` and the constructors ``Vector(size, dtype, backend=..., sparse=... |
    bitmap=..., nnz=...)`` and :meth:`wrap_bitmap`, which take the arrays given without copying
    them.
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
        """An empty vector (no entries) of ``dtype`` and ``size``.

        Examples
        --------
        >>> v = hb.Vector.new("float32", 5)
        >>> v.size, v.nnz, v.dtype
        (5, 0, dtype('float32'))
        """
        name = resolve(backend)
        xp = xp_for(name)
        check_size(size)
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
            Default 1.0 (float64, or 1 of ``dtype``). Python ints are taken exactly, as by
            :meth:`Matrix.from_coo <hyblas.Matrix.from_coo>`.
        size : int, optional
            Default: one past the largest index.
        dtype : dtype, optional
        dup_op : BinaryOp, optional
            Combines values of repeated indices, in the order given; without it, repeats raise
            ``InvalidValue``. It must take and give the values' dtype (``binary.plus``,
            ``binary.first``...; not ``binary.bor`` on floats nor ``binary.lt``).
        backend : {'cpu', 'cuda'}, optional

        Raises
        ------
        InvalidValue
            Repeated indices and no ``dup_op``; a value ``dtype`` cannot hold (not an integer
            of an integer ``dtype``, out of its range, or overflowing a float one).
        DomainMismatch
            For a ``dup_op`` that does not take and give the values' dtype (before any work)
            and a value of no hyblas type, as :meth:`Matrix.from_coo <hyblas.Matrix.from_coo>`.
        IndexOutOfBounds, DimensionMismatch, InvalidObject, OutOfMemory

        The arrays given are never written, and the vector keeps copies of them.

        Examples
        --------
        >>> v = hb.Vector.from_coo([3, 0], [1.5, 2.5], size=5)
        >>> print(v)
        hyblas.Vector(size=5, nnz=2, dtype=float64, backend='cpu', format='bitmap')
          {0: 2.5, 3: 1.5}
        >>> hb.Vector.from_coo([1, 1], [1, 2], size=3, dup_op=hb.binary.plus).to_coo()
        (array([1]), array([3]))
        """
        name = resolve(backend)
        if name != "cpu" and _few_on_the_host(indices, values):
            # checked, sorted and combined on the host, then copied once: a few entries given
            # from Python (a search's source) cost no device round trip
            return cls.from_coo(
                indices, values, size=size, dtype=dtype, dup_op=dup_op, backend="cpu"
            ).to_backend(name)
        xp = xp_for(name)
        idx = as_index_array(xp, indices, "indices")
        vals = values_array(xp, values, idx.size, dtype, "values")
        if dup_op is not None:
            check_dup_op(dup_op, vals.dtype)
        size = int(idx.max()) + 1 if size is None and idx.size else (0 if size is None else size)
        check_size(size)
        check_bounds(xp, idx, size, "indices")
        with translate_oom(f"building a Vector of size {size} from {idx.size} entries"):
            if idx.size <= 1:  # in order and without repeats (a search's source)
                one = (idx.copy(), vals.copy())  # never the caller's
                return cls(size, vals.dtype, backend=name, sparse=one).settle()
            idx, vals = _prim.sort_by_keys(xp, idx, vals)  # new arrays, never the caller's
            starts = _prim.segment_starts(xp, idx)
            if starts.size != idx.size:
                if dup_op is None:
                    first = int(idx[xp.flatnonzero(idx[1:] == idx[:-1])[:1]][0])
                    raise InvalidValue(
                        f"duplicate index {first} in indices; pass dup_op= to combine "
                        "repeated indices"
                    )
                vals = _prim.segment_reduce(xp, vals, starts, dup_op)
                idx = idx[starts]
            return cls(size, vals.dtype, backend=name, sparse=(idx, vals)).settle()

    @classmethod
    def from_dense(
        cls, array: Any, *, missing_value: Any = None, backend: str | None = None
    ) -> Vector:
        """Every element of a 1-D array as an entry, except those equal to ``missing_value``
        (NaN: the NaN elements). ``array`` is not changed, nor shared.

        Examples
        --------
        >>> v = hb.Vector.from_dense(np.array([0.0, np.inf, 3.0]), missing_value=np.inf)
        >>> v.to_coo()
        (array([0, 2]), array([0., 3.]))
        """
        name = resolve(backend)
        xp = xp_for(name)
        arr = array_of(array, "array", "numbers")
        if arr.ndim != 1:
            raise InvalidObject(f"array must be one-dimensional, got shape {arr.shape}")
        dt = _dt.lookup(arr.dtype, argument="array")
        with translate_oom(f"building a Vector of size {arr.size} from a dense array"):
            arr = to_backend(arr, name)
            present = present_unless(xp, arr, missing_value)
            arr = arr.astype(dt, copy=True)  # the vector's own copy
            nnz = arr.size if missing_value is None else None
            return cls(arr.size, dt, backend=name, bitmap=(arr, present), nnz=nnz).settle()

    @classmethod
    def from_scalar(
        cls, value: Any, size: int, *, dtype: Any = None, backend: str | None = None
    ) -> Vector:
        """A full vector: every one of ``size`` entries holds ``value``.

        Raises
        ------
        InvalidValue
            If ``dtype`` cannot hold ``value`` (not an integer of an integer ``dtype``, out of
            its range, or overflowing a float one).
        OutOfMemory
            If ``size`` entries do not fit in memory.

        Examples
        --------
        >>> print(hb.Vector.from_scalar(1.0, 3))
        hyblas.Vector(size=3, nnz=3, dtype=float64, backend='cpu', format='bitmap')
          {0: 1.0, 1: 1.0, 2: 1.0}
        """
        name = resolve(backend)
        xp = xp_for(name)
        check_size(size)
        scalar, dt = scalar_value(value, dtype, "value")
        bitmap = _prim.full_bitmap(xp, size, scalar, dt)  # OutOfMemory if it does not fit
        return cls(size, dt, backend=name, bitmap=bitmap, nnz=size)

    @property
    def format(self) -> str:
        """``'sparse'`` or ``'bitmap'``: the current storage (informational)."""
        return "sparse" if self._sparse is not None else "bitmap"

    # --- internal interface (for hyblas's operations and executors) ----------------------------

    @property
    def xp(self) -> Any:
        """The array module of the vector's backend (numpy or cupy)."""
        return self._xp

    @property
    def stored_sparse(self) -> tuple[Any, Any] | None:
        """``(sorted int64 ids, values)`` when the vector is stored sparse, else None. The
        arrays are the vector's own: read them, never write into them."""
        return self._sparse

    @property
    def stored_bitmap(self) -> tuple[Any, Any] | None:
        """``(values, presence)`` over all positions when the vector is stored as a bitmap,
        else None (the vector's own arrays: read only)."""
        return self._bitmap

    @property
    def known_nnz(self) -> int | None:
        """The number of present entries if it is known without counting (on the GPU a count
        of a bitmap waits for the device), else None."""
        return self._nnz

    def known_full(self) -> bool:
        """Whether every entry is known present without counting (a device sync)."""
        return self._nnz is not None and self._nnz == self._size

    @classmethod
    def wrap_bitmap(
        cls, values: Any, present: Any, *, backend: str, nnz: int | None = None
    ) -> Vector:
        """A vector over bitmap arrays (taken, not copied), its storage then settled.

        ``nnz``, when the caller knows it, saves counting the flags (a device sync).
        """
        return cls(
            values.size, values.dtype, backend=backend, bitmap=(values, present), nnz=nnz
        ).settle()

    def settle(self) -> Vector:
        """Keep the storage that suits the density (sparse below size / SPARSE_BELOW)."""
        sparse_wanted = self.nnz * SPARSE_BELOW < self._size
        if sparse_wanted and self._sparse is None:
            self._sparse = self.as_sparse()
            self._bitmap = None
        elif not sparse_wanted and self._bitmap is None:
            self._bitmap = self.as_bitmap()
            self._sparse = None
        return self

    def as_sparse(self) -> tuple[Any, Any]:
        """(sorted int64 indices, values), converting from the bitmap if needed."""
        if self._sparse is None:
            values, present = self._bitmap
            idx = self._xp.flatnonzero(present).astype(np.int64)
            return idx, values[idx]
        return self._sparse

    def as_bitmap(self) -> tuple[Any, Any]:
        """(values of length size, bool presence), converting from sparse if needed."""
        if self._bitmap is None:
            idx, vals = self._sparse
            return _prim.to_bitmap(self._xp, self._size, idx, vals.astype(self._dtype, copy=False))
        return self._bitmap

    def presence(self) -> Any:
        """Bool presence over all positions (the bitmap's flags, or made from the sparse ids
        without a values array: what a structural mask reads)."""
        if self._bitmap is not None:
            return self._bitmap[1]
        with translate_oom(f"building the presence flags of a Vector of size {self._size}"):
            present = self._xp.zeros(self._size, dtype=bool)
        present[self._sparse[0]] = True
        return present

    def set_storage(
        self,
        *,
        sparse: tuple[Any, Any] | None = None,
        bitmap: tuple[Any, Any] | None = None,
        nnz: int | None = None,
        settle: bool = True,
    ) -> None:
        """Replace the entries (same size and dtype); ``nnz`` when the caller knows it.

        ``settle=False`` keeps the storage given, whatever the density, and the count unknown
        until asked: for a working vector whose next step reads that storage anyway (settling
        counts a bitmap's flags, a device sync, and may convert it, for nothing).

        Settling is done on the new storage before any of it is taken: an allocation that
        fails there leaves this vector as it was."""
        staged = Vector(
            self._size, self._dtype, backend=self._backend, sparse=sparse, bitmap=bitmap, nnz=nnz
        )
        if settle:
            staged.settle()
        self._sparse, self._bitmap, self._nnz = staged._sparse, staged._bitmap, staged._nnz

    # --- mutation ----------------------------------------------------------------------------

    def clear(self) -> None:
        """Remove every entry.

        Examples
        --------
        >>> v = hb.Vector.from_coo([0, 1], [1.0, 2.0], size=3)
        >>> v.clear()
        >>> v.nnz, v.size
        (0, 3)
        """
        xp = self._xp
        self.set_storage(sparse=(xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=self._dtype)))

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
        """``(indices, values)``, indices ascending: new arrays, the caller's own (writing
        into them does not change the vector).

        Parameters
        ----------
        device : bool
            Return arrays of the vector's backend (CuPy arrays on the GPU) instead of NumPy
            arrays, so that indices can go back into an operation without a host round trip.

        Examples
        --------
        >>> v = hb.Vector.from_coo([4, 1], [1.0, 2.0], size=5)
        >>> v.to_coo()
        (array([1, 4]), array([2., 1.]))
        """
        idx, vals = self.as_sparse()
        if device:
            return idx.copy(), vals.copy()
        if self._sparse is not None:  # the vector's own arrays
            return host_copy(idx), host_copy(vals)
        return to_numpy(idx), to_numpy(vals)  # made from the bitmap for this call

    def to_dense(self, fill_value: Any = None) -> np.ndarray:
        """A NumPy array of length ``size``; absent entries become ``fill_value``.

        Its dtype is the vector's where that holds ``fill_value``, else the type of both,
        never one that changes a stored value, as :meth:`Matrix.to_dense
        <hyblas.Matrix.to_dense>` (see :mod:`hyblas.containers.dense`).

        Raises
        ------
        InvalidValue
            If entries are absent and no ``fill_value`` is given, or no dtype holds both the
            fill and every present value exactly.
        InvalidObject
            If ``fill_value`` is not a number or a bool.

        Examples
        --------
        >>> v = hb.Vector.from_coo([0, 2], [1.0, 2.0], size=3)
        >>> v.to_dense(fill_value=0.0)  # absent is not 0: say what it becomes
        array([1., 0., 2.])
        """
        if fill_value is not None:
            check_scalar(fill_value, "fill_value")
        values, present = self.as_bitmap()
        values, present = to_numpy(values), to_numpy(present)
        if fill_value is None:
            if not present.all():
                raise InvalidValue(
                    f"{self._size - int(present.sum())} entries are absent; "
                    "pass fill_value= to fill them"
                )
            return values.copy()
        dtype = dense_dtype(self._dtype, fill_value, values, present)
        out = values.astype(dtype)  # a copy, the placeholders of absent entries overwritten
        out[~present] = fill_value
        return out

    def get(self, index: int, default: Any = None) -> Any:
        """The value at ``index`` (negative: from the end), or ``default`` when absent.

        Examples
        --------
        >>> v = hb.Vector.from_coo([0, 2], [1.0, 2.0], size=3)
        >>> v.get(2), v.get(1), v.get(1, default=-1.0)
        (2.0, None, -1.0)
        """
        if not isinstance(index, int | np.integer) or isinstance(index, bool | np.bool_):
            raise InvalidObject(f"index must be an integer, got {index!r}")
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
        """This vector on backend ``name`` (self if already there).

        Examples
        --------
        >>> v = hb.Vector.from_coo([0], [1.0], size=3)
        >>> v.to_backend("cpu") is v
        True
        >>> v.to_backend("cuda").backend  # doctest: +SKIP
        'cuda'
        """
        name = resolve(name)
        if name == self._backend:
            return self
        idx, vals = self.as_sparse()
        with translate_oom(f"copying a Vector of size {self._size} to {name!r}"):
            moved = (to_backend(idx, name), to_backend(vals, name))
            return Vector(self._size, self._dtype, backend=name, sparse=moved).settle()

    def dup(self, dtype: Any = None) -> Vector:
        """A deep copy, optionally cast to ``dtype``.

        Raises
        ------
        InvalidValue
            If ``dtype`` cannot hold a present value, by the rule of :meth:`from_coo` (as
            :meth:`Matrix.dup <hyblas.Matrix.dup>`).
        DomainMismatch
            For a ``dtype`` hyblas does not store.

        Examples
        --------
        >>> v = hb.Vector.from_coo([0, 2], [1.0, 2.0], size=3)
        >>> w = v.dup(dtype="int8")
        >>> w.to_coo()
        (array([0, 2]), array([1, 2], dtype=int8))
        """
        target = self._dtype if dtype is None else _dt.lookup(dtype)
        if self._sparse is not None:
            idx, vals = self._sparse
            sparse = (idx.copy(), self._cast(vals, target))
            return Vector(self._size, target, backend=self._backend, sparse=sparse, nnz=self._nnz)
        values, present = self._bitmap
        if target != self._dtype and not np.can_cast(self._dtype, target, "safe"):
            values = values.copy()  # the absent positions' placeholders are no values to check
            values[~present] = 0
        bitmap = (self._cast(values, target), present.copy())
        return Vector(self._size, target, backend=self._backend, bitmap=bitmap, nnz=self._nnz)

    def _cast(self, values: Any, target: np.dtype) -> Any:
        """A copy of ``values`` as ``target``, checked as :func:`cast_values` checks."""
        if target == self._dtype:
            return values.copy()
        return cast_values(self._xp, values, target, f"dup(dtype={target.name}): values")

    def isequal(self, other: Vector, *, check_dtype: bool = False) -> bool:
        """Same size, same present indices and equal values (and dtype, if asked).

        Examples
        --------
        >>> v = hb.Vector.from_coo([0, 2], [1.0, 2.0], size=3)
        >>> v.isequal(hb.Vector.from_coo([0, 2], [1.0, 2.0], size=3))
        True
        >>> v.isequal(hb.Vector.from_dense(np.array([1.0, 0.0, 2.0])))  # a stored 0 is an entry
        False
        """
        if not isinstance(other, Vector):
            raise InvalidObject(f"isequal expects a Vector, got {type(other).__name__}")
        if self._size != other._size or (check_dtype and self._dtype != other._dtype):
            return False
        a_idx, a_vals = self.as_sparse()
        b_idx, b_vals = other.to_backend(self._backend).as_sparse()
        xp = self._xp
        return bool(xp.array_equal(a_idx, b_idx) and xp.array_equal(a_vals, b_vals))

    def isclose(self, other: Vector, *, rel_tol: float = 1e-7, abs_tol: float = 0.0) -> bool:
        """Same structure, values equal within tolerances (NaN equal to NaN). InvalidObject
        if ``other`` is not a Vector, or for a bad tolerance, as :meth:`Matrix.isclose
        <hyblas.Matrix.isclose>`.

        Examples
        --------
        >>> v = hb.Vector.from_coo([0], [1.0], size=2)
        >>> v.isclose(hb.Vector.from_coo([0], [1.0 + 1e-12], size=2))
        True
        """
        if not isinstance(other, Vector):
            raise InvalidObject(f"isclose expects a Vector, got {type(other).__name__}")
        rel_tol = check_tolerance(rel_tol, "rel_tol")
        abs_tol = check_tolerance(abs_tol, "abs_tol")
        if self._size != other._size:
            return False
        a_idx, a_vals = self.as_sparse()
        b_idx, b_vals = other.to_backend(self._backend).as_sparse()
        xp = self._xp
        if not xp.array_equal(a_idx, b_idx):
            return False
        return bool(xp.allclose(a_vals, b_vals, rtol=rel_tol, atol=abs_tol, equal_nan=True))

    # --- display -------------------------------------------------------------------------------

    def __repr__(self) -> str:
        nnz = self.nnz
        head = (
            f"hyblas.Vector(size={self._size}, nnz={nnz}, dtype={self._dtype.name}, "
            f"backend={self._backend!r}, format={self.format!r})"
        )
        if nnz == 0 or nnz > 10:
            return head
        idx, vals = self.to_coo()
        return f"{head}\n  {{{', '.join(f'{i}: {v!r}' for i, v in zip(idx, vals.tolist()))}}}"

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        raise TypeError("the truth value of a Vector is ambiguous; use nnz or isequal")


def one_entry(index: int, value: Any, *, size: int, dtype: Any, backend: str) -> Vector:
    """A vector of ``size`` holding ``value`` at ``index`` only: a search's source.

    For callers that checked ``index`` (in ``[0, size)``) and ``value`` (exact in ``dtype``)
    themselves: :meth:`Vector.from_coo` would check them again and copy the index and the
    value to the device one after the other, which costs a search on a large graph more host
    time than it spends in some of its rounds. Here both go to the device in one copy, the
    vector's arrays being views of it (a sparse vector's arrays are never written)."""
    return one_entries(index, ((value, dtype),), size=size, backend=backend)[0]


def one_entries(
    index: int, entries: Sequence[tuple[Any, Any]], *, size: int, backend: str
) -> tuple[Vector, ...]:
    """One vector per ``(value, dtype)`` of ``entries``, each of ``size`` holding its value at
    ``index`` only (a search's state and frontier), made as :func:`one_entry` makes one: the
    index and every value go to the device in one copy, and the vectors share the index array.

    Examples
    --------
    >>> from hyblas.containers.vector import one_entries
    >>> levels, frontier = one_entries(2, [(0, "int64"), (True, "bool")], size=4, backend="cpu")
    >>> levels.to_coo(), frontier.to_coo()
    ((array([2]), array([0])), (array([2]), array([ True])))
    """
    types = [_dt.lookup(dtype) for _, dtype in entries]
    name = resolve(backend)
    host = np.zeros(1 + len(types), dtype=np.int64)  # the index, then each value's bytes
    host[0] = index
    for slot, ((value, _), dt) in enumerate(zip(entries, types, strict=True), start=1):
        host[slot : slot + 1].view(np.uint8)[: dt.itemsize] = np.array([value], dt).view(np.uint8)
    with translate_oom(f"building {len(types)} Vector(s) of size {size} from 1 entry"):
        packed = to_backend(host, name).view(np.uint8)
    ids = packed[:8].view(np.int64)
    return tuple(
        Vector(
            size,
            dt,
            backend=name,
            sparse=(ids, packed[8 * slot : 8 * slot + dt.itemsize].view(dt)),
            nnz=1,
        )
        for slot, dt in enumerate(types, start=1)
    )
