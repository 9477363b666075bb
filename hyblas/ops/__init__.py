"""GraphBLAS operations over hyblas Matrix and Vector objects.

Every operation takes ``mask=``, ``accum=``, ``replace=`` and ``out=`` with GraphBLAS C API 2.0
semantics (:mod:`.output`) and returns ``out`` (updated in place) or a new object. Arguments
are checked and gathered into one :class:`~.spec.OutputSpec` before anything is computed, and
the output is written only once the result exists, so an operation that raises leaves ``out``
unchanged. The products (``mxv``, ``vxm``, ``mxm``) take ``executor=`` and are handed to the
executors (:mod:`.dispatch`); :func:`propagate` runs the rounds of a traversal
(:mod:`hyblas.traversal`, attached here by :mod:`hyblas`).
"""

from __future__ import annotations

from ..containers.mask import Mask
from . import methods
from .dispatch import EXECUTORS
from .elementwise import ewise_add, ewise_mult, inner
from .indexing import assign, extract, transpose
from .products import mxm, mxv, vxm
from .reductions import reduce_columns, reduce_rows, reduce_scalar
from .transform import apply, select

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

methods.attach()
