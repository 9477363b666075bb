"""Rich display: pattern downsampling, the spy SVG, and the HTML of matrices, vectors, operators."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp

import hyblas as hb
from hyblas.errors import InvalidObject, InvalidValue
from hyblas.operators.classes import BinaryOp, Monoid, Semiring
from hyblas.viz import display


def _random_matrix(nrows: int, ncols: int, density: float, seed: int, backend: str) -> hb.Matrix:
    rng = np.random.default_rng(seed)
    host = sp.random(nrows, ncols, density=density, format="csr", random_state=rng)
    return hb.Matrix.from_scipy(host, backend=backend)


def _expected_counts(matrix: hb.Matrix, max_cells: int) -> tuple[np.ndarray, int, int]:
    """The grid counted on the host from COO, with cell sizes ceil(n / max_cells)."""
    nrows, ncols = matrix.shape
    row_step = max(1, -(-nrows // max_cells))
    col_step = max(1, -(-ncols // max_cells))
    grid = np.zeros((-(-nrows // row_step), -(-ncols // col_step)), dtype=np.int64)
    coo = matrix.to_scipy().tocoo()
    np.add.at(grid, (coo.row // row_step, coo.col // col_step), 1)
    return grid, row_step, col_step


# --- pattern_counts ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nrows", "ncols", "density", "max_cells"),
    [
        (300, 170, 0.05, 64),  # larger than the grid, steps 5 x 3, partial last cells
        (256, 256, 0.02, 64),  # an exact multiple: 4 x 4 cells
        (40, 30, 0.2, 64),  # smaller than the grid: one cell per entry
        (1000, 7, 0.3, 64),  # tall and thin
        (9, 1000, 0.3, 10),  # short and wide
        (50, 60, 0.5, 1),  # a single cell holds everything
        (10, 10, 0.0, 64),  # no entries
        (0, 0, 0.0, 64),
        (0, 5, 0.0, 64),
        (5, 0, 0.0, 64),
    ],
)
def test_pattern_counts_match_a_host_count(
    nrows: int, ncols: int, density: float, max_cells: int, backend: str
) -> None:
    A = _random_matrix(nrows, ncols, density, seed=nrows * 31 + ncols, backend=backend)
    grid = display.pattern_counts(A, max_cells)
    expected, row_step, col_step = _expected_counts(A, max_cells)
    assert (grid.row_step, grid.col_step) == (row_step, col_step)
    assert grid.shape == (nrows, ncols)
    assert isinstance(grid.counts, np.ndarray) and grid.counts.dtype == np.int64
    assert max(grid.counts.shape) <= max_cells
    np.testing.assert_array_equal(grid.counts, expected)
    assert grid.nnz == A.nnz


def test_pattern_counts_with_empty_bands_and_int64_indices(backend: str) -> None:
    # rows 0..99 empty except row 3 and row 97; int64 indices from a large column count
    ncols = 3_000_000_000
    A = hb.Matrix.from_coo(
        [3, 3, 97],
        [0, ncols - 1, 1_500_000_000],
        [1, 2, 3],
        nrows=100,
        ncols=ncols,
        backend=backend,
    )
    assert A.indices.dtype == np.int64
    grid = display.pattern_counts(A, 10)
    assert grid.counts.shape == (10, 10) and grid.col_step == 300_000_000
    expected = np.zeros((10, 10), dtype=np.int64)
    expected[0, 0] = expected[0, 9] = expected[9, 5] = 1
    np.testing.assert_array_equal(grid.counts, expected)


def test_pattern_counts_rejects_bad_arguments() -> None:
    A = hb.Matrix.from_coo([0], [0], [1.0], backend="cpu")
    with pytest.raises(InvalidObject):
        display.pattern_counts(A.to_scipy())
    with pytest.raises(InvalidValue):
        display.pattern_counts(A, 0)
    with pytest.raises(InvalidObject):
        display.pattern_counts(A, 2.5)
    with pytest.raises(InvalidObject):
        display.pattern_counts(A, True)


# --- the spy SVG -----------------------------------------------------------------------------


def _svg_cells(svg: str) -> dict[tuple[int, int], str]:
    """``{(band, cell): fill colour}`` of every cell drawn by the SVG's run paths."""
    drawn: dict[tuple[int, int], str] = {}
    for color, data in re.findall(r'<path fill="([^"]+)" d="([^"]+)"/>', svg):
        for start, band, length, back in re.findall(r"M(\d+) (\d+)h(\d+)v1h-(\d+)z", data):
            assert length == back
            for cell in range(int(start), int(start) + int(length)):
                assert (int(band), cell) not in drawn, "a cell is drawn twice"
                drawn[int(band), cell] = color
    return drawn


