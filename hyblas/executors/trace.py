"""The decision trace: what ``mxv`` / ``vxm`` ran, on which executor, why, and how long it took.

>>> import hyblas as hb
>>> with hb.trace() as t:  # doctest: +SKIP
...     levels = hb.algorithms.bfs(A, 0)
>>> print(t.table())  # doctest: +SKIP

Tracing off costs one ``if`` per product. While a trace is open, each product records its row;
on the GPU its time comes from CUDA events read when the trace closes (no synchronisation per
call), on the CPU from the wall clock.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..backend import elapsed_ms, record_event
from ..dtypes import short_repr
from ..errors import IndexOutOfBounds, InvalidObject, InvalidValue, MissingDependency

__all__ = ["Trace", "TraceRow", "trace", "tracing", "EXECUTOR_COLORS"]

EXECUTOR_COLORS = {
    "reference": "#7f7f7f",
    "dense": "#1f77b4",
    "sparse": "#d62728",
    "pull": "#2ca02c",
    "loop": "#9467bd",
    "union-find": "#8c564b",
}


@dataclass
class TraceRow:
    """One product.

    Attributes
    ----------
    call : int
        Its number in the trace (0, 1, ...).
    op : str
        ``'mxv'`` or ``'vxm'``; ``'loop'`` for a stay in the device loop of
        :func:`hyblas.ops.propagate` (one row for all its rounds; ``reason`` says which);
        ``'link'`` for connected components' union-find kernels (executor ``'union-find'``,
        one row for all their passes; ``edges``: the matrix's stored entries).
    executor : str
        The executor that ran it.
    asked : str
        The ``executor=`` argument (``'auto'`` when the policy chose).
    policy : str
        The policy that chose (``''`` when the caller named the executor).
    outputs : int
        Size of the result.
    input_nnz : int
        Entries of the input vector (the frontier).
    allowed : int | None
        Outputs the mask lets through (None without a mask).
    edges : int
        Edges the executor touched: all stored entries for ``dense`` and ``reference``, the
        frontier's out-edges for ``sparse``, the edges examined before the early exit for
        ``pull``.
    estimates_us : dict
        The cost model's estimate of each executor it considered, in microseconds.
    reason : str
        Why the policy chose this executor.
    sampling_ms : float
        Time spent deciding (sampling included).
    time_ms : float
        Time of the product itself (CUDA events on the GPU, wall clock on the CPU).
    """

    call: int
    op: str
    executor: str
    asked: str
    policy: str
    outputs: int
    input_nnz: int
    allowed: int | None
    edges: int
    estimates_us: dict[str, float] = field(default_factory=dict)
    reason: str = ""
    sampling_ms: float = 0.0
    time_ms: float = float("nan")


class Trace:
    """The rows recorded by :func:`trace`; ``table()``, ``summary()``, ``to_pandas()``, and
    (attached by :mod:`hyblas.viz`) ``plot()`` and the Jupyter view."""

    def __init__(self) -> None:
        self.rows: list[TraceRow] = []
        self._pending: list[tuple[TraceRow, Any, Any]] = []

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[TraceRow]:
        return iter(self.rows)

    def __getitem__(self, index: int | slice) -> TraceRow | list[TraceRow]:
        """The row ``index`` (negative: from the end), or a list of rows for a slice.

        Raises
        ------
        InvalidObject
            If ``index`` is neither an integer nor a slice.
        IndexOutOfBounds
            If there is no row ``index``.
        """
        if isinstance(index, slice):
            return self.rows[index]
        if not isinstance(index, int | np.integer) or isinstance(index, bool | np.bool_):
            raise InvalidObject(f"a Trace is indexed by an int or a slice, got {short_repr(index)}")
        if not -len(self.rows) <= index < len(self.rows):
            raise IndexOutOfBounds(f"row {index} outside a trace of {len(self.rows)} rows")
        return self.rows[index]

    def _settle(self) -> None:
        """Read the CUDA events of the rows recorded on the GPU."""
        for row, start, stop in self._pending:
            row.time_ms = elapsed_ms(start, stop)
        self._pending.clear()

    def records(self) -> list[dict[str, Any]]:
        """The rows as dicts (``estimates_us`` flattened into ``est_<executor>_us`` keys).

        Examples
        --------
        >>> A = hb.generators.grid_2d(4, 4)
        >>> with hb.trace() as t:
        ...     levels = hb.algorithms.bfs(A, 0)
        >>> row = t.records()[0]
        >>> row["op"], row["executor"], row["input_nnz"]
        ('loop', 'loop', 1)
        """
        self._settle()
        out = []
        for row in self.rows:
            record = asdict(row)
            for name, value in record.pop("estimates_us").items():
                record[f"est_{name}_us"] = value
            out.append(record)
        return out

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame (needs pandas).

        Examples
        --------
        >>> A = hb.generators.grid_2d(4, 4)
        >>> with hb.trace() as t:
        ...     levels = hb.algorithms.bfs(A, 0)
        >>> df = t.to_pandas()
        >>> list(df.columns[:4])
        ['call', 'op', 'executor', 'asked']
        """
        try:
            import pandas as pd  # noqa: PLC0415 - optional
        except ImportError as exc:
            raise MissingDependency("Trace.to_pandas needs pandas: pip install pandas") from exc
        return pd.DataFrame.from_records(self.records())

    def summary(self) -> dict[str, dict[str, float]]:
        """Calls and total milliseconds per executor.

        Examples
        --------
        >>> A = hb.generators.grid_2d(4, 4)
        >>> with hb.trace() as t:
        ...     levels = hb.algorithms.bfs(A, 0)
        >>> sorted(t.summary())  # the executors that ran
        ['loop']
        >>> t.summary()[sorted(t.summary())[0]]["calls"] > 0
        True
        """
        self._settle()
        totals: dict[str, dict[str, float]] = {}
        for row in self.rows:
            entry = totals.setdefault(row.executor, {"calls": 0, "time_ms": 0.0, "edges": 0})
            entry["calls"] += 1
            entry["time_ms"] += row.time_ms
            entry["edges"] += row.edges
        return totals

    def table(self, *, max_rows: int = 60) -> str:
        """A plain-text table, one line per product (the first and last ``max_rows // 2`` when
        there are more, with a line ``...`` between them).

        Raises
        ------
        InvalidValue
            If ``max_rows`` is not an int >= 0.

        Examples
        --------
        >>> A = hb.generators.grid_2d(4, 4)
        >>> with hb.trace() as t:
        ...     levels = hb.algorithms.bfs(A, 0)
        >>> t.table().splitlines()[0].split()  # one line per product under this header
        ['call', 'op', 'executor', 'input_nnz', 'allowed', 'edges', 'time_ms', 'decide_ms']
        """
        if (
            not isinstance(max_rows, int | np.integer)
            or isinstance(max_rows, bool | np.bool_)
            or max_rows < 0
        ):
            raise InvalidValue(f"Trace.table: max_rows must be an int >= 0, got {max_rows!r}")
        self._settle()
        names = sorted({k for row in self.rows for k in row.estimates_us})
        head = (
            f"{'call':>4} {'op':<4} {'executor':<9} {'input_nnz':>10} {'allowed':>10} "
            f"{'edges':>12} {'time_ms':>9} {'decide_ms':>9} "
            + " ".join(f"{'est_' + n + '_us':>15}" for n in names)
        )
        lines = [head]
        rows = self.rows
        if len(rows) > max_rows:
            half = max_rows // 2
            rows = rows[:half] + [None] + rows[len(rows) - half :]  # type: ignore[list-item]
        for row in rows:
            if row is None:
                lines.append(f"{'...':>4}")
                continue
            allowed = "-" if row.allowed is None else str(row.allowed)
            est = " ".join(
                f"{row.estimates_us[n]:>15.1f}" if n in row.estimates_us else f"{'-':>15}"
                for n in names
            )
            lines.append(
                f"{row.call:>4} {row.op:<4} {row.executor:<9} {row.input_nnz:>10} "
                f"{allowed:>10} {row.edges:>12} {row.time_ms:>9.3f} "
                f"{row.sampling_ms:>9.3f} {est}"
            )
        total = sum(r.time_ms for r in self.rows)
        decide = sum(r.sampling_ms for r in self.rows)
        lines.append(
            f"{len(self.rows)} products, {total:.3f} ms in products, {decide:.3f} ms deciding"
        )
        return "\n".join(lines)

    def __repr__(self) -> str:
        counts = {k: int(v["calls"]) for k, v in self.summary().items()}
        return f"hyblas.Trace({len(self.rows)} products: {counts})"


