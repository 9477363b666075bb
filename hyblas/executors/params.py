"""A stack of frozen parameter sets: the one in force now, and changing it for a block of code."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any, Generic, TypeVar

from ..dtypes import short_repr
from ..errors import InvalidObject, InvalidValue

P = TypeVar("P")

__all__ = ["ParamStack"]


class ParamStack(Generic[P]):
    """The parameter set in force (the top) over the defaults (the bottom)."""

    def __init__(self, defaults: P):
        self._stack: list[P] = [defaults]

    def current(self) -> P:
        return self._stack[-1]

    @contextlib.contextmanager
    def using(self, params: P | None = None, **changes: Any) -> Iterator[P]:
        """``params`` (default: the current set) with ``changes``, in force inside the block.

        Raises
        ------
        InvalidObject
            If ``params`` is not a parameter set of this stack's kind.
        InvalidValue
            If ``changes`` names a field the set does not have (a field's bad value raises
            as the set's own checks say).
        """
        base = self.current() if params is None else params
        kind = type(self._stack[0])
        if type(base) is not kind:
            raise InvalidObject(
                f"params must be a {kind.__name__} or None, got {type(base).__name__} "
                f"{short_repr(base)}"
            )
        fields = {f.name for f in dataclasses.fields(base)}
        unknown = sorted(set(changes) - fields)
        if unknown:
            raise InvalidValue(
                f"{kind.__name__} has no field {', '.join(unknown)}; its fields are "
                f"{', '.join(sorted(fields))}"
            )
        chosen = dataclasses.replace(base, **changes)
        self._stack.append(chosen)
        try:
            yield chosen
        finally:
            self._stack.pop()
