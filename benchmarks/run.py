"""The benchmark harness: standard graphs, hyblas executors and peers measured in one run.

    python -m benchmarks.run --smoke              # tiny graphs on the CPU, seconds (CI)
    python -m benchmarks.run --graphs kron22 --ops bfs,sssp --executors reference,auto
    python -m benchmarks.run --canonical          # the full run: benchmarks/results/<kind>.*

For each graph (built, measured, then freed before the next) and each operation, every hyblas
executor asked for and every available peer runs once as warm-up; that result is checked
against the first implementation's (the hyblas reference executor's, when asked for); hyblas
then runs until a run adds nothing to the graph's caches and no layout is pending
(``executor='auto'`` builds a layout only once its savings pay for it, so its steady state may
take some runs; at most ``hyblas_ops.SETTLE_RUNS``, more while a layout is pending, up to
``hyblas_ops.SETTLE_PENDING_S`` seconds; a row timed before the steady state says so,
``unsettled``); then the run is timed: CUDA events,
median of ``--repeats`` on the GPU; wall clock, median of
``--cpu-repeats`` on the CPU. A run longer than ``--run-limit-s`` is stopped and recorded as
such, with its lower bound, instead of being timed. Output: ``<out>/<device>-<date>.json``
(schema in :func:`result_document`), a markdown table next to it and a PNG chart of ratios;
``--out`` defaults to ./out and may not lie in benchmarks/results.

``--canonical`` is the full run (every standard graph, op, hyblas executor and peer; GPU only;
no narrowing option): staged as ``<out>/canonical-<kind>.json``, then written as the canonical
set ``benchmarks/results/<kind>.json`` / ``.md`` / ``.png`` (replacing that kind's previous
set) and the results README regenerated (``python -m benchmarks.report --readme``). ``<kind>``
comes from the device name (:func:`benchmarks.meta.device_kind`: "NVIDIA H100 80GB HBM3" ->
h100). A canonical run cut short (a time limit) continues with ``--canonical --resume``: the
(graph, op) groups the staged file finished are kept, and the finished rows of the group it
was measuring, the rest measured. On a host of ``N``
GPUs of one kind, ``--canonical --shard K/N`` (one process per GPU) measures every ``N``-th
(graph, op) group, or with ``--claims DIR`` each next group it claims first, staged as
``<out>/canonical-<kind>.shard-K-of-N.json`` (resumable the same way), and ``--merge-shards``
then joins the finished shards into the canonical set
(:mod:`benchmarks.shards`).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import gc
import json
import os
import re
import signal
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

import hyblas as hb
from hyblas.backend import (
    device_memory_peak,
    device_name,
    free_gpu_memory_pool,
    gpu_memory_pool_bytes,
    synchronize,
    to_numpy,
)

from . import graphs as _graphs
from . import hyblas_ops, peers
from . import shards as _shards
from .meta import RESULTS_DIR, commit_id, device_kind, in_results
from .timing import copy_bandwidth_tbps, cpu_samples_ms, gpu_samples_ms

OPS = (
    "spmv:plus_times",
    "spmv:min_plus",
    "spmv:lor_land",
    "bfs",
    "bfs16",
    "sssp",
    "pagerank20",
    "cc",
    "bc",
    "tc",
    "msbfs",
    "cdlp10",
    "lcc",
)
#: Graph500 mode: the op of the base name from each of the 16 sources, harmonic-mean TEPS.
#: ``bfs16`` is among the default ops (next to ``bfs`` from the hub); ``sssp16`` on request.
MULTI_SOURCE = {"bfs16": "bfs", "sssp16": "sssp"}
EXECUTORS = ("reference", "auto", "dense", "sparse", "pull")
#: Passes over the stored entries that each op cannot avoid: its bandwidth floor.
FLOOR_PASSES = {"pagerank20": 20, "bc": 2, "cdlp10": 10}
#: Relative tolerance of the result check (float32 sums in a different order). Integer results
#: (bfs, msbfs, tc, cdlp10 labels; cc after relabelling, see canonical) are compared exactly.
RTOL = {
    "spmv:plus_times": 1e-4,
    "spmv:min_plus": 0.0,
    "sssp": 1e-5,
    "pagerank20": 1e-6,
    "bc": 1e-6,
    "lcc": 1e-6,
}


#: Longest untimed setup of one implementation (host conversions of the biggest graph).
SETUP_LIMIT_S = 300.0

#: A row's timed runs of one source stop before ``--repeats`` / ``--cpu-repeats`` once they
#: add up to this many seconds, with at least ``TIMED_LEAST`` of them (a median of three on
#: the GPU; one on the CPU, where a run of seconds varies little): each run of an op that takes
#: seconds costs the run as much, and tells as little more.
TIMED_BUDGET_S = 5.0
TIMED_LEAST = {"gpu": 3, "cpu": 1}


def _out_of_memory(exc: BaseException) -> bool:
    """hyblas's OutOfMemory, MemoryError, or CuPy's OutOfMemoryError (not imported here)."""
    return (
        isinstance(exc, (hb.errors.OutOfMemory, MemoryError))
        or type(exc).__name__ == "OutOfMemoryError"
    )


class RunLimitExceeded(Exception):
    """One run took longer than ``--run-limit-s``."""


@contextlib.contextmanager
def run_limit(seconds: float) -> Iterator[None]:
    """Raise RunLimitExceeded in this (main) thread after ``seconds`` of wall time."""

    def expire(signum: int, frame: Any) -> None:
        raise RunLimitExceeded(f"stopped after {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- implementations ------------------------------------------------------------------------

#: Peer name (the ``impl`` of its rows) -> module in benchmarks.peers.
PEERS = {
    "cusparse": "cusparse",
    "cupyx-naive": "cupyx_naive",
    "suitesparse": "suitesparse",
    "scipy": "scipy_peer",
    "unionfind": "unionfind",
}


def peer_modules(names: tuple[str, ...]) -> list[Any]:
    import importlib

    return [importlib.import_module(f"{__package__}.peers.{PEERS[name]}") for name in names]


@dataclasses.dataclass
class Impl:
    """One implementation of the ops: a hyblas executor or a peer."""

    name: str
    device: str  # 'gpu' or 'cpu': how it is timed
    ops: Callable[[str], bool]
    prepare: Callable[[str, _graphs.BenchGraph], Callable[[], Any]]
    to_numpy: Callable[[str, Any, _graphs.BenchGraph], Any]
    settle: Callable[[Callable[[], Any], _graphs.BenchGraph], hyblas_ops.Settled] | None = None
    executor: str | None = None  # hyblas's executor ('auto': the policy's); None for a peer


def hyblas_impl(executor: str, backend: str) -> Impl:
    def prepare(op: str, graph: _graphs.BenchGraph) -> Callable[[], Any]:
        return hyblas_ops.OPS[op](graph, executor)

    return Impl(
        f"hyblas:{executor}",
        "gpu" if backend == "cuda" else "cpu",
        lambda op: op in hyblas_ops.OPS,
        prepare,
        hyblas_ops.to_numpy,
        hyblas_ops.settle,
        executor,
    )


def peer_impl(module: Any) -> Impl:
    def prepare(op: str, graph: _graphs.BenchGraph) -> Callable[[], Any]:
        return module.OPS[op](graph.peer_graph())

    return Impl(
        module.NAME,
        module.DEVICE,
        lambda op: op in module.OPS,
        prepare,
        lambda op, result, graph: module.to_numpy(op, result),
    )


# --- checks and measures --------------------------------------------------------------------


def canonical(op: str, result: Any) -> Any:
    """Component labels as the smallest vertex of each component; others unchanged."""
    if op != "cc":
        return result
    labels = np.asarray(result)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    return first[inverse].astype(np.int64)


def mismatch(op: str, got: Any, expected: Any) -> str | None:
    """Why ``got`` differs from ``expected`` (None when they agree)."""
    if op == "tc":
        return None if int(got) == int(expected) else f"{got} triangles, expected {expected}"
    got, expected = np.asarray(canonical(op, got)), np.asarray(canonical(op, expected))
    if got.shape != expected.shape:
        return f"shape {got.shape}, expected {expected.shape}"
    if expected.dtype.kind == "f" or got.dtype.kind == "f":
        g, e = got.astype(np.float64), expected.astype(np.float64)
        if not np.array_equal(np.isinf(g), np.isinf(e)):
            return f"{int((np.isinf(g) != np.isinf(e)).sum())} entries differ in reachability"
        finite = np.isfinite(e)
        rtol = RTOL.get(op, 0.0)
        bad = ~np.isclose(
            g[finite], e[finite], rtol=rtol, atol=rtol * np.abs(e[finite]).max(initial=0.0)
        )
        if not bad.any():
            return None
        first = int(np.flatnonzero(finite.ravel())[np.argmax(bad)])
        return f"{int(bad.sum())} entries beyond rtol {rtol}{_first(first, got, expected)}"
    bad = got != expected.astype(got.dtype)
    if not bad.any():
        return None
    first = int(np.argmax(bad.ravel()))
    return f"{int(bad.sum())} of {bad.size} entries differ{_first(first, got, expected)}"


def _first(flat: int, got: np.ndarray, expected: np.ndarray) -> str:
    """``, first at vertex i: got x, expected y`` (index tuples for a 2-d result)."""
    where = np.unravel_index(flat, expected.shape)
    at = f"vertex {where[0]}" if len(where) == 1 else f"index {tuple(map(int, where))}"
    return f", first at {at}: {got.ravel()[flat]}, expected {expected.ravel()[flat]}"


def traversed_edges(op: str, result: Any, graph: _graphs.BenchGraph) -> float | None:
    """Graph500 TEPS numerator: undirected edges in the part reached (per source, summed)."""
    if op == "bfs":
        reached = np.asarray(result) >= 0
    elif op == "sssp":
        reached = np.isfinite(np.asarray(result))
    elif op == "msbfs":
        return float(sum(graph.degrees[row >= 0].sum() for row in np.asarray(result))) / 2
    elif op.startswith("spmv"):
        return float(graph.nnz)
    elif op == "pagerank20":
        return 20.0 * graph.nnz
    else:
        return None
    return float(graph.degrees[reached].sum()) / 2


def floor_ms(op: str, graph: _graphs.BenchGraph, copy_tbps: float | None) -> float | None:
    """8 bytes per stored entry plus row pointers and two vectors, per unavoidable pass."""
    if not copy_tbps:
        return None
    nbytes = 8 * graph.nnz + 4 * (graph.n + 1) + 8 * graph.n
    return FLOOR_PASSES.get(op, 1) * nbytes / (copy_tbps * 1e12) * 1e3


def levels_of(op: str, result: Any) -> int | None:
    if op in ("bfs", "msbfs"):
        return int(np.asarray(result).max(initial=-1)) + 1
    return None


# --- the run --------------------------------------------------------------------------------


@dataclasses.dataclass
class Settings:
    graphs: tuple[str, ...]
    ops: tuple[str, ...]
    executors: tuple[str, ...]
    peers: tuple[str, ...]
    repeats: int
    cpu_repeats: int
    run_limit_s: float
    backend: str
    out: Path
    canonical: bool = False  # write the canonical set of the device's kind into ``results``
    results: Path = RESULTS_DIR
    shard: _shards.Shard | None = None  # a canonical run's share: staged, merged later
    claims: Path | None = None  # with a shard: the sitting's claims, shared by its shards


def is_full(settings: Settings) -> bool:
    """Whether the settings ask for every standard graph, op, hyblas executor and peer."""
    return (
        set(_graphs.FULL_GRAPHS) <= set(settings.graphs)
        and set(OPS) <= set(settings.ops)
        and set(EXECUTORS) <= set(settings.executors)
        and set(PEERS) <= set(settings.peers)
    )


@dataclasses.dataclass
class OwnProducts:
    """Whether a run asked of one hyblas executor ran any product on it: ``fell_back`` when
    it handed a product to another (an ExecutorFallback warning), ``ran`` when one of its
    products is in the run's trace."""

    fell_back: bool = False
    ran: bool = False

    @property
    def none(self) -> bool:
        """Every product went elsewhere: the row would time another executor's work."""
        return self.fell_back and not self.ran


