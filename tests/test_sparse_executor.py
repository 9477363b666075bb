"""The sparse-frontier executor (``executor='sparse'``) equals the model and the reference path.

On the CPU this runs the NumPy emulation of the walk, on CUDA the kernels. The group bounds,
segment size, gathering reach and segment threshold are drawn small, so that hypothesis' small
matrices have high and low in-degree outputs, several segments, gathered inputs and blocks that
do and do not walk segments. The stage widths (64 inputs per 256-thread block, warps of 32,
virtual warps of 4) are fixed by the design, so inputs of hundreds of edges are built on purpose
below. The layout is checked by decoding it back into the matrix's entries.
"""

from __future__ import annotations

from typing import Any

import model
import numpy as np
import pytest
import strategies as S
from hypothesis import given
from hypothesis import strategies as st
from test_ops_properties import (
    SEMIRINGS,
    assert_matches,
    expected_after,
    run_op,
    semiring_and_dtype,
    served,
)

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


@st.composite
def small_params(draw: Any) -> SparseParams:
    """A parameter set scaled down to hypothesis-sized matrices."""
    bounds = sorted(draw(st.sets(st.integers(1, 8), min_size=1, max_size=5)), reverse=True)
    return SparseParams(
        group_bounds=tuple(bounds),
        shared_groups=draw(st.integers(0, len(bounds))),
        segment=draw(st.integers(1, 9)),
        segment_min_edges=draw(st.integers(0, 30)),
        reach=draw(st.integers(1, 40)),
        spread_blocks=draw(st.integers(1, 5)),
    )


