"""Several GPUs: PageRank-20 and BFS on a Kronecker graph over 1, 2 and 4 processes.

Two commands. ``run`` is the program every process runs (under ``mpiexec -n P``)::

    mpiexec -n 4 python -m mpi4py -m benchmarks.multi_gpu run --scale 25 --out OUT/multi-gpu

It builds ``DistMatrix.kronecker(scale, edge_factor)`` in parallel (each process generates its
share of the edge stream), then times PageRank (``--iterations`` power iterations, float32 as
cuGraph) and BFS from ``--sources`` seeded sources (median of ``--repeats`` runs each, every
process started together after a barrier, once the untimed runs of :func:`_settle` have let
the policy build the layouts whose savings pay for them, on one process as on several); one
more run of each inside :func:`hyblas.distributed.trace` splits the time into the local
products, the exchange and the host (the rest), and counts the bytes every process sent (the
communicators' counts: the ring algorithms' volume, not read from NVLink counters). Rank 0
writes ``p<P>.json``.

``report`` merges the ``p*.json`` of one folder into ``multi-gpu.json`` and ``multi-gpu.md``:
per algorithm and process count the time, GTEPS (stored entries traversed per second: every
entry per PageRank iteration, the entries out of reached vertices for BFS), the speedup over
one process of the same job and the scaling efficiency, the bytes moved per iteration against
the volume the partition predicts (:func:`hyblas.distributed.vxm_volume` for PageRank's full
vectors, :func:`hyblas.distributed.level_volume` for a BFS level sent as bits), and where the
time goes.

``scripts/multi-gpu`` runs ``run`` on 1, 2, 4 GPUs in one job, then ``report``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import hyblas as hb
from hyblas import distributed as hd
from hyblas.backend import device_name, synchronize

from .hyblas_ops import settle

EXCHANGE_STEPS = ("gather", "mask", "reduce", "permute")


def _timed(comm: hd.Communicator, fn: Any) -> float:
    """Seconds of ``fn()`` on the slowest process (all start after a barrier)."""
    comm.barrier()
    start = time.perf_counter()
    fn()
    synchronize()
    elapsed = time.perf_counter() - start
    return float(comm.allreduce_scalar(elapsed, "max", np.float64))


def _settle(comm: hd.Communicator, fn: Any, local: hb.Matrix) -> int:
    """Run ``fn`` until its local products have settled on every process (the layouts the
    policy builds once their savings pay for them: the timed runs measure the steady state,
    on one process as on several). Returns the runs."""

    def everywhere(quiet: bool) -> bool:
        return bool(comm.allreduce_scalar(int(quiet), "min", np.int64))

    return settle(fn, lambda: [local], everywhere).runs


def _split(comm: hd.Communicator, fn: Any) -> dict[str, float]:
    """One traced run of ``fn``: seconds in local products, exchange steps and the rest
    (slowest process each), and bytes sent by all processes together."""
    before = comm.traffic.bytes_sent
    comm.barrier()
    start = time.perf_counter()
    with hd.trace() as t:
        fn()
    synchronize()
    total = time.perf_counter() - start
    steps = t.summary()
    local = steps.get("local", {}).get("time_ms", 0.0) / 1e3
    exchange = sum(steps.get(s, {}).get("time_ms", 0.0) for s in EXCHANGE_STEPS) / 1e3
    sent = comm.traffic.bytes_sent - before
    out = {
        "traced_s": total,
        "local_s": local,
        "exchange_s": exchange,
        "host_s": max(total - local - exchange, 0.0),
    }
    out = {k: float(comm.allreduce_scalar(v, "max", np.float64)) for k, v in out.items()}
    out["bytes_sent"] = int(comm.allreduce_scalar(sent, "sum", np.int64))
    out["encodings"] = sorted(
        {r.encoding for r in t.rows if r.step in ("gather", "mask") and r.group > 1}
    )
    return out


SAMPLE = 1000  # PageRank values compared across process counts


def _sample(ranks: hd.DistVector, seed: int) -> dict[str, Any]:
    """Seeded vertices' ranks and the sum of all: what the report compares across runs."""
    dense = ranks.to_numpy_dense(0.0)
    picked = np.random.default_rng(seed).choice(dense.size, min(SAMPLE, dense.size), replace=False)
    return {"sum": float(dense.sum(dtype=np.float64)), "vertices": picked.tolist(),
            "values": dense[picked].astype(np.float64).tolist()}  # fmt: skip


