"""An on / off setting of a library path (scipy's product, the SuiteSparse executor): on by
default, off inside a block, to compare or time the paths without it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["Switch"]


class Switch:
    """On until :meth:`off` turns it off for the length of a ``with`` block."""

    def __init__(self) -> None:
        self._on = True

    def __bool__(self) -> bool:
        return self._on

    @contextlib.contextmanager
    def off(self) -> Iterator[None]:
        before = self._on
        self._on = False
        try:
            yield
        finally:
            self._on = before
