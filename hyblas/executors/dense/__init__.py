"""The dense-frontier executor (MultiGraphD): a two-phase SpMV over a 2D-blocked layout.

``mxv`` / ``vxm`` with ``executor='dense'`` run here: CUDA kernels on the GPU, a NumPy
emulation of the same layout walk on the CPU. See :mod:`.layout` for the layout,
:mod:`.executor` for the phases, :mod:`.params` for the tuned parameter set.
"""

from __future__ import annotations

from ..interface import Executor
from . import executor
from .params import DEFAULT_PARAMS, DenseParams, current_params, dense_params

__all__ = ["DEFAULT_PARAMS", "DenseParams", "current_params", "dense_params", "EXECUTOR"]

EXECUTOR = Executor(
    name="dense",
    summary="2D-blocked two-phase SpMV for full or wide frontiers",
    backends=frozenset({"cuda"}),
    run=executor.run,
    fits=executor.fits,
    has_layout=executor.has_layout,
)
