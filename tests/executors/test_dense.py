"""What is particular to the dense-frontier executor (``executor='dense'``): its layout, checked
by decoding it back into the matrix's entries; its parameters; phase 1 in one launch or two;
full outputs; when the policy takes it. Its products against the model and the reference, with
parameter sets drawn small: ``test_products.py``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.backend import to_numpy
from hyblas.errors import InvalidValue
from hyblas.executors import policy as hybrid
from hyblas.executors.dense import DenseParams, dense_params
from hyblas.executors.dense.executor import heavy_groups
from hyblas.executors.dense.layout import (
    PAD,
    VECTOR,
    DenseLayout,
    build_layout,
    layout_of,
    tile_position,
)
from tests.support import strategies as S
from tests.support.executors import (
    assert_products_equal_reference,
    panel_matrix,
    shaped_inputs,
    small_dense_params,
)


@pytest.mark.parametrize("launches", [1, 2])
def test_phase1_in_one_launch_or_two_equals_reference(backend: str, launches: int) -> None:
    """Heavy blocks of 2 groups x 32 threads and light blocks of 64: one launch can take both
    (the light units among the heavy teams), as ``phase1_launches=1`` asks; 2 keeps two."""
    params = DenseParams(
        column_panel=16,
        row_panel=16,
        heavy_threshold=8,
        heavy_unit_edges=12,
        heavy_team_edges=20,
        heavy_groups=2,
        light_unit_edges=24,
        heavy_threads=32,
        light_threads=64,
        reorder="both",
        phase1_launches=launches,
    )
    rng = np.random.default_rng(11)
    with hb.using_backend(backend):
        A = panel_matrix("power_law", rng, "float64")
        inputs = shaped_inputs(A, rng, ("full", 0.3))
        with dense_params(params):
            assert_products_equal_reference(A, inputs, "plus_times", "dense")
        for edges in (A, A.T):
            layout = layout_of(edges, params)
            assert layout.heavy_units and layout.light_units
            if backend == "cuda":  # two specializations each (full and partial inputs)
                assert len(layout.plans) == 2
                assert {len(plan.phase1) for plan in layout.plans.values()} == {launches}


@pytest.mark.parametrize("full_out", [True, False])
def test_accumulating_into_a_full_output_keeps_it_full(backend: str, full_out: bool) -> None:
    """``out accum= u A`` (no mask) into a full output is full, and its count is known without
    counting; into an output with gaps, the count is the rows present in either."""
    A = hb.generators.grid_2d(6, 7, dtype=np.float64, backend=backend)  # noqa: N806
    n = A.nrows
    cut = hb.Vector.from_coo(np.arange(n - 5), np.ones(n - 5), size=n, backend=backend)
    u = hb.Vector.from_coo(np.arange(0, n, 2), np.arange(0, n, 2) + 1.0, size=n, backend=backend)
    start = (
        hb.Vector.from_scalar(0.5, n, backend=backend)
        if full_out
        else hb.ops.apply(cut, hb.binary["times"], right=0.5)
    )
    out, expected_out = start.dup(), start.dup()
    with dense_params(DenseParams(column_panel=5, row_panel=4, heavy_threshold=3)):
        hb.ops.vxm(u, A, "plus_times", out=out, accum=hb.binary["plus"], executor="dense")
    hb.ops.vxm(u, A, "plus_times", out=expected_out, accum=hb.binary["plus"], executor="reference")
    if full_out:
        assert out.known_nnz == n
    assert out.isequal(expected_out)
    assert out.nnz == int(to_numpy(expected_out.as_bitmap()[1]).sum())


# --- the layout --------------------------------------------------------------------------------


def decode(layout: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (row, column, value) entries a layout holds, in the user's numbering."""
    get = to_numpy
    p = layout.params
    rows, cols, vals = [], [], []
    table = get(layout.heavy_table)
    weights = None if layout.iso_value is not None else get(layout.heavy_weights)
    slot_ptr = get(layout.slot_ptr)
    for panel, steps, offset, base in zip(
        get(layout.heavy_panel),
        get(layout.heavy_steps),
        get(layout.heavy_offset),
        get(layout.heavy_slot_base),
    ):
        row_panel = int(np.searchsorted(slot_ptr, base, side="right") - 1)
        for t in range(p.heavy_threads):
            dst = None
            for k in range(int(steps) * VECTOR):
                at = int(tile_position(int(offset) + t * VECTOR, k, p.heavy_threads))
                token = int(table[at])
                if token == PAD:
                    break
                if token < 0:
                    dst = -token - 1
                    continue
                assert dst is not None, "a tile column starts without a destination"
                rows.append(row_panel * p.row_panel + dst)
                cols.append(int(panel) * p.column_panel + token)
                vals.append(layout.iso_value if weights is None else weights[at])
    light_src, light_slot = get(layout.light_src), get(layout.light_slot)
    slot_dst = get(layout.slot_dst)
    lw = None if layout.iso_value is not None else get(layout.light_weights)
    for panel, begin, end in zip(
        get(layout.light_panel), get(layout.light_begin), get(layout.light_end)
    ):
        for k in range(int(begin), int(end)):
            slot = int(light_slot[k])
            row_panel = int(np.searchsorted(slot_ptr, slot, side="right") - 1)
            rows.append(row_panel * p.row_panel + int(slot_dst[slot]))
            cols.append(int(panel) * p.column_panel + int(light_src[k]))
            vals.append(layout.iso_value if lw is None else lw[k])
    rows, cols = np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)
    if layout.row_position is not None:  # internal position -> user row: its inverse
        rows = np.argsort(get(layout.row_position))[rows]
    if layout.column_order is not None:
        cols = get(layout.column_order)[cols]
    return rows, cols, np.array(vals)