@contextlib.contextmanager
def own_products(executor: str | None) -> Iterator[OwnProducts]:
    """Watch a run for :class:`OwnProducts` of ``executor`` (a name other than 'auto' and
    'reference', which run every product); otherwise watch nothing."""
    found = OwnProducts()
    if executor in (None, "auto", "reference"):
        yield found
        return
    with warnings.catch_warnings(record=True) as caught, hb.trace() as trace:
        warnings.simplefilter("always", hb.errors.ExecutorFallback)
        yield found
    found.fell_back = any(issubclass(w.category, hb.errors.ExecutorFallback) for w in caught)
    found.ran = any(row.executor == executor for row in trace)
    for w in caught:  # the others, as they would have been shown
        if not issubclass(w.category, hb.errors.ExecutorFallback):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def measure(
    impl: Impl,
    op: str,
    graph: _graphs.BenchGraph,
    settings: Settings,
    expected: dict[str, Any],
    *,
    check_only: bool = False,
) -> dict[str, Any]:
    """One row: warm-up + check, then the timed repeats (or why there are none). With
    ``check_only``, the checked runs only: what they give goes into ``expected`` (the group's
    reference for the rows after it), and the row has no time."""
    base = MULTI_SOURCE.get(op, op)
    sources = graph.graph500_sources if op in MULTI_SOURCE else [graph.source]
    row: dict[str, Any] = {
        "graph": graph.name,
        "op": op,
        "impl": impl.name,
        "n": graph.n,
        "nnz": graph.nnz,
    }
    if op.startswith("spmv:"):
        row["semiring"] = op.split(":", 1)[1]
        row["dtype"] = "bool" if op.endswith("lor_land") else "float32"
    if len(sources) == 0:
        return {**row, "skipped": "no non-isolated vertex to start from"}
    if op in MULTI_SOURCE and impl.executor not in (None, "auto") and "auto" in settings.executors:
        # Graph500's searches time hyblas as users run it; a named executor's search speed is
        # the single-source row's (the reference executor's grid search takes seconds: 16 of
        # them, repeated, would take a canonical run's call)
        return {
            **row,
            "skipped": f"{op} times hyblas:auto (as users run it); the {impl.executor!r} "
            f"executor's searches are timed in the {base} row",
        }
    per_source_ms, timed_runs, edges, levels = [], [], [], None
    repeats = settings.repeats if impl.device == "gpu" else settings.cpu_repeats
    if op in MULTI_SOURCE and impl.device != "gpu":
        # the sources are the repeats: Graph500 times each search once (on the CPU a search
        # of the larger graphs takes seconds, and there are 16)
        repeats = 1
    # a CPU peer's search is timed as Graph500 times one, then validates it: its checked
    # run is the timed one (it has no caches to warm; hyblas's rows are settled first)
    timed_by_check = op in MULTI_SOURCE and impl.device != "gpu" and impl.settle is None
    for source in sources:
        g = graph.with_source(int(source)) if op in MULTI_SOURCE else graph
        try:
            with run_limit(SETUP_LIMIT_S):  # untimed setup: conversions, uploads
                run = impl.prepare(base, g)
                synchronize()
            started = time.perf_counter()
            with run_limit(settings.run_limit_s), own_products(impl.executor) as own:
                result = run()
                synchronize()
        except peers.Unavailable as why:
            return {**row, "skipped": f"unavailable: {why}"}
        except RunLimitExceeded:
            synchronize()
            return {
                **row,
                "skipped": f"one run exceeds the {settings.run_limit_s:.0f} s limit",
                "lower_bound_ms": settings.run_limit_s * 1e3,
            }
        except Exception as exc:
            if not _out_of_memory(exc):
                raise
            return {**row, "skipped": f"out of memory: {type(exc).__name__}: {exc}"}
        first_s = time.perf_counter() - started
        if own.none:
            return {
                **row,
                "skipped": f"the {impl.executor!r} executor runs none of {base}'s products "
                "(each went to another executor): its times would be another row's",
            }
        host = impl.to_numpy(base, result, g)
        key = f"{base}@{source}"
        if key not in expected:
            expected[key] = (impl.name, host)
        else:
            why = mismatch(base, host, expected[key][1])
            if why:
                return {**row, "error": f"differs from {expected[key][0]}: {why}"}
        del result
        if check_only:
            continue
        timer = gpu_samples_ms if impl.device == "gpu" else cpu_samples_ms
        if timed_by_check:
            per_source_ms.append(first_s * 1e3)
            timed_runs.append(1)
        try:
            settling = settings.run_limit_s * hyblas_ops.SETTLE_RUNS + hyblas_ops.SETTLE_PENDING_S
            with run_limit(settings.run_limit_s * repeats + settling + 30):
                if impl.settle is not None:
                    settled = impl.settle(run, g)
                    row["settle_runs"] = settled.runs
                    if not settled.steady:
                        row["unsettled"] = True
                if not timed_by_check:
                    samples = timer(
                        run,
                        warmup=0,
                        repeats=repeats,
                        budget_s=TIMED_BUDGET_S,
                        least=TIMED_LEAST[impl.device],
                    )
                    per_source_ms.append(float(np.median(samples)))
                    timed_runs.append(len(samples))
        except RunLimitExceeded:
            synchronize()
            return {**row, "skipped": f"timed runs exceed the limit (first run {first_s:.1f} s)"}
        edges.append(traversed_edges(base, host, g))
        levels = levels_of(base, host)
        del run
    if check_only:
        return row
    row["median_ms"] = float(np.median(per_source_ms))
    row["repeats"] = min(timed_runs)  # per source
    if edges and edges[0] is not None:
        teps = [e / (ms * 1e-3) for e, ms in zip(edges, per_source_ms)]
        row["gteps"] = float(len(teps) / sum(1.0 / t for t in teps)) / 1e9 if all(teps) else 0.0
    if op in MULTI_SOURCE:
        row["sources"] = len(sources)
    if levels is not None:
        row["levels"] = levels
    return row


