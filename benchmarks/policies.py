"""Compare the executor policies per iteration: every single executor, the per-iteration oracle,
and the three policies of ``executor='auto'`` (sampling, beamer, density), same graphs, same run.

    python -m benchmarks.policies [--out out/policies.json] [--graphs kron22,kron24,grid2048]
                                  [--algorithms bfs,sssp] [--repeats 3]

For each graph and algorithm (BFS from the graph's source; SSSP from it with the benchmark's
random weights):

* each single executor (reference, dense, sparse, pull) runs every iteration: a warm-up run
  (layouts built; checked against the reference executor's result), a traced run (its
  per-iteration product times, CUDA events; after one traced run that is not kept, which
  compiles the counting variants of the kernels a trace uses), and its whole-run time (CUDA
  events, median of repeats);
* the oracle: per iteration the fastest single executor's product time, summed (MultiGraph's
  Table 2 "best possible time"), with the sequence of executors it picks, next to every run's
  summed product times (the same traced runs) and deciding times;
* each policy: its whole-run time the same way, its product times, its deciding overhead and
  the executors it chose per iteration.

Runs on the CPU too (``--backend cpu``), where the fast executors are their NumPy emulations.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from typing import Any

import hyblas as hb
from hyblas.backend import device_name, free_gpu_memory_pool, synchronize

from .graphs import build as build_graph
from .graphs import describe
from .meta import commit_id, experiment_out
from .timing import time_cpu_ms, time_gpu_ms

SINGLE = ("reference", "dense", "sparse", "pull")


def _run(algorithm: str, graph: Any, executor: str) -> hb.Vector:
    if algorithm == "bfs":
        return hb.algorithms.bfs(graph.A, graph.source, executor=executor)
    return hb.algorithms.sssp(graph.weights, graph.source, executor=executor)


def _same(algorithm: str, got: hb.Vector, want: hb.Vector) -> bool:
    return got.isequal(want) if algorithm == "bfs" else got.isclose(want, rel_tol=1e-5)


def measure(algorithm: str, graph: Any, backend: str, repeats: int) -> dict[str, Any]:
    want = _run(algorithm, graph, "reference")
    timer = time_gpu_ms if backend == "cuda" else time_cpu_ms
    runs: dict[str, Any] = {}
    for name in (*SINGLE, *hb.ops.hybrid.POLICIES):
        executor = name if name in SINGLE else "auto"
        policy = name if name not in SINGLE else hb.get_policy()
        with hb.policy(policy):
            started = time.perf_counter()
            got = _run(algorithm, graph, executor)  # warm-up: layouts built, kernels compiled
            synchronize()
            first_s = time.perf_counter() - started
            assert _same(algorithm, got, want), f"{algorithm} {name} differs from the reference"
            for _ in range(2):  # the first traced run compiles the kernels' counting variants
                with hb.trace() as t:
                    _run(algorithm, graph, executor)
            total = timer(lambda: _run(algorithm, graph, executor), warmup=0, repeats=repeats)  # noqa: B023
        runs[name] = {
            "total_ms": total,
            "first_run_s": first_s,
            "products_ms": [r.time_ms for r in t],
            "deciding_ms": [r.sampling_ms for r in t],
            "executors": [r.executor for r in t],
            "input_nnz": [r.input_nnz for r in t],
            "edges": [r.edges for r in t],
        }
    return {"algorithm": algorithm, **oracle_summary(runs)}


def oracle_summary(runs: dict[str, Any]) -> dict[str, Any]:
    """The per-iteration oracle (the fastest single executor's product time, per iteration,
    summed) next to each run's product times and whole-run times."""
    iterations = len(runs["reference"]["products_ms"])
    assert all(len(runs[s]["products_ms"]) == iterations for s in SINGLE)
    best = [min(SINGLE, key=lambda s: runs[s]["products_ms"][i]) for i in range(iterations)]  # noqa: B023
    oracle_products = sum(runs[s]["products_ms"][i] for i, s in enumerate(best))
    return {
        "iterations": iterations,
        "runs": runs,
        "oracle": {"products_ms": oracle_products, "executors": best},
        "best_single": min(SINGLE, key=lambda s: runs[s]["total_ms"]),
        "products_ms": {name: sum(run["products_ms"]) for name, run in runs.items()},
        "deciding_ms": {name: sum(run["deciding_ms"]) for name, run in runs.items()},
        "summary_ms": {name: run["total_ms"] for name, run in runs.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", default="kron22,kron24,grid2048")
    parser.add_argument("--algorithms", default="bfs,sssp")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--backend", default="cuda")
    parser.add_argument(
        "--out", help="the JSON written (default: $OUT/policies.json, ./out without OUT)"
    )
    args = parser.parse_args(argv)
    out = experiment_out(args.out, "policies")
    hb.set_backend(args.backend)
    report: dict[str, Any] = {
        "device": device_name(),
        "date": datetime.date.today().isoformat(),
        "commit": commit_id(),
        "backend": args.backend,
        "graphs": [],
    }
    for name in args.graphs.split(","):
        graph = build_graph(name, args.backend)
        entry: dict[str, Any] = {**describe(graph), "algorithms": []}
        for algorithm in args.algorithms.split(","):
            result = measure(algorithm, graph, args.backend, args.repeats)
            entry["algorithms"].append(result)
            report_line = {k: round(v, 3) for k, v in result["summary_ms"].items()}
            print(
                name,
                algorithm,
                result["iterations"],
                "iterations; oracle (products)",
                round(result["oracle"]["products_ms"], 3),
                report_line,
                file=sys.stderr,
                flush=True,
            )
        report["graphs"].append(entry)
        out.write_text(json.dumps(report, indent=1, default=str))
        graph.release()
        free_gpu_memory_pool()
    print(
        json.dumps(
            [
                {g["graph"]: [{a["algorithm"]: a["summary_ms"]} for a in g["algorithms"]]}
                for g in report["graphs"]
            ],
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