def _digest(levels: hd.DistVector) -> dict[str, Any]:
    """A BFS result's fingerprint: reached vertices, vertices per level, and a hash of all."""
    ids, values = levels.gather().to_coo()
    digest = hashlib.sha256(np.asarray(ids, np.int64).tobytes())
    digest.update(np.asarray(values, np.int64).tobytes())
    return {"reached": int(ids.size), "per_level": np.bincount(values).tolist(),
            "sha256": digest.hexdigest()}  # fmt: skip


def agreement(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """Whether every process count computed the same: BFS levels identical (their hashes),
    PageRank's sampled values within float rounding (the largest relative difference)."""
    found: dict[str, Any] = {"bfs_identical": True, "pagerank_max_rel_diff": 0.0}
    first = docs[0]["results"]
    for doc in docs[1:]:
        results = doc["results"]
        for name, digest in results.items():
            if name.startswith("bfs") and first.get(name) != digest:
                found["bfs_identical"] = False
        mine, base = results["pagerank"], first["pagerank"]
        if mine["vertices"] == base["vertices"]:
            a, b = np.asarray(mine["values"]), np.asarray(base["values"])
            diff = np.abs(a - b) / np.maximum(np.abs(b), np.finfo(np.float64).tiny)
            found["pagerank_max_rel_diff"] = max(found["pagerank_max_rel_diff"], float(diff.max()))
    return found


def _sources(n: int, degrees: hd.DistVector, count: int, seed: int) -> list[int]:
    """``count`` seeded vertices with at least one edge (the same on every process)."""
    dense = degrees.to_numpy_dense(0)
    candidates = np.flatnonzero(dense > 0)
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.choice(candidates, size=min(count, candidates.size), replace=False)]


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The measurements of one process count (every process runs it; rank 0 writes)."""
    comm = hd.init(args.backend)  # first: it picks this process's GPU before anything touches one
    backend = comm.backend
    hb.set_backend(backend)
    p = comm.size
    start = time.perf_counter()
    A = hd.DistMatrix.kronecker(comm, args.scale, args.edge_factor, seed=args.seed)
    synchronize()
    build_s = float(comm.allreduce_scalar(time.perf_counter() - start, "max", np.float64))
    n, nnz = A.nrows, A.nnz
    dtype = np.dtype(args.dtype)
    ones = hd.DistVector.from_scalar(comm, 1, n, dtype=np.int64, grid=A.grid)
    degrees = hd.mxv(A, ones, "plus_pair")
    rows: list[dict[str, Any]] = []

    def pagerank() -> Any:
        return hd.pagerank(A, iterations=args.iterations, dtype=dtype)

    settled = {"pagerank": _settle(comm, pagerank, A.local)}  # warm-up: kernels, layouts
    results = {"pagerank": _sample(pagerank(), args.seed)}
    seconds = statistics.median(_timed(comm, pagerank) for _ in range(args.repeats))
    split = _split(comm, pagerank)
    rows.append(
        {
            "algorithm": f"pagerank-{args.iterations}",
            "seconds": seconds,
            "gteps": nnz * args.iterations / seconds / 1e9,
            "bytes_per_iteration": split["bytes_sent"] / max(args.iterations, 1),
            "predicted_bytes_per_iteration": p
            * hd.vxm_volume(A.rows, dtype.itemsize, to_owners=not A.symmetric),
            **split,
        }
    )
    # a BFS level's predicted bytes: nothing reduced where each process computes its own rows
    level_bytes = hd.level_volume(A.rows, reduced=not hd.FrontierExchange(A).own_rows)
    for source in _sources(n, degrees, args.sources, args.seed):
        settled[f"bfs {source}"] = _settle(comm, lambda s=source: hd.bfs(A, s), A.local)
        levels = hd.bfs(A, source)  # the reached vertices
        results[f"bfs {source}"] = _digest(levels)
        reached = hd.DistVector(comm, A.rows, hb.ops.apply(levels.local, "one", mask=None))
        touched = int(
            comm.allreduce_scalar(
                float(hb.ops.inner(reached.local.dup(np.int64), degrees.local, "plus_times")),
                "sum",
                np.float64,
            )
        )
        depth = int(levels.reduce("max")) + 1
        seconds = statistics.median(
            _timed(comm, lambda s=source: hd.bfs(A, s)) for _ in range(args.repeats)
        )
        split = _split(comm, lambda s=source: hd.bfs(A, s))
        rows.append(
            {
                "algorithm": "bfs",
                "source": source,
                "levels": depth,
                "seconds": seconds,
                "gteps": touched / seconds / 1e9,
                "bytes_per_iteration": split["bytes_sent"] / depth,
                "predicted_bytes_per_iteration": p * level_bytes,
                **split,
            }
        )
    if p == 1:  # the peer: the single-device algorithms on the same graph, in the same job
        rows += _single_device_rows(A.local, args, dtype, [r for r in rows if r.get("source")])
    doc = {
        "nprocs": p,
        "grid": [A.grid.rows, A.grid.cols],
        "backend": backend,
        "device": device_name() if backend == "cuda" else "CPU",
        "scale": args.scale,
        "edge_factor": args.edge_factor,
        "n": n,
        "nnz": nnz,
        "symmetric": A.symmetric,
        "dtype": dtype.name,
        "build_s": build_s,
        "results": results,
        "settle_runs": settled,
        "rows": rows,
    }
    if comm.rank == 0:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / f"p{p}.json").write_text(json.dumps(doc, indent=1))
        print(json.dumps({k: v for k, v in doc.items() if k != "rows"}), flush=True)
    return doc


def _single_device_rows(
    A: hb.Matrix,  # noqa: N803
    args: argparse.Namespace,
    dtype: np.dtype,
    bfs_rows: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """``hb.algorithms.pagerank`` and ``hb.algorithms.bfs`` on the whole matrix, timed as the
    partitioned runs (the same sources, edges and iterations)."""
    comm = hd.SelfCommunicator(A.backend)

    def pagerank() -> Any:
        return hb.algorithms.pagerank(A, iterations=args.iterations, dtype=dtype)

    _settle(comm, pagerank, A)
    seconds = statistics.median(_timed(comm, pagerank) for _ in range(args.repeats))
    rows = [{"algorithm": f"pagerank-{args.iterations} (hb.algorithms)", "seconds": seconds,
             "gteps": A.nnz * args.iterations / seconds / 1e9}]  # fmt: skip
    for row in bfs_rows:
        _settle(comm, lambda s=row["source"]: hb.algorithms.bfs(A, s), A)
        seconds = statistics.median(
            _timed(comm, lambda s=row["source"]: hb.algorithms.bfs(A, s))
            for _ in range(args.repeats)
        )
        edges = row["gteps"] * row["seconds"] * 1e9
        rows.append({"algorithm": "bfs (hb.algorithms)", "source": row["source"],
                     "seconds": seconds, "gteps": edges / seconds / 1e9})  # fmt: skip
    for row in rows:
        row.update(bytes_per_iteration=0.0, predicted_bytes_per_iteration=0.0, local_s=0.0,
                   exchange_s=0.0, host_s=0.0, traced_s=0.0, encodings=[])  # fmt: skip
    return rows


def _merge(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (algorithm, process count), BFS summed over its sources; speedup and
    efficiency against one process of the same folder."""
    merged: dict[tuple[str, int], dict[str, Any]] = {}
    for doc in docs:
        for row in doc["rows"]:
            key = (row["algorithm"], doc["nprocs"])
            entry = merged.setdefault(
                key,
                {"algorithm": row["algorithm"], "nprocs": doc["nprocs"], "grid": doc["grid"],
                 "runs": 0, "seconds": 0.0, "edges": 0.0, "bytes_per_iteration": 0.0,
                 "predicted_bytes_per_iteration": 0.0, "local_s": 0.0, "exchange_s": 0.0,
                 "host_s": 0.0, "traced_s": 0.0, "encodings": set()},
            )  # fmt: skip
            entry["runs"] += 1
            entry["seconds"] += row["seconds"]
            entry["edges"] += row["gteps"] * row["seconds"] * 1e9
            for name in ("bytes_per_iteration", "predicted_bytes_per_iteration", "local_s",
                         "exchange_s", "host_s", "traced_s"):  # fmt: skip
                entry[name] += row[name]
            entry["encodings"] |= set(row["encodings"])
    rows = []
    for (algorithm, p), entry in sorted(merged.items()):
        runs = entry.pop("runs")
        for name in ("bytes_per_iteration", "predicted_bytes_per_iteration"):
            entry[name] /= runs
        entry["gteps"] = entry.pop("edges") / entry["seconds"] / 1e9
        entry["encodings"] = sorted(entry["encodings"])
        one = merged.get((algorithm, 1))
        peer = merged.get((f"{algorithm} (hb.algorithms)", 1))
        entry["speedup"] = one["seconds"] / entry["seconds"] if one else None
        entry["efficiency"] = entry["speedup"] / p if one else None
        entry["speedup_over_single"] = peer["seconds"] / entry["seconds"] if peer else None
        rows.append(entry)
    return rows


