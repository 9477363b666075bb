"""DistVector: a vector cut into pieces, piece ``k`` held by process ``k``; DistMask, its view
as a write mask."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import ops
from ..backend import Communicator, to_numpy
from ..containers.mask import Mask
from ..containers.vector import Vector
from ..dtypes import short_repr
from ..errors import HyblasError, InvalidObject, InvalidValue
from ..operators import BinaryOp, Monoid
from .exchange import gather
from .grid import Partition, ProcessGrid
from .held import LocallyHeld
from .routing import agree, check_comm, communicator, route

__all__ = ["DistVector", "DistMask"]


class DistVector(LocallyHeld):
    """A vector of ``n`` elements over the processes of ``comm``: each holds its piece as an
    ordinary :class:`~hyblas.Vector` (``local``, indices relative to the piece's start).

    Every method that says *collective* is called by every process of ``comm`` together.

    Parameters
    ----------
    comm : Communicator
    partition : Partition
        ``n`` over the process grid.
    local : Vector
        This process's piece.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> x = hb.distributed.DistVector.from_scalar(comm, 1.0, 5)
    >>> x.size, x.local.size, x.gather().to_dense()
    (5, 5, array([1., 1., 1., 1., 1.]))
    """

    def __init__(self, comm: Communicator, partition: Partition, local: Vector) -> None:
        check_comm(comm, partition.grid, "DistVector")
        if not isinstance(local, Vector):
            raise InvalidObject(f"DistVector: local must be a Vector, got {short_repr(local)}")
        self.comm = comm
        self.partition = partition
        self.start, self.stop = partition.piece(comm.rank)
        if local.size != self.stop - self.start:
            raise InvalidValue(
                f"DistVector: rank {comm.rank}'s piece has {self.stop - self.start} elements, "
                f"its local vector {local.size}"
            )
        self.local = local

    def __repr__(self) -> str:
        return (
            f"DistVector(size={self.size}, dtype={self.dtype}, piece=[{self.start}, "
            f"{self.stop}) of rank {self.comm.rank}/{self.comm.size})"
        )

    @property
    def size(self) -> int:
        """Elements of the whole vector."""
        return self.partition.n

    @property
    def grid(self) -> ProcessGrid:
        """The process grid of the partition."""
        return self.partition.grid

    # --- constructors ------------------------------------------------------------------------

    @classmethod
    def new(
        cls, comm: Communicator, n: int, dtype: Any, *, grid: ProcessGrid | None = None
    ) -> DistVector:
        """An empty vector of ``n`` elements.

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> hb.distributed.DistVector.new(comm, 4, "int64").nnz
        0
        """
        part = _partition(comm, n, grid)
        start, stop = part.piece(comm.rank)
        return cls(comm, part, Vector.new(dtype, stop - start, backend=comm.backend))

    @classmethod
    def from_scalar(
        cls,
        comm: Communicator,
        value: Any,
        n: int,
        *,
        dtype: Any = None,
        grid: ProcessGrid | None = None,
    ) -> DistVector:
        """A full vector of ``n`` copies of ``value``.

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> hb.distributed.DistVector.from_scalar(comm, 2, 3, dtype="int32").nnz
        3
        """
        part = _partition(comm, n, grid)
        start, stop = part.piece(comm.rank)
        local = Vector.from_scalar(value, stop - start, dtype=dtype, backend=comm.backend)
        return cls(comm, part, local)

    @classmethod
    def from_vector(
        cls, comm: Communicator, v: Vector, *, grid: ProcessGrid | None = None
    ) -> DistVector:
        """Each process's piece of ``v``, a vector every process holds (tests, small inputs).

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> v = hb.Vector.from_coo([1], [3.0], size=4)
        >>> hb.distributed.DistVector.from_vector(comm, v).gather().to_coo()
        (array([1]), array([3.]))
        """
        if not isinstance(v, Vector):
            raise InvalidObject(f"from_vector: v must be a Vector, got {short_repr(v)}")
        part = _partition(comm, v.size, grid)
        start, stop = part.piece(comm.rank)
        piece = ops.extract(v.to_backend(comm.backend), np.arange(start, stop))
        return cls(comm, part, piece)

    @classmethod
    def from_coo(
        cls,
        comm: Communicator,
        indices: Any,
        values: Any,
        n: int,
        *,
        dtype: Any = None,
        dup_op: BinaryOp | None = None,
        grid: ProcessGrid | None = None,
    ) -> DistVector:
        """A vector from the entries each process passes (global indices, any process may
        pass any entry); they travel to their pieces' owners. *Collective.*

        Raises
        ------
        IndexOutOfBounds
            On every process, if any process passed an index outside ``[0, n)``.

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> x = hb.distributed.DistVector.from_coo(comm, [4, 0], [1.0, 2.0], 6)
        >>> x.gather().to_coo()
        (array([0, 4]), array([2., 1.]))
        """
        part = _partition(comm, n, grid)
        probe, error = None, None
        try:
            probe = Vector.from_coo(
                indices, values, size=n, dtype=dtype, dup_op=dup_op, backend=comm.backend
            )
        except HyblasError as exc:
            error = exc
        agree(comm, error, "DistVector.from_coo")
        ids, vals = probe.to_coo(device=True)
        (ids,), vals = route(comm, part.owner(ids), [ids], vals, "from_coo")
        start, stop = part.piece(comm.rank)
        local, error = None, None
        try:
            local = Vector.from_coo(
                ids - start, vals, size=stop - start, dtype=probe.dtype, dup_op=dup_op,
                backend=comm.backend,
            )  # fmt: skip
        except HyblasError as exc:
            error = exc
        agree(comm, error, "DistVector.from_coo")
        return cls(comm, part, local)

    # --- views and copies --------------------------------------------------------------------

    @property
    def S(self) -> DistMask:  # noqa: N802 - GraphBLAS spelling
        """The structural mask: where the vector has an entry."""
        return DistMask(self, structural=True)

    @property
    def V(self) -> DistMask:  # noqa: N802 - GraphBLAS spelling
        """The value mask: where the vector has a nonzero entry."""
        return DistMask(self, structural=False)

    def __invert__(self) -> DistMask:
        return DistMask(self, structural=False, complement=True)

    def dup(self, dtype: Any = None) -> DistVector:
        """A copy (of ``dtype``, if given).

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> hb.distributed.DistVector.from_scalar(comm, 1, 3).dup("int8").dtype
        dtype('int8')
        """
        return DistVector(self.comm, self.partition, self.local.dup(dtype))

    def like(self, local: Vector) -> DistVector:
        """A vector on the same partition with ``local`` as this process's piece.

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> x = hb.distributed.DistVector.from_scalar(comm, 1.0, 3)
        >>> x.like(hb.ops.apply(x.local, "ainv")).gather().to_dense()
        array([-1., -1., -1.])
        """
        return DistVector(self.comm, self.partition, local)

    # --- collective queries ------------------------------------------------------------------

    @property
    def nnz(self) -> int:
        """Entries of the whole vector. *Collective.*"""
        return int(self.comm.allreduce_scalar(self.local.nnz, "sum", np.int64))

    def isequal(self, other: DistVector) -> bool:
        """Whether both hold the same entries (per piece, then agreed). *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> x = hb.distributed.DistVector.from_scalar(comm, 1, 3)
        >>> x.isequal(x.dup())
        True
        """
        if not isinstance(other, DistVector):
            raise InvalidObject(f"isequal: a DistVector, got {short_repr(other)}")
        self.partition.check_same(other.partition, "isequal")
        same = self.local.isequal(other.local)
        return bool(self.comm.allreduce_scalar(int(same), "min", np.int64))

    def reduce(self, monoid: Monoid | str = "plus") -> Any:
        """The sum (or ``'min'`` / ``'max'``) of every entry, on every process.
        *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> hb.distributed.DistVector.from_scalar(comm, 0.5, 4).reduce()
        np.float64(2.0)
        """
        name = monoid if isinstance(monoid, str) else getattr(monoid, "name", None)
        reductions = {"plus": "sum", "min": "min", "max": "max"}
        if name not in reductions:
            raise InvalidValue(f"reduce: monoid 'plus', 'min' or 'max', got {short_repr(monoid)}")
        reduction = reductions[name]
        dtype = np.dtype(np.float64) if self.dtype.kind == "f" else np.dtype(np.int64)
        if self.local.nnz:
            local = ops.reduce_scalar(self.local.dup(dtype), name)
        elif reduction == "sum":
            local = 0
        else:
            local = _extreme(dtype, reduction == "min")
        return self.dtype.type(self.comm.allreduce_scalar(local, reduction, dtype))

    def gather(self) -> Vector:
        """The whole vector, on every process (results are gathered on request only).
        *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> hb.distributed.DistVector.from_scalar(comm, 3, 2).gather().to_dense()
        array([3, 3])
        """
        lengths = self.partition.lengths(0, self.comm.size)
        found = gather(self.comm, self.local, lengths, True, "gather", "collect")
        return found.dup() if found is self.local else found  # never the piece itself

    def to_numpy_dense(self, fill_value: Any = None) -> np.ndarray:
        """:meth:`gather`, then its dense NumPy array. *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> hb.distributed.DistVector.from_coo(comm, [1], [5], 3).to_numpy_dense(0)
        array([0, 5, 0])
        """
        return to_numpy(self.gather().to_dense(fill_value=fill_value))


@dataclass(frozen=True)
class DistMask:
    """A DistVector used as a write mask: ``x.S``, ``x.V``, ``~x.S``, ``~x``.

    Attributes
    ----------
    parent : DistVector
    structural : bool
    complement : bool

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> seen = hb.distributed.DistVector.from_coo(comm, [0], [True], 3)
    >>> (~seen.S).complement, seen.S.structural
    (True, True)
    """

    parent: DistVector
    structural: bool
    complement: bool = False

    def __invert__(self) -> DistMask:
        return DistMask(self.parent, self.structural, not self.complement)

    def local(self) -> Mask:
        """The mask over this process's piece.

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> (~hb.distributed.DistVector.new(comm, 2, bool).S).local()
        ~Vector.S
        """
        return Mask(self.parent.local, structural=self.structural, complement=self.complement)

    def over(self, local: Vector) -> Mask:
        """The same kind of mask over another vector (the parent gathered to a block).

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> (~hb.distributed.DistVector.new(comm, 2, bool).S).over(hb.Vector.new(bool, 4))
        ~Vector.S
        """
        return Mask(local, structural=self.structural, complement=self.complement)


def _extreme(dtype: np.dtype, largest: bool) -> Any:
    """The identity of min (the largest value) or max (the smallest) on ``dtype``."""
    if dtype.kind == "f":
        return np.inf if largest else -np.inf
    info = np.iinfo(dtype)
    return info.max if largest else info.min


def _partition(comm: Communicator, n: Any, grid: ProcessGrid | None) -> Partition:
    if not isinstance(n, int | np.integer) or isinstance(n, bool) or n < 0:
        raise InvalidValue(f"a distributed vector's size must be an int >= 0, got {short_repr(n)}")
    grid = grid if grid is not None else ProcessGrid.for_size(communicator(comm, "DistVector").size)
    check_comm(comm, grid, "DistVector")
    return Partition(int(n), grid)
