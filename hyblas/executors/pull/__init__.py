"""The output-masked pull executor: the outputs the mask allows reduce their rows of the edge
matrix, stopping early where the monoid allows (the bottom-up step of a direction-optimizing
BFS, as a masked ``mxv``).

``mxv`` / ``vxm`` with ``executor='pull'`` run here: CUDA kernels on the GPU, a NumPy emulation
of the same walk on the CPU. See :mod:`.executor`.
"""

from __future__ import annotations

from ..interface import Executor
from . import executor
from .executor import allowed_rows, pull, run

__all__ = ["allowed_rows", "pull", "run", "EXECUTOR"]

EXECUTOR = Executor(
    name="pull",
    summary="the outputs the mask allows reduce their rows, stopping at a final contribution",
    backends=frozenset({"cuda"}),
    run=executor.run,
)
