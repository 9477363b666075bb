"""The sparse-frontier executor (MultiGraphS): a binned push SpMSpV from the active inputs.

``mxv`` / ``vxm`` with ``executor='sparse'`` run here: CUDA kernels on the GPU, a NumPy
emulation of the same walk on the CPU. See :mod:`.layout` for the layout, :mod:`.executor` for
the run, :mod:`.params` for the parameter set.
"""

from __future__ import annotations

from ..interface import Executor
from . import executor
from .params import DEFAULT_PARAMS, SparseParams, current_params, sparse_params

__all__ = ["DEFAULT_PARAMS", "SparseParams", "current_params", "sparse_params", "EXECUTOR"]

EXECUTOR = Executor(
    name="sparse",
    summary="binned push SpMSpV from the frontier's entries, masked before any atomic",
    backends=frozenset({"cuda"}),
    run=executor.run,
    has_layout=executor.has_layout,
)
