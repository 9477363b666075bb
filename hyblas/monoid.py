"""Monoids: ``hyblas.monoid.min``, ``hyblas.monoid["min"]``; add yours with :func:`register_new`."""

from __future__ import annotations

from typing import Any

from .operators import namespace
from .operators.classes import BinaryOp, Monoid
from .operators.registry import named, register


def register_new(
    name: str,
    binaryop: BinaryOp | str,
    identity: Any,
    terminal: Any = None,
    *,
    atomic: str | None = None,
) -> Monoid:
    """Register a monoid usable everywhere a built-in one is.

    Parameters
    ----------
    name : str
    binaryop : BinaryOp or str
        An associative operator (or its name in ``hyblas.binary``).
    identity : value or callable(dtype) -> value
    terminal : value or callable(dtype) -> value, optional
        A value that absorbs every other (lets reductions stop early).
    atomic : {'add', 'min', 'max', 'or', 'and', 'xor'}, optional
        The native CUDA atomic equal to this monoid, if one is.

    Raises
    ------
    InvalidValue
        If ``name`` is taken or not an identifier, a ``binaryop`` name is not registered, the
        operator returns bool for any input, or ``atomic`` is not one of those above.
    InvalidObject
        If ``binaryop`` is not a BinaryOp.
    DomainMismatch
        If ``identity`` or ``terminal`` is not a number (or a callable giving one).

    Examples
    --------
    >>> product = hb.monoid.register_new("times_doc", hb.binary.times, identity=1)
    >>> hb.ops.reduce_scalar(hb.Vector.from_coo([0, 2], [3, 4], size=3), product)
    np.int64(12)
    """
    op = named("binary", binaryop, "binaryop")
    return register(Monoid(name, op, identity, terminal, atomic=atomic))


namespace.install(__name__, "monoid")
