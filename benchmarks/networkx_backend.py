"""NetworkX calls on NetworkX and on the hyblas backend, side by side, on one graph or more.

    python -m benchmarks.networkx_backend [--graph kron,osm-highways] [--scale 18]
        [--device auto|cpu|cuda] [--functions pagerank,...] [--repeats 3] [--out FILE]

``kron`` is a Graph500 Kronecker graph of ``2**scale`` vertices (hyblas's generator, edge factor
16), built as an ``nx.Graph`` with a weight uniform in [1, 10) on every edge; ``osm-highways``
the OpenStreetMap world highway network of :mod:`benchmarks.graphs` (the ``bench`` extra),
weighted by its lengths in km, its self loops and zero lengths kept. The source of the
searches is the highest-degree node. For each function (``--functions``: all of them unless
narrowed) the table gives NetworkX's time,
hyblas's cold time (the conversion from the NetworkX graph included: ``G.__networkx_cache__``
cleared first) and warm time (from NetworkX's cache of the converted graph, after
``--warmup`` untimed calls: hyblas's ``executor='auto'`` builds a layout, such as the
SuiteSparse copy of a matrix on the CPU, only once it has paid for itself, so the first calls
after a conversion may build one), each the median of ``--repeats`` host wall-clock runs (a
device synchronisation ends each hyblas call: its result is a Python dict or list, copied to
the host), and the speedups; then the conversion alone against ``nx.to_scipy_sparse_array``.
The results of the two are compared (path lengths and components exactly, PageRank within
1e-9 per node). The table is written to ``--out`` (default ``$OUT/networkx-backend.md``, else
``out/networkx-backend.md``) as each row is measured, so that a run cut short keeps what it
measured.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

import hyblas as hb

from .graphs import OSM_HIGHWAYS, osm_highways_coo, unavailable

FUNCTIONS: dict[str, Callable[..., Any]] = {
    "pagerank": lambda G, s, **kw: nx.pagerank(G, **kw),
    "connected_components": lambda G, s, **kw: list(nx.connected_components(G, **kw)),
    "single_source_shortest_path_length": lambda G, s, **kw: nx.single_source_shortest_path_length(
        G, s, **kw
    ),
    "single_source_dijkstra_path_length": lambda G, s, **kw: nx.single_source_dijkstra_path_length(
        G, s, **kw
    ),
}
GRAPHS = ("kron", OSM_HIGHWAYS)


def kronecker_graph(scale: int, seed: int = 1) -> tuple[nx.Graph, Any]:
    """An undirected weighted ``nx.Graph`` of a Kronecker graph, and its highest-degree node."""
    A = hb.generators.kronecker(scale, 16, seed=seed, backend="cpu")  # noqa: N806
    rows, cols, _ = A.to_coo()
    keep = rows < cols
    weights = np.random.default_rng(seed).uniform(1.0, 10.0, int(keep.sum()))
    G = nx.Graph()  # noqa: N806
    G.add_nodes_from(range(A.nrows))
    G.add_weighted_edges_from(zip(rows[keep].tolist(), cols[keep].tolist(), weights.tolist()))
    return G, max(G, key=G.degree)


def osm_highways_graph() -> tuple[nx.Graph, Any]:
    """The OSM world highway network as an ``nx.Graph`` (its adjacency is symmetric: each
    road once, a self loop once) weighted by length in km, and its highest-degree node."""
    n, rows, cols, km = osm_highways_coo()
    keep = rows <= cols
    G = nx.Graph()  # noqa: N806
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip(rows[keep].tolist(), cols[keep].tolist(), km[keep].tolist()))
    return G, max(G, key=G.degree)


def _median_s(call: Callable[[], Any], repeats: int, before: Callable[[], None]) -> tuple:
    """The median wall-clock time of ``repeats`` calls, and the last call's result."""
    samples, result = [], None
    for _ in range(repeats):
        result = None  # the last call's result is freed here, not inside the next timing
        before()
        start = time.perf_counter()
        result = call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


def _same(theirs: Any, ours: Any) -> bool:
    if isinstance(theirs, dict):
        return theirs.keys() == ours.keys() and all(
            abs(theirs[k] - ours[k]) <= 1e-9 * max(1.0, abs(theirs[k])) for k in theirs
        )
    return theirs == ours


class Table:
    """The rows as they are measured: printed, and the markdown file rewritten."""

    HEADER = (
        "| graph | function | networkx s | hyblas cold s | hyblas warm s | cold × | warm × "
        "| same |\n|---|---|--:|--:|--:|--:|--:|---|"
    )

    def __init__(self, path: Path, title: str) -> None:
        self.path, self.lines, self.notes = path, [title, "", self.HEADER], []
        path.parent.mkdir(parents=True, exist_ok=True)

    def row(self, graph: str, name: str, t_nx: float, cold: float, warm: float, same: bool):
        print(
            f"{name:38s} {t_nx:11.3f} {cold:9.3f} {warm:9.3f} {t_nx / cold:7.1f} "
            f"{t_nx / warm:7.1f}  {same}",
            flush=True,
        )
        self.lines.append(
            f"| {graph} | {name} | {t_nx:.3f} | {cold:.3f} | {warm:.3f} | {t_nx / cold:.1f} "
            f"| {t_nx / warm:.1f} | {same} |"
        )
        self.write()

    def note(self, text: str) -> None:
        print(text, flush=True)
        self.notes.append(f"- {text}")
        self.write()

    def write(self) -> None:
        self.path.write_text("\n".join([*self.lines, "", *self.notes, ""]), encoding="utf-8")


