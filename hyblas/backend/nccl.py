"""The device communicator over NCCL (``cupy.cuda.nccl``): one process per GPU.

The processes are started by an MPI launcher; the NCCL communicator is bootstrapped through a
host communicator (:class:`~hyblas.backend.mpi.MPICommunicator`): rank 0 draws NCCL's unique id
and broadcasts it. Sub-communicators (the rows and columns of a process grid) split the host
communicator and bootstrap a NCCL communicator each. Collectives are queued on the current
CuPy stream, so that the kernels around them are ordered with them.

NVLink multicast (NVLS) stays off: :func:`nccl_environment` sets ``NCCL_NVLS_ENABLE=0`` (and
the channel count) before the first communicator is made, as the launch scripts do for the
processes they start.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import BackendError
from .comm import Communicator
from .selection import cupy_module

__all__ = ["NCCLCommunicator", "nccl_available", "nccl_environment", "select_device"]

# variables that give a process its rank among those of its host
_LOCAL_RANK_VARIABLES = ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK")


def _nccl() -> Any:
    cupy = cupy_module()
    if cupy is None:
        raise BackendError("NCCL needs CuPy and a usable GPU; hyblas.cuda_available() is False")
    try:
        from cupy.cuda import nccl  # noqa: PLC0415 - optional, and only with a GPU
    except ImportError as error:
        raise BackendError(f"CuPy was built without NCCL: {error}") from error
    if not getattr(nccl, "available", True):
        raise BackendError("CuPy's NCCL module is not available (libnccl not found)")
    return nccl


def nccl_available() -> bool:
    """Whether NCCL collectives can run here (CuPy, a GPU, and CuPy's NCCL module).

    Examples
    --------
    >>> from hyblas.backend.nccl import nccl_available
    >>> nccl_available() in (True, False)
    True
    """
    try:
        _nccl()
    except BackendError:
        return False
    return True


def nccl_environment() -> dict[str, str]:
    """The NCCL settings hyblas runs with, set in this process's environment where unset.

    Returns
    -------
    dict
        ``NCCL_NVLS_ENABLE=0``: NVLink multicast off. ``NCCL_MIN_NCHANNELS=32``: at least
        32 channels a collective: the products' collectives move whole vector pieces with
        nothing to overlap them, and on NVLink-connected H200s NCCL's own choice of
        channels left bandwidth unused for them (the commit that set it gives the
        measurements). A variable already set is kept.

    Examples
    --------
    >>> from hyblas.backend.nccl import nccl_environment
    >>> nccl_environment()
    {'NCCL_NVLS_ENABLE': '0', 'NCCL_MIN_NCHANNELS': '32'}
    """
    settings = {"NCCL_NVLS_ENABLE": "0", "NCCL_MIN_NCHANNELS": "32"}
    for name, value in settings.items():
        os.environ.setdefault(name, value)
    return settings


def select_device(rank: int | None = None) -> int | None:
    """Make this process's GPU the current device, before anything is allocated on one: its
    local rank (from the launcher's variables, else ``rank``, else its rank among all) modulo
    the GPUs it sees. Returns the device number, or None where CuPy sees no GPU.

    Called by :func:`hyblas.distributed.init` before the backend is probed (probing
    allocates on the current device: on GPU 0 in every process, without this).

    Examples
    --------
    >>> from hyblas.backend.nccl import select_device
    >>> select_device(0)  # doctest: +SKIP
    0
    """
    try:
        import cupy  # noqa: PLC0415 - optional; no allocation before the device is chosen

        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # no CuPy, no driver: no device to choose
        return None
    if count < 1:
        return None
    names = (*_LOCAL_RANK_VARIABLES, "PMI_RANK", "OMPI_COMM_WORLD_RANK")
    local = next((os.environ[v] for v in names if v in os.environ), None)
    device = (int(local) if local is not None else int(rank or 0)) % count
    cupy.cuda.Device(device).use()
    return device


class NCCLCommunicator(Communicator):
    """Collectives over NCCL on CuPy arrays, bootstrapped through a host communicator.

    Parameters
    ----------
    bootstrap : Communicator
        A host communicator of the same processes (an ``MPICommunicator``): it carries NCCL's
        unique id, and its ``split`` makes the sub-communicators' bootstraps.

    Raises
    ------
    BackendError
        Without CuPy, a GPU or NCCL.

    Examples
    --------
    >>> from hyblas.backend.mpi import mpi_world
    >>> comm = NCCLCommunicator(mpi_world())  # doctest: +SKIP
    """

    def __init__(self, bootstrap: Communicator) -> None:
        nccl = _nccl()
        nccl_environment()
        super().__init__(bootstrap.rank, bootstrap.size, "cuda")
        self.bootstrap = bootstrap
        # NCCL's id (128 bytes) and, last, whether this CuPy gives it as bytes (CuPy 14) or as
        # a tuple of ints (earlier): the communicator takes it back in the same form
        uid = np.zeros(129, dtype=np.int8)
        if bootstrap.rank == 0:
            raw = nccl.get_unique_id()
            if isinstance(raw, bytes | bytearray):
                uid[:128] = np.frombuffer(bytes(raw), dtype=np.int8)
                uid[128] = 1
            else:
                uid[:128] = np.asarray(raw, dtype=np.int64).astype(np.int8)
        uid = bootstrap.broadcast(uid, 0)
        unique_id = uid[:128].tobytes() if uid[128] else tuple(int(b) for b in uid[:128])
        self.comm = nccl.NcclCommunicator(bootstrap.size, unique_id, bootstrap.rank)
        self._nccl = nccl

    def _stream(self) -> int:
        return cupy_module().cuda.get_current_stream().ptr

    def _type(self, dtype: np.dtype) -> int:
        nccl = self._nccl
        table = {
            "int8": nccl.NCCL_INT8,
            "uint8": nccl.NCCL_UINT8,
            "int32": nccl.NCCL_INT32,
            "uint32": nccl.NCCL_UINT32,
            "int64": nccl.NCCL_INT64,
            "uint64": nccl.NCCL_UINT64,
            "float16": nccl.NCCL_FLOAT16,
            "float32": nccl.NCCL_FLOAT32,
            "float64": nccl.NCCL_FLOAT64,
        }
        if dtype.name not in table:
            raise BackendError(f"NCCL reduces no {dtype}")
        return table[dtype.name]

    def _op(self, op: str) -> int:
        nccl = self._nccl
        return {"sum": nccl.NCCL_SUM, "prod": nccl.NCCL_PROD, "min": nccl.NCCL_MIN,
                "max": nccl.NCCL_MAX}[op]  # fmt: skip

    def _allreduce(self, x: Any, op: str) -> Any:
        out = cupy_module().empty_like(x)
        self.comm.allReduce(
            x.data.ptr, out.data.ptr, x.size, self._type(x.dtype), self._op(op), self._stream()
        )
        return out

    def _allgather(self, x: Any) -> Any:
        out = cupy_module().empty(self.size * x.size, dtype=x.dtype)
        self.comm.allGather(x.data.ptr, out.data.ptr, x.size, self._type(x.dtype), self._stream())
        return out

    def _reduce_scatter(self, x: Any, op: str) -> Any:
        count = x.size // self.size
        out = cupy_module().empty(count, dtype=x.dtype)
        self.comm.reduceScatter(
            x.data.ptr, out.data.ptr, count, self._type(x.dtype), self._op(op), self._stream()
        )
        return out

    def _broadcast(self, x: Any, root: int) -> Any:
        self.comm.bcast(x.data.ptr, x.size, self._type(x.dtype), root, self._stream())
        return x

    def _alltoallv(self, chunks: list[Any], receive_bytes: list[int]) -> list[Any]:
        cupy = cupy_module()
        received = [cupy.empty(n, dtype=np.uint8) for n in receive_bytes]
        stream = self._stream()
        uint8 = self._nccl.NCCL_UINT8
        self._nccl.groupStart()
        for peer in range(self.size):
            if peer == self.rank:
                continue
            if chunks[peer].size:
                self.comm.send(chunks[peer].data.ptr, chunks[peer].size, uint8, peer, stream)
            if receive_bytes[peer]:
                self.comm.recv(received[peer].data.ptr, receive_bytes[peer], uint8, peer, stream)
        self._nccl.groupEnd()
        received[self.rank] = chunks[self.rank].copy()
        return received

    def _split(self, color: int, key: int) -> Communicator:
        return NCCLCommunicator(self.bootstrap.split(color, key))

    def barrier(self) -> None:
        """Wait until every process of the group has called it (and this GPU is idle).

        Examples
        --------
        >>> comm.barrier()  # doctest: +SKIP
        """
        cupy_module().cuda.get_current_stream().synchronize()
        self.bootstrap.barrier()
