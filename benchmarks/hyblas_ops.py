"""The hyblas side of every benchmark operation, in the peers' form.

``OPS[op](graph, executor)`` does the setup untimed and returns the closure that is timed;
``to_numpy(op, result, graph)`` turns its result into the peers' conventions
(see :mod:`benchmarks.peers`) so that every implementation is checked the same way.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import hyblas as hb
from hyblas import algorithms as alg
from hyblas.executors.policy import pending_layouts

from .graphs import BenchGraph

OPS: dict[str, Callable[[BenchGraph, str], Callable[[], Any]]] = {}
_FILL: dict[str, Any] = {}


def _op(name: str, fill: Any = None) -> Callable:
    def register(prepare: Callable) -> Callable:
        OPS[name] = prepare
        _FILL[name] = fill
        return prepare

    return register


def _undirected(g: BenchGraph, *, weighted: bool = False) -> hb.Graph:
    """The graph as a user holding an undirected graph passes it: an undirected Graph of its
    pattern, or of its weights (a generated graph's are the same both ways, as
    ``random_weights`` makes them: that matrix is then its own transpose). The harness's
    graphs are symmetric by construction, so it is not checked (a check builds the
    transpose, whose memory would count in the op's peak)."""
    return hb.Graph(g.weights if weighted else g.A, "undirected", check=False)


def _spmv_float32(name: str) -> Callable[[BenchGraph, str], Callable[[], Any]]:
    def prepare(g: BenchGraph, executor: str) -> Callable[[], Any]:
        u = hb.Vector.from_dense(g.x, backend=g.A.backend)
        sr = hb.semiring[name][np.float32]
        return lambda: hb.ops.mxv(g.A, u, sr, executor=executor)

    return prepare


_op("spmv:plus_times", fill=0.0)(_spmv_float32("plus_times"))
_op("spmv:min_plus", fill=np.inf)(_spmv_float32("min_plus"))


#: The key of the bool copy of the pattern that ``spmv:lor_land`` multiplies, in the graph's
#: matrix's cache (as :class:`hyblas.Graph` keeps its derived matrices): there :func:`settle`
#: watches it and its layouts, and the next hyblas row's ``clear_cache`` frees it.
BOOL_PATTERN = ("benchmarks", "bool_pattern")


@_op("spmv:lor_land", fill=False)
def _lor_land(g: BenchGraph, executor: str) -> Callable[[], Any]:
    pattern = g.A.cache.get(BOOL_PATTERN)
    if pattern is None:
        pattern = g.A.cache[BOOL_PATTERN] = g.A.dup(dtype=bool)
    u = hb.Vector.from_dense(g.x_bool, backend=g.A.backend)
    sr = hb.semiring.lor_land[np.bool_]
    return lambda: hb.ops.mxv(pattern, u, sr, executor=executor)


@_op("bfs", fill=-1)
def _bfs(g: BenchGraph, executor: str) -> Callable[[], Any]:
    G = _undirected(g)  # noqa: N806
    return lambda: alg.bfs(G, g.source, executor=executor)


@_op("sssp", fill=np.inf)
def _sssp(g: BenchGraph, executor: str) -> Callable[[], Any]:
    G = _undirected(g, weighted=True)  # noqa: N806
    return lambda: alg.sssp(G, g.source, executor=executor)


@_op("pagerank20", fill=0.0)
def _pagerank20(g: BenchGraph, executor: str) -> Callable[[], Any]:
    G = _undirected(g)  # noqa: N806
    return lambda: alg.pagerank(G, 0.85, iterations=20, executor=executor)


@_op("cc")
def _cc(g: BenchGraph, executor: str) -> Callable[[], Any]:
    G = _undirected(g)  # noqa: N806
    return lambda: alg.connected_components(G, executor=executor)


@_op("bc", fill=0.0)
def _bc(g: BenchGraph, executor: str) -> Callable[[], Any]:
    G = _undirected(g)  # noqa: N806
    return lambda: alg.betweenness_centrality(
        G, sources=g.bc_sources, normalized=False, executor=executor
    )


@_op("tc")
def _tc(g: BenchGraph, executor: str) -> Callable[[], Any]:
    G = _undirected(g)  # noqa: N806
    return lambda: alg.triangle_count(G, executor=executor)


@_op("msbfs", fill=-1)
def _msbfs(g: BenchGraph, executor: str) -> Callable[[], Any]:
    G = _undirected(g)  # noqa: N806
    return lambda: alg.multi_source_bfs(G, g.msbfs_sources, executor=executor)


@_op("cdlp10", fill=-1)
def _cdlp10(g: BenchGraph, executor: str) -> Callable[[], Any]:
    G = _undirected(g)  # noqa: N806
    return lambda: alg.cdlp(G, 10, executor=executor)


@_op("lcc", fill=0.0)
def _lcc(g: BenchGraph, executor: str) -> Callable[[], Any]:
    G = _undirected(g)  # noqa: N806
    return lambda: alg.local_clustering_coefficient(G, executor=executor)


def to_numpy(op: str, result: Any, graph: BenchGraph) -> Any:
    """``result`` of ``OPS[op]`` in the peers' conventions (absent entries filled)."""
    if op == "tc":
        return int(result)
    if op == "bc":  # hyblas follows networkx's scaling; the peers report raw dependencies
        from hyblas.algorithms.centrality import networkx_scale

        k = len(graph.bc_sources)
        scale = np.full(graph.n, networkx_scale(graph.n, k, directed=False, normalized=False))
        scale[graph.bc_sources] = networkx_scale(
            graph.n, k, directed=False, normalized=False, source=True
        )
        return result.to_dense(fill_value=0.0) / scale
    if op == "cc":
        return result.to_dense(fill_value=-1)
    return result.to_dense(fill_value=_FILL[op])


SETTLE_RUNS = 40
#: Past ``SETTLE_RUNS``, :func:`settle` goes on while a layout is pending (its savings still
#: adding up towards its build: a product that ``auto`` repeats on a large matrix pays for its
#: layout after tens to hundreds of runs), until this many seconds of settling in all.
SETTLE_PENDING_S = 20.0


@dataclasses.dataclass(frozen=True)
class Settled:
    """What :func:`settle` ran: ``runs``, and whether the last one reached the steady state
    (added nothing to the caches, with no layout pending)."""

    runs: int
    steady: bool


def _with_derived(*matrices: hb.Matrix) -> list[hb.Matrix]:
    """``matrices`` and the matrices cached on them (their transposes), recursively."""
    found, stack = [], list(matrices)
    while stack:
        matrix = stack.pop()
        found.append(matrix)
        stack += [v for v in matrix.cache.values() if isinstance(v, hb.Matrix)]
    return found


def settle(
    run: Callable[[], Any],
    graph: BenchGraph | Callable[[], list[hb.Matrix]],
    agree: Callable[[bool], bool] = bool,
) -> Settled:
    """Run ``run`` until a run adds nothing to the graph's caches and no layout is pending:
    ``executor='auto'`` builds a layout only once its savings pay for it, so the steady state
    the timed runs measure may take several runs to reach. At most ``SETTLE_RUNS`` runs, and
    more only while a layout is pending, for up to ``SETTLE_PENDING_S`` seconds in all.

    ``graph`` is the benchmark graph, or a function giving the matrices to watch; ``agree``
    turns this process's verdict into the one every process shares (several processes must
    stop together)."""

    def watched() -> list[hb.Matrix]:
        return [graph.A, graph.weights] if isinstance(graph, BenchGraph) else graph()

    started = time.perf_counter()
    cached = sum(len(m.cache) for m in _with_derived(*watched()))
    runs = 0
    while True:
        run()
        runs += 1
        matrices = _with_derived(*watched())
        before, cached = cached, sum(len(m.cache) for m in matrices)
        pending = any(pending_layouts(m) for m in matrices)
        if agree(cached == before and not pending):
            return Settled(runs, True)
        late = time.perf_counter() - started >= SETTLE_PENDING_S
        if runs >= SETTLE_RUNS and agree(not pending or late):
            return Settled(runs, False)
