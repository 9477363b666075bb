"""GraphBLAS operations over hyblas Matrix and Vector objects.

All operations take ``mask=``, ``accum=``, ``replace=`` and ``out=``; ``mxv`` / ``vxm`` also
take ``executor=``. See :mod:`hyblas.ops.api`. The names are loaded on first use because the
containers import parts of this package (masks, primitives) while they are being defined.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "EXECUTORS",
    "Mask",
    "apply",
    "assign",
    "ewise_add",
    "ewise_mult",
    "extract",
    "mxm",
    "mxv",
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
    if name in __all__:
        from . import api  # noqa: PLC0415

        return getattr(api, name)
    raise AttributeError(f"module 'hyblas.ops' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
