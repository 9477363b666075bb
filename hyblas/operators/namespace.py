"""Module objects that act as operator namespaces: ``ns.name``, ``ns["name"]``, ``"name" in ns``."""

from __future__ import annotations

import difflib
import sys
import types
from collections.abc import Iterator

from .classes import Operator
from .registry import NAMESPACES

__all__ = ["OperatorNamespace", "install"]


class OperatorNamespace(types.ModuleType):
    """A module whose attributes are the registered operators of one kind."""

    _kind: str

    def _table(self) -> dict[str, Operator]:
        return NAMESPACES[self._kind]

    def __getattr__(self, name: str) -> Operator:
        table = NAMESPACES[object.__getattribute__(self, "_kind")]
        if name in table:
            return table[name]
        raise AttributeError(self._unknown(name))

    def __getitem__(self, name: str) -> Operator:
        """Look an operator up by its name string, e.g. ``semiring["min_plus"]``."""
        if not isinstance(name, str):
            raise TypeError(f"{self._kind} names are strings, got {name!r}")
        table = self._table()
        if name not in table:
            raise KeyError(self._unknown(name))
        return table[name]

    def _unknown(self, name: str) -> str:
        close = difflib.get_close_matches(name, list(self._table()), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        return f"no {self._kind} named {name!r}{hint}"

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
