"""The registry: every executor hyblas has, by name, as each declares itself
(:class:`~.interface.Executor`: what it serves, on which backends, how it runs a product).

``executor=`` names one of these (or ``'auto'``, which asks :mod:`.policy`); the policy asks
them whether they fit a product and have their layout. A new executor is one more
:func:`register` call.
"""

from __future__ import annotations

from ..errors import InvalidValue
from . import dense, pull, reference, sparse
from .interface import Executor

__all__ = ["EXECUTORS", "register", "get", "names"]

#: The registered executors by name, the reference executor first.
EXECUTORS: dict[str, Executor] = {}


def register(executor: Executor) -> Executor:
    """Add ``executor`` under its name (InvalidValue if the name is taken)."""
    if executor.name in EXECUTORS or executor.name == "auto":
        raise InvalidValue(f"an executor named {executor.name!r} is registered already")
    EXECUTORS[executor.name] = executor
    return executor


def get(name: str) -> Executor:
    """The executor registered as ``name``."""
    try:
        return EXECUTORS[name]
    except KeyError:
        raise InvalidValue(
            f"executor must be one of {('auto', *EXECUTORS)}, got {name!r}"
        ) from None


def names() -> tuple[str, ...]:
    """The registered executors' names, the reference executor first."""
    return tuple(EXECUTORS)


for _executor in (reference.EXECUTOR, dense.EXECUTOR, sparse.EXECUTOR, pull.EXECUTOR):
    register(_executor)
