"""The hyblas exception hierarchy.

Every error hyblas raises on purpose derives from :class:`HyblasError`. Messages name the
argument and the values involved, and an operation that raises leaves its output unchanged.
"""

from __future__ import annotations

__all__ = [
    "HyblasError",
    "DimensionMismatch",
    "DomainMismatch",
    "IndexOutOfBounds",
    "InvalidValue",
    "NegativeCycle",
    "NotConverged",
    "InvalidObject",
    "BackendError",
    "OutOfMemory",
    "MissingDependency",
    "ExecutorFallback",
]


class HyblasError(Exception):
    """Base class of every error hyblas raises on purpose."""


class DimensionMismatch(HyblasError, ValueError):
    """Shapes of the arguments do not fit the operation."""


class DomainMismatch(HyblasError, TypeError):
    """A dtype the operation or operator cannot serve, or an unsafe cast into ``out``."""


class IndexOutOfBounds(HyblasError, IndexError):
    """An index lies outside the object's dimensions."""


class InvalidValue(HyblasError, ValueError):
    """An argument has a value the operation does not accept (duplicates, bad names...)."""


class NegativeCycle(InvalidValue):
    """A shortest-path search met a negative cycle reachable from its source: no shortest
    distances exist (networkx's ``NetworkXUnbounded``)."""


class NotConverged(InvalidValue):
    """An iteration did not converge within its ``max_iter`` steps (networkx's
    ``PowerIterationFailedConvergence``)."""


class InvalidObject(HyblasError, TypeError):
    """An argument is not an object of the kind expected (or is internally inconsistent)."""


class BackendError(HyblasError, RuntimeError):
    """The backend asked for is unavailable, objects live on different backends, or CUDA failed."""


class OutOfMemory(HyblasError, MemoryError):
    """An allocation failed; the message says what was being built, how much was asked for
    and how much is free (where known)."""

    def __init__(self, requested_bytes: int | None, free_bytes: int | None, what: str = ""):
        self.requested_bytes = requested_bytes
        self.free_bytes = free_bytes
        self.what = what
        parts = [f"out of memory{' while ' + what if what else ''}"]
        if requested_bytes is not None:
            parts.append(f"asked for {_amount(requested_bytes)}")
        if free_bytes is not None:
            parts.append(f"{_amount(free_bytes)} free")
        super().__init__(", ".join(parts))


def _amount(count: int) -> str:
    """A byte count in the largest binary unit that keeps it at least 1 (MiB at least)."""
    units = ("MiB", "GiB", "TiB", "PiB", "EiB")
    value, unit = count / 2**20, units[0]
    for unit in units:
        if value < 1024 or unit == units[-1]:
            break
        value /= 1024
    return f"{value:.1f} {unit}"


class MissingDependency(HyblasError, ImportError):
    """An optional package a feature needs is not installed; the message says what to install."""


class ExecutorFallback(HyblasError, UserWarning):
    """The executor asked for cannot run this operation; another (named in the message) ran it."""
