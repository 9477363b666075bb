"""Rich display: the HTML Jupyter shows for matrices, vectors, operators and traces.

:mod:`hyblas.viz` attaches ``_repr_html_`` to Matrix, Vector, Operator and Trace from here.
Every piece of text is escaped; the spy picture of a matrix is an inline SVG computed with the
matrix's own array module (no matplotlib). Other objects that want the same look build their
HTML with :func:`html_card`.

The pattern downsampling, :func:`pattern_counts`, is shared with :func:`hyblas.plot.spy`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import to_numpy
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..errors import HyblasError, InvalidObject, InvalidValue
from ..executors.trace import EXECUTOR_COLORS, Trace
from ..operators.classes import BinaryOp, Monoid, Operator, Semiring

__all__ = [
    "PatternGrid",
    "pattern_counts",
    "count_range",
    "spy_svg",
    "html_card",
    "format_bytes",
    "matrix_memory",
    "matrix_rows",
    "matrix_html",
    "vector_head",
    "vector_html",
    "operator_rows",
    "operator_html",
    "trace_html",
]

SPY_CELLS = 64  # the HTML spy picture has at most this many cells a side
SPY_PIXELS = 160  # ... and is drawn this many pixels along its longer side
VECTOR_PREVIEW = 8  # entries of a vector listed in its HTML

# Eight shades of blue (light to dark) for the spy cells; white is "no entry".
_SHADES = ("#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b", "#041f47")


# --- pattern downsampling ------------------------------------------------------------------------


@dataclass(frozen=True)
class PatternGrid:
    """Stored entries counted per cell of a regular grid laid over a matrix.

    Cell ``(i, j)`` covers rows ``[i * row_step, (i + 1) * row_step)`` and columns
    ``[j * col_step, (j + 1) * col_step)``; the last row and column of cells may reach past the
    matrix's edge.

    Attributes
    ----------
    counts : numpy.ndarray
        ``int64`` array of shape ``(ceil(nrows / row_step), ceil(ncols / col_step))``, on the host.
    row_step, col_step : int
        Rows and columns per cell (at least 1).
    shape : tuple of int
        The matrix's ``(nrows, ncols)``.
    """

    counts: np.ndarray
    row_step: int
    col_step: int
    shape: tuple[int, int]

    @property
    def nnz(self) -> int:
        """Entries counted (the matrix's ``nnz``)."""
        return int(self.counts.sum())


def _check_cells(value: Any, argument: str) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool):
        raise InvalidObject(f"{argument} must be an integer, got {value!r}")
    if value < 1:
        raise InvalidValue(f"{argument} must be at least 1, got {value}")
    return int(value)


