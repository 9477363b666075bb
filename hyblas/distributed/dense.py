"""A partitioned ``vxm`` of full vectors (every element present), in fixed-size slots: what
PageRank sends each iteration, with no encoding, no size exchanged and no host read of its own.

Each process holds its piece of the input and of the result as a plain array (the row
layout: piece ``k`` on rank ``k``). A product is::

    gather   the row block's pieces along the grid row: an all-gather of slots (none on a
             p x 1 grid, whose row block is the process's own piece)
    local    ops.vxm on the block
    reduce   the column block's results (the monoid's identity where the block holds no
             entry) reduce-scattered along the grid column: this process's slot of the column
             layout (piece ``j * pr + i``)
    permute  that slot to its owner, an all-to-all of known sizes (none on a p x 1 grid)
"""

from __future__ import annotations

from typing import Any

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


class DenseExchange:
    """``u ⊕.⊗ A`` for full vectors ``u`` over ``A``'s partition (see the module's text).

    Parameters
    ----------
    A : DistMatrix
    semiring : Semiring or str
        Its monoid must be one of the collective's reductions (plus, times, min, max).
    dtype : dtype
        The input vectors' dtype.
    executor : str
        The local products' executor.

    Raises
    ------
    InvalidValue
        For a monoid no collective computes.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 1], [1, 2], [2.0, 3.0], nrows=3)
    >>> product = hb.distributed.DenseExchange(A, hb.semiring.plus_times, np.float64)
    >>> product.vxm(np.array([1.0, 1.0, 1.0]))
    array([0., 2., 3.])
    """

    def __init__(
        self,
        A: DistMatrix,
        semiring: Semiring,
        dtype: Any,
        executor: str = "auto",  # noqa: N803
    ) -> None:
        semiring = operator(semiring, (Semiring,), "semiring")
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
        # the column block's pieces fill their slots (no padding): its result is its slots
        self.unpadded = all(int(self.layout.lengths[k]) == self.layout.slot for k in self.cols)
        start, stop = A.rows.row_block(i)
        self.present = comm.xp.ones(stop - start, dtype=bool)

    def vxm(self, piece: Any) -> Any:
        """This process's piece of ``u ⊕.⊗ A``, for ``u``'s piece ``piece`` (a full array of
        this process's piece length). *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 0], [1, 2], [1.0, 4.0], nrows=3)
        >>> hb.distributed.DenseExchange(A, "plus_times", np.float64).vxm(np.ones(3))
        array([0., 1., 4.])
        """
        x = self._gather(piece)
        timer = Timer()
        u = Vector.wrap_bitmap(x, self.present, backend=self.A.comm.backend, nnz=x.size)
        partial = ops.vxm(u, self.A.local, self.semiring, executor=self.executor)
        timer.done("vxm", "local", nnz=x.size, size=partial.size)
        values, present = partial.as_bitmap()
        full = partial.xp.where(present, values, self.identity).astype(self.dtype, copy=False)
        return self._permute(self._reduce(full))

    def _gather(self, piece: Any) -> Any:
        group, layout = self.A.row_group, self.layout
        timer = Timer(group)
        if group.size == 1:
            x = piece
        else:
            padded = group.xp.zeros(layout.slot, dtype=piece.dtype)
            padded[: piece.size] = piece
            x = layout.block(group.allgather(padded), self.rows[0], len(self.rows),
                             at=self.rows[0])  # fmt: skip
        timer.done("vxm", "gather", encoding="dense", nnz=piece.size, size=piece.size)
        return x

    def _reduce(self, full: Any) -> Any:
        group, layout = self.A.col_group, self.layout
        timer = Timer(group)
        slots = full if self.unpadded else layout.slots(full, self.cols[0], len(self.cols))
        if group.size > 1:
            slots = group.reduce_scatter(slots, [layout.slot] * group.size, self.reduction)
        timer.done("vxm", "reduce", encoding="dense", nnz=full.size, size=full.size)
        return slots[: int(self.layout.lengths[self.held])]

    def _permute(self, mine: Any) -> Any:
        comm = self.A.comm
        if self.A.grid.cols == 1:  # each process reduced its own piece
            return mine
        timer = Timer(comm)
        empty = mine[:0]
        chunks = [mine if k == self.held else empty for k in range(comm.size)]
        counts = [0] * comm.size
        counts[self.holder] = int(self.layout.lengths[comm.rank])
        own = comm.alltoallv(chunks, counts)[self.holder]
        timer.done("vxm", "permute", encoding="dense", nnz=mine.size, size=mine.size)
        return own


def vxm_volume(part: Any, value_bytes: float) -> float:
    """Bytes one process sends, on average over the grid, in a :class:`DenseExchange` product
    over partition ``part``: its slot to the ``pc - 1`` others of its grid row, its column
    block's other ``pr - 1`` slots in the reduce-scatter (the ring algorithms), and its slot
    to the owner unless it holds its own (the diagonal of a square grid; every process of a
    ``p x 1`` one).

    Examples
    --------
    >>> part = hb.distributed.Partition(1 << 20, hb.distributed.ProcessGrid(2, 2))
    >>> hb.distributed.vxm_volume(part, 4.0)  # 2 x 1 MiB slots, half the processes move one
    2621440.0
    """
    grid = part.grid
    slot = SlotLayout.of(part).slot * value_bytes
    moved = 0.0 if grid.cols == 1 else (grid.size - grid.rows) / grid.size
    return float(((grid.cols - 1) + (grid.rows - 1) + moved) * slot)
