"""Plots with matplotlib: :func:`spy`, :func:`degree_distribution` and :func:`trace`.

matplotlib is imported inside the functions only, so ``import hyblas`` (and ``hyblas.plot``)
never loads it. Every function draws on ``ax`` when given, else on a new figure, and returns the
Axes it drew on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..backend import to_numpy
from ..containers.matrix import Matrix
from ..errors import DimensionMismatch, InvalidObject, InvalidValue, MissingDependency
from ..executors.trace import EXECUTOR_COLORS, Trace
from .display import count_range, pattern_counts

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["spy", "degree_distribution", "trace"]

DIRECTIONS = ("out", "in", "both")
_ASPECT_LIMIT = 6  # beyond this ratio of columns to rows, cells are not drawn square


def _pyplot() -> Any:
    """``matplotlib.pyplot``, the one place it is imported.

    Raises
    ------
    MissingDependency
        If matplotlib is not installed.
    """
    try:
        import matplotlib.pyplot as plt  # noqa: PLC0415 - optional and heavy: only when plotting
    except ImportError as exc:
        raise MissingDependency(
            "hyblas.plot needs matplotlib, which is not installed: pip install matplotlib"
        ) from exc
    return plt


def _axes(ax: Any, figsize: tuple[float, float]) -> Axes:
    """``ax`` after checking it is an Axes, or the Axes of a new figure when it is None."""
    plt = _pyplot()
    if ax is None:
        _figure, ax = plt.subplots(figsize=figsize)
        return ax
    from matplotlib.axes import Axes  # noqa: PLC0415

    if not isinstance(ax, Axes):
        raise InvalidObject(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    return ax


def _check_matrix(matrix: Any, argument: str = "A") -> Matrix:
    if not isinstance(matrix, Matrix):
        raise InvalidObject(f"{argument} must be a hyblas.Matrix, got {type(matrix).__name__}")
    return matrix


def _check_bool(value: Any, argument: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise InvalidObject(f"{argument} must be True or False, got {value!r}")
    return bool(value)


def _count_label(value: float, _position: Any = None) -> str:
    """Tick label in user coordinates, short for big numbers (``16.8M``)."""
    magnitude = abs(value)
    for limit, unit, suffix in ((1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e3, 1e3, "k")):
        if magnitude >= limit:
            return f"{value / unit:.3g}{suffix}"
    return f"{value:.0f}"


def _spy_colormap(plt: Any) -> Any:
    """Blues without its near-white end, so a cell with one entry shows on white."""
    from matplotlib.colors import ListedColormap  # noqa: PLC0415

    cmap = ListedColormap(plt.get_cmap("Blues")(np.linspace(0.3, 1.0, 256)), name="hyblas_spy")
    return cmap.with_extremes(bad="white")


def spy(
    A: Matrix,  # noqa: N803 - matrix names are capitals, as in the rest of hyblas
    *,
    ax: Axes | None = None,
    max_cells: int = 512,
    log: bool = True,
    cmap: Any = None,
    colorbar: bool = True,
) -> Axes:
    """Draw the pattern of ``A``: entries counted per cell of an at most ``max_cells`` grid.

    Unlike ``matplotlib.pyplot.spy`` this never densifies: the counting is one vectorized pass
    over the stored entries on the matrix's backend (see ``hyblas.viz.display.pattern_counts``),
    so it suits matrices with hundreds of millions of entries. Cells without entries are white.

    Parameters
    ----------
    A : Matrix
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    max_cells : int
        The most cells along either side of the image.
    log : bool
        Shade by the logarithm of the count (default) rather than linearly.
    cmap : matplotlib colormap or name, optional
        Default: the light end of ``Blues`` cut off, so single entries stay visible.
    colorbar : bool
        Add a colorbar of entries per cell.

    Returns
    -------
    matplotlib.axes.Axes
        The image is ``ax.images[0]``; its array is the grid of counts (zeros masked).

    Raises
    ------
    InvalidObject
        ``A`` is not a Matrix, ``ax`` not an Axes, ``max_cells`` not an integer, ``log`` or
        ``colorbar`` not a bool.
    InvalidValue
        ``max_cells < 1``.
    MissingDependency
        matplotlib is not installed.

    Examples
    --------
    >>> ax = hb.plot.spy(hb.generators.kronecker(8, seed=0))
    >>> ax.get_title()
    '256 x 256, 4,248 entries'
    """
    _check_matrix(A)
    log = _check_bool(log, "log")
    colorbar = _check_bool(colorbar, "colorbar")
    grid = pattern_counts(A, max_cells)
    ax = _axes(ax, (5.5, 5.0))
    plt = _pyplot()
    nrows, ncols = A.shape
    title = f"{nrows:,} x {ncols:,}, {A.nnz:,} entries"
    if grid.row_step > 1 or grid.col_step > 1:
        title += f"\none cell = {grid.row_step:,} x {grid.col_step:,}"
    ax.set_title(title, fontsize="medium")
    ax.set_xlabel("column")
    ax.set_ylabel("row")
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    if nrows == 0 or ncols == 0:
        ax.set_xlim(-0.5, max(ncols, 1) - 0.5)
        ax.set_ylim(max(nrows, 1) - 0.5, -0.5)
        return ax

    from matplotlib.colors import LogNorm, Normalize  # noqa: PLC0415
    from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: PLC0415

    low, high = count_range(grid.counts)
    # the scale starts at the smallest filled cell: big matrices have many entries in every cell
    norm = (
        LogNorm(vmin=low, vmax=high)
        if log and low < high
        else Normalize(vmin=0 if low == high else low, vmax=max(high, 1))
    )
    colors = _spy_colormap(plt) if cmap is None else plt.get_cmap(cmap).with_extremes(bad="white")
    bands, cells = grid.counts.shape
    ratio = ncols / nrows
    image = ax.imshow(
        np.ma.masked_equal(grid.counts, 0),
        cmap=colors,
        norm=norm,
        interpolation="nearest",
        extent=(-0.5, cells * grid.col_step - 0.5, bands * grid.row_step - 0.5, -0.5),
        aspect="equal" if 1 / _ASPECT_LIMIT <= ratio <= _ASPECT_LIMIT else "auto",
    )
    ax.set_xlim(-0.5, ncols - 0.5)
    ax.set_ylim(nrows - 0.5, -0.5)
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(nbins=5, integer=True))
        axis.set_major_formatter(FuncFormatter(_count_label))
    if colorbar and low < high:
        bar = ax.figure.colorbar(image, ax=ax, shrink=0.8, pad=0.03)
        bar.set_label("entries per cell")
    return ax


def _degrees(A: Matrix, direction: str) -> Any:  # noqa: N803
    """Degrees on the matrix's backend: entries per row, per column, or their sum."""
    xp = A.xp
    out = xp.diff(A.indptr).astype(np.int64)
    if direction == "out":
        return out
    into = xp.bincount(A.indices, minlength=A.ncols).astype(np.int64)
    return into if direction == "in" else out + into


