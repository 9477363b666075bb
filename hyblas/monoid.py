"""Monoids: ``hyblas.monoid.min``, ``hyblas.monoid["min"]``; add yours with :func:`register_new`."""

from __future__ import annotations

from typing import Any

from .operators import namespace
from .operators.classes import BinaryOp, Monoid
from .operators.registry import NAMESPACES, register


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
    """
    op = NAMESPACES["binary"][binaryop] if isinstance(binaryop, str) else binaryop
    return register(Monoid(name, op, identity, terminal, atomic=atomic))


namespace.install(__name__, "monoid")
