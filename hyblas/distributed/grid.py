"""The process grid and the partition of the vertices over it.

``p`` processes form a ``pr x pc`` grid: ``√p x √p`` when ``p`` is a square, else ``p x 1``.
Process ``(i, j)`` has rank ``i * pc + j``. The ``n`` indices of a dimension are cut into ``p``
pieces of ``n // p`` or ``n // p + 1``; piece ``k`` belongs to rank ``k`` (the vectors' layout).
A matrix's block ``(i, j)``, held by process ``(i, j)``, spans

- row block ``i``: the pieces ``i * pc`` to ``i * pc + pc - 1`` (those of grid row ``i``), and
- column block ``j``: the pieces ``j * pr`` to ``j * pr + pr - 1``.

So a vector's pieces gathered along a grid row make that row's row block as they are; for a
column block, process ``(i, j)`` first takes piece ``j * pr + i`` (the *column layout*: a
permutation, the transpose on a square grid, none on a ``p x 1`` one), then the pieces are
gathered along the grid column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backend import array_module
from ..errors import DimensionMismatch, InvalidValue

__all__ = ["ProcessGrid", "Partition"]


@dataclass(frozen=True)
class ProcessGrid:
    """``rows x cols`` processes; process ``(i, j)`` has rank ``i * cols + j``.

    Attributes
    ----------
    rows, cols : int

    Examples
    --------
    >>> grid = hb.distributed.ProcessGrid.for_size(4)
    >>> grid, grid.coords(3)
    (ProcessGrid(rows=2, cols=2), (1, 1))
    >>> hb.distributed.ProcessGrid.for_size(3)
    ProcessGrid(rows=3, cols=1)
    """

    rows: int
    cols: int

    def __post_init__(self) -> None:
        if self.rows < 1 or self.cols < 1:
            raise InvalidValue(f"a process grid needs rows, cols >= 1, got {self}")

    @classmethod
    def for_size(cls, size: int) -> ProcessGrid:
        """``√p x √p`` for a square number ``p`` of processes, else ``p x 1``.

        Examples
        --------
        >>> hb.distributed.ProcessGrid.for_size(9).rows
        3
        """
        if not isinstance(size, int | np.integer) or size < 1:
            raise InvalidValue(f"a process grid of a positive number of processes, got {size!r}")
        side = math.isqrt(int(size))
        return cls(side, side) if side * side == size else cls(int(size), 1)

    @property
    def size(self) -> int:
        """The number of processes."""
        return self.rows * self.cols

    def coords(self, rank: int) -> tuple[int, int]:
        """The grid position ``(i, j)`` of ``rank``.

        Examples
        --------
        >>> hb.distributed.ProcessGrid(2, 2).coords(2)
        (1, 0)
        """
        return divmod(int(rank), self.cols)

    def rank_of(self, i: int, j: int) -> int:
        """The rank of process ``(i, j)``.

        Examples
        --------
        >>> hb.distributed.ProcessGrid(2, 2).rank_of(1, 0)
        2
        """
        return int(i) * self.cols + int(j)

    def row_pieces(self, i: int) -> range:
        """The pieces of grid row ``i``'s row block (``i * cols`` on).

        Examples
        --------
        >>> hb.distributed.ProcessGrid(2, 2).row_pieces(1)
        range(2, 4)
        """
        return range(int(i) * self.cols, (int(i) + 1) * self.cols)

    def column_pieces(self, j: int) -> range:
        """The pieces of grid column ``j``'s column block (``j * rows`` on).

        Examples
        --------
        >>> hb.distributed.ProcessGrid(3, 1).column_pieces(0)
        range(0, 3)
        """
        return range(int(j) * self.rows, (int(j) + 1) * self.rows)

    def column_piece(self, rank: int) -> int:
        """The piece process ``rank`` holds in the column layout (``j * rows + i``).

        Examples
        --------
        >>> [hb.distributed.ProcessGrid(2, 2).column_piece(r) for r in range(4)]
        [0, 2, 1, 3]
        """
        i, j = self.coords(rank)
        return j * self.rows + i

    def column_holder(self, piece: int) -> int:
        """The rank that holds ``piece`` in the column layout (the inverse of
        :meth:`column_piece`).

        Examples
        --------
        >>> hb.distributed.ProcessGrid(2, 2).column_holder(1)
        2
        """
        j, i = divmod(int(piece), self.rows)
        return self.rank_of(i, j)


@dataclass(frozen=True)
class Partition:
    """``n`` indices cut into one piece per process of ``grid``.

    Attributes
    ----------
    n : int
    grid : ProcessGrid

    Examples
    --------
    >>> part = hb.distributed.Partition(10, hb.distributed.ProcessGrid(2, 2))
    >>> part.bounds
    array([ 0,  2,  5,  7, 10])
    >>> part.row_block(1), part.column_block(1)
    ((5, 10), (5, 10))
    """

    n: int
    grid: ProcessGrid

    def __post_init__(self) -> None:
        if self.n < 0:
            raise InvalidValue(f"a partition of a negative number of indices: {self.n}")

    @property
    def bounds(self) -> np.ndarray:
        """The ``p + 1`` piece boundaries: piece ``k`` is ``[bounds[k], bounds[k+1])``."""
        p = self.grid.size
        return np.arange(p + 1, dtype=np.int64) * self.n // p

    def piece(self, k: int) -> tuple[int, int]:
        """``(start, stop)`` of piece ``k``.

        Examples
        --------
        >>> hb.distributed.Partition(10, hb.distributed.ProcessGrid(3, 1)).piece(2)
        (6, 10)
        """
        bounds = self.bounds
        return int(bounds[k]), int(bounds[k + 1])

    def pieces(self, first: int, count: int) -> tuple[int, int]:
        """``(start, stop)`` of the ``count`` consecutive pieces from ``first``.

        Examples
        --------
        >>> hb.distributed.Partition(10, hb.distributed.ProcessGrid(2, 2)).pieces(1, 2)
        (2, 7)
        """
        bounds = self.bounds
        return int(bounds[first]), int(bounds[first + count])

    def lengths(self, first: int, count: int) -> list[int]:
        """The lengths of the ``count`` consecutive pieces from ``first``.

        Examples
        --------
        >>> hb.distributed.Partition(10, hb.distributed.ProcessGrid(2, 2)).lengths(0, 4)
        [2, 3, 2, 3]
        """
        return np.diff(self.bounds[first : first + count + 1]).tolist()

    def row_block(self, i: int) -> tuple[int, int]:
        """``(start, stop)`` of row block ``i`` (the pieces of grid row ``i``).

        Examples
        --------
        >>> hb.distributed.Partition(8, hb.distributed.ProcessGrid(2, 2)).row_block(0)
        (0, 4)
        """
        found = self.grid.row_pieces(i)
        return self.pieces(found.start, len(found))

    def column_block(self, j: int) -> tuple[int, int]:
        """``(start, stop)`` of column block ``j`` (pieces ``j * rows`` on).

        Examples
        --------
        >>> hb.distributed.Partition(8, hb.distributed.ProcessGrid(4, 1)).column_block(0)
        (0, 8)
        """
        found = self.grid.column_pieces(j)
        return self.pieces(found.start, len(found))

    def owner(self, indices: Any) -> Any:
        """The rank owning each index (an int64 array; NumPy or CuPy as ``indices``).

        Examples
        --------
        >>> part = hb.distributed.Partition(10, hb.distributed.ProcessGrid(2, 2))
        >>> part.owner(np.array([0, 4, 9]))
        array([0, 1, 3])
        """
        xp = array_module(indices)
        bounds = xp.asarray(self.bounds)
        return xp.searchsorted(bounds, indices, side="right").astype(np.int64) - 1

    def check_same(self, other: Partition, what: str) -> None:
        """DimensionMismatch unless ``other`` cuts the same ``n`` over the same grid.

        Examples
        --------
        >>> grid = hb.distributed.ProcessGrid(2, 1)
        >>> four, five = hb.distributed.Partition(4, grid), hb.distributed.Partition(5, grid)
        >>> four.check_same(five, "mxv")
        Traceback (most recent call last):
        ...
        hyblas.errors.DimensionMismatch: mxv: partitions differ (4 indices on a 2x1 grid vs 5 ...
        """
        if self != other:
            raise DimensionMismatch(
                f"{what}: partitions differ ({self.n} indices on a {self.grid.rows}x"
                f"{self.grid.cols} grid vs {other.n} on {other.grid.rows}x{other.grid.cols})"
            )

    def dense_volume(self, value_bytes: float, presence: bool = True) -> dict[str, float]:
        """Bytes one process sends in each step of a dense ``vxm`` over this partition (its
        rows), by the ring algorithms: what the partition predicts.

        ``gather``: the ``pc - 1`` other pieces of its grid row (bitmap and values);
        ``reduce``: ``pr - 1`` pieces of its column block (values and a presence byte);
        ``permute``: its piece, unless it holds its own (the diagonal, or a ``p x 1`` grid).
        ``mxv`` moves the same with rows and columns exchanged.

        Parameters
        ----------
        value_bytes : float
            Bytes per value (0 where only presence travels).
        presence : bool
            Whether the reduction carries a presence byte per element.

        Examples
        --------
        >>> part = hb.distributed.Partition(1 << 20, hb.distributed.ProcessGrid(2, 2))
        >>> part.dense_volume(4.0)["gather"]
        1081344.0
        """
        grid = self.grid
        piece = self.n / grid.size
        gathered = piece * (value_bytes + 1 / 8)
        reduced = piece * (value_bytes + (1 if presence else 0))
        moved = (
            0.0 if grid.cols == 1 else piece * (value_bytes + 1 / 8) * (grid.rows - 1) / grid.rows
        )
        return {
            "gather": (grid.cols - 1) * gathered,
            "reduce": (grid.rows - 1) * reduced,
            "permute": moved,
        }
