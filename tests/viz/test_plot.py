"""hyblas.viz.plot: spy and degree-distribution pictures (matplotlib, imported only when
plotting)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import hyblas as hb
from hyblas.errors import DimensionMismatch, InvalidObject, InvalidValue, MissingDependency

ROOT = Path(__file__).resolve().parents[2]


def test_importing_hyblas_does_not_import_matplotlib() -> None:
    code = (
        "import sys, numpy as np, hyblas\n"
        "assert 'matplotlib' not in sys.modules\n"
        "import hyblas.viz.plot, hyblas.viz.display\n"
        "A = hyblas.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0])\n"
        "html = A._repr_html_() + hyblas.semiring.min_plus._repr_html_()\n"
        "html += hyblas.Vector.from_coo([0], [1.0], size=3)._repr_html_()\n"
        "assert '<svg' in html and hyblas.viz.plot.spy.__module__ == 'hyblas.viz.plot'\n"
        "assert 'matplotlib' not in sys.modules, 'display or plot imported matplotlib'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


def test_plot_is_a_lazy_public_subpackage() -> None:
    assert "plot" in hb.__all__
    assert hb.plot.degree_distribution is not None and hb.plot.spy is not None


matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after choosing the Agg backend

from hyblas import plot  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def _random_matrix(nrows: int, ncols: int, density: float, seed: int, backend: str) -> hb.Matrix:
    rng = np.random.default_rng(seed)
    host = sp.random(nrows, ncols, density=density, format="csr", random_state=rng)
    return hb.Matrix.from_scipy(host, backend=backend)


# --- spy ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("nrows", "ncols", "max_cells"), [(700, 450, 100), (30, 20, 512)])
def test_spy_image_holds_the_counts(nrows: int, ncols: int, max_cells: int, backend: str) -> None:
    A = _random_matrix(nrows, ncols, 0.02, seed=nrows, backend=backend)
    ax = plot.spy(A, max_cells=max_cells)
    row_step, col_step = -(-nrows // max_cells), -(-ncols // max_cells)
    expected = np.zeros((-(-nrows // row_step), -(-ncols // col_step)), dtype=np.int64)
    coo = A.to_scipy().tocoo()
    np.add.at(expected, (coo.row // row_step, coo.col // col_step), 1)

    image = ax.images[0].get_array()
    assert isinstance(image, np.ma.MaskedArray)
    np.testing.assert_array_equal(image.filled(0), expected)
    np.testing.assert_array_equal(np.ma.getmaskarray(image), expected == 0)
    # user coordinates: the image covers whole cells, the view the matrix itself
    left, right, bottom, top = ax.images[0].get_extent()
    assert (left, top) == (-0.5, -0.5)
    assert right == expected.shape[1] * col_step - 0.5
    assert bottom == expected.shape[0] * row_step - 0.5
    assert ax.get_xlim() == (-0.5, ncols - 0.5) and ax.get_ylim() == (nrows - 0.5, -0.5)
    title = ax.get_title()
    assert f"{nrows:,} x {ncols:,}" in title and f"{A.nnz:,} entries" in title
    assert (f"{row_step:,} x {col_step:,}" in title) == (row_step > 1 or col_step > 1)


def test_spy_draws_on_the_given_axes_log_or_linear() -> None:
    # the lower triangle of a 10 x 10 in 2 x 2 cells: 3 entries on the diagonal cells, 4 below
    rows = np.repeat(np.arange(10), np.arange(1, 11))
    cols = np.concatenate([np.arange(k) for k in range(1, 11)])
    A = hb.Matrix.from_coo(rows, cols, 1.0, nrows=10, ncols=10, backend="cpu")
    _figure, given = plt.subplots()
    ax = plot.spy(A, ax=given, max_cells=5, colorbar=False)
    assert ax is given and len(ax.figure.axes) == 1
    norm = ax.images[0].norm
    assert isinstance(norm, matplotlib.colors.LogNorm) and (norm.vmin, norm.vmax) == (3, 4)
    ax = plot.spy(A, max_cells=5, log=False)
    norm = ax.images[0].norm
    assert not isinstance(norm, matplotlib.colors.LogNorm) and norm.vmax == 4
    assert len(ax.figure.axes) == 2  # the colorbar


def test_spy_of_empty_matrices() -> None:
    ax = plot.spy(hb.Matrix.new(float, 0, 0, backend="cpu"))
    assert len(ax.images) == 0 and "0 x 0, 0 entries" in ax.get_title()
    ax = plot.spy(hb.Matrix.new(float, 8, 6, backend="cpu"))
    image = ax.images[0].get_array()
    assert image.shape == (8, 6) and np.ma.getmaskarray(image).all()
    assert len(ax.figure.axes) == 1  # no colorbar for no entries


def test_spy_rejects_bad_arguments() -> None:
    A = hb.Matrix.from_coo([0], [0], [1.0], backend="cpu")
    with pytest.raises(InvalidObject):
        plot.spy(A.to_scipy())
    with pytest.raises(InvalidValue):
        plot.spy(A, max_cells=0)
    with pytest.raises(InvalidObject):
        plot.spy(A, max_cells="64")
    with pytest.raises(InvalidObject):
        plot.spy(A, ax="left")
    with pytest.raises(InvalidObject):
        plot.spy(A, log="yes")


# --- degree_distribution -------------------------------------------------------------------------


def _distribution(degrees: np.ndarray, *, keep_zero: bool) -> np.ndarray:
    values, counts = np.unique(degrees, return_counts=True)
    keep = values >= 0 if keep_zero else values > 0
    return np.column_stack([values[keep], counts[keep]])


@pytest.mark.parametrize("direction", ["out", "in", "both"])
def test_degree_distribution_points(direction: str, backend: str) -> None:
    A = hb.generators.kronecker(9, 8, seed=4, symmetric=False, backend=backend)
    host = A.to_scipy()
    out, into = np.diff(host.indptr), np.bincount(host.indices, minlength=host.shape[1])
    degrees = {"out": out, "in": into, "both": out + into}[direction]
    zero = int((degrees == 0).sum())
    assert zero > 0  # the graph leaves vertices without edges: the legend must say so

    ax = plot.degree_distribution(A, direction=direction)
    np.testing.assert_array_equal(ax.lines[0].get_xydata(), _distribution(degrees, keep_zero=False))
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert f"{degrees.size - zero:,} vertices of degree >= 1" in legend
    assert f"{zero:,} of degree 0 (not shown on log axes)" in legend
    assert f"{degrees.size:,} vertices" in ax.get_title()


def test_degree_distribution_linear_axes_show_degree_zero() -> None:
    A = hb.Matrix.from_coo([0, 0, 1, 3], [1, 2, 2, 0], 1.0, nrows=5, ncols=5, backend="cpu")
    ax = plot.degree_distribution(A, log=False)
    np.testing.assert_array_equal(ax.lines[0].get_xydata(), [[0, 2], [1, 2], [2, 1]])
    assert ax.get_xscale() == "linear"
    _figure, given = plt.subplots()
    assert plot.degree_distribution(A, direction="in", ax=given) is given


def test_degree_distribution_of_a_matrix_without_rows() -> None:
    ax = plot.degree_distribution(hb.Matrix.new(float, 0, 0, backend="cpu"))
    assert ax.lines[0].get_xydata().shape == (0, 2) and "0 vertices" in ax.get_title()


def test_degree_distribution_rejects_bad_arguments() -> None:
    A = hb.Matrix.from_coo([0, 1], [1, 2], 1.0, nrows=2, ncols=3, backend="cpu")
    with pytest.raises(InvalidValue):
        plot.degree_distribution(A, direction="sideways")
    with pytest.raises(InvalidValue):
        plot.degree_distribution(A, direction=None)
    with pytest.raises(DimensionMismatch):
        plot.degree_distribution(A, direction="both")
    with pytest.raises(InvalidObject):
        plot.degree_distribution(np.eye(3))
    with pytest.raises(InvalidObject):
        plot.degree_distribution(A, ax=object())
    with pytest.raises(InvalidObject):
        plot.degree_distribution(A, log=1)


def test_missing_matplotlib_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # makes the import fail
    A = hb.Matrix.from_coo([0], [0], [1.0], backend="cpu")
    with pytest.raises(MissingDependency, match="pip install matplotlib"):
        plot.spy(A)
    with pytest.raises(MissingDependency):
        plot.degree_distribution(A)


# --- trace -------------------------------------------------------------------------------------


def test_trace_bars_are_the_frontiers_coloured_by_executor() -> None:
    from hyblas.executors.trace import EXECUTOR_COLORS, Trace, TraceRow

    t = Trace()
    plan = [("sparse", 1), ("sparse", 40), ("dense", 900), ("dense", 2000), ("reference", 7)]
    for call, (executor, size) in enumerate(plan):
        t.rows.append(
            TraceRow(
                call=call,
                op="vxm",
                executor=executor,
                asked="auto",
                policy="",
                outputs=4096,
                input_nnz=size,
                allowed=None,
                edges=size,
                time_ms=1.5,
            )
        )
    ax = plot.trace(t)
    bars = sorted(ax.patches, key=lambda bar: bar.get_x())
    assert len(bars) == len(plan)
    for call, (bar, (executor, size)) in enumerate(zip(bars, plan)):
        assert bar.get_x() + bar.get_width() / 2 == pytest.approx(call)
        assert bar.get_height() == size
        assert bar.get_facecolor() == matplotlib.colors.to_rgba(EXECUTOR_COLORS[executor])
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert legend == ["sparse: 2 calls, 3 ms", "dense: 2 calls, 3 ms", "reference: 1 call, 1.5 ms"]
    assert ax.get_yscale() == "log" and ax.get_title() == "5 products, 7.5 ms"
    assert plot.trace(t, log=False).get_yscale() == "linear"


def test_trace_plot_of_a_recorded_trace_and_bad_arguments() -> None:
    A = hb.Matrix.from_coo([0, 1], [1, 2], 1.0, nrows=3, ncols=3, backend="cpu")
    u = hb.Vector.from_coo([0], [1.0], size=3, backend="cpu")
    with hb.trace() as t:
        hb.ops.vxm(u, A, hb.semiring.plus_times, executor="reference")
    _figure, given = plt.subplots()
    assert t.plot(ax=given) is given and len(given.patches) == 1
    assert len(plot.trace(type(t)()).patches) == 0
    with pytest.raises(InvalidObject):
        plot.trace([t])
    with pytest.raises(InvalidObject):
        plot.trace(t, log="no")
