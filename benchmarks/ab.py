"""A/B in one process: a baseline tree's hyblas and this tree's on the same graphs, interleaved.

    python -m benchmarks.ab --baseline DIR [--graphs kron22,grid2048] [--ops ...]
        [--executors reference,auto,dense,sparse,pull] [--heavy-executors reference,auto]

``DIR`` holds an older tree's ``hyblas/`` (e.g. ``git archive <commit> hyblas | tar -x -C DIR``).
Its package is loaded beside this tree's as ``hyblas_base`` (the package imports itself only
relatively), so both run in one process on one set of graphs: the harness's graphs and inputs
(:mod:`benchmarks.graphs`, built once with this tree's package; the baseline's matrices share
their arrays) and the harness's operations (:mod:`benchmarks.hyblas_ops`, written for either
package: the algorithms get undirected Graphs, as there). Comparing two harness processes
mixes in what differs between processes (clocks, allocations, the policy's sampled
decisions); here each (graph, op, executor) runs the two sides one run each in turn, the order
alternating from pair to pair (a drift of the device's speed, which over a few milliseconds'
rows can exceed the difference sought, then weighs on both sides alike), and each side's time
is the median of its timed runs (CUDA events after the runs that settle the caches). Every
result is checked against the other side's before it is timed. ``tc``, ``msbfs`` and ``bc``,
whose matrix products run on the reference executor whatever the executor asked for, run with
``--heavy-executors`` only, and fewer runs.

Writes ``$OUT/ab.json`` (or ``./out``) and prints a table: baseline ms, current ms, their ratio,
``SLOWER`` where the current tree is more than ``--slower`` (3%) slower.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import hyblas as hb
from hyblas.backend import device_name, free_gpu_memory_pool, synchronize

from . import graphs as _graphs
from .meta import experiment_out
from .timing import time_cpu_ms, time_gpu_ms

LIGHT_OPS = ("spmv:plus_times", "spmv:min_plus", "spmv:lor_land", "bfs", "sssp", "pagerank20", "cc")
HEAVY_OPS = ("bc", "tc", "msbfs")


def load_baseline(tree: Path) -> types.ModuleType:
    """The package ``tree/hyblas`` imported as ``hyblas_base``."""
    folder = Path(tempfile.mkdtemp(prefix="hyblas-ab-"))
    shutil.copytree(tree / "hyblas", folder / "hyblas_base")
    sys.path.insert(0, str(folder))
    import hyblas_base  # noqa: PLC0415 - made importable just above

    return hyblas_base


def operation(pkg: types.ModuleType, op: str, graph: dict[str, Any], executor: str) -> Callable:
    """The harness's ``op`` (benchmarks.hyblas_ops) written with ``pkg``'s public names."""
    A, W, backend = graph["A"], graph["weights"], graph["backend"]  # noqa: N806
    if op.startswith("spmv:"):
        name = op.split(":")[1]
        if name == "lor_land":
            pattern = A.dup(dtype=bool)
            u = pkg.Vector.from_dense(graph["x_bool"], backend=backend)
            return lambda: pkg.ops.mxv(
                pattern, u, pkg.semiring.lor_land[np.bool_], executor=executor
            )
        u = pkg.Vector.from_dense(graph["x"], backend=backend)
        sr = pkg.semiring[name][np.float32]
        return lambda: pkg.ops.mxv(A, u, sr, executor=executor)
    alg = pkg.algorithms
    source = graph["source"]
    # as benchmarks.hyblas_ops passes them: undirected Graphs, told so (a bare Matrix is a
    # directed graph: connected components would symmetrize it, a BFS pull over a transpose
    # it builds, which the harness's rows never do)
    G = pkg.Graph(W if op == "sssp" else A, "undirected", check=False)  # noqa: N806
    return {
        "bfs": lambda: alg.bfs(G, source, executor=executor),
        "sssp": lambda: alg.sssp(G, source, executor=executor),
        "pagerank20": lambda: alg.pagerank(G, 0.85, iterations=20, executor=executor),
        "cc": lambda: alg.connected_components(G, executor=executor),
        "bc": lambda: alg.betweenness_centrality(
            G, sources=graph["bc_sources"], normalized=False, executor=executor
        ),
        "tc": lambda: alg.triangle_count(G, executor=executor),
        "msbfs": lambda: alg.multi_source_bfs(G, graph["msbfs_sources"], executor=executor),
    }[op]


def _dense(result: Any) -> np.ndarray:
    if np.isscalar(result) or isinstance(result, int | np.integer):
        return np.asarray(result)
    if hasattr(result, "to_dense"):
        return np.asarray(result.to_dense(fill_value=-1))
    return np.asarray(result)


def _same(a: Any, b: Any, op: str) -> bool:
    if op in ("bc", "pagerank20", "spmv:plus_times", "sssp"):
        return bool(np.allclose(_dense(a), _dense(b), rtol=1e-5, equal_nan=True))
    return bool(np.array_equal(_dense(a), _dense(b)))


def _cache_size(graph: dict[str, Any]) -> int:
    return sum(
        len(m.cache if hasattr(m, "cache") else m._cache) for m in (graph["A"], graph["weights"])
    )


def _timed(run: Callable, count: int, backend: str) -> list[float]:
    """Milliseconds of each of ``count`` runs (CUDA events on the GPU, wall clock on the CPU)."""
    one = time_gpu_ms if backend == "cuda" else time_cpu_ms
    return [one(run, warmup=0, repeats=1) for _ in range(count)]


def compare(
    sides: dict[str, Callable],
    graphs: dict[str, dict],
    op: str,
    *,
    repeats: int,
    settle: int,
    limit_s: float,
) -> dict[str, Any]:
    """Settle both sides, check they agree, then time ``2 * repeats`` runs of each, one of
    each side in turn, in alternating order."""
    results = {}
    backend = graphs["new"]["backend"]
    for side, run in sides.items():
        cached = _cache_size(graphs[side])
        for runs in range(settle):
            synchronize()
            started = time.perf_counter()
            results[side] = run()
            synchronize()
            if time.perf_counter() - started > limit_s:
                return {"skipped": f"{side}: a run takes over {limit_s:g} s"}
            before, cached = cached, _cache_size(graphs[side])
            if runs >= 1 and cached == before:
                break
    if not _same(results["base"], results["new"], op):
        return {"error": "the two trees disagree"}
    samples: dict[str, list[float]] = {"base": [], "new": []}
    for pair in range(2 * repeats):
        for side in ("base", "new") if pair % 2 == 0 else ("new", "base"):
            samples[side] += _timed(sides[side], 1, backend)
    base, new = statistics.median(samples["base"]), statistics.median(samples["new"])
    return {
        "base_ms": base,
        "new_ms": new,
        "ratio": new / base,
        "runs": len(samples["new"]),
        "base_samples": samples["base"],
        "new_samples": samples["new"],
    }


def _graph_for(pkg: types.ModuleType, bench: Any) -> dict[str, Any]:
    """The harness graph's matrices as ``pkg``'s Matrix objects (sharing the arrays)."""

    backend = bench.A.backend

    def matrix(m: hb.Matrix) -> Any:
        if pkg is hb:
            return m
        return pkg.Matrix(m.indptr, m.indices, m.values, m.shape, backend=backend)

    return {
        "A": matrix(bench.A),
        "weights": matrix(bench.weights),
        "source": bench.source,
        "backend": backend,
        "bc_sources": bench.bc_sources,
        "msbfs_sources": bench.msbfs_sources,
        "x": bench.x,
        "x_bool": bench.x_bool,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.ab",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--baseline", type=Path, required=True, help="a tree holding hyblas/")
    parser.add_argument("--graphs", default=",".join(_graphs.FULL_GRAPHS))
    parser.add_argument("--ops", default=",".join(LIGHT_OPS + HEAVY_OPS))
    parser.add_argument("--executors", default="reference,auto,dense,sparse,pull")
    parser.add_argument("--heavy-executors", default="reference,auto")
    parser.add_argument(
        "--repeats", type=int, default=5, help="each side is timed 2 x this many times"
    )
    parser.add_argument("--heavy-repeats", type=int, default=1)
    parser.add_argument("--settle", type=int, default=12, help="most untimed runs per side")
    parser.add_argument("--limit-s", type=float, default=10.0, help="skip slower runs")
    parser.add_argument("--slower", type=float, default=0.03)
    parser.add_argument("--backend", choices=("cpu", "cuda"), default="cuda")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    base = load_baseline(args.baseline)
    out = experiment_out(args.out, "ab")
    rows: list[dict[str, Any]] = []
    with hb.using_backend(args.backend), base.using_backend(args.backend):
        for name in args.graphs.split(","):
            bench = _graphs.build(name, args.backend)
            graphs = {"base": _graph_for(base, bench), "new": _graph_for(hb, bench)}
            for op in args.ops.split(","):
                heavy = op in HEAVY_OPS
                executors = (args.heavy_executors if heavy else args.executors).split(",")
                for executor in executors:
                    sides = {
                        side: operation(pkg, op, graphs[side], executor)
                        for side, pkg in (("base", base), ("new", hb))
                    }
                    row = {"graph": name, "op": op, "impl": f"hyblas:{executor}"}
                    try:
                        row |= compare(
                            sides,
                            graphs,
                            op,
                            repeats=args.heavy_repeats if heavy else args.repeats,
                            settle=2 if heavy else args.settle,
                            limit_s=args.limit_s,
                        )
                    except Exception as exc:  # e.g. out of memory: the other rows still run
                        row["error"] = f"{type(exc).__name__}: {exc}"
                        free_gpu_memory_pool()
                    rows.append(row)
                    print(_line(row, args.slower), flush=True)
                    out.write_text(json.dumps({"device": device_name(), "rows": rows}, indent=1))
            bench.release()
            del graphs, bench
            free_gpu_memory_pool()
    print("\n".join(_line(row, args.slower) for row in rows))
    slower = [r for r in rows if r.get("ratio", 0) > 1 + args.slower]
    print(f"{len(rows)} rows, {len(slower)} more than {args.slower:.0%} slower; wrote {out}")
    return 0


def _line(row: dict[str, Any], slower: float) -> str:
    head = f"{row['graph']:9} {row['op']:16} {row['impl']:17}"
    if "ratio" not in row:
        return f"{head} {row.get('skipped') or row.get('error')}"
    flag = "  SLOWER" if row["ratio"] > 1 + slower else ""
    return f"{head} {row['base_ms']:10.3f} {row['new_ms']:10.3f} {row['ratio']:6.3f}{flag}"


if __name__ == "__main__":
    sys.exit(main())