def markdown(doc: dict[str, Any]) -> str:
    lines = [
        f"kron{doc['scale']} (edge factor {doc['edge_factor']}, {doc['n']:,} vertices, "
        f"{doc['nnz']:,} stored entries"
        f"{', marked symmetric: the symmetric schedules' if doc.get('symmetric') else ''}) on "
        f"{doc['device']}; speedup over 1 process of this job, and over the single-device "
        "algorithm (hb.algorithms, whole graph on one device)",
        "",
        "| algorithm | processes | grid | s | GTEPS | speedup | efficiency | vs hb.algorithms | "
        "MB/iter | predicted MB/iter | local s | exchange s | host s | encodings |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| --- |",
    ]

    def num(value: float | None, digits: int = 3) -> str:
        return "—" if value is None else f"{value:.{digits}f}"

    for r in doc["rows"]:
        lines.append(
            f"| {r['algorithm']} | {r['nprocs']} | {r['grid'][0]}x{r['grid'][1]} | "
            f"{num(r['seconds'])} | {num(r['gteps'], 2)} | {num(r['speedup'], 2)} | "
            f"{num(r['efficiency'], 2)} | {num(r['speedup_over_single'], 2)} | "
            f"{r['bytes_per_iteration'] / 1e6:.3f} | "
            f"{r['predicted_bytes_per_iteration'] / 1e6:.3f} | {num(r['local_s'])} | "
            f"{num(r['exchange_s'])} | {num(r['host_s'])} | {', '.join(r['encodings'])} |"
        )
    agree = doc["agreement"]
    lines.append(
        f"\nSame results on every process count: BFS levels "
        f"{'identical' if agree['bfs_identical'] else 'DIFFER'}; PageRank (sampled vertices) "
        f"within a relative {agree['pagerank_max_rel_diff']:.1e}."
    )
    lines.append(
        "\nBFS rows: summed over the sources. MB/iter: bytes all processes sent (the "
        "communicators' counts) per PageRank iteration or BFS level; predicted: the volume the "
        "partition gives full slots (for BFS, bitmaps every level: an upper bound). The "
        "split (local / exchange / host) comes from one traced run each, whose steps wait for "
        "the device."
    )
    return "\n".join(lines) + "\n"


