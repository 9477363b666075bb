"""Index-unary operators for ``select``: ``hyblas.indexunary.tril``; add yours with
:func:`register_new`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .operators import namespace
from .operators.classes import IndexUnaryOp
from .operators.registry import register


def register_new(
    name: str,
    numpy: Callable[[Any, Any, Any, Any], Any],
    *,
    cuda: str = "",
    thunk: str | None = None,
) -> IndexUnaryOp:
    """Register ``keep = f(values, rows, cols, thunk)`` for use in ``select``.

    Parameters
    ----------
    name : str
    numpy : callable
        Vectorized; returns a bool array. For vectors ``cols`` is 0.
    cuda : str, optional
        The same test as a CUDA C expression in ``x``, ``i``, ``j``, ``thunk``.
    thunk : {None, 'index', 'value'}
        What ``select`` accepts as the thunk: anything (None, the default: ``numpy`` checks
        it), an integer, or a number compared with the values.

    Raises
    ------
    InvalidValue
        If ``name`` is taken or not an identifier, or ``thunk`` is not one of those above.
    InvalidObject
        If ``numpy`` is not callable or ``cuda`` not a str.

    Examples
    --------
    >>> even = hb.indexunary.register_new("evenrow_doc", lambda x, i, j, t: i % 2 == 0)
    >>> hb.ops.select(hb.Vector.from_scalar(1.0, 4), even).to_coo()
    (array([0, 2]), array([1., 1.]))
    """
    return register(IndexUnaryOp(name, numpy, cuda=cuda, thunk=thunk))


namespace.install(__name__, "indexunary")
