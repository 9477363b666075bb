"""The sparse executor's parameter set, and how to change it for a block of code.

The kernel's shape is fixed by the design (MultiGraph §5): active inputs are taken
``INPUTS_PER_BLOCK`` per ``THREADS``-thread block, and an input's edges are walked in three
stages — the last ``E mod 32`` by ``VIRTUAL_WARP``-thread virtual warps (one per input), then
``mod 256`` by warps, the rest by the whole block. In the last two stages the block's inputs'
chunks (of 32 and of 256 edges) are numbered one after another, so that a warp (or the block)
takes chunks of several inputs at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from typing import Any

from ...errors import InvalidValue
from ..params import ParamStack

__all__ = [
    "SparseParams",
    "DEFAULT_PARAMS",
    "current_params",
    "sparse_params",
    "INPUTS_PER_BLOCK",
    "THREADS",
    "WARP",
    "VIRTUAL_WARP",
    "MAX_SEGMENT",
]

INPUTS_PER_BLOCK = 64
THREADS = 256
WARP = 32
VIRTUAL_WARP = THREADS // INPUTS_PER_BLOCK  # 4: one virtual warp per input of the block
MAX_SEGMENT = 65535  # a segment's touched outputs are listed as uint16 in shared memory


@dataclass(frozen=True)
class SparseParams:
    """Shape of the sparse-frontier layout and of the kernels that walk it.

    Parameters
    ----------
    group_bounds : tuple of int
        Descending in-degree bounds of the output groups: ``(2048, 1024, 512, 256, 128)``
        makes the groups ``>= 2048``, ``1024-2047``, ..., ``< 128`` (MultiGraph, Table 1).
        Outputs are renumbered internally group by group; users always see their own ids.
    shared_groups : int
        The first this many groups are the *high in-degree* outputs: cut into segments that
        a thread block accumulates in shared memory, and otherwise combined with global
        atomics into work words by internal id (small enough to stay in L2). The other
        outputs are combined with global atomics into the user-indexed work array.
    segment : int
        Outputs per shared-memory segment (at most 65535). A push block's shared memory
        grows with it and bounds the blocks an SM holds: 8192 left 3 blocks on an H100 SM,
        2048 leaves the registers as the bound (6 blocks).
    segment_min_edges : int
        A thread block walks the segments only when its inputs have at least this many edges
        into high in-degree outputs (a few edges do not pay for a segment's bookkeeping);
        otherwise those edges take the global atomics too. Calls in the ``any`` monoid never
        walk segments (there is nothing to combine: the first edge settles an output).
    reach : int
        An input with more edges than this is *gathered*: its edges are spread over many
        thread blocks by a second kernel (Busato & Bombieri's block gathering) instead of
        being walked by its own block.
    spread_blocks : int
        Thread blocks of the spreading kernel, and of the push kernel in graph rounds.
    graph_rounds : int
        :func:`hyblas.ops.propagate` runs BFS-like rounds (levels, the ``any`` monoid) with
        ``executor='sparse'`` on the GPU as graph rounds (``hyblas.traversal.graph_rounds``):
        the kernels of this many rounds are launched as one CUDA graph, and the host reads
        the rounds' state once a launch instead of once a round. 0: host rounds (one ``vxm``
        each).

    The defaults of ``segment``, ``segment_min_edges``, ``reach`` and ``spread_blocks`` were
    tuned on an H100 with ``benchmarks/sparse_tuning.py`` (a kron24 BFS on every level, a 1%
    random frontier's SpMSpV and one from the source's neighbours); ``spread_blocks`` is 8
    blocks on each of its 132 SMs. The segment walk paid on none of those: its threshold is
    set high (32768 edges into high outputs a block), where the products take the same time
    as with no segment walk at all.
    """

    group_bounds: tuple[int, ...] = (2048, 1024, 512, 256, 128)
    shared_groups: int = 4
    segment: int = 2048
    segment_min_edges: int = 32768
    reach: int = 4096
    spread_blocks: int = 1056
    graph_rounds: int = 16

    def __post_init__(self) -> None:
        bounds = self.group_bounds
        if (
            not isinstance(bounds, tuple)
            or not bounds
            or not all(isinstance(b, int) and b >= 1 for b in bounds)
            or any(a <= b for a, b in zip(bounds, bounds[1:]))
        ):
            raise InvalidValue(
                "SparseParams.group_bounds must be a non-empty tuple of "
                f"strictly descending positive ints, got {bounds!r}"
            )
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name == "group_bounds":
                continue
            lowest = (
                0 if field.name in ("shared_groups", "segment_min_edges", "graph_rounds") else 1
            )
            if not isinstance(value, int) or isinstance(value, bool) or value < lowest:
                raise InvalidValue(
                    f"SparseParams.{field.name} must be an int >= {lowest}, got {value!r}"
                )
        if self.shared_groups > len(bounds):
            raise InvalidValue(
                f"SparseParams.shared_groups must be at most the {len(bounds)} "
                f"bounded groups, got {self.shared_groups}"
            )
        if self.segment > MAX_SEGMENT:
            raise InvalidValue(
                f"SparseParams.segment must be at most {MAX_SEGMENT}, got {self.segment}"
            )


DEFAULT_PARAMS = SparseParams()
_STACK = ParamStack(DEFAULT_PARAMS)


def current_params() -> SparseParams:
    """The parameter set the sparse executor uses now."""
    return _STACK.current()


def sparse_params(
    params: SparseParams | None = None, **changes: Any
) -> contextlib.AbstractContextManager[SparseParams]:
    """Run a block with other sparse-executor parameters.

    ``with sparse_params(reach=1024): ...`` changes some fields of the current set;
    ``with sparse_params(SparseParams(...)):`` replaces it. Layouts are cached per parameter set.

    Examples
    --------
    >>> from hyblas.executors.sparse import current_params, sparse_params
    >>> default = current_params()
    >>> with sparse_params(default) as params:
    ...     print(params == default)
    True
    """
    return _STACK.using(params, **changes)
