"""One round of :func:`hyblas.ops.propagate` written with the GraphBLAS operations: what the
rounds mean, what the CPU runs, and what the GPU runs when the frontier is too wide for the
device loop."""

from __future__ import annotations

from ...matrix import Matrix
from ...semiring.operators import Semiring
from ...vector import Vector
from .. import api

__all__ = ["host_round"]


def host_round(state: Vector, frontier: Vector, A: Matrix, semiring: Semiring, *,  # noqa: N803
               levels: bool, round_number: int, executor: str) -> Vector:  # fmt: skip
    """Run one round; updates ``state`` in place and returns the next frontier."""
    if levels:
        reached = api.vxm(frontier, A, semiring, mask=~state.S, executor=executor)
        api.assign(state, round_number, None, mask=reached.S)
        return reached
    reached = api.vxm(frontier, A, semiring, executor=executor)
    add = semiring.monoid.binaryop
    combined = api.ewise_add(reached, state, add, mask=reached.S)
    unchanged = api.ewise_mult(combined, state, "eq")
    improved = api.apply(combined, "identity", mask=~unchanged)
    api.assign(state, improved, None, mask=improved.S)
    return improved