def measure(
    graph: str,
    G: nx.Graph,  # noqa: N803
    source: Any,
    repeats: int,
    table: Table,
    warmup: int = 2,
    functions: tuple[str, ...] = tuple(FUNCTIONS),
    warm_repeats: int | None = None,
) -> None:
    """The ``functions`` of FUNCTIONS on ``G``, then the conversion alone; the warm calls are
    timed ``warm_repeats`` times (default: ``repeats``)."""

    def clear() -> None:
        G.__networkx_cache__.clear()

    print(
        f"{'function':38s} {'networkx s':>11s} {'cold s':>9s} {'warm s':>9s} "
        f"{'cold x':>7s} {'warm x':>7s}  same"
    )
    for name in functions:
        function = FUNCTIONS[name]
        t_nx, theirs = _median_s(
            lambda f=function: f(G, source, backend="networkx"), repeats, lambda: None
        )
        cold, ours = _median_s(lambda f=function: f(G, source, backend="hyblas"), repeats, clear)
        for _ in range(warmup):
            function(G, source, backend="hyblas")
        warm, _ = _median_s(
            lambda f=function: f(G, source, backend="hyblas"),
            warm_repeats or repeats,
            lambda: None,
        )
        table.row(graph, name, t_nx, cold, warm, _same(theirs, ours))
    interface = nx.utils.backends.backends["hyblas"].load()
    convert, _ = _median_s(
        lambda: interface.convert_from_nx(G, {"weight": 1.0}), repeats, lambda: None
    )
    to_scipy, _ = _median_s(
        lambda: nx.to_scipy_sparse_array(G, weight="weight"), repeats, lambda: None
    )
    table.note(
        f"{graph}: conversion from networkx (weights) {convert:.3f} s; "
        f"nx.to_scipy_sparse_array {to_scipy:.3f} s (ratio {convert / to_scipy:.2f})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--graph", default="kron", help=f"comma list of {', '.join(GRAPHS)} (default: kron)"
    )
    parser.add_argument("--scale", type=int, default=18, help="the kron graph's scale")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument(
        "--functions",
        default=",".join(FUNCTIONS),
        help=f"comma list of {', '.join(FUNCTIONS)} (default: all)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--warm-repeats",
        type=int,
        default=None,
        help="timed warm hyblas calls (default: --repeats; they cost little next to the others)",
    )
    parser.add_argument(
        "--warmup", type=int, default=2, help="untimed hyblas calls before the warm ones"
    )
    parser.add_argument("--out", type=Path, default=None, help="the markdown table's file")
    args = parser.parse_args(argv)
    graphs = [name.strip() for name in args.graph.split(",") if name.strip()]
    unknown = set(graphs) - set(GRAPHS)
    if unknown or not graphs:
        parser.error(f"--graph: unknown {sorted(unknown)}; known: {', '.join(GRAPHS)}")
    for graph in graphs:
        if reason := unavailable(graph):
            parser.error(reason)
    functions = tuple(name.strip() for name in args.functions.split(",") if name.strip())
    if not functions or set(functions) - set(FUNCTIONS):
        parser.error(f"--functions: unknown {sorted(set(functions) - set(FUNCTIONS))}")
    out = args.out or Path(os.environ.get("OUT") or "out") / "networkx-backend.md"
    settings = nx.config.backends.hyblas
    settings.device, settings.min_edges = args.device, 0
    nx.config.warnings_to_ignore.add("cache")
    device = hb.backend() if args.device == "auto" else args.device
    table = Table(
        out,
        f"NetworkX {nx.__version__} and nx-hyblas on hyblas device {device!r} "
        f"({platform.processor() or platform.machine()}, {os.cpu_count()} CPUs), "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, median of {args.repeats} "
        f"(warm: of {args.warm_repeats or args.repeats}, after {args.warmup} untimed calls)",
    )
    for graph in graphs:
        start = time.perf_counter()
        if graph == "kron":
            graph = f"kron{args.scale}"
            G, source = kronecker_graph(args.scale)  # noqa: N806
        else:
            G, source = osm_highways_graph()  # noqa: N806
        table.note(
            f"{graph}: {G.number_of_nodes():,} nodes, {G.number_of_edges():,} edges "
            f"(built in {time.perf_counter() - start:.1f} s)"
        )
        measure(graph, G, source, args.repeats, table, args.warmup, functions, args.warm_repeats)
        del G
    print(f"table written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