_open: list[Trace] = []


def tracing() -> bool:
    """Whether a trace is open (the products then record rows)."""
    return bool(_open)


@contextlib.contextmanager
def trace() -> Iterator[Trace]:
    """Record every ``mxv`` / ``vxm`` made inside the block.

    Yields
    ------
    Trace
        Filled as the block runs; times of GPU products are read when the block ends.

    Examples
    --------
    >>> A = hb.generators.grid_2d(4, 4)
    >>> with hb.trace() as t:
    ...     levels = hb.algorithms.bfs(A, 0)
    >>> len(t.rows) > 0, t.rows[0].op
    (True, 'loop')
    """
    t = Trace()
    _open.append(t)
    try:
        yield t
    finally:
        _open.remove(t)
        t._settle()


class _Timer:
    """CUDA events on the GPU, the wall clock on the CPU."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        if backend == "cuda":
            self.start = record_event()
        else:
            self.start = time.perf_counter()

    def stop(self) -> tuple[Any, Any] | float:
        if self.backend == "cuda":
            return self.start, record_event()
        return (time.perf_counter() - self.start) * 1e3


def start_timer(backend: str) -> _Timer:
    return _Timer(backend)


def record(row: TraceRow, timing: tuple[Any, Any] | float) -> None:
    """Add ``row`` to every open trace (``timing`` from a timer's ``stop()``)."""
    for t in _open:
        copy = TraceRow(**{**asdict(row), "call": len(t.rows)})
        t.rows.append(copy)
        if isinstance(timing, tuple):
            t._pending.append((copy, *timing))
        else:
            copy.time_ms = timing
