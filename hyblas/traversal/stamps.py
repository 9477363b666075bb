"""What ``propagate(levels=True)`` keeps on the matrix between stays in the device loop, so that
a stay's setup and its update of the state cost O(frontier + reached), not O(vertices).

A stay needs, per vertex, "reached yet?" (a stamp) and, in the kernel, an accumulator at the
monoid's identity. Both would take a pass over all the vertices to set up and another to
read back, which is most of a short stay on a large graph (kron24: 16.7M vertices, three
narrow levels). Instead they live on the matrix (``Matrix.cache``), and each stay takes
stamps above every earlier one: a stamp below its ``prestamp`` is older than the stay, the
state's vertices are found by its bitmap or stamped ``prestamp`` (a sparse state), and round
``r`` stamps ``r + offset``. The kernel leaves the accumulators at the identity. A stay that
fails drops what it borrowed, and the next one starts from fresh arrays.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..containers.matrix import Matrix

__all__ = ["LevelStamps", "borrow", "borrow_stamps"]


@dataclass
class LevelStamps:
    """Reached-once stamps (int64, one per vertex) and the largest stamp given out so far."""

    stamp: Any
    high_water: int = 0

    def open(self, first_round: int) -> tuple[int, int]:
        """Start a stay whose first round is ``first_round``: returns ``(prestamp, offset)``.
        The stay stamps the vertices of a sparse state with ``prestamp`` before its first
        round (the GPU's loop kernel does so itself)."""
        prestamp = self.high_water + 1
        return prestamp, prestamp + 1 - first_round

    def close(self, last_round: int, offset: int) -> None:
        """End the stay opened with ``offset`` after round ``last_round``."""
        self.high_water = last_round + offset


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