def test_spy_svg_draws_exactly_the_filled_cells_darker_for_more(backend: str) -> None:
    A = _random_matrix(500, 400, 0.03, seed=7, backend=backend)
    # rows of a few cells made much denser, so the counts span several shades
    rows = np.repeat(np.arange(0, 40), 300)
    cols = np.tile(np.arange(300), 40)
    dense = hb.Matrix.from_coo(rows, cols, 1.0, nrows=500, ncols=400, backend=backend)
    A = A.ewise_add(dense, hb.binary.plus)
    grid = display.pattern_counts(A, 64)
    svg = display.spy_svg(grid)
    drawn = _svg_cells(svg)
    filled = {(int(i), int(j)) for i, j in zip(*np.nonzero(grid.counts))}
    assert set(drawn) == filled
    assert sum(int(grid.counts[c]) for c in drawn) == A.nnz
    shade_rank = {color: rank for rank, color in enumerate(display._SHADES)}
    ranked = sorted(drawn, key=lambda c: grid.counts[c])
    ranks = [shade_rank[drawn[c]] for c in ranked]
    assert ranks == sorted(ranks), "a cell with more entries is never lighter"
    assert ranks[0] == 0 and ranks[-1] == len(display._SHADES) - 1
    assert 'viewBox="0 0 ' in svg and svg.startswith("<svg") and svg.endswith("</svg>")


def test_spy_svg_of_equal_counts_and_of_no_entries() -> None:
    one = display.pattern_counts(
        hb.Matrix.from_coo([0, 2], [1, 0], 1.0, nrows=3, ncols=3, backend="cpu")
    )
    drawn = _svg_cells(display.spy_svg(one))
    assert set(drawn) == {(0, 1), (2, 0)}
    assert set(drawn.values()) == {display._SHADES[-1]}
    none = display.pattern_counts(hb.Matrix.new(float, 4, 4, backend="cpu"))
    assert _svg_cells(display.spy_svg(none)) == {}


# --- memory ----------------------------------------------------------------------------------


def test_format_bytes() -> None:
    assert display.format_bytes(0) == "0 B"
    assert display.format_bytes(1023) == "1023 B"
    assert display.format_bytes(1536) == "1.5 KiB"
    assert display.format_bytes(3 * 2**30) == "3.0 GiB"
    assert display.format_bytes(5 * 2**40) == "5.0 TiB"


def test_matrix_memory_counts_csr_and_cached_forms_once(backend: str) -> None:
    A = _random_matrix(200, 100, 0.1, seed=3, backend=backend)
    csr_bytes = sum(int(a.nbytes) for a in (A.indptr, A.indices, A.values))
    assert display.matrix_memory(A) == (csr_bytes, {})
    T = A.T
    t_bytes = sum(int(a.nbytes) for a in (T.indptr, T.indices, T.values))
    csr, forms = display.matrix_memory(A)
    assert csr == csr_bytes and forms == {"transpose": t_bytes}
    # a view of an array already counted holds no memory of its own; a new array does
    A.cache[("test_view", 0)] = A.indices[1:]
    A.cache[("test_copy", 0)] = A.values.copy()
    A.cache[("test_counter", 0)] = 3
    csr, forms = display.matrix_memory(A)
    assert forms == {"transpose": t_bytes, "test copy": int(A.values.nbytes)}


# --- HTML --------------------------------------------------------------------------------------


def _text(fragment: str) -> str:
    """The visible text of an HTML fragment, pictures left out."""
    fragment = re.sub(r"<svg.*?</svg>", "", fragment, flags=re.S)
    return re.sub(r"(?:<[^>]+>)+", "|", fragment)


