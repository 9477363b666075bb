"""Binary operators: ``hyblas.binary.plus``, ``hyblas.binary["plus"]``; add yours with
:func:`register_new`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .operators import namespace
from .operators.classes import BinaryOp
from .operators.registry import register


def register_new(
    name: str,
    cuda: str,
    numpy: Callable[[Any, Any], Any],
    *,
    types: Any = None,
    output: str | Any = "same",
) -> BinaryOp:
    """Register a binary operator usable everywhere a built-in one is.

    Parameters
    ----------
    name : str
    cuda : str
        CUDA C expression in ``x`` and ``y``, e.g. ``"fmin(x, y)"``.
    numpy : callable
        Vectorized ``f(x, y)`` written with NumPy ufuncs (so it also runs on CuPy arrays).
    types : dtype or list of dtypes, optional
        The input dtypes it serves (default: all).
    output : 'same', 'bool' or a dtype

    Raises
    ------
    InvalidValue
        If ``name`` is taken or not an identifier, or ``types`` is empty.
    InvalidObject
        If ``cuda`` is not a str or ``numpy`` not callable.
    DomainMismatch
        If ``types`` or ``output`` names a dtype hyblas does not store.

    Examples
    --------
    >>> absdiff = hb.binary.register_new(
    ...     "absdiff_doc", "((x) > (y) ? (x) - (y) : (y) - (x))", lambda x, y: np.abs(x - y)
    ... )
    >>> u = hb.Vector.from_coo([0, 1], [1.0, 5.0], size=2)
    >>> hb.ops.ewise_mult(u, hb.Vector.from_coo([0, 1], [4.0, 2.0], size=2), "absdiff_doc").to_coo()
    (array([0, 1]), array([3., 3.]))
    """
    return register(BinaryOp(name, cuda, numpy, types=types, output=output))


namespace.install(__name__, "binary")
