"""Measure the sparse-frontier executor on the GPU: BFS with it on every level, and one SpMSpV
from a 1%-of-vertices random frontier against cuSPARSE's full SpMV, same graphs, same run.

    python -m benchmarks.sparse_frontier [--out out/sparse_frontier.json] [--graphs kron24,grid2048]

For each graph:

* the layout's build time (a second build: the first, ``build_cold_s``, includes CuPy's
  kernel compiles on a fresh machine) and memory next to the CSR bytes;
* BFS from the graph's source with ``executor='sparse'`` (CUDA events, median of repeats, after
  a warm-up run checked against the reference executor's levels): as it runs by default, in
  graph rounds (:mod:`hyblas.traversal.graph_rounds`), and in host rounds (``graph_rounds=0``, one
  ``vxm`` a level); the reference executor's BFS and the cupyx-naive peer's BFS timed the
  same way in the same run;
* one instrumented BFS run in graph rounds: per launch of the rounds' graph, its rounds (with
  their frontier sizes and edges), the GPU time of the launch and the host time from the
  launch to the state read back (the one host synchronisation of a launch);
* one instrumented BFS run in host rounds: per level the frontier size, the edges its
  vertices have, the level's wall time, and where it went — the executor's kernels (GPU time
  of the push and spreading kernels, and of the finish), the sync gap (from the finish's end
  to the call's end: the host, which the finish gave the output count as it began, builds
  the result and sorts a list result), and the rest (launches, CuPy array operations,
  Python);
* one ``mxv`` plus_times float32 from a random frontier of 1% of the vertices, checked against
  a float64 product on the host, timed against cuSPARSE ``A @ x`` on the full vector, with the
  walk's kernel time and the frontier's edge count.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time
from typing import Any

import numpy as np

import hyblas as hb
from hyblas.backend import device_name, free_gpu_memory_pool, synchronize, to_numpy, xp_for
from hyblas.executors.sparse import DEFAULT_PARAMS, sparse_params
from hyblas.executors.sparse.executor import kernel_timing
from hyblas.executors.sparse.layout import build_layout
from hyblas.traversal.graph_rounds import launch_timing

from .graphs import build as build_graph
from .graphs import describe
from .meta import commit_id, experiment_out
from .mxv_reference import relative_error
from .peers import cupyx_naive
from .timing import time_gpu_ms

ANY_PAIR = hb.semiring["any_pair"][np.bool_]


def bfs_levels_instrumented(A: hb.Matrix, source: int, degrees: np.ndarray) -> list[dict]:
    """hyblas.algorithms.bfs's loop, with each level timed and its frontier described."""
    n = A.nrows
    levels = hb.Vector.new(np.int64, n, backend="cuda")
    frontier = hb.Vector.from_coo([source], [True], size=n, dtype=bool, backend="cuda")
    rows: list[dict] = []
    depth = 0
    synchronize()
    while frontier.nnz:
        with kernel_timing() as calls:
            start = time.perf_counter()
            hb.ops.assign(levels, depth, None, mask=frontier.S)
            following = hb.ops.vxm(
                frontier, A, ANY_PAIR, mask=~levels.S, replace=True, executor="sparse"
            )
            synchronize()
            wall_ms = (time.perf_counter() - start) * 1e3
        active = to_numpy(frontier.as_sparse()[0])
        call = calls[0] if calls else {"walk_ms": 0.0, "sync_gap_ms": 0.0, "finish_ms": 0.0}
        rows.append(
            {
                "level": depth,
                "frontier": int(active.size),
                "edges": int(degrees[active].sum()),
                "found": following.nnz,
                "wall_ms": wall_ms,
                **call,
                "rest_ms": wall_ms - call["walk_ms"] - call["sync_gap_ms"] - call["finish_ms"],
            }
        )
        frontier = following
        depth += 1
    return rows


