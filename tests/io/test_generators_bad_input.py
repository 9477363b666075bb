"""Bad input to the generators: every parameter (scale, edge factor, probabilities, seeds, grid
sizes, weight bounds, dtype) checked with a named error from hyblas.errors, sizes beyond memory
refused as OutOfMemory, and the matrix given to ``random_weights`` left unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from hyblas import generators as gen
from hyblas.errors import (
    DimensionMismatch,
    DomainMismatch,
    InvalidObject,
    InvalidValue,
    OutOfMemory,
)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"a": float("nan")}, InvalidValue, "a must be finite, got nan"),
        ({"b": float("inf")}, InvalidValue, "b must be finite"),
        ({"c": -float("inf")}, InvalidValue, "c must be finite"),
        ({"a": "0.5"}, InvalidObject, "a must be a real number"),
        ({"a": True}, InvalidObject, "a must be a real number"),
        ({"a": 1 + 0j}, InvalidObject, "a must be a real number"),
        ({"a": -0.1}, InvalidValue, "a, b, c must be >= 0"),
        ({"a": 0.6, "b": 0.3, "c": 0.3}, InvalidValue, r"a \+ b \+ c <= 1"),
        ({"a": 10**400}, InvalidValue, "a must be finite"),
        ({"scale": -1}, InvalidValue, "scale must be an integer >= 0"),
        ({"scale": 32}, InvalidValue, "scale must be at most 31"),
        ({"scale": 2.0}, InvalidValue, "scale must be an integer"),
        ({"scale": True}, InvalidValue, "scale must be an integer"),
        ({"edge_factor": -1}, InvalidValue, "edge_factor must be an integer >= 0"),
        ({"edge_factor": 1.5}, InvalidValue, "edge_factor"),
        ({"seed": "x"}, InvalidObject, "seed must be an integer"),
        ({"seed": 1.0}, InvalidObject, "seed must be an integer"),
        ({"seed": 2**64}, InvalidValue, "seed must fit 64 bits"),
        ({"seed": -(2**63) - 1}, InvalidValue, "seed must fit 64 bits"),
        ({"symmetric": "no"}, InvalidObject, "symmetric must be a bool"),
        ({"dtype": "no-such-type"}, DomainMismatch, "not a dtype"),
        ({"dtype": np.complex64}, DomainMismatch, "complex64"),
    ],
)
def test_kronecker_parameters(backend: str, kwargs: dict, error: type, match: str) -> None:
    arguments = {"scale": 4, **kwargs}
    with pytest.raises(error, match=match):
        gen.kronecker(**arguments, backend=backend)


def test_generators_too_large_for_memory(backend: str) -> None:
    with pytest.raises(OutOfMemory, match=f"drawing {2**70} random numbers"):
        gen.kronecker(10, 2**60, backend=backend)  # 2**70 edges: refused before asking
    with pytest.raises(OutOfMemory, match="Kronecker graph"):
        gen.kronecker(31, 2**12, backend=backend)  # 2**43 edges
    with pytest.raises(OutOfMemory, match="random numbers"):
        gen.erdos_renyi(3 * 10**9, 2**61, backend=backend)


def test_kronecker_seed_range_ends(backend: str) -> None:
    top = gen.kronecker(4, seed=2**64 - 1, backend=backend)
    assert top.isequal(gen.kronecker(4, seed=-1, backend=backend))  # two's complement
    assert gen.kronecker(4, seed=np.int64(-(2**63)), backend=backend).nnz > 0


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda b: gen.grid_2d(-1, 3, backend=b), InvalidValue, "rows must be an integer >= 0"),
        (lambda b: gen.grid_2d(2, 1.5, backend=b), InvalidValue, "cols must be an integer"),
        (lambda b: gen.grid_2d(2**32, 2**32, backend=b), DimensionMismatch, "grid_2d"),
        (lambda b: gen.grid_2d(2, 2, dtype="nope", backend=b), DomainMismatch, "not a dtype"),
        (lambda b: gen.erdos_renyi(-1, 0, backend=b), InvalidValue, "n must be an integer >= 0"),
        (lambda b: gen.erdos_renyi(5, 2.0, backend=b), InvalidValue, "m must be an integer"),
        (lambda b: gen.erdos_renyi(5, 21, backend=b), InvalidValue, "only 20 possible"),
        (lambda b: gen.erdos_renyi(2**33, 1, backend=b), DimensionMismatch, "8589934592 vertices"),
        (lambda b: gen.erdos_renyi(5, 2, symmetric=1, backend=b), InvalidObject, "symmetric"),
        (lambda b: gen.erdos_renyi(5, 2, seed=None, backend=b), InvalidObject, "seed"),
        (lambda b: gen.erdos_renyi(5, 2, dtype=object, backend=b), DomainMismatch, "object"),
    ],
)
def test_grid_and_erdos_renyi_parameters(
    backend: str, call: Callable[[str], Any], error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        call(backend)


@pytest.mark.parametrize(
    ("low", "high", "kwargs", "error", "match"),
    [
        (-float("inf"), 0.0, {}, InvalidValue, "low must be finite, got -inf"),
        (0.0, float("inf"), {}, InvalidValue, "high must be finite"),
        (float("nan"), 1.0, {}, InvalidValue, "low must be finite, got nan"),
        (1.0, 1.0, {}, InvalidValue, "need low < high"),
        (2.0, 1.0, {}, InvalidValue, "need low < high"),
        ("0", 1.0, {}, InvalidObject, "low must be a real number"),
        (0.0, None, {}, InvalidObject, "high must be a real number"),
        (False, 1.0, {}, InvalidObject, "low must be a real number"),
        (-1e308, 1e308, {}, InvalidValue, "high - low overflows float64"),
        (0.0, 1e39, {"dtype": np.float32}, InvalidValue, "overflows float32"),
        (1e-50, 2e-50, {"dtype": np.float32}, InvalidValue, "no float32 value lies in"),
        (0.7, 0.70000002, {"dtype": np.float32}, InvalidValue, "no float32 value lies in"),
        (2**53 + 1, 2**53 + 2, {"dtype": np.float64}, InvalidValue, r"no float64 value lies in"),
        (0, 1000, {"dtype": np.int8}, InvalidValue, r"leave the range \[-128, 127\] of int8"),
        (-1, 5, {"dtype": np.uint8}, InvalidValue, "leave the range"),
        (0.2, 0.9, {"dtype": np.int32}, InvalidValue, r"no integer lies in \[0.2, 0.9\)"),
        (0.0, 1.0, {"dtype": bool}, DomainMismatch, "needs a numeric dtype, got bool"),
        (0.0, 1.0, {"dtype": "nope"}, DomainMismatch, "not a dtype"),
        (0.0, 1.0, {"seed": 0.5}, InvalidObject, "seed must be an integer"),
    ],
)
def test_random_weights_parameters(
    backend: str, low: Any, high: Any, kwargs: dict, error: type, match: str
) -> None:
    A = gen.grid_2d(3, 3, backend=backend)
    before = A.dup()
    with pytest.raises(error, match=match):
        gen.random_weights(A, low, high, **kwargs)
    assert A.isequal(before, check_dtype=True)


@pytest.mark.parametrize(
    ("low", "high", "dtype"),
    [
        (0, 256, np.uint8),
        (-128, 128, np.int8),
        (-(2**63), 2**63, np.int64),
        (0, 2**64, np.uint64),
        (2**64 - 3, 2**64, np.uint64),
        (-2.5, -1.5, np.int16),
    ],
)
def test_random_weights_integer_ranges(backend: str, low: int, high: int, dtype: type) -> None:
    A = gen.grid_2d(6, 6, backend=backend)
    W = gen.random_weights(A, low, high, seed=7, dtype=dtype)
    values = [int(v) for v in W.to_coo()[2].tolist()]
    first = int(np.ceil(low))
    assert W.dtype == dtype and min(values) >= first and max(values) < high
    assert W.to_scipy().indices.tolist() == A.to_scipy().indices.tolist()


@pytest.mark.parametrize(
    ("low", "high", "dtype"),
    [
        (0.7, 0.7000001, np.float32),  # float32(0.7) lies below 0.7
        (0.1, 0.2, np.float32),
        (0.0, 1e-50, np.float32),  # 0.0 is the one float32 value in it
        (-1.0, -0.9999999, np.float32),
        (2**53 + 1, 2**53 + 3, np.float64),  # int bounds, compared exactly
        (1.0, 1.0000000000000002, np.float64),
        (-3.0, 5.0, np.float64),
    ],
)
def test_random_weights_float_values_lie_in_the_interval(
    backend: str, low: float, high: float, dtype: type
) -> None:
    """Every value, in the target dtype, compared exactly: low <= value < high."""
    A = gen.grid_2d(12, 12, backend=backend)
    W = gen.random_weights(A, low, high, seed=3, dtype=dtype)
    values = W.to_coo()[2]
    assert W.dtype == dtype and W.nnz == A.nnz
    assert all(low <= v < high for v in values.tolist())  # Python: float against int exact
