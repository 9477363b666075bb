"""The GPU segmented reduction (``kernels/segment_reduce.cu``) equals a sequential fold.

The operator need not commute: ``first`` and ``second`` pick each segment's first and last
value only if every combination keeps the entries' order. Segment lengths are drawn so that
segments one lane folds (at most 32 entries), segments a warp folds (partial tiles, several
in one warp's 32), empty segments and long segments (the block kernel, with several tiles per
warp) all occur. Values are small integers, so floating-point
sums are exact whatever the order of additions.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas import binary, monoid
from hyblas.device import arrays as primitives
from hyblas.device import segments

pytestmark = pytest.mark.gpu

if not hb.cuda_available():
    pytest.skip("no usable GPU: the 'cuda' backend is unavailable", allow_module_level=True)

import cupy as cp  # noqa: E402 - only where CUDA is usable

CASES = [
    ("plus", "float64"),
    ("plus", "int8"),
    ("min", "float32"),
    ("max", "int16"),
    ("times", "int32"),
    ("lor", "bool"),
    ("first", "bool"),
    ("first", "int64"),
    ("second", "uint16"),
    ("second", "float32"),
]


def _op(name: str):
    return getattr(binary, name)


def _values(rng: np.random.Generator, size: int, dtype: str) -> np.ndarray:
    if dtype == "bool":
        return rng.random(size) < 0.5
    return rng.integers(0, 5, size).astype(dtype)


def _sequential(values: np.ndarray, offsets: np.ndarray, op) -> tuple[np.ndarray, np.ndarray]:
    out = np.zeros(offsets.size - 1, dtype=values.dtype)
    found = np.diff(offsets) > 0
    for s in np.flatnonzero(found):
        run = values[offsets[s] : offsets[s + 1]]
        folded = functools.reduce(lambda x, y: op.numpy(x, y), run)
        out[s] = np.asarray(folded).astype(values.dtype)
    return out, found


def _check(lengths: list[int], name: str, dtype: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    values = _values(rng, int(offsets[-1]), dtype)
    want, want_found = _sequential(values, offsets, _op(name))
    got, got_found = segments.reduce_offsets(cp, cp.asarray(values), cp.asarray(offsets), _op(name))
    np.testing.assert_array_equal(cp.asnumpy(got_found), want_found)
    np.testing.assert_array_equal(cp.asnumpy(got), want)


@pytest.mark.parametrize(("name", "dtype"), CASES)
def test_lane_warp_and_block_segments(name: str, dtype: str) -> None:
    rng = np.random.default_rng(7)
    lengths = list(rng.integers(0, 3, 300))  # mean about 1: one lane per segment
    _check(lengths, name, dtype, seed=1)
    for mean in (2, 4, 8, 16, 32, 200):  # lanes, lanes and warps, warps (over 32 entries)
        _check(list(rng.integers(0, 2 * mean, 100)), name, dtype, seed=mean)
    # long segments take a block: one over a warp's 4 tiles x 32 warps, one just over the bound
    long = [0, 3, segments.LONG_SEGMENT + 1, 5, 40_000, 0, 1]
    _check(long, name, dtype, seed=3)
    # a warp's 32 segments with lengths at the lane / warp / block boundaries, twice over
    edges = [32, 33, 0, 31, segments.LONG_SEGMENT, 1, 64, 129] * 8
    _check(edges, name, dtype, seed=4)


@given(
    lengths=st.lists(
        st.one_of(st.integers(0, 70), st.integers(4000, 9000)), min_size=1, max_size=40
    ),
    case=st.sampled_from(CASES),
    seed=st.integers(0, 2**32 - 1),
)
def test_drawn_segments_equal_a_sequential_fold(lengths, case, seed) -> None:
    _check(lengths, *case, seed=seed)


def test_segment_reduce_on_the_gpu_keeps_order() -> None:
    """``primitives.segment_reduce`` (no empty segments) runs the kernel for CuPy arrays."""
    values = np.arange(1, 10_001, dtype=np.int64)
    starts = np.array([0, 1, 4, 5000, 9999], dtype=np.int64)
    for name, want in (("first", values[starts]), ("second", values[[0, 3, 4999, 9998, 9999]])):
        got = primitives.segment_reduce(cp, cp.asarray(values), cp.asarray(starts), _op(name))
        np.testing.assert_array_equal(cp.asnumpy(got), want)


def test_builds_and_row_reductions_equal_the_cpu() -> None:
    """Public paths on the kernel: duplicates kept first / last, and reduce_rows with a hub row
    longer than LONG_SEGMENT and empty rows."""
    rng = np.random.default_rng(11)
    n = 500
    rows = np.concatenate([np.zeros(9000, dtype=np.int64), rng.integers(2, n, 3000)])
    cols = rng.integers(0, n, rows.size)
    values = rng.integers(-3, 4, rows.size).astype(np.float32)
    for dup in (binary.first, binary.second, binary.plus):
        cpu = hb.Matrix.from_coo(rows, cols, values, nrows=n, ncols=n, dup_op=dup, backend="cpu")
        gpu = hb.Matrix.from_coo(rows, cols, values, nrows=n, ncols=n, dup_op=dup, backend="cuda")
        assert gpu.to_backend("cpu").isequal(cpu), dup.name
        for m in (monoid.plus, monoid.min, monoid.max):
            want = hb.ops.reduce_rows(cpu, m)
            got = hb.ops.reduce_rows(gpu, m).to_backend("cpu")
            assert got.isequal(want), (dup.name, m.name)
            assert 1 not in set(got.to_coo()[0].tolist())  # row 1 is empty: no entry
