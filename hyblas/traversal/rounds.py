"""One round of :func:`hyblas.ops.propagate` written with the GraphBLAS operations: what the
rounds mean, what the CPU runs, and what the GPU runs when the frontier is too wide for the
device loop. An improving round's state update is :func:`.improve.improve`, the four
operations of :func:`.improve.improve_with_ops` done in one step."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..operators.classes import Semiring
from .buckets import Buckets
from .improve import improve_counting

__all__ = ["host_round", "host_bucket_round"]


def host_round(
    state: Vector,
    frontier: Vector,
    A: Matrix,
    semiring: Semiring,
    *,  # noqa: N803
    levels: bool,
    round_number: int,
    executor: str,
) -> tuple[Vector, int | None]:
    """Run one round; updates ``state`` in place and returns the next frontier, and its
    out-edges in ``A`` where the round counted them on the way (else None)."""
    if levels:
        reached = ops.vxm(frontier, A, semiring, mask=~state.S, executor=executor)
        ops.assign(state, round_number, None, mask=reached.S)
        return reached, None
    return _improve(state, frontier, A, semiring, executor)


def host_bucket_round(
    state: Vector,
    frontier: Vector,
    A: Matrix,  # noqa: N803
    semiring: Semiring,
    *,
    buckets: Buckets,
    threshold: Any,
    executor: str,
) -> tuple[Vector, Any]:
    """Run one bucketed round (:mod:`.buckets`); updates ``state`` in place and returns the
    next frontier and the round's threshold."""
    monoid = semiring.monoid
    identity = monoid.identity(state.dtype)
    smallest = monoid.binaryop.numpy(identity, ops.reduce_scalar(frontier, monoid))
    threshold = buckets.next_threshold(smallest, threshold)
    far = ops.select(ops.select(frontier, "valuege", threshold), "valuene", smallest)
    near = ops.apply(frontier, "identity", mask=~far.S)
    improved, _ = _improve(state, near, A, semiring, executor)
    return ops.ewise_add(far, improved, monoid.binaryop), threshold


def _improve(
    state: Vector,
    frontier: Vector,
    A: Matrix,
    semiring: Semiring,  # noqa: N803
    executor: str,
) -> tuple[Vector, int | None]:
    reached = ops.vxm(frontier, A, semiring, executor=executor)
    return improve_counting(state, reached, semiring.monoid.binaryop, A)
