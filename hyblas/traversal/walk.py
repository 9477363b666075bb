"""What one stay in the device loop takes and gives back (both backends)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..containers.matrix import Matrix
from ..containers.vector import SPARSE_BELOW, Vector
from ..operators.classes import Semiring
from .buckets import Buckets

__all__ = ["Entry", "ReachedInto", "Walked", "pull_bitmap_words"]


@dataclass(frozen=True)
class ReachedInto:
    """Where levels rounds write the rounds of the vertices they reached (none of them in
    ``state`` yet): a sparse state that stays sparse takes them as a list; otherwise the
    state's bitmap (``propagate``'s own copy: changed in place), made from a sparse state if
    need be, takes them in one pass over the vertices (sorting or scattering millions of ids
    costs more)."""

    state: Vector

    def wants_bitmap(self, count: int) -> bool:
        """Whether rounds that reached ``count`` vertices write them into the bitmap."""
        state = self.state
        if state.stored_bitmap is not None:
            return True
        return (state.stored_sparse[0].size + count) * SPARSE_BELOW >= state.size

    def __call__(self, count: int) -> tuple[Any, Any] | None:
        """The bitmap (``values``, ``present``) to write ``count`` vertices into, or None."""
        return self.state.as_bitmap() if self.wants_bitmap(count) else None


@dataclass
class Entry:
    """The rounds to run and what they start from (arrays on the matrix's backend).

    ``values`` / ``present`` are the state's bitmap (the semiring's output type). Levels rounds
    read only the state's vertices: ``present`` for a state stored as a bitmap (``values``
    None), ``state_ids`` (int64) for a sparse one. The frontier is ``first_count`` vertices:
    ``ids`` (int64, no repeats, any order) with their values ``x``, or, with ``ids`` None, the
    vertices present in the bitmap ``frontier_present``, ``x`` holding a value for every
    vertex (the frontier's dtype, cast to ``op_type`` by the walk). Rounds ``first_round ..
    last_round`` may run; the loop stops early when the frontier empties or the next one has
    more than ``exit_edges`` out-edges, unless ``pull`` is given (levels rounds only): then
    such a round is a pull round over ``pull``, the transpose of ``A`` (its rows are the
    in-edges), and the frontier must come as a bitmap if the first round pulls. With
    ``buckets`` the rounds are bucketed (:mod:`.buckets`), starting from ``threshold`` (None:
    no threshold yet), and the frontier's values are the state's. Levels rounds call
    ``into_bitmap`` (if given) with the number of vertices they reached: it returns the
    state's bitmap (``values``, ``present``; made from a sparse state if need be) to write
    their rounds into, in place, or None to have them listed (the GPU's loop may ask it
    first with a guess, :meth:`ReachedInto.wants_bitmap`, and drop a wrong one's bitmap).
    """

    A: Matrix  # noqa: N815 - math spelling
    semiring: Semiring
    op_type: np.dtype
    levels: bool
    values: Any
    present: Any
    ids: Any
    x: Any
    first_round: int
    last_round: int
    exit_edges: int
    buckets: Buckets | None = None
    threshold: Any = None
    state_ids: Any = None
    first_count: int = 0
    frontier_present: Any = None
    pull: Matrix | None = None
    into_bitmap: ReachedInto | None = None


@dataclass
class Walked:
    """After the rounds: the next frontier (ids in any order, values in the output type) and
    its out-edges (``next_edges``), the rounds run, the edges they walked and, for bucketed
    rounds, the last round's threshold;
    and the state: improve rounds give its new bitmap (``values``, ``present``); levels
    rounds the ``reached_count`` vertices they reached, written into the bitmap that
    ``Entry.into_bitmap`` gave (``values``, ``present``) or listed (``reached``, int64, no
    repeats, any order) with the round that reached each (``reached_rounds``). ``ids``, ``x``
    and ``reached`` may be views of the stay's work arrays: what is kept of them is copied."""

    ids: Any
    x: Any
    rounds: int
    edges: int
    next_edges: int = 0
    threshold: Any = None
    values: Any = None
    present: Any = None
    reached: Any = None
    reached_rounds: Any = None
    reached_count: int = 0


def pull_bitmap_words(n: int) -> int:
    """The 32-bit words of a pull round's frontier bitmap over ``n`` vertices: vertex ``u`` is
    bit ``u & 31`` of word ``u >> 5`` (``frontier_loop.cu`` keeps two, by round parity)."""
    return (n + 31) // 32
