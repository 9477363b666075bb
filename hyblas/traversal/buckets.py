"""Bucketed rounds (``propagate(delta=...)``): which frontier vertices a round expands.

Frontier Bellman-Ford expands every vertex that improved, and on a high-diameter weighted
graph most of those improvements are later beaten, so an SSSP on a grid walks its edges many
times over. Delta-stepping (Meyer & Sanders) and the GPU near-far queue (Davidson et al.,
IPDPS 2014) expand only the frontier vertices whose value is below a threshold and let the
others wait, so that a vertex is mostly expanded once, with its final value.

A bucketed round, with ``m`` the smallest value in the frontier (the min monoid's reduction,
from its identity) and ``T`` the threshold carried from the round before (none at first):

1. if not ``m < T``: ``T = m + delta`` (saturating at the type's largest value);
2. the frontier's *far* vertices, ``value >= T`` and ``value != m``, wait; the others (*near*,
   at least the vertices of value ``m``, so every round makes progress) are expanded;
3. the next frontier is the far vertices and the vertices the round improved (with the
   smaller of both values where a waiting vertex improved).

The results at the end are those of plain rounds (a shortest-path fixed point does not
depend on the order of the relaxations); the rounds and the frontier after ``max_rounds``
are those of these rules. The host rounds (:mod:`.rounds`), the NumPy emulation and the
device loop all take their thresholds from :meth:`Buckets.next_threshold`'s rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..errors import InvalidValue
from ..operators.classes import Semiring

__all__ = ["Buckets"]


@dataclass(frozen=True)
class Buckets:
    """The bucket width of bucketed rounds in the state's dtype, and the threshold arithmetic.

    ``limit`` is the largest ``m`` for which ``m + delta`` does not pass ``top``, the type's
    largest value (infinity for floats, where no saturation is needed).
    """

    delta: np.generic
    limit: np.generic
    top: np.generic

    @classmethod
    def for_rounds(cls, delta: Any, semiring: Semiring, dtype: np.dtype) -> Buckets:
        """Check ``delta`` for bucketed rounds of ``semiring`` on states of ``dtype``."""
        dt = np.dtype(dtype)
        if semiring.monoid.name != "min" or dt.kind not in "iuf":
            raise InvalidValue(
                f"propagate: delta (bucketed rounds) needs the min monoid on a "
                f"numeric state; {semiring.name} adds with "
                f"{semiring.monoid.name} on {dt}"
            )
        if isinstance(delta, bool) or not isinstance(delta, int | float | np.integer | np.floating):
            raise InvalidValue(f"propagate: delta must be a number > 0, got {delta!r}")
        if not delta > 0:  # NaN too
            raise InvalidValue(f"propagate: delta must be > 0, got {delta!r}")
        if dt.kind == "f":
            # beyond the type's range: inf, one bucket for every value
            huge = delta > _dt.float_max(dt)
            with np.errstate(under="ignore"):
                width = dt.type(np.inf) if huge else dt.type(delta)
            if not width > 0:
                raise InvalidValue(f"propagate: delta={delta!r} is 0 in {dt}")
            top = dt.type(np.inf)
            return cls(delta=width, limit=top, top=top)
        top = np.iinfo(dt).max
        if delta >= top:  # a bucket as wide as the type (inf too): every value in the first
            return cls(delta=dt.type(top), limit=dt.type(0), top=dt.type(top))
        if isinstance(delta, float | np.floating) and not float(delta).is_integer():
            raise InvalidValue(f"propagate: delta must be exact in {dt}, got {delta!r}")
        width = dt.type(int(delta))
        return cls(delta=width, limit=dt.type(top - width), top=dt.type(top))

    def next_threshold(self, smallest: Any, threshold: Any | None) -> np.generic:
        """The round's threshold from the frontier's smallest value and the previous one."""
        dt = self.delta.dtype
        smallest = dt.type(smallest)
        if threshold is not None and smallest < threshold:
            return dt.type(threshold)
        if smallest > self.limit:
            return self.top
        return dt.type(smallest + self.delta)
