"""The containers: Matrix (canonical CSR), Vector (sparse or bitmap storage) and Mask (a view
of either used as a write mask). Storage and conversion only: the operations on them live in
:mod:`hyblas.ops`, which also attaches the operation methods (``A.mxv``, ``v.vxm``, ...)."""

from __future__ import annotations

from .mask import Mask
from .matrix import Matrix
from .vector import SPARSE_BELOW, Vector

__all__ = ["Matrix", "Vector", "Mask", "SPARSE_BELOW"]
