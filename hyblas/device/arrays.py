"""Vectorized building blocks shared by the containers and the executors.

Every function takes the array module ``xp`` (numpy or cupy) and arrays of that module, and
loops in Python only over O(log n) doubling steps, never over rows or entries.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from ..backend import to_numpy, translate_oom
from ..errors import DimensionMismatch, InvalidValue, OutOfMemory
from ..operators.classes import BinaryOp
from .fill import fill_bitmap
from .scatter import scatter_bitmap
from .segments import reduce_offsets

__all__ = [
    "expand",
    "ranges",
    "combine_by_key",
    "index_dtype",
    "row_ids",
    "run_row_ids",
    "host_row_ids",
    "HOST_ROWS_PART",
    "segment_starts",
    "segment_reduce",
    "sort_by_keys",
    "sort_by_pairs",
    "KEY_SPACE",
    "keys_fit",
    "check_fits",
    "check_keys_fit",
    "csr_from_sorted_keys",
    "sorted_unique",
    "csr_keys",
    "transpose_csr",
    "coo_to_csr",
    "locate",
    "member",
    "union_keys",
    "to_bitmap",
    "full_bitmap",
    "quiet_placeholders",
]

_INT32_MAX = np.iinfo(np.int32).max
# entries a step of the in-place compaction and of the GPU's CSR build handles at a time
UNIQUE_CHUNK = 1 << 27
#: Entries whose rows :func:`host_row_ids` expands at a time (about): two int64 arrays of this
#: many on the device, where all the rows at once would be two of every entry.
HOST_ROWS_PART = 1 << 24


def index_dtype(*extents: int) -> np.dtype:
    """int32 when every extent (nnz, nrows, ncols) fits, else int64 (cuSPARSE wants int32)."""
    return np.dtype(np.int32 if max(extents, default=0) < _INT32_MAX else np.int64)


def expand(xp: ModuleType, counts: Any) -> Any:
    """``[0]*counts[0] + [1]*counts[1] + ...`` (int64): the owner of each expanded slot.

    NumPy's ``repeat`` does this; CuPy accepts an array of counts only from 14.1 on, so the GPU
    path finds each slot's owner by binary search in the running total instead.
    """
    counts = counts.astype(np.int64, copy=False)
    if xp is np:
        return np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    ends = xp.cumsum(counts)
    total = int(ends[-1]) if counts.size else 0
    return xp.searchsorted(ends, xp.arange(total, dtype=np.int64), side="right")


def ranges(xp: ModuleType, starts: Any, lengths: Any) -> tuple[Any, Any]:
    """Positions of the ranges ``[starts[k], starts[k] + lengths[k])`` and their owner ``k``."""
    owner = expand(xp, lengths)
    first = xp.zeros(lengths.size, dtype=np.int64)
    xp.cumsum(lengths[:-1], out=first[1:])
    positions = starts[owner] + (xp.arange(owner.size, dtype=np.int64) - first[owner])
    return positions, owner


def exclusive_cumsum(xp: ModuleType, counts: Any) -> Any:
    """``[0, counts[0], counts[0] + counts[1], ...]`` in int64 (one longer than ``counts``):
    the starts of runs of those lengths, as a CSR's row pointer."""
    out = xp.zeros(counts.size + 1, dtype=np.int64)
    xp.cumsum(counts, out=out[1:])
    return out


def run_ids(xp: ModuleType, starts: Any, begin: int, end: int) -> Any:
    """The run of each position ``begin`` up to ``end`` (int64), where run ``k`` holds the
    positions ``starts[k]`` up to ``starts[k + 1]`` (``starts`` ascending, as a CSR's row
    pointer): :func:`row_ids` of a slice of the entries, found among that slice's runs only."""
    first = int(xp.searchsorted(starts, begin, side="right")) - 1
    last = int(xp.searchsorted(starts, end - 1, side="right")) - 1
    bounds = xp.clip(starts[first : last + 2], begin, end)
    return first + expand(xp, xp.diff(bounds))