@given(A=S.matrices(dtype=np.float64), params=small_dense_params())
def test_layout_holds_every_entry_once(backend: str, A: S.MatrixData, params: DenseParams) -> None:
    matrix = A.hyblas(backend)
    layout = build_layout(matrix, params)
    rows, cols, vals = decode(layout)
    order = np.lexsort((cols, rows))
    assert rows[order].tolist() == A.rows.tolist()
    assert cols[order].tolist() == A.cols.tolist()
    np.testing.assert_array_equal(vals[order].astype(np.float64), A.values)
    get = to_numpy
    # heavy units: at most heavy_unit_edges entries each; slots tile the row panels in order
    assert layout.heavy_entries + layout.light_src.size == A.rows.size
    slot_ptr = get(layout.slot_ptr)
    assert slot_ptr[0] == 0 and slot_ptr[-1] == layout.slots and (np.diff(slot_ptr) >= 0).all()
    assert (get(layout.slot_dst) < params.row_panel).all()
    # teams: consecutive units covering every heavy unit once, each of one column panel
    begin, end = get(layout.team_begin), get(layout.team_end)
    assert begin.tolist() == sorted(begin.tolist()) and (end > begin).all()
    covered = np.concatenate([np.arange(b, e) for b, e in zip(begin, end)] or [np.zeros(0)])
    assert covered.tolist() == list(range(layout.heavy_units))
    panels = get(layout.heavy_panel)
    assert all((panels[b:e] == panels[b]).all() for b, e in zip(begin, end))
    ends = get(layout.light_end) - get(layout.light_begin)
    assert (ends >= 1).all() and (ends <= params.light_unit_edges).all()
    # phase-2 chunks: the panels with more slots than reduce_chunk_slots, cut in order
    panel_split, chunk_split = get(layout.panel_split), get(layout.chunk_split)
    chunk_begin, chunk_end = get(layout.chunk_begin), get(layout.chunk_end)
    split = np.flatnonzero(np.diff(slot_ptr) > params.reduce_chunk_slots)
    assert panel_split[split].tolist() == list(range(split.size))
    assert (np.delete(panel_split, split) == -1).all()
    assert (chunk_end > chunk_begin).all()
    assert (chunk_end - chunk_begin <= params.reduce_chunk_slots).all()
    for index, panel in enumerate(split):
        mine = chunk_split == index
        assert chunk_begin[mine][0] == slot_ptr[panel]
        assert chunk_end[mine][-1] == slot_ptr[panel + 1]
        assert (chunk_begin[mine][1:] == chunk_end[mine][:-1]).all()


