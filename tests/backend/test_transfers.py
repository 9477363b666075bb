"""``hyblas.backend.to_backend``: host data moved to a backend keeps every value and dtype
exactly, a single value included (on the GPU a few values go as one asynchronous copy)."""

from __future__ import annotations

import numpy as np
import pytest

import hyblas as hb
from hyblas.backend import to_backend, to_numpy

SINGLE_VALUES = [
    np.array([True]),
    np.array([-128], dtype=np.int8),
    np.array([2**64 - 1], dtype=np.uint64),
    np.array([-(2**63)], dtype=np.int64),
    np.array([7], dtype=np.int32),
    np.array([0.0], dtype=np.float32),
    np.array([-0.0], dtype=np.float32),
    np.array([-0.0], dtype=np.float64),
    np.array([np.nan], dtype=np.float64),
    np.array([-np.inf], dtype=np.float32),
    np.array([1e-45], dtype=np.float32),  # a subnormal
    np.array([1.5 - 2j], dtype=np.complex64),
    np.array([[3]], dtype=np.int16),  # a 1 x 1 shape
    np.array(5, dtype=np.int64),  # a 0-d array
    np.array([1, 2, 3], dtype=np.int64),
]


@pytest.mark.parametrize("host", SINGLE_VALUES, ids=lambda a: f"{a.dtype}{a.shape}")
def test_host_values_arrive_bit_for_bit(backend: str, host: np.ndarray) -> None:
    moved = to_backend(host, backend)
    back = to_numpy(moved)
    assert back.dtype == host.dtype and back.shape == host.shape
    assert back.tobytes() == host.tobytes()  # the same bits: -0.0 and NaN's included


def test_a_dtype_asked_for_converts_a_single_value(backend: str) -> None:
    moved = to_numpy(to_backend([3], backend, dtype=np.float32))
    assert moved.dtype == np.float32 and moved.tolist() == [3.0]


@pytest.mark.gpu
@pytest.mark.parametrize("size", [1, 5, 8192, 70_000])  # the small copy's path, and past it
def test_a_device_copy_keeps_the_values_given_when_the_host_array_changes_after(
    size: int,
) -> None:
    if not hb.cuda_available():
        pytest.skip("CuPy or a usable GPU is not available")
    host = np.arange(size, dtype=np.int64)
    moved = to_backend(host, "cuda")
    host[:] = -1  # the copy may still be queued on the stream: it must not read this
    assert np.array_equal(to_numpy(moved), np.arange(size, dtype=np.int64))