def test_matrix_html_shows_the_facts_and_a_picture(backend: str) -> None:
    A = hb.Matrix.from_coo(
        [0, 1, 2, 2],
        [1, 2, 0, 3],
        [1, 2, 3, 4],
        nrows=3,
        ncols=1200,
        dtype=np.int16,
        backend=backend,
    )
    html = A._repr_html_()
    assert html == display.matrix_html(A)
    text = _text(html)
    for fact in (
        "|shape|",
        "3 x 1,200",
        "|nnz|",
        "|4|",
        "int16",
        f"|{backend}|",
        "density",
        "0.111%",
        "min 1, mean 1.33, max 2",
    ):
        assert fact in text, fact
    csr_bytes = sum(int(a.nbytes) for a in (A.indptr, A.indices, A.values))
    assert f"{csr_bytes} B (CSR" in text
    assert "cached forms" not in text
    assert html.count("<svg") == 1 and "cells of 1 x 19" in text
    A.T  # noqa: B018 - computes and caches the transpose
    assert "cached forms" in _text(A._repr_html_()) and "transpose" in _text(A._repr_html_())


def test_matrix_html_of_empty_matrices(backend: str) -> None:
    empty = hb.Matrix.new(np.float32, 0, 0, backend=backend)
    text = _text(empty._repr_html_())
    assert "0 x 0" in text and "|nnz|" in text and "n/a" in text
    assert "<svg" not in empty._repr_html_()
    blank = hb.Matrix.new(np.float32, 5, 5, backend=backend)
    assert "<svg" in blank._repr_html_() and "no entries" in _text(blank._repr_html_())


def test_html_escapes_text() -> None:
    card = display.html_card("<T&>", [("<label>", "a < b & 'c'")], extra="<i>trusted</i>")
    assert "&lt;T&amp;&gt;" in card and "&lt;label&gt;" in card
    assert "a &lt; b &amp; &#x27;c&#x27;" in card and "<i>trusted</i>" in card
    op = BinaryOp("<script>alert(1)</script>", "(x) < (y) && 1", np.less, output="bool")
    html = op._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "(x) &lt; (y) &amp;&amp; 1" in html


def test_vector_html_sparse_and_bitmap(backend: str) -> None:
    v = hb.Vector.from_coo([1, 5, 900], [1.5, -2.0, 3.0], size=1000, backend=backend)
    assert v.format == "sparse"
    html = v._repr_html_()
    assert html == display.vector_html(v)
    text = _text(html)
    for fact in (
        "1,000",
        "|nnz|",
        "|3|",
        "float64",
        f"|{backend}|",
        "|sparse|",
        "0.3%",
        "|1|1.5|",
        "|5|-2.0|",
        "|900|3.0|",
    ):
        assert fact in text, fact
    assert f"|{v.stored_sparse[0].nbytes + v.stored_sparse[1].nbytes} B|" in text
    assert "more" not in text

    w = hb.Vector.from_coo(
        np.arange(0, 40, 2), np.arange(20, dtype=np.int32), size=40, backend=backend
    )
    assert w.format == "bitmap"
    html = w._repr_html_()
    text = _text(html)
    assert "|bitmap|" in text and "|int32|" in text
    rows = re.findall(r"<tr><td[^>]*>(\d+)</td><td[^>]*>(\d+)</td></tr>", html)
    assert rows == [(str(2 * k), str(k)) for k in range(display.VECTOR_PREVIEW)]
    assert f"{20 - display.VECTOR_PREVIEW} more" in text


def test_vector_head_is_the_first_entries(backend: str) -> None:
    v = hb.Vector.from_dense(
        np.array([0, 7, 0, 9, 4], dtype=np.int64), missing_value=0, backend=backend
    )
    indices, values = display.vector_head(v, 2)
    assert indices.tolist() == [1, 3] and values.tolist() == [7, 9]
    empty = hb.Vector.new(np.float64, 3, backend=backend)
    assert "index" not in _text(empty._repr_html_())


def test_semiring_html_names_its_parts_and_identities() -> None:
    html = hb.semiring.min_plus._repr_html_()
    text = _text(html)
    assert "semiring.min_plus" in text and "monoid.min" in text and "binary.plus" in text
    assert "all 11 types" in text
    # one row per group of dtypes with equal identities: limits by name, floats as inf
    assert "|float32, float64|same|inf|-inf|" in text
    assert "|int8, int16, int32, int64|same|max|min|" in text
    assert "|uint8, uint16, uint32, uint64|same|max|0|" in text

    typed = hb.semiring.lor_land[np.float32]._repr_html_()
    text = _text(typed)
    assert "typed as|" in text and "|float32|bool|False|True|" in text
    assert "int8" not in text.split("|inputs|")[1]