def bfs_launches_instrumented(
    A: hb.Matrix,
    source: int,
    degrees: np.ndarray,  # noqa: N803
    levels: np.ndarray,
) -> dict[str, Any]:
    """One BFS in graph rounds, each launch of the rounds' graph timed; a round's frontier
    (size and edges) is read from the BFS's levels (``-1``: not reached)."""
    reached = levels >= 0
    per_level = np.bincount(levels[reached], minlength=int(levels.max()) + 2)
    edges = np.bincount(levels[reached], weights=degrees[reached], minlength=per_level.size)
    synchronize()
    start = time.perf_counter()
    with launch_timing() as launches:
        hb.algorithms.bfs(A, source, executor="sparse")
        synchronize()
        wall_ms = (time.perf_counter() - start) * 1e3
    for row in launches:  # round r's frontier: the vertices of level r - 1
        first = row["first_round"] - 1
        row["frontiers"] = per_level[first : first + row["rounds"]].tolist()
        row["edges"] = [int(e) for e in edges[first : first + row["rounds"]]]
    rounds = sum(r["rounds"] for r in launches)
    launch_wall = sum(r["wall_ms"] for r in launches)
    return {
        "wall_ms": wall_ms,
        "launches": len(launches),
        "rounds": rounds,
        "gpu_ms": sum(r["gpu_ms"] for r in launches),
        "launch_wall_ms": launch_wall,
        "outside_launches_ms": wall_ms - launch_wall,
        "ms_per_round": wall_ms / rounds,
        "per_launch": launches,
    }


def random_frontier(
    A: hb.Matrix, fraction: float = 0.01, seed: int = 5, backend: str = "cuda"
) -> tuple[np.ndarray, np.ndarray, hb.Vector]:
    """A frontier of ``fraction`` of ``A``'s columns at random (sorted ids), float32 values in
    [1, 2): (ids, values, the vector on ``backend``)."""
    rng = np.random.default_rng(seed)
    keep = np.sort(rng.choice(A.ncols, int(A.ncols * fraction), replace=False))
    values = rng.uniform(1, 2, keep.size).astype(np.float32)
    return keep, values, hb.Vector.from_coo(keep, values, size=A.ncols, backend=backend)


