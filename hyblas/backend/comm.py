"""The communicator interface of the distributed room: collectives over a group of processes.

One process runs per device (a GPU, or a CPU process); a :class:`Communicator` moves arrays of
the process's backend (NumPy on ``'cpu'``, CuPy on ``'cuda'``) between the processes of its
group. The collectives are those of MPI and NCCL: all-reduce, all-gather (equal and variable
lengths), reduce-scatter, broadcast, and all-to-all of variable chunks (point-to-point sends
under one group call). Implementations give the few primitives marked below; padding, dtype
views and the accounting of bytes live here, once.

Implementations: :class:`SelfCommunicator` (a group of one, in this module),
``MPICommunicator`` (:mod:`hyblas.backend.mpi`, host arrays over mpi4py) and
``NCCLCommunicator`` (:mod:`hyblas.backend.nccl`, device arrays over NCCL).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dtypes import short_repr
from ..errors import DimensionMismatch, InvalidObject, InvalidValue
from .selection import xp_for

__all__ = ["Communicator", "SelfCommunicator", "Traffic", "REDUCTIONS"]

REDUCTIONS = ("sum", "prod", "min", "max")


@dataclass
class Traffic:
    """What a communicator sent: collectives called and bytes this process sent.

    The bytes are those of the standard algorithm of each collective (a ring for all-gather,
    reduce-scatter and all-reduce; the root's buffer for a broadcast; every chunk to another
    process for all-to-all), counted from the buffers' sizes: NCCL and MPI do not report what
    they moved.

    Attributes
    ----------
    calls : int
        Collectives called (all-to-all's size exchange included).
    bytes_sent : int
        Bytes this process sent.
    """

    calls: int = 0
    bytes_sent: int = 0


class Communicator:
    """A group of processes, one per device, and the collectives among them.

    Attributes
    ----------
    rank : int
        This process's number in the group (0 to ``size - 1``).
    size : int
        Processes in the group.
    backend : {'cpu', 'cuda'}
        Where the arrays it moves live.
    traffic : Traffic
        Counters of the collectives called on it.

    Notes
    -----
    An implementation gives ``_allreduce``, ``_allgather``, ``_reduce_scatter``,
    ``_broadcast``, ``_alltoallv``, ``_split`` (the collectives on contiguous 1-D arrays, after
    the checks, padding and byte views done here) and ``barrier``.

    Examples
    --------
    >>> comm = hb.distributed.SelfCommunicator("cpu")
    >>> comm.rank, comm.size, comm.backend
    (0, 1, 'cpu')
    """

    def __init__(self, rank: int, size: int, backend: str) -> None:
        self.rank = rank
        self.size = size
        self.backend = backend
        self.traffic = Traffic()
        # sub-communicators made by their users (the grid's rows and columns), kept for reuse
        self.subgroups: dict[Any, Any] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rank={self.rank}, size={self.size}, {self.backend!r})"

    @property
    def xp(self) -> Any:
        """numpy or cupy: the module of the arrays this communicator moves."""
        return xp_for(self.backend)

    # --- the collectives ---------------------------------------------------------------------

    def allreduce(self, x: Any, op: str = "sum") -> Any:
        """The element-wise reduction of every process's ``x`` (same length everywhere).

        Parameters
        ----------
        x : array
            1-D, of a numeric or bool dtype, on the communicator's backend.
        op : {'sum', 'prod', 'min', 'max'}
            On bool, ``'max'`` is logical or and ``'min'`` logical and.

        Returns
        -------
        array
            A new array, the same on every process.

        Examples
        --------
        >>> comm = hb.distributed.SelfCommunicator("cpu")
        >>> comm.allreduce(np.array([1, 2]), "max")
        array([1, 2])
        """
        x = self._check(x, "allreduce")
        op = _check_op(op)
        self._count(2 * (self.size - 1) * x.nbytes // max(self.size, 1))
        if x.dtype == np.bool_:
            return self._allreduce(x.view(np.uint8), op).view(np.bool_)
        return self._allreduce(x, op)

    def allreduce_scalar(self, value: Any, op: str = "sum", dtype: Any = np.float64) -> Any:
        """:meth:`allreduce` of one number, returned as a NumPy scalar of ``dtype``.

        Examples
        --------
        >>> hb.distributed.SelfCommunicator("cpu").allreduce_scalar(3, "sum", np.int64)
        np.int64(3)
        """
        value = value.item() if hasattr(value, "item") else value  # NumPy / CuPy scalars
        array = self.xp.asarray([value], dtype=dtype)
        return np.asarray(_host(self.allreduce(array, op)))[0]

    def allgather(self, x: Any) -> Any:
        """Every process's ``x`` (of one length everywhere), concatenated in rank order.

        Examples
        --------
        >>> hb.distributed.SelfCommunicator("cpu").allgather(np.array([4, 5]))
        array([4, 5])
        """
        x = self._check(x, "allgather")
        self._count((self.size - 1) * x.nbytes)
        return self._allgather(_as_bytes(x)).view(x.dtype)

    def allgatherv(self, x: Any) -> list[Any]:
        """Every process's ``x`` (lengths may differ), in rank order.

        The lengths are all-gathered first; each buffer is padded to the longest.

        Examples
        --------
        >>> hb.distributed.SelfCommunicator("cpu").allgatherv(np.array([1.5]))
        [array([1.5])]
        """
        x = self._check(x, "allgatherv")
        counts = _host(self.allgather(self.xp.asarray([x.size], dtype=np.int64)))
        longest = int(counts.max())
        padded = self.xp.zeros(longest, dtype=x.dtype)
        padded[: x.size] = x
        gathered = self.allgather(padded).reshape(self.size, longest)
        return [gathered[k, : int(counts[k])] for k in range(self.size)]

    def reduce_scatter(self, x: Any, counts: Any, op: str = "sum") -> Any:
        """Reduce every process's ``x`` element-wise and keep this process's block of it.

        ``x`` is the concatenation of ``size`` blocks, block ``k`` of ``counts[k]`` elements;
        process ``k`` gets block ``k`` of the reduction. Blocks are padded to the longest.

        Parameters
        ----------
        x : array
            1-D, ``sum(counts)`` long, the same layout on every process.
        counts : sequence of int
            ``size`` block lengths.
        op : {'sum', 'prod', 'min', 'max'}

        Examples
        --------
        >>> comm = hb.distributed.SelfCommunicator("cpu")
        >>> comm.reduce_scatter(np.array([1.0, 2.0]), [2], "sum")
        array([1., 2.])
        """
        x = self._check(x, "reduce_scatter")
        op = _check_op(op)
        counts = [int(c) for c in counts]
        if len(counts) != self.size or sum(counts) != x.size:
            raise DimensionMismatch(
                f"reduce_scatter: {len(counts)} blocks of {sum(counts)} elements in all for "
                f"{self.size} processes and {x.size} elements"
            )
        longest = max(counts, default=0)
        if any(c != longest for c in counts):
            padded = self.xp.zeros(self.size * longest, dtype=x.dtype)
            starts = np.concatenate([[0], np.cumsum(counts)])
            for k, c in enumerate(counts):
                padded[k * longest : k * longest + c] = x[starts[k] : starts[k] + c]
            x = padded
        self._count((self.size - 1) * longest * x.itemsize)
        if x.dtype == np.bool_:
            block = self._reduce_scatter(x.view(np.uint8), op).view(np.bool_)
        else:
            block = self._reduce_scatter(x, op)
        return block[: counts[self.rank]]

    def broadcast(self, x: Any, root: int = 0) -> Any:
        """``root``'s ``x`` on every process (``x`` of the same length and dtype everywhere).

        Examples
        --------
        >>> hb.distributed.SelfCommunicator("cpu").broadcast(np.array([7]))
        array([7])
        """
        x = self._check(x, "broadcast")
        if not 0 <= int(root) < self.size:
            raise InvalidValue(f"broadcast: root {root} outside a group of {self.size}")
        if self.rank == root:
            self._count(x.nbytes * (self.size > 1))
        return self._broadcast(_as_bytes(x).copy(), int(root)).view(x.dtype)

    def alltoallv(self, chunks: list[Any], counts: list[int] | None = None) -> list[Any]:
        """Send ``chunks[k]`` to process ``k``; return what each process sent here, by rank.

        Every chunk has the same dtype (on every process); lengths may differ. The lengths
        are exchanged first (one all-gather of ``size`` counts, read on the host), unless the
        caller knows them.

        Parameters
        ----------
        chunks : list of arrays
            One per process (empty where nothing goes to it).
        counts : list of int, optional
            Elements this process receives from each process, where every process knows
            what the others send it (fixed-size pieces): no size exchange.

        Examples
        --------
        >>> hb.distributed.SelfCommunicator("cpu").alltoallv([np.array([3, 1])])
        [array([3, 1])]
        >>> hb.distributed.SelfCommunicator("cpu").alltoallv([np.array([3, 1])], counts=[2])
        [array([3, 1])]
        """
        if not isinstance(chunks, list | tuple) or len(chunks) != self.size:
            raise DimensionMismatch(
                f"alltoallv: one chunk per process ({self.size}), got {short_repr(chunks)}"
            )
        chunks = [self._check(c, "alltoallv") for c in chunks]
        dtype = chunks[0].dtype
        if any(c.dtype != dtype for c in chunks):
            raise InvalidValue(
                f"alltoallv: chunks of one dtype, got {sorted({str(c.dtype) for c in chunks})}"
            )
        if counts is None:
            sizes = self.xp.asarray([c.size for c in chunks], dtype=np.int64)
            counts = _host(self.allgather(sizes)).reshape(self.size, self.size)[:, self.rank]
        elif len(counts) != self.size or chunks[self.rank].size != counts[self.rank]:
            raise DimensionMismatch(
                f"alltoallv: one count per process ({self.size}), its own chunk's length at "
                f"rank {self.rank}; got {short_repr(counts)}"
            )
        self._count(sum(c.nbytes for k, c in enumerate(chunks) if k != self.rank))
        received = self._alltoallv(
            [_as_bytes(c) for c in chunks], [int(n) * dtype.itemsize for n in counts]
        )
        return [r.view(dtype) for r in received]

    def split(self, color: int, key: int) -> Communicator:
        """The communicator of the processes that pass the same ``color``, ranked by ``key``.

        Called by every process of the group. The new communicator adds to this one's
        ``traffic``: a process's counters hold what it sent in every group.

        Examples
        --------
        >>> hb.distributed.SelfCommunicator("cpu").split(0, 0).size
        1
        """
        self.traffic.calls += 1
        found = self._split(int(color), int(key))
        found.traffic = self.traffic
        return found

    def barrier(self) -> None:
        """Wait until every process of the group has called it.

        Examples
        --------
        >>> hb.distributed.SelfCommunicator("cpu").barrier()
        """
        raise NotImplementedError

    # --- for the implementations -------------------------------------------------------------

    def _check(self, x: Any, name: str) -> Any:
        xp = self.xp
        if not isinstance(x, xp.ndarray):
            raise InvalidObject(
                f"{name}: a {xp.__name__} array on the {self.backend!r} backend, got "
                f"{type(x).__name__} {short_repr(x)}"
            )
        if x.ndim != 1:
            raise DimensionMismatch(f"{name}: a 1-D array, got shape {x.shape}")
        return xp.ascontiguousarray(x)

    def _count(self, nbytes: int) -> None:
        self.traffic.calls += 1
        self.traffic.bytes_sent += int(nbytes)

    def _allreduce(self, x: Any, op: str) -> Any:
        raise NotImplementedError

    def _allgather(self, x: Any) -> Any:
        raise NotImplementedError

    def _reduce_scatter(self, x: Any, op: str) -> Any:
        raise NotImplementedError

    def _broadcast(self, x: Any, root: int) -> Any:
        raise NotImplementedError

    def _alltoallv(self, chunks: list[Any], receive_bytes: list[int]) -> list[Any]:
        raise NotImplementedError

    def _split(self, color: int, key: int) -> Communicator:
        raise NotImplementedError


class SelfCommunicator(Communicator):
    """The group of this process alone: every collective is a copy.

    What :func:`hyblas.distributed.init` gives a program not started by a launcher, so that the
    same program runs on one process.

    Parameters
    ----------
    backend : {'cpu', 'cuda'}

    Examples
    --------
    >>> comm = hb.distributed.SelfCommunicator("cpu")
    >>> comm.allgatherv(np.array([1, 2, 3]))
    [array([1, 2, 3])]
    """

    def __init__(self, backend: str = "cpu") -> None:
        if backend not in ("cpu", "cuda"):
            raise InvalidValue(f"SelfCommunicator: backend 'cpu' or 'cuda', got {backend!r}")
        super().__init__(0, 1, backend)

    def _allreduce(self, x: Any, op: str) -> Any:
        return x.copy()

    def _allgather(self, x: Any) -> Any:
        return x.copy()

    def _reduce_scatter(self, x: Any, op: str) -> Any:
        return x.copy()

    def _broadcast(self, x: Any, root: int) -> Any:
        return x

    def _alltoallv(self, chunks: list[Any], receive_bytes: list[int]) -> list[Any]:
        return [chunks[0].copy()]

    def _split(self, color: int, key: int) -> Communicator:
        return SelfCommunicator(self.backend)

    def barrier(self) -> None:
        """Nothing to wait for: the group is this process.

        Examples
        --------
        >>> hb.distributed.SelfCommunicator("cpu").barrier()
        """
        return None


def _check_op(op: Any) -> str:
    if not isinstance(op, str) or op not in REDUCTIONS:
        raise InvalidValue(f"a reduction must be one of {REDUCTIONS}, got {short_repr(op)}")
    return op


def _as_bytes(x: Any) -> Any:
    """``x`` viewed as uint8 (collectives that only move data move bytes)."""
    return x.view(np.uint8)


def _host(x: Any) -> np.ndarray:
    return x.get() if hasattr(x, "get") else np.asarray(x)
