"""What is particular to the sparse-frontier executor (``executor='sparse'``): the flat layout
borrowed from the transpose, the frontier's order, ``any`` claims, results read out as lists
or bitmaps, the work array, the walk and the grouped layout (checked by decoding it back into
the matrix's entries), its parameters. Its products against the model and the reference, with
parameter sets drawn small: ``test_products.py``.

On the CPU this runs the NumPy emulation of the walk, on CUDA the kernels. The stage widths (64
inputs per 256-thread block, warps of 32, virtual warps of 4) are fixed by the design, so inputs
of hundreds of edges are built on purpose below.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.backend import to_numpy
from hyblas.errors import InvalidValue
from hyblas.executors.sparse import SparseParams, sparse_params
from hyblas.executors.sparse.emulation import walk_plan
from hyblas.executors.sparse.executor import push
from hyblas.executors.sparse.executor import run as sparse_run
from hyblas.executors.sparse.layout import FLAT_KEY, build_layout, flat_layout, group_of, layout_key
from hyblas.executors.sparse.params import INPUTS_PER_BLOCK, THREADS, WARP
from hyblas.ops.dispatch import Product
from hyblas.ops.spec import OutputSpec, output_spec
from tests.support import model
from tests.support import strategies as S
from tests.support.checks import assert_matches, expected_after, run_op, semiring_and_dtype
from tests.support.executors import (
    SPARSE_SHAPED_PARAMS,
    degree_matrix,
    small_sparse_params,
    sparse_frontier,
)

DEFAULTS, SMALL, WIDE = (SPARSE_SHAPED_PARAMS[k] for k in ("defaults", "small", "wide"))


# --- the flat layout: the push adjacency borrowed from the transpose, no build ---------------


def _flat_product(orientation: str) -> Any:
    """``vxm`` / ``mxv`` through the sparse executor with ``build=False``, as ``auto`` runs it."""

    def product(u: hb.Vector, A: hb.Matrix, sr: Any, **controls: Any) -> hb.Vector:  # noqa: N803
        edges = A.T if orientation == "vxm" else A
        spec = output_spec(orientation, hb.Vector, (edges.nrows,), A=A, u=u, **controls)
        return sparse_run(Product(orientation, edges, u, sr), spec, may_build=False)

    return product


@pytest.mark.parametrize("orientation", ["vxm", "mxv"])
@given(data=st.data())
def test_flat_layout_equals_the_model(backend: str, orientation: str, data: st.DataObject) -> None:
    sr, dtype = data.draw(semiring_and_dtype())
    A = data.draw(S.matrices(dtype=dtype))
    size = A.nrows if orientation == "vxm" else A.ncols
    u = sparse_frontier(data, size, dtype)
    if orientation == "vxm":
        t = model.vxm(model.of(u), model.of(A), sr)
    else:
        t = model.mxv(model.of(A), model.of(u), sr)
    ctl = data.draw(S.write_controls(t.shape, t.dtype, accum=sr.monoid.name != "any"))
    matrix = A.hyblas(backend)
    edges = matrix.T if orientation == "vxm" else matrix
    matrix.T  # noqa: B018 - mxv's push adjacency is the transpose's CSR, here at hand
    params = data.draw(small_sparse_params())
    with sparse_params(params):
        result = run_op(_flat_product(orientation), ctl, backend, u.hyblas(backend), matrix, sr)
    assert_matches(result, expected_after(ctl, t))
    assert layout_key(params) not in edges.cache, "build=False built the grouped layout"
    if u.indices.size and A.rows.size:
        assert FLAT_KEY in edges.cache


def test_flat_layout_borrows_the_transpose(backend: str) -> None:
    with hb.using_backend(backend):
        A = degree_matrix("power_law", np.random.default_rng(5), "float32")
        assert flat_layout(A) is None  # mxv: A.T not computed yet
        edges = A.T
        layout = flat_layout(edges)
        assert layout.push_dst is A.indices and layout.high_count == 0
        assert layout.nbytes() == (
            0 if layout.push_indptr is A.indptr else layout.push_indptr.nbytes
        )
        assert flat_layout(A).push_dst is edges.indices
        # a grouped layout, once built, is preferred; build=False never builds one
        u = hb.Vector.from_coo([3, 9], [1.0, 2.0], size=A.nrows, dtype=np.float32)
        sparse_run(
            Product("vxm", edges, u, hb.semiring.plus_times), OutputSpec(backend), may_build=False
        )
        assert layout_key(SparseParams()) not in edges.cache
        got = hb.ops.vxm(u, A, "plus_times", executor="sparse")
        assert layout_key(SparseParams()) in edges.cache
        assert got.isclose(hb.ops.vxm(u, A, "plus_times", executor="reference"), rel_tol=1e-6)


def test_flat_layout_of_a_changed_matrix_is_not_its_old_transpose(backend: str) -> None:
    with hb.using_backend(backend):
        A = hb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], nrows=3, ncols=3)
        old_transpose = A.T
        assert old_transpose.T is A
        hb.ops.apply(A, "ainv", out=A)
        assert old_transpose.transpose_at_hand() is None
        assert flat_layout(old_transpose) is None
        u = hb.Vector.from_coo([0], [1.0], size=3)
        got = hb.ops.vxm(u, A, "plus_times", executor="auto")
        assert got.to_coo()[0].tolist() == [1] and got.to_coo()[1].tolist() == [-1.0]


def test_frontier_order_does_not_matter(backend: str) -> None:
    """The kernels take the active inputs in any order (no repeats)."""
    rng = np.random.default_rng(3)
    with hb.using_backend(backend):
        A = degree_matrix("power_law", rng, "float64")
        xp = A.xp
        active = rng.choice(A.ncols, 400, replace=False)
        values = rng.random(400)
        results = []
        for order in (np.argsort(active), rng.permutation(400)):
            result = push(
                A,
                xp.asarray(active[order]),
                xp.asarray(values[order]),
                hb.semiring.plus_times,
                flip=False,
                params=SparseParams(segment=64, segment_min_edges=10, reach=80),
            )
            idx, vals = result.as_sparse(xp)
            results.append((to_numpy(idx), to_numpy(vals)))
    assert results[0][0].tolist() == results[1][0].tolist()
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


def test_any_calls_claim_their_outputs_anew_each_call(backend: str) -> None:
    """An ``any`` call sets its flags from its own mask and leaves them set (claimed and masked
    outputs): the next call, with another mask, none, or another monoid on the same result type,
    must not see them."""
    rng = np.random.default_rng(21)
    with hb.using_backend(backend):
        A = degree_matrix("power_law", rng, "bool")
        visited = hb.Vector.from_coo(rng.choice(A.nrows, 500, replace=False), True, size=A.nrows)
        valued = hb.Vector.from_coo(
            rng.choice(A.nrows, 700, replace=False), rng.random(700) < 0.5, size=A.nrows
        )
        for params in (DEFAULTS, SMALL):
            with sparse_params(params):
                for name, mask in (
                    ("any_pair", ~visited.S),
                    ("any_pair", None),
                    ("lor_land", None),
                    ("any_pair", valued),
                    ("any_pair", visited.S),
                    ("lor_land", ~visited.S),
                    ("any_pair", ~valued),
                ):
                    keep = np.flatnonzero(rng.random(A.ncols) < 0.3)
                    u = hb.Vector.from_coo(keep, True, size=A.ncols)
                    got = hb.ops.mxv(A, u, name, mask=mask, executor="sparse")
                    want = hb.ops.mxv(A, u, name, mask=mask, executor="reference")
                    assert got.isequal(want), (name, mask)


@pytest.mark.parametrize("name", ["any_pair", "plus_times", "min_first"])
def test_every_size_of_result_is_read_out_alike(backend: str, name: str) -> None:
    """A small result is read out from its list and sorted, a large one (a bitmap anyway) in a
    pass over every output; each call must also leave nothing behind for the next, a small one
    after a large one."""
    rng = np.random.default_rng(4)
    n = 4096
    with hb.using_backend(backend):  # two in-edges per output: outputs follow the frontier
        rows = np.concatenate([np.arange(n), np.arange(n)])
        cols = np.concatenate([rng.permutation(n), rng.permutation(n)])
        A = hb.Matrix.from_coo(
            rows,
            cols,
            rng.integers(1, 5, 2 * n).astype(np.float64),
            nrows=n,
            ncols=n,
            dup_op=hb.binary.plus,
        )
        visited = hb.Vector.from_coo(rng.choice(n, n // 10, replace=False), True, size=n)
        for size in (5, 60, n // 3, 5, n, 60):  # 60 inputs: at most 120 outputs, a list
            keep = np.sort(rng.choice(n, size, replace=False))
            u = hb.Vector.from_coo(keep, rng.integers(1, 4, size).astype(np.float64), size=n)
            for mask in (None, ~visited.S):
                got = hb.ops.mxv(A, u, name, mask=mask, executor="sparse")
                want = hb.ops.mxv(A, u, name, mask=mask, executor="reference")
                assert got.isequal(want), (size, mask)


@pytest.mark.parametrize("name", ["plus_times", "any_pair"])
@pytest.mark.parametrize("degree", [224, 2048, 5000])
def test_blocks_that_find_more_outputs_than_they_stage(
    backend: str, name: str, degree: int
) -> None:
    """A block stages the outputs it lists in shared memory (2048 of them) and flushes them at
    its barriers: 64 inputs of 224 edges (stage 2, per warp: staged past the area, the rest
    listed straight away), of 2048 (stage 3, flushed between its chunks) and of 5000 (the
    spreading kernel, flushed between chunks) all find distinct outputs."""
    rng = np.random.default_rng(degree)
    inputs = 64
    n = inputs * degree
    with hb.using_backend(backend):
        rows = rng.permutation(n)  # input j reaches its own `degree` outputs
        cols = np.repeat(np.arange(inputs), degree)
        A = hb.Matrix.from_coo(
            rows, cols, rng.integers(1, 5, n).astype(np.float64), nrows=n, ncols=inputs
        )
        u = hb.Vector.from_coo(
            np.arange(inputs), rng.integers(1, 4, inputs).astype(np.float64), size=inputs
        )
        visited = hb.Vector.from_coo(rng.choice(n, n // 7, replace=False), True, size=n)
        for mask in (None, ~visited.S):
            got = hb.ops.mxv(A, u, name, mask=mask, executor="sparse")
            assert got.isequal(hb.ops.mxv(A, u, name, mask=mask, executor="reference"))


@pytest.mark.parametrize("kind", ["every_stage", "power_law"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8"])
def test_bitmap_results_keep_their_values_through_later_calls(
    backend: str, kind: str, dtype: str
) -> None:
    """A result as large as a bitmap may take the work array as its values (4- and 8-byte
    types; an int8 result is copied out): later calls, masked or not, over the same matrix
    must work in fresh work words and leave every earlier result as it was. The power-law
    matrix has high in-degree outputs, combined by internal id and moved to the work array
    after the walk."""
    rng = np.random.default_rng(12)
    with hb.using_backend(backend):
        A = degree_matrix(kind, rng, dtype)
        kept = []
        for k in range(6):
            keep = np.flatnonzero(rng.random(A.ncols) < 0.5)
            u = hb.Vector.from_coo(keep, rng.integers(1, 4, keep.size).astype(dtype), size=A.ncols)
            mask = (
                None
                if k % 2 == 0
                else ~hb.Vector.from_coo(
                    rng.choice(A.nrows, A.nrows // 3, replace=False), True, size=A.nrows
                ).S
            )
            name = ("plus_times", "min_plus", "max_times")[k % 3]
            got = hb.ops.mxv(A, u, name, mask=mask, executor="sparse")
            want = hb.ops.mxv(A, u, name, mask=mask, executor="reference")
            assert got.nnz * 32 >= A.nrows  # a bitmap-sized result
            kept.append((got, want.to_dense(fill_value=-1)))
        for got, want in kept:
            np.testing.assert_array_equal(got.to_dense(fill_value=-1), want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_list_and_bitmap_results_alternate(backend: str, dtype: str) -> None:
    """Calls that can take the work array get spare work words, refilled behind the call on
    the GPU: a list result leaves them for a later bitmap result, which takes them over; every
    result, list or bitmap, keeps its values through the calls after it."""
    rng = np.random.default_rng(21)
    with hb.using_backend(backend):
        A = degree_matrix("power_law", rng, dtype)
        kept = []
        for k in range(9):
            size = 2 if k % 3 != 2 else A.ncols // 2  # list, list, bitmap, ...
            keep = np.sort(rng.choice(A.ncols, size, replace=False))
            u = hb.Vector.from_coo(keep, rng.integers(1, 4, keep.size).astype(dtype), size=A.ncols)
            name = ("plus_times", "min_plus")[k % 2]
            got = hb.ops.mxv(A, u, name, executor="sparse")
            want = hb.ops.mxv(A, u, name, executor="reference")
            assert (got.nnz * 32 >= A.nrows) == (k % 3 == 2)  # the result formats alternate
            kept.append((got, want.to_dense(fill_value=-1)))
        for got, want in kept:
            np.testing.assert_array_equal(got.to_dense(fill_value=-1), want)


def test_repeated_calls_reuse_a_clean_workspace(backend: str) -> None:
    """The work array is reset after each call: results do not leak into the next product."""
    rng = np.random.default_rng(8)
    with hb.using_backend(backend):
        A = degree_matrix("every_stage", rng, "float32")
        for _ in range(3):
            for name in ("plus_times", "min_plus", "plus_times"):
                keep = np.flatnonzero(rng.random(A.ncols) < 0.2)
                u = hb.Vector.from_coo(keep, rng.random(keep.size).astype(np.float32), size=A.ncols)
                got = hb.ops.mxv(A, u, name, executor="sparse")
                assert got.isclose(hb.ops.mxv(A, u, name, executor="reference"), rel_tol=1e-5)


# --- the walk and the layout ---------------------------------------------------------------------


@given(
    A=S.matrices(dtype=np.float64),
    params=small_sparse_params(),
    segments=st.booleans(),
    data=st.data(),
)
def test_walk_takes_every_edge_once(
    A: S.MatrixData, params: SparseParams, segments: bool, data: st.DataObject
) -> None:
    matrix = A.hyblas("cpu")
    layout = build_layout(matrix, params)
    active = np.array(data.draw(st.permutations(range(A.ncols))), dtype=np.int64)
    active = active[: data.draw(st.integers(0, A.ncols))]
    _check_walk(layout, params, active, segments=segments)


def test_walk_stages_on_long_inputs() -> None:
    rng = np.random.default_rng(2)
    for kind in ("huge_input", "every_stage", "power_law"):
        A = degree_matrix(kind, rng, "float64")
        for params in SPARSE_SHAPED_PARAMS.values():
            layout = build_layout(A, params)
            for active in (
                rng.permutation(A.ncols)[: rng.integers(1, A.ncols)],
                np.arange(A.ncols),
            ):
                _check_walk(layout, params, active)
    # the paths the shaped tests rely on are taken
    every_stage = degree_matrix("every_stage", rng, "float64")
    plan = walk_plan(build_layout(every_stage, DEFAULTS), DEFAULTS, np.arange(every_stage.ncols))
    assert all(plan[p][0].size for p in ("block", "warp", "virtual"))
    power_law = degree_matrix("power_law", rng, "float64")
    for params in (SMALL, WIDE):
        plan = walk_plan(build_layout(power_law, params), params, np.arange(power_law.ncols))
        assert plan["segment"][0].size and plan["virtual"][0].size
        # an ``any`` call walks no segments: those edges take the global paths
        plan = _check_walk(
            build_layout(power_law, params), params, np.arange(power_law.ncols), segments=False
        )
        assert plan["segment"][0].size == 0 and plan["virtual"][0].size
    huge = degree_matrix("huge_input", rng, "float64")
    plan = walk_plan(build_layout(huge, SMALL), SMALL, np.array([3, 100]))
    assert plan["spread"][0].size == 1400


def _check_walk(
    layout: Any, params: SparseParams, active: np.ndarray, *, segments: bool = True
) -> dict:
    plan = walk_plan(layout, params, active, segments=segments)
    if not segments:
        assert plan["segment"][0].size == 0
    indptr = layout.push_indptr
    expected = np.concatenate([np.arange(indptr[j], indptr[j + 1]) for j in active] or [[]])
    taken = np.concatenate([plan[p][0] for p in plan])
    assert sorted(taken.tolist()) == sorted(expected.astype(np.int64).tolist())
    degree = indptr[active + 1] - indptr[active]
    for path, (edges, owner) in plan.items():
        assert ((edges >= indptr[active[owner]]) & (edges < indptr[active[owner] + 1])).all()
        per_input = np.bincount(owner, minlength=active.size)
        if path == "spread":
            assert (degree[owner] > params.reach).all()
        else:
            assert (degree[owner] <= params.reach).all()
        if path == "segment":  # only edges into high in-degree outputs
            assert (edges < layout.push_split[active[owner]]).all()
            assert (layout.push_dst[edges] < layout.high_count).all()
        if path == "block":
            assert (per_input % THREADS == 0).all()
        if path == "warp":
            assert (per_input % WARP == 0).all() and (per_input < THREADS).all()
        if path == "virtual":
            assert (per_input < WARP).all()
    # a block walks segments for all its inputs or for none
    segmented = np.zeros(active.size, dtype=bool)
    segmented[plan["segment"][1]] = True
    blocks = np.arange(active.size) // INPUTS_PER_BLOCK
    high = layout.push_split[active] > indptr[active]
    for b in np.unique(blocks[segmented]):
        here = (blocks == b) & high & (degree <= params.reach)
        assert segmented[here].all()
    return plan


@given(A=S.matrices(dtype=np.float64), params=small_sparse_params())
def test_layout_holds_every_entry_once(backend: str, A: S.MatrixData, params: SparseParams) -> None:
    layout = build_layout(A.hyblas(backend), params)
    get = to_numpy
    indptr, split = get(layout.push_indptr), get(layout.push_split)
    dst, order = get(layout.push_dst).astype(np.int64), get(layout.output_order)
    inputs = np.repeat(np.arange(A.ncols), np.diff(indptr))
    position = np.arange(dst.size)
    high = position < split[inputs]
    users = np.where(high, order[dst] if dst.size else dst, dst)
    weights = (
        np.full(dst.size, layout.iso_value)
        if layout.iso_value is not None
        else get(layout.push_weights)
    )
    got = sorted(zip(users.tolist(), inputs.tolist(), weights.tolist()))
    assert got == sorted(zip(A.rows.tolist(), A.cols.tolist(), A.values.tolist()))
    # outputs renumbered group by group; high edges first, each input's sorted by internal id
    degree = np.bincount(A.rows, minlength=A.nrows)
    groups = group_of(np, degree[order], params.group_bounds)
    assert (np.diff(groups) >= 0).all()
    assert sorted(order.tolist()) == list(range(A.nrows))
    assert layout.high_count == int((groups < params.shared_groups).sum())
    internal = np.empty(A.nrows, dtype=np.int64)
    internal[order] = np.arange(A.nrows)
    ranks = internal[users] if users.size else users
    assert (high == (ranks < layout.high_count)).all()
    for j in range(A.ncols):
        assert (np.diff(ranks[indptr[j] : indptr[j + 1]]) > 0).all()


def test_iso_matrix_keeps_no_weights() -> None:
    layout = build_layout(hb.generators.grid_2d(5, 7, backend="cpu"), SparseParams())
    assert layout.iso_value == 1.0 and layout.push_weights is None


def test_layout_is_cached_per_layout_params_and_dropped_on_change() -> None:
    A = hb.generators.grid_2d(4, 4, backend="cpu")
    u = hb.Vector.from_coo([0, 5], [1.0, 2.0], size=16)
    hb.ops.mxv(A, u, "plus_times", executor="sparse")
    assert layout_key(SparseParams()) in A.cache
    with sparse_params(reach=3, segment=5):  # the kernels' parameters: the same layout
        hb.ops.mxv(A, u, "plus_times", executor="sparse")
    with sparse_params(group_bounds=(3, 2), shared_groups=1):
        hb.ops.mxv(A, u, "plus_times", executor="sparse")
    assert sum(1 for k in A.cache if k[0] == "sparse_layout") == 2
    hb.ops.apply(A, "ainv", out=A)
    assert not any(k[0] == "sparse_layout" for k in A.cache if isinstance(k, tuple))


@pytest.mark.parametrize(
    "change",
    [
        {"group_bounds": (4, 8)},
        {"group_bounds": ()},
        {"group_bounds": [8, 4]},
        {"shared_groups": 9},
        {"segment": 0},
        {"segment": 70000},
        {"reach": 0},
        {"spread_blocks": 1.5},
        {"segment_min_edges": -1},
    ],
)
def test_bad_params_raise(change: dict) -> None:
    with pytest.raises(InvalidValue):
        SparseParams(**change)