def test_monoid_and_user_operators_html() -> None:
    text = _text(hb.monoid.plus._repr_html_())
    assert "monoid.plus" in text and "binary.plus" in text and "|GPU atomic|add|" in text
    assert "|float32, float64|0.0|none|" in text  # plus has no terminal value
    plus = BinaryOp("my_plus", "((x) + (y))", np.add, types=[np.float32, np.int64])
    mine = Semiring("my_min_plus", Monoid("my_min", hb.binary.min, np.inf), plus)
    text = _text(mine._repr_html_())
    assert "semiring.my_min_plus" in text and "binary.my_plus" in text
    assert "int64, float32" in text and "compare" not in text
    # an identity the user gave that does not fit a dtype shows as n/a instead of raising
    assert "|float32|same|inf|none|" in text and "|int64|same|n/a|none|" in text
    text = _text(plus._repr_html_())
    assert "((x) + (y))" in text and "same as inputs" in text


def test_existing_text_reprs_stay_compact() -> None:
    A = hb.Matrix.from_coo([0], [1], [2.0], backend="cpu")
    assert repr(A).startswith("hyblas.Matrix(nrows=1, ncols=2, nnz=1")
    assert repr(hb.semiring.min_plus) == "semiring.min_plus"


# --- trace -------------------------------------------------------------------------------------


def _trace(*rows: tuple[str, int, float, str]) -> object:
    """A Trace holding ``(executor, input_nnz, time_ms, reason)`` rows, made directly."""
    from hyblas.executors.trace import Trace, TraceRow

    t = Trace()
    for call, (executor, input_nnz, time_ms, reason) in enumerate(rows):
        t.rows.append(
            TraceRow(
                call=call,
                op="vxm",
                executor=executor,
                asked="auto",
                policy="test",
                outputs=100,
                input_nnz=input_nnz,
                allowed=None if call % 2 else 50,
                edges=10 * input_nnz,
                reason=reason,
                time_ms=time_ms,
            )
        )
    return t


def test_trace_html_totals_rows_and_escaping() -> None:
    from hyblas.executors.trace import EXECUTOR_COLORS

    t = _trace(
        ("sparse", 3, 0.5, "frontier < 1%"),
        ("dense", 80, 2.0, "wide"),
        ("sparse", 4, 0.25, "narrow"),
    )
    html = t._repr_html_()
    assert html == display.trace_html(t)
    text = _text(html)
    assert "|products|3|" in text and "|time in products|2.750 ms|" in text
    assert "|sparse|2 calls, 0.750 ms, 70 edges|" in text
    assert "|dense|1 call, 2.000 ms, 800 edges|" in text
    assert "|0|vxm|sparse|3|50|30|0.500|frontier &lt; 1%|" in text
    assert "|1|vxm|dense|80|-|800|2.000|wide|" in text
    assert "frontier < 1%" not in html
    assert f"background:{EXECUTOR_COLORS['dense']}" in html


def test_trace_html_lists_the_first_and_last_products_of_a_long_trace() -> None:
    t = _trace(*[("reference", k, 1.0, "") for k in range(30)])
    html = display.trace_html(t, preview=4)
    calls = re.findall(r"<tr><td[^>]*>(\d+)</td><td[^>]*>vxm", html)
    assert calls == ["0", "1", "28", "29"] and "... 26 more" in _text(html)
    empty = _text(display.trace_html(_trace()))
    assert "|products|0|" in empty and "|call|" not in empty
    with pytest.raises(InvalidObject):
        display.trace_html([1, 2])


def test_trace_html_of_a_recorded_trace(backend: str) -> None:
    A = _random_matrix(50, 50, 0.1, seed=5, backend=backend)
    u = hb.Vector.from_coo([0, 3], [1.0, 2.0], size=50, backend=backend)
    with hb.trace() as t:
        hb.ops.vxm(u, A, hb.semiring.plus_times, executor="reference")
    text = _text(t._repr_html_())
    assert "|products|1|" in text and "|0|vxm|reference|2|" in text
