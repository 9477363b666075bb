"""The registry: every executor hyblas has, by name, as each declares itself
(:class:`~.interface.Executor`: what it serves, on which backends, how it runs a product).

``executor=`` names one of these (or ``'auto'``, which asks :mod:`.policy`); the policy asks
them whether they fit a product and have their layout. A new executor is one more
:func:`register` call. An executor may be registered and still unavailable on a backend (the
``suitesparse`` executor: only on the CPU, only with python-graphblas installed):
:func:`unavailable` says why, and naming it there raises (:func:`require`).
"""

from __future__ import annotations

from ..errors import BackendError, InvalidValue, MissingDependency
from . import dense, pull, reference, sparse, suitesparse
from .interface import Executor

__all__ = ["EXECUTORS", "register", "get", "names", "unavailable", "require", "available"]

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
    """The registered executors' names, the reference executor first.

    Examples
    --------
    >>> hb.executors.registry.names()[:4]
    ('reference', 'dense', 'sparse', 'pull')
    """
    return tuple(EXECUTORS)


def unavailable(name: str, backend: str) -> str | None:
    """Why the executor ``name`` cannot run on ``backend``, or None where it can."""
    return get(name).unavailable(backend)


def available(backend: str) -> tuple[str, ...]:
    """The registered executors that can run on ``backend``.

    Examples
    --------
    >>> "reference" in hb.executors.registry.available("cpu")
    True
    """
    return tuple(name for name, e in EXECUTORS.items() if e.unavailable(backend) is None)


def require(name: str, backend: str) -> None:
    """Raise unless the executor ``name`` can run on ``backend``: BackendError for a backend
    it has no path for, MissingDependency for a package it needs that is not installed."""
    executor = get(name)
    reason = executor.unavailable(backend)
    if reason is None:
        return
    message = f"the {name!r} executor is unavailable: {reason}"
    if backend not in executor.backends and not executor.emulated:
        raise BackendError(message)
    raise MissingDependency(message)


for _executor in (
    reference.EXECUTOR,
    dense.EXECUTOR,
    sparse.EXECUTOR,
    pull.EXECUTOR,
    suitesparse.EXECUTOR,
):
    register(_executor)
