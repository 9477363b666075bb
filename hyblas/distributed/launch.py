"""Starting the distributed room: one communicator for the processes a launcher started.

The launcher is MPI's: ``mpiexec -n 4 python -m mpi4py program.py`` starts four processes
(mpi4py's runner aborts them all when one raises); each calls
:func:`init`, which finds the launcher's variables and returns the communicator of all four:
over MPI on the CPU, over NCCL (one GPU a process, bootstrapped through MPI) on ``'cuda'``.
A program started without a launcher is a group of one.
"""

from __future__ import annotations

from ..backend import (
    Communicator,
    NCCLCommunicator,
    SelfCommunicator,
    launched_by_mpi,
    mpi_world,
    nccl_environment,
    resolve,
    select_device,
)

__all__ = ["init"]

_made: dict[str, Communicator] = {}


def init(backend: str | None = None) -> Communicator:
    """The communicator of every process of this program, made once per backend.

    Under an MPI launcher (``mpiexec -n N``): ``MPICommunicator`` over ``MPI.COMM_WORLD`` for
    ``'cpu'``; for ``'cuda'``, one GPU per process (its local rank modulo the GPUs it sees) and
    an ``NCCLCommunicator`` (NVLink multicast off). Otherwise a :class:`SelfCommunicator`.

    Parameters
    ----------
    backend : {'cpu', 'cuda'}, optional
        Default: :func:`hyblas.backend`.

    Raises
    ------
    MissingDependency
        Under a launcher, without mpi4py.
    BackendError
        For ``'cuda'`` without a GPU or NCCL.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> comm.rank, comm.size
    (0, 1)
    """
    launched = launched_by_mpi()
    if launched and backend != "cpu" and not _made:
        select_device()  # before the backend is probed: probing allocates on the device
    name = resolve(backend)
    if name in _made:
        return _made[name]
    if not launched:
        found: Communicator = SelfCommunicator(name)
    elif name == "cpu":
        found = mpi_world()
    else:
        nccl_environment()
        found = NCCLCommunicator(mpi_world())
    _made[name] = found
    return found
