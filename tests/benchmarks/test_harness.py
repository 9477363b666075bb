"""The benchmark harness: ``--smoke`` end to end (as CI runs it), its checks and its limits."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hyblas as hb
from benchmarks import run as harness
from benchmarks import timing
from benchmarks.peers import scipy_peer
from benchmarks.report import markdown_table

REQUIRED_ROW_KEYS = {"graph", "op", "impl", "n", "nnz"}
IMPLS = {
    "hyblas:reference",
    "hyblas:dense",
    "hyblas:sparse",
    "hyblas:pull",
    "hyblas:auto",
    "cusparse",
    "cupyx-naive",
    "suitesparse",
    "scipy",
    "unionfind",
}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict]:
    out = tmp_path_factory.mktemp("bench")
    status = harness.main(["--smoke", "--out", str(out)])
    (path,) = out.glob("*.json")
    return status, json.loads(path.read_text()), out


def test_smoke_run_checks_every_result_and_writes_the_schema(smoke: tuple) -> None:
    status, doc, out = smoke
    errors = [row for row in doc["rows"] if "error" in row]
    assert status == 0 and not errors, errors
    assert isinstance(doc["device"], str) and doc["device"]
    assert len(doc["date"]) == 10 and doc["date"][4] == "-"
    assert isinstance(doc["commit"], str) and doc["commit"]
    assert "copy_TBps" in doc  # None on a CPU run
    for row in doc["rows"]:
        assert REQUIRED_ROW_KEYS <= set(row), row
        assert row["impl"] in IMPLS
        assert ("median_ms" in row) != ("skipped" in row), row
        if "median_ms" in row:
            assert row["median_ms"] > 0
            # the row's wall time holds its timed runs, at least half of them as long as the median
            assert row["wall_s"] * 1e3 >= row["median_ms"] * (1 + row["repeats"] // 2), row
    assert (out / Path(next(out.glob("*.json")).stem + ".md")).exists()


def test_smoke_run_covers_every_op_on_both_graphs_with_hyblas_and_scipy(smoke: tuple) -> None:
    _, doc, _ = smoke
    timed = {(r["graph"], r["op"], r["impl"]) for r in doc["rows"] if "median_ms" in r}
    for graph in ("kron10", "grid64"):
        for op in harness.OPS:
            assert (graph, op, "hyblas:reference") in timed, (graph, op)
        for op in (
            "spmv:plus_times",
            "bfs",
            "bfs16",
            "sssp",
            "pagerank20",
            "cc",
            "tc",
            "cdlp10",
            "lcc",
        ):
            assert (graph, op, "scipy") in timed, (graph, op)
    bfs = [
        r for r in doc["rows"] if r["op"] == "bfs" and r["graph"] == "grid64" and "median_ms" in r
    ]
    # the source is the first degree-4 vertex, (1, 1); the farthest is (63, 63): 124 steps
    assert bfs and all(r["levels"] == 125 for r in bfs)
    assert all(r["gteps"] > 0 for r in bfs)


def test_bfs16_reports_the_harmonic_mean_over_16_seeded_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bfs16`` runs next to ``bfs`` by default, for hyblas and every peer that has ``bfs``:
    a BFS from each of the graph's 16 seeded Graph500 sources, each checked against the first
    implementation's, and Graph500's harmonic mean of the per-source TEPS. hyblas's
    per-source times are faked here (1, 2, ... 16 ms): on a connected grid every source
    reaches all edges, so the mean is 16 * edges / (136 ms). (The peer's are its checked
    runs, on the wall clock.)"""
    assert harness.OPS.index("bfs16") == harness.OPS.index("bfs") + 1
    times = iter([float(ms) for ms in range(1, 17)])
    monkeypatch.setattr(harness, "cpu_samples_ms", lambda run, **_: [next(times)])
    status = harness.main(
        ["--graphs", "grid64", "--ops", "bfs16", "--backend", "cpu", "--peers", "scipy"]
        + ["--cpu-repeats", "1", "--out", str(tmp_path)]
    )
    (path,) = tmp_path.glob("*.json")
    rows = json.loads(path.read_text())["rows"]
    assert status == 0 and [r["impl"] for r in rows] == ["hyblas:reference", "scipy"], rows
    edges = 2 * 64 * 63  # undirected edges of a 64 x 64 grid
    hyblas, scipy = rows
    assert hyblas["sources"] == 16 and hyblas["median_ms"] == 8.5
    assert hyblas["gteps"] == pytest.approx(16 * edges / 0.136 / 1e9)
    assert scipy["sources"] == 16 and scipy["median_ms"] > 0
    # every search ran inside the 20 s run limit, so their mean rate is above edges / 20 s
    assert edges / 20.0 / 1e9 < scipy["gteps"] and scipy["repeats"] == 1
    sources = harness._graphs.build("grid64", "cpu").graph500_sources
    assert sources.size == 16 and np.unique(sources).size == 16
    again = harness._graphs.build("grid64", "cpu").graph500_sources
    assert np.array_equal(sources, again)  # seeded