def pattern_counts(matrix: Matrix, max_cells: int = SPY_CELLS) -> PatternGrid:
    """Count the stored entries of ``matrix`` per cell of an at most ``max_cells`` square grid.

    The cells are ``ceil(nrows / max_cells)`` rows by ``ceil(ncols / max_cells)`` columns. The
    counting runs on the matrix's backend in one vectorized pass per band of rows (O(nnz) work
    in all, no densifying); only the small grid is copied to the host.

    Parameters
    ----------
    matrix : Matrix
    max_cells : int
        The most cells along either side (at least 1).

    Returns
    -------
    PatternGrid

    Raises
    ------
    InvalidObject
        ``matrix`` is not a Matrix, or ``max_cells`` is not an integer.
    InvalidValue
        ``max_cells < 1``.
    """
    if not isinstance(matrix, Matrix):
        raise InvalidObject(f"matrix must be a hyblas.Matrix, got {type(matrix).__name__}")
    max_cells = _check_cells(max_cells, "max_cells")
    nrows, ncols = matrix.shape
    row_step = max(1, -(-nrows // max_cells))
    col_step = max(1, -(-ncols // max_cells))
    bands, cells = -(-nrows // row_step), -(-ncols // col_step)
    grid = PatternGrid(np.zeros((bands, cells), dtype=np.int64), row_step, col_step, (nrows, ncols))
    nnz = matrix.nnz
    if nnz == 0:
        return grid
    xp = matrix.xp
    # entries of band b are indices[starts[b]:starts[b + 1]]: rows of a band are contiguous
    starts = to_numpy(matrix.indptr[:nrows:row_step]).astype(np.int64).tolist() + [nnz]
    counts = xp.zeros((bands, cells), dtype=np.int64)
    for band in range(bands):
        begin, end = starts[band], starts[band + 1]
        if begin == end:
            continue
        columns = matrix.indices[begin:end]
        if col_step > 1:  # int64 out: NumPy's bincount would convert int32 in a second pass
            columns = xp.floor_divide(columns, col_step, dtype=np.int64)
        counts[band] = xp.bincount(columns, minlength=cells)
    return PatternGrid(
        to_numpy(counts).astype(np.int64, copy=False), row_step, col_step, (nrows, ncols)
    )


def count_range(counts: np.ndarray) -> tuple[int, int]:
    """``(smallest, largest)`` non-zero count, ``(0, 0)`` when every cell is empty."""
    filled = counts[counts > 0]
    return (int(filled.min()), int(filled.max())) if filled.size else (0, 0)


def _shade_levels(counts: np.ndarray) -> np.ndarray:
    """Shade index per cell: 0 for no entry, else 1..len(_SHADES), logarithmic in the count.

    The scale runs from the smallest to the largest non-zero count (not from 1): a large
    matrix has many entries in every cell and would otherwise be one dark shade.
    """
    levels = np.zeros(counts.shape, dtype=np.int64)
    low, high = count_range(counts)
    if high == 0:
        return levels
    filled = counts > 0
    if high == low:
        levels[filled] = len(_SHADES)
        return levels
    scaled = np.log(counts[filled] / low) / math.log(high / low)
    levels[filled] = 1 + np.floor(scaled * (len(_SHADES) - 1) + 0.5).astype(np.int64)
    return levels


def _runs(row: np.ndarray, level: int) -> Iterable[tuple[int, int]]:
    """``(start, length)`` of the maximal runs of ``level`` in ``row``."""
    hit = np.concatenate([[False], row == level, [False]])
    edges = np.flatnonzero(hit[1:] != hit[:-1])
    return zip(edges[0::2].tolist(), (edges[1::2] - edges[0::2]).tolist())


def _picture_size(nrows: int, ncols: int, pixels: int) -> tuple[int, int]:
    """(width, height) in pixels: the matrix's aspect, the long side ``pixels``, within 1:6."""
    if nrows == 0 or ncols == 0:
        return pixels // 4, pixels // 4
    ratio = min(max(ncols / nrows, 1 / 6), 6)
    if ratio >= 1:
        return pixels, max(1, round(pixels / ratio))
    return max(1, round(pixels * ratio)), pixels


def spy_svg(grid: PatternGrid, *, pixels: int = SPY_PIXELS) -> str:
    """An inline SVG picture of a :class:`PatternGrid`, darker where a cell holds more entries.

    The shading is logarithmic in the count. Each shade is drawn as one ``<path>`` whose
    subpaths are the horizontal runs of cells of that shade, which keeps the SVG small.
    """
    nrows, ncols = grid.shape
    width, height = _picture_size(nrows, ncols, pixels)
    low, high = count_range(grid.counts)
    tip = (
        f"{nrows:,} x {ncols:,}, {grid.nnz:,} entries; a cell is {grid.row_step:,} x "
        f"{grid.col_step:,}; filled cells hold {low:,} to {high:,}"
    )
    view_w = ncols / grid.col_step if ncols else 1
    view_h = nrows / grid.row_step if nrows else 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {view_w:.6g} {view_h:.6g}" preserveAspectRatio="none" '
        f'shape-rendering="crispEdges" role="img" style="background:#fff">',
        f"<title>{html.escape(tip)}</title>",
    ]
    levels = _shade_levels(grid.counts)
    for level, color in enumerate(_SHADES, start=1):
        commands = [
            f"M{start} {band}h{length}v1h-{length}z"
            for band in range(levels.shape[0])
            for start, length in _runs(levels[band], level)
        ]
        if commands:
            parts.append(f'<path fill="{color}" d="{"".join(commands)}"/>')
    parts.append(
        f'<rect x="0" y="0" width="{view_w:.6g}" height="{view_h:.6g}" fill="none" '
        'stroke="#888" stroke-width="1" vector-effect="non-scaling-stroke"/>'
    )
    parts.append("</svg>")
    return "".join(parts)


# --- memory ------------------------------------------------------------------------------------


def format_bytes(count: int) -> str:
    """``1536 -> '1.5 KiB'``: bytes in binary units."""
    if count < 1024:
        return f"{int(count)} B"
    value = count / 1024
    for unit in ("KiB", "MiB", "GiB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def _root(array: Any) -> Any:
    """The array owning the memory of ``array`` (following views to their base)."""
    while getattr(array, "base", None) is not None and hasattr(array.base, "nbytes"):
        array = array.base
    return array


def _held_bytes(obj: Any, seen: set[int]) -> int:
    """Bytes of arrays reachable from a cached object, each owner counted once."""
    if isinstance(obj, Matrix):
        total = sum(_held_bytes(a, seen) for a in (obj.indptr, obj.indices, obj.values))
        return total + sum(_held_bytes(v, seen) for v in obj.cache.values())
    if isinstance(obj, list | tuple):
        return sum(_held_bytes(item, seen) for item in obj)
    if isinstance(obj, Mapping):
        return sum(_held_bytes(item, seen) for item in obj.values())
    if hasattr(obj, "shape") and isinstance(getattr(obj, "nbytes", None), int | np.integer):
        root = _root(obj)
        if id(root) in seen:
            return 0
        seen.add(id(root))
        return int(root.nbytes)
    if callable(getattr(obj, "nbytes", None)):  # executor layouts report their own arrays
        if id(obj) in seen:
            return 0
        seen.add(id(obj))
        return int(obj.nbytes())
    return 0  # scalars, counters and foreign views (a cupyx CSR sharing the arrays)


_FORM_NAMES = {"T": "transpose", "dense_layout": "dense layout", "sparse_layout": "sparse layout"}


def _form_name(key: Any) -> str:
    head = key[0] if isinstance(key, tuple) and key else key
    return _FORM_NAMES.get(head, str(head).replace("_", " "))


def matrix_memory(matrix: Matrix) -> tuple[int, dict[str, int]]:
    """Bytes of the CSR arrays, and of each kind of cached derived form (those holding memory).

    Arrays shared between forms (views, cupyx wrappers of the CSR arrays) are counted once,
    with the first form that holds them, the CSR arrays first.
    """
    seen: set[int] = set()
    csr = sum(_held_bytes(a, seen) for a in (matrix.indptr, matrix.indices, matrix.values))
    forms: dict[str, int] = {}
    for key, value in list(matrix.cache.items()):
        held = _held_bytes(value, seen)
        if held:
            name = _form_name(key)
            forms[name] = forms.get(name, 0) + held
    return csr, forms


# --- HTML building blocks ------------------------------------------------------------------------

_CARD_STYLE = "display:flex;gap:1.5em;align-items:flex-start;flex-wrap:wrap"
_TABLE_STYLE = "border-collapse:collapse;font-size:0.9em"
_TH_STYLE = "text-align:left;padding:1px 0.8em 1px 0;font-weight:600;vertical-align:top"
_TD_STYLE = "text-align:left;padding:1px 0;vertical-align:top"


def html_card(title: str, rows: Iterable[tuple[str, Any]], extra: str = "") -> str:
    """A titled two-column table of ``(label, value)`` rows, with ``extra`` HTML beside it.

    Labels, values and the title are escaped here; ``extra`` is trusted HTML (a picture, a
    nested table) built by the caller, who escapes its text.
    """
    body = "".join(
        f'<tr><th style="{_TH_STYLE}">{html.escape(str(label))}</th>'
        f'<td style="{_TD_STYLE}">{html.escape(str(value))}</td></tr>'
        for label, value in rows
    )
    table = (
        f'<table style="{_TABLE_STYLE}"><caption style="text-align:left;font-weight:700;'
        f'padding-bottom:0.3em">{html.escape(title)}</caption>{body}</table>'
    )
    return f'<div class="hyblas-repr" style="{_CARD_STYLE}">{table}{extra}</div>'


def _small_table(header: tuple[str, ...], rows: Iterable[tuple[Any, ...]]) -> str:
    head = "".join(f'<th style="{_TH_STYLE}">{html.escape(h)}</th>' for h in header)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td style="{_TD_STYLE};padding-right:0.8em">{html.escape(str(cell))}</td>'
            for cell in row
        )
        + "</tr>"
        for row in rows
    )
    return f'<table style="{_TABLE_STYLE}"><tr>{head}</tr>{body}</table>'


def _density(nnz: int, nrows: int, ncols: int) -> str:
    cells = nrows * ncols
    if cells == 0:
        return "n/a"
    density = nnz / cells
    return f"{100 * density:.3g}%" if density >= 1e-3 else f"{density:.3g}"


# --- Matrix --------------------------------------------------------------------------------------


def matrix_rows(matrix: Matrix) -> list[tuple[str, str]]:
    """The ``(label, value)`` facts shown for a matrix."""
    nrows, ncols = matrix.shape
    nnz = matrix.nnz
    csr, forms = matrix_memory(matrix)
    rows = [
        ("shape", f"{nrows:,} x {ncols:,}"),
        ("nnz", f"{nnz:,}"),
        ("dtype", matrix.dtype.name),
        ("backend", matrix.backend),
        ("density", _density(nnz, nrows, ncols)),
    ]
    if nrows:
        degrees = matrix.xp.diff(matrix.indptr)
        rows.append(
            (
                "entries per row",
                f"min {int(degrees.min()):,}, mean {nnz / nrows:.3g}, max {int(degrees.max()):,}",
            )
        )
    rows.append(("memory", f"{format_bytes(csr)} (CSR, {matrix.indices.dtype.name} indices)"))
    if forms:
        cached = ", ".join(f"{name} {format_bytes(size)}" for name, size in forms.items())
        rows.append(("cached forms", f"{format_bytes(sum(forms.values()))}: {cached}"))
    return rows


def matrix_html(matrix: Matrix, *, max_cells: int = SPY_CELLS) -> str:
    """The HTML card of a matrix: its facts and a spy picture of its pattern."""
    extra = ""
    if matrix.nrows and matrix.ncols:
        grid = pattern_counts(matrix, max_cells)
        step = (
            "one cell per entry"
            if grid.row_step == grid.col_step == 1
            else f"cells of {grid.row_step:,} x {grid.col_step:,}"
        )
        low, high = count_range(grid.counts)
        shades = (
            f"{low:,} to {high:,} entries a cell, log shaded"
            if low < high
            else f"{high:,} {'entry' if high == 1 else 'entries'} a cell"
        )
        caption = f"{step}; {shades}" if high else "no entries"
        extra = (
            f'<figure style="margin:0">{spy_svg(grid)}<figcaption style="font-size:0.8em;'
            f'opacity:0.75">{html.escape(caption)}</figcaption></figure>'
        )
    return html_card("hyblas.Matrix", matrix_rows(matrix), extra)


# --- Vector --------------------------------------------------------------------------------------


def _vector_bytes(vector: Vector) -> int:
    storage = vector.stored_sparse if vector.stored_sparse is not None else vector.stored_bitmap
    return sum(int(a.nbytes) for a in storage)


def vector_head(vector: Vector, count: int = VECTOR_PREVIEW) -> tuple[np.ndarray, np.ndarray]:
    """The first ``count`` present entries ``(indices, values)`` as NumPy arrays."""
    if vector.stored_sparse is not None:
        indices, values = vector.stored_sparse
        return to_numpy(indices[:count]), to_numpy(values[:count])
    values, present = vector.stored_bitmap
    indices = vector.xp.flatnonzero(present)[:count]
    return to_numpy(indices), to_numpy(values[indices])


def vector_html(vector: Vector, *, preview: int = VECTOR_PREVIEW) -> str:
    """The HTML card of a vector: its facts and its first ``preview`` entries."""
    nnz = vector.nnz
    rows = [
        ("size", f"{vector.size:,}"),
        ("nnz", f"{nnz:,}"),
        ("dtype", vector.dtype.name),
        ("backend", vector.backend),
        ("format", vector.format),
        ("density", _density(nnz, vector.size, 1)),
        ("memory", format_bytes(_vector_bytes(vector))),
    ]
    extra = ""
    if nnz:
        indices, values = vector_head(vector, preview)
        entries = [(int(i), repr(v)) for i, v in zip(indices.tolist(), values.tolist())]
        if nnz > len(entries):
            entries.append(("...", f"{nnz - len(entries):,} more"))
        extra = _small_table(("index", "value"), entries)
    return html_card("hyblas.Vector", rows, extra)


# --- operators ------------------------------------------------------------------------------------


def _type_names(types: Iterable[np.dtype]) -> str:
    ordered = [d.name for d in _dt.DTYPES if d in set(types)]
    return "all 11 types" if len(ordered) == len(_dt.DTYPES) else ", ".join(ordered)


def _grouped(facts: Iterable[tuple[np.dtype, tuple[str, ...]]]) -> list[tuple[str, ...]]:
    """Rows of ``(dtypes, *facts)``, dtypes with equal facts merged into one row."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for dtype, values in facts:
        groups.setdefault(values, []).append(dtype.name)
    return [(", ".join(names), *values) for values, names in groups.items()]


def _special_value(value: Any, dtype: np.dtype) -> str:
    """A monoid constant as text, the integer limits by name (``max`` beats 9223372036854775807)."""
    if value is None:
        return "none"
    if dtype.kind in "iu":
        limits = np.iinfo(dtype)
        if value == limits.max:
            return "max"
        if value == limits.min and dtype.kind == "i":
            return "min"
    return repr(value.item())


def _monoid_facts(monoid: Any, dtype: np.dtype) -> tuple[str, str]:
    facts = []
    for rule in (monoid.identity, monoid.terminal):
        try:
            facts.append(_special_value(rule(dtype), dtype))
        except (ArithmeticError, TypeError, ValueError):  # a user rule unfit for this dtype
            facts.append("n/a")
    return facts[0], facts[1]


def _served(op: Operator) -> list[np.dtype]:
    return [op.dtype] if op.dtype is not None else [d for d in _dt.DTYPES if d in op.types]


def _semiring_table(semiring: Any) -> str:
    facts = []
    for dtype in _served(semiring):
        try:
            out = semiring.output_type(semiring.input_type(dtype))
        except HyblasError:
            continue
        result = "same" if out == dtype else out.name
        facts.append((dtype, (result, *_monoid_facts(semiring.monoid, out))))
    return _small_table(("inputs", "result", "add identity", "terminal"), _grouped(facts))


def _monoid_table(monoid: Any) -> str:
    facts = []
    for dtype in _served(monoid):
        try:
            operands = monoid.input_type(dtype)
        except HyblasError:
            continue
        facts.append((dtype, _monoid_facts(monoid, operands)))
    return _small_table(("inputs", "identity", "terminal"), _grouped(facts))


def _output_rule(rule: Any) -> str:
    if isinstance(rule, str):
        return {"same": "same as inputs"}.get(rule, rule)
    return np.dtype(rule).name


def operator_rows(op: Operator) -> list[tuple[str, str]]:
    """The ``(label, value)`` facts shown for an operator (any kind)."""
    rows = [("name", op.name), ("kind", op.kind)]
    if op.dtype is not None:
        rows.append(("typed as", op.dtype.name))
    if isinstance(op, Semiring):
        rows.append(("add", f"monoid.{op.monoid.name} (binary.{op.monoid.binaryop.name})"))
        rows.append(("multiply", f"binary.{op.binaryop.name}"))
    elif isinstance(op, Monoid):
        rows.append(("operator", f"binary.{op.binaryop.name}"))
        rows.append(("GPU atomic", op.atomic or "compare-and-swap loop"))
    rows.append(("dtypes served", _type_names(op.types)))
    cast = getattr(op, "cast_inputs_to", None)
    if isinstance(op, BinaryOp | Monoid) and cast is not None:
        rows.append(("inputs cast to", cast.name))
    if isinstance(getattr(op, "output", None), str | np.dtype | type):
        rows.append(("result type", _output_rule(op.output)))
    cuda = getattr(op, "cuda", "")
    if cuda:
        rows.append(("CUDA expression", cuda))
    return rows


def operator_html(op: Operator) -> str:
    """The HTML card of an operator; semirings and monoids add their identity per dtype."""
    extra = ""
    if isinstance(op, Semiring):
        extra = _semiring_table(op)
    elif isinstance(op, Monoid):
        extra = _monoid_table(op)
    return html_card(f"hyblas {op.kind}.{op.name}", operator_rows(op), extra)


# --- trace ----------------------------------------------------------------------------------------

TRACE_PREVIEW = 20  # products listed in a trace's HTML (the first and last half of them)


def _swatch(color: str) -> str:
    return (
        f'<span style="display:inline-block;width:0.8em;height:0.8em;margin-right:0.3em;'
        f'background:{html.escape(color)}"></span>'
    )


def trace_html(trace: Any, *, preview: int = TRACE_PREVIEW) -> str:
    """The HTML card of a :func:`hyblas.trace`: totals per executor and the products' rows."""
    if not isinstance(trace, Trace):
        raise InvalidObject(f"trace must be a hyblas Trace, got {type(trace).__name__}")
    summary = trace.summary()  # reads the pending CUDA events first
    products = trace.rows
    facts = [
        ("products", f"{len(products):,}"),
        ("time in products", f"{sum(r.time_ms for r in products):.3f} ms"),
        ("time deciding", f"{sum(r.sampling_ms for r in products):.3f} ms"),
    ]
    for name, entry in summary.items():
        calls = int(entry["calls"])
        plural = "s" if calls != 1 else ""
        facts.append(
            (
                name,
                f"{calls:,} call{plural}, {entry['time_ms']:.3f} ms, {int(entry['edges']):,} edges",
            )
        )
    if not products:
        return html_card("hyblas.Trace", facts)
    half = max(preview // 2, 1)
    shown: list[Any] = list(products)
    if len(shown) > 2 * half:
        shown = shown[:half] + [None] + shown[-half:]
    header = ("call", "op", "executor", "input nnz", "allowed", "edges", "ms", "reason")
    cells = "".join(f'<th style="{_TH_STYLE}">{html.escape(h)}</th>' for h in header)
    body = []
    for row in shown:
        if row is None:
            body.append(
                f'<tr><td style="{_TD_STYLE}" colspan="{len(header)}">... '
                f"{len(products) - 2 * half:,} more</td></tr>"
            )
            continue
        values = (
            row.call,
            row.op,
            row.executor,
            f"{row.input_nnz:,}",
            "-" if row.allowed is None else f"{row.allowed:,}",
            f"{row.edges:,}",
            f"{row.time_ms:.3f}",
            row.reason,
        )
        tds = [
            f'<td style="{_TD_STYLE};padding-right:0.8em">{html.escape(str(v))}</td>'
            for v in values
        ]
        color = EXECUTOR_COLORS.get(row.executor)
        if color is not None:  # the executor's colour, as in hyblas.plot.trace
            tds[2] = tds[2].replace(">", ">" + _swatch(color), 1)
        body.append("<tr>" + "".join(tds) + "</tr>")
    table = f'<table style="{_TABLE_STYLE}"><tr>{cells}</tr>{"".join(body)}</table>'
    return html_card("hyblas.Trace", facts, table)
