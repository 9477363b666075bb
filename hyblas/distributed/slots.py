"""Fixed-size slots: each piece of a partition padded to one length, so that collectives of
equal-sized buffers (all-gather, reduce-scatter) move pieces of unequal lengths with no size
exchanged first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backend import array_module

__all__ = ["SlotLayout"]


@dataclass(frozen=True)
class SlotLayout:
    """Where each piece of a partition lies among the fixed-size slots.

    Attributes
    ----------
    lengths : numpy.ndarray
        Each piece's length (int64, one per process).
    slot : int
        Elements per slot: the longest piece, rounded up to a multiple of 8 (at least 8).

    Examples
    --------
    >>> part = hb.distributed.Partition(10, hb.distributed.ProcessGrid(2, 1))
    >>> layout = hb.distributed.SlotLayout.of(part)
    >>> layout.lengths.tolist(), layout.slot
    ([5, 5], 8)
    """

    lengths: np.ndarray
    slot: int

    @classmethod
    def of(cls, part: Any) -> SlotLayout:
        """The slots of ``part`` (a :class:`~hyblas.distributed.Partition`).

        Examples
        --------
        >>> part = hb.distributed.Partition(20, hb.distributed.ProcessGrid(3, 1))
        >>> hb.distributed.SlotLayout.of(part).slot  # pieces of 6, 7, 7
        8
        """
        lengths = np.diff(part.bounds)
        longest = int(lengths.max(initial=0))
        return cls(lengths, max(8, -(-longest // 8) * 8))

    @property
    def count(self) -> int:
        """The number of slots (pieces)."""
        return int(self.lengths.size)

    def filled(self, pieces: range) -> bool:
        """Whether ``pieces`` fill their slots (no padding): end to end, they are their slots
        as they are.

        Examples
        --------
        >>> layout = hb.distributed.SlotLayout(np.array([8, 5]), 8)
        >>> layout.filled(range(0, 1)), layout.filled(range(0, 2))
        (True, False)
        """
        return all(int(self.lengths[k]) == self.slot for k in pieces)

    def block(self, slots: Any, first: int, count: int, *, at: int = 0) -> Any:
        """Pieces ``first`` to ``first + count - 1`` of ``slots`` (whose first slot holds piece
        ``at``), end to end at their true lengths: a view where ``count`` is 1.

        Examples
        --------
        >>> layout = hb.distributed.SlotLayout(np.array([2, 3]), 8)
        >>> slots = np.arange(16)
        >>> layout.block(slots, 0, 2).tolist(), layout.block(slots[8:], 1, 1, at=1).tolist()
        ([0, 1, 8, 9, 10], [8, 9, 10])
        """
        L = self.slot  # noqa: N806 - the module's name for it
        parts = [
            slots[(k - at) * L : (k - at) * L + int(self.lengths[k])]
            for k in range(first, first + count)
        ]
        return parts[0] if count == 1 else array_module(slots).concatenate(parts)

    def slots(self, block: Any, first: int, count: int) -> Any:
        """The inverse of :meth:`block`: the pieces ``first`` to ``first + count - 1`` that
        ``block`` holds end to end, each in its slot (``count * L`` elements of ``block``'s
        dtype, zeros in the padding).

        Examples
        --------
        >>> layout = hb.distributed.SlotLayout(np.array([2, 3]), 8)
        >>> layout.slots(np.array([1, 2, 3, 4, 5]), 0, 2).tolist()
        [1, 2, 0, 0, 0, 0, 0, 0, 3, 4, 5, 0, 0, 0, 0, 0]
        """
        xp = array_module(block)
        L = self.slot  # noqa: N806
        out = xp.zeros(count * L, dtype=block.dtype)
        start = 0
        for s, k in enumerate(range(first, first + count)):
            length = int(self.lengths[k])
            out[s * L : s * L + length] = block[start : start + length]
            start += length
        return out
