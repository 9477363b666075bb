"""The device loop's parameter set, and how to change it for a block of code."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidValue
from ..executors.params import ParamStack

__all__ = ["LoopParams", "DEFAULT_PARAMS", "current_params", "loop_params", "THREADS"]

THREADS = 256  # HYBLAS_THREADS in frontier_loop.cu


@dataclass(frozen=True)
class LoopParams:
    """When :func:`hyblas.ops.propagate` runs rounds in the device loop, and its shape.

    Parameters
    ----------
    device_loop : bool
        False: every round is a host ``vxm`` (the pre-loop behaviour), e.g. to see the
        policy's choice for every round in a trace.
    pull_rounds : bool
        Levels rounds whose product is the first in-edge from the frontier (the ``any``
        monoid and a multiply that ignores the frontier's value, as BFS's ``any_pair``) do
        not go back to the host when the frontier is wider than ``exit_edges``: the loop
        pulls them (every vertex not reached yet reads its in-edges up to the first from the
        frontier, the direction-optimizing BFS's bottom-up step) and pushes again when the
        frontier narrows. False: such rounds are host rounds, as for every other semiring.
    exit_edges : int or None
        The loop hands the rounds back to the host (one ``vxm`` per round on the executor the
        policy picks) when the next frontier has more out-edges than this, and takes them
        again when it has at most this many. None: ``max(exit_min, nnz * fraction)`` of the
        matrix, with ``fraction`` = ``exit_fraction`` for ``levels=True`` rounds and
        ``improve_exit_fraction`` for the others. The device loop pushes every edge of the
        frontier. A BFS's wide frontier is much cheaper pulled (only the unreached outputs'
        rows, stopping early); improving rounds have no mask to pull through, so only a
        frontier with most of the edges is worth a full product on the host.
    exit_fraction : float
        See ``exit_edges``.
    improve_exit_fraction : float
        See ``exit_edges``.
    exit_min : int
        See ``exit_edges``.
    warp_vertices : int or None
        A round with at most this many light (not heavy) vertices queued walks each with a
        warp of its own: the round is a chain of dependent memory accesses, shortest that
        way. With more, a warp takes 32 of them (see ``thread_edges``). None: the number of
        warps in the grid.
    thread_edges : int
        In a round of more than ``warp_vertices`` light vertices, a warp takes 32 of them,
        and one with at most this many out-edges is walked by its own lane (the others by
        the whole warp, one after the other): a warp per vertex would leave 28 of 32 lanes
        idle on a grid's degree-4 vertices.
    heavy : int
        A queued vertex with more out-edges than this is walked by a thread block instead of
        a warp.
    huge : int
        A queued vertex with more out-edges than this (and more than ``heavy``) is walked by
        the whole grid, its edges dealt out over every thread, instead of by one block, when
        the round has at most 256 such (more, and each gets a block: they keep the grid busy
        then). So a stay may start from, or reach, a hub of a power-law graph, whose edges
        one block would walk a few hundred at a time.
    atomic_stamp_degree : int
        Levels rounds stamp a vertex that an edge reaches with one atomic, without reading
        its stamp first, on a graph where no vertex has more in-edges than this (grids,
        meshes, road networks): the read is a step of the round's chain of dependent loads.
        On other graphs the read comes first, so that a vertex reached before (a hub of a
        power-law graph, the target of many of a round's edges) takes no atomic per edge.
    blocks_per_sm : int or None
        Resident 256-thread blocks per multiprocessor (the kernel's launch bounds, and the
        grid is this times the multiprocessor count). None (default): ``LEVELS_BLOCKS_PER_SM``
        for levels rounds in the ``any`` monoid (a BFS's), which end at one grid barrier, on a
        graph of mean out-degree at most ``NARROW_MEAN_DEGREE`` (grids, meshes, road networks:
        thousands of narrow levels, each a barrier and a chain of dependent loads, cheaper with
        fewer blocks); ``BLOCKS_PER_SM`` otherwise (wide levels, pulled at memory bandwidth,
        and improving rounds, which walk more edges a round).
    """

    device_loop: bool = True
    pull_rounds: bool = True
    exit_edges: int | None = None
    exit_fraction: float = 1 / 64
    improve_exit_fraction: float = 1 / 2
    exit_min: int = 1 << 16
    warp_vertices: int | None = None
    thread_edges: int = 8
    heavy: int = 1024
    huge: int = 1 << 13
    atomic_stamp_degree: int = 64
    blocks_per_sm: int | None = None

    def __post_init__(self) -> None:
        for name in ("device_loop", "pull_rounds"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidValue(f"LoopParams.{name} must be a bool, got {getattr(self, name)!r}")
        for name in ("exit_edges", "warp_vertices", "blocks_per_sm"):
            value = getattr(self, name)
            if value is not None and (not _is_int(value) or value < 0):
                raise InvalidValue(f"LoopParams.{name} must be None or an int >= 0, got {value!r}")
        for name in ("exit_fraction", "improve_exit_fraction"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
                raise InvalidValue(f"LoopParams.{name} must be in [0, 1], got {value!r}")
        for name, lowest in (
            ("exit_min", 0),
            ("thread_edges", 0),
            ("heavy", 0),
            ("huge", 0),
            ("atomic_stamp_degree", 0),
        ):
            value = getattr(self, name)
            if not _is_int(value) or value < lowest:
                raise InvalidValue(f"LoopParams.{name} must be an int >= {lowest}, got {value!r}")
        if self.blocks_per_sm is not None and not 1 <= self.blocks_per_sm <= 8:
            raise InvalidValue(
                f"LoopParams.blocks_per_sm must be None or 1 to 8 (2048 threads a "
                f"multiprocessor), got {self.blocks_per_sm}"
            )

    def blocks_for(self, one_barrier: bool, mean_degree: float) -> int:
        """The resident blocks per multiprocessor of a stay whose rounds end at one barrier
        (``one_barrier``) or at two, on a graph of ``mean_degree`` out-edges a vertex (see
        ``blocks_per_sm``).

        Examples
        --------
        >>> from hyblas.traversal import LoopParams
        >>> LoopParams().blocks_for(True, 4.0), LoopParams().blocks_for(True, 32.0)
        (2, 4)
        >>> LoopParams(blocks_per_sm=3).blocks_for(True, 4.0)
        3
        """
        if self.blocks_per_sm is not None:
            return self.blocks_per_sm
        if one_barrier and mean_degree <= NARROW_MEAN_DEGREE:
            return LEVELS_BLOCKS_PER_SM
        return BLOCKS_PER_SM

    def exit_limit(self, nnz: int, levels: bool) -> int:
        """The frontier out-edges above which the host takes the rounds, for ``nnz`` edges.

        Examples
        --------
        >>> from hyblas.traversal import LoopParams
        >>> LoopParams().exit_limit(1_000_000, levels=True) > 0
        True
        """
        if self.exit_edges is not None:
            return self.exit_edges
        fraction = self.exit_fraction if levels else self.improve_exit_fraction
        return max(self.exit_min, int(nnz * fraction))


# the default resident blocks per multiprocessor (LoopParams.blocks_per_sm None)
BLOCKS_PER_SM = 4
LEVELS_BLOCKS_PER_SM = 2
NARROW_MEAN_DEGREE = 16.0


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


DEFAULT_PARAMS = LoopParams()
#: What ``executor='auto'`` runs levels rounds with on the CPU where no parameters were set
#: (improving rounds keep the defaults, measured faster): there the loop is
#: its NumPy emulation, cheap for narrow rounds (no host round trip a round) but paying NumPy
#: time per edge that a host ``vxm`` spends faster on a wide frontier (SuiteSparse's pull, where
#: installed). So wide rounds go back to the host sooner, and are not pulled in the loop.
CPU_AUTO_PARAMS = LoopParams(pull_rounds=False, exit_fraction=1 / 1024, exit_min=1 << 14)
_STACK = ParamStack(DEFAULT_PARAMS)


def current_params() -> LoopParams:
    """The parameter set the device loop uses now."""
    return _STACK.current()


def loop_params(
    params: LoopParams | None = None, **changes: Any
) -> contextlib.AbstractContextManager[LoopParams]:
    """Run a block with other device-loop parameters: ``with loop_params(exit_edges=0): ...``.

    Examples
    --------
    >>> from hyblas.traversal import current_params, loop_params
    >>> with loop_params(exit_edges=0) as params:  # the device loop hands every round back
    ...     print(params.exit_edges, current_params() is params)
    0 True
    """
    return _STACK.using(params, **changes)
