"""device_memory_peak: the most device memory a block held at once beyond what it started
with (zeros on the CPU)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import hyblas as hb
from hyblas.backend import device_memory_peak, free_gpu_memory_pool, xp_for


def test_the_cpu_backend_counts_nothing() -> None:
    if hb.cuda_available():
        pytest.skip("a GPU is usable here (test_the_peak_is_the_most_held_at_once)")
    with device_memory_peak() as peak:
        np.ones(1000)
    assert (peak.start_bytes, peak.peak_bytes, peak.above_start) == (0, 0, 0)


@pytest.mark.gpu
def test_the_peak_is_the_most_held_at_once() -> None:
    if not hb.cuda_available():
        pytest.skip("CuPy or a usable GPU is not available")
    cp = xp_for("cuda")
    kept = cp.ones(1 << 20, dtype=np.float64)  # in use before: not counted
    gc.collect()
    free_gpu_memory_pool()
    with device_memory_peak() as peak:
        first = cp.zeros(4 << 20, dtype=np.float64)  # 32 MiB
        del first
        second = cp.zeros(2 << 20, dtype=np.float64)  # 16 MiB, after the first was freed
        third = cp.zeros(2 << 20, dtype=np.float64)  # 16 MiB: 32 MiB at once again
        del second, third
    assert peak.start_bytes >= kept.nbytes
    assert 32 << 20 <= peak.above_start < 40 << 20  # the pool rounds sizes up a little
