"""A result written into ``out`` under its own input's pattern, ``C<T.S> = f(T)`` (a BFS's
levels: ``levels<frontier.S> = depth``), and under its complement: the keys of ``T`` serve as
the mask's, the entries ``out`` keeps merge with the new ones. Checked against dense NumPy
arrays, on both backends, for the GraphBLAS rules without ``replace`` or ``accum``."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hyblas as hb
from hyblas.backend import to_numpy

SHAPE = (6, 5)
PATTERNS = hnp.arrays(bool, SHAPE)


def _matrix(present: np.ndarray, values: np.ndarray, dtype: type, backend: str) -> hb.Matrix:
    rows, cols = np.nonzero(present)
    return hb.Matrix.from_coo(
        rows, cols, values[rows, cols].astype(dtype), nrows=SHAPE[0], ncols=SHAPE[1], dtype=dtype
    ).to_backend(backend)


def _dense(M: hb.Matrix) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    rows, cols, values = (to_numpy(a) for a in M.to_coo())
    present = np.zeros(SHAPE, dtype=bool)
    dense = np.zeros(SHAPE, dtype=values.dtype)
    present[rows, cols] = True
    dense[rows, cols] = values
    return present, dense


@given(
    t_pattern=PATTERNS,
    out_pattern=PATTERNS,
    complement=st.booleans(),
    out_dtype=st.sampled_from([np.int32, np.int64, np.float64]),
    depth=st.integers(0, 9),
)
def test_written_under_its_own_pattern(
    backend: str,
    t_pattern: np.ndarray,
    out_pattern: np.ndarray,
    complement: bool,
    out_dtype: type,
    depth: int,
) -> None:
    grid = np.arange(np.prod(SHAPE)).reshape(SHAPE) + 100
    T = _matrix(t_pattern, grid, bool, backend)  # noqa: N806
    out = _matrix(out_pattern, grid, out_dtype, backend)
    mask = ~T.S if complement else T.S
    hb.ops.apply(T, hb.binary.second[out_dtype], right=depth, mask=mask, out=out)
    present, dense = _dense(out)
    allowed = ~t_pattern if complement else t_pattern
    # where the mask allows: T's result (depth at T's entries, nothing elsewhere); where it
    # does not: out as it was
    want_present = np.where(allowed, t_pattern, out_pattern)
    want = np.where(allowed, depth, grid)
    np.testing.assert_array_equal(present, want_present)
    np.testing.assert_array_equal(dense[want_present], want[want_present])
    assert out.dtype == out_dtype
