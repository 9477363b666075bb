"""The table of named operators: one path, :func:`register`, for built-ins and user-defined
operators alike, so a user's semiring behaves exactly like ``semiring.min_plus``. The public
namespaces ``hyblas.unary``, ``hyblas.binary``, ``hyblas.monoid``, ``hyblas.semiring`` and
``hyblas.indexunary`` read from :data:`NAMESPACES`."""

from __future__ import annotations

from typing import Any

__all__ = ["NAMESPACES", "register", "lookup"]

NAMESPACES: dict[str, dict[str, Any]] = {
    "unary": {},
    "binary": {},
    "monoid": {},
    "semiring": {},
    "indexunary": {},
}


def register(op: Any, *, replace: bool = False) -> Any:
    """Add ``op`` to its namespace under ``op.name``.

    Raises
    ------
    ValueError
        If the name is taken (unless ``replace``) or is not a Python identifier.
    """
    table = NAMESPACES[op.kind]
    if not op.name.isidentifier():
        raise ValueError(f"{op.kind} name {op.name!r} must be a Python identifier")
    if op.name in table and not replace:
        raise ValueError(f"{op.kind} {op.name!r} is already registered")
    if op.dtype is not None:
        raise ValueError(f"register the untyped {op.kind}, not {op!r}")
    table[op.name] = op
    return op


def lookup(kind: str, name: str, dtype: Any = None) -> Any:
    """The registered operator ``name`` of ``kind`` (typed for ``dtype`` when given)."""
    op = NAMESPACES[kind][name]
    return op if dtype is None else op[dtype]
