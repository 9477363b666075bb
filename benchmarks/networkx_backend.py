"""NetworkX calls on NetworkX and on the hyblas backend, side by side, on one graph.

    python -m benchmarks.networkx_backend [--scale 18] [--device auto|cpu|cuda] [--repeats 3]

The graph is a Graph500 Kronecker graph of ``2**scale`` vertices (hyblas's generator, edge
factor 16), built as an ``nx.Graph`` with a weight on every edge. For each function the table
gives NetworkX's time, hyblas's cold time (the conversion from the NetworkX graph included:
``G.__networkx_cache__`` cleared first) and warm time (from NetworkX's cache of the converted
graph), each the median of ``--repeats`` host wall-clock runs (a device synchronisation ends
each hyblas call: its result is a Python dict or list, copied to the host), and the speedups;
then the conversion alone against ``nx.to_scipy_sparse_array``. The results of the two are
compared (path lengths and components exactly, PageRank within 1e-9 per node).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import networkx as nx
import numpy as np

import hyblas as hb

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


def _median_s(call: Callable[[], Any], repeats: int, before: Callable[[], None]) -> float:
    samples = []
    for _ in range(repeats):
        before()
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _same(theirs: Any, ours: Any) -> bool:
    if isinstance(theirs, dict):
        return theirs.keys() == ours.keys() and all(
            abs(theirs[k] - ours[k]) <= 1e-9 * max(1.0, abs(theirs[k])) for k in theirs
        )
    return theirs == ours


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=18)
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    settings = nx.config.backends.hyblas
    settings.device, settings.min_edges = args.device, 0
    nx.config.warnings_to_ignore.add("cache")
    start = time.perf_counter()
    G, source = kronecker_graph(args.scale)  # noqa: N806
    print(
        f"kron{args.scale}: {G.number_of_nodes():,} nodes, {G.number_of_edges():,} edges "
        f"(built in {time.perf_counter() - start:.1f} s); hyblas device {args.device!r} "
        f"-> {hb.backend() if args.device == 'auto' else args.device!r}"
    )

    def clear() -> None:
        G.__networkx_cache__.clear()

    print(
        f"{'function':38s} {'networkx s':>11s} {'cold s':>9s} {'warm s':>9s} "
        f"{'cold x':>7s} {'warm x':>7s}  same"
    )
    for name, function in FUNCTIONS.items():
        theirs = function(G, source, backend="networkx")
        ours = function(G, source, backend="hyblas")
        t_nx = _median_s(lambda f=function: f(G, source, backend="networkx"), args.repeats, clear)
        cold = _median_s(lambda f=function: f(G, source, backend="hyblas"), args.repeats, clear)
        function(G, source, backend="hyblas")  # fills the cache
        warm = _median_s(
            lambda f=function: f(G, source, backend="hyblas"), args.repeats, lambda: None
        )
        print(
            f"{name:38s} {t_nx:11.3f} {cold:9.3f} {warm:9.3f} {t_nx / cold:7.1f} "
            f"{t_nx / warm:7.1f}  {_same(theirs, ours)}"
        )
    interface = nx.utils.backends.backends["hyblas"].load()
    convert = _median_s(
        lambda: interface.convert_from_nx(G, {"weight": 1.0}), args.repeats, lambda: None
    )
    to_scipy = _median_s(
        lambda: nx.to_scipy_sparse_array(G, weight="weight"), args.repeats, lambda: None
    )
    print(
        f"conversion from networkx: {convert:.3f} s; nx.to_scipy_sparse_array {to_scipy:.3f} s "
        f"(ratio {convert / to_scipy:.2f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