def run_cuts(xp: ModuleType, starts: Any, part_entries: int) -> list[int]:
    """Where to cut the runs of ``starts`` (as in :func:`run_ids`) into groups of about
    ``part_entries`` positions: ascending run numbers from 0 to the number of runs, a group
    ending where the run holding its last target position starts (a run longer than
    ``part_entries`` is a group of its own, with the runs up to the next target)."""
    targets = xp.arange(part_entries, int(starts[-1]), part_entries, dtype=np.int64)
    inner = (xp.searchsorted(starts, targets, side="right") - 1).tolist()
    return sorted({0, *inner, starts.size - 1})


def row_runs(xp: ModuleType, indptr: Any, part_entries: int) -> list[tuple[int, int, int, int]]:
    """Runs of whole rows of a CSR matrix of about ``part_entries`` entries each (a row of more
    is a run of its own), in order: ``(first, last, lo, hi)``, rows ``first:last`` and their
    entries ``lo:hi`` (one device read for the spans)."""
    starts = indptr.astype(np.int64, copy=False)
    cuts = run_cuts(xp, starts, part_entries)
    spans = to_numpy(starts[xp.asarray(cuts)]).tolist()
    return list(zip(cuts[:-1], cuts[1:], spans[:-1], spans[1:], strict=True))


def sums_before_rows(xp: ModuleType, indptr: Any, per_entry: Any, part_entries: int) -> Any:
    """The sum of ``per_entry`` (a count per stored entry of a CSR matrix; a bool: whether it
    is kept) over the entries before each row: int64, one longer than the rows (the row
    pointer of the kept entries, or the running total of the products). Summed a run of rows
    of about ``part_entries`` entries at a time, not as one int64 per entry at once."""
    starts = indptr.astype(np.int64, copy=False)
    before = xp.zeros(starts.size, dtype=np.int64)
    total = 0
    for first, last, lo, hi in row_runs(xp, starts, part_entries):
        running = xp.zeros(hi - lo + 1, dtype=np.int64)
        xp.cumsum(per_entry[lo:hi], dtype=np.int64, out=running[1:])
        before[first : last + 1] = total + running[starts[first : last + 1] - lo]
        total += int(running[-1])
    return before


def row_ids(xp: ModuleType, indptr: Any, nrows: int) -> Any:
    """The row of each stored entry of a CSR matrix (int64)."""
    return expand(xp, xp.diff(indptr))


def run_row_ids(xp: ModuleType, indptr: Any, first: int, last: int, lo: int) -> Any:
    """The row (int64) of each stored entry of rows ``first:last`` of a CSR matrix, whose
    entries start at ``lo`` (a run of :func:`row_runs`)."""
    return first + row_ids(xp, indptr[first : last + 1] - lo, last - first)


def host_row_ids(xp: ModuleType, indptr: Any) -> np.ndarray:
    """The row of each stored entry of a CSR matrix, as a NumPy int64 array, expanded a run of
    rows of about ``HOST_ROWS_PART`` entries at a time and copied out: a matrix that fills the
    device leaves it by ``to_coo`` / ``to_dense`` without an int64 array of every entry (and
    the expansion's second one) on the device first."""
    starts = indptr.astype(np.int64, copy=False)
    total = int(starts[-1]) if starts.size else 0
    if total <= HOST_ROWS_PART:  # one run: no cuts to find (two device reads fewer)
        return to_numpy(row_ids(xp, starts, starts.size - 1))
    out = np.empty(total, dtype=np.int64)
    for first, last, lo, hi in row_runs(xp, starts, HOST_ROWS_PART):
        out[lo:hi] = to_numpy(run_row_ids(xp, starts, first, last, lo))
    return out


def segment_starts(xp: ModuleType, sorted_ids: Any) -> Any:
    """Positions where a run of equal ids starts, in an array sorted by id."""
    if sorted_ids.size == 0:
        return xp.zeros(0, dtype=np.int64)
    change = xp.flatnonzero(sorted_ids[1:] != sorted_ids[:-1]) + 1
    return xp.concatenate([xp.zeros(1, dtype=change.dtype), change]).astype(np.int64)


