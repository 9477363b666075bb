"""GraphBLAS operations over hyblas Matrix and Vector objects.

All operations take ``mask=``, ``accum=``, ``replace=`` and ``out=``; ``mxv`` / ``vxm`` also
take ``executor=``. See :mod:`hyblas.ops.api`; :func:`propagate` (:mod:`hyblas.ops.loop`)
runs the rounds of a traversal without a host round trip per round on the GPU. The names are
loaded on first use because the containers import parts of this package (masks, primitives)
while they are being defined.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "EXECUTORS",
    "Mask",
    "apply",
    "assign",
    "ewise_add",
    "ewise_mult",
    "extract",
    "inner",
    "mxm",
    "mxv",
    "propagate",
    "reduce_columns",
    "reduce_rows",
    "reduce_scalar",
    "select",
    "transpose",
    "vxm",
]


def __getattr__(name: str) -> Any:
    if name == "Mask":
        from .mask import Mask  # noqa: PLC0415

        return Mask
    if name in ("propagate", "loop"):
        loop = importlib.import_module(f"{__name__}.loop")
        return loop if name == "loop" else loop.propagate
    if name in __all__:
        from . import api  # noqa: PLC0415

        found = getattr(api, name)
        globals()[name] = found  # found directly from now on: a module __getattr__ call costs
        return found  # about a microsecond, on every operation an algorithm calls
    raise AttributeError(f"module 'hyblas.ops' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