def _csr_bytes(graph: _graphs.BenchGraph) -> int:
    """The bytes of the graph's CSR arrays (row pointers, column indices, values)."""
    A = graph.A  # noqa: N806
    return sum(int(a.nbytes) for a in (A.indptr, A.indices, A.values))


def compile_ahead(shard: _shards.Shard | None) -> float:
    """hyblas's warmup steps, run before a canonical run on the GPU measures anything (a
    shard runs every ``count``-th step from its ``index``: the shards of one host fill one
    kernel cache together), so that a row's checked first run, which ``--run-limit-s``
    bounds, does not also wait for the kernels to compile. Returns the seconds it took."""
    started = time.perf_counter()
    index, count = (shard.index, shard.count) if shard is not None else (0, 1)
    for position, step in enumerate(hb.warmup.steps()):
        if position % count == index:
            step.run()
    synchronize()
    return time.perf_counter() - started


def _fresh_memory(graph: _graphs.BenchGraph, impl: Impl, backend: str) -> None:
    """Before an implementation's row on the GPU: its graph's caches cleared where it is
    hyblas (the layouts an op builds count in its own peak, not in the next op's), the pool's
    unused blocks freed."""
    if backend != "cuda":
        return
    if impl.executor is not None:  # a hyblas row
        graph.A.clear_cache()
        graph.weights.clear_cache()
    gc.collect()
    free_gpu_memory_pool()


