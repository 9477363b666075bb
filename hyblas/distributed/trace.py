"""The exchange trace: what each step of a partitioned product sent, in which encoding, why,
and how long it and the local product took.

>>> with hb.distributed.trace() as t:  # doctest: +SKIP
...    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']levels = hb.distributed.bfs(A, 0)
>>> print(t.table())  # doctest: +SKIP

Rows are recorded only while a trace is open; timing a row then waits for the device.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass

from ..backend import synchronize

__all__ = ["ExchangeRow", "ExchangeTrace", "trace", "current", "Timer"]

STEPS = ("gather", "mask", "local", "reduce", "permute", "edges", "collect")


@dataclass
class ExchangeRow:
    """One step of a partitioned operation on this process.

    Attributes
    ----------
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']all : int
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   Its number in the trace.
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']p : str
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   The operation (``'vxm'``, ``'mxv'``, ``'build'``, ``'gather'``...).
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']tep : str
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   ``'gather'`` (pieces to the blocks along a grid row or column), ``'mask'`` (the mask
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   to the block), ``'local'`` (the product on this process's block; nothing sent),
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   ``'reduce'`` (the block's partial results to the pieces), ``'permute'`` (pieces
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   between the row and the column layout), ``'edges'`` (entries to their blocks'
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   owners), ``'collect'`` (a result gathered on request).
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']roup : int
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   Processes taking part.
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ncoding : str
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   ``'sparse'`` (indices and values), ``'bitmap'`` (a bit per element, and the values),
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   ``'dense'`` (a reduce-scatter of full blocks), ``''`` where nothing was encoded.
    nnz : int
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   Entries this process sent (its piece's or block's).
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ize : int
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   Elements of what it sent (piece or block length).
    bytes : int
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   Bytes this process sent (the communicator's count).
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']parse_bytes, bitmap_bytes : float
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   The cost model's estimates of both encodings; the smaller one was chosen.
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ime_ms : float
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   Wall-clock time of the step (the device waited for).
    """

    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']all: int
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']p: str
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']tep: str
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']roup: int
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ncoding: str = ""
    nnz: int = 0
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ize: int = 0
    bytes: int = 0
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']parse_bytes: float = 0.0
    bitmap_bytes: float = 0.0
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ime_ms: float = 0.0


class ExchangeTrace:
    """The rows recorded by :func:`trace` on this process.

    Examples
    --------
    >>> with hb.distributed.trace() as t:
    ...    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']pass
    >>> len(t.rows)
    0
    """

    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ef __init__(self) -> None:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   self.rows: list[ExchangeRow] = []

    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ef records(self) -> list[dict]:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   """The rows as dicts.

    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   Examples
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   --------
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   >>> hb.distributed.ExchangeTrace().records()
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   []
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   """
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   return [asdict(row) for row in self.rows]

    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ef summary(self) -> dict[str, dict[str, float]]:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   """Per step: rows, bytes sent and milliseconds, summed.

    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   Examples
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   --------
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   >>> hb.distributed.ExchangeTrace().summary()
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   {}
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   """
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   out: dict[str, dict[str, float]] = {}
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   for row in self.rows:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']       entry = out.setdefault(row.step, {"rows": 0, "bytes": 0, "time_ms": 0.0})
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']       entry["rows"] += 1
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']       entry["bytes"] += row.bytes
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']       entry["time_ms"] += row.time_ms
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   return out

    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ef table(self) -> str:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   """The rows as a fixed-width text table.

    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   Examples
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   --------
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   >>> print(hb.distributed.ExchangeTrace().table())
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   call op    step    group encoding     nnz     size    bytes  sparse_B  bitmap_B     ms
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   """
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   lines = [
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']       f"{'call':>4} {'op':<5} {'step':<7} {'group':>5} {'encoding':<8} {'nnz':>7} "
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']       f"{'size':>8} {'bytes':>8} {'sparse_B':>9} {'bitmap_B':>9} {'ms':>6}"
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   ]
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   for r in self.rows:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']       lines.append(
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']           f"{r.call:>4} {r.op:<5} {r.step:<7} {r.group:>5} {r.encoding:<8} {r.nnz:>7} "
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']           f"{r.size:>8} {r.bytes:>8} {r.sparse_bytes:>9.0f} {r.bitmap_bytes:>9.0f} "
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']           f"{r.time_ms:>6.2f}"
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']       )
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   return "\n".join(lines)


_open: list[ExchangeTrace] = []


@contextlib.contextmanager
def trace() -> Iterator[ExchangeTrace]:
    """Record the exchange steps of the partitioned operations run inside the block.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> A = hb.distributed.DistMatrix.from_matrix(comm, hb.generators.grid_2d(3, 3))
    >>> with hb.distributed.trace() as t:
    ...    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']levels = hb.distributed.bfs(A, 0)
    >>> sorted({row.step for row in t.rows})
    ['gather', 'local', 'mask', 'permute', 'reduce']
    """
    found = ExchangeTrace()
    _open.append(found)
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ry:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   yield found
    finally:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   _open.remove(found)


def current() -> ExchangeTrace | None:
    """The innermost open trace, or None."""
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']eturn _open[-1] if _open else None


class Timer:
    """Times one step while a trace is open (waiting for the device at both ends); records
    its row on :meth:`done`."""

    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ef __init__(self) -> None:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   self.active = current() is not None
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   if self.active:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']       synchronize()
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   self.start = time.perf_counter()

    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']ef done(self, op: str, step: str, group: int, **fields: object) -> None:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   found = current()
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   if found is None:
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']       return
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   synchronize()
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   elapsed = (time.perf_counter() - self.start) * 1e3
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   found.rows.append(
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']       ExchangeRow(len(found.rows), op, step, group, time_ms=elapsed, **fields)  # type: ignore[arg-type]
    ['edges', 'gather', 'local', 'mask', 'permute', 'reduce']   )
