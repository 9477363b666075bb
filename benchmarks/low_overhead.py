"""Low-overhead iteration: BFS, SSSP and connected components with the device loop, the same
rounds on the host, and the peers, in one run; each level's cost split into overhead and edge
work.

    python -m benchmarks.low_overhead [--out out/low_overhead.json]
                                      [--graphs grid2048,kron24,kron22]
                                      [--algorithms bfs,sssp,cc]
                                      [--peers cupyx-naive,suitesparse] [--repeats 5]
                                      [--skip hyblas:sparse,...] [--interleave 9]

Implementations (every result checked against the reference executor's):

* ``hyblas:auto``: the default, ``propagate`` with the device loop for narrow rounds;
* ``hyblas:auto-host-rounds``: the same with ``loop_params(device_loop=False)``: one ``vxm``
  per round chosen by the policy, a host check of the frontier each round (before this change);
* ``hyblas:sparse``: the sparse-frontier executor forced for every round, host rounds;
* SSSP only, ``hyblas:auto-plain-rounds``: ``sssp(delta=None)``, frontier Bellman-Ford
  without buckets, in the device loop (before the bucketed rounds);
* CC only, ``hyblas:fastsv-whole-graph``: FastSV on the whole graph without the BFS first
  (before this change);
* the peers (``benchmarks.peers``), timed as the harness times them.

The split: a path with as many levels as the run (one edge a level) is run the same way; its
time per level is the overhead of a level (barriers, launches, host checks), and the rest of
the run's time is edge work. For the device loop, the trace's ``loop`` rows give the time spent
inside the persistent kernel (setup included) and the rounds it ran.

``--interleave K`` then times ``hyblas:auto`` and ``hyblas:auto-host-rounds`` K more times
each, alternating, so that the two see the same GPU state (clocks, memory pool): the
comparison "not slower than before the device loop" is read from these medians.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import hyblas as hb
from hyblas.algorithms.components import _fastsv
from hyblas.algorithms.sssp import _bucket_width
from hyblas.backend import device_name, free_gpu_memory_pool
from hyblas.traversal import loop_params

from . import hyblas_ops
from .graphs import build as build_graph
from .graphs import describe
from .meta import commit_id, experiment_out
from .run import hyblas_impl, mismatch, peer_impl, peer_modules
from .timing import time_cpu_ms, time_gpu_ms

PEER_NAMES = {"cupyx-naive": "cupyx-naive", "suitesparse": "suitesparse"}


def _host_rounds(run: Callable[[], Any]) -> Callable[[], Any]:
    def wrapped() -> Any:
        with loop_params(device_loop=False):
            return run()

    return wrapped


def _path(levels: int, backend: str) -> hb.Matrix:
    """A directed path 0 -> 1 -> ... -> levels: a BFS from 0 has ``levels`` levels of one edge."""
    ids = np.arange(levels, dtype=np.int64)
    return hb.Matrix.from_coo(
        ids, ids + 1, 1.0, nrows=levels + 1, ncols=levels + 1, dtype=np.float32, backend=backend
    )


def _rounds(algorithm: str, graph: Any) -> int:
    """Rounds the algorithm's propagate runs (the last one finds nothing); for CC, its BFS's."""
    if algorithm == "sssp":
        dist = hb.Vector.from_coo(
            [graph.source], [0.0], size=graph.n, dtype=np.float32, backend=graph.A.backend
        )
        delta = _bucket_width(graph.weights, np.dtype(np.float32), "auto")
        return hb.ops.propagate(
            dist, dist.dup(), graph.weights, hb.semiring.min_plus[np.float32], delta=delta
        )
    levels = hb.algorithms.bfs(graph.A, _cc_seed(graph.A) if algorithm == "cc" else graph.source)
    return int(levels.reduce("max")) + 1


def _cc_seed(A: hb.Matrix) -> int:  # noqa: N803
    """The vertex connected_components starts its BFS from (A is symmetric here)."""
    degrees = np.diff(A.to_scipy().indptr)
    return int(np.flatnonzero(degrees == degrees.max())[0])


def _variants(algorithm: str, graph: Any, run: Callable[[], Any]) -> dict[str, Callable[[], Any]]:
    """hyblas:auto's comparison runs: the same without the device loop, and the before-runs."""
    out = {"hyblas:auto-host-rounds": _host_rounds(run)}
    if algorithm == "sssp":
        out["hyblas:auto-plain-rounds"] = lambda: hb.algorithms.sssp(
            graph.weights, graph.source, delta=None
        )
    if algorithm == "cc":

        def whole() -> Any:
            A = graph.A  # noqa: N806
            S = hb.ops.apply(
                hb.ops.ewise_add(A, hb.ops.transpose(A), "any"),  # noqa: N806
                hb.unary.one[np.bool_],
            )
            return _fastsv(S, "auto")

        out["hyblas:fastsv-whole-graph"] = whole
    return out


