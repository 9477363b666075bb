"""Operators: the classes (UnaryOp, BinaryOp, IndexUnaryOp, Monoid, Semiring), the registry of
named operators and the built-in catalogue.

The user-facing namespaces ``hyblas.semiring``, ``hyblas.monoid``, ``hyblas.binary``,
``hyblas.unary`` and ``hyblas.indexunary`` hand out the registered instances and add yours with
their ``register_new``.
"""

from __future__ import annotations

from . import catalogue
from .catalogue import BUILTIN_NAMES
from .classes import BinaryOp, IndexUnaryOp, Monoid, Operator, Semiring, UnaryOp
from .registry import NAMESPACES, lookup, register

__all__ = [
    "Operator",
    "UnaryOp",
    "BinaryOp",
    "IndexUnaryOp",
    "Monoid",
    "Semiring",
    "NAMESPACES",
    "BUILTIN_NAMES",
    "register",
    "lookup",
    "catalogue",
]
