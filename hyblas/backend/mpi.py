"""The host communicator over MPI (mpi4py): the CPU processes' collectives, and the bootstrap
of the GPU processes' NCCL communicators.

mpi4py is optional: importing this module does not import it (``from mpi4py import MPI``
initializes MPI); :func:`mpi_world` does, once. With the PyPI wheels ``mpi4py`` and ``mpich``
(``pip install mpi4py mpich``) MPI needs nothing installed on the machine: the ``mpich`` wheel
brings the library and ``mpiexec``.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np

from ..errors import MissingDependency
from .comm import Communicator

__all__ = ["MPICommunicator", "mpi_world", "launched_by_mpi"]

# variables a process started by mpiexec / mpirun finds (MPICH's hydra, Open MPI, Slurm's PMI)
_LAUNCHER_VARIABLES = ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK")


def launched_by_mpi() -> bool:
    """Whether this process was started by an MPI launcher (``mpiexec -n N``).

    Examples
    --------
    >>> from hyblas.backend.mpi import launched_by_mpi
    >>> launched_by_mpi() in (True, False)
    True
    """
    return any(name in os.environ for name in _LAUNCHER_VARIABLES)


@functools.cache
def _mpi() -> Any:
    try:
        from mpi4py import MPI  # noqa: PLC0415 - optional; importing it initializes MPI
    except ImportError as error:
        raise MissingDependency(
            "several processes need mpi4py and an MPI library: pip install mpi4py mpich "
            f"(hyblas[distributed]); {error}"
        ) from error
    return MPI


def mpi_world() -> MPICommunicator:
    """The communicator of every process the launcher started (``MPI.COMM_WORLD``).

    Raises
    ------
    MissingDependency
        If mpi4py (or its MPI library) is not installed.

    Examples
    --------
    >>> from hyblas.backend.mpi import mpi_world
    >>> world = mpi_world()  # doctest: +SKIP
    """
    return MPICommunicator(_mpi().COMM_WORLD)


class MPICommunicator(Communicator):
    """Collectives over an mpi4py communicator, on host (NumPy) arrays.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
        The processes of the group.

    Examples
    --------
    >>> from hyblas.backend.mpi import mpi_world
    >>> comm = mpi_world()  # doctest: +SKIP
    >>> comm.allreduce(np.array([comm.rank]), "max")  # doctest: +SKIP
    array([1])
    """

    def __init__(self, comm: Any) -> None:
        super().__init__(comm.Get_rank(), comm.Get_size(), "cpu")
        self.comm = comm

    def _op(self, op: str) -> Any:
        MPI = _mpi()
        return {"sum": MPI.SUM, "prod": MPI.PROD, "min": MPI.MIN, "max": MPI.MAX}[op]

    def _allreduce(self, x: Any, op: str) -> Any:
        out = np.empty_like(x)
        self.comm.Allreduce(x, out, op=self._op(op))
        return out

    def _allgather(self, x: Any) -> Any:
        out = np.empty(self.size * x.size, dtype=x.dtype)
        self.comm.Allgather(x, out)
        return out

    def _reduce_scatter(self, x: Any, op: str) -> Any:
        out = np.empty(x.size // self.size, dtype=x.dtype)
        self.comm.Reduce_scatter_block(x, out, op=self._op(op))
        return out

    def _broadcast(self, x: Any, root: int) -> Any:
        self.comm.Bcast(x, root=root)
        return x

    def _alltoallv(self, chunks: list[Any], receive_bytes: list[int]) -> list[Any]:
        send = np.concatenate(chunks) if chunks else np.empty(0, np.uint8)
        send_counts = [c.size for c in chunks]
        out = np.empty(sum(receive_bytes), dtype=np.uint8)
        send_starts = np.concatenate([[0], np.cumsum(send_counts)[:-1]]).tolist()
        receive_starts = np.concatenate([[0], np.cumsum(receive_bytes)[:-1]]).tolist()
        self.comm.Alltoallv(
            [send, (send_counts, send_starts)], [out, (receive_bytes, receive_starts)]
        )
        return [out[s : s + n] for s, n in zip(receive_starts, receive_bytes)]

    def _split(self, color: int, key: int) -> Communicator:
        return MPICommunicator(self.comm.Split(color, key))

    def barrier(self) -> None:
        """Wait until every process of the group has called it.

        Examples
        --------
        >>> from hyblas.backend.mpi import mpi_world
        >>> mpi_world().barrier()  # doctest: +SKIP
        """
        self.comm.Barrier()