def _recheck(
    impls: list[Impl],
    earlier: dict[str, dict[str, Any]],
    op: str,
    graph: _graphs.BenchGraph,
    settings: Settings,
    expected: dict[str, Any],
) -> None:
    """Fill ``expected`` from the first implementation whose kept row has a time (it was
    checked against the group's reference then), by its checked runs; nothing where none has.
    A failure leaves ``expected`` to the next row, as in a sitting that measures the group
    whole."""
    first = next((i for i in impls if "median_ms" in earlier.get(i.name, {})), None)
    if first is None:
        return
    _fresh_memory(graph, first, settings.backend)
    try:
        measure(first, op, graph, settings, expected, check_only=True)
    except Exception:  # a row of its own is not wanted: the next row sets the reference
        traceback.print_exc()
        expected.clear()
    graph.drop_peer_setups()


def run_graph(
    name: str,
    impls: list[Impl],
    settings: Settings,
    copy_tbps: float | None,
    emit: Callable[[dict[str, Any]], None],
    ops: tuple[str, ...] | None = None,
    op_done: Callable[[str, str], None] | None = None,
    take: Callable[[str, str], bool] | None = None,
    kept: list[dict[str, Any]] | None = None,
) -> dict[str, Any] | None:
    """Measure ``ops`` (default: the settings') on graph ``name``; ``op_done(graph, op)`` after
    each op's rows are all emitted. With ``take``, an op is measured only if ``take(name, op)``
    claims it, asked just before (the graph is built once the first is claimed). ``kept``:
    rows an earlier sitting measured of an op it did not finish; their implementations are not
    measured again, and the first of them with a time runs its checked runs again (untimed) to
    be the reference of the others. Returns the graph's details, or None where no op was
    claimed."""
    ops = list(settings.ops if ops is None else ops)
    while take is not None and ops and not take(name, ops[0]):
        ops.pop(0)
    if not ops:
        return None
    free_gpu_memory_pool()
    started = time.perf_counter()
    graph = _graphs.build(name, settings.backend)
    synchronize()
    info = {**_graphs.describe(graph), "build_s": time.perf_counter() - started}
    print(f"# {name}: n={graph.n:,} nnz={graph.nnz:,} built in {info['build_s']:.1f} s", flush=True)
    peak = gpu_memory_pool_bytes()
    if any(impl.executor is None for impl in impls):  # a peer among them
        started = time.perf_counter()
        graph.peer_graph()
        info["peer_graph_s"] = time.perf_counter() - started
    for position, op in enumerate(ops):
        if position and take is not None and not take(name, op):
            continue
        expected: dict[str, Any] = {}
        earlier = {r["impl"]: r for r in kept or () if (r["graph"], r["op"]) == (name, op)}
        for impl in impls:
            if not impl.ops(MULTI_SOURCE.get(op, op)) or impl.name in earlier:
                continue
            if earlier and not expected:  # the kept rows' reference, once
                _recheck(impls, earlier, op, graph, settings, expected)
            _fresh_memory(graph, impl, settings.backend)
            started = time.perf_counter()
            try:
                with device_memory_peak() as memory:
                    row = measure(impl, op, graph, settings, expected)
                if settings.backend == "cuda":
                    row["peak_gpu_GB"] = memory.above_start / 1e9
                    row["peak_over_csr"] = memory.above_start / _csr_bytes(graph)
            except Exception as exc:  # a failing implementation must not end the run
                row = {
                    "graph": name,
                    "op": op,
                    "impl": impl.name,
                    "n": graph.n,
                    "nnz": graph.nnz,
                    "error": f"{type(exc).__name__}: {exc}",
                }
                traceback.print_exc()
            row["wall_s"] = time.perf_counter() - started  # what the row cost the run
            floor = floor_ms(MULTI_SOURCE.get(op, op), graph, copy_tbps)
            if floor is not None and "median_ms" in row:
                row["floor_ms"] = floor
                row["floor_fraction"] = floor / row["median_ms"]
            emit(row)
            graph.drop_peer_setups()  # each row makes its own; none held while the next runs
            peak = max(peak, gpu_memory_pool_bytes())
            gc.collect()
            if "median_ms" not in row:  # a stopped run may leave blocks behind
                free_gpu_memory_pool()
        expected.clear()
        if op_done is not None:
            op_done(name, op)
    info["peak_gpu_pool_GB"] = max(peak, gpu_memory_pool_bytes()) / 1e9
    graph.release()
    del graph
    gc.collect()
    free_gpu_memory_pool()
    return info


