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

    Examples
    --------
    >>> cube = hb.unary.register_new("cube_doc", "((x) * (x) * (x))", lambda x: x * x * x)
    >>> hb.ops.apply(hb.Vector.from_coo([0, 1], [2.0, -1.0], size=2), cube).to_coo()
    (array([0, 1]), array([ 8., -1.]))
    """
    return register(UnaryOp(name, cuda, numpy, types=types, output=output))


namespace.install(__name__, "unary")