def segment_reduce(xp: ModuleType, values: Any, starts: Any, op: BinaryOp) -> Any:
    """Reduce each run ``values[starts[k]:starts[k+1]]`` with ``op``, keeping order.

    ``starts`` must be strictly increasing and start with 0 (no empty segments). On the CPU an
    operator with a ``reduceat`` (a ufunc, or an
    :class:`~hyblas.operators.extrema.OrderedExtremum`) uses it; on the GPU one kernel folds
    every run (:mod:`hyblas.device.segments`); otherwise (a CPU operator without one) a
    segmented Hillis-Steele scan in ⌈log2(longest run)⌉ vectorized steps.
    """
    if starts.size == 0:
        return values[:0].copy()
    reduceat = getattr(op.numpy, "reduceat", None)  # a ufunc's, or an ordered extremum's
    if xp is np and reduceat is not None:
        reduced = reduceat(values, starts)
        return reduced.astype(values.dtype, copy=False)
    if xp is not np:
        ends = xp.asarray([values.size], dtype=np.int64)
        offsets = xp.concatenate([starts.astype(np.int64, copy=False), ends])
        return reduce_offsets(xp, values, offsets, op)[0]
    return _segmented_scan_last(xp, values, starts, op)


def combine_by_key(xp: ModuleType, keys: Any, values: Any, op: BinaryOp) -> tuple[Any, Any]:
    """Values of equal keys reduced with ``op``: (sorted distinct keys, reduced values)."""
    keys, values = sort_by_keys(xp, keys, values)
    starts = segment_starts(xp, keys)
    if starts.size == 0:
        return keys, values
    return keys[starts], segment_reduce(xp, values, starts, op).astype(values.dtype)


def _segmented_scan_last(xp: ModuleType, values: Any, starts: Any, op: BinaryOp) -> Any:
    n = values.size
    flags = xp.zeros(n, dtype=np.int64)
    flags[starts] = 1
    segment = xp.cumsum(flags) - 1
    ends = xp.concatenate([starts[1:], xp.asarray([n], dtype=starts.dtype)]) - 1
    longest = int((ends - starts).max()) + 1
    scanned = values.copy()
    step = 1
    while step < longest:
        later = xp.arange(step, n)
        same = segment[later] == segment[later - step]
        later = later[same]
        combined = op.numpy(scanned[later - step], scanned[later])
        scanned[later] = combined.astype(values.dtype, copy=False)
        step *= 2
    return scanned[ends]


def sort_by_keys(xp: ModuleType, keys: Any, *payload: Any) -> tuple[Any, ...]:
    """``keys`` sorted ascending, with each payload array permuted alike (stable for ties).

    Always new arrays (callers store them; a payload may be the user's own array)."""
    if keys.size == 0:
        return (keys, *payload)
    if bool((keys[1:] >= keys[:-1]).all()):  # already in order: copies, no sort
        return (keys.copy(), *(p.copy() for p in payload))
    if xp is np:
        order = np.argsort(keys, kind="stable")
    else:  # CuPy's argsort is a radix sort; tie order is fixed by sorting (key, position) pairs
        position = xp.arange(keys.size, dtype=np.int64)
        order = xp.lexsort(xp.stack([position, keys]))
    return (keys[order], *(p[order] for p in payload))


#: Linear keys ``row * ncols + col`` are int64: they number at most this many positions.
KEY_SPACE = 1 << 63


def keys_fit(nrows: int, ncols: int) -> bool:
    """Whether the linear keys ``row * ncols + col`` of an ``nrows x ncols`` matrix fit int64
    (every key is below ``nrows * ncols``)."""
    return int(nrows) * int(ncols) <= KEY_SPACE


def check_keys_fit(nrows: int, ncols: int) -> None:
    """DimensionMismatch, before anything is computed, for a matrix whose linear keys would
    overflow int64 (such a matrix can be built, converted and transposed, not keyed)."""
    if not keys_fit(nrows, ncols):
        raise DimensionMismatch(
            f"a {nrows}x{ncols} matrix has {int(nrows) * int(ncols)} positions, more than the "
            f"2**63 that int64 linear keys (row * ncols + col) can number; this operation "
            f"needs such keys and does not run on a matrix of this shape"
        )


