"""Sorting linear keys into a CSR pattern (``hyblas.device.arrays``): ``sorted_unique`` with and
without ``overwrite`` (the in-place compaction chunk by chunk, runs of a repeated key crossing
chunk borders) and ``csr_from_sorted_keys`` (on the GPU, row starts by search, columns
chunk by chunk) against NumPy's ``unique`` and scipy's CSR, on both backends."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from hyblas.backend import to_backend, to_numpy, xp_for
from hyblas.device import arrays

CHUNKS = pytest.mark.parametrize("chunk", [1, 3, 1 << 27], ids=["chunk1", "chunk3", "default"])


@CHUNKS
@given(keys=hnp.arrays(np.int64, st.integers(0, 40), elements=st.integers(0, 12)))
def test_sorted_unique_is_numpys_unique(backend: str, chunk: int, keys: np.ndarray) -> None:
    xp = xp_for(backend)
    given_keys = to_backend(keys, backend)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrays, "UNIQUE_CHUNK", chunk)
        kept = arrays.sorted_unique(xp, given_keys)
        mine = to_backend(keys, backend)
        kept_in_place = arrays.sorted_unique(xp, mine, overwrite=True)
    np.testing.assert_array_equal(to_numpy(kept), np.unique(keys))
    np.testing.assert_array_equal(to_numpy(given_keys), keys)  # not overwritten by default
    np.testing.assert_array_equal(to_numpy(kept_in_place), np.unique(keys))


@CHUNKS
@given(
    entries=st.sets(st.tuples(st.integers(0, 6), st.integers(0, 4)), max_size=30),
    shape=st.tuples(st.integers(7, 9), st.integers(5, 6)),
)
def test_csr_from_sorted_keys_is_scipys(
    backend: str, chunk: int, entries: set, shape: tuple
) -> None:
    nrows, ncols = shape
    rows = np.array(sorted(entries), dtype=np.int64).reshape(-1, 2)
    keys = np.sort(rows[:, 0] * ncols + rows[:, 1])
    idx = np.dtype(np.int32)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrays, "UNIQUE_CHUNK", chunk)
        indptr, indices = arrays.csr_from_sorted_keys(
            xp_for(backend), to_backend(keys, backend), nrows, ncols, idx
        )
    want = sp.csr_array((np.ones(keys.size), (keys // ncols, keys % ncols)), shape=shape)
    want.sort_indices()
    assert to_numpy(indptr).dtype == to_numpy(indices).dtype == idx
    np.testing.assert_array_equal(to_numpy(indptr), want.indptr)
    np.testing.assert_array_equal(to_numpy(indices), want.indices)


#: A pattern of up to 40 entries of a 9-11 x 7-8 matrix, and an index dtype.
PATTERNS = given(
    entries=st.sets(st.tuples(st.integers(0, 8), st.integers(0, 6)), max_size=40),
    shape=st.tuples(st.integers(9, 11), st.integers(7, 8)),
    dtype=st.sampled_from([np.int32, np.int64]),
)


def _csr(entries: set, shape: tuple) -> tuple[np.ndarray, sp.csr_array]:
    """The entries as (row, col) pairs in order, and scipy's CSR of them (values 0.5, 1.5...)."""
    pairs = np.array(sorted(entries), dtype=np.int64).reshape(-1, 2)
    values = np.arange(pairs.shape[0], dtype=np.float32) + 0.5
    csr = sp.csr_array((values, (pairs[:, 0], pairs[:, 1])), shape=shape)
    csr.sort_indices()
    return pairs, csr


@pytest.mark.parametrize("part", [1, 3, 1 << 24], ids=["part1", "part3", "default"])
@PATTERNS
def test_transpose_in_parts_is_scipys(
    backend: str, part: int, entries: set, shape: tuple, dtype: type
) -> None:
    """The GPU's transpose, a run of whole columns at a time (walked on the CPU as well),
    against scipy's: pointers, row ids and values moved with their entries."""
    nrows, ncols = shape
    _, csr = _csr(entries, shape)
    want = csr.T.tocsr()
    want.sort_indices()
    xp = xp_for(backend)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrays, "TRANSPOSE_PART", part)
        indptr_t, indices_t, values_t = arrays.transpose_csr_in_parts(
            xp,
            to_backend(csr.indptr.astype(dtype), backend),
            to_backend(csr.indices.astype(dtype), backend),
            to_backend(csr.data, backend),
            nrows,
            ncols,
        )
    assert indptr_t.dtype == dtype and indices_t.dtype == dtype
    np.testing.assert_array_equal(to_numpy(indptr_t), want.indptr)
    np.testing.assert_array_equal(to_numpy(indices_t), want.indices)
    np.testing.assert_array_equal(to_numpy(values_t), want.data)


@CHUNKS
@PATTERNS
def test_csr_keys_a_run_of_rows_at_a_time_are_the_linear_keys(
    backend: str, chunk: int, entries: set, shape: tuple, dtype: type
) -> None:
    """``csr_keys`` of a matrix of more than ``UNIQUE_CHUNK`` entries writes a run of whole
    rows at a time into one array: the keys ``row * ncols + col`` in order, as at once."""
    nrows, ncols = shape
    pairs, csr = _csr(entries, shape)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrays, "UNIQUE_CHUNK", chunk)
        keys = arrays.csr_keys(
            xp_for(backend),
            to_backend(csr.indptr.astype(dtype), backend),
            to_backend(csr.indices.astype(dtype), backend),
            nrows,
            ncols,
        )
    assert keys.dtype == np.int64
    np.testing.assert_array_equal(to_numpy(keys), pairs[:, 0] * ncols + pairs[:, 1])