def measure_graph(name: str, repeats: int) -> dict[str, Any]:
    graph = build_graph(name, "cuda")
    A = graph.A
    xp = xp_for("cuda")
    csr = A.to_cupyx()
    csr_bytes = int(csr.data.nbytes + csr.indices.nbytes + csr.indptr.nbytes)
    result: dict[str, Any] = {**describe(graph), "csr_bytes": csr_bytes}
    # the layout of Aᵀ (vxm's edge matrix: BFS pushes along rows of A); A is symmetric here.
    # Built twice: the first build on a machine includes CuPy's kernel compiles (build_cold_s)
    build_s = []
    for _ in range(2):
        synchronize()
        start = time.perf_counter()
        layout = build_layout(A.T, DEFAULT_PARAMS)
        synchronize()
        build_s.append(time.perf_counter() - start)
        stats = {**layout.stats(), "layout_vs_csr": layout.nbytes() / csr_bytes}
        del layout
        free_gpu_memory_pool()
    result["layout"] = {**stats, "build_s": build_s[1], "build_cold_s": build_s[0]}

    want = hb.algorithms.bfs(A, graph.source, executor="reference")
    got = hb.algorithms.bfs(A, graph.source, executor="sparse")
    assert got.isequal(want), "sparse BFS levels differ from the reference executor's"
    peer = cupyx_naive.OPS["bfs"](graph.peer_graph())
    peer_levels = to_numpy(peer())
    assert (peer_levels >= 0).sum() == want.nnz
    with sparse_params(graph_rounds=0):
        host_rounds = hb.algorithms.bfs(A, graph.source, executor="sparse")
        assert host_rounds.isequal(want), "sparse BFS levels (host rounds) differ"
        host_rounds_ms = time_gpu_ms(
            lambda: hb.algorithms.bfs(A, graph.source, executor="sparse"), warmup=0, repeats=repeats
        )
    result["bfs_ms"] = {
        "hyblas:sparse": time_gpu_ms(
            lambda: hb.algorithms.bfs(A, graph.source, executor="sparse"), warmup=1, repeats=repeats
        ),
        "hyblas:sparse-host-rounds": host_rounds_ms,
        "hyblas:reference": time_gpu_ms(
            lambda: hb.algorithms.bfs(A, graph.source, executor="reference"),
            warmup=1,
            repeats=repeats,
        ),
        "cupyx-naive": time_gpu_ms(peer, warmup=1, repeats=repeats),
    }
    result["bfs_levels"] = int(to_numpy(want.as_sparse()[1]).max()) + 1
    levels = to_numpy(want.to_dense(fill_value=-1)).astype(np.int64)
    result["bfs_graph_rounds"] = bfs_launches_instrumented(A, graph.source, graph.degrees, levels)
    with sparse_params(graph_rounds=0):
        result["bfs_per_level"] = bfs_levels_instrumented(A, graph.source, graph.degrees)
    totals = {
        k: sum(r[k] for r in result["bfs_per_level"])
        for k in ("wall_ms", "walk_ms", "sync_gap_ms", "finish_ms", "rest_ms")
    }
    result["bfs_instrumented_totals_ms"] = totals

    # one SpMSpV from a random 1% frontier, plus_times float32, against cuSPARSE's full SpMV
    keep, values, u = random_frontier(A)
    rng = np.random.default_rng(6)
    host = csr.get().astype(np.float64)
    x64 = np.zeros(A.ncols)
    x64[keep] = values
    reached = host @ (x64 != 0).astype(np.float64) > 0  # A's values are all 1
    ref = np.where(reached, host @ x64, np.nan)
    fn = lambda: hb.ops.mxv(A, u, "plus_times", executor="sparse")  # noqa: E731
    err = relative_error(fn().to_dense(fill_value=np.nan), ref)
    assert err < 1e-4, err
    x_full = xp.asarray(rng.uniform(1, 2, A.ncols).astype(np.float32))
    cusparse_ms = time_gpu_ms(lambda: csr @ x_full, repeats=repeats)
    sparse_ms = time_gpu_ms(fn, repeats=repeats)
    reference_ms = time_gpu_ms(
        lambda: hb.ops.mxv(A, u, "plus_times", executor="reference"), repeats=repeats
    )
    with kernel_timing() as calls:
        for _ in range(repeats):
            fn()
    result["spmspv_1pct"] = {
        "frontier": int(keep.size),
        "edges": int(graph.degrees[keep].sum()),
        "outputs": int(reached.sum()),
        "rel_err": err,
        "hyblas:sparse_ms": sparse_ms,
        "hyblas:reference_ms": reference_ms,
        "cusparse_full_spmv_ms": cusparse_ms,
        "vs_cusparse_full": sparse_ms / cusparse_ms,
        "walk_ms": statistics.median(c["walk_ms"] for c in calls),
        "sync_gap_ms": statistics.median(c["sync_gap_ms"] for c in calls),
        "finish_ms": statistics.median(c["finish_ms"] for c in calls),
    }
    graph.release()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", default="kron24,grid2048")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--out", help="the JSON written (default: $OUT/sparse_frontier.json, ./out without OUT)"
    )
    args = parser.parse_args(argv)
    out = experiment_out(args.out, "sparse_frontier")
    report: dict[str, Any] = {
        "device": device_name(),
        "date": datetime.date.today().isoformat(),
        "commit": commit_id(),
        "params": DEFAULT_PARAMS.__dict__,
        "graphs": [],
    }
    for name in args.graphs.split(","):
        report["graphs"].append(measure_graph(name, args.repeats))
        out.write_text(json.dumps(report, indent=1, default=str))
        free_gpu_memory_pool()
        summary = {k: v for k, v in report["graphs"][-1].items() if k != "bfs_per_level"}
        summary["bfs_graph_rounds"] = {
            k: v for k, v in summary["bfs_graph_rounds"].items() if k != "per_launch"
        }
        print(json.dumps(summary, indent=1, default=str), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
