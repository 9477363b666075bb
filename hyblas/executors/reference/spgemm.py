"""Reference SpGEMM ``C = A ⊕.⊗ B`` with memory bounded by a product budget.

Three strategies, chosen per call and per row of ``A``:

* **saxpy** (Gustavson by expansion): every product ``A_ik ⊗ B_kj`` of a group of rows is
  expanded, products a mask rules out are dropped, the rest sorted by ``(i, j)`` and reduced.
  Rows are grouped so that a group's products stay under :data:`PRODUCT_BUDGET`, so memory is
  bounded whatever the size of the full product.
* **row SpMV**: a row of ``A`` whose products would reach ``nnz(B) / DENSE_ROW_FRACTION`` and
  :data:`DENSE_ROW_MIN` is one vector-matrix product over ``Bᵀ`` (the reference SpMV): one pass
  over ``B`` costs less than sorting that many products (a wide level of a multi-source BFS on
  a power-law graph).
* **dot** (non-complemented mask only): when ``Σ_(i,j) in mask min(|A_i*|, |B_*j|)`` is below
  the saxpy product count (triangle counting), each allowed entry is the intersection of row
  ``i`` of ``A`` and column ``j`` of ``B``, walked from the shorter side with a binary search
  into the other (on the GPU one kernel, :mod:`.masked_dot`).

A mask is passed as its parent Matrix (its structure, or its true values) and a complement
flag; only the mask rows a group touches are turned into keys.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...backend import to_numpy
from ...containers.derived import transpose_for
from ...device import arrays as _prim
from ...operators.classes import Semiring
from .masked_dot import masked_dot
from .spmv import spmv

__all__ = ["spgemm", "MaskRows", "PRODUCT_BUDGET", "DENSE_ROW_FRACTION"]

#: Most products expanded at once by the saxpy strategy (per backend).
PRODUCT_BUDGET = {"cpu": 1 << 23, "cuda": 1 << 25}
#: About the most mask entries the dot strategy takes at once (one kernel pass on the GPU):
#: its per-entry arrays stay bounded, and its result is written into one array per output.
DOT_SLICE = 1 << 24
#: A row with at least ``nnz(B) / DENSE_ROW_FRACTION`` products is computed by a row SpMV.
DENSE_ROW_FRACTION = 16
#: ... and at least this many (per backend). A row SpMV has a fixed cost, which on the GPU is
#: host and launch work worth sorting millions of products: below this, a row goes into a
#: saxpy group with its neighbours (small ``B``, or the narrow rows of a small graph's search).
DENSE_ROW_MIN = {"cpu": 1 << 14, "cuda": 1 << 23}


def _cast(values: Any, dtype: np.dtype) -> Any:
    return values.astype(dtype, copy=False)


class MaskRows:
    """The allowed (or, complemented, the ruled-out) keys of a matrix mask, row range by range."""

    def __init__(self, parent: Any, structural: bool, complement: bool) -> None:
        self.parent, self.structural, self.complement = parent, structural, complement

    def entries(
        self, row_start: int, row_stop: int, span: tuple[int, int] | None = None
    ) -> tuple[Any, Any]:
        """Rows and columns (int64) of the mask's entries in rows ``row_start:row_stop``, in
        order: its stored entries, or (a valued mask) those whose value is true. ``span``:
        the rows' entries ``lo:hi`` where known (:meth:`slices`), else read from the device."""
        m = self.parent
        xp = m.xp
        lo, hi = span or (int(m.indptr[row_start]), int(m.indptr[row_stop]))
        rows = _prim.run_row_ids(xp, m.indptr, row_start, row_stop, lo)
        cols = m.indices[lo:hi].astype(np.int64)
        if self.structural:
            return rows, cols
        true = m.values[lo:hi].astype(bool)
        return rows[true], cols[true]

    def keys(self, row_start: int, row_stop: int) -> Any:
        rows, cols = self.entries(row_start, row_stop)
        return rows * np.int64(max(self.parent.ncols, 1)) + cols

    def allows(self, keys: Any, row_start: int, row_stop: int) -> Any:
        """Whether the mask allows each of ``keys``, the keys of products in rows
        ``row_start:row_stop`` grouped by row in ascending order (not sorted within a row).
        The mask's keys are made a run of its rows of about ``DOT_SLICE`` entries at a time,
        each run tested against its rows' products only (a slice: every key below a row's
        first key comes before it), not all its keys at once: the mask of a multi-source
        search holds every vertex found so far, many times the products of a late level."""
        xp = self.parent.xp
        ncols = np.int64(max(self.parent.ncols, 1))
        hit = xp.zeros(keys.size, dtype=bool)
        starts = self.parent.indptr[row_start : row_stop + 1]
        for first, last, lo, hi in _prim.row_runs(xp, starts, DOT_SLICE):
            first, last = row_start + first, row_start + last
            q0, q1 = (
                int(q)
                for q in to_numpy(xp.searchsorted(keys, xp.asarray([first * ncols, last * ncols])))
            )
            if q0 == q1 or lo == hi:
                continue
            rows, cols = self.entries(first, last, (lo, hi))
            hit[q0:q1] = _prim.member(xp, rows * ncols + cols, keys[q0:q1])
        return ~hit if self.complement else hit

    def slices(self, entries: int) -> list[tuple[int, int, int, int]]:
        """Row ranges covering every row in order, each holding about ``entries`` stored
        entries (a row holding more is in one range): ``(start, stop, lo, hi)``, ``lo:hi``
        the span of their entries (:func:`hyblas.device.arrays.row_runs`)."""
        return _prim.row_runs(self.parent.xp, self.parent.indptr, entries)