def _rows(tmp_path: Path, *args: str) -> tuple[int, dict[tuple[str, str], dict[str, Any]]]:
    """A CPU run of the harness with ``args``: its exit status and its rows by (op, impl)."""
    status = harness.main([*args, "--backend", "cpu", "--out", str(tmp_path)])
    (path,) = tmp_path.glob("*.json")
    rows = json.loads(path.read_text())["rows"]
    return status, {(r["op"], r["impl"]): r for r in rows}


_BFS_AND_BFS16 = ("--graphs", "grid64", "--ops", "bfs,bfs16", "--peers", "scipy")


def test_a_cpu_implementation_times_each_source_of_bfs16_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the CPU, ``bfs16`` times each source's search once (Graph500's protocol: the 16
    sources are the repeats): hyblas in a timed run after its checked one, a peer in its
    checked run; the single-source ``bfs`` keeps ``--cpu-repeats``."""
    asked = []
    timer = harness.cpu_samples_ms

    def recording(run: Any, **timing: Any) -> list[float]:
        asked.append(timing["repeats"])
        return timer(run, **timing)

    monkeypatch.setattr(harness, "cpu_samples_ms", recording)
    status, rows = _rows(
        tmp_path, *_BFS_AND_BFS16, "--executors", "reference", "--cpu-repeats", "3"
    )
    assert status == 0 and len(rows) == 4, rows
    for impl in ("hyblas:reference", "scipy"):
        assert rows["bfs", impl]["repeats"] == 3 and rows["bfs16", impl]["repeats"] == 1
    # bfs: both implementations; then hyblas's 16 sources (scipy's are its checked runs)
    assert asked == [3, 3] + [1] * 16
    assert rows["bfs16", "scipy"]["median_ms"] > 0 and rows["bfs16", "scipy"]["sources"] == 16


def test_with_auto_in_the_run_bfs16_times_hyblas_as_users_run_it(tmp_path: Path) -> None:
    """With ``auto`` among the executors, ``bfs16`` times ``hyblas:auto`` (and the peers)
    only: the other executors' rows say where their searches are timed (the ``bfs`` row,
    which times them all). Without ``auto``, the named executors run it (the smoke run's
    reference executor)."""
    status, rows = _rows(
        tmp_path, *_BFS_AND_BFS16, "--executors", "reference,auto,sparse", "--cpu-repeats", "1"
    )
    assert status == 0, rows
    for executor in ("reference", "sparse"):
        assert "timed in the bfs row" in rows["bfs16", f"hyblas:{executor}"]["skipped"]
        assert rows["bfs", f"hyblas:{executor}"]["median_ms"] > 0
    for impl in ("hyblas:auto", "scipy"):
        assert rows["bfs16", impl]["sources"] == 16 and rows["bfs16", impl]["median_ms"] > 0


def test_a_peer_converts_the_graph_once_a_row_not_once_a_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bfs16`` prepares each peer once per source; the conversion of the whole graph that
    does not depend on the source is made once for the row, and each row (``bfs``, then
    ``bfs16``) makes its own."""
    made = []
    convert = scipy_peer._csgraph_input

    def counting(graph: Any) -> Any:
        made.append(graph.source)
        return convert(graph)

    monkeypatch.setattr(scipy_peer, "_csgraph_input", counting)
    status, rows = _rows(
        tmp_path, *_BFS_AND_BFS16, "--executors", "reference", "--cpu-repeats", "1"
    )
    assert status == 0 and rows["bfs16", "scipy"]["sources"] == 16, rows
    assert "median_ms" in rows["bfs16", "scipy"] and "error" not in rows["bfs16", "scipy"]
    assert len(made) == 2  # bfs's row, then bfs16's (from its first source)


