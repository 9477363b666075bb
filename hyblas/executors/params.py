"""A stack of frozen parameter sets: the one in force now, and changing it for a block of code."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any, Generic, TypeVar

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
        """``params`` (default: the current set) with ``changes``, in force inside the block."""
        chosen = dataclasses.replace(params or self.current(), **changes)
        self._stack.append(chosen)
        try:
            yield chosen
        finally:
            self._stack.pop()