#: No array of this many bytes or more exists on either backend.
_MAX_BYTES = 1 << 63


def check_fits(count: int, dtype: Any, what: str) -> None:
    """OutOfMemory, before asking, for an array of ``count`` elements of ``dtype`` whose size
    reaches 2**63 bytes: no allocator gives one, and CuPy's ``arange`` wraps such a size
    instead of failing (its kernel then writes out of bounds and the device is lost)."""
    requested = int(count) * np.dtype(dtype).itemsize
    if requested >= _MAX_BYTES:
        raise OutOfMemory(requested, None, what)


def sort_by_pairs(xp: ModuleType, major: Any, minor: Any, *payload: Any) -> tuple[Any, ...]:
    """``(major, minor, *payload)`` sorted by the pairs ``(major, minor)``, stable for ties:
    two stable sorts, for pairs whose linear key ``major * extent + minor`` would overflow."""
    minor, major, *payload = sort_by_keys(xp, minor, major, *payload)
    return sort_by_keys(xp, major, minor, *payload)


def csr_keys(xp: ModuleType, indptr: Any, indices: Any, nrows: int, ncols: int) -> Any:
    """Linear keys ``row * ncols + col`` of a CSR matrix's entries, ascending (int64).

    Raises
    ------
    DimensionMismatch
        If the keys of an ``nrows x ncols`` matrix overflow int64 (:func:`check_keys_fit`).
    """
    check_keys_fit(nrows, ncols)
    if indices.size <= UNIQUE_CHUNK:
        return row_ids(xp, indptr, nrows) * np.int64(ncols) + indices.astype(np.int64)
    # a run of rows at a time into the result: not a row id, a column id and a key of every
    # entry at once (three arrays of the result's size)
    keys = xp.empty(indices.size, dtype=np.int64)
    starts = indptr.astype(np.int64, copy=False)
    for first, last, lo, hi in row_runs(xp, starts, UNIQUE_CHUNK):
        part = keys[lo:hi]
        xp.multiply(run_row_ids(xp, starts, first, last, lo), ncols, out=part)
        part += indices[lo:hi]
    return keys


def _csr_from_sorted_rows(
    xp: ModuleType, rows: Any, cols: Any, nrows: int, idx_dtype: np.dtype
) -> tuple[Any, Any]:
    """(indptr, indices) for entries sorted by (row, col).

    On the CPU the row pointers are the running count of the entries per row (a linear pass;
    a binary search per row costs ``log nnz`` each); on the GPU a search per row, each a
    thread."""
    check_fits(nrows + 1, np.int64, f"building the {nrows + 1} row pointers of a CSR matrix")
    if xp is np:
        indptr = np.zeros(nrows + 1, dtype=idx_dtype)
        indptr[1:] = np.cumsum(np.bincount(rows, minlength=nrows))
    else:
        indptr = xp.searchsorted(rows, xp.arange(nrows + 1, dtype=np.int64)).astype(idx_dtype)
    return indptr, cols.astype(idx_dtype)


def sorted_unique(xp: ModuleType, keys: Any, *, overwrite: bool = False) -> Any:
    """Sort ``keys`` and keep one of each value.

    By default one sort and one compaction into new arrays (``keys`` untouched). With
    ``overwrite=True`` (``keys`` is the caller's to give up) it sorts in place and compacts
    chunk by chunk into the front of ``keys``, returning a view of it: a graph of billions
    of entries then needs ``keys`` and one chunk, not three arrays of ``keys``'s size.
    """
    if not overwrite:
        keys = xp.sort(keys)
        if keys.size < 2:
            return keys
        keep = xp.empty(keys.size, dtype=bool)
        keep[0] = True
        xp.not_equal(keys[1:], keys[:-1], out=keep[1:])
        return keys[keep]
    keys.sort()
    written = 0
    previous = None  # the value before the chunk, read before any write reaches it
    for start in range(0, keys.size, UNIQUE_CHUNK):
        chunk = keys[start : start + UNIQUE_CHUNK]
        keep = xp.empty(chunk.size, dtype=bool)
        if previous is None:
            keep[0] = True
        else:
            xp.not_equal(chunk[:1], previous, out=keep[:1])
        xp.not_equal(chunk[1:], chunk[:-1], out=keep[1:])
        previous = chunk[-1:].copy()
        kept = chunk[keep]
        # writes stay at or before the chunk's start: no later chunk is overwritten
        keys[written : written + kept.size] = kept
        written += int(kept.size)
    return keys[:written]