def assert_layouts_equal(got: DenseLayout, expected: DenseLayout) -> None:
    """Every array (values and dtype) and number of two layouts is the same."""
    for field in dataclasses.fields(DenseLayout):
        if field.name in ("build_seconds", "plans"):
            continue
        mine, theirs = getattr(got, field.name), getattr(expected, field.name)
        if theirs is None or isinstance(theirs, str | int | float | DenseParams | np.generic):
            assert mine == theirs if theirs is not None else mine is None, field.name
            continue
        mine, theirs = to_numpy(mine), to_numpy(theirs)
        assert mine.dtype == theirs.dtype, field.name
        np.testing.assert_array_equal(mine, theirs, err_msg=field.name)


@given(
    A=S.matrices(dtype=np.float64),
    params=small_dense_params(),
    part_entries=st.integers(1, 30),
    iso=st.booleans(),
)
def test_layout_does_not_depend_on_the_parts_it_is_built_in(
    backend: str, A: S.MatrixData, params: DenseParams, part_entries: int, iso: bool
) -> None:
    matrix = A.hyblas(backend)
    if iso:
        matrix = hb.Matrix.from_coo(
            A.rows, A.cols, np.ones(A.rows.size), nrows=A.nrows, ncols=A.ncols, backend=backend
        )
    whole = build_layout(matrix, params, part_entries=max(1, matrix.nnz))
    assert_layouts_equal(build_layout(matrix, params, part_entries=part_entries), whole)


def test_a_large_block_is_built_in_several_parts() -> None:
    """A power-law graph's hub block holds most entries: the tile passes cut it at its units
    (weighted, so that the weights follow the parts' sort)."""
    A = hb.generators.kronecker(12, 16, seed=3, backend="cpu")
    rows, cols, _ = A.to_coo()
    weighted = hb.Matrix.from_coo(
        rows, cols, np.random.default_rng(3).random(rows.size), nrows=A.nrows, ncols=A.ncols
    )
    params = DenseParams(
        row_panel=1024, column_panel=2048, heavy_threshold=64, heavy_unit_edges=256
    )
    for matrix in (A, weighted):
        whole = build_layout(matrix, params, part_entries=matrix.nnz)
        assert_layouts_equal(build_layout(matrix, params, part_entries=997), whole)
    # the hub block (internal ids: the renumbering by degree) holds many parts' worth
    inner_row = to_numpy(whole.row_position)[rows]
    column_at = np.empty(A.ncols, dtype=np.int64)
    column_at[to_numpy(whole.column_order)] = np.arange(whole.column_order.size)
    block = column_at[cols] // 2048 * whole.row_panels + inner_row // 1024
    assert np.bincount(block).max() > 5 * 997
    rows, cols, vals = decode(build_layout(weighted, params, part_entries=997))
    order = np.lexsort((cols, rows))
    np.testing.assert_array_equal(vals[order], weighted.to_coo()[2])


def test_iso_matrix_keeps_no_weights() -> None:
    A = hb.generators.grid_2d(5, 7, backend="cpu")
    layout = build_layout(A, DenseParams(column_panel=4, row_panel=4, heavy_threshold=3))
    assert layout.iso_value == 1.0 and layout.heavy_weights is None
    assert layout.light_weights is None


def test_layout_is_cached_per_params_and_dropped_on_change() -> None:
    A = hb.generators.grid_2d(4, 4, backend="cpu")
    u = hb.Vector.from_dense(np.ones(16, dtype=np.float32))
    first = DenseParams(column_panel=4, row_panel=4)
    with dense_params(first):
        hb.ops.mxv(A, u, "plus_times", executor="dense")
    assert ("dense_layout", first) in A.cache
    with dense_params(column_panel=8):
        hb.ops.mxv(A, u, "plus_times", executor="dense")
    assert sum(1 for k in A.cache if k[0] == "dense_layout") == 2
    hb.ops.apply(A, "ainv", out=A)
    assert not any(k[0] == "dense_layout" for k in A.cache if isinstance(k, tuple))


@pytest.mark.parametrize(
    "change",
    [
        {"column_panel": 0},
        {"row_panel": 40000},
        {"heavy_threads": 2048},
        {"reorder": "random"},
        {"light_unit_edges": 2.5},
        {"heavy_groups": 16},
        {"heavy_groups": 0},
        {"phase1_launches": 3},
    ],
)
def test_bad_params_raise(change: dict) -> None:
    with pytest.raises(InvalidValue):
        DenseParams(**change)


