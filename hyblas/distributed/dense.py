"""Partitioned products of full vectors (every element present), in fixed-size slots: what
PageRank sends each iteration, with no encoding, no size exchanged and no host read of its own.

Each process holds its piece of the input and of the result as a plain array, in the *row
layout* (piece ``k`` on rank ``k``) or the *column layout* (process ``(i, j)`` holds piece
``j * pr + i``; the same as the row layout on a ``p x 1`` grid). A ``vxm`` is::

    gather   the row block's pieces along the grid row: an all-gather of slots (none on a
             p x 1 grid, whose row block is the process's own piece)
    local    ops.vxm on the block
    reduce   the column block's results (the monoid's identity where the block holds no
             entry) reduce-scattered along the grid column: this process's piece of the
             column layout
    permute  that piece to its owner in the row layout, an all-to-all of known sizes (none
             on a p x 1 grid, none where the caller keeps the column layout)

and an ``mxv`` the same with rows and columns exchanged: the column layout's pieces (a
permute first, unless the caller holds them) all-gathered along the grid column, ``ops.mxv``
on the block, the row block's results reduce-scattered along the grid row, which leaves each
process its own piece of the row layout. So on a square grid a ``vxm`` into the column layout
followed by an ``mxv`` from it moves no piece to its owner: PageRank over a symmetric matrix
alternates them.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from .. import ops
from ..containers.vector import Vector
from ..errors import InvalidValue
from ..operators import Semiring
from ..ops.checks import operator
from .exchange import dense_identity, dense_reduction
from .matrix import DistMatrix
from .slots import SlotLayout
from .trace import Timer

__all__ = ["DenseExchange", "vxm_volume"]

Layout = Literal["row", "column"]


class DenseExchange:
    """``u ⊕.⊗ A`` and ``A ⊕.⊗ u`` for full vectors ``u`` over ``A``'s partition (see the
    module's text).

    Parameters
    ----------
    A : DistMatrix
        Square, rows and columns cut alike.
    semiring : Semiring or str
        Its monoid must be one of the collective's reductions (plus, times, min, max).
    dtype : dtype
        The input vectors' dtype.
    executor : str
        The local products' executor.

    Raises
    ------
    DimensionMismatch
        If ``A``'s rows and columns are cut differently (it is not square).
    InvalidValue
        For a monoid no collective computes.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 1], [1, 2], [2.0, 3.0], nrows=3)
    >>> product = hb.distributed.DenseExchange(A, hb.semiring.plus_times, np.float64)
    >>> product.vxm(np.array([1.0, 1.0, 1.0]))
    array([0., 2., 3.])
    >>> product.mxv(np.array([1.0, 1.0, 1.0]))
    array([2., 3., 0.])
    """

    def __init__(
        self,
        A: DistMatrix,
        semiring: Semiring,
        dtype: Any,
        executor: str = "auto",  # noqa: N803
    ) -> None:
        semiring = operator(semiring, (Semiring,), "semiring")
        A.cols.check_same(A.rows, "DenseExchange (a square matrix)")
        self.A = A
        self.semiring = semiring
        self.executor = executor
        self.dtype = semiring.output_type(semiring.input_type(A.dtype, np.dtype(dtype)))
        reduction = dense_reduction(semiring.monoid, self.dtype)
        if reduction is None:
            raise InvalidValue(
                f"DenseExchange: no collective computes the monoid {semiring.monoid.name!r} "
                f"on {self.dtype}"
            )
        self.reduction = reduction
        self.identity = dense_identity(reduction, self.dtype)
        self.layout = SlotLayout.of(A.rows)
        comm, grid = A.comm, A.grid
        i, j = grid.coords(comm.rank)
        self.rows, self.cols = grid.row_pieces(i), grid.column_pieces(j)
        self.held = grid.column_piece(comm.rank)
        self.holder = grid.column_holder(comm.rank)
        (r0, r1), (c0, c1) = A.rows.row_block(i), A.cols.column_block(j)
        # every input element is present: the local products' bitmaps
        self.present = {"vxm": comm.xp.ones(r1 - r0, dtype=bool),
                        "mxv": comm.xp.ones(c1 - c0, dtype=bool)}  # fmt: skip

    def vxm(self, piece: Any, *, result: Layout = "row") -> Any:
        """This process's piece of ``u ⊕.⊗ A``, for ``u``'s piece ``piece`` (a full array of
        this process's piece length, in the row layout). *Collective.*

        ``result='column'``: the piece of the column layout, where the reduction leaves it
        (no permute).

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 0], [1, 2], [1.0, 4.0], nrows=3)
        >>> hb.distributed.DenseExchange(A, "plus_times", np.float64).vxm(np.ones(3))
        array([0., 1., 4.])
        """
        _check_layout(result, "result")
        x = self._gather(piece, self.A.row_group, self.rows, "vxm")
        full = self._local("vxm", x)
        mine = self._reduce(full, self.A.col_group, self.cols, self.held, "vxm")
        return mine if result == "column" else self.to_row(mine)

    def mxv(self, piece: Any, *, given: Layout = "row") -> Any:
        """This process's piece of ``A ⊕.⊗ u`` in the row layout, for ``u``'s piece ``piece``
        (a full array) in the row layout, or with ``given='column'`` in the column layout
        (no permute first). *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 0], [1, 2], [1.0, 4.0], nrows=3)
        >>> hb.distributed.DenseExchange(A, "plus_times", np.float64).mxv(np.ones(3))
        array([5., 0., 0.])
        """
        _check_layout(given, "given")
        column = piece if given == "column" else self.to_column(piece)
        x = self._gather(column, self.A.col_group, self.cols, "mxv")
        full = self._local("mxv", x)
        return self._reduce(full, self.A.row_group, self.rows, self.A.comm.rank, "mxv")

    def to_column(self, piece: Any) -> Any:
        """The column layout's piece of this process, from ``piece`` in the row layout (an
        all-to-all of known sizes; ``piece`` itself on a ``p x 1`` grid). *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.from_edges(comm, [0], [1], nrows=2)
        >>> hb.distributed.DenseExchange(A, "plus_times", np.float64).to_column(np.ones(2))
        array([1., 1.])
        """
        return self._move(piece, self.holder, self.held, self.held, "mxv")

    def to_row(self, piece: Any) -> Any:
        """This process's own piece (the row layout), from ``piece`` in the column layout: the
        inverse of :meth:`to_column`. *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.from_edges(comm, [0], [1], nrows=2)
        >>> hb.distributed.DenseExchange(A, "plus_times", np.float64).to_row(np.ones(2))
        array([1., 1.])
        """
        return self._move(piece, self.held, self.holder, self.A.comm.rank, "vxm")

    def _local(self, op: str, x: Any) -> Any:
        """The block's product with the gathered ``x``, full: the monoid's identity where
        the block holds no entry."""
        timer = Timer()
        u = Vector.wrap_bitmap(x, self.present[op], backend=self.A.comm.backend, nnz=x.size)
        if op == "vxm":
            partial = ops.vxm(u, self.A.local, self.semiring, executor=self.executor)
        else:
            partial = ops.mxv(self.A.local, u, self.semiring, executor=self.executor)
        timer.done(op, "local", nnz=x.size, size=partial.size)
        values, present = partial.as_bitmap()
        return partial.xp.where(present, values, self.identity).astype(self.dtype, copy=False)

    def _gather(self, piece: Any, group: Any, pieces: range, op: str) -> Any:
        """The block's input: ``pieces`` (this process's among them) gathered along
        ``group``."""
        layout = self.layout
        timer = Timer(group)
        if group.size == 1:
            x = piece
        else:
            padded = piece
            if piece.size != layout.slot:
                padded = group.xp.zeros(layout.slot, dtype=piece.dtype)
                padded[: piece.size] = piece
            x = group.allgather(padded)
            if not layout.filled(pieces):  # the pieces end to end, padding dropped
                x = layout.block(x, pieces[0], len(pieces), at=pieces[0])
        timer.done(op, "gather", encoding="dense", nnz=piece.size, size=piece.size)
        return x

    def _reduce(self, full: Any, group: Any, pieces: range, mine: int, op: str) -> Any:
        """Piece ``mine`` of the block's results ``full`` (``pieces`` end to end) reduced
        along ``group``."""
        layout = self.layout
        timer = Timer(group)
        slots = full if layout.filled(pieces) else layout.slots(full, pieces[0], len(pieces))
        if group.size > 1:
            slots = group.reduce_scatter(slots, [layout.slot] * group.size, self.reduction)
        timer.done(op, "reduce", encoding="dense", nnz=full.size, size=full.size)
        return slots[: int(layout.lengths[mine])]

    def _move(self, piece: Any, send_to: int, receive_from: int, arriving: int, op: str) -> Any:
        """``piece`` to rank ``send_to``; what rank ``receive_from`` sends here (piece
        ``arriving``): the permute between the layouts."""
        comm = self.A.comm
        if self.A.grid.cols == 1:  # the two layouts are one
            return piece
        timer = Timer(comm)
        empty = piece[:0]
        chunks = [piece if k == send_to else empty for k in range(comm.size)]
        counts = [0] * comm.size
        counts[receive_from] = int(self.layout.lengths[arriving])
        moved = comm.alltoallv(chunks, counts)[receive_from]
        timer.done(op, "permute", encoding="dense", nnz=piece.size, size=piece.size)
        return moved


def _check_layout(found: Any, name: str) -> None:
    if found not in ("row", "column"):
        raise InvalidValue(f"DenseExchange: {name} must be 'row' or 'column', got {found!r}")


def vxm_volume(part: Any, value_bytes: float, *, to_owners: bool = True) -> float:
    """Bytes one process sends, on average over the grid, in a :class:`DenseExchange` product
    over partition ``part``: its slot to the ``pc - 1`` others of its grid row, its column
    block's other ``pr - 1`` slots in the reduce-scatter (the ring algorithms), and its slot
    to the owner unless it holds its own (the diagonal of a square grid; every process of a
    ``p x 1`` one). An ``mxv`` sends as much, rows and columns exchanged.

    ``to_owners=False``: a product that leaves its result where the reduction leaves it (the
    column layout, or an ``mxv`` from there): PageRank's over a symmetric matrix.

    Examples
    --------
    >>> part = hb.distributed.Partition(1 << 20, hb.distributed.ProcessGrid(2, 2))
    >>> hb.distributed.vxm_volume(part, 4.0)  # 2 x 1 MiB slots, half the processes move one
    2621440.0
    >>> hb.distributed.vxm_volume(part, 4.0, to_owners=False)
    2097152.0
    """
    grid = part.grid
    slot = SlotLayout.of(part).slot * value_bytes
    moved = 0.0 if grid.cols == 1 or not to_owners else (grid.size - grid.rows) / grid.size
    return float(((grid.cols - 1) + (grid.rows - 1) + moved) * slot)