def test_an_executor_that_runs_none_of_an_op_s_products_gets_no_timed_row(
    tmp_path: Path,
) -> None:
    """Triangle counting is matrix products only, which the dense executor hands to the
    reference one: its row is skipped with the reason, not timed as a copy of the reference
    row. CDLP's matrix products go to the reference executor too, but its vector products
    run on the dense one: that row is timed."""
    status, rows = _rows(
        tmp_path, "--graphs", "kron10", "--ops", "cdlp10,tc", "--peers", "", "--executors",
        "reference,dense", "--cpu-repeats", "1",
    )  # fmt: skip
    assert status == 0 and len(rows) == 4, rows
    assert "runs none of tc's products" in rows["tc", "hyblas:dense"]["skipped"]
    assert "median_ms" not in rows["tc", "hyblas:dense"]
    for timed in [("tc", "hyblas:reference"), ("cdlp10", "hyblas:reference")]:
        assert rows[timed]["median_ms"] > 0, rows[timed]
    assert rows["cdlp10", "hyblas:dense"]["median_ms"] > 0, rows["cdlp10", "hyblas:dense"]


@pytest.mark.parametrize(
    ("products", "none"),
    [(("mxm",), True), (("mxm", "mxv"), False), (("mxv",), False), ((), False)],
    ids=["mxm", "mxm-and-mxv", "mxv", "nothing"],
)
def test_own_products_tells_a_run_whose_products_all_went_elsewhere(
    products: tuple[str, ...], none: bool
) -> None:
    """The dense executor runs no mxm (the reference executor does, with a warning) and runs
    mxv: a run is "none of its own" only when it handed a product over and ran none."""
    A = hb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], nrows=3, ncols=3)
    u = hb.Vector.from_coo([0, 2], [1.0, 1.0], size=3)
    with harness.own_products("dense") as own:
        for product in products:
            if product == "mxm":
                hb.ops.mxm(A, A, "plus_times", executor="dense")
            else:
                hb.ops.mxv(A, u, "plus_times", executor="dense")
    assert own.none is none
    with harness.own_products("reference") as own:  # runs every product: nothing watched
        hb.ops.mxm(A, A, "plus_times", executor="reference")
    assert own.none is False


def test_cdlp_and_lcc_with_every_cpu_peer_and_two_executors(tmp_path: Path) -> None:
    """The two Graphalytics ops alone: hyblas's reference and auto executors and the CPU peers
    agree (every row timed, none failed), the peers checked against hyblas:reference."""
    status = harness.main(
        ["--graphs", "kron10", "--ops", "cdlp10,lcc", "--backend", "cpu"]
        + ["--executors", "reference,auto", "--cpu-repeats", "1", "--out", str(tmp_path)]
    )
    (path,) = tmp_path.glob("*.json")
    doc = json.loads(path.read_text())
    assert status == 0 and not [r for r in doc["rows"] if "error" in r], doc["rows"]
    timed = {(r["op"], r["impl"]) for r in doc["rows"] if "median_ms" in r}
    impls = ["hyblas:reference", "hyblas:auto", "scipy"]
    if "suitesparse" not in {p["impl"] for p in doc["unavailable_peers"]}:
        impls.append("suitesparse")
    assert timed == {(op, impl) for op in ("cdlp10", "lcc") for impl in impls}
    floors = {r["op"]: r.get("floor_ms") for r in doc["rows"]}
    assert floors == {"cdlp10": None, "lcc": None}  # no copy bandwidth on a CPU run


def test_mismatch_finds_differences_and_accepts_equal_results() -> None:
    assert harness.mismatch("bfs", np.array([0, 1, -1]), np.array([0, 1, -1])) is None
    assert "1 of 3" in harness.mismatch("bfs", np.array([0, 2, -1]), np.array([0, 1, -1]))
    assert harness.mismatch("sssp", np.array([0.0, np.inf]), np.array([0.0, 3.0]))
    assert (
        harness.mismatch("pagerank20", np.array([0.5, 0.5]), np.array([0.5, 0.5 + 1e-12])) is None
    )
    assert harness.mismatch("pagerank20", np.array([0.5, 0.5]), np.array([0.5, 0.51]))
    assert harness.mismatch("tc", 3, 4) and harness.mismatch("tc", 4, 4) is None
    # component labels may differ as long as the partition is the same
    assert harness.mismatch("cc", np.array([7, 7, 2]), np.array([0, 0, 2])) is None
    assert harness.mismatch("cc", np.array([7, 2, 2]), np.array([0, 0, 2]))
    # community labels are vertex ids: compared exactly, not as a partition
    assert harness.mismatch("cdlp10", np.array([0, 0, 2]), np.array([0, 0, 2])) is None
    why = harness.mismatch("cdlp10", np.array([0, 1, 5, 3]), np.array([0, 1, 2, 2]))
    assert why == "2 of 4 entries differ, first at vertex 2: 5, expected 2"
    why = harness.mismatch("lcc", np.array([0.5, 0.25, 0.1]), np.array([0.5, 0.2, 0.1]))
    assert why.endswith("first at vertex 1: 0.25, expected 0.2")
    assert harness.mismatch("lcc", np.array([0.0, 1 / 3]), np.array([0.0, 1 / 3 + 1e-9])) is None
    assert harness.mismatch("lcc", np.array([0.0, 1 / 3]), np.array([0.0, 0.34]))