def csr_from_sorted_keys(
    xp: ModuleType, keys: Any, nrows: int, ncols: int, idx_dtype: np.dtype
) -> tuple[Any, Any]:
    """(indptr, indices) for entries given by strictly increasing linear keys.

    Raises
    ------
    DimensionMismatch
        If the keys of an ``nrows x ncols`` matrix overflow int64 (:func:`check_keys_fit`).
    """
    check_keys_fit(nrows, ncols)
    ncols64 = np.int64(max(ncols, 1))
    if xp is np:
        rows = keys // ncols64
        return _csr_from_sorted_rows(xp, rows, keys - rows * ncols64, nrows, idx_dtype)
    # on the GPU no row id per entry: each row's start is a search for its first key, and the
    # column ids are written chunk by chunk (keys of billions of entries leave little room)
    check_fits(nrows + 1, np.int64, f"building the {nrows + 1} row pointers of a CSR matrix")
    firsts = xp.arange(nrows + 1, dtype=np.int64) * ncols64
    indptr = xp.searchsorted(keys, firsts).astype(idx_dtype)
    del firsts
    indices = xp.empty(keys.size, dtype=idx_dtype)
    for start in range(0, keys.size, UNIQUE_CHUNK):
        stop = start + UNIQUE_CHUNK
        indices[start:stop] = keys[start:stop] % ncols64
    return indptr, indices


def transpose_csr(
    xp: ModuleType, indptr: Any, indices: Any, values: Any, nrows: int, ncols: int
) -> tuple[Any, Any, Any]:
    """CSR (indptr, indices, values) of the transpose of an (nrows x ncols) CSR matrix.

    On the CPU, scipy's CSR-to-CSC conversion (a counting pass, linear in the entries) of the
    entries' positions gives the permutation. On the GPU, :func:`transpose_csr_in_parts` where
    the linear keys ``col * nrows + row`` fit int64; else a stable sort of the entries
    (row-major) by column alone gives them in column-major order."""
    if xp is np:
        return _transpose_csr_numpy(indptr, indices, values, nrows, ncols)
    if keys_fit(nrows, ncols):
        return transpose_csr_in_parts(xp, indptr, indices, values, nrows, ncols)
    rows = row_ids(xp, indptr, nrows)
    cols_t, rows_t, values_t = sort_by_keys(xp, indices.astype(np.int64), rows, values)
    indptr_t, indices_t = _csr_from_sorted_rows(xp, cols_t, rows_t, ncols, indptr.dtype)
    return indptr_t, indices_t, values_t


#: Entries one part of :func:`transpose_csr_in_parts` sorts (a run of whole columns; more
#: where one column holds more).
TRANSPOSE_PART = 1 << 24


def transpose_csr_in_parts(
    xp: ModuleType, indptr: Any, indices: Any, values: Any, nrows: int, ncols: int
) -> tuple[Any, Any, Any]:
    """The transpose as :func:`transpose_csr` makes it, a run of whole columns at a time: each
    run's entries are picked (in row-major order), sorted by ``(column, row)`` among
    themselves and written to their place. Beyond the result it holds a mask of the entries
    and one run's temporaries; a sort of all the keys at once held the row ids, the keys, the
    order and the sort's buffers (six times a float32 CSR on the GPU). Array code: the GPU's
    path, which runs on the CPU too (the tests walk it there). The keys ``col * nrows + row``
    must fit int64."""
    check_fits(ncols + 1, np.int64, f"building the {ncols + 1} row pointers of a CSR matrix")
    nnz = int(indices.size)
    counts = xp.bincount(indices, minlength=ncols) if nnz else xp.zeros(ncols, dtype=np.int64)
    starts = exclusive_cumsum(xp, counts)  # the transpose's row pointer
    del counts
    indices_t = xp.empty(nnz, dtype=indptr.dtype)
    values_t = xp.empty(nnz, dtype=values.dtype)
    cuts = run_cuts(xp, starts, TRANSPOSE_PART)
    bounds = starts[xp.asarray(cuts, dtype=np.int64)].tolist()
    height = np.int64(max(nrows, 1))
    for first, end, begin, stop in zip(cuts, cuts[1:], bounds, bounds[1:], strict=False):
        if stop == begin:
            continue
        picked = indices >= first
        picked &= indices < end
        picked = xp.flatnonzero(picked)
        rows = xp.searchsorted(indptr, picked, side="right") - 1
        key = indices[picked].astype(np.int64)
        key -= first
        key *= height
        key += rows
        order = xp.argsort(key)  # the keys are distinct: no tie order to fix
        del key
        indices_t[begin:stop] = rows[order]
        del rows
        values_t[begin:stop] = values[picked[order]]
    return starts.astype(indptr.dtype), indices_t, values_t


