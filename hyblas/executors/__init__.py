"""The executors: how a product runs.

:mod:`.registry` holds every executor by name (:mod:`.reference`, :mod:`.dense`,
:mod:`.sparse`, :mod:`.pull`, :mod:`.suitesparse`), each declaring what it serves and on which
backends (:mod:`.interface`); :mod:`.policy` picks one per product for ``executor='auto'``;
:mod:`.trace` records what ran and why; :mod:`.runner` puts them together and is installed into
the operations (:mod:`hyblas.ops.dispatch`) when this package is imported.
"""

from __future__ import annotations

from . import dense, policy, pull, reference, registry, runner, sparse, suitesparse, trace
from .interface import Executor
from .registry import EXECUTORS

__all__ = [
    "EXECUTORS",
    "Executor",
    "dense",
    "sparse",
    "pull",
    "reference",
    "suitesparse",
    "policy",
    "registry",
    "runner",
    "trace",
]

runner.install()
