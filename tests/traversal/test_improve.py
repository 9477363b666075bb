"""An improving round's state update in one step (``hyblas.traversal.improve``) equals the four
GraphBLAS operations that define it, for every storage of the state and of the products."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.backend import to_numpy, xp_for
from hyblas.traversal.improve import improve, improve_with_ops
from hyblas.traversal.kernels import IMPROVING_MONOIDS
from tests.support import strategies as S
from tests.support.checks import served


@st.composite
def _contents(draw: Any, size: int, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Sorted ids and values; floats may be NaN (an entry that never compares equal)."""
    ids = np.array(
        sorted(draw(st.sets(st.integers(0, size - 1), max_size=size))) if size else [],
        dtype=np.int64,
    )
    value = S.values_of(dtype)
    if dtype.kind == "f":
        value = value | st.just(float("nan"))
    return ids, np.array([draw(value) for _ in ids], dtype=dtype)


def _stored(
    ids: np.ndarray, values: np.ndarray, size: int, bitmap: bool, backend: str
) -> hb.Vector:
    """A vector kept in the storage asked for, whatever its density."""
    xp = xp_for(backend)
    if not bitmap:
        return hb.Vector(
            size, values.dtype, backend=backend, sparse=(xp.asarray(ids), xp.asarray(values))
        )
    dense = np.zeros(size, dtype=values.dtype)
    present = np.zeros(size, dtype=bool)
    dense[ids], present[ids] = values, True
    dense[~present] = 2  # a placeholder that would change the results if it were read
    return hb.Vector(
        size, values.dtype, backend=backend, bitmap=(xp.asarray(dense), xp.asarray(present))
    )


def _entries(v: hb.Vector) -> tuple[np.ndarray, np.ndarray, np.dtype]:
    ids, values = v.as_sparse()
    return to_numpy(ids), to_numpy(values), v.dtype


@given(data=st.data())
def test_improve_equals_the_operations_that_define_it(backend: str, data: Any) -> None:
    name = data.draw(st.sampled_from(sorted(IMPROVING_MONOIDS)))
    dtype = data.draw(st.sampled_from(served(hb.monoid[name])))
    add = hb.monoid[name][dtype].binaryop
    size = data.draw(st.integers(0, 40))
    state_ids, state_values = data.draw(_contents(size, dtype))
    reached_ids, reached_values = data.draw(_contents(size, dtype))
    state_bitmap, reached_bitmap = data.draw(st.booleans()), data.draw(st.booleans())

    def run(step: Any) -> tuple[hb.Vector, hb.Vector]:
        state = _stored(state_ids, state_values, size, state_bitmap, backend)
        reached = _stored(reached_ids, reached_values, size, reached_bitmap, backend)
        return state, step(state, reached, add)

    got_state, got = run(improve)
    want_state, want = run(improve_with_ops)
    for g, w in ((got_state, want_state), (got, want)):
        g_ids, g_values, g_dtype = _entries(g)
        w_ids, w_values, w_dtype = _entries(w)
        assert g_dtype == w_dtype
        np.testing.assert_array_equal(g_ids, w_ids)
        np.testing.assert_array_equal(g_values, w_values)  # NaN equals NaN here
    assert got_state.nnz == want_state.nnz and got.nnz == want.nnz
