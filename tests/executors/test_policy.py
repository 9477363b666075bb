"""``executor='auto'``: every policy's choice gives the reference result; the trace records one
row per product with what was chosen and why; the policies switch where they say they do."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.backend import to_numpy
from hyblas.containers.derived import column_counts
from hyblas.errors import InvalidValue, MissingDependency
from hyblas.executors import policy as hybrid
from hyblas.executors import suitesparse
from hyblas.executors.dense import layout as dense_layout
from hyblas.executors.sparse.layout import layout_key as sparse_layout_key
from hyblas.executors.sparse.params import current_params as sparse_current_params
from hyblas.ops.dispatch import Product
from tests.support import model
from tests.support import strategies as S
from tests.support.checks import assert_matches, expected_after, run_op, semiring_and_dtype


@pytest.fixture(scope="session", params=hybrid.POLICIES)
def policy_name(request: pytest.FixtureRequest) -> str:
    return request.param


def _frontier(data: st.DataObject, size: int, dtype: np.dtype) -> S.VectorData:
    u = data.draw(S.vectors(size=size, dtype=dtype))
    keep = data.draw(st.integers(0, size))
    return S.VectorData(size, u.indices[:keep], u.values[:keep])


@given(data=st.data())
def test_auto_equals_the_model_under_every_policy(
    backend: str, policy_name: str, data: st.DataObject
) -> None:
    """The matrix has had a product before, so layouts are in play and any executor may win."""
    sr, dtype = data.draw(semiring_and_dtype())
    A = data.draw(S.matrices(dtype=dtype))
    vxm = data.draw(st.booleans())
    size = A.nrows if vxm else A.ncols
    u = _frontier(data, size, dtype)
    A_h, u_h = A.hyblas(backend), u.hyblas(backend)
    with hb.policy(policy_name):
        if vxm:
            t = model.vxm(model.of(u), model.of(A), sr)
            hb.ops.vxm(u_h, A_h, sr)  # an earlier product on the same matrix
            ctl = data.draw(S.write_controls((A.ncols,), t.dtype, accum=sr.monoid.name != "any"))
            result = run_op(hb.ops.vxm, ctl, backend, u_h, A_h, sr)
        else:
            t = model.mxv(model.of(A), model.of(u), sr)
            hb.ops.mxv(A_h, u_h, sr)
            ctl = data.draw(S.write_controls((A.nrows,), t.dtype, accum=sr.monoid.name != "any"))
            result = run_op(hb.ops.mxv, ctl, backend, A_h, u_h, sr)
    assert_matches(result, expected_after(ctl, t))


def _levels_by_policy(A: hb.Matrix, source: int) -> dict[str, tuple[hb.Vector, hb.Trace]]:  # noqa: N803
    out = {}
    for name in hybrid.POLICIES:
        # the policy's choice for every level: no device loop
        with hb.policy(name), hb.trace() as t, hb.ops.loop.loop_params(device_loop=False):
            out[name] = (hb.algorithms.bfs(A, source), t)
    return out


def test_bfs_under_every_policy_equals_reference(backend: str) -> None:
    with hb.using_backend(backend):
        for A in (hb.generators.kronecker(11, 8, seed=3), hb.generators.grid_2d(20, 30)):
            want = hb.algorithms.bfs(A, 5, executor="reference")
            for name, (got, t) in _levels_by_policy(A, 5).items():
                assert got.isequal(want), name
                assert len(t) >= 1


def test_the_trace_has_one_row_per_product_with_its_fields(backend: str) -> None:
    with hb.using_backend(backend):
        A = hb.generators.kronecker(10, 8, seed=2)
        want = hb.algorithms.bfs(A, 1, executor="reference")
        depth = int(want.to_coo()[1].max())
        with hb.trace() as t, hb.ops.loop.loop_params(device_loop=False):  # a vxm per level
            got = hb.algorithms.bfs(A, 1)
            u = hb.Vector.from_coo([0, 3], [1.0, 2.0], size=A.nrows)
            hb.ops.mxv(A, u, "plus_times", executor="reference")
    assert got.isequal(want)
    # one product per level, the last one finding nothing, then the explicit mxv
    assert len(t) == depth + 2
    assert [r.call for r in t] == list(range(len(t)))
    assert {r.op for r in t[:-1]} == {"vxm"} and t[-1].op == "mxv"
    assert t[-1].executor == "reference" and t[-1].asked == "reference"
    assert t[-1].reason == "asked for" and t[-1].estimates_us == {} and t[-1].allowed is None
    assert t[-1].edges == A.nnz and t[-1].input_nnz == 2
    _, levels = want.to_coo()
    for level, row in enumerate(t[:-1]):
        assert row.asked == "auto" and row.policy == hb.get_policy()
        assert row.executor in hb.executors.registry.names()
        assert row.input_nnz == int((levels == level).sum())  # the frontier of this level
        assert row.allowed == A.nrows - int((levels <= level).sum())  # the unvisited
        assert row.time_ms >= 0 and row.sampling_ms >= 0 and row.edges >= 0
    assert sum(v["calls"] for v in t.summary().values()) == len(t)
    text = t.table()
    assert text.count("\n") == len(t) + 1 and "executor" in text
    assert len(t.records()) == len(t)


def test_tracing_off_records_nothing_and_traces_nest() -> None:
    A = hb.generators.grid_2d(8, 8)
    u = hb.Vector.from_coo([0], [1.0], size=A.nrows)
    with hb.trace() as outer:
        hb.ops.mxv(A, u, "plus_times")
        with hb.trace() as inner:
            hb.ops.vxm(u, A, "min_plus")
    hb.ops.mxv(A, u, "plus_times")
    assert [r.op for r in outer] == ["mxv", "vxm"]
    assert [r.op for r in inner] == ["vxm"] and inner[0].call == 0
    assert not hb.ops.trace.tracing()


def test_to_pandas_without_pandas_is_a_named_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with hb.trace() as t:
        hb.ops.mxv(
            hb.generators.grid_2d(3, 3), hb.Vector.from_coo([0], [1.0], size=9), "plus_times"
        )
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingDependency, match="pandas"):
        t.to_pandas()


def test_to_pandas() -> None:
    pd = pytest.importorskip("pandas")
    with hb.trace() as t:
        hb.algorithms.bfs(hb.generators.grid_2d(5, 5), 0)
    frame = t.to_pandas()
    assert isinstance(frame, pd.DataFrame) and len(frame) == len(t)
    assert {"executor", "input_nnz", "edges", "time_ms", "sampling_ms"} <= set(frame.columns)


def test_policies_switch_where_they_say(backend: str) -> None:
    """density: push below 1% of the inputs, pull above (masked). beamer: push while the
    frontier's edges are few, pull once they pass the unexplored edges / 14."""
    with hb.using_backend(backend):
        A = hb.generators.kronecker(12, 16, seed=1)
        source = int(np.argmax(hb.ops.reduce_rows(A, "plus").to_dense(fill_value=0)))
        runs = _levels_by_policy(A, source)
    n = A.nrows
    for row in runs["density"][1]:
        want = "sparse" if row.input_nnz < 0.01 * n else "pull"
        assert row.executor == want, (row.input_nnz, row.executor)
    beamer = [r.executor for r in runs["beamer"][1]]
    assert beamer[0] == "sparse" and "pull" in beamer
    assert all(r.reason for r in runs["beamer"][1])


