"""Module objects that act as operator namespaces: ``ns.name``, ``ns["name"]``, ``"name" in ns``."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

from ..errors import InvalidObject, InvalidValue
from .classes import Operator
from .registry import NAMESPACES, UnknownName, unknown_name

__all__ = ["OperatorNamespace", "install", "UnknownAttribute"]


class UnknownAttribute(InvalidValue, AttributeError):
    """No operator of the namespace's kind has the name: an
    :class:`~hyblas.errors.InvalidValue` that is also the ``AttributeError`` attribute access
    raises (so ``hasattr`` and ``getattr(ns, name, default)`` work)."""


class OperatorNamespace(types.ModuleType):
    """A module whose attributes are the registered operators of one kind."""

    _kind: str

    def _table(self) -> dict[str, Operator]:
        return NAMESPACES[self._kind]

    def __getattr__(self, name: str) -> Operator:
        kind = object.__getattribute__(self, "_kind")
        table = NAMESPACES[kind]
        if name in table:
            return table[name]
        if name.startswith("__"):  # Python's own probes (__path__, __wrapped__...): no hint
            raise AttributeError(f"module 'hyblas.{kind}' has no attribute {name!r}")
        raise UnknownAttribute(unknown_name(kind, name))

    def __getitem__(self, name: str) -> Operator:
        """Look an operator up by its name string, e.g. ``semiring["min_plus"]``.

        Raises
        ------
        InvalidObject
            If ``name`` is not a str.
        UnknownName
            (an InvalidValue and a KeyError) if no operator has that name.
        """
        if not isinstance(name, str):
            raise InvalidObject(f"{self._kind} names are strings, got {name!r}")
        table = self._table()
        if name not in table:
            raise UnknownName(unknown_name(self._kind, name))
        return table[name]

    def __contains__(self, name: object) -> bool:
        return name in self._table()

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._table()))

    def __len__(self) -> int:
        return len(self._table())

    def __dir__(self) -> list[str]:
        return sorted(set(self._table()) | {"register_new"})


def install(module_name: str, kind: str) -> None:
    """Turn the module ``module_name`` into the namespace of operators of ``kind``."""
    module = sys.modules[module_name]
    module.__class__ = OperatorNamespace
    module._kind = kind
