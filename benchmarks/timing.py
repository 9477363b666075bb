"""Timing helpers: CUDA events after warm-up, median of repeats (METHOD.md)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from hyblas.backend import cuda_event_timer, synchronize, xp_for


def time_gpu_ms(fn: Callable[[], Any], *, warmup: int = 3, repeats: int = 20) -> float:
    """Median milliseconds of ``fn()`` on the current CUDA stream, timed with events."""
    for _ in range(warmup):
        fn()
    synchronize()
    samples = []
    timer = cuda_event_timer()
    for _ in range(repeats):
        timer.start()
        fn()
        samples.append(timer.stop())
    return statistics.median(samples)


def time_cpu_ms(fn: Callable[[], Any], *, warmup: int = 1, repeats: int = 3) -> float:
    """Median wall-clock milliseconds of ``fn()``."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def copy_bandwidth_tbps(nbytes: int = 2**30) -> float:
    """Device-to-device copy bandwidth in TB/s, counting bytes read plus bytes written."""
    cp = xp_for("cuda")
    src = cp.random.random(nbytes // 8)
    dst = cp.empty_like(src)
    ms = time_gpu_ms(lambda: cp.copyto(dst, src), warmup=3, repeats=20)
    return 2 * src.nbytes / (ms * 1e-3) / 1e12