def test_bad_policy_is_a_named_error_and_the_block_restores() -> None:
    with pytest.raises(InvalidValue, match="policy must be one of"):
        hb.set_policy("fastest")
    before = hb.get_policy()
    with hb.policy("density"):
        assert hb.get_policy() == "density"
    assert hb.get_policy() == before


def test_a_layout_is_built_once_its_savings_pay_for_it(backend: str) -> None:
    """Ski rental: while the layout of the cheapest executor is missing, products run on the
    best executor that needs none, and the layout's executor takes over at the first call
    whose savings so far (this call's included) reach the modelled build cost; a one-off
    product never builds a layout. (The suitesparse executor, whose push would beat both on
    the CPU, is kept out: its own conversion's rent is tested below.)"""
    with hb.using_backend(backend), suitesparse.disabled():
        A = hb.generators.kronecker(12, 16, seed=1)
        u = hb.Vector.from_coo([7], [1.0], size=A.nrows)
        want = hb.ops.mxv(A, u, "plus_times", executor="reference")  # edges: A itself
        saved = {"dense": 0.0, "sparse": 0.0}
        with hb.trace() as t:
            for _ in range(2000):
                got = hb.ops.mxv(A, u, "plus_times")
                assert got.isequal(want)
                row = t[-1]
                ready = min(row.estimates_us[k] for k in ("reference", "pull"))
                best = min(row.estimates_us, key=row.estimates_us.get)
                if best in saved:
                    saved[best] += ready - row.estimates_us[best]
                if row.executor in saved:
                    break
                assert not _layouts(A) and row.executor in ("reference", "pull")
                assert best not in saved or best in hybrid.pending_layouts(A)
        chosen = t[-1].executor
        assert chosen in saved and _layouts(A), "no layout was ever built"
        assert chosen not in hybrid.pending_layouts(A)
        assert len(t) > 1  # kron12's build outweighs one call's savings
        build = hybrid.layout_build_us(backend, chosen, A.nnz)
        assert saved[chosen] >= build > saved[chosen] - (ready - row.estimates_us[chosen])
        fresh = hb.generators.kronecker(12, 16, seed=1)
        hb.ops.mxv(fresh, u, "plus_times")
        assert not _layouts(fresh)


