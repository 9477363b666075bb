"""A BFS level's exchange in fixed-size slots: the frontier and the visited set kept whole on
every process, so that a level needs no size negotiation.

Every process holds both as flags in the *slot layout*: piece ``k`` of the partition at
``[k * L, k * L + len_k)``, ``L`` the longest piece rounded up to a multiple of 8, so that every
piece fills one slot of the same size. A level of :func:`~hyblas.distributed.bfs` is then::

    local    ops.vxm of the row block's frontier over this process's block, masked by the
             column block's unvisited vertices (the local policy may push or pull)
    reduce   the partial result's flags (a byte per column of the block) reduce-scattered
             ("max") along the grid column: this process's slot of the new frontier
             (piece ``j * pr + i``)
    gather   the slots' counts all-reduced (the level's one host read: the loop's test and the
             encoding), then every slot to every process, as packed bits (``L / 8`` bytes) or
             as its indices padded to the widest slot's count, whichever is smaller

Three collectives and one host read a level, against the ~12 collectives (and the host reads
of their size exchanges) of a general masked :func:`~hyblas.distributed.vxm`.

On a ``p x 1`` grid the level of a matrix with ``A.symmetric`` (see
:class:`~hyblas.distributed.DistMatrix`) is instead ``ops.mxv`` of the whole frontier (every
process holds it) over the block, masked by the process's own unvisited vertices: its result
is the process's own slot, so nothing is reduced (two collectives a level), and the local
product's output and mask are a piece long, not ``n``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import ops
from .. import semiring as _semiring
from ..backend import to_numpy
from ..containers.vector import Vector
from .exchange import Choice
from .matrix import DistMatrix
from .slots import SlotLayout
from .trace import Timer

__all__ = ["Frontier", "FrontierExchange", "level_volume"]


@dataclass
class Frontier:
    """One BFS level on every process: the slot-layout flags and the count of each piece.

    Attributes
    ----------
    flags : array
        Bool, ``slots * L`` long (the same on every process).
    counts : numpy.ndarray
        Entries of each piece (int64, on the host).
    """

    flags: Any
    counts: np.ndarray

    @property
    def nnz(self) -> int:
        """Entries over all pieces."""
        return int(self.counts.sum())


class FrontierExchange:
    """The level step of a BFS over ``A`` (square, rows = sources): see the module's text.

    Parameters
    ----------
    A : DistMatrix
    executor : str
        The local products' executor.

    Attributes
    ----------
    own_rows : bool
        Whether each process computes its own rows' next level, nothing reduced (a
        symmetric matrix on a ``p x 1`` grid; see the module's text).

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 1], [1, 2], nrows=3)
    >>> walk = hb.distributed.FrontierExchange(A)
    >>> first = walk.start(0)
    >>> walk.level(first, first).counts.tolist()  # vertex 1, one edge from 0
    [1]
    """

    def __init__(self, A: DistMatrix, executor: str = "auto") -> None:  # noqa: N803
        self.A = A
        self.comm = A.comm
        self.executor = executor
        self.layout = SlotLayout.of(A.rows)
        grid = A.grid
        i, j = grid.coords(self.comm.rank)
        self.rows, self.cols = grid.row_pieces(i), grid.column_pieces(j)
        self.held = grid.column_piece(self.comm.rank)  # the slot this process reduces
        # the allgathered slots arrive in rank order: piece k from column_holder(k), and
        # rank r's slot is piece column_piece(r) (device copies, made once)
        xp = self.comm.xp
        holders = [grid.column_holder(k) for k in range(grid.size)]
        self.holders = None if holders == list(range(grid.size)) else xp.asarray(holders)
        self.slot_pieces = xp.asarray([grid.column_piece(r) for r in range(grid.size)],
                                      dtype=np.int64)  # fmt: skip
        self.any_pair = _semiring["any_pair"][np.bool_]
        # each process computes its own rows' next level (see the module's text)
        self.own_rows = A.symmetric and grid.cols == 1

    def start(self, source: int) -> Frontier:
        """The frontier holding ``source`` alone.

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.from_edges(comm, [0], [1], nrows=3)
        >>> hb.distributed.FrontierExchange(A).start(2).nnz
        1
        """
        xp = self.comm.xp
        layout = self.layout
        piece = int(self.A.rows.owner(np.asarray([source]))[0])
        start, _ = self.A.rows.piece(piece)
        flags = xp.zeros(layout.count * layout.slot, dtype=bool)
        flags[piece * layout.slot + source - start] = True
        counts = np.zeros(layout.count, dtype=np.int64)
        counts[piece] = 1
        return Frontier(flags, counts)

    def own(self, frontier: Frontier) -> Any:
        """This process's piece of ``frontier``'s flags.

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.from_edges(comm, [0], [1], nrows=3)
        >>> walk = hb.distributed.FrontierExchange(A)
        >>> walk.own(walk.start(2)).tolist()
        [False, False, True]
        """
        return self.layout.block(frontier.flags, self.comm.rank, 1)

    def level(self, frontier: Frontier, visited: Frontier) -> Frontier:
        """The next level: the unvisited vertices one edge from ``frontier``. *Collective.*

        Examples
        --------
        >>> comm = hb.distributed.init("cpu")
        >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 0, 1], [1, 2, 2], nrows=3)
        >>> walk = hb.distributed.FrontierExchange(A)
        >>> first = walk.start(0)
        >>> walk.own(walk.level(first, first)).tolist()
        [False, True, True]
        """
        A, layout = self.A, self.layout
        # the input's pieces (the frontier) and the output's (masked by the unvisited)
        inputs, outputs = (self.cols, self.rows) if self.own_rows else (self.rows, self.cols)
        timer = Timer()
        x = _flags_vector(layout.block(frontier.flags, inputs[0], len(inputs)),
                          int(frontier.counts[inputs].sum()), self.comm.backend)  # fmt: skip
        seen = _flags_vector(layout.block(visited.flags, outputs[0], len(outputs)),
                             int(visited.counts[outputs].sum()), self.comm.backend,
                             settle=False)  # fmt: skip
        if self.own_rows:
            partial = ops.mxv(A.local, x, self.any_pair, mask=~seen.S, executor=self.executor)
        else:
            partial = ops.vxm(x, A.local, self.any_pair, mask=~seen.S, executor=self.executor)
        timer.done("bfs", "local", nnz=x.nnz, size=partial.size)
        if self.own_rows:  # this process's own slot already
            mine = partial.presence().view(np.uint8)
            if not layout.filled(outputs):
                mine = layout.slots(mine, outputs[0], len(outputs))
        else:
            mine = self._reduce(partial.presence(), outputs)
        return self._gather(mine)

    def _reduce(self, presence: Any, cols: range) -> Any:
        """This process's slot of the new frontier: the column block's flags combined along
        the grid column (uint8, ``L`` long)."""
        group = self.A.col_group
        layout = self.layout
        timer = Timer(group)
        block = layout.slots(presence.view(np.uint8), cols[0], len(cols))
        mine = block if group.size == 1 else group.reduce_scatter(
            block, [layout.slot] * group.size, "max"
        )  # fmt: skip
        timer.done("bfs", "reduce", encoding="dense", size=block.size)
        return mine

    def _gather(self, mine: Any) -> Frontier:
        """Every slot on every process, in the smaller encoding the slots' counts allow."""
        comm, layout = self.comm, self.layout
        xp = comm.xp
        L = layout.slot  # noqa: N806
        timer = Timer(comm)
        counts = xp.zeros(layout.count, dtype=np.int64)
        counts[self.held] = xp.count_nonzero(mine)
        if comm.size > 1:
            counts = comm.allreduce(counts, "sum")
        counts = to_numpy(counts)
        widest = int(counts.max(initial=0))
        index = np.dtype(np.int32) if L < 2**31 else np.dtype(np.int64)
        choice = Choice(
            "sparse" if widest * index.itemsize < L // 8 else "bitmap",
            widest * index.itemsize,
            L // 8,
        )
        if comm.size == 1:
            flags = mine.view(bool)
        elif widest == 0:  # the search is over
            flags = xp.zeros(layout.count * L, dtype=bool)
        elif choice.encoding == "bitmap":
            flags = self._in_piece_order(
                xp.unpackbits(comm.allgather(xp.packbits(mine))).view(bool).reshape(-1, L)
            )
        else:
            flags = self._scatter(comm.allgather(_padded_ids(xp, mine, widest, index)), widest)
        timer.done("bfs", "gather", choice=choice, nnz=int(counts[self.held]), size=L)
        return Frontier(flags, counts)

    def _in_piece_order(self, by_rank: Any) -> Any:
        """Slots received in rank order (one row each) put in piece order, flattened."""
        if self.holders is not None:
            by_rank = by_rank[self.holders]
        return by_rank.reshape(-1)

    def _scatter(self, ids: Any, widest: int) -> Any:
        """The flags of the slots' index lists (``widest`` per process, -1 past the end)."""
        xp = self.comm.xp
        layout = self.layout
        L = layout.slot  # noqa: N806
        ids = ids.reshape(layout.count, widest).astype(np.int64)
        spill = layout.count * L  # where the padding's entries land, cut off below
        where = xp.where(ids >= 0, self.slot_pieces[:, None] * L + ids, spill)
        flags = xp.zeros(spill + 1, dtype=bool)
        flags[where.reshape(-1)] = True
        return flags[:spill]