def result_document(
    settings: Settings,
    rows: list[dict],
    graphs_info: list[dict],
    copy_tbps: float | None,
    device: str,
    complete: bool = True,
) -> dict[str, Any]:
    """``{"device", "kind", "date", "commit", "copy_TBps", "full", "canonical", "rows": [row...]}``
    plus run details.

    row = ``{"graph", "op", "impl", "median_ms", "n", "nnz", "wall_s", "semiring"?, "dtype"?,
    "gteps"?, "levels"?, "floor_ms"?, "settle_runs"?, "unsettled"?, "peak_gpu_GB"?,
    "peak_over_csr"?}`` (``wall_s``: what the row cost the run, in seconds)
    (``unsettled``: hyblas was timed before its steady state, see :func:`hyblas_ops.settle`;
    the peak: device memory the
    row's implementation took above what was in use before it, on the GPU; over the graph's CSR
    bytes); a row that was not timed has ``"skipped"`` or ``"error"``
    instead of ``"median_ms"``. ``full``: every standard graph, op, executor and peer was
    asked for and the run got to its end with every peer usable (``complete``).
    """
    return {
        "device": device,
        "kind": device_kind(device),
        "date": datetime.date.today().isoformat(),
        "commit": commit_id(),
        "copy_TBps": copy_tbps,
        "full": complete and is_full(settings),
        "canonical": settings.canonical,
        "rows": rows,
        "graphs": graphs_info,
        "settings": settings_document(settings),
        "python": sys.version.split()[0],
        "notes": {
            "timing": "warm-up run checked against the first implementation; hyblas then runs "
            "until a run adds nothing to the graph's caches and no layout is pending "
            "(settle_runs: auto builds a layout only once its savings pay for it; unsettled: "
            "timed before that steady state, past the settling limits); "
            "then CUDA events (GPU) or "
            "wall clock (CPU), median of the repeats",
            "floor_ms": "bandwidth floor: 8 B per stored entry + row pointers + 2 vectors per "
            "unavoidable pass (pagerank20: 20 passes, cdlp10: 10, bc: 2, others 1) at "
            "copy_TBps",
            "gteps": "Graph500: undirected edges in the reached part per second (harmonic mean "
            "over sources for bfs16/sssp16); spmv/pagerank20: stored entries per second",
        },
    }


