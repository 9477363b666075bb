"""Semirings: ``hyblas.semiring.min_plus``, ``hyblas.semiring["min_plus"]``.

The operator classes live in :mod:`hyblas.operators`, the built-ins in
:mod:`hyblas.operators.catalogue`. Add your own with :func:`register_new`.
"""

from __future__ import annotations

from .operators import namespace
from .operators.classes import BinaryOp, Monoid, Semiring
from .operators.registry import NAMESPACES, register


def register_new(name: str, monoid: Monoid | str, binaryop: BinaryOp | str) -> Semiring:
    """Register a semiring ``(monoid, binaryop)`` under ``name``; it behaves like a built-in.

    Parameters
    ----------
    name : str
    monoid : Monoid or str
        The add monoid (or its name in ``hyblas.monoid``).
    binaryop : BinaryOp or str
        The multiply (or its name in ``hyblas.binary``).
    """
    add = NAMESPACES["monoid"][monoid] if isinstance(monoid, str) else monoid
    mult = NAMESPACES["binary"][binaryop] if isinstance(binaryop, str) else binaryop
    return register(Semiring(name, add, mult))


namespace.install(__name__, "semiring")
