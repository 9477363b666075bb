"""``python -m hyblas warmup``: compile ahead the CUDA kernels the common operations need.

Every kernel is compiled the first time an operation needs it and cached on disk by CuPy
(``hyblas/backend/warmth.py`` keeps the marker a warmup leaves there, and logs the first-use
warning on a machine without one). A warmup runs small versions of the common work on the GPU, so
that their kernels are compiled once, now, instead of during a user's first calls: the
algorithms on a graph of the generator's default type and on float64 weights, and the
products of the built-in executors over the common semirings and value types, and the
traversals again on a larger graph, whose wide frontiers take the bitmap kernels. Kernels do
not depend on a graph's size otherwise (below 2**31 stored entries, where the index type
changes), so a small graph compiles what a large one needs. At the end it leaves the marker
that turns the first-use notice off.

``python -m hyblas warmup --bundle DIR`` (:func:`build_bundle`) makes a kernel bundle of the
same work for a packager to ship (``hyblas/_kernels`` in a wheel): hyblas's modules as cubins
for the listed architectures, CuPy's own kernels as cache files
(``hyblas/backend/kernel_bundle.py``; the install guide).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import algorithms, generators, monoid, ops
from . import semiring as _semiring
from .backend import cupy_module, synchronize, using_backend
from .backend.kernel_bundle import KernelBundle, compile_for, write_bundle
from .backend.runtime import recording_compiles
from .backend.warmth import cache_files, kernel_cache_dir, mark_warm
from .containers.matrix import Matrix
from .containers.vector import Vector
from .errors import BackendError
from .executors import registry

__all__ = ["WarmupStep", "WarmupReport", "warmup", "steps", "build_bundle"]

# the semirings of the algorithms and of most user products, on the value types they take
PRODUCT_SEMIRINGS = ("plus_times", "min_plus", "any_pair", "lor_land", "min_second", "plus_pair")
PRODUCT_TYPES = (np.float32, np.float64, np.int64, np.bool_)
_SCALE = 10  # 1,024 vertices: every algorithm's kernels, in seconds
_LARGE_SCALE = 16  # 65,536 vertices: the kernels of wide frontiers (bitmaps) too


@dataclass(frozen=True)
class WarmupStep:
    """One piece of warmup work: ``run()`` compiles what it needs."""

    name: str
    run: Callable[[], Any]


@dataclass(frozen=True)
class WarmupReport:
    """What a warmup did: the steps' names and seconds, the kernel files added to the cache."""

    seconds: dict[str, float]
    cache_files_added: int
    marker: str


def _traversal_steps(A: Matrix, label: str = "") -> Iterator[WarmupStep]:  # noqa: N803
    W = generators.random_weights(A, 1.0, 10.0, seed=1, dtype=np.float64)  # noqa: N806
    V = generators.random_weights(A, 1.0, 10.0, seed=1)  # noqa: N806 - A's type, not iso
    degrees = ops.reduce_rows(A, monoid.plus[np.int64])  # as the demo finds its source
    hub = int(np.argmax(degrees.to_dense(fill_value=0)))
    yield WarmupStep(
        "degrees" + label, lambda: ops.reduce_rows(A, monoid.plus[np.int64]).to_dense(0)
    )
    yield WarmupStep("bfs" + label, lambda: algorithms.bfs(A, hub))
    yield WarmupStep(
        "bfs with parents" + label, lambda: algorithms.bfs(A, hub, return_parents=True)
    )
    yield WarmupStep("pagerank" + label, lambda: algorithms.pagerank(A, tol=1e-9, max_iter=100))
    yield WarmupStep("connected_components" + label, lambda: algorithms.connected_components(A))
    for name, weights in (("sssp", A), ("sssp float32", V), ("sssp float64", W)):
        yield WarmupStep(name + label, lambda weights=weights: algorithms.sssp(weights, hub))


def _algorithm_steps(A: Matrix) -> Iterator[WarmupStep]:  # noqa: N803 - math spelling
    yield from _traversal_steps(A)
    hub = int(np.argmax(ops.reduce_rows(A, monoid.plus[np.int64]).to_dense(fill_value=0)))
    yield WarmupStep("triangle_count", lambda: algorithms.triangle_count(A))
    yield WarmupStep(
        "local_clustering_coefficient", lambda: algorithms.local_clustering_coefficient(A)
    )
    yield WarmupStep("cdlp", lambda: algorithms.cdlp(A, 3))
    yield WarmupStep("core_number", lambda: algorithms.core_number(A))
    yield WarmupStep(
        "betweenness_centrality", lambda: algorithms.betweenness_centrality(A, sources=4)
    )
    yield WarmupStep(
        "multi_source_bfs", lambda: algorithms.multi_source_bfs(A, [hub, 0, 1], progress=False)
    )


