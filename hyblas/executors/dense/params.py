"""The dense executor's parameter set, and how to change it for a block of code.

The defaults were tuned on an H100 with ``benchmarks/dense_tuning.py``; ``phase1_launches``,
and the last sweep of ``reduce_chunk_slots`` and ``heavy_team_edges`` with it, were chosen by
A/B runs of PageRank on kron24 with the dense executor.
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from typing import Any

from ...errors import InvalidValue
from ..params import ParamStack

__all__ = ["DenseParams", "DEFAULT_PARAMS", "current_params", "dense_params"]

REORDERS = ("auto", "none", "columns", "both")
SKEWED = 32  # reorder="auto" renumbers when the largest degree exceeds SKEWED x the mean
MAX_PANEL = 32767  # local ids and negated destinations are int16 in the heavy table
MAX_HEAVY_GROUPS = 15  # named barriers 1-15 (barrier 0 is the whole block's)


@dataclass(frozen=True)
class DenseParams:
    """Shape of the 2D-blocked layout and of the kernels that walk it.

    Parameters
    ----------
    column_panel : int
        Inputs per column panel (``W``): the slice of the input vector a thread block holds in
        shared memory. At most 32767.
    row_panel : int
        Outputs per row panel (``H``): what one phase-2 thread block reduces in shared memory.
        At most 32767.
    heavy_threshold : int
        A block (row panel x column panel) with at least this many entries is heavy: it gets
        thread blocks of its own and the tiled table; lighter blocks join their column panel's
        light stream.
    heavy_unit_edges : int
        Most entries of one heavy unit (larger heavy blocks are split into several units).
    heavy_team_edges : int
        One thread block walks a *team* of consecutive heavy units of the same column panel,
        about ``heavy_groups`` times this many entries, loading the panel's inputs into shared
        memory once.
    heavy_groups : int
        At most this many groups of ``heavy_threads`` threads in one heavy thread block, each
        walking its own units of the team at the same time (with accumulators of its own), so
        that they share one panel load and the SM holds more threads when the panel is large.
        Fewer run where a block cannot hold them (:attr:`block_groups`) or their shared memory
        would not fit (e.g. float64 inputs that are not all present). At most 15.
    light_unit_edges : int
        Most light-stream entries one thread block walks.
    reduce_chunk_slots : int
        Phase 2 reduces a row panel in one thread block unless the panel has more partial
        results (slots) than this: then several blocks each reduce a chunk of about this many
        and combine into the panel's accumulator, so the hub panels of a power-law graph do not
        leave the GPU waiting on one block.
    heavy_threads, light_threads, reduce_threads : int
        Threads per block of the three kernels (``heavy_threads`` is also the tile width).
    phase1_launches : {1, 2}
        1: the heavy teams and light units run in one launch, the light units spread among the
        teams, wherever their blocks have the same number of threads (else two launches): the
        heavy walk is bound by instructions and the light stream by memory, so they overlap
        instead of the light launch waiting for the heavy one to end. 2: a launch each, heavy
        first.
    reorder : {'auto', 'none', 'columns', 'both'}
        Internal renumbering by descending degree: of inputs (``'columns'``) or of inputs and
        outputs (``'both'``), so that power-law hubs gather into heavy blocks. ``'auto'`` takes
        ``'both'`` when the largest degree exceeds ``SKEWED`` times the mean (a power law) and
        ``'none'`` otherwise (meshes and road networks keep their locality). Users always see
        their own ids.
    """

    column_panel: int = 16384
    row_panel: int = 4096
    heavy_threshold: int = 2048
    heavy_unit_edges: int = 65536
    heavy_team_edges: int = 65536
    heavy_groups: int = 2
    light_unit_edges: int = 65536
    reduce_chunk_slots: int = 16384
    heavy_threads: int = 512
    light_threads: int = 1024
    reduce_threads: int = 512
    phase1_launches: int = 1
    reorder: str = "auto"

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name == "reorder":
                if not isinstance(value, str) or value not in REORDERS:
                    raise InvalidValue(
                        f"DenseParams.reorder must be one of {REORDERS}, got {value!r}"
                    )
            elif not isinstance(value, int) or value < 1:
                raise InvalidValue(
                    f"DenseParams.{field.name} must be a positive int, got {value!r}"
                )
        if self.phase1_launches not in (1, 2):
            raise InvalidValue(
                f"DenseParams.phase1_launches must be 1 or 2, got {self.phase1_launches!r}"
            )
        for name in ("column_panel", "row_panel"):
            if getattr(self, name) > MAX_PANEL:
                raise InvalidValue(
                    f"DenseParams.{name} must be at most {MAX_PANEL}, got {getattr(self, name)}"
                )
        if self.heavy_groups > MAX_HEAVY_GROUPS:
            raise InvalidValue(
                f"DenseParams.heavy_groups must be at most {MAX_HEAVY_GROUPS} "
                f"(named barriers), got {self.heavy_groups}"
            )
        for name in ("heavy_threads", "light_threads", "reduce_threads"):
            if getattr(self, name) > 1024:
                raise InvalidValue(
                    f"DenseParams.{name} must be at most 1024 (a CUDA block), "
                    f"got {getattr(self, name)}"
                )

    @property
    def block_groups(self) -> int:
        """Groups per heavy block that the block can hold: ``heavy_groups``, at most
        ``1024 // heavy_threads``, and 1 unless ``heavy_threads`` is a multiple of 32 (a group's
        barrier counts whole warps)."""
        if self.heavy_threads % 32:
            return 1
        return max(1, min(self.heavy_groups, 1024 // self.heavy_threads))


DEFAULT_PARAMS = DenseParams()
_STACK = ParamStack(DEFAULT_PARAMS)


def current_params() -> DenseParams:
    """The parameter set the dense executor uses now."""
    return _STACK.current()


def dense_params(
    params: DenseParams | None = None, **changes: Any
) -> contextlib.AbstractContextManager[DenseParams]:
    """Run a block with other dense-executor parameters.

    ``with dense_params(column_panel=4096): ...`` changes some fields of the current set;
    ``with dense_params(DenseParams(...)):`` replaces it. Layouts are cached per parameter set.

    Examples
    --------
    >>> from hyblas.executors.dense import current_params, dense_params
    >>> with dense_params(row_panel=512) as params:
    ...     print(params.row_panel, current_params() is params)
    512 True
    """
    return _STACK.using(params, **changes)
