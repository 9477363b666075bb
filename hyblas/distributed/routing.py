"""What every partitioned constructor needs: the communicator checked against the grid, errors
agreed on by every process (so that none waits in a collective that another left by raising),
and entries sent to the processes that own them."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import errors as _errors
from ..backend import Communicator
from ..dtypes import short_repr
from ..errors import HyblasError, InvalidObject, InvalidValue
from .grid import ProcessGrid
from .trace import Timer

__all__ = ["communicator", "check_comm", "agree", "route", "groups"]

# the named errors a process may raise on its own; the others raise the same class
_ERRORS: tuple[type[HyblasError], ...] = (
    _errors.IndexOutOfBounds,
    _errors.DimensionMismatch,
    _errors.DomainMismatch,
    _errors.InvalidObject,
    _errors.OutOfMemory,
    _errors.InvalidValue,
    _errors.BackendError,
    _errors.HyblasError,
)


def communicator(comm: Any, what: str) -> Communicator:
    """``comm`` if it is a Communicator, else InvalidObject."""
    if not isinstance(comm, Communicator):
        raise InvalidObject(
            f"{what}: comm must be a Communicator (hb.distributed.init()), got {short_repr(comm)}"
        )
    return comm


def check_comm(comm: Any, grid: ProcessGrid, what: str) -> None:
    """InvalidObject unless ``comm`` is a Communicator; InvalidValue unless the grid has one
    process per member."""
    communicator(comm, what)
    if not isinstance(grid, ProcessGrid):
        raise InvalidObject(f"{what}: grid must be a ProcessGrid, got {short_repr(grid)}")
    if grid.size != comm.size:
        raise InvalidValue(
            f"{what}: a {grid.rows}x{grid.cols} grid needs {grid.size} processes, "
            f"the communicator has {comm.size}"
        )


def agree(comm: Communicator, error: HyblasError | None, what: str) -> None:
    """Raise on every process if ``error`` happened on any: this process's own error, else
    the same class as the failing process's (the first in the hierarchy that matches)."""
    code = 0
    if error is not None:
        code = next(k for k, kind in enumerate(_ERRORS, 1) if isinstance(error, kind))
    found = int(comm.allreduce_scalar(code, "max", np.int64))
    if error is not None:
        raise error
    if found:
        raise _ERRORS[found - 1](f"{what}: the input of another process was refused")


def route(
    comm: Communicator, dest: Any, keys: list[Any], values: Any | None, what: str
) -> tuple[list[Any], Any | None]:
    """Send entry ``e`` (``keys[..][e]`` and ``values[e]``) to process ``dest[e]``; what
    arrived here, from every process, in rank order (the arrays keep their dtypes).

    One pass over the entries per process (no sort): the destinations are few."""
    timer = Timer(comm)
    xp = comm.xp
    arrays = [xp.asarray(key) for key in keys] + ([] if values is None else [values])
    if comm.size == 1:
        found = arrays
    else:
        outgoing: list[list[Any]] = [[] for _ in arrays]
        for k in range(comm.size):
            chosen = dest == k
            for out, array in zip(outgoing, arrays):
                out.append(array[chosen])
            del chosen
        found = [xp.concatenate(comm.alltoallv(pieces)) for pieces in outgoing]
    timer.done(what, "edges", encoding="sparse", nnz=dest.size, size=dest.size)
    return found[: len(keys)], None if values is None else found[-1]


def groups(comm: Communicator, grid: ProcessGrid) -> tuple[Communicator, Communicator]:
    """The communicators of this process's grid row (ranked by column) and grid column
    (ranked by row); made once per communicator and grid. *Collective* the first time."""
    key = ("grid", grid.rows, grid.cols)
    if key not in comm.subgroups:
        i, j = grid.coords(comm.rank)
        comm.subgroups[key] = (comm.split(i, j), comm.split(j, i))
    return comm.subgroups[key]