def settings_document(settings: Settings) -> dict[str, Any]:
    """The settings as they read back from the JSON (paths as text, tuples as lists)."""
    return json.loads(json.dumps(dataclasses.asdict(settings), default=str))


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


#: The narrowing options: none of them goes with --canonical.
NARROWING = ("graphs", "ops", "executors", "peers")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--graphs",
        help=f"comma list of {', '.join(_graphs.GRAPHS)} (default: "
        f"{','.join(_graphs.FULL_GRAPHS)}; with --backend cpu {','.join(_graphs.CPU_GRAPHS)})",
    )
    parser.add_argument(
        "--ops",
        help=f"comma list of {', '.join(dict.fromkeys(OPS + tuple(MULTI_SOURCE)))} "
        f"(default: {','.join(OPS)})",
    )
    parser.add_argument(
        "--executors",
        help=f"hyblas executors, comma list of {', '.join(EXECUTORS)} (default: reference; "
        "every one with --canonical)",
    )
    parser.add_argument(
        "--peers",
        help=f"comma list of {', '.join(PEERS)} ('' for none; default: all)",
    )
    parser.add_argument(
        "--repeats", type=int, default=5, help="GPU timed runs (median; fewer past TIMED_BUDGET_S)"
    )
    parser.add_argument("--cpu-repeats", type=int, default=3, help="CPU timed runs (median)")
    parser.add_argument(
        "--run-limit-s",
        type=float,
        default=20.0,
        help="a single run longer than this is recorded as such, not timed",
    )
    parser.add_argument(
        "--backend",
        choices=("cpu", "cuda"),
        default=None,
        help="hyblas backend (default: cuda when usable)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("out"),
        help="output directory (default ./out; never inside benchmarks/results)",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="tiny graphs on the CPU, 1 repeat: checks the harness in seconds",
    )
    parser.add_argument(
        "--canonical",
        action="store_true",
        help="the full run (every graph, op, executor and peer; GPU only; no narrowing option), "
        "written as the canonical set <results>/<kind>.json/.md/.png",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --canonical: continue the run staged in --out (same device, commit and "
        "settings), keeping the (graph, op) groups it finished",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=RESULTS_DIR,
        help="with --canonical: where the canonical set goes (default: benchmarks/results)",
    )
    parser.add_argument(
        "--shard",
        metavar="K/N",
        help="with --canonical: measure shard K of N (every N-th (graph, op) group, or with "
        "--claims those it claims; one "
        "process per GPU of a host), staged in --out for --merge-shards",
    )
    parser.add_argument(
        "--claims",
        type=Path,
        metavar="DIR",
        help="with --shard: the shards take the groups in order as each gets free, claiming "
        "each in DIR (a fresh directory per sitting, the same for all its shards)",
    )
    parser.add_argument(
        "--merge-shards",
        action="store_true",
        help="join the finished shards staged in --out into the canonical set (no GPU needed)",
    )
    args = parser.parse_args(argv)
    if args.merge_shards:
        others = [
            a for a in ("canonical", "resume", "shard", "claims", "smoke") if getattr(args, a)
        ]
        if others:
            parser.error(f"--merge-shards takes only --out and --results, not --{others[0]}")
        written = merge_shards(args.out, args.results)
        print(f"canonical set: {', '.join(str(p) for p in written)}")
        return 0
    if args.claims is not None and args.shard is None:
        parser.error("--claims shares the groups among the shards of a --shard run")
    shard = None
    if args.shard is not None:
        if not args.canonical:
            parser.error("--shard splits a --canonical run")
        try:
            shard = _shards.Shard.parse(args.shard)
        except ValueError as why:
            parser.error(str(why))
    if args.canonical:
        narrowed = [f"--{name}" for name in NARROWING if getattr(args, name) is not None]
        narrowed += ["--smoke"] if args.smoke else []
        if narrowed:
            parser.error(f"--canonical is the full run: it takes no {', '.join(narrowed)}")
        if args.backend == "cpu" or not hb.cuda_available():
            parser.error(
                "--canonical needs a GPU: the canonical sets are per GPU kind (a CPU run lacks "
                "the GPU peers, and its times depend on the host)"
            )
        if commit_id() == "unknown":
            parser.error("no git here: set HYBLAS_COMMIT to the commit of the measured tree")
        args.executors = ",".join(EXECUTORS)
    elif args.resume:
        parser.error("--resume continues a --canonical run")
    if in_results(args.out):
        parser.error(f"--out {args.out} lies in {RESULTS_DIR}, which holds only canonical sets")
    if args.smoke:
        args.graphs = ",".join(_graphs.SMOKE_GRAPHS)
        args.backend = "cpu"
        args.repeats = args.cpu_repeats = 1
    backend = args.backend or ("cuda" if hb.cuda_available() else "cpu")
    settings = Settings(
        graphs=_names(
            args.graphs,
            ",".join(_graphs.FULL_GRAPHS if backend == "cuda" else _graphs.CPU_GRAPHS),
            _graphs.GRAPHS,
            "graph",
        ),
        ops=_names(args.ops, ",".join(OPS), tuple(dict.fromkeys(OPS + tuple(MULTI_SOURCE))), "op"),
        executors=_names(args.executors, "reference", EXECUTORS, "executor"),
        peers=_names(args.peers, ",".join(PEERS), tuple(PEERS), "peer"),
        repeats=max(args.repeats, 1),
        cpu_repeats=max(args.cpu_repeats, 1),
        run_limit_s=args.run_limit_s,
        backend=backend,
        out=args.out,
        canonical=args.canonical,
        results=args.results,
        shard=shard,
        claims=args.claims,
    )
    for name in settings.graphs:
        if reason := _graphs.unavailable(name):
            parser.error(reason)
    return run(settings, resume=args.resume)


def _names(text: str | None, default: str, known: tuple[str, ...], what: str) -> tuple[str, ...]:
    text = default if text is None else text
    chosen = tuple(t for t in (s.strip() for s in text.split(",")) if t)
    unknown = [t for t in chosen if t not in known]
    if unknown:
        raise SystemExit(f"unknown {what}(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return chosen


def _write(path: Path, text: str) -> None:
    """Replace ``path``'s content at once (a run killed while writing leaves the old file)."""
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    os.replace(part, path)


def resumable(path: Path, settings: Settings, device: str) -> dict[str, Any]:
    """The staged document of an unfinished run of the same device, commit and settings
    (with the rows of the group it was measuring, which the next sitting keeps); SystemExit
    when there is none."""
    if not path.exists():
        raise SystemExit(f"nothing to resume: {path} does not exist")
    doc = json.loads(path.read_text())
    mine, theirs = settings_document(settings), doc.get("settings", {})
    own = ("out", "results", "claims")  # where a sitting keeps things, not what it measures
    differ = [k for k in mine if k not in own and theirs.get(k) != mine[k]]
    differ += [k for k, v in (("device", device), ("commit", commit_id())) if doc.get(k) != v]
    if differ:
        raise SystemExit(f"cannot resume {path}: its {', '.join(differ)} differ from this run's")
    return doc


def run(settings: Settings, *, resume: bool = False) -> int:
    """Run every graph; write JSON, markdown and PNG under ``settings.out``, and with
    ``settings.canonical`` the canonical set under ``settings.results`` once every (graph, op)
    is done. ``resume``: continue the canonical run staged in ``settings.out``. Exit status 1
    if any implementation disagreed with the reference or failed."""
    with hb.using_backend(settings.backend):
        device = device_name()
        copy_tbps = copy_bandwidth_tbps() if settings.backend == "cuda" else None
        impls = [hyblas_impl(e, settings.backend) for e in settings.executors]
        unavailable = []
        for module in peer_modules(settings.peers):
            reason = module.available()
            if reason is None and module.DEVICE == "gpu" and settings.backend != "cuda":
                reason = "GPU peer on a CPU-only run"
            if reason is None:
                impls.append(peer_impl(module))
            else:
                unavailable.append({"impl": module.NAME, "skipped": reason})
        if settings.canonical and unavailable:
            raise SystemExit(
                "--canonical measures every peer; not usable here: "
                + "; ".join(f"{p['impl']} ({p['skipped']})" for p in unavailable)
            )
        settings.out.mkdir(parents=True, exist_ok=True)
        if settings.canonical and settings.shard is not None:
            stem = settings.shard.stem(device_kind(device))
        elif settings.canonical:
            stem = f"canonical-{device_kind(device)}"
        else:
            stem = f"{slug(device)}-{datetime.date.today().isoformat()}"
        path = settings.out / f"{stem}.json"
        earlier = resumable(path, settings, device) if resume else {}
        rows: list[dict[str, Any]] = earlier.get("rows", [])
        graphs_info: list[dict[str, Any]] = earlier.get("graphs", [])
        done = {(graph, op): None for graph, op in earlier.get("done", [])}
        parts = [*earlier.get("parts", []), {"started": _now()}]
        claims = None if settings.claims is None else _shards.Claims(settings.claims)
        mine = _shards.groups(settings.graphs, settings.ops, None if claims else settings.shard)
        others = set()
        if claims is not None and earlier:
            others = _shards.done_by_others(settings.out, settings.shard, earlier)
        todo = [group for group in mine if group not in done and group not in others]
        # the groups this shard was measuring when its last sitting stopped: kept, its own
        begun = {(r["graph"], r["op"]) for r in rows} - done.keys()
        if claims is not None:
            begun = {group for group in begun if group in todo and claims.take(*group)}
        rows = [r for r in rows if (group := (r["graph"], r["op"])) in done or group in begun]
        finished = False
        if settings.canonical and settings.backend == "cuda" and todo:
            parts[-1]["compiled_ahead_s"] = compile_ahead(settings.shard)
            print(f"# kernels compiled ahead in {parts[-1]['compiled_ahead_s']:.1f} s", flush=True)

        def save() -> None:
            complete = finished and not unavailable
            doc = result_document(settings, rows, graphs_info, copy_tbps, device, complete)
            doc["unavailable_peers"] = unavailable
            doc["done"] = list(done)
            doc["parts"] = parts
            if settings.shard is not None:
                doc["shard"] = [settings.shard.index, settings.shard.count]
            _write(path, json.dumps(doc, indent=1, default=_json_default))
            _write(path.with_suffix(".md"), markdown(doc))

        def emit(row: dict[str, Any]) -> None:
            rows.append(row)
            print(one_line(row), flush=True)
            save()  # partial results survive a run that is cut short

        def op_done(graph: str, op: str) -> None:
            done[graph, op] = None
            save()

        save()  # staged at once: a sitting stopped within its first group can still resume
        take = None if claims is None else (lambda g, o: (g, o) in begun or claims.take(g, o))
        kept = [r for r in rows if (r["graph"], r["op"]) in begun]
        for name in settings.graphs:
            ops = tuple(op for graph, op in todo if graph == name)
            if ops:
                info = run_graph(
                    name,
                    impls,
                    settings,
                    copy_tbps,
                    emit,
                    ops=ops,
                    op_done=op_done,
                    take=take,
                    kept=kept,
                )
                if info is not None and all(g["graph"] != name for g in graphs_info):
                    graphs_info.append(info)  # a resumed sitting keeps the first build's
        finished = True
        save()
        from .report import bar_chart  # matplotlib only here

        doc = json.loads(path.read_text())
        bar_chart(doc, path.with_suffix(".png"))
        print(markdown(doc))
        print(f"wrote {path}, {path.with_suffix('.md')}, {path.with_suffix('.png')}")
        if settings.canonical and settings.shard is not None:
            print(
                f"shard {settings.shard.index} of {settings.shard.count} staged; once every "
                f"shard is done: python -m benchmarks.run --merge-shards --out {settings.out}"
            )
        elif settings.canonical:
            written = write_canonical(path, settings.results, device_kind(device))
            print(f"canonical set: {', '.join(str(p) for p in written)}")
    return 1 if any("error" in row for row in rows) else 0


def merge_shards(out: Path, results: Path) -> list[Path]:
    """Join the finished shards staged in ``out`` (one kind's) into ``<out>/canonical-<kind>``
    (JSON, markdown, PNG) and write that as the kind's canonical set; SystemExit if the shards
    are not one finished run (:func:`benchmarks.shards.merge`)."""
    from .report import bar_chart  # matplotlib only here

    found = _shards.shard_files(out)
    if len(found) != 1:
        kinds = ", ".join(sorted(found)) or "none"
        raise SystemExit(f"{out}: need the shards of one device kind to merge, found {kinds}")
    ((kind, paths),) = found.items()
    docs = [json.loads(path.read_text()) for path in paths]
    merged = _shards.merge(docs)
    path = out / f"canonical-{kind}.json"
    _write(path, json.dumps(merged, indent=1))
    _write(path.with_suffix(".md"), markdown(merged))
    bar_chart(merged, path.with_suffix(".png"))
    return write_canonical(path, results, kind)


def write_canonical(staged: Path, results: Path, kind: str) -> list[Path]:
    """Copy the finished run staged at ``staged`` to the canonical set of ``kind`` in
    ``results`` (JSON, markdown, PNG), replacing that kind's previous set; regenerate the
    README there when ``results`` is this checkout's results folder."""
    from .report import bar_chart, write_readme

    results.mkdir(parents=True, exist_ok=True)
    text = staged.read_text()
    doc = json.loads(text)
    written = [results / f"{kind}.json", results / f"{kind}.md"]
    _write(written[0], text)
    _write(written[1], markdown(doc))
    png = results / f"{kind}.png"
    if bar_chart(doc, png) is None:
        png.unlink(missing_ok=True)  # no stale chart of an earlier run beside the new numbers
    else:
        written.append(png)
    if results.resolve() == RESULTS_DIR:
        written.append(write_readme(results))
    return written


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return to_numpy(value).tolist()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def one_line(row: dict[str, Any]) -> str:
    what = f"{row['graph']:>9} {row['op']:<16} {row['impl']:<18}"
    if "median_ms" in row:
        extra = f" {row['gteps']:.2f} GTEPS" if row.get("gteps") else ""
        return f"{what} {row['median_ms']:10.3f} ms{extra}"
    return f"{what} {row.get('error') or row.get('skipped')}"


def markdown(doc: dict[str, Any]) -> str:
    """The table: one line per (graph, op, impl), with the ratio to the fastest peer."""
    from .report import markdown_table

    return markdown_table(doc)


if __name__ == "__main__":
    sys.exit(main())
