"""``min`` / ``max`` settle a tie between ``-0.0`` and ``+0.0`` the same way in every order:
``min`` keeps ``-0.0``, ``max`` keeps ``+0.0``; a NaN operand is ignored, as in fmin / fmax."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import hyblas as hb
from hyblas.operators.extrema import ordered_max, ordered_min


def _bits(values: np.ndarray) -> list[int]:
    values = np.ascontiguousarray(np.asarray(values))
    return values.view(f"u{values.dtype.itemsize}").ravel().tolist()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pairwise_ties_between_zeros_go_one_way(dtype: type) -> None:
    neg, pos = dtype(-0.0), dtype(0.0)
    x = np.array([neg, pos, neg, pos], dtype=dtype)
    y = np.array([pos, neg, neg, pos], dtype=dtype)
    assert _bits(ordered_min(x, y)) == _bits(np.array([neg, neg, neg, pos], dtype=dtype))
    assert _bits(ordered_max(x, y)) == _bits(np.array([pos, pos, neg, pos], dtype=dtype))
    # NumPy scalars give NumPy scalars, as the ufunc does
    assert isinstance(ordered_min(neg, pos), np.generic)
    assert np.signbit(ordered_min(pos, neg)) and not np.signbit(ordered_max(neg, pos))


def test_pairwise_otherwise_equals_fmin_fmax() -> None:
    x = np.array([1.0, np.nan, -2.0, np.inf, np.nan, 3.0])
    y = np.array([2.0, 5.0, np.nan, -np.inf, np.nan, 3.0])
    np.testing.assert_array_equal(ordered_min(x, y), np.fmin(x, y))
    np.testing.assert_array_equal(ordered_max(x, y), np.fmax(x, y))
    ints = np.array([3, -4, 0], dtype=np.int8)
    np.testing.assert_array_equal(ordered_min(ints, ints[::-1]), np.array([0, -4, 0], np.int8))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reductions_do_not_depend_on_order(dtype: type) -> None:
    """Every permutation of each segment reduces to the same bits, by reduceat, by reduce and
    through hyblas's whole-array reduction."""
    segments = [
        [0.0, -0.0],
        [-0.0, 0.0, 0.0],
        [0.0, 0.0],
        [-0.0, np.nan],
        [np.nan, 0.0, -0.0, 1.0],
        [2.0, -0.0, 0.0, -1.0],
    ]
    for segment in segments:
        seen: dict[str, set[tuple[int, ...]]] = {"min": set(), "max": set()}
        for order in itertools.permutations(segment):
            values = np.array(order, dtype=dtype)
            for name, op in (("min", ordered_min), ("max", ordered_max)):
                by_reduceat = op.reduceat(
                    np.concatenate([values, values]), np.array([0, len(order)])
                )
                by_reduce = op.reduce(values, initial=np.inf if name == "min" else -np.inf)
                whole = hb.ops.reduce_scalar(hb.Vector.from_dense(values), name)
                seen[name].add(tuple(_bits(by_reduceat)) + (*_bits(by_reduce), *_bits(whole)))
        assert len(seen["min"]) == 1 and len(seen["max"]) == 1, segment
        (smallest,), (largest,) = seen["min"], seen["max"]
        assert len(set(smallest)) == 1 and len(set(largest)) == 1, segment
    minimum = ordered_min.reduceat(np.array([0.0, -0.0], dtype=dtype), np.array([0]))
    maximum = ordered_max.reduceat(np.array([-0.0, 0.0, -0.0], dtype=dtype), np.array([0]))
    assert np.signbit(minimum[0]) and not np.signbit(maximum[0])


def test_every_backend_and_path_keeps_the_same_zero(backend: str) -> None:
    """Element-wise (the GPU's expression), a build's duplicates and a row reduction (the
    segmented kernels) give -0.0 for min and +0.0 for max whatever order the zeros come in."""
    with hb.using_backend(backend):
        for first, second in ((-0.0, 0.0), (0.0, -0.0)):
            u = hb.Vector.from_coo([0], [first], size=1)
            v = hb.Vector.from_coo([0], [second], size=1)
            assert np.signbit(hb.ops.ewise_add(u, v, "min").get(0))
            assert not np.signbit(hb.ops.ewise_add(u, v, "max").get(0))
            built = hb.Vector.from_coo([0, 0], [first, second], size=1, dup_op=hb.binary.min)
            assert np.signbit(built.get(0))
            A = hb.Matrix.from_coo([0, 0], [0, 1], [first, second], nrows=1, ncols=2)
            assert np.signbit(hb.ops.reduce_rows(A, "min").get(0))
            assert not np.signbit(hb.ops.reduce_rows(A, "max").get(0))
