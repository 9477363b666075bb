"""Tune and measure the dense executor's SpMV against cuSPARSE on the same graphs, same run.

    python -m benchmarks.dense_tuning [--out out/dense_tuning.json] [--graphs kron22,grid2048]
                                      [--grid quick]

For each graph: cuSPARSE (cupyx ``A @ x``) on float32; then, for every parameter set of the
grid, the layout build time (``build_s``: a second build; ``build_cold_s``: the first, which on
a fresh machine includes compiling CuPy's kernels) and memory and the plus_times float32 SpMV
time; then, with the
best set (and the defaults), min_plus float32 and lor_land bool. Each result is checked against
a float64 reference before it is timed. ``kron24-random`` is kron24 under a further random
vertex permutation (the generator's numbering vs a random one). The modelled bytes moved per
stored entry and the fraction of the copy-bandwidth floor come from the layout's sizes.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import itertools
import json
import sys
import time
from typing import Any

import numpy as np

import hyblas as hb
from hyblas.backend import device_name, free_gpu_memory_pool, synchronize, xp_for
from hyblas.device import arrays as prim
from hyblas.executors.dense import DEFAULT_PARAMS, DenseParams, dense_params
from hyblas.executors.dense.layout import DenseLayout, build_layout

from .graphs import build as build_graph
from .meta import commit_id, experiment_out
from .mxv_reference import relative_error
from .timing import copy_bandwidth_tbps, time_gpu_ms

GRIDS = {
    "quick": [DEFAULT_PARAMS],
    "full": [
        dataclasses.replace(
            DEFAULT_PARAMS,
            column_panel=w,
            row_panel=h,
            heavy_threshold=t,
            heavy_threads=k,
            reorder=r,
        )
        for w, h, t, k, r in itertools.product(
            (8192, 16384, 32767), (4096, 8192), (256, 2048, 8192), (256, 512), ("auto",)
        )
    ],
    # the H100 follow-up: three blocks per multiprocessor fit below 16384-input panels
    "h100": [
        dataclasses.replace(
            DEFAULT_PARAMS, column_panel=w, row_panel=h, heavy_threshold=t, reduce_chunk_slots=c
        )
        for w, h, t, c in itertools.product(
            (16384, 14336, 12288), (4096, 2048), (2048, 1024), (8192, 16384)
        )
    ],
    # how much of a column panel one thread block walks: more, smaller teams fill a mesh's
    # single wave of 256 teams better, at the price of more panel loads
    "units": [
        dataclasses.replace(
            DEFAULT_PARAMS, column_panel=w, heavy_unit_edges=u, heavy_team_edges=t, heavy_threads=k
        )
        for w, (u, t), k in itertools.product(
            (16384, 12288),
            (
                (16384, 16384),
                (16384, 32768),
                (16384, 65536),
                (32768, 32768),
                (32768, 65536),
                (65536, 65536),
                (65536, 131072),
            ),
            (256, 512),
        )
    ],
    # after the heavy kernel's middle runs became plain stores: smaller units for meshes
    # (on the H100 smaller units helped the grid and slowed kron24, larger teams the reverse for
    # kron24 and kron22: the defaults stayed; commit bb997ec's message has the numbers)
    "units2": [
        dataclasses.replace(DEFAULT_PARAMS, heavy_unit_edges=u, heavy_team_edges=t)
        for u, t in (
            (65536, 65536),
            (32768, 65536),
            (32768, 32768),
            (16384, 65536),
            (65536, 131072),
        )
    ],
    # groups of tile walkers sharing one panel load per heavy block (more threads per SM where
    # a float64 panel leaves room for one block), against light blocks of 1024 threads
    "groups": [
        dataclasses.replace(
            DEFAULT_PARAMS, heavy_groups=g, heavy_threads=k, heavy_team_edges=t, light_threads=lt
        )
        for g, k, t, lt in (
            (1, 512, 65536, 512),
            (2, 512, 65536, 512),
            (2, 512, 32768, 512),
            (1, 512, 65536, 1024),
            (2, 512, 65536, 1024),
            (2, 256, 65536, 512),
            (3, 256, 65536, 512),
            (4, 256, 65536, 512),
            (4, 256, 32768, 512),
        )
    ],
}


def traffic_bytes(layout: DenseLayout, op_bytes: int, out_bytes: int) -> int:
    """Modelled device bytes one full-input product moves through the layout."""
    weights = 0 if layout.iso_value is not None else op_bytes
    p = layout.params
    tokens = int(layout.heavy_table.size)
    light = int(layout.light_src.size)
    moved = tokens * (2 + weights)  # heavy tiles
    moved += layout.heavy_teams * p.column_panel * op_bytes  # panel loads, one per team
    moved += light * (2 + 4 + weights + out_bytes) + layout.light_units * p.column_panel * op_bytes
    moved += layout.slots * (out_bytes + 2 + out_bytes)  # partials written, then read with dst
    # split row panels: each chunk combines at most a panel's outputs into global words and
    # flags, which phase 2 reads once
    moved += (layout.chunks + layout.split_panels) * p.row_panel * (out_bytes + 4)
    moved += layout.nrows * (out_bytes + 1)  # the output and its presence flags
    moved += layout.ncols * op_bytes  # the input
    if layout.column_order is not None:  # gather into internal order
        moved += layout.ncols * (layout.column_order.itemsize + 2 * op_bytes)
    if layout.row_position is not None:  # results in internal order, written then read back
        moved += layout.nrows * (layout.row_position.itemsize + 2 * (out_bytes + 1))
    return moved


def _random_renumbering(A: hb.Matrix, seed: int = 3) -> hb.Matrix:
    """``P A Pᵀ`` for a random permutation ``P``."""
    xp = A.xp
    rows = prim.row_ids(xp, A.indptr, A.nrows)
    perm = xp.asarray(np.random.default_rng(seed).permutation(A.nrows))
    return hb.Matrix.from_coo(
        perm[rows], perm[A.indices], A.values, nrows=A.nrows, ncols=A.ncols, backend=A.backend
    )


def _check(got: hb.Vector, ref: np.ndarray, rel: float = 1e-4) -> float:
    err = relative_error(got.to_dense(fill_value=np.nan), ref)
    assert err < rel, err
    return err


def measure_graph(
    name: str, grid: list[DenseParams], repeats: int, copy_tbps: float, semirings: bool
) -> dict[str, Any]:
    base = name.removesuffix("-random")
    A = build_graph(base, "cuda").A  # the graph's weights and sources are dropped here
    if name.endswith("-random"):
        A = _random_renumbering(A)
    xp = xp_for("cuda")
    rng = np.random.default_rng(1)
    x = rng.uniform(1, 2, A.ncols).astype(np.float32)
    u = hb.Vector.from_dense(xp.asarray(x))
    u64 = hb.Vector.from_dense(xp.asarray(x.astype(np.float64)))
    plus_times_f64 = hb.semiring.plus_times[np.float64]
    csr = A.to_cupyx()
    host = csr.get().astype(np.float64)
    ref = host @ x.astype(np.float64)
    ref[np.diff(host.indptr) == 0] = np.nan  # empty rows are absent in GraphBLAS
    _check(hb.Vector.from_dense(csr @ u.as_bitmap()[0]), np.nan_to_num(ref), 1e-4)
    csr_bytes = int(csr.data.nbytes + csr.indices.nbytes + csr.indptr.nbytes)
    cusparse_ms = time_gpu_ms(lambda: csr @ u.as_bitmap()[0], repeats=repeats)
    result: dict[str, Any] = {
        "graph": name,
        "n": A.nrows,
        "nnz": A.nnz,
        "csr_bytes": csr_bytes,
        "cusparse_plus_times_ms": cusparse_ms,
        "params": [],
    }
    best = None
    for params in grid:
        build_s = []  # cold (the first build on a machine includes CuPy's kernel compiles), warm
        for _ in range(2):
            layout = None
            free_gpu_memory_pool()
            synchronize()
            start = time.perf_counter()
            layout = build_layout(A, params)
            synchronize()
            build_s.append(time.perf_counter() - start)
        A.cache[("dense_layout", params)] = layout
        with dense_params(params):
            fn = lambda: hb.ops.mxv(A, u, "plus_times", executor="dense")  # noqa: E731
            err = _check(fn(), ref)
            ms = time_gpu_ms(fn, repeats=repeats)
            # float64 operands (PageRank's product): twice the panel bytes in shared memory
            fn = lambda: hb.ops.mxv(A, u64, plus_times_f64, executor="dense")  # noqa: E731
            _check(fn(), ref)
            f64_ms = time_gpu_ms(fn, repeats=repeats)
        moved = traffic_bytes(layout, 4, 4)
        row = {
            **dataclasses.asdict(params),
            **layout.stats(),
            "build_s": build_s[1],
            "build_cold_s": build_s[0],
            "plus_times_ms": ms,
            "vs_cusparse": ms / cusparse_ms,
            "rel_err": err,
            "plus_times_float64_ms": f64_ms,
            "layout_vs_csr": layout.nbytes() / csr_bytes,
            "modelled_bytes_per_entry": moved / max(A.nnz, 1),
            "modelled_floor_ms": moved / (copy_tbps * 1e12) * 1e3,
            "fraction_of_copy_bw": moved / (copy_tbps * 1e12) * 1e3 / ms,
        }
        result["params"].append(row)
        print(
            json.dumps(
                {
                    k: row[k]
                    for k in (
                        "column_panel",
                        "row_panel",
                        "heavy_threshold",
                        "heavy_unit_edges",
                        "heavy_team_edges",
                        "heavy_threads",
                        "reduce_chunk_slots",
                        "heavy_groups",
                        "light_threads",
                        "reorder",
                        "plus_times_ms",
                        "plus_times_float64_ms",
                        "vs_cusparse",
                        "build_s",
                        "layout_vs_csr",
                    )
                }
            ),
            file=sys.stderr,
            flush=True,
        )
        if best is None or ms < best[1]:
            best = (params, ms)
        del A.cache[("dense_layout", params)], layout
        free_gpu_memory_pool()
    result["best"] = dataclasses.asdict(best[0])
    if semirings:
        for label, params in (("default", DEFAULT_PARAMS), ("best", best[0])):
            result[label] = _semirings(A, u, x, host, params, repeats)
    return result


def _semirings(
    A: hb.Matrix, u: hb.Vector, x: np.ndarray, host: Any, params: DenseParams, repeats: int
) -> dict[str, float]:
    import scipy.sparse as sp

    out: dict[str, float] = {}
    present = np.diff(host.indptr) > 0
    with dense_params(params):
        for name in ("plus_times", "min_plus", "lor_land"):
            if name == "lor_land":
                matrix, vector = A.dup(dtype=bool), hb.Vector.from_dense(u.as_bitmap()[0] > 1.5)
                ref = (
                    sp.csr_matrix(host, dtype=bool).astype(np.float64)
                    @ (x > 1.5).astype(np.float64)
                ) > 0
                ref = np.where(present, ref.astype(np.float64), np.nan)
            elif name == "min_plus":
                matrix, vector = A, u
                coo = host.tocoo()
                ref = np.full(host.shape[0], np.inf)
                np.minimum.at(ref, coo.row, coo.data + x[coo.col].astype(np.float64))
                ref[~present] = np.nan
            else:
                matrix, vector = A, u
                ref = np.where(present, host @ x.astype(np.float64), np.nan)
            fn = lambda m=matrix, v=vector, n=name: hb.ops.mxv(m, v, n, executor="dense")
            _check(fn(), ref)
            out[f"{name}_ms"] = time_gpu_ms(fn, repeats=repeats)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", default="kron22,grid2048,kron24,kron24-random")
    parser.add_argument("--grid", default="quick", choices=sorted(GRIDS))
    parser.add_argument(
        "--grid-graphs",
        default="kron22,grid2048",
        help="graphs that run the whole grid; others run the defaults only",
    )
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument(
        "--out", help="the JSON written (default: $OUT/dense_tuning.json, ./out without OUT)"
    )
    args = parser.parse_args(argv)
    out = experiment_out(args.out, "dense_tuning")
    copy_tbps = copy_bandwidth_tbps()
    report: dict[str, Any] = {
        "device": device_name(),
        "date": datetime.date.today().isoformat(),
        "commit": commit_id(),
        "copy_TBps": copy_tbps,
        "defaults": dataclasses.asdict(DEFAULT_PARAMS),
        "graphs": [],
    }
    for name in args.graphs.split(","):
        grid = GRIDS[args.grid] if name in args.grid_graphs.split(",") else [DEFAULT_PARAMS]
        report["graphs"].append(measure_graph(name, grid, args.repeats, copy_tbps, True))
        out.write_text(json.dumps(report, indent=1))
        free_gpu_memory_pool()
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