def _transpose_csr_numpy(
    indptr: Any, indices: Any, values: Any, nrows: int, ncols: int
) -> tuple[Any, Any, Any]:
    import scipy.sparse as sp  # noqa: PLC0415 - loaded on the first CPU transpose

    check_fits(ncols + 1, np.int64, f"building the {ncols + 1} row pointers of a CSR matrix")
    positions = np.arange(indices.size, dtype=np.int64)  # scipy moves these with the entries
    csc = sp.csc_array(sp.csr_array((positions, indices, indptr), shape=(nrows, ncols), copy=False))
    return (
        csc.indptr.astype(indptr.dtype),
        csc.indices.astype(indptr.dtype),
        values[csc.data],
    )


def coo_to_csr(
    xp: ModuleType,
    rows: Any,
    cols: Any,
    values: Any,
    nrows: int,
    ncols: int,
    dup_op: BinaryOp | None,
) -> tuple[Any, Any, Any]:
    """Canonical CSR from COO triplets (sorted columns, duplicates combined with ``dup_op``).

    Sorted by one linear key ``row * ncols + col`` where it fits int64, else by the (row, col)
    pairs (two stable sorts). The arrays given are never written, nor returned.

    Raises
    ------
    InvalidValue
        If an (row, col) pair repeats and ``dup_op`` is None.
    """
    rows, cols = rows.astype(np.int64, copy=False), cols.astype(np.int64, copy=False)
    if keys_fit(nrows, ncols):
        ncols64 = np.int64(max(ncols, 1))
        keys, values = sort_by_keys(xp, rows * ncols64 + cols, values)
        rows = keys // ncols64
        cols = keys - rows * ncols64
        repeats = keys[1:] == keys[:-1]
    else:
        rows, cols, values = sort_by_pairs(xp, rows, cols, values)
        repeats = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
    if rows.size > 1 and bool(repeats.any()):
        if dup_op is None:
            first = int(xp.flatnonzero(repeats)[0])
            raise InvalidValue(
                f"duplicate entry at (row {int(rows[first])}, col {int(cols[first])}) and "
                f"{int(repeats.sum())} duplicates in all; pass dup_op= to combine them"
            )
        starts = xp.flatnonzero(xp.concatenate([xp.ones(1, dtype=bool), ~repeats]))
        values = segment_reduce(xp, values, starts, dup_op)
        rows, cols = rows[starts], cols[starts]
    idx = index_dtype(rows.size, nrows, ncols)
    indptr, indices = _csr_from_sorted_rows(xp, rows, cols, nrows, idx)
    return indptr, indices, values


