"""Tune the sparse executor's kernel parameters on the GPU: BFS with it on every level, one
SpMSpV from a 1% random frontier and one from a frontier of hubs' neighbours, for each
parameter set of a small grid, same graph, same run.

    python -m benchmarks.sparse_tuning [--out out/sparse_tuning.json] [--graph kron24]
                                       [--repeats 5]

The grid varies what shapes the kernels, not the layout: ``segment`` (outputs a block
accumulates in shared memory at once: its shared memory also bounds the blocks an SM holds),
``segment_min_edges`` (when a block walks shared-memory segments), ``reach`` (when an input
is spread over many blocks) and ``spread_blocks``. The second SpMSpV starts from the source's
neighbours (BFS level 1), a frontier biased to high degrees, where blocks do walk segments.
Each BFS is checked against the reference executor's levels, and each SpMSpV against the
reference executor's product, before it is timed (CUDA events, median of repeats); the 1%
SpMSpV is also split into the walk (claims, push and spreading kernels) and the finish
(:func:`hyblas.executors.sparse.executor.kernel_timing`).
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
from typing import Any

import numpy as np

import hyblas as hb
from hyblas.backend import device_name, to_numpy
from hyblas.executors.sparse import DEFAULT_PARAMS, sparse_params
from hyblas.executors.sparse.executor import kernel_timing

from .graphs import build as build_graph
from .meta import commit_id, experiment_out
from .sparse_frontier import random_frontier
from .timing import time_gpu_ms

# (segment, segment_min_edges, reach, spread_blocks)
GRID = [
    (8192, 8192, 4096, 1056),
    (4096, 8192, 4096, 1056),
    (2048, 8192, 4096, 1056),
    (1024, 8192, 4096, 1056),
    (2048, 2048, 4096, 1056),
    (2048, 32768, 4096, 1056),
    (2048, 10**9, 4096, 1056),
    (2048, 8192, 2048, 1056),
    (2048, 8192, 16384, 1056),
    (2048, 8192, 4096, 528),
]


def measure(A: hb.Matrix, source: int, repeats: int) -> list[dict[str, Any]]:  # noqa: N803
    want_levels = hb.algorithms.bfs(A, source, executor="reference")
    _, _, u = random_frontier(A)
    want = hb.ops.mxv(A, u, "plus_times", executor="reference")
    hubs = hub_frontier(want_levels)
    want_hubs = hb.ops.mxv(A, hubs, "plus_times", executor="reference")
    rows = []
    for segment, segment_min_edges, reach, spread_blocks in GRID:
        changes = {
            "segment": segment,
            "segment_min_edges": segment_min_edges,
            "reach": reach,
            "spread_blocks": spread_blocks,
        }
        with sparse_params(**changes):
            assert hb.algorithms.bfs(A, source, executor="sparse").isequal(want_levels)
            bfs_ms = time_gpu_ms(
                lambda: hb.algorithms.bfs(A, source, executor="sparse"), warmup=1, repeats=repeats
            )

            def product() -> hb.Vector:
                return hb.ops.mxv(A, u, "plus_times", executor="sparse")

            assert product().isclose(want, rel_tol=1e-4)
            spmspv_ms = time_gpu_ms(product, repeats=4 * repeats)
            with kernel_timing() as calls:
                for _ in range(repeats):
                    product()

            def hubs_product() -> hb.Vector:
                return hb.ops.mxv(A, hubs, "plus_times", executor="sparse")

            assert hubs_product().isclose(want_hubs, rel_tol=1e-4)
            hubs_ms = time_gpu_ms(hubs_product, warmup=1, repeats=repeats)
        row = {
            **changes,
            "bfs_ms": bfs_ms,
            "spmspv_1pct_ms": spmspv_ms,
            "spmspv_hubs_ms": hubs_ms,
            "hubs_frontier": hubs.nnz,
            "spmspv_walk_ms": statistics.median(c["walk_ms"] for c in calls),
            "spmspv_finish_ms": statistics.median(c["finish_ms"] for c in calls),
        }
        print(json.dumps(row), file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def hub_frontier(levels: hb.Vector) -> hb.Vector:
    """The BFS's level-1 vertices (the source's neighbours), float32 values in [1, 2)."""
    ids, depth = (to_numpy(a) for a in levels.as_sparse())
    keep = ids[depth == 1]
    values = np.random.default_rng(7).uniform(1, 2, int(keep.size)).astype(np.float32)
    return hb.Vector.from_coo(keep, values, size=levels.size, backend="cuda")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", default="kron24")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--out", help="the JSON written (default: $OUT/sparse_tuning.json, ./out without OUT)"
    )
    args = parser.parse_args(argv)
    out = experiment_out(args.out, "sparse_tuning")
    graph = build_graph(args.graph, "cuda")
    report = {
        "device": device_name(),
        "date": datetime.date.today().isoformat(),
        "commit": commit_id(),
        "graph": args.graph,
        "defaults": DEFAULT_PARAMS.__dict__,
        "grid": measure(graph.A, graph.source, args.repeats),
    }
    out.write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
