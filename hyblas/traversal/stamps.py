"""What ``propagate(levels=True)`` keeps on the matrix between stays in the device loop, so that
a stay's setup and its update of the state cost O(frontier + reached), not O(vertices).

A stay needs, per vertex, "reached yet?" (a stamp) and, in the kernel, an accumulator at the
monoid's identity. Both would take a pass over all the vertices to set up and another to
read back, which is most of a short stay on a large graph (kron24: 16.7M vertices, three
narrow levels). Instead they live on the matrix (``Matrix.cache``), and each stay takes
stamps above every earlier one (:class:`StayStamps`): a stamp below the stay's ``floor`` is
older than the stay, the state's vertices are found by its bitmap or stamped ``state`` (a
sparse state), and round ``r`` stamps ``offset - r``: the stamps of a stay fall from round to
round, so that a vertex's stamp is the largest any round of the stay gave it, its first one,
and the kernel stamps a vertex with one ``atomicMax``, which needs no read before it (the
kernel reads first only on graphs with hubs: ``LoopParams.atomic_stamp_degree``). The kernel
leaves the accumulators at the identity. A stay that fails drops what it borrowed, and the next one
starts from fresh arrays.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..containers.matrix import Matrix

__all__ = ["LevelStamps", "StayStamps", "borrow", "borrow_stamps"]


@dataclass(frozen=True)
class StayStamps:
    """One stay's stamps: every stamp below ``floor`` is older than the stay; round ``r``
    stamps ``offset - r`` (above ``floor``); the vertices of the state it starts from are
    stamped ``state``, above every round's.

    Examples
    --------
    >>> from hyblas.traversal.stamps import StayStamps
    >>> stay = StayStamps(floor=1, offset=5, state=5)  # rounds 1 .. 3
    >>> [stay.tag(r) for r in (1, 2, 3)], stay.round_of(3)
    ([4, 3, 2], 2)
    """

    floor: int
    offset: int
    state: int

    def tag(self, r: int) -> int:
        """The stamp of round ``r``."""
        return self.offset - r

    def round_of(self, stamp: Any) -> Any:
        """The round that gave ``stamp`` (stamps of this stay; arrays too)."""
        return self.offset - stamp


@dataclass
class LevelStamps:
    """Reached-once stamps (int64, one per vertex), the largest stamp given out so far, and
    how many vertices the last stay reached (the GPU's loop takes it as a guess of the next
    stay's, to queue the state's bitmap before it reads the stay's counts)."""

    stamp: Any
    high_water: int = 0
    reached: int = 0

    def open(self, first_round: int, last_round: int) -> StayStamps:
        """Start a stay of rounds ``first_round`` to at most ``last_round``. A stay runs at
        least one round and ends when a round reaches nothing, so it runs at most one round
        more than there are vertices.

        Examples
        --------
        >>> import numpy as np
        >>> from hyblas.traversal.stamps import LevelStamps
        >>> stamps = LevelStamps(np.zeros(4, dtype=np.int64))
        >>> stay = stamps.open(1, 10**9)  # at most 5 rounds
        >>> stay.floor, [stay.tag(r) for r in range(1, 6)], stay.state
        (1, [6, 5, 4, 3, 2], 7)
        """
        rounds = max(1, min(last_round - first_round + 1, self.stamp.size + 1))
        floor = self.high_water + 1
        state = floor + rounds + 1
        return StayStamps(floor=floor, offset=state - 1 + first_round, state=state)

    def close(self, stay: StayStamps, reached: int = 0) -> None:
        """End ``stay``, which reached ``reached`` vertices: the next one's stamps are above
        all of its."""
        self.high_water = stay.state
        self.reached = reached


@contextlib.contextmanager
def borrow(A: Matrix, key: Any, make: Callable[[], Any]) -> Iterator[Any]:  # noqa: N803
    """Take ``A.cache[key]`` (made by ``make`` if absent) for a stay, and give it back when
    the stay ends well; a stay that raises may have left it half-written, so it is dropped."""
    item = A.cache.pop(key, None)
    if item is None:
        item = make()
    yield item
    A.cache[key] = item


def borrow_stamps(A: Matrix) -> contextlib.AbstractContextManager[LevelStamps]:  # noqa: N803
    """:func:`borrow` ``A``'s level stamps (fresh ones, every stamp 0, the first time)."""
    return borrow(A, "loop_level_stamps", lambda: LevelStamps(A.xp.zeros(A.nrows, dtype=np.int64)))