def test_run_limit_stops_a_long_run() -> None:
    started = time.perf_counter()
    with pytest.raises(harness.RunLimitExceeded):
        with harness.run_limit(0.2):
            while True:
                time.sleep(0.01)
    assert time.perf_counter() - started < 2.0


def test_floor_counts_passes_over_the_entries() -> None:
    class G:
        n, nnz = 10, 100

    one = harness.floor_ms("bfs", G, 1.0)
    assert one == pytest.approx((8 * 100 + 4 * 11 + 8 * 10) / 1e12 * 1e3)
    assert harness.floor_ms("pagerank20", G, 1.0) == pytest.approx(20 * one)
    assert harness.floor_ms("cdlp10", G, 1.0) == pytest.approx(10 * one)
    assert harness.floor_ms("lcc", G, 1.0) == pytest.approx(one)
    assert harness.floor_ms("bfs", G, None) is None


def test_cpu_rows_have_no_device_memory_and_the_table_shows_gpu_peaks(smoke: tuple) -> None:
    """A CPU run measures no device memory; a GPU row's peak and its ratio to the CSR bytes
    are columns of the markdown table."""
    _, doc, _ = smoke
    assert not any("peak_gpu_GB" in row for row in doc["rows"])
    row = {"graph": "g", "op": "bfs", "impl": "hyblas:auto", "n": 4, "nnz": 8}
    gpu_doc = {
        **doc,
        "rows": [{**row, "median_ms": 1.0, "peak_gpu_GB": 1.25, "peak_over_csr": 2.5}],
    }
    table = markdown_table(gpu_doc)
    assert "| peak GB | × CSR |" in table
    assert "| 1.25 | 2.50 |" in table


@pytest.mark.gpu
def test_gpu_rows_report_the_peak_above_what_was_in_use(tmp_path: Path) -> None:
    if not hb.cuda_available():
        pytest.skip("CuPy or a usable GPU is not available")
    status = harness.main(
        [
            "--graphs",
            "kron10",
            "--ops",
            "bfs,pagerank20",
            "--executors",
            "reference,dense",
            "--peers",
            "cusparse",
            "--repeats",
            "3",
            "--out",
            str(tmp_path),
        ]
    )
    (path,) = tmp_path.glob("*.json")
    rows = [r for r in json.loads(path.read_text())["rows"] if "median_ms" in r]
    assert status == 0 and rows
    for r in rows:
        assert r["peak_gpu_GB"] >= 0 and r["peak_over_csr"] >= 0
    dense = [r for r in rows if r["impl"] == "hyblas:dense" and r["op"] == "pagerank20"]
    assert dense and dense[0]["peak_gpu_GB"] > 0  # its layout is built inside the row


def test_timed_runs_stop_at_the_time_budget_with_the_least_count() -> None:
    """As do_bench sizes its repeats by time: the samples stop once they add up to the budget
    and there are at least ``least``; without a budget, all ``repeats``."""
    slow = lambda: time.sleep(0.03)  # noqa: E731
    assert len(timing.cpu_samples_ms(slow, warmup=0, repeats=5)) == 5
    assert len(timing.cpu_samples_ms(slow, warmup=0, repeats=5, budget_s=0.01)) == 1
    assert len(timing.cpu_samples_ms(slow, warmup=0, repeats=5, budget_s=0.01, least=3)) == 3
    assert len(timing.cpu_samples_ms(slow, warmup=0, repeats=5, budget_s=0.07)) == 3
    assert len(timing.cpu_samples_ms(lambda: None, warmup=0, repeats=5, budget_s=0.07)) == 5


def test_a_row_of_slow_runs_is_timed_within_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The harness passes its budget: with a budget smaller than one run, a CPU row is
    timed once after its checked run, and says so."""
    monkeypatch.setattr(harness, "TIMED_BUDGET_S", 1e-9)
    status, rows = _rows(
        tmp_path, "--graphs", "grid64", "--ops", "bfs", "--peers", "scipy", "--cpu-repeats", "3"
    )
    assert status == 0 and rows
    assert all(row["repeats"] == 1 for row in rows.values()), rows