def test_a_layout_build_under_auto_drops_the_value_copies_first(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference product with float64 inputs caches a float64 copy of a float32 matrix's
    values; when ``auto`` moves the matrix's products to a layout, the copy is dropped before
    the build (they are never held at once); a later reference product is the same."""
    A = hb.generators.kronecker(10, 16, seed=2, backend=backend)  # float32  # noqa: N806
    x = hb.Vector.from_dense(np.linspace(0.5, 1.5, A.ncols), backend=backend)
    want = hb.ops.mxv(A, x, "plus_times", executor="reference")
    copies = [k for k in A.cache if isinstance(k, tuple) and k[0] == "values_as"]
    assert copies, "the reference product cached no converted values"
    held_during_build = []
    build = dense_layout.build_layout

    def watched_build(matrix, params, **kwargs):  # noqa: ANN001, ANN202
        held_during_build.append([k for k in copies if k in matrix.cache])
        return build(matrix, params, **kwargs)

    monkeypatch.setattr(dense_layout, "build_layout", watched_build)
    with hb.policy("density"):  # a full input and no mask: dense, building its layout
        got = hb.ops.mxv(A, x, "plus_times")
    assert held_during_build == [[]]
    np.testing.assert_allclose(
        to_numpy(got.to_dense(fill_value=0)), to_numpy(want.to_dense(fill_value=0)), rtol=1e-12
    )
    assert got.nnz == want.nnz
    assert hb.ops.mxv(A, x, "plus_times", executor="reference").isequal(want)


def test_vxm_pushes_over_the_matrix_itself_without_building_a_layout(backend: str) -> None:
    """``vxm``'s push adjacency is ``A``'s own CSR (the flat layout): a fresh matrix's small
    frontiers run on the sparse push at once where its estimate is the lowest of the executors
    with a layout, and no sparse layout is built or waited for (the suitesparse executor kept
    out, as above)."""
    rng = np.random.default_rng(4)
    with hb.using_backend(backend), suitesparse.disabled():
        A = hb.generators.kronecker(12, 16, seed=1)
        hub = int(np.argmax(np.diff(to_numpy(A.indptr))))
        fronts = [[hub], [3], rng.choice(A.nrows, 200, replace=False)]
        with hb.trace() as t:
            for keep in fronts:
                u = hb.Vector.from_coo(keep, 1.0, size=A.nrows)
                got = hb.ops.vxm(u, A, "plus_times")
                assert got.isequal(hb.ops.vxm(u, A, "plus_times", executor="reference"))
        rows = [row for row in t if row.op == "vxm" and row.asked == "auto"]
        assert len(rows) == len(fronts)
        assert not _layouts(A.T) and "sparse" not in hybrid.pending_layouts(A.T)
        for row in rows:  # the lowest estimate among executors needing no new layout
            ready = {k: v for k, v in row.estimates_us.items() if k != "dense"}
            assert row.executor == min(ready, key=ready.get) or not ready, row.reason
        assert "sparse" in {row.executor for row in rows}


def test_the_model_counts_what_the_pull_and_the_values_cost(backend: str) -> None:
    """Without a mask, a monoid with no early exit (min) has the pull walk every row to its
    end: its edges are the stored entries, counted, not a sample's mean (which a skewed
    graph's few heavy rows make far too low); with an early exit (any) they are sampled, and
    no more. A matrix of one value (an unweighted graph) reads none per entry; a weighted
    one does, which the value features count."""
    with hb.using_backend(backend):
        A = hb.generators.kronecker(12, 16, seed=1)  # noqa: N806 - every value 1.0: iso
        W = hb.generators.random_weights(A, 1.0, 64.0, seed=2)  # noqa: N806
        u = hb.Vector.from_coo(np.arange(0, A.nrows, 3), 1.0, size=A.nrows)
        for matrix, valued in ((A, False), (W, True)):
            min_plus = hybrid._Facts(
                Product("mxv", matrix, u, hb.semiring.min_plus[np.float32]), None
            )
            assert min_plus.pull_edges == float(matrix.nnz)
            assert min_plus.valued is valued
            assert hybrid._feature(min_plus, "valued_entries") == (matrix.nnz if valued else 0)
            assert hybrid._feature(min_plus, "valued_pull_edges") == (matrix.nnz if valued else 0)
        any_pair = hybrid._Facts(Product("mxv", A, u, hb.semiring.any_pair[np.float32]), None)
        assert 0 < any_pair.pull_edges < A.nnz
        # a sample that meets no entry (two in a million rows) tells nothing: full walks
        n = 2**20
        few = hb.Matrix.from_coo([5, 9], [7, 3], [1.0, 2.0], nrows=n, ncols=n)
        v = hb.Vector.from_coo([3, 7], [1.0, 1.0], size=n)
        lone = hybrid._Facts(Product("mxv", few, v, hb.semiring.any_pair[np.float64]), None)
        assert lone.pull_edges == 2.0


def _layouts(A: hb.Matrix) -> list:  # noqa: N803
    sparse = sparse_layout_key(sparse_current_params())
    return [k for k in A.cache if k == sparse or isinstance(k, tuple) and k[0] == "dense_layout"]


def test_a_few_entries_held_in_a_bitmap_are_sampled_as_entries(backend: str) -> None:
    """A product may hand back a bitmap it did not count (the dense executor's); the
    sampling policy estimates a frontier of few entries from its entries, as for a sparse
    vector, not from random positions, which would rarely hit one."""
    with hb.using_backend(backend):
        A = hb.generators.kronecker(10, 8, seed=3)  # noqa: N806
        n = A.nrows
        ids = np.arange(0, n, 97)  # 11 of 1024: far fewer than size / SPARSE_BELOW
        sparse = hb.Vector.from_coo(ids, np.ones(ids.size), size=n)
        held = hb.Vector(n, sparse.dtype, backend=backend, bitmap=sparse.as_bitmap())
        assert held.format == "bitmap"
        sr = hb.semiring.plus_times[np.float64]
        want = hybrid.choose(Product("vxm", A.T, sparse, sr), None)
        A.T.cache.pop("auto_decisions")  # sample again, not remember
        got = hybrid.choose(Product("vxm", A.T, held, sr), None)
        degrees = to_numpy(column_counts(A.T))
    assert got.frontier_edges == want.frontier_edges == float(degrees[ids].sum())


def test_a_layout_without_room_falls_back_to_the_reference(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``auto`` chose the dense executor and its layout build ran out of memory: the product
    runs on the reference executor (same result, the output written once), the matrix
    remembers there is no room (no second try), and the trace says why; an executor asked
    for by name raises instead."""
    tries = []

    def no_room(matrix: hb.Matrix, params: object) -> None:
        tries.append(matrix)
        raise MemoryError("no room")  # as CuPy's OutOfMemoryError is one

    monkeypatch.setattr(dense_layout, "build_layout", no_room)
    monkeypatch.setattr(hybrid, "_sampling", lambda f: hybrid.Choice("dense", "", "asked"))
    with hb.using_backend(backend):
        A = hb.generators.kronecker(8, 8, seed=2)
        u = hb.Vector.from_dense(np.arange(A.nrows, dtype=np.float32))
        want = hb.ops.mxv(A, u, "plus_times", executor="reference")
        out = hb.Vector.from_scalar(1.0, A.nrows, dtype=np.float32)
        with hb.trace() as t:
            got = hb.ops.mxv(A, u, "plus_times", out=out, accum=hb.binary.plus)
            again = hb.ops.mxv(A, u, "plus_times")
        assert got is out
        np.testing.assert_allclose(
            to_numpy(got.to_dense()), to_numpy(want.to_dense(fill_value=0.0)) + 1.0
        )
        assert again.isequal(want)
        assert len(tries) == 1
        assert [row.executor for row in t] == ["reference", "reference"]
        assert "no room" in t[0].reason and "dense" in t[0].reason
        with pytest.raises(hb.errors.OutOfMemory, match="dense executor's layout"):
            hb.ops.mxv(A, u, "plus_times", executor="dense")