def _padded_ids(xp: Any, mine: Any, widest: int, index: np.dtype) -> Any:
    """The positions of ``mine``'s entries, then -1 up to ``widest``: each entry's rank among
    them places its position (no host read, where ``flatnonzero`` would wait for its count)."""
    flags = mine.astype(bool, copy=False)
    rank = xp.cumsum(flags, dtype=np.int64) - 1
    out = xp.full(widest + 1, -1, dtype=index)
    out[xp.where(flags, rank, widest)] = xp.arange(mine.size, dtype=index)  # the rest: spill
    return out[:widest]


def _flags_vector(flags: Any, nnz: int, backend: str, *, settle: bool = True) -> Vector:
    """A bool vector whose entries are ``flags``'s set elements (values true); kept as flags
    without ``settle`` (a mask's complement reads flags: no round trip through indices)."""
    if settle:
        return Vector.wrap_bitmap(flags, flags, backend=backend, nnz=nnz)
    return Vector(flags.size, np.bool_, backend=backend, bitmap=(flags, flags), nnz=nnz)


def level_volume(part: Any, *, reduced: bool = True) -> float:
    """Bytes one process sends in a BFS level whose frontier travels as bitmaps: its column
    block's slots in the reduce-scatter, the counts, its slot's bits in the all-gather (the
    ring algorithms). An upper bound: narrow levels send index lists.

    ``reduced=False``: a level with nothing reduced (a symmetric matrix on a ``p x 1`` grid,
    each process computing its own rows).

    Examples
    --------
    >>> part = hb.distributed.Partition(1 << 20, hb.distributed.ProcessGrid(2, 1))
    >>> hb.distributed.level_volume(part)
    589840.0
    >>> hb.distributed.level_volume(part, reduced=False)
    65552.0
    """
    layout = SlotLayout.of(part)
    grid = part.grid
    p = grid.size
    reduce = (grid.rows - 1) * layout.slot if reduced else 0
    counts = 2 * (p - 1) * 8  # an all-reduce of p int64 counts
    gather = (p - 1) * layout.slot / 8
    return float(reduce + counts + gather)