def _time(fn: Callable[[], Any], device: str, repeats: int, slow: bool = False) -> float:
    """Median of ``repeats`` after a warm-up; a warm run that took seconds (``slow``) is timed
    once more, the runs before it having been the warm-up."""
    if device == "gpu":
        return time_gpu_ms(fn, warmup=0 if slow else 1, repeats=1 if slow else repeats)
    return time_cpu_ms(fn, warmup=0, repeats=1 if slow else max(1, repeats // 3))


def measure(
    algorithm: str,
    graph: Any,
    backend: str,
    peers: list[Any],
    repeats: int,
    skip: frozenset[str] = frozenset(),
    interleave: int = 0,
) -> dict[str, Any]:
    impls = [hyblas_impl("auto", backend), hyblas_impl("sparse", backend)]
    expected = hyblas_ops.to_numpy(
        algorithm, hyblas_ops.OPS[algorithm](graph, "reference")(), graph
    )
    rows: dict[str, Any] = {}
    compared: dict[str, Callable[[], Any]] = {}
    for impl in [*impls, *[peer_impl(m) for m in peers]]:
        if not impl.ops(algorithm):
            continue
        runs = {impl.name: impl.prepare(algorithm, graph)}
        if impl.name == "hyblas:auto":
            runs.update(_variants(algorithm, graph, runs[impl.name]))
        for name, run in runs.items():
            if name in skip:
                continue
            why = mismatch(algorithm, impl.to_numpy(algorithm, run(), graph), expected)
            started = time.perf_counter()
            run()  # warm (the checked run compiled the kernels): is one run seconds long?
            ms = _time(run, impl.device, repeats, slow=time.perf_counter() - started > 2.0)
            rows[name] = {"ms": ms, "device": impl.device, "mismatch": why}
            if name in ("hyblas:auto", "hyblas:auto-host-rounds"):
                compared[name] = run
            print(
                graph.name, algorithm, name, round(ms, 3), why or "ok", file=sys.stderr, flush=True
            )
    rounds = _rounds(algorithm, graph)
    split = _split(algorithm, graph, rounds, rows, backend, repeats)
    out = {"algorithm": algorithm, "rounds": rounds, "impls": rows, "split": split}
    if interleave and compared:
        out["interleaved"] = _interleaved(compared, interleave, backend)
    return out


def _interleaved(runs: dict[str, Callable[[], Any]], times: int, backend: str) -> dict[str, Any]:
    """``times`` timed runs of each, alternating; medians and every run."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    device = "gpu" if backend == "cuda" else "cpu"
    for _ in range(times):
        for name, run in runs.items():
            samples[name].append(_time(run, device, 1, slow=True))
    return {
        name: {"median_ms": statistics.median(ms), "runs_ms": ms} for name, ms in samples.items()
    }


def _split(
    algorithm: str, graph: Any, rounds: int, rows: dict[str, Any], backend: str, repeats: int
) -> dict[str, Any]:
    """Per-level overhead from a path of as many levels, and the device loop's own time."""
    path = _path(rounds - 1, backend)
    out: dict[str, Any] = {}
    for name, wrap in (("hyblas:auto", lambda f: f), ("hyblas:auto-host-rounds", _host_rounds)):
        if name not in rows:
            continue
        if algorithm == "sssp":
            run = wrap(lambda: hb.algorithms.sssp(path, 0))
        else:  # cc: its BFS's levels
            run = wrap(lambda: hb.algorithms.bfs(path, 0))
        run()
        started = time.perf_counter()
        run()
        path_ms = _time(
            run,
            "gpu" if backend == "cuda" else "cpu",
            repeats,
            slow=time.perf_counter() - started > 2.0,
        )
        total = rows[name]["ms"]
        out[name] = {
            "total_ms": total,
            "per_level_us": 1e3 * total / rounds,
            "overhead_ms": path_ms,
            "overhead_per_level_us": 1e3 * path_ms / rounds,
            "edge_work_ms": max(total - path_ms, 0.0),
        }
    with hb.trace() as t:
        hyblas_ops.OPS[algorithm](graph, "auto")()
    loop_rows = [r for r in t if r.executor == "loop"]
    out["trace"] = {
        "device_loop_stays": len(loop_rows),
        "device_loop_ms": sum(r.time_ms for r in loop_rows),
        "device_loop_reasons": [r.reason for r in loop_rows],
        "host_rounds": sum(1 for r in t if r.executor != "loop"),
        "host_round_ms": sum(r.time_ms for r in t if r.executor != "loop"),
    }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", default="grid2048,kron24,kron22")
    parser.add_argument("--algorithms", default="bfs,sssp,cc")
    parser.add_argument("--peers", default="cupyx-naive,suitesparse")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--backend", default="cuda")
    parser.add_argument(
        "--skip",
        default="",
        help="implementations not to run (the slow "
        "host-round runs of a grid SSSP take a minute each)",
    )
    parser.add_argument(
        "--interleave",
        type=int,
        default=0,
        help="then time hyblas:auto and hyblas:auto-host-rounds this many times each, alternating",
    )
    parser.add_argument(
        "--out", help="the JSON written (default: $OUT/low_overhead.json, ./out without OUT)"
    )
    args = parser.parse_args(argv)
    out = experiment_out(args.out, "low_overhead")
    hb.set_backend(args.backend)
    skip = frozenset(name for name in args.skip.split(",") if name)
    peers = []
    for module in peer_modules(tuple(p for p in args.peers.split(",") if p)):
        if module.available() is None and (args.backend == "cuda" or module.DEVICE == "cpu"):
            peers.append(module)
    report: dict[str, Any] = {
        "device": device_name(),
        "date": datetime.date.today().isoformat(),
        "commit": commit_id(),
        "backend": args.backend,
        "peers": [m.NAME for m in peers],
        "skipped": sorted(skip),
        "graphs": [],
    }
    for name in args.graphs.split(","):
        graph = build_graph(name, args.backend)
        entry: dict[str, Any] = {**describe(graph), "algorithms": []}
        report["graphs"].append(entry)
        for algorithm in args.algorithms.split(","):
            entry["algorithms"].append(
                measure(algorithm, graph, args.backend, peers, args.repeats, skip, args.interleave)
            )
            out.write_text(json.dumps(report, indent=1, default=str))
        graph.release()
        free_gpu_memory_pool()
    print(table(report))
    return 0


def table(report: dict[str, Any]) -> str:
    lines = [f"{'graph':<9} {'algo':<5} {'rounds':>6} {'impl':<24} {'ms':>10} {'us/level':>9}"]
    for g in report["graphs"]:
        for a in g["algorithms"]:
            for impl, row in a["impls"].items():
                flag = "" if row["mismatch"] is None else f"  MISMATCH {row['mismatch']}"
                lines.append(
                    f"{g['graph']:<9} {a['algorithm']:<5} {a['rounds']:>6} {impl:<24} "
                    f"{row['ms']:>10.3f} {1e3 * row['ms'] / a['rounds']:>9.2f}{flag}"
                )
            for impl in ("hyblas:auto", "hyblas:auto-host-rounds"):
                if impl not in a["split"]:
                    continue
                s = a["split"][impl]
                lines.append(
                    f"{'':<9} {'':<5} {'':>6} {'  split ' + impl[7:]:<24} overhead "
                    f"{s['overhead_ms']:.3f} ms ({s['overhead_per_level_us']:.2f} "
                    f"us/level), edge work {s['edge_work_ms']:.3f} ms"
                )
            for impl, row in a.get("interleaved", {}).items():
                lines.append(
                    f"{'':<9} {'':<5} {'':>6} {'  alternating ' + impl[7:]:<24} "
                    f"median {row['median_ms']:.3f} ms of {len(row['runs_ms'])}"
                )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
