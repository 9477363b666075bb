"""``segment_reduce`` with the operators that keep one operand (``first``, ``second``, ``any``):
each run reduces to its first or last value, as folding the run pair by pair gives, on both
backends (the CPU takes the operator's own ``reduceat``, the GPU the segment kernel)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hyblas import binary
from hyblas.backend import to_backend, to_numpy, xp_for
from hyblas.device import arrays as primitives


def _fold(values: np.ndarray, starts: np.ndarray, name: str) -> np.ndarray:
    op = getattr(binary, name)
    ends = np.append(starts[1:], values.size)
    return np.array(
        [functools.reduce(lambda x, y: op.numpy(x, y), values[s:e]) for s, e in zip(starts, ends)],
        dtype=values.dtype,
    )


@pytest.mark.parametrize("name", ["first", "second", "any"])
@given(
    lengths=st.lists(st.integers(1, 40), min_size=1, max_size=30), seed=st.integers(0, 2**32 - 1)
)
def test_a_run_reduces_to_the_operand_its_operator_keeps(
    backend: str, name: str, lengths: list[int], seed: int
) -> None:
    values = np.random.default_rng(seed).integers(-50, 50, sum(lengths)).astype(np.float32)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    xp = xp_for(backend)
    got = primitives.segment_reduce(
        xp, to_backend(values, backend), to_backend(starts, backend), getattr(binary, name)
    )
    np.testing.assert_array_equal(to_numpy(got), _fold(values, starts, name))
