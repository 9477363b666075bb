"""Index-unary operators for ``select``: ``hyblas.indexunary.tril``; add yours with
:func:`register_new`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .operators import namespace
from .operators.classes import IndexUnaryOp
from .operators.registry import register


def register_new(
    name: str, numpy: Callable[[Any, Any, Any, Any], Any], *, cuda: str = ""
) -> IndexUnaryOp:
    """Register ``keep = f(values, rows, cols, thunk)`` for use in ``select``.

    Parameters
    ----------
    name : str
    numpy : callable
        Vectorized; returns a bool array. For vectors ``cols`` is 0.
    cuda : str, optional
        The same test as a CUDA C expression in ``x``, ``i``, ``j``, ``thunk``.
    """
    return register(IndexUnaryOp(name, numpy, cuda=cuda))


namespace.install(__name__, "indexunary")