def _product_steps(A: Matrix) -> Iterator[WarmupStep]:  # noqa: N803
    n = A.nrows
    rng = np.random.default_rng(0)
    for dtype in PRODUCT_TYPES:
        M = A.dup(dtype)  # noqa: N806
        full = Vector.from_dense(rng.integers(1, 5, n).astype(dtype))
        some = Vector.from_coo(np.arange(0, n, 7), np.ones(-(-n // 7), dtype=dtype), size=n)
        for name in PRODUCT_SEMIRINGS:
            semiring = _semiring[name]
            if semiring.types is not None and np.dtype(dtype) not in semiring.types:
                continue
            for executor in registry.available("cuda"):

                def run(M=M, semiring=semiring, executor=executor, full=full, some=some) -> None:  # noqa: N803
                    ops.mxv(M, full, semiring, executor=executor)
                    ops.vxm(some, M, semiring, mask=~some.S, executor=executor)

                yield WarmupStep(f"{name} {np.dtype(dtype).name} {executor}", run)


def steps(products: bool = True) -> Iterator[WarmupStep]:
    """The warmup's work, in order (the products' only with ``products``)."""
    A = generators.kronecker(_SCALE, 16, seed=0)  # noqa: N806 - the demo's graph type
    yield from _algorithm_steps(A)
    # where frontiers grow to a fair part of the graph the executors' products return bitmaps
    # and other kernels take over (SSSP's bitmap improve step): a larger graph reaches them
    large = generators.kronecker(_LARGE_SCALE, 16, seed=0)
    yield from _traversal_steps(large, f", scale {_LARGE_SCALE}")
    if products:
        yield from _product_steps(A)


def warmup(*, products: bool = True, progress: Callable[[str], None] | None = None) -> WarmupReport:
    """Compile the common kernels on the GPU now, and mark this machine warm.

    Parameters
    ----------
    products : bool
        Also the products of every built-in executor over the common semirings and types
        (``PRODUCT_SEMIRINGS`` x ``PRODUCT_TYPES``), not only the algorithms.
    progress : callable, optional
        Called with one line per step (e.g. ``print``).

    Returns
    -------
    WarmupReport

    Raises
    ------
    BackendError
        Where no GPU is usable (the CPU backend compiles nothing).

    Examples
    --------
    >>> if hb.cuda_available():  # doctest: +SKIP
    ...     hb.warmup.warmup(progress=print)
    """
    cp = cupy_module()
    if cp is None:
        raise BackendError("warmup: no usable GPU (the 'cpu' backend compiles no kernels)")
    before = len(cache_files(cp))
    seconds: dict[str, float] = {}
    with using_backend("cuda"):
        for step in steps(products):
            started = time.perf_counter()
            step.run()
            synchronize()
            seconds[step.name] = time.perf_counter() - started
            if progress is not None:
                progress(f"  {step.name:<44} {seconds[step.name]:7.2f} s")
    marker = mark_warm(cp)
    return WarmupReport(seconds, len(cache_files(cp)) - before, str(marker))


def build_bundle(
    directory: str | os.PathLike[str],
    capabilities: Iterable[str] = (),
    *,
    products: bool = True,
    progress: Callable[[str], None] | None = None,
) -> KernelBundle:
    """Run the warmup's work and write what it compiled as a kernel bundle in ``directory``.

    Every hyblas module the work compiles is compiled again with NVRTC as a cubin for this
    GPU's architecture and for each of ``capabilities``; the files CuPy's kernel cache holds
    after the work (CuPy's own kernels and the warm marker; not hyblas's modules, which the
    cubins replace) become its ``cupy-cache/``. Run it in a process whose CuPy cache
    directory holds nothing else: ``python -m hyblas warmup --bundle`` points
    ``CUPY_CACHE_DIR`` at a new empty directory first.

    Parameters
    ----------
    directory : path
        Where the bundle goes (``hyblas/_kernels`` to ship it in the package).
    capabilities : iterable of str
        Compute capabilities to compile for besides this GPU's, as CuPy spells them ("80",
        "90", "100").
    products : bool
        As :func:`warmup`.
    progress : callable, optional
        Called with one line per step.

    Returns
    -------
    KernelBundle
        The bundle as read back from ``directory``.

    Examples
    --------
    >>> if hb.cuda_available():  # doctest: +SKIP
    ...     hb.warmup.build_bundle("hyblas/_kernels", ["80", "90", "100"])
    """
    cp = cupy_module()
    if cp is None:
        raise BackendError("build_bundle: no usable GPU (the warmup's work runs on it)")
    with recording_compiles() as record:
        warmup(products=products, progress=progress)
    capability = cp.cuda.Device().compute_capability
    targets = sorted({capability, *capabilities}, key=int)
    if progress is not None:
        progress(f"  compiling {len(record.requests)} modules for sm_{', sm_'.join(targets)}")
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        cubins = [
            {target: pool.submit(compile_for, cp, request, target) for target in targets}
            for request in record.requests
        ]
        modules = [
            (request, {target: job.result() for target, job in jobs.items()})
            for request, jobs in zip(record.requests, cubins, strict=True)
        ]
    cache = kernel_cache_dir(cp)
    seed = {name: cache / name for name in cache_files(cp) - record.cache_files}
    return write_bundle(
        Path(directory),
        modules,
        seed,
        cupy_version=cp.__version__,
        cache_capability=capability,
    )
