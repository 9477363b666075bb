"""DistMatrix: a matrix cut into the blocks of a process grid, block ``(i, j)`` held by process
``(i, j)`` as an ordinary :class:`~hyblas.Matrix`, which the single-device executors run."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from .. import ops
from ..backend import Communicator
from ..containers.derived import known_symmetric_values
from ..containers.matrix import Matrix
from ..device import arrays as _prim
from ..dtypes import short_repr
from ..errors import HyblasError, InvalidObject, InvalidValue
from ..generators import kronecker_edges
from ..operators import BinaryOp
from .grid import Partition, ProcessGrid
from .held import LocallyHeld
from .routing import agree, check_comm, communicator, groups, route

__all__ = ["DistMatrix"]


class DistMatrix(LocallyHeld):
    """An ``nrows x ncols`` matrix over the processes of ``comm``, in the blocks of a process
    grid (``√p x √p``, or ``p x 1``; see :class:`~hyblas.distributed.Partition`).

    Every method that says *collective* is called by every process of ``comm`` together.

    Parameters
    ----------
    comm : Communicator
    rows, cols : Partition
        The row and column indices over the grid.
    local : Matrix
        This process's block, indices relative to the block's first row and column.
    symmetric : bool
        Whether the whole matrix is known to equal its transpose, values included (the caller
        vouches for it, as for an undirected :class:`~hyblas.Graph`): its products may then
        run over either side of the blocks (:class:`~hyblas.distributed.DenseExchange`).

    Attributes
    ----------
    row_range, col_range : tuple of int
        The block's rows and columns, ``(start, stop)``.
    symmetric : bool
        As the parameter.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 1], [1, 2], nrows=3)
    >>> A.shape, A.nnz, A.local.shape
    ((3, 3), 2, (3, 3))
    """

    def __init__(
        self,
        comm: Communicator,
        rows: Partition,
        cols: Partition,
        local: Matrix,
        *,
        symmetric: bool = False,
    ) -> None:
        check_comm(comm, rows.grid, "DistMatrix")
        if rows.grid != cols.grid:
            raise InvalidValue("DistMatrix: rows and columns cut over different grids")
        if not isinstance(local, Matrix):
            raise InvalidObject(f"DistMatrix: local must be a Matrix, got {short_repr(local)}")
        self.comm = comm
        self.rows = rows
        self.cols = cols
        i, j = rows.grid.coords(comm.rank)
        self.row_range = rows.row_block(i)
        self.col_range = cols.column_block(j)
        shape = (self.row_range[1] - self.row_range[0], self.col_range[1] - self.col_range[0])
        if local.shape != shape:
            raise InvalidValue(f"DistMatrix: block ({i}, {j}) is {shape}, local is {local.shape}")
        self.local = local
        self.symmetric = bool(symmetric) and rows == cols
        self.row_group, self.col_group = groups(comm, rows.grid)

    def __repr__(self) -> str:
        return (
            f"DistMatrix(shape={self.shape}, dtype={self.dtype}, grid={self.grid.rows}x"
            f"{self.grid.cols}, block rows {self.row_range} cols {self.col_range} on rank "
            f"{self.comm.rank})"
        )

    @property
    def grid(self) -> ProcessGrid:
        """The process grid."""
        return self.rows.grid

    @property
    def shape(self) -> tuple[int, int]:
        """``(nrows, ncols)`` of the whole matrix."""
        return self.rows.n, self.cols.n

    @property
    def nrows(self) -> int:
        """Rows of the whole matrix."""
        return self.rows.n

    @property
    def ncols(self) -> int:
        """Columns of the whole matrix."""
        return self.cols.n

    @property
    def nnz(self) -> int:
        """Stored entries of the whole matrix. *Collective.*"""
        return int(self.comm.allreduce_scalar(self.local.nnz, "sum", np.int64))

    # --- constructors ------------------------------------------------------------------------

    @classmethod
    def from_edges(
        cls,
        comm: Communicator,
        rows: Any,
        cols: Any,
        values: Any = None,
        *,
        nrows: int,
        ncols: int | None = None,
        dtype: Any = None,
        dup_op: BinaryOp | None = None,
        grid: ProcessGrid | None = None,
        symmetric: bool = False,
    ) -> DistMatrix:
        """A matrix from the entries each process passes (global indices; any process may
        pass any entry): they travel to their blocks' owners, who build their blocks.
        *Collective.*

        Parameters
        ----------
        comm : Communicator
        rows, cols : array_like of int
            This process's share of the entries.
        values : array_like or scalar, optional
            Default: 1 of ``dtype`` (float64 without one).
        nrows : int
        ncols : int, optional
            Default ``nrows``.
        dtype : dtype, optional
        dup_op : BinaryOp, optional
            Combines repeated entries (within and across processes); without it, a repeat
            raises.
        grid : ProcessGrid, optional
            Default :meth:`ProcessGrid.for_size` of the communicator's size.
        symmetric : bool
            The caller vouches that the entries equal their transpose, values included (an
            undirected graph with each edge passed both ways): see ``symmetric``.

        Raises
        ------
        IndexOutOfBounds, InvalidValue, DomainMismatch
            On every process, for an entry out of bounds, a repeat without ``dup_op`` or a
            value of no hyblas type on any process.

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.from_edges(
        ...     comm, [0, 0], [1, 1], nrows=2, dup_op=hb.binary.plus
        ... )
        >>> A.gather().to_coo()
        (array([0]), array([1]), array([2.]))
        """
        row_part, col_part = _partitions(comm, nrows, nrows if ncols is None else ncols, grid)
        probe, error = None, None
        try:  # checks this process's share: bounds, values, repeats within it
            probe = Matrix.from_coo(
                rows, cols, 1.0 if values is None else values, nrows=row_part.n,
                ncols=col_part.n, dtype=dtype, dup_op=dup_op, backend=comm.backend,
            )  # fmt: skip
        except HyblasError as exc:
            error = exc
        agree(comm, error, "DistMatrix.from_edges")
        r, c, v = _coo(probe)
        return cls._build(comm, row_part, col_part, r, c, v, probe.dtype, dup_op, symmetric)

    @classmethod
    def _build(
        cls,
        comm: Communicator,
        row_part: Partition,
        col_part: Partition,
        r: Any,
        c: Any,
        v: Any,
        dtype: np.dtype,
        dup_op: BinaryOp | None,
        symmetric: bool = False,
    ) -> DistMatrix:
        """Route the global entries ``(r, c, v)`` to their blocks' owners and build."""
        dest = _owners(row_part, col_part, r, c)
        (r, c), v = route(comm, dest, [r, c], v, "build")
        i, j = row_part.grid.coords(comm.rank)
        (r0, r1), (c0, c1) = row_part.row_block(i), col_part.column_block(j)
        local, error = None, None
        try:  # repeats across processes
            local = Matrix.from_coo(
                r - r0, c - c0, v, nrows=r1 - r0, ncols=c1 - c0, dtype=dtype, dup_op=dup_op,
                backend=comm.backend,
            )  # fmt: skip
        except HyblasError as exc:
            error = exc
        agree(comm, error, "DistMatrix.from_edges")
        return cls(comm, row_part, col_part, local, symmetric=symmetric)

    @classmethod
    def from_matrix(
        cls,
        comm: Communicator,
        A: Matrix,
        *,
        grid: ProcessGrid | None = None,
        symmetric: bool | None = None,
    ) -> DistMatrix:
        """Each process's block of ``A``, a matrix every process holds (tests, small
        inputs; large graphs come from :meth:`from_edges` or :meth:`kronecker`).

        ``symmetric``: whether ``A`` equals its transpose (see ``symmetric``); None
        (default): where ``A`` is known to (an undirected :class:`~hyblas.Graph`'s matrix is
        not marked: pass True for it).

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.generators.grid_2d(2, 2)
        >>> hb.distributed.DistMatrix.from_matrix(comm, A).gather().isequal(A)
        True
        """
        if not isinstance(A, Matrix):
            raise InvalidObject(f"from_matrix: A must be a Matrix, got {short_repr(A)}")
        row_part, col_part = _partitions(comm, A.nrows, A.ncols, grid)
        i, j = row_part.grid.coords(comm.rank)
        (r0, r1), (c0, c1) = row_part.row_block(i), col_part.column_block(j)
        block = ops.extract(A.to_backend(comm.backend), np.arange(r0, r1), np.arange(c0, c1))
        if symmetric is None:
            symmetric = known_symmetric_values(A)
        return cls(comm, row_part, col_part, block, symmetric=symmetric)

    @classmethod
    def kronecker(
        cls,
        comm: Communicator,
        scale: int,
        edge_factor: int = 16,
        *,
        seed: int = 0,
        symmetric: bool = True,
        dtype: Any = np.float32,
        grid: ProcessGrid | None = None,
    ) -> DistMatrix:
        """The graph of :func:`hyblas.generators.kronecker`, built in parallel: process ``k``
        generates the ``k``-th share of the edge stream
        (:func:`~hyblas.generators.kronecker_edges`), and the edges travel to their blocks'
        owners. *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.kronecker(comm, 5, 4, seed=2)
        >>> A.gather().isequal(hb.generators.kronecker(5, 4, seed=2))
        True
        """
        n = 1 << int(scale) if isinstance(scale, int) and 0 <= scale <= 31 else None
        if n is None or not isinstance(edge_factor, int) or edge_factor < 0:
            raise InvalidValue(
                f"kronecker: scale in [0, 31] and edge_factor >= 0, got {short_repr(scale)}, "
                f"{short_repr(edge_factor)}"
            )
        m = edge_factor * n
        share = (comm.rank * m // comm.size, (comm.rank + 1) * m // comm.size)
        src, dst = kronecker_edges(
            scale, edge_factor, seed=seed, start=share[0], stop=share[1], backend=comm.backend
        )
        xp = comm.xp
        index = _prim.index_dtype(n)  # int32 ids: half the bytes routed
        src, dst = src.astype(index), dst.astype(index)
        if symmetric:
            src, dst = xp.concatenate([src, dst]), xp.concatenate([dst, src])
        row_part, col_part = _partitions(comm, n, n, grid)
        dest = _owners(row_part, col_part, src, dst)
        (src, dst), _ = route(comm, dest, [src, dst], None, "build")
        del dest
        i, j = row_part.grid.coords(comm.rank)
        (r0, r1), (c0, c1) = row_part.row_block(i), col_part.column_block(j)
        width = np.int64(max(c1 - c0, 1))
        keys = (src.astype(np.int64) - r0) * width + (dst.astype(np.int64) - c0)
        del src, dst
        keys = _prim.sorted_unique(xp, keys, overwrite=True)  # repeated edges merged
        idx = _prim.index_dtype(int(keys.size), r1 - r0, c1 - c0)
        indptr, indices = _prim.csr_from_sorted_keys(xp, keys, r1 - r0, c1 - c0, idx)
        values = xp.ones(keys.size, dtype=_dt.lookup(dtype))
        local = Matrix(indptr, indices, values, (r1 - r0, c1 - c0), backend=comm.backend)
        return cls(comm, row_part, col_part, local, symmetric=symmetric)

    # --- derived matrices and results --------------------------------------------------------

    def transpose(self) -> DistMatrix:
        """``Aᵀ`` over the same grid (each block's entries travel to their new owner; a
        ``symmetric`` matrix is its own transpose). *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.from_edges(comm, [0], [2], nrows=3)
        >>> A.transpose().gather().to_coo()[:2]
        (array([2]), array([0]))
        """
        if self.symmetric:
            return self
        r, c, v = self._global_coo()
        return DistMatrix._build(self.comm, self.cols, self.rows, c, r, v, self.dtype, None)

    def with_local(self, local: Matrix) -> DistMatrix:
        """A matrix on the same partition with ``local`` as this process's block (not known
        ``symmetric``).

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.from_edges(comm, [0], [1], [2.0], nrows=2)
        >>> A.with_local(hb.ops.apply(A.local, "ainv")).gather().to_coo()[2]
        array([-2.])
        """
        return DistMatrix(self.comm, self.rows, self.cols, local)

    def gather(self) -> Matrix:
        """The whole matrix, on every process. *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> hb.distributed.DistMatrix.from_edges(comm, [1], [0], nrows=2).gather().nnz
        1
        """
        r, c, v = self._global_coo()
        xp = self.comm.xp
        rows = xp.concatenate(self.comm.allgatherv(r))
        cols = xp.concatenate(self.comm.allgatherv(c))
        values = xp.concatenate(self.comm.allgatherv(v))
        return Matrix.from_coo(
            rows, cols, values, nrows=self.nrows, ncols=self.ncols, dtype=self.dtype,
            backend=self.backend,
        )  # fmt: skip

    def _global_coo(self) -> tuple[Any, Any, Any]:
        r, c, v = _coo(self.local)
        return r + self.row_range[0], c + self.col_range[0], v


def _owners(row_part: Partition, col_part: Partition, r: Any, c: Any) -> Any:
    """The rank owning the block of each entry ``(r[e], c[e])`` (int16: few processes)."""
    grid = row_part.grid
    block_row = row_part.owner(r) // grid.cols
    block_col = col_part.owner(c) // grid.rows
    return (block_row * grid.cols + block_col).astype(np.int16)


def _coo(A: Matrix) -> tuple[Any, Any, Any]:  # noqa: N803
    """The entries of ``A`` as arrays of its backend (int64 indices)."""
    xp = A.xp
    counts = xp.diff(A.indptr)
    rows = xp.repeat(xp.arange(A.nrows, dtype=np.int64), counts)
    return rows, A.indices.astype(np.int64), A.values


def _partitions(
    comm: Communicator, nrows: Any, ncols: Any, grid: ProcessGrid | None
) -> tuple[Partition, Partition]:
    for name, value in (("nrows", nrows), ("ncols", ncols)):
        if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < 0:
            raise InvalidValue(f"a distributed matrix's {name} must be an int >= 0, got {value!r}")
    grid = grid if grid is not None else ProcessGrid.for_size(communicator(comm, "DistMatrix").size)
    check_comm(comm, grid, "DistMatrix")
    return Partition(int(nrows), grid), Partition(int(ncols), grid)
