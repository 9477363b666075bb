"""benchmarks.ab: the in-process A/B of a baseline tree against this one."""

from __future__ import annotations

import json
import types
from pathlib import Path

import hyblas as hb
from benchmarks import ab
from benchmarks.graphs import build

REPO = Path(__file__).resolve().parents[2]


def test_the_algorithms_get_undirected_graphs_as_in_the_harness() -> None:
    """benchmarks.hyblas_ops passes each algorithm an undirected Graph; a bare Matrix would be
    a directed graph (connected components symmetrizing it, a BFS pull over its transpose)."""
    bench = build("kron10", "cpu")
    graph = ab._graph_for(hb, bench)
    seen: list[object] = []

    def record(G: object, *args: object, **kwargs: object) -> object:  # noqa: N803
        seen.append(G)
        return G

    algorithms = types.SimpleNamespace(
        bfs=record,
        sssp=record,
        pagerank=record,
        connected_components=record,
        betweenness_centrality=record,
        triangle_count=record,
        multi_source_bfs=record,
    )
    pkg = types.SimpleNamespace(Graph=hb.Graph, algorithms=algorithms)
    for op in ("bfs", "sssp", "pagerank20", "cc", "bc", "tc", "msbfs"):
        ab.operation(pkg, op, graph, "auto")()
    assert len(seen) == 7
    for op, G in zip(("bfs", "sssp", "pagerank20", "cc", "bc", "tc", "msbfs"), seen):  # noqa: N806
        assert isinstance(G, hb.Graph) and not G.is_directed, op
        assert G.A is (bench.weights if op == "sssp" else bench.A), op


def test_a_run_against_this_tree_itself_finds_the_same_results(tmp_path: Path) -> None:
    """End to end on the CPU, this tree as its own baseline: every row is timed (the results
    agree), each side as often as asked, and the ratios are finite."""
    out = tmp_path / "ab.json"
    argv = ["--baseline", str(REPO), "--backend", "cpu", "--graphs", "kron10"]
    argv += ["--ops", "bfs,sssp,cc", "--executors", "auto", "--repeats", "2", "--settle", "2"]
    assert ab.main([*argv, "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["graph"], r["op"], r["impl"]) for r in rows] == [
        ("kron10", op, "hyblas:auto") for op in ("bfs", "sssp", "cc")
    ]
    for row in rows:
        assert "error" not in row and "skipped" not in row, row
        assert len(row["base_samples"]) == len(row["new_samples"]) == 4
        assert 0 < row["base_ms"] and 0 < row["new_ms"] and row["ratio"] > 0