def test_heavy_groups_fall_back_to_what_shared_memory_holds() -> None:
    """Two groups of float64 accumulators beside a 16384-input panel fit (192 KB) while the
    inputs are all present; with presence flags (240 KB) only one group does."""
    params = DenseParams(heavy_groups=2)
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    assert heavy_groups(params, f32, f32, all_present=False) == 2
    assert heavy_groups(params, f64, f64, all_present=True) == 2
    assert heavy_groups(params, f64, f64, all_present=False) == 1
    assert heavy_groups(DenseParams(heavy_groups=1), f32, f32, all_present=True) == 1
    # a block holds whole warps per group, at most 1024 threads
    assert DenseParams(heavy_groups=3, heavy_threads=48).block_groups == 1
    assert DenseParams(heavy_groups=3, heavy_threads=512).block_groups == 2
    assert DenseParams(heavy_groups=3, heavy_threads=256).block_groups == 3
    too_big = DenseParams(column_panel=32767, row_panel=32767, heavy_groups=2)
    with pytest.raises(InvalidValue, match="shared memory"):
        heavy_groups(too_big, f64, f64, all_present=False)


@pytest.mark.gpu
def test_panels_too_big_for_shared_memory_raise_and_leave_out_unchanged(cuda_usable: bool) -> None:
    if not cuda_usable:
        pytest.skip("needs the 'cuda' backend")
    A = hb.generators.grid_2d(8, 8, dtype=np.float64, backend="cuda")
    u = hb.Vector.from_dense(np.ones(64), backend="cuda")
    w = hb.Vector.from_coo([1, 5], [2.0, 3.0], size=64, backend="cuda")
    with (
        dense_params(column_panel=32767, row_panel=32767),
        pytest.raises(InvalidValue, match="shared memory"),
    ):
        hb.ops.mxv(A, u, "plus_times", out=w, accum=hb.binary.plus, executor="dense")
    assert w.to_coo()[0].tolist() == [1, 5] and w.to_coo()[1].tolist() == [2.0, 3.0]


@pytest.mark.gpu
def test_auto_takes_dense_once_its_savings_pay_for_the_layout(cuda_usable: bool) -> None:
    """The sampling policy on the GPU: full min_plus products on a large matrix (the generic
    CSR kernel's case) go to the dense layout from the call at which their modelled savings
    reach the modelled build cost; plus_times on floats then also takes the built layout, which
    is modelled (and measured) below cuSPARSE for a full input; a one-entry input does not
    build the sparse push's layout on its first call."""
    if not cuda_usable:
        pytest.skip("needs the 'cuda' backend")
    A = hb.generators.grid_2d(1024, 1024, backend="cuda")
    u = hb.Vector.from_dense(np.ones(A.ncols, dtype=np.float32), backend="cuda")
    build = hybrid.layout_build_us("cuda", "dense", A.nnz)
    saved = 0.0
    with hb.policy("sampling"), hb.trace() as t:
        first = last = hb.ops.mxv(A, u, "min_plus")
        for _ in range(5000):
            estimates = t[-1].estimates_us
            saved += estimates["reference"] - estimates["dense"]
            if t[-1].executor == "dense":
                break
            assert not any(isinstance(k, tuple) and k[0] == "dense_layout" for k in A.cache)
            last = hb.ops.mxv(A, u, "min_plus")
        assert any(isinstance(k, tuple) and k[0] == "dense_layout" for k in A.cache)
        assert saved >= build > saved - (estimates["reference"] - estimates["dense"])
        hb.ops.mxv(A, u, "plus_times")
        hb.ops.mxv(A, hb.Vector.from_coo([0], [1.0], size=A.ncols, backend="cuda"), "min_plus")
    assert last.isclose(first)
    executors = [r.executor for r in t]
    assert set(executors[:-3]) == {"reference"} and executors[-3:-1] == ["dense", "dense"]
    plus_times = t[-2].estimates_us
    assert plus_times["dense"] < plus_times["reference"]
    assert executors[-1] != "sparse"  # one call's savings do not pay for the push's layout
    assert not any(isinstance(k, tuple) and k[0] == "sparse_layout" for k in A.cache)


def test_auto_stays_on_reference_on_the_cpu() -> None:
    A = hb.generators.grid_2d(64, 64, backend="cpu")
    u = hb.Vector.from_dense(np.ones(A.ncols, dtype=np.float32))
    for _ in range(3):
        hb.ops.mxv(A, u, "plus_times")
    assert not any(isinstance(k, tuple) and k[0] == "dense_layout" for k in A.cache)
