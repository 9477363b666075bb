"""The exchange trace: what each step of a partitioned product sent, in which encoding, why,
and how long it and the local product took.

>>> with hb.distributed.trace() as t:  # doctest: +SKIP
...     levels = hb.distributed.bfs(A, 0)
>>> print(t.table())  # doctest: +SKIP

Rows are recorded only while a trace is open; timing a row then waits for the device.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from ..backend import Communicator, synchronize

__all__ = ["ExchangeRow", "ExchangeTrace", "trace", "current", "Timer"]

STEPS = ("gather", "mask", "local", "reduce", "permute", "edges", "collect")


@dataclass
class ExchangeRow:
    """One step of a partitioned operation on this process.

    Attributes
    ----------
    call : int
        Its number in the trace.
    op : str
        The operation (``'vxm'``, ``'mxv'``, ``'build'``, ``'gather'``...).
    step : str
        ``'gather'`` (pieces to the blocks along a grid row or column), ``'mask'`` (the mask
        to the block), ``'local'`` (the product on this process's block; nothing sent),
        ``'reduce'`` (the block's partial results to the pieces), ``'permute'`` (pieces
        between the row and the column layout; none on a ``p x 1`` grid), ``'edges'``
        (entries to their blocks' owners), ``'collect'`` (a result gathered on request).
    group : int
        Processes taking part.
    encoding : str
        ``'sparse'`` (indices and values), ``'bitmap'`` (a bit per element, and the values),
        ``'dense'`` (a reduce-scatter of full blocks), ``''`` where nothing was encoded.
    nnz : int
        Entries this process sent (its piece's or block's).
    size : int
        Elements of what it sent (piece or block length).
    bytes : int
        Bytes this process sent (the communicator's count).
    sparse_bytes, bitmap_bytes : float
        The cost model's estimates of both encodings; the smaller one was chosen.
    time_ms : float
        Wall-clock time of the step (the device waited for).
    """

    call: int
    op: str
    step: str
    group: int
    encoding: str = ""
    nnz: int = 0
    size: int = 0
    bytes: int = 0
    sparse_bytes: float = 0.0
    bitmap_bytes: float = 0.0
    time_ms: float = 0.0


class ExchangeTrace:
    """The rows recorded by :func:`trace` on this process.

    Examples
    --------
    >>> with hb.distributed.trace() as t:
    ...     pass
    >>> len(t.rows)
    0
    """

    def __init__(self) -> None:
        self.rows: list[ExchangeRow] = []

    def records(self) -> list[dict]:
        """The rows as dicts.

        Examples
        --------
        >>> hb.distributed.ExchangeTrace().records()
        []
        """
        return [asdict(row) for row in self.rows]

    def summary(self) -> dict[str, dict[str, float]]:
        """Per step: rows, bytes sent and milliseconds, summed.

        Examples
        --------
        >>> hb.distributed.ExchangeTrace().summary()
        {}
        """
        out: dict[str, dict[str, float]] = {}
        for row in self.rows:
            entry = out.setdefault(row.step, {"rows": 0, "bytes": 0, "time_ms": 0.0})
            entry["rows"] += 1
            entry["bytes"] += row.bytes
            entry["time_ms"] += row.time_ms
        return out

    def table(self) -> str:
        """The rows as a fixed-width text table.

        Examples
        --------
        >>> print(hb.distributed.ExchangeTrace().table())
        call op    step    group encoding     nnz     size    bytes  sparse_B  bitmap_B     ms
        """
        lines = [
            f"{'call':>4} {'op':<5} {'step':<7} {'group':>5} {'encoding':<8} {'nnz':>7} "
            f"{'size':>8} {'bytes':>8} {'sparse_B':>9} {'bitmap_B':>9} {'ms':>6}"
        ]
        for r in self.rows:
            lines.append(
                f"{r.call:>4} {r.op:<5} {r.step:<7} {r.group:>5} {r.encoding:<8} {r.nnz:>7} "
                f"{r.size:>8} {r.bytes:>8} {r.sparse_bytes:>9.0f} {r.bitmap_bytes:>9.0f} "
                f"{r.time_ms:>6.2f}"
            )
        return "\n".join(lines)


_open: list[ExchangeTrace] = []


@contextlib.contextmanager
def trace() -> Iterator[ExchangeTrace]:
    """Record the exchange steps of the partitioned operations run inside the block.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> A = hb.distributed.DistMatrix.from_matrix(comm, hb.generators.grid_2d(3, 3))
    >>> with hb.distributed.trace() as t:
    ...     levels = hb.distributed.bfs(A, 0)
    >>> sorted({row.step for row in t.rows})
    ['gather', 'local', 'reduce']
    """
    found = ExchangeTrace()
    _open.append(found)
    try:
        yield found
    finally:
        _open.remove(found)


def current() -> ExchangeTrace | None:
    """The innermost open trace, or None."""
    return _open[-1] if _open else None


class Timer:
    """Times one step while a trace is open (waiting for the device at both ends) and counts
    the bytes ``group`` sent meanwhile; records its row on :meth:`done`."""

    def __init__(self, group: Communicator | None = None) -> None:
        self.group = group
        self.before = group.traffic.bytes_sent if group is not None else 0
        if current() is not None:
            synchronize()
        self.start = time.perf_counter()

    def done(
        self, op: str, step: str, *, choice: Any = None, encoding: str = "", nnz: int = 0,
        size: int = 0,
    ) -> None:  # fmt: skip
        """Record the step: ``choice`` (a :class:`~hyblas.distributed.Choice`) gives its
        encoding and both estimates."""
        found = current()
        if found is None:
            return
        synchronize()
        group = self.group
        found.rows.append(
            ExchangeRow(
                call=len(found.rows),
                op=op,
                step=step,
                group=group.size if group is not None else 1,
                encoding=encoding or (choice.encoding if choice is not None else ""),
                nnz=int(nnz),
                size=int(size),
                bytes=group.traffic.bytes_sent - self.before if group is not None else 0,
                sparse_bytes=choice.sparse_bytes if choice is not None else 0,
                bitmap_bytes=choice.bitmap_bytes if choice is not None else 0,
                time_ms=(time.perf_counter() - self.start) * 1e3,
            )
        )
