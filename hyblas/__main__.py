"""Command line: ``python -m hyblas demo``, ``info`` and ``warmup``.

``demo`` generates a Graph500 Kronecker graph, runs BFS from its highest-degree vertex and
PageRank, and prints sizes, times and rates. ``info`` prints the version, backend and device.
``warmup`` compiles the common CUDA kernels ahead (:mod:`hyblas.warmup`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import hyblas as hb

from .backend import device_name, synchronize
from .backend.kernel_bundle import BUNDLE_ENV, active_bundle
from .errors import HyblasError
from .warmup import build_bundle, warmup

__all__ = ["main"]

_DEFAULT_SCALE = {"cpu": 16, "cuda": 22}


def _timed(call: Callable[[], Any]) -> tuple[Any, float]:
    """(result, wall seconds) of ``call()``, with the device synchronized before each clock read."""
    synchronize()
    start = time.perf_counter()
    result = call()
    synchronize()
    return result, time.perf_counter() - start


def _rate(count: float, seconds: float) -> str:
    if seconds <= 0:
        return "n/a"
    rate = count / seconds
    for unit, size in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if rate >= size:
            return f"{rate / size:.2f} {unit}"
    return f"{rate:.0f} "


def _demo(args: argparse.Namespace) -> int:
    if args.backend is not None:
        hb.set_backend(args.backend)
    backend = hb.backend()
    scale = args.scale if args.scale is not None else _DEFAULT_SCALE[backend]
    print(f"hyblas {hb.__version__} demo on backend {backend!r} ({device_name()})")

    print(
        f"\nGraph500 Kronecker graph, scale {scale}, edge factor {args.edge_factor}, "
        f"seed {args.seed} (undirected)"
    )
    A, gen_s = _timed(lambda: hb.generators.kronecker(scale, args.edge_factor, seed=args.seed))
    n = A.nrows
    print(f"  vertices        {n:>14,}")
    print(f"  stored entries  {A.nnz:>14,}  ({A.nnz // 2:,} undirected edges)")
    print(f"  generated in    {gen_s:>14.3f} s")

    # Degrees and the BFS source are set-up, not part of the timed algorithms.
    degree = hb.ops.reduce_rows(A, hb.monoid.plus[np.int64]).to_dense(fill_value=0)
    source = int(np.argmax(degree)) if n else 0  # argmax: the smallest id among ties

    print(f"\nBFS from vertex {source:,} (degree {int(degree[source]) if n else 0:,})")
    levels, bfs_s = _timed(lambda: hb.algorithms.bfs(A, source))
    reached, depth = levels.to_coo()
    edges = int(degree[reached].sum()) // 2  # undirected edges in the reached component
    print(f"  levels          {int(depth.max()) + 1 if depth.size else 0:>14,}")
    print(f"  vertices reached{reached.size:>14,}  ({100.0 * reached.size / max(n, 1):.1f} %)")
    print(f"  time            {bfs_s:>14.3f} s")
    print(f"  rate            {_rate(edges, bfs_s):>13}TEPS  ({edges:,} edges in the component)")

    # networkx's stopping rule is L1 change < n * tol; with its default tol=1e-6 a graph of a
    # million vertices stops after one step, so the demo asks for more.
    tol = 1e-9
    print(f"\nPageRank (damping 0.85, stop when the L1 change < n * {tol:g})")
    (ranks, iterations), pr_s = _timed(
        lambda: hb.algorithms.pagerank(A, 0.85, tol=tol, max_iter=1000, return_iterations=True)
    )
    values = ranks.to_dense(fill_value=0.0)
    print(f"  iterations      {iterations:>14,}")
    print(
        f"  time            {pr_s:>14.3f} s  ({1e3 * pr_s / max(iterations, 1):.1f} ms per "
        "iteration)"
    )
    top = np.argsort(-values, kind="stable")[:5]
    print("  top vertices    " + ", ".join(f"{int(v):,} ({values[v]:.3g})" for v in top))
    return 0


def _info(args: argparse.Namespace) -> int:  # noqa: ARG001 - uniform handler signature
    print(f"hyblas   {hb.__version__}")
    print(f"python   {platform.python_version()}, numpy {np.__version__}")
    print(f"backend  {hb.backend()} (cuda available: {hb.cuda_available()})")
    print(f"device   {device_name()}")
    bundle = active_bundle()
    if bundle is not None:
        targets = sorted({c for m in bundle.modules.values() for c in m.cubins}, key=int)
        print(
            f"kernels  bundle {bundle.directory}: {len(bundle.modules)} modules, cubins for "
            f"sm_{', sm_'.join(targets) or '-'}; CuPy cache files for CuPy {bundle.cupy_version}"
            f" on sm_{bundle.cache_capability}"
        )
    return 0


def _warmup(args: argparse.Namespace) -> int:
    if args.bundle is not None:
        return _bundle(args)
    print(f"hyblas {hb.__version__} warmup on {device_name()}: compiling the common kernels")
    started = time.perf_counter()
    report = warmup(products=not args.algorithms_only, progress=print)
    print(
        f"done in {time.perf_counter() - started:.1f} s: {report.cache_files_added} kernel "
        f"files added to the cache; marker {report.marker}"
    )
    return 0


@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    """``os.environ`` with ``values`` set within the block, as it was after."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _bundle(args: argparse.Namespace) -> int:
    if "cupy" in sys.modules:  # its cache directory may already hold kernels of other work
        raise HyblasError("warmup --bundle: run it in a process that has not used CuPy yet")
    targets = [a.strip() for a in args.arch.split(",") if a.strip()]
    with (
        tempfile.TemporaryDirectory(prefix="hyblas-bundle-cache-") as cache,
        # an empty cache: what the work compiles, nothing else; no bundle loaded or seeded
        _environment(CUPY_CACHE_DIR=cache, **{BUNDLE_ENV: ""}),
    ):
        active_bundle.cache_clear()
        print(f"hyblas {hb.__version__} kernel bundle on {device_name()} -> {args.bundle}")
        started = time.perf_counter()
        bundle = build_bundle(
            args.bundle, targets, products=not args.algorithms_only, progress=print
        )
    active_bundle.cache_clear()
    size = sum(p.stat().st_size for p in Path(args.bundle).rglob("*") if p.is_file())
    print(
        f"done in {time.perf_counter() - started:.1f} s: {len(bundle.modules)} modules, "
        f"{len(bundle.cache_files)} CuPy cache files, {size / 2**20:.1f} MiB"
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hyblas",
        description="hyblas: GraphBLAS-style sparse linear algebra on the GPU (CuPy) and CPU.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser(
        "demo",
        help="generate a Kronecker graph and run BFS and PageRank on it",
        description="Generate a Graph500 Kronecker graph, run BFS from its highest-degree "
        "vertex and PageRank, and print sizes, times and rates.",
    )
    demo.add_argument(
        "--scale",
        type=int,
        default=None,
        help="log2 of the number of vertices (default: 16 on cpu, 22 on cuda)",
    )
    demo.add_argument(
        "--edge-factor", type=int, default=16, help="generated edges per vertex (default: 16)"
    )
    demo.add_argument(
        "--backend",
        choices=("cpu", "cuda"),
        default=None,
        help="default: cuda when a GPU is usable, else cpu",
    )
    demo.add_argument("--seed", type=int, default=0, help="generator seed (default: 0)")
    demo.set_defaults(handler=_demo)
    info = commands.add_parser("info", help="print version, backend and device")
    info.set_defaults(handler=_info)
    warm = commands.add_parser(
        "warmup",
        help="compile the common CUDA kernels now, not at first use",
        description="Run small versions of the algorithms and of the executors' products on "
        "the GPU, so that their kernels are compiled and cached on disk now, and mark the "
        "machine warm (no first-use notice).",
    )
    warm.add_argument(
        "--algorithms-only",
        action="store_true",
        help="only the algorithms' kernels, not every executor's products",
    )
    warm.add_argument(
        "--bundle",
        metavar="DIR",
        default=None,
        help="write a kernel bundle to DIR instead (cubins of hyblas's kernels and CuPy's "
        "cache files, for a package to ship: hyblas/_kernels)",
    )
    warm.add_argument(
        "--arch",
        default="80,90,100",
        help="with --bundle: compute capabilities to compile for besides this GPU's "
        "(default: 80,90,100)",
    )
    warm.set_defaults(handler=_warmup)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hyblas`` console script and of ``python -m hyblas``."""
    parser = _parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    try:
        return args.handler(args)
    except HyblasError as exc:
        print(f"hyblas: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
