"""``hyblas.backend.to_backend``: host data moved to a backend keeps every value and dtype
exactly, a single value included (on the GPU that one is a fill kernel, not a copy)."""

from __future__ import annotations

import numpy as np
import pytest

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