_AXIS_LABELS = {
    "out": "out-degree (entries per row)",
    "in": "in-degree (entries per column)",
    "both": "degree (in + out)",
}


def degree_distribution(
    A: Matrix,  # noqa: N803
    *,
    direction: str = "out",
    ax: Axes | None = None,
    log: bool = True,
) -> Axes:
    """Plot how many vertices have each degree (the usual power-law picture).

    ``A`` is an adjacency matrix with rows = sources: the out-degree of a vertex is its row's
    entry count, the in-degree its column's, and ``'both'`` their sum (square matrices only;
    for a symmetric matrix that counts each undirected edge twice).

    Parameters
    ----------
    A : Matrix
    direction : {'out', 'in', 'both'}
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    log : bool
        Log-log axes (default). Vertices of degree 0 cannot be placed on a log axis: their
        count is given in the legend instead; on linear axes they are plotted at 0.

    Returns
    -------
    matplotlib.axes.Axes
        The points are ``ax.lines[0]``: x the distinct degrees, y how many vertices have each.

    Raises
    ------
    InvalidObject
        ``A`` is not a Matrix, ``ax`` not an Axes, ``log`` not a bool.
    InvalidValue
        ``direction`` is not one of 'out', 'in', 'both'.
    DimensionMismatch
        ``direction='both'`` for a matrix that is not square.
    MissingDependency
        matplotlib is not installed.

    Examples
    --------
    >>> ax = hb.plot.degree_distribution(hb.generators.kronecker(8, seed=0))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('out-degree (entries per row)', 'vertices')
    """
    _check_matrix(A)
    if not isinstance(direction, str) or direction not in DIRECTIONS:
        raise InvalidValue(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    log = _check_bool(log, "log")
    if direction == "both" and A.nrows != A.ncols:
        raise DimensionMismatch(f"direction='both' needs a square matrix, got shape {A.shape}")
    degrees = _degrees(A, direction)
    values, counts = (to_numpy(a) for a in A.xp.unique(degrees, return_counts=True))
    vertices = int(degrees.size)
    zero = int(counts[0]) if values.size and values[0] == 0 else 0
    shown = values > 0 if log else np.ones(values.size, dtype=bool)

    ax = _axes(ax, (5.5, 4.0))
    label = f"{vertices - zero:,} vertices of degree >= 1" if log else f"{vertices:,} vertices"
    ax.plot(values[shown], counts[shown], "o", markersize=4, alpha=0.8, label=label)
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
        # a handle with nothing drawn: the zero-degree count belongs in the legend, not the data
        ax.plot([], [], " ", label=f"{zero:,} of degree 0 (not shown on log axes)")
    ax.legend(loc="upper right", fontsize="small", frameon=False)
    ax.set_xlabel(_AXIS_LABELS[direction])
    ax.set_ylabel("vertices")
    kind = "total degree" if direction == "both" else f"{direction}-degree"
    ax.set_title(
        f"{kind} distribution: {vertices:,} vertices, {A.nnz:,} entries", fontsize="medium"
    )
    ax.grid(True, which="major", alpha=0.3)
    return ax


def trace(t: Any, *, ax: Axes | None = None, log: bool = True) -> Axes:
    """Plot a :func:`hyblas.trace`: the input size of each product, coloured by its executor.

    One bar per ``mxv`` / ``vxm`` in call order, its height the input vector's entries (the
    frontier), its colour the executor that ran it (``hyblas.executors.trace.EXECUTOR_COLORS``): the
    picture of how the hybrid moves between executors as a traversal's frontier grows and shrinks.
    The legend gives each executor's calls and total time.

    Parameters
    ----------
    t : Trace
        What ``with hyblas.trace() as t:`` recorded.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    log : bool
        A logarithmic y axis (default).

    Returns
    -------
    matplotlib.axes.Axes
        The bars are ``ax.patches``, one per product, centred on its call number.

    Raises
    ------
    InvalidObject
        ``t`` is not a Trace, ``ax`` not an Axes, ``log`` not a bool.
    MissingDependency
        matplotlib is not installed.

    Examples
    --------
    >>> A = hb.generators.grid_2d(4, 4)
    >>> with hb.trace() as t:
    ...     levels = hb.algorithms.bfs(A, 0)
    >>> ax = hb.plot.trace(t)
    >>> ax.get_ylabel()
    'input entries (frontier)'
    """
    if not isinstance(t, Trace):
        raise InvalidObject(f"t must be a hyblas Trace, got {type(t).__name__}")
    log = _check_bool(log, "log")
    summary = t.summary()  # reads the pending CUDA events first
    ax = _axes(ax, (7.0, 3.5))
    rows = t.rows
    fallback = "#9467bd"  # an executor without a colour of its own
    for name, entry in summary.items():
        calls = [row for row in rows if row.executor == name]
        count = int(entry["calls"])
        label = f"{name}: {count:,} call{'s' if count != 1 else ''}, {entry['time_ms']:.3g} ms"
        ax.bar(
            [row.call for row in calls],
            [row.input_nnz for row in calls],
            width=0.85,
            color=EXECUTOR_COLORS.get(name, fallback),
            label=label,
        )
    if log:
        ax.set_yscale("log")
    if rows:
        from matplotlib.ticker import MaxNLocator  # noqa: PLC0415

        # beside the axes: bars may fill the whole height, so no corner inside stays free
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)
        ax.set_xlim(-0.6, len(rows) - 0.4)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("product (call order)")
    ax.set_ylabel("input entries (frontier)")
    total = sum(row.time_ms for row in rows)
    ax.set_title(
        f"{len(rows):,} products, {total:.3g} ms" if rows else "no products", fontsize="medium"
    )
    return ax