def _frontier(data: st.DataObject, size: int, dtype: np.dtype) -> S.VectorData:
    """A sparse input: at most half the positions, often far fewer."""
    u = data.draw(S.vectors(size=size, dtype=dtype))
    keep = data.draw(st.integers(0, max(size // 2, 1)))
    return S.VectorData(size, u.indices[:keep], u.values[:keep])


@given(data=st.data())
def test_mxv_sparse(backend: str, data: st.DataObject) -> None:
    sr, dtype = data.draw(semiring_and_dtype())
    A = data.draw(S.matrices(dtype=dtype))
    u = _frontier(data, A.ncols, dtype)
    t = model.mxv(model.of(A), model.of(u), sr)
    ctl = data.draw(S.write_controls((A.nrows,), t.dtype, accum=sr.monoid.name != "any"))
    with sparse_params(data.draw(small_params())):
        result = run_op(
            hb.ops.mxv, ctl, backend, A.hyblas(backend), u.hyblas(backend), sr, executor="sparse"
        )
    assert_matches(result, expected_after(ctl, t))


@given(data=st.data())
def test_vxm_sparse(backend: str, data: st.DataObject) -> None:
    sr, dtype = data.draw(semiring_and_dtype())
    A = data.draw(S.matrices(dtype=dtype))
    u = _frontier(data, A.nrows, dtype)
    t = model.vxm(model.of(u), model.of(A), sr)
    ctl = data.draw(S.write_controls((A.ncols,), t.dtype, accum=sr.monoid.name != "any"))
    with sparse_params(data.draw(small_params())):
        result = run_op(
            hb.ops.vxm, ctl, backend, u.hyblas(backend), A.hyblas(backend), sr, executor="sparse"
        )
    assert_matches(result, expected_after(ctl, t))


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
    u = _frontier(data, size, dtype)
    if orientation == "vxm":
        t = model.vxm(model.of(u), model.of(A), sr)
    else:
        t = model.mxv(model.of(A), model.of(u), sr)
    ctl = data.draw(S.write_controls(t.shape, t.dtype, accum=sr.monoid.name != "any"))
    matrix = A.hyblas(backend)
    edges = matrix.T if orientation == "vxm" else matrix
    matrix.T  # noqa: B018 - mxv's push adjacency is the transpose's CSR, here at hand
    params = data.draw(small_params())
    with sparse_params(params):
        result = run_op(_flat_product(orientation), ctl, backend, u.hyblas(backend), matrix, sr)
    assert_matches(result, expected_after(ctl, t))
    assert layout_key(params) not in edges.cache, "build=False built the grouped layout"
    if u.indices.size and A.rows.size:
        assert FLAT_KEY in edges.cache


def test_flat_layout_borrows_the_transpose(backend: str) -> None:
    with hb.using_backend(backend):
        A = _shaped_matrix("power_law", np.random.default_rng(5), "float32")
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


# --- inputs the issue names: one of huge degree, many of degree 0; every stage and path -------


def _shaped_matrix(kind: str, rng: np.random.Generator, dtype: str) -> hb.Matrix:
    """Columns are the inputs of ``mxv``: their lengths decide the stages."""
    n = 1500
    if kind == "huge_input":  # input 3 reaches 1400 outputs, 40 more have 1-3 edges, the rest 0
        rows = np.concatenate([np.arange(1400), rng.integers(0, n, 80)])
        cols = np.concatenate([np.full(1400, 3), rng.integers(100, 140, 80)])
    elif kind == "every_stage":  # degrees 0..700: block, warp and virtual-warp parts
        degrees = rng.integers(0, 700, 200) * (rng.random(200) < 0.7)
        cols = np.repeat(np.arange(200) * 7, degrees)
        rows = np.concatenate([rng.choice(n, d, replace=False) for d in degrees])
    else:  # power law in-degree: hub outputs that fill the high groups and several segments
        rows = np.minimum(rng.zipf(1.5, 30000) - 1, n - 1)
        cols = rng.integers(0, n, 30000)
    keys = np.unique(rows * n + cols)
    values = rng.integers(1, 5, keys.size).astype(dtype)
    return hb.Matrix.from_coo(keys // n, keys % n, values, nrows=n, ncols=n)


SHAPED_PARAMS = [
    SparseParams(),
    SparseParams(
        group_bounds=(64, 16, 4),
        shared_groups=2,
        segment=37,
        segment_min_edges=0,
        reach=300,
        spread_blocks=3,
    ),
    SparseParams(
        group_bounds=(8,), shared_groups=1, segment=1, segment_min_edges=1, reach=1, spread_blocks=1
    ),
    SparseParams(
        group_bounds=(2048, 1024, 512, 256, 128, 4),
        shared_groups=6,
        segment=500,
        segment_min_edges=100,
        reach=10**9,
    ),
]


@pytest.mark.parametrize("kind", ["huge_input", "every_stage", "power_law"])
@pytest.mark.parametrize("params", SHAPED_PARAMS, ids=["defaults", "small", "unit", "wide"])
@pytest.mark.parametrize(
    "name", ["plus_times", "min_plus", "max_min", "lor_land", "any_pair", "plus_pair", "times_plus"]
)
def test_shaped_matrices_equal_reference(
    backend: str, kind: str, params: SparseParams, name: str
) -> None:
    rng = np.random.default_rng(11)
    with hb.using_backend(backend):
        A = _shaped_matrix(kind, rng, "float64" if name != "lor_land" else "bool")
        fronts = [np.flatnonzero(rng.random(A.ncols) < p) for p in (0.003, 0.05, 0.6)]
        visited = hb.Vector.from_coo(rng.choice(A.nrows, 300, replace=False), True, size=A.nrows)
        with sparse_params(params):
            for keep in fronts:
                u = hb.Vector.from_coo(
                    keep, rng.integers(1, 4, keep.size).astype(A.dtype), size=A.ncols
                )
                for op, args in ((hb.ops.mxv, (A, u)), (hb.ops.vxm, (u, A))):
                    for mask in (None, ~visited.S, visited):
                        got = op(*args, name, mask=mask, executor="sparse")
                        want = op(*args, name, mask=mask, executor="reference")
                        assert got.to_coo()[0].tolist() == want.to_coo()[0].tolist()
                        if name != "any_pair":
                            np.testing.assert_allclose(
                                got.to_coo()[1], want.to_coo()[1], rtol=1e-12
                            )


@pytest.mark.parametrize("name", SEMIRINGS)
@pytest.mark.parametrize("dtype", S.DTYPES, ids=str)
def test_every_semiring_every_dtype_sparse(backend: str, name: str, dtype: np.dtype) -> None:
    sr = hb.semiring[name]
    if dtype not in served(sr):
        return
    rng = np.random.default_rng(abs(hash((name, str(dtype)))) % 2**32)
    n, m = 37, 29
    keys = np.unique(rng.integers(0, n * m, 300))
    rows, cols = keys // m, keys % m
    values = rng.integers(1, 4, keys.size).astype(dtype)
    A_data = S.MatrixData(n, m, rows, cols, values)
    u_idx = np.flatnonzero(rng.random(m) < 0.3)
    u_data = S.VectorData(m, u_idx, rng.integers(0, 3, u_idx.size).astype(dtype))
    params = SparseParams(
        group_bounds=(12, 8, 5),
        shared_groups=2,
        segment=3,
        segment_min_edges=4,
        reach=9,
        spread_blocks=2,
    )
    with sparse_params(params):
        got = hb.ops.mxv(A_data.hyblas(backend), u_data.hyblas(backend), sr, executor="sparse")
    assert_matches(got, model.mxv(model.of(A_data), model.of(u_data), sr))


def test_frontier_order_does_not_matter(backend: str) -> None:
    """The kernels take the active inputs in any order (no repeats)."""
    rng = np.random.default_rng(3)
    with hb.using_backend(backend):
        A = _shaped_matrix("power_law", rng, "float64")
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
        A = _shaped_matrix("power_law", rng, "bool")
        visited = hb.Vector.from_coo(rng.choice(A.nrows, 500, replace=False), True, size=A.nrows)
        valued = hb.Vector.from_coo(
            rng.choice(A.nrows, 700, replace=False), rng.random(700) < 0.5, size=A.nrows
        )
        for params in (SHAPED_PARAMS[0], SHAPED_PARAMS[1]):
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
        A = _shaped_matrix(kind, rng, dtype)
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
        A = _shaped_matrix("power_law", rng, dtype)
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
        A = _shaped_matrix("every_stage", rng, "float32")
        for _ in range(3):
            for name in ("plus_times", "min_plus", "plus_times"):
                keep = np.flatnonzero(rng.random(A.ncols) < 0.2)
                u = hb.Vector.from_coo(keep, rng.random(keep.size).astype(np.float32), size=A.ncols)
                got = hb.ops.mxv(A, u, name, executor="sparse")
                assert got.isclose(hb.ops.mxv(A, u, name, executor="reference"), rel_tol=1e-5)


# --- the walk and the layout ---------------------------------------------------------------------


@given(
    A=S.matrices(dtype=np.float64), params=small_params(), segments=st.booleans(), data=st.data()
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
        A = _shaped_matrix(kind, rng, "float64")
        for params in SHAPED_PARAMS:
            layout = build_layout(A, params)
            for active in (
                rng.permutation(A.ncols)[: rng.integers(1, A.ncols)],
                np.arange(A.ncols),
            ):
                _check_walk(layout, params, active)
    # the paths the shaped tests rely on are taken
    every_stage = _shaped_matrix("every_stage", rng, "float64")
    plan = walk_plan(
        build_layout(every_stage, SHAPED_PARAMS[0]), SHAPED_PARAMS[0], np.arange(every_stage.ncols)
    )
    assert all(plan[p][0].size for p in ("block", "warp", "virtual"))
    power_law = _shaped_matrix("power_law", rng, "float64")
    for params in (SHAPED_PARAMS[1], SHAPED_PARAMS[3]):
        plan = walk_plan(build_layout(power_law, params), params, np.arange(power_law.ncols))
        assert plan["segment"][0].size and plan["virtual"][0].size
        # an ``any`` call walks no segments: those edges take the global paths
        plan = _check_walk(
            build_layout(power_law, params), params, np.arange(power_law.ncols), segments=False
        )
        assert plan["segment"][0].size == 0 and plan["virtual"][0].size
    huge = _shaped_matrix("huge_input", rng, "float64")
    plan = walk_plan(build_layout(huge, SHAPED_PARAMS[1]), SHAPED_PARAMS[1], np.array([3, 100]))
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


@given(A=S.matrices(dtype=np.float64), params=small_params())
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


def test_bfs_on_the_sparse_executor_equals_reference(backend: str) -> None:
    with hb.using_backend(backend):
        A = hb.generators.kronecker(10, 8, seed=4)
        for source in (0, 17):
            got = hb.algorithms.bfs(A, source, executor="sparse")
            assert got.isequal(hb.algorithms.bfs(A, source, executor="reference"))
            levels, parents = hb.algorithms.bfs(A, source, return_parents=True, executor="sparse")
            assert levels.isequal(got)
            assert parents.get(source) == source
