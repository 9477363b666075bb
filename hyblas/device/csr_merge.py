"""New entries merged into a CSR matrix, a run of rows at a time: no linear key of every stored
entry, and no key of the union, is ever held at once (the merged matrix is written straight
into its row pointers, column ids and values).

A write under a mask that keeps the output's other entries (``C<M> = T``) is such a merge:
the entries of ``C`` the mask does not reach, and those of ``T`` it allows, share no position.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np

from ..backend import to_numpy
from . import arrays

__all__ = ["MERGE_PART", "in_keys", "merge_disjoint"]

#: Entries a run of rows holds (about): each run's keys and places are a few int64 arrays of
#: this many entries, small next to a matrix of billions.
MERGE_PART = 1 << 24


def _runs(xp: ModuleType, starts: Any, ncols: int) -> Iterator[tuple[int, int, int, int, Any]]:
    """``(first, last, lo, hi, keys)`` for each run of whole rows of about
    ``MERGE_PART`` entries (:func:`arrays.row_runs`): the rows, their entries' span
    and those entries' linear keys ``row * ncols + col`` (int64)."""
    for first, last, lo, hi in arrays.row_runs(xp, starts, MERGE_PART):
        yield first, last, lo, hi, arrays.run_row_ids(xp, starts, first, last, lo) * np.int64(ncols)


def in_keys(xp: ModuleType, indptr: Any, indices: Any, ncols: int, sorted_keys: Any) -> Any:
    """Bool array: whether each stored entry of a CSR matrix with ``ncols`` columns has its
    linear key among the ascending ``sorted_keys``. Each run of rows searches the fewer of
    the two sides in the other: the given keys in its rows, or its entries in the given keys
    (a large matrix written under a small mask is searched for the mask's keys only)."""
    found = xp.zeros(indices.size, dtype=bool)
    if indices.size == 0 or sorted_keys.size == 0:
        return found
    starts = indptr.astype(np.int64, copy=False)
    ncols64 = np.int64(max(ncols, 1))
    for first, last, lo, hi, keys in _runs(xp, starts, ncols):
        bounds = xp.asarray([first * ncols64, last * ncols64])
        below, upto = (int(v) for v in to_numpy(xp.searchsorted(sorted_keys, bounds)))
        if below == upto:
            continue
        keys += indices[lo:hi]
        wanted = sorted_keys[below:upto]
        if wanted.size < keys.size:
            at, hit = arrays.locate(xp, keys, wanted)
            found[lo + at[hit]] = True
        else:
            found[lo:hi] = arrays.member(xp, wanted, keys)
    return found


def merge_disjoint(
    xp: ModuleType,
    indptr: Any,
    indices: Any,
    values: Any,
    keep: Any | None,
    keys: Any,
    new_values: Any,
    shape: tuple[int, int],
    idx_dtype: np.dtype,
) -> tuple[Any, Any, Any]:
    """``(indptr, indices, values)`` of the union of a CSR matrix's entries selected by
    ``keep`` (a bool per stored entry; None: all) and new entries given by ascending linear
    keys ``row * ncols + col`` with their values, where no new key is a kept entry's (the
    caller knows it). Values come out in ``values``' dtype (``new_values`` already cast).

    Each merged entry's place is its rank on its own side plus the other side's entries
    before it, found a run of rows at a time (binary searches), then one scatter per run.
    """
    nrows, ncols = shape
    arrays.check_keys_fit(nrows, ncols)
    starts = indptr.astype(np.int64, copy=False)
    firsts = xp.arange(nrows + 1, dtype=np.int64) * np.int64(max(ncols, 1))
    new_before = xp.searchsorted(keys, firsts)  # the new entries before each row
    del firsts
    kept_before = starts if keep is None else arrays.sums_before_rows(xp, starts, keep, MERGE_PART)
    out_indptr = (kept_before + new_before).astype(idx_dtype)
    total = int(out_indptr[-1])
    out_indices = xp.empty(total, dtype=idx_dtype)
    out_values = xp.empty(total, dtype=values.dtype)
    ncols64 = np.int64(max(ncols, 1))
    for first, last, lo, hi, row_keys in _runs(xp, starts, ncols):
        spans = xp.stack([kept_before[first], new_before[first], new_before[last]])
        kept0, new0, new1 = (int(v) for v in to_numpy(spans))
        row_keys += indices[lo:hi]
        cols, vals = indices[lo:hi], values[lo:hi]
        if keep is not None:
            chosen = keep[lo:hi]
            row_keys, cols, vals = row_keys[chosen], cols[chosen], vals[chosen]
        mine = keys[new0:new1]
        at = xp.searchsorted(mine, row_keys)
        at += xp.arange(kept0 + new0, kept0 + new0 + row_keys.size, dtype=at.dtype)
        out_indices[at], out_values[at] = cols, vals
        del at, cols, vals
        for start in range(new0, new1, MERGE_PART):
            stop = min(start + MERGE_PART, new1)
            part = keys[start:stop]
            at = xp.searchsorted(row_keys, part)
            at += xp.arange(kept0 + start, kept0 + stop, dtype=at.dtype)
            out_indices[at] = part % ncols64
            out_values[at] = new_values[start:stop]
    return out_indptr, out_indices, out_values
