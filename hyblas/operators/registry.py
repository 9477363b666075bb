"""The table of named operators: one path, :func:`register`, for built-ins and user-defined
operators alike, so a user's semiring behaves exactly like ``semiring.min_plus``. The public
namespaces ``hyblas.unary``, ``hyblas.binary``, ``hyblas.monoid``, ``hyblas.semiring`` and
``hyblas.indexunary`` read from :data:`NAMESPACES`."""

from __future__ import annotations

import difflib
import keyword
from typing import Any

from ..errors import InvalidObject, InvalidValue

__all__ = [
    "NAMESPACES",
    "register",
    "lookup",
    "named",
    "unknown_name",
    "did_you_mean",
    "check_name",
    "UnknownName",
]

NAMESPACES: dict[str, dict[str, Any]] = {
    "unary": {},
    "binary": {},
    "monoid": {},
    "semiring": {},
    "indexunary": {},
}


class UnknownName(InvalidValue, KeyError):
    """No operator of that kind has the name: an :class:`~hyblas.errors.InvalidValue` that is
    also the ``KeyError`` a lookup by key raises (``semiring["min_pluss"]``)."""

    __str__ = Exception.__str__  # KeyError's would show the message quoted


def did_you_mean(kind: str, name: Any) -> str:
    """``"; did you mean a, b?"`` with the registered names of ``kind`` closest to ``name``,
    or ``""`` when none is close."""
    if not isinstance(name, str):
        return ""
    close = difflib.get_close_matches(name, list(NAMESPACES[kind]), n=3)
    return f"; did you mean {', '.join(close)}?" if close else ""


def unknown_name(kind: str, name: Any) -> str:
    """The message for a name ``kind`` lacks, with the closest names registered."""
    return f"no {kind} named {name!r}{did_you_mean(kind, name)}"


def check_name(kind: str, name: Any) -> str:
    """``name`` if it can name an operator (a Python identifier, not a keyword: the namespaces
    hand operators out as attributes); InvalidValue otherwise."""
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise InvalidValue(
            f"{kind} name {name!r} must be a Python identifier (letters, digits and "
            "underscores, not starting with a digit) and not a keyword"
        )
    return name


def register(op: Any, *, replace: bool = False) -> Any:
    """Add ``op`` to its namespace under ``op.name``.

    Raises
    ------
    InvalidObject
        If ``op`` is not an operator (UnaryOp, BinaryOp, IndexUnaryOp, Monoid, Semiring).
    InvalidValue
        If the name is taken (unless ``replace``) or is not a Python identifier, or ``op`` is
        a typed operator.

    Examples
    --------
    >>> from hyblas.operators import BinaryOp, Monoid
    >>> hypot = BinaryOp("hypot_doc", cuda="hypot(x, y)", numpy=np.hypot, types="float")
    >>> hb.operators.register(hypot) is hypot
    True
    >>> hb.binary.hypot_doc is hypot
    True
    """
    kind = getattr(op, "kind", None)
    if not isinstance(kind, str) or kind not in NAMESPACES:
        raise InvalidObject(
            "register takes an operator (UnaryOp, BinaryOp, IndexUnaryOp, Monoid or "
            f"Semiring), got {type(op).__name__}"
        )
    table = NAMESPACES[kind]
    check_name(kind, op.name)
    if op.dtype is not None:
        raise InvalidValue(f"register the untyped {kind}, not {op!r}")
    if op.name in table and not replace:
        raise InvalidValue(
            f"{kind} {op.name!r} is already registered; choose another name "
            f"(hyblas.{kind}.{op.name} is {table[op.name]!r})"
        )
    table[op.name] = op
    return op


def lookup(kind: str, name: str, dtype: Any = None) -> Any:
    """The registered operator ``name`` of ``kind`` (typed for ``dtype`` when given).

    Raises
    ------
    UnknownName
        (an InvalidValue and a KeyError) if no ``kind`` has that name.

    Examples
    --------
    >>> hb.operators.lookup("semiring", "min_plus") is hb.semiring.min_plus
    True
    >>> hb.operators.lookup("monoid", "plus", "int32").identity("int32")
    np.int32(0)
    """
    if kind not in NAMESPACES:
        raise InvalidValue(f"operator kinds are {', '.join(NAMESPACES)}; got {kind!r}")
    op = NAMESPACES[kind].get(name) if isinstance(name, str) else None
    if op is None:
        raise UnknownName(unknown_name(kind, name))
    return op if dtype is None else op[dtype]


def named(kind: str, op: Any, argument: str) -> Any:
    """``op`` itself, or the registered operator of ``kind`` it names (a str): for the
    ``register_new`` functions that take an operator or its name. UnknownName (an
    InvalidValue) for a name not registered; the operator classes check objects' kinds."""
    if not isinstance(op, str):
        return op
    found = NAMESPACES[kind].get(op)
    if found is None:
        raise UnknownName(f"{argument}={op!r} names no {kind}{did_you_mean(kind, op)}")
    return found