def report(folder: Path) -> dict[str, Any]:
    """Merge ``folder/p*.json`` into ``multi-gpu.json`` and ``multi-gpu.md``."""
    docs = [json.loads(p.read_text()) for p in sorted(folder.glob("p*.json"))]
    if not docs:
        raise SystemExit(f"no p*.json in {folder}")
    first = docs[0]
    doc = {key: first[key] for key in ("scale", "edge_factor", "n", "nnz", "device", "dtype")}
    doc["symmetric"] = bool(first.get("symmetric", False))
    doc["build_s"] = {str(d["nprocs"]): d["build_s"] for d in docs}
    doc["rows"] = _merge(docs)
    doc["agreement"] = agreement(docs)
    (folder / "multi-gpu.json").write_text(json.dumps(doc, indent=1))
    text = markdown(doc)
    (folder / "multi-gpu.md").write_text(text)
    print(text)
    return doc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    measure = commands.add_parser("run", help="measure (every process, under mpiexec)")
    measure.add_argument("--scale", type=int, default=25)
    measure.add_argument("--edge-factor", type=int, default=16)
    measure.add_argument("--seed", type=int, default=0)
    measure.add_argument("--iterations", type=int, default=20)
    measure.add_argument("--sources", type=int, default=4)
    measure.add_argument("--repeats", type=int, default=3)
    measure.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    measure.add_argument("--backend", choices=("cpu", "cuda"), default=None)
    measure.add_argument("--out", default="out/multi-gpu")
    merge = commands.add_parser("report", help="merge p*.json into multi-gpu.json / .md")
    merge.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args)
    else:
        report(args.folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
