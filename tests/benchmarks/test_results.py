"""benchmarks/results: one canonical set per GPU kind and the README generated from them; the
harness's --canonical run (refusals, the set it writes, --resume) and the kind naming."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks import meta, report
from benchmarks import run as harness
from benchmarks.meta import RESULTS_DIR, device_kind, experiment_out
from benchmarks.peers import scipy_peer

from .canonical import cpu_canonical_settings


def _row(graph: str, op: str, impl: str, ms: float | None = None, **extra: object) -> dict:
    row = {"graph": graph, "op": op, "impl": impl, "n": 10, "nnz": 40, **extra}
    return row if ms is None else {**row, "median_ms": ms}


def synthetic_doc(device: str = "NVIDIA H100 80GB HBM3") -> dict:
    """A canonical document as the harness writes it, with made-up numbers."""
    rows = [
        _row("kron22", "spmv:plus_times", "hyblas:reference", 1.2),
        _row("kron22", "spmv:plus_times", "hyblas:auto", 0.5),
        _row("kron22", "spmv:plus_times", "hyblas:dense", 0.47),
        _row("kron22", "spmv:plus_times", "cusparse", 1.0),
        _row("kron22", "spmv:plus_times", "scipy", 500.0),
        _row("grid2048", "spmv:plus_times", "hyblas:auto", error="differs from hyblas:reference"),
        _row("grid2048", "spmv:plus_times", "cusparse", 0.2),
        _row("kron22", "bfs", "hyblas:reference", 20.0),
        _row("kron22", "bfs", "hyblas:auto", 8.0),
        _row("kron22", "bfs", "cupyx-naive", 10.0),
        _row(
            "kron22", "bfs", "scipy", skipped="one run exceeds the 20 s limit", lower_bound_ms=2e4
        ),
        _row("grid2048", "sssp", "hyblas:reference", skipped="out of memory: OutOfMemory: x"),
        _row("grid2048", "sssp", "hyblas:auto", 3.0),
        _row("kron22", "tc", "hyblas:auto", 3.0),  # not a headline op
    ]
    return {
        "device": device,
        "kind": device_kind(device),
        "date": "2026-11-26",
        "commit": "0123456789abcdef",
        "copy_TBps": 2.95,
        "full": True,
        "canonical": True,
        "rows": rows,
        "graphs": [
            {"graph": "kron22", "n": 4194304, "nnz": 128305044, "build_s": 0.2},
            {"graph": "grid2048", "n": 4194304, "nnz": 16769024, "build_s": 0.1},
        ],
        "settings": {
            "graphs": ["kron22", "grid2048"],
            "peers": ["cusparse", "cupyx-naive", "suitesparse", "scipy"],
            "repeats": 5,
            "cpu_repeats": 3,
            "run_limit_s": 20.0,
        },
        "unavailable_peers": [],
    }


def test_device_kind_names_the_chip_and_its_form_factor() -> None:
    assert device_kind("NVIDIA H100 80GB HBM3") == "h100"
    assert device_kind("NVIDIA H200") == "h200"
    assert device_kind("NVIDIA H100 PCIe") == "h100-pcie"
    assert device_kind("NVIDIA H100 NVL") == "h100-nvl"
    assert device_kind("NVIDIA A100-SXM4-80GB") == "a100"
    assert device_kind("NVIDIA GeForce RTX 4090") == "rtx4090"
    assert device_kind("CPU (x86_64, 16 cores)") == "cpu"


def test_readme_headline_table_from_a_synthetic_document() -> None:
    text = report.readme({"h100": synthetic_doc()})
    assert "## h100: NVIDIA H100 80GB HBM3" in text
    assert "Run of 2026-11-26 at commit `0123456789`; device-to-device copy 2.95 TB/s" in text
    assert "[h100.md](h100.md)" in text and "Not a full run" not in text
    assert "**1 row failed**" in text
    lines = text.splitlines()
    # suitesparse has no row: no column; tc is no headline op
    assert "| op | graph | hyblas:auto | fastest hyblas | cusparse | cupyx-naive | scipy |" in lines
    assert (
        "| spmv:plus_times | kron22 | 0.500 | 0.470 (dense) | 1.00 (0.50×) |  | 500 (0.001×) |"
        in (lines)
    )
    assert "| spmv:plus_times | grid2048 | error | error | 0.200 |  |  |" in lines
    assert "| bfs | kron22 | 8.00 | 8.00 (auto) |  | 10.0 (0.80×) | > 20 s |" in lines
    assert "| sssp | grid2048 | 3.00 | 3.00 (auto) |  |  |  |" in lines
    assert not any(line.startswith("| tc |") for line in lines)
    # headline ops first, graphs in the run's order
    table = [
        line.split(" | ")[:2] for line in lines if line.startswith("| spmv") or "| bfs" in line
    ]
    assert table == [["| spmv:plus_times", "kron22"], ["| spmv:plus_times", "grid2048"]] + [
        ["| bfs", "kron22"]
    ]


def test_readme_is_deterministic() -> None:
    h100, h200 = synthetic_doc(), synthetic_doc("NVIDIA H200")
    shuffled = {**h100, "rows": h100["rows"][::-1]}
    first = report.readme({"h100": h100, "h200": h200})
    assert first == report.readme({"h200": h200, "h100": shuffled})
    assert first.index("## h100:") < first.index("## h200:")


def test_readme_flags_what_is_not_canonical() -> None:
    doc = {**synthetic_doc(), "full": False}
    text = report.readme({"h200": doc})
    assert "**Misnamed**: this is a h100 run." in text
    assert "**Not a full run**" in text


def test_readme_without_canonical_sets_says_so_and_shows_no_numbers(tmp_path: Path) -> None:
    path = report.write_readme(tmp_path)
    text = path.read_text()
    assert "No canonical result set yet" in text and "| op |" not in text
    assert "python -m benchmarks.report --readme" in text
    assert report.main(["--readme", "--check", "--results", str(tmp_path)]) == 0
    (tmp_path / "h100.json").write_text(json.dumps(synthetic_doc()))
    assert report.main(["--readme", "--check", "--results", str(tmp_path)]) == 1


def test_committed_results_hold_only_canonical_sets_and_their_readme() -> None:
    docs = report.canonical_docs(RESULTS_DIR)
    allowed = {"README.md"} | {f"{kind}.{ext}" for kind in docs for ext in ("json", "md", "png")}
    present = {path.name for path in RESULTS_DIR.iterdir()}
    assert present <= allowed, sorted(present - allowed)
    for kind, doc in docs.items():
        assert device_kind(doc["device"]) == kind
        assert doc["canonical"] and doc["full"], kind
        assert f"{kind}.md" in present
    assert (RESULTS_DIR / "README.md").read_text() == report.readme(docs), (
        "stale: python -m benchmarks.report --readme"
    )


@pytest.mark.parametrize(
    "narrowing",
    [
        ["--graphs", "kron10"],
        ["--ops", "bfs"],
        ["--executors", "auto"],
        ["--peers", ""],
        ["--smoke"],
    ],
)
def test_canonical_refuses_narrowing_options(narrowing: list[str], capsys) -> None:
    with pytest.raises(SystemExit):
        harness.main(["--canonical", *narrowing])
    assert "--canonical is the full run" in capsys.readouterr().err


def test_canonical_refuses_the_cpu_and_resume_needs_canonical(capsys) -> None:
    with pytest.raises(SystemExit):
        harness.main(["--canonical", "--backend", "cpu"])
    assert "needs a GPU" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        harness.main(["--resume", "--smoke"])


def test_no_output_into_the_results_folder(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    with pytest.raises(SystemExit):
        harness.main(["--smoke", "--out", str(RESULTS_DIR / "smoke")])
    with pytest.raises(SystemExit):
        experiment_out(str(RESULTS_DIR / "x.json"), "x")
    monkeypatch.setenv("OUT", str(tmp_path))
    assert experiment_out(None, "policies") == tmp_path / "policies.json"


def test_canonical_run_writes_the_set_and_resumes_what_was_cut(tmp_path: Path) -> None:
    # the CPU refusal is main's: run() itself writes a (narrowed, so not full) set on the CPU
    settings = cpu_canonical_settings(tmp_path, ("grid64",), ("bfs", "cc"))
    assert harness.run(settings) == 0
    assert {p.name for p in (tmp_path / "results").iterdir()} == {"cpu.json", "cpu.md", "cpu.png"}
    doc = json.loads((tmp_path / "results" / "cpu.json").read_text())
    assert doc["canonical"] and not doc["full"] and doc["kind"] == "cpu"
    assert doc["done"] == [["grid64", "bfs"], ["grid64", "cc"]]

    # cut short during cc, after its reference row: bfs's rows and that row are kept, the
    # rest of cc is measured
    staged = tmp_path / "out" / "canonical-cpu.json"
    bfs = [r for r in doc["rows"] if r["op"] == "bfs"]
    kept = _row("grid64", "cc", "hyblas:reference", 7.0)
    cut = {**doc, "done": [["grid64", "bfs"]], "graphs": []}
    cut["rows"] = [*bfs, kept]
    staged.write_text(json.dumps(cut))
    assert harness.run(settings, resume=True) == 0
    again = json.loads((tmp_path / "results" / "cpu.json").read_text())
    assert [r for r in again["rows"] if r["op"] == "bfs"] == bfs
    cc = [r for r in again["rows"] if r["op"] == "cc"]
    assert [r["impl"] for r in cc] == ["hyblas:reference", "scipy"]
    assert cc[0] == kept and cc[1]["median_ms"] > 0 and "error" not in cc[1]
    assert len(again["parts"]) == 2 and [g["graph"] for g in again["graphs"]] == ["grid64"]

    with pytest.raises(SystemExit, match="ops"):
        harness.run(harness.Settings(**{**vars(settings), "ops": ("bfs",)}), resume=True)


def test_a_resumed_group_checks_its_rows_against_its_kept_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept reference row's checked runs are run again (untimed), so a wrong result of
    a row measured after the resume is still caught."""
    settings = cpu_canonical_settings(tmp_path, ("grid64",), ("cc",))
    assert harness.run(settings) == 0
    staged = tmp_path / "out" / "canonical-cpu.json"
    doc = json.loads(staged.read_text())
    kept = [r for r in doc["rows"] if r["impl"] == "hyblas:reference"]
    staged.write_text(json.dumps({**doc, "done": [], "rows": kept, "graphs": []}))
    # every vertex a component of its own: grid64 is connected
    monkeypatch.setitem(scipy_peer.OPS, "cc", lambda graph: lambda: np.arange(graph.n))
    assert harness.run(settings, resume=True) == 1
    rows = json.loads(staged.read_text())["rows"]
    assert rows[0] == kept[0]
    assert rows[1]["impl"] == "scipy" and "differs from hyblas:reference" in rows[1]["error"]


def test_the_commit_says_when_the_measured_files_are_not_the_commits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tree whose tracked files differ from HEAD (the GPU machine's copy, whose .git can be
    older than its files) is recorded as HEAD+dirty; HYBLAS_COMMIT, where set, is taken as is."""
    answers = {
        ("rev-parse", "HEAD"): "abc123",
        ("status", "--porcelain", "--untracked-files=no"): "",
    }
    monkeypatch.delenv("HYBLAS_COMMIT", raising=False)
    monkeypatch.setattr(meta, "_git", lambda *args: answers[args])
    assert meta.commit_id() == "abc123"
    answers[("status", "--porcelain", "--untracked-files=no")] = " M hyblas/graph.py"
    assert meta.commit_id() == "abc123+dirty"
    monkeypatch.setenv("HYBLAS_COMMIT", "def456")
    assert meta.commit_id() == "def456"
