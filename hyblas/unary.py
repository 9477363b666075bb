"""Unary operators: ``hyblas.unary.abs``, ``hyblas.unary["abs"]``; add yours with
:func:`register_new`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .operators import namespace
from .operators.classes import UnaryOp
from .operators.registry import register


def register_new(
    name: str,
    cuda: str,
    numpy: Callable[[Any], Any],
    *,
    types: Any = None,
    output: str | Any = "same",
) -> UnaryOp:
    """Register a unary operator usable everywhere a built-in one is.

    Parameters
    ----------
    name : str
    cuda : str
        CUDA C expression in ``x``.
    numpy : callable
        Vectorized ``f(x)`` written with NumPy ufuncs.
    types : dtype or list of dtypes, optional
    output : 'same', 'bool' or a dtype

    Raises as :func:`hyblas.binary.register_new` does.
    """
    return register(UnaryOp(name, cuda, numpy, types=types, output=output))


namespace.install(__name__, "unary")