def spgemm(a: Any, b: Any, semiring: Semiring, *, mask: MaskRows | None = None) -> tuple[Any, Any]:
    """``C = A ⊕.⊗ B`` (restricted to what ``mask`` allows) as ascending keys and values.

    Keys are linear, ``i * ncols(B) + j``: DimensionMismatch, before anything is computed,
    where they would overflow int64.
    """
    _prim.check_keys_fit(a.nrows, b.ncols)
    xp = a.xp
    op_type = semiring.input_type(a.dtype, b.dtype)
    out_type = semiring.output_type(op_type)
    total = _product_count(a, b)
    if total == 0 or a.nrows == 0:
        return xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=out_type)
    if mask is not None and not mask.complement:
        slices = mask.slices(DOT_SLICE)
        if _dot_cost(a, b, mask, slices, total) < total:
            return _dot(a, b, semiring, mask, slices, op_type, out_type)
    counts = xp.diff(b.indptr.astype(np.int64))[a.indices]  # products of each entry of A
    row_products = to_numpy(_prim.sums_before_rows(xp, a.indptr, counts, DOT_SLICE))
    budget = PRODUCT_BUDGET[a.backend]
    dense_from = max(b.nnz // DENSE_ROW_FRACTION, DENSE_ROW_MIN[a.backend])
    parts = [
        _dense_row(a, b, start, semiring, mask, out_type)
        if dense
        else _saxpy(a, b, start, stop, counts, semiring, mask, op_type, out_type)
        for start, stop, dense in _plan(row_products, budget, dense_from)
    ]
    del counts  # not alive while the parts are joined
    if len(parts) == 1:
        return parts[0]
    return xp.concatenate([p[0] for p in parts]), xp.concatenate([p[1] for p in parts])


def _plan(row_totals: np.ndarray, budget: int, dense_from: int) -> list[tuple[int, int, bool]]:
    """Row ranges ``(start, stop, dense)`` in order: single dense rows, and groups of rows whose
    products fit the budget (a group holds at least one row)."""
    nrows = row_totals.size - 1
    per_row = np.diff(row_totals)
    dense_rows = np.flatnonzero(per_row >= dense_from).tolist()
    plan: list[tuple[int, int, bool]] = []
    start = 0
    for stop in [*dense_rows, nrows]:
        while start < stop:
            end = int(np.searchsorted(row_totals, row_totals[start] + budget, side="right")) - 1
            end = min(max(end, start + 1), stop)
            if row_totals[end] > row_totals[start]:
                plan.append((start, end, False))
            start = end
        if stop < nrows:
            plan.append((stop, stop + 1, True))
            start = stop + 1
    return plan


def _saxpy(
    a: Any,
    b: Any,
    row_start: int,
    row_stop: int,
    counts: Any,
    semiring: Semiring,
    mask: MaskRows | None,
    op_type: np.dtype,
    out_type: np.dtype,
) -> tuple[Any, Any]:
    xp = a.xp
    lo, hi = int(a.indptr[row_start]), int(a.indptr[row_stop])
    a_rows = _prim.run_row_ids(xp, a.indptr, row_start, row_stop, lo)
    a_cols = a.indices[lo:hi].astype(np.int64)
    entry_counts = counts[lo:hi]
    source = _prim.expand(xp, entry_counts)
    first_of_run = xp.cumsum(entry_counts) - entry_counts
    b_first = b.indptr.astype(np.int64)[a_cols]
    b_pos = b_first[source] + (xp.arange(source.size, dtype=np.int64) - first_of_run[source])
    keys = a_rows[source] * np.int64(max(b.ncols, 1)) + b.indices[b_pos].astype(np.int64)
    if mask is not None:
        chosen = mask.allows(keys, row_start, row_stop)
        keys, source, b_pos = keys[chosen], source[chosen], b_pos[chosen]
    products = semiring.binaryop.numpy(
        _cast(a.values[lo:hi][source], op_type), _cast(b.values[b_pos], op_type)
    )
    return _reduce_sorted(xp, keys, _cast(products, out_type), semiring)


def _reduce_sorted(xp: Any, keys: Any, products: Any, semiring: Semiring) -> tuple[Any, Any]:
    keys, products = _prim.sort_by_keys(xp, keys, products)
    starts = _prim.segment_starts(xp, keys)
    reduced = _prim.segment_reduce(xp, products, starts, semiring.monoid.binaryop)
    return keys[starts], _cast(reduced, products.dtype)


def _dense_row(
    a: Any, b: Any, row: int, semiring: Semiring, mask: MaskRows | None, out_type: np.dtype
) -> tuple[Any, Any]:
    """Row ``row`` of the product as one vector-matrix product ``a_row ⊕.⊗ B`` over ``Bᵀ``."""
    xp = a.xp
    lo, hi = int(a.indptr[row]), int(a.indptr[row + 1])
    u_values = xp.zeros(b.nrows, dtype=a.dtype)
    u_present = xp.zeros(b.nrows, dtype=bool)
    cols = a.indices[lo:hi]
    u_values[cols] = a.values[lo:hi]
    u_present[cols] = True
    bt = transpose_for(b, reads_values=semiring.binaryop.reads_y)
    values, present, _ = spmv(bt, u_values, u_present, semiring, flip=True, all_present=False)
    if mask is not None:
        ncols = np.int64(max(b.ncols, 1))
        marked = mask.keys(row, row + 1) - row * ncols
        hit = xp.zeros(b.ncols, dtype=bool)
        hit[marked] = True
        present &= ~hit if mask.complement else hit
    cols_out = xp.flatnonzero(present).astype(np.int64)
    return row * np.int64(max(b.ncols, 1)) + cols_out, _cast(values[cols_out], out_type)


def _product_count(a: Any, b: Any) -> int:
    """How many products ``A ⊕.⊗ B`` expands: each column ``k`` of A's entries times the
    length of row ``k`` of B (no per-entry array)."""
    xp = a.xp
    if a.nnz == 0 or b.nnz == 0:
        return 0
    per_column = xp.bincount(a.indices, minlength=a.ncols).astype(np.int64)
    return int((per_column * xp.diff(b.indptr.astype(np.int64))).sum())


def _dot_cost(
    a: Any, b: Any, mask: MaskRows, slices: list[tuple[int, int, int, int]], limit: int
) -> int:
    """Binary searches the dot strategy makes for the mask's entries, counted a slice at a
    time until the count reaches ``limit`` (the other strategy is then chosen)."""
    xp = a.xp
    a_len = xp.diff(a.indptr.astype(np.int64))
    b_len = xp.diff(transpose_for(b, reads_values=False).indptr.astype(np.int64))
    cost = 0
    for start, stop, lo, hi in slices:
        rows, cols = mask.entries(start, stop, (lo, hi))
        cost += int(xp.minimum(a_len[rows], b_len[cols]).sum())
        if cost >= limit:
            break
    return cost


def _dot(
    a: Any,
    b: Any,
    semiring: Semiring,
    mask: MaskRows,
    slices: list[tuple[int, int, int, int]],
    op_type: np.dtype,
    out_type: np.dtype,
) -> tuple[Any, Any]:
    """Each entry ``(i, j)`` the mask allows: ``⊕_k A_ik ⊗ B_kj`` over the k in both row i of
    A and column j of B, walking the shorter of the two and binary-searching the other: on the
    GPU in one kernel pass (:mod:`.masked_dot`), on the CPU in array code, a slice of the mask's
    rows at a time. The entries found go into one array of keys and one of values, sized for
    every entry of the mask (no list of parts joined at the end)."""
    xp = a.xp
    bt = transpose_for(b, reads_values=semiring.binaryop.reads_y)
    ncols = np.int64(max(b.ncols, 1))
    capacity = int(mask.parent.nnz)
    keys = xp.empty(capacity, dtype=np.int64)
    values = xp.empty(capacity, dtype=out_type)
    if a.backend == "cuda":
        walk = functools.partial(_dot_kernel, a, bt, semiring, op_type, out_type)
    else:
        walk = _DotArrays(a, bt, semiring, op_type, out_type).walk
    written = 0
    for start, stop, lo, hi in slices:
        rows, cols = mask.entries(start, stop, (lo, hi))
        found, present = walk(rows, cols)
        rows, cols = rows[present], cols[present]
        count = int(rows.size)
        xp.multiply(rows, ncols, out=keys[written : written + count])
        keys[written : written + count] += cols
        values[written : written + count] = found[present]
        written += count
        del rows, cols, found, present
    if written < capacity:  # the result holds no more than it needs
        values = values[:written].copy()
    return keys[:written], values


def _dot_kernel(
    a: Any, bt: Any, semiring: Semiring, op_type: np.dtype, out_type: np.dtype, rows: Any, cols: Any
) -> tuple[Any, Any]:
    """``(values, present)`` of the entries ``(rows[e], cols[e])``: one kernel pass."""
    values, present = masked_dot(a, bt, semiring, rows, cols, op_type)
    return _cast(values, out_type), present


class _DotArrays:
    """The dot strategy in array code (the CPU, and the GPU kernel's check): each entry's
    shorter row walked, its indices searched in the other row's linear keys, in groups of
    entries whose walks fit the product budget."""

    def __init__(
        self, a: Any, bt: Any, semiring: Semiring, op_type: np.dtype, out_type: np.dtype
    ) -> None:
        xp = a.xp
        self.a, self.bt, self.semiring = a, bt, semiring
        self.op_type, self.out_type = op_type, out_type
        self.a_starts, self.bt_starts = a.indptr.astype(np.int64), bt.indptr.astype(np.int64)
        self.a_keys = _prim.csr_keys(xp, a.indptr, a.indices, a.nrows, a.ncols)
        self.bt_keys = _prim.csr_keys(xp, bt.indptr, bt.indices, bt.nrows, bt.ncols)

    def walk(self, rows: Any, cols: Any) -> tuple[Any, Any]:
        """``(values, present)`` of the entries ``(rows[e], cols[e])``."""
        a, bt, semiring, op_type, out_type = (
            self.a,
            self.bt,
            self.semiring,
            self.op_type,
            self.out_type,
        )
        a_starts, bt_starts, a_keys, bt_keys = (
            self.a_starts,
            self.bt_starts,
            self.a_keys,
            self.bt_keys,
        )
        xp = a.xp
        inner = np.int64(max(a.ncols, 1))
        a_len = a_starts[rows + 1] - a_starts[rows]
        b_len = bt_starts[cols + 1] - bt_starts[cols]
        from_a = a_len <= b_len
        values = xp.zeros(rows.size, dtype=out_type)
        present = xp.zeros(rows.size, dtype=bool)
        budget = PRODUCT_BUDGET[a.backend]
        for walk_a in (True, False):
            entries = xp.flatnonzero(from_a if walk_a else ~from_a)
            lengths = (a_len if walk_a else b_len)[entries]
            firsts = (a_starts[rows] if walk_a else bt_starts[cols])[entries]
            running = to_numpy(xp.cumsum(lengths))
            begin = 0
            while begin < entries.size:  # groups of entries whose walks fit the budget
                done = int(running[begin - 1]) if begin else 0
                stop = max(int(np.searchsorted(running, done + budget, side="right")), begin + 1)
                group, group_len = entries[begin:stop], lengths[begin:stop]
                owner = _prim.expand(xp, group_len)
                run_first = xp.cumsum(group_len) - group_len
                walked = firsts[begin:stop][owner] + (
                    xp.arange(owner.size, dtype=np.int64) - run_first[owner]
                )
                if walk_a:  # k from row i of A, looked up in row j of Bᵀ
                    k = a.indices[walked].astype(np.int64)
                    wanted = cols[group][owner] * inner + k
                    pos = xp.minimum(xp.searchsorted(bt_keys, wanted), max(bt_keys.size - 1, 0))
                    found = bt_keys[pos] == wanted if bt_keys.size else xp.zeros(owner.size, bool)
                    a_pos, b_pos = walked, pos
                else:  # k from row j of Bᵀ, looked up in row i of A
                    k = bt.indices[walked].astype(np.int64)
                    wanted = rows[group][owner] * inner + k
                    pos = xp.minimum(xp.searchsorted(a_keys, wanted), max(a_keys.size - 1, 0))
                    found = a_keys[pos] == wanted if a_keys.size else xp.zeros(owner.size, bool)
                    a_pos, b_pos = pos, walked
                owner, a_pos, b_pos = owner[found], a_pos[found], b_pos[found]
                products = _cast(
                    semiring.binaryop.numpy(
                        _cast(a.values[a_pos], op_type), _cast(bt.values[b_pos], op_type)
                    ),
                    out_type,
                )
                starts = _prim.segment_starts(xp, owner)
                reduced = _prim.segment_reduce(xp, products, starts, semiring.monoid.binaryop)
                targets = group[owner[starts]]
                values[targets] = _cast(reduced, out_type)
                present[targets] = True
                begin = stop
        return values, present
