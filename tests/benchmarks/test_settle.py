"""The harness's settling runs (``hyblas_ops.settle``): until a run adds nothing to the caches
and no layout is pending; past ``SETTLE_RUNS`` only while a layout is pending, for up to
``SETTLE_PENDING_S`` seconds; a row timed before the steady state is flagged in the table."""

from __future__ import annotations

import pytest

import hyblas as hb
from benchmarks import graphs, hyblas_ops
from benchmarks.hyblas_ops import Settled, settle
from benchmarks.report import markdown_table, readme_section


class _Watched:
    """A matrix whose cache grows for ``growing`` runs and whose layout is pending for
    ``pending`` runs (``forever``: never settles)."""

    def __init__(self, growing: int, pending: int | None) -> None:
        self.matrix = hb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=2)
        self.growing, self.pending, self.runs = growing, pending, 0

    def run(self) -> None:
        self.runs += 1
        if self.runs <= self.growing:
            self.matrix.cache[("grown", self.runs)] = self.runs

    def pending_layouts(self, matrix: hb.Matrix) -> list[str]:
        assert matrix is self.matrix
        waiting = self.pending is None or self.runs < self.pending
        return ["dense"] if waiting else []


def _settle(watched: _Watched, patch: pytest.MonkeyPatch) -> Settled:
    patch.setattr(hyblas_ops, "pending_layouts", watched.pending_layouts)
    return settle(watched.run, lambda: [watched.matrix])


def test_settling_ends_at_the_first_run_that_changes_nothing(monkeypatch) -> None:
    assert _settle(_Watched(growing=0, pending=0), monkeypatch) == Settled(1, True)
    assert _settle(_Watched(growing=3, pending=0), monkeypatch) == Settled(4, True)
    assert _settle(_Watched(growing=0, pending=5), monkeypatch) == Settled(5, True)


def test_a_pending_layout_keeps_the_runs_going_past_the_run_limit(monkeypatch) -> None:
    late = hyblas_ops.SETTLE_RUNS + 25
    assert _settle(_Watched(growing=0, pending=late), monkeypatch) == Settled(late, True)


def test_settling_gives_up_unsteady_past_its_limits(monkeypatch) -> None:
    runs = hyblas_ops.SETTLE_RUNS
    # caches that keep growing, nothing pending: the run limit
    assert _settle(_Watched(growing=10**6, pending=0), monkeypatch) == Settled(runs, False)
    # a layout that never pays: the time limit, once past the run limit
    monkeypatch.setattr(hyblas_ops, "SETTLE_PENDING_S", 0.0)
    assert _settle(_Watched(growing=0, pending=None), monkeypatch) == Settled(runs, False)


def test_settling_watches_the_matrix_an_op_makes_of_the_graph(monkeypatch) -> None:
    """``spmv:lor_land`` multiplies a bool copy of the pattern, not the graph's matrix: its
    layouts' rent adds up there, so settling watches it (else ``auto`` is timed before it
    builds its layout)."""
    g = graphs.build("kron10", "cpu")
    run = hyblas_ops.OPS["spmv:lor_land"](g, "auto")
    pattern = g.A.cache[hyblas_ops.BOOL_PATTERN]
    assert pattern.dtype == bool and pattern.nnz == g.A.nnz
    hyblas_ops.OPS["spmv:lor_land"](g, "dense")  # another row of the same graph: the same copy
    assert g.A.cache[hyblas_ops.BOOL_PATTERN] is pattern
    runs = []

    def pending(matrix: hb.Matrix) -> list[str]:
        return ["dense"] if matrix is pattern and len(runs) < 5 else []

    monkeypatch.setattr(hyblas_ops, "pending_layouts", pending)
    assert settle(lambda: runs.append(run()), g) == Settled(5, True)


def _doc(*rows: dict) -> dict:
    """A result document of ``rows`` (kron22 bfs rows: impl and time given)."""
    row = {"graph": "kron22", "op": "bfs", "n": 2, "nnz": 1}
    return {
        "device": "NVIDIA H100 80GB HBM3",
        "date": "2026-11-27",
        "commit": "0123456789",
        "rows": [{**row, **r} for r in rows],
    }


def test_an_unsettled_row_is_flagged_in_the_table() -> None:
    auto = {"impl": "hyblas:auto", "median_ms": 2.0, "unsettled": True}
    dense = {"impl": "hyblas:dense", "median_ms": 1.0}
    table = markdown_table(_doc(auto, dense))
    assert "| 2.000 ‡ |" in table and "| 1.000 |" in table and "\n‡ timed before" in table
    assert "‡" not in markdown_table(_doc(dense))


def test_an_unsettled_headline_row_is_flagged_in_the_readme() -> None:
    auto = {"impl": "hyblas:auto", "median_ms": 2.0, "unsettled": True}
    section = readme_section("h100", _doc(auto))
    assert "| 2.00 ‡ | 2.00 ‡ (auto) |" in section and "\n‡ timed before" in section
    assert "‡" not in readme_section("h100", _doc({**auto, "unsettled": False}))
