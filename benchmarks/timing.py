"""Timing helpers: CUDA events after warm-up, median of repeats (METHOD.md)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from hyblas.backend import cuda_event_timer, synchronize, xp_for


def time_gpu_ms(fn: Callable[[], Any], **timing: Any) -> float:
    """Median milliseconds of ``fn()`` on the current CUDA stream, timed with events
    (:func:`gpu_samples_ms`, which takes ``timing``)."""
    return statistics.median(gpu_samples_ms(fn, **timing))


def gpu_samples_ms(
    fn: Callable[[], Any],
    *,
    warmup: int = 3,
    repeats: int = 20,
    budget_s: float | None = None,
    least: int = 1,
) -> list[float]:
    """Milliseconds of each timed ``fn()``, by CUDA events after ``warmup`` runs: ``repeats``
    of them, or with ``budget_s`` fewer once there are at least ``least`` and they add up to
    the budget (as ``triton.testing.do_bench`` sizes its repeats by time: a run of seconds
    needs few samples, and each costs as much)."""
    for _ in range(warmup):
        fn()
    synchronize()
    timer = cuda_event_timer()

    def one() -> float:
        timer.start()
        fn()
        return timer.stop()

    return _samples(one, repeats, budget_s, least)


def time_cpu_ms(fn: Callable[[], Any], **timing: Any) -> float:
    """Median wall-clock milliseconds of ``fn()`` (:func:`cpu_samples_ms`, which takes
    ``timing``)."""
    return statistics.median(cpu_samples_ms(fn, **timing))


def cpu_samples_ms(
    fn: Callable[[], Any],
    *,
    warmup: int = 1,
    repeats: int = 3,
    budget_s: float | None = None,
    least: int = 1,
) -> list[float]:
    """Wall-clock milliseconds of each timed ``fn()`` after ``warmup`` runs; ``repeats``,
    ``budget_s`` and ``least`` as in :func:`gpu_samples_ms`."""
    for _ in range(warmup):
        fn()

    def one() -> float:
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1e3

    return _samples(one, repeats, budget_s, least)


def _samples(
    one: Callable[[], float], repeats: int, budget_s: float | None, least: int
) -> list[float]:
    samples: list[float] = []
    while len(samples) < repeats:
        samples.append(one())
        spent = sum(samples) * 1e-3
        if budget_s is not None and len(samples) >= least and spent >= budget_s:
            break
    return samples


def copy_bandwidth_tbps(nbytes: int = 2**30) -> float:
    """Device-to-device copy bandwidth in TB/s, counting bytes read plus bytes written."""
    cp = xp_for("cuda")
    src = cp.random.random(nbytes // 8)
    dst = cp.empty_like(src)
    ms = time_gpu_ms(lambda: cp.copyto(dst, src), warmup=3, repeats=20)
    return 2 * src.nbytes / (ms * 1e-3) / 1e12
