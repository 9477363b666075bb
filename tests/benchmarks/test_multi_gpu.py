"""The several-GPU benchmark (``benchmarks/multi_gpu.py``) end to end on the CPU: 1 and 2
processes under the MPI launcher on a small Kronecker graph, then the report: every row
present, the speedup of one process over itself 1, bytes moved by two processes and none by
one, and the table written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import multi_gpu
from benchmarks.hyblas_ops import SETTLE_RUNS

from ..distributed import spmd

ARGS = ["--scale", "8", "--edge-factor", "4", "--repeats", "1", "--sources", "2"]


def test_runs_on_one_and_two_processes_and_reports(tmp_path: Path) -> None:
    for nprocs in (1, 2):
        spmd.run(
            nprocs, "benchmarks.multi_gpu", "run", "--backend", "cpu", "--out", str(tmp_path),
            *ARGS,
        )  # fmt: skip
    doc = multi_gpu.report(tmp_path)
    rows = {(r["algorithm"], r["nprocs"]): r for r in doc["rows"]}
    assert set(rows) == {
        ("pagerank-20", 1), ("pagerank-20", 2), ("bfs", 1), ("bfs", 2),
        ("pagerank-20 (hb.algorithms)", 1), ("bfs (hb.algorithms)", 1),
    }  # fmt: skip
    assert rows[("pagerank-20", 1)]["speedup"] == pytest.approx(1.0)
    assert rows[("pagerank-20", 1)]["bytes_per_iteration"] == 0
    two = rows[("pagerank-20", 2)]
    assert two["bytes_per_iteration"] > 0 and two["predicted_bytes_per_iteration"] > 0
    assert two["speedup_over_single"] > 0 and two["gteps"] > 0
    # every product of PageRank (the out-weights', the iterations') gathers full slots: on
    # a p x 1 grid over the symmetric Kronecker graph they are mxv
    assert two["encodings"] == ["dense"]
    assert doc["agreement"]["bfs_identical"]
    assert doc["agreement"]["pagerank_max_rel_diff"] < 1e-5  # float32 sums in another order
    saved = json.loads((tmp_path / "multi-gpu.json").read_text())
    assert saved["rows"] == json.loads(json.dumps(doc["rows"]))
    assert "BFS levels identical" in (tmp_path / "multi-gpu.md").read_text()
    assert doc["symmetric"] and "marked symmetric" in (tmp_path / "multi-gpu.md").read_text()
    table = (tmp_path / "multi-gpu.md").read_text()
    assert "| pagerank-20 | 2 | 2x1 |" in table
    for nprocs in (1, 2):  # the untimed runs before the timed ones: PageRank's, each source's
        settled = json.loads((tmp_path / f"p{nprocs}.json").read_text())["settle_runs"]
        assert len(settled) == 1 + 2 and "pagerank" in settled
        assert all(1 <= runs <= SETTLE_RUNS for runs in settled.values())


def test_agreement_sees_a_difference() -> None:
    one = {"results": {"pagerank": {"sum": 1.0, "vertices": [0], "values": [0.5]},
                       "bfs 3": {"sha256": "a"}}}  # fmt: skip
    two = {"results": {"pagerank": {"sum": 1.0, "vertices": [0], "values": [0.75]},
                       "bfs 3": {"sha256": "b"}}}  # fmt: skip
    found = multi_gpu.agreement([one, two])
    assert found == {"bfs_identical": False, "pagerank_max_rel_diff": 0.5}


def test_report_of_a_folder_without_runs_stops(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no p"):
        multi_gpu.main(["report", str(tmp_path)])
