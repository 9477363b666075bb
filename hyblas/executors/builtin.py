"""Which built-in operator a semiring is made of, so that a library path (scipy, SuiteSparse)
runs only the operators it computes the same way: an operator is the built-in ``name`` when it
carries that name and the built-in's function (a user's operator registered under a built-in
name, ``replace=True``, is not)."""

from __future__ import annotations

from ..operators import BUILTIN_NAMES, NAMESPACES
from ..operators.classes import BinaryOp, Semiring

__all__ = ["binary_name", "semiring_names"]

# the built-in binary operators' functions, as the catalogue registered them
_FUNCTIONS = {name: NAMESPACES["binary"][name].numpy for name in BUILTIN_NAMES["binary"]}


def binary_name(op: BinaryOp) -> str | None:
    """The built-in binary operator ``op`` is (typed or not), or None."""
    function = _FUNCTIONS.get(op.name)
    return op.name if function is not None and op.numpy is function else None


def semiring_names(semiring: Semiring) -> tuple[str | None, str | None]:
    """``(add, multiply)``: the built-in operators of ``semiring``'s monoid and multiply (None
    where one is not a built-in)."""
    return binary_name(semiring.monoid.binaryop), binary_name(semiring.binaryop)