def union_keys(
    xp: ModuleType,
    a_keys: Any,
    a_vals: Any,
    b_keys: Any,
    b_vals: Any,
    combine: Callable[[Any, Any], Any],
    dtype: np.dtype,
) -> tuple[Any, Any]:
    """Sorted union of two ascending key sets; keys in both get ``combine(a_val, b_val)``, keys
    in one keep their own value. Every value comes out as ``dtype``.

    A merge, not a sort: each key's place in the union is its rank in its own set plus the
    number of the other set's keys below it (binary searches), then one scatter.
    """
    in_b = member(xp, b_keys, a_keys)
    if not bool(in_b.any()):  # disjoint (a BFS's levels): no compaction, one sync fewer each
        return _merge_disjoint(
            xp, a_keys, a_vals.astype(dtype, copy=False), b_keys, b_vals.astype(dtype, copy=False)
        )
    in_a = member(xp, a_keys, b_keys)
    a_out = a_vals.astype(dtype, copy=True)
    a_out[in_b] = combine(a_vals[in_b], b_vals[in_a]).astype(dtype, copy=False)  # same order
    only_b = ~in_a
    b_keys, b_out = b_keys[only_b], b_vals[only_b].astype(dtype, copy=False)
    return _merge_disjoint(xp, a_keys, a_out, b_keys, b_out)


def _merge_disjoint(
    xp: ModuleType, a_keys: Any, a_vals: Any, b_keys: Any, b_vals: Any
) -> tuple[Any, Any]:
    """Sorted union of two ascending key sets with no key in both: each key's place is its
    rank in its own set plus the other set's keys below it."""
    keys = xp.empty(a_keys.size + b_keys.size, dtype=np.result_type(a_keys, b_keys))
    values = xp.empty(keys.size, dtype=a_vals.dtype)
    # each side a chunk at a time: two int64 positions per chunk, not per key of the union
    for mine, my_vals, other in ((a_keys, a_vals, b_keys), (b_keys, b_vals, a_keys)):
        for start in range(0, mine.size, UNIQUE_CHUNK):
            part = mine[start : start + UNIQUE_CHUNK]
            at = xp.searchsorted(other, part)
            at += xp.arange(start, start + part.size, dtype=at.dtype)
            keys[at], values[at] = part, my_vals[start : start + UNIQUE_CHUNK]
    return keys, values


def locate(xp: ModuleType, sorted_set: Any, queries: Any) -> tuple[Any, Any]:
    """``(at, found)``: whether each query occurs in the non-empty ascending array
    ``sorted_set``, and where (``at`` is a valid position even where it does not)."""
    at = xp.minimum(xp.searchsorted(sorted_set, queries), sorted_set.size - 1)
    return at, sorted_set[at] == queries


def member(xp: ModuleType, sorted_set: Any, queries: Any) -> Any:
    """Bool array: whether each query occurs in the ascending array ``sorted_set``."""
    if sorted_set.size == 0:
        return xp.zeros(queries.shape, dtype=bool)
    return locate(xp, sorted_set, queries)[1]


def to_bitmap(xp: ModuleType, size: int, ids: Any, values: Any) -> tuple[Any, Any]:
    """Fresh bitmap arrays ``(values, presence)`` of ``size`` positions holding ``values`` at
    ``ids`` (no repeats), zeros and False elsewhere. On the GPU one kernel writes both
    (:mod:`hyblas.device.scatter`). OutOfMemory if they do not fit."""
    what = f"building a bitmap of {size} positions"
    check_fits(size, values.dtype, what)
    with translate_oom(what):
        if xp is not np:
            return scatter_bitmap(xp, size, ids, values)
        out = np.zeros(size, dtype=values.dtype)
        present = np.zeros(size, dtype=bool)
    out[ids] = values
    present[ids] = True
    return out, present


def full_bitmap(xp: ModuleType, size: int, value: Any, dtype: Any) -> tuple[Any, Any]:
    """Fresh bitmap arrays ``(values, presence)`` of ``size`` positions, each holding ``value``
    (cast to ``dtype``). On the GPU one kernel writes both (:mod:`hyblas.device.fill`).
    OutOfMemory if they do not fit."""
    what = f"building a full bitmap of {size} positions"
    check_fits(size, dtype, what)
    with translate_oom(what):
        if xp is not np:
            return fill_bitmap(xp, size, value, dtype)
        return np.full(size, value, dtype=dtype), np.ones(size, dtype=bool)


def quiet_placeholders() -> np.errstate:
    """Silence floating-point warnings while an operator also runs on the placeholder values of
    a bitmap's absent positions (their results are discarded)."""
    return np.errstate(all="ignore")
