"""New entries merged into a CSR matrix a run of rows at a time (``hyblas.device.csr_merge``):
``in_keys`` and ``merge_disjoint`` against a merge of (row, col) pairs in NumPy, with runs of
one, three and the default number of entries, on both backends."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from hyblas.backend import to_backend, to_numpy, xp_for
from hyblas.device import csr_merge

CHUNKS = pytest.mark.parametrize("chunk", [1, 3, 1 << 24], ids=["chunk1", "chunk3", "default"])

#: Positions of a 0-9 x 0-6 matrix, each one out's, a new entry's, both's or neither's.
CELLS = st.lists(st.sampled_from(["", "old", "new", "both"]), min_size=70, max_size=70)
SHAPES = st.tuples(st.integers(0, 10), st.integers(0, 7))


def _layout(cells: list, shape: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Linear keys of out's entries and of the new ones, from the cells inside ``shape``."""
    nrows, ncols = shape
    old, new = [], []
    for k, cell in enumerate(cells):
        row, col = divmod(k, 7)
        if row < nrows and col < ncols:
            key = row * ncols + col
            if cell in ("old", "both"):
                old.append(key)
            if cell in ("new", "both"):
                new.append(key)
    return np.array(old, dtype=np.int64), np.array(new, dtype=np.int64)


def _out(keys: np.ndarray, shape: tuple, dtype: type) -> sp.csr_array:
    """out as scipy's CSR: values 0.5, 1.5, ... in key order."""
    nrows, ncols = shape
    cols = max(ncols, 1)
    csr = sp.csr_array(
        (np.arange(keys.size) + 0.5, (keys // cols, keys % cols)), shape=(nrows, ncols)
    )
    csr.sort_indices()
    return csr


@CHUNKS
@given(cells=CELLS, shape=SHAPES, dtype=st.sampled_from([np.int32, np.int64]))
def test_in_keys_says_which_entries_have_a_given_key(
    backend: str, chunk: int, cells: list, shape: tuple, dtype: type
) -> None:
    old, new = _layout(cells, shape)
    csr = _out(old, shape, dtype)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(csr_merge, "MERGE_PART", chunk)
        found = csr_merge.in_keys(
            xp_for(backend),
            to_backend(csr.indptr.astype(dtype), backend),
            to_backend(csr.indices.astype(dtype), backend),
            shape[1],
            to_backend(new, backend),
        )
    np.testing.assert_array_equal(to_numpy(found), np.isin(old, new))


@CHUNKS
@given(
    cells=CELLS,
    shape=SHAPES,
    dtype=st.sampled_from([np.int32, np.int64]),
    drop_where=st.lists(st.booleans(), min_size=70, max_size=70),
    keep_all=st.booleans(),
)
def test_merge_disjoint_is_the_sorted_union(
    backend: str,
    chunk: int,
    cells: list,
    shape: tuple,
    dtype: type,
    drop_where: list,
    keep_all: bool,
) -> None:
    """out's kept entries and the new ones (none at a kept entry's position) as one CSR: row
    pointers, column ids in order and each value at its entry, whatever the runs' size.
    Entries of out a new one replaces are dropped (not kept), as a masked write does."""
    nrows, ncols = shape
    old, new = _layout(cells, shape)
    csr = _out(old, shape, dtype)
    keep = ~np.isin(old, new) & ~np.array(drop_where[: old.size], dtype=bool)
    if keep_all:
        new = new[~np.isin(new, old)]
        keep = np.ones(old.size, dtype=bool)
    new_values = -(np.arange(new.size) + 1.0)
    idx = np.dtype(dtype)
    before = csr.indptr.copy(), csr.indices.copy(), csr.data.copy()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(csr_merge, "MERGE_PART", chunk)
        indptr, indices, values = csr_merge.merge_disjoint(
            xp_for(backend),
            to_backend(csr.indptr.astype(dtype), backend),
            to_backend(csr.indices.astype(dtype), backend),
            to_backend(csr.data, backend),
            None if keep_all else to_backend(keep, backend),
            to_backend(new, backend),
            to_backend(new_values, backend),
            shape,
            idx,
        )
    keys = np.concatenate([old[keep], new])
    vals = np.concatenate([csr.data[keep], new_values])
    order = np.argsort(keys)
    cols = max(ncols, 1)
    want = sp.csr_array((vals[order], (keys[order] // cols, keys[order] % cols)), shape=shape)
    want.sort_indices()
    assert to_numpy(indptr).dtype == to_numpy(indices).dtype == idx
    np.testing.assert_array_equal(to_numpy(indptr), want.indptr)
    np.testing.assert_array_equal(to_numpy(indices), want.indices)
    np.testing.assert_array_equal(to_numpy(values), want.data)
    for mine, theirs in zip(before, (csr.indptr, csr.indices, csr.data), strict=True):
        np.testing.assert_array_equal(mine, theirs)  # the inputs are not written
