"""``hyblas.ops.propagate``: the device loop (its NumPy emulation on the CPU, the persistent
kernel on CUDA) gives exactly what the same rounds written as ``vxm`` / ``assign`` /
``ewise_*`` calls give, however the rounds are split between the loop and the host.

The split is forced through :func:`hyblas.traversal.loop_params`: ``exit_edges=0`` hands every
round with a non-empty next frontier back to the host, so stays in the loop and host rounds
alternate; small ``exit_edges`` values end stays at frontier-dependent rounds; ``heavy``
drawn small sends some vertices to the block-per-vertex walk.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.backend import to_numpy
from hyblas.containers.vector import SPARSE_BELOW
from hyblas.errors import DimensionMismatch, DomainMismatch, InvalidObject, InvalidValue
from hyblas.traversal import EXECUTORS, LoopParams, device_loop, frontier_facts, loop_params
from hyblas.traversal import propagation as propagate_module
from hyblas.traversal.kernels import IMPROVING_MONOIDS
from hyblas.traversal.stamps import LevelStamps, borrow
from hyblas.traversal.walk import ReachedInto
from tests.support import strategies as S
from tests.support.checks import SEMIRINGS, served
from tests.support.rounds import assert_same_rounds, drawn_graph, run_rounds


@st.composite
def cases(draw: Any) -> dict[str, Any]:
    name = draw(st.sampled_from(SEMIRINGS))
    family = hb.semiring[name]
    dtype = draw(st.sampled_from(served(family)))
    sr = family[dtype]
    n = draw(st.integers(0, 9))
    A = draw(S.matrices(nrows=n, ncols=n, dtype=dtype))
    frontier = draw(S.vectors(size=n, dtype=dtype))
    levels = sr.monoid.name not in IMPROVING_MONOIDS or draw(st.booleans())
    out_type = sr.output_type(sr.input_type(dtype, dtype))
    state_dtype = np.dtype(np.int64) if levels else out_type
    state = draw(S.vectors(size=n, dtype=state_dtype))
    if levels:
        max_rounds = draw(st.none() | st.integers(0, n + 1))
    else:  # a negative cycle improves for ever: bound the rounds
        max_rounds = draw(st.integers(0, n + 2))
    params = LoopParams(
        exit_edges=draw(st.none() | st.integers(0, 12)),
        exit_min=draw(st.integers(0, 12)),
        heavy=draw(st.integers(0, 4)),
        thread_edges=draw(st.integers(0, 3)),
        warp_vertices=draw(st.none() | st.integers(0, 3)),
        huge=draw(st.integers(0, 10)),
        # 0: every levels round reads a stamp before its atomic; 64: the small graphs' do not
        atomic_stamp_degree=draw(st.sampled_from([0, 64])),
    )
    delta = None
    if not levels and sr.monoid.name == "min" and state_dtype == dtype and dtype.kind in "iuf":
        delta = draw(st.none() | _deltas(dtype))
        if delta is not None and draw(st.booleans()):
            # the device loop takes bucketed rounds whose frontier holds the state's values
            keep = np.array(
                draw(
                    st.lists(
                        st.booleans(), min_size=state.indices.size, max_size=state.indices.size
                    )
                ),
                dtype=bool,
            )
            frontier = S.VectorData(n, state.indices[keep], state.values[keep])
    return dict(
        sr=sr,
        A=A,
        frontier=frontier,
        state=state,
        levels=levels,
        max_rounds=max_rounds,
        params=params,
        delta=delta,
    )


def _deltas(dtype: np.dtype) -> st.SearchStrategy[Any]:
    if dtype.kind == "f":
        return st.sampled_from([0.25, 1.0, 3.5, 40.0, float("inf")])
    return st.integers(1, 5)


@given(case=cases(), executor=st.sampled_from(["loop", "auto"]))
def test_the_loop_equals_the_rounds_written_with_ops(
    backend: str, case: dict[str, Any], executor: str
) -> None:
    A = case["A"].hyblas(backend)
    state, frontier = case["state"].hyblas(backend), case["frontier"].hyblas(backend)
    args = dict(levels=case["levels"], max_rounds=case["max_rounds"], delta=case["delta"])
    want = run_rounds(state, frontier, A, case["sr"], executor="reference", **args)
    with loop_params(case["params"]):
        got = run_rounds(state, frontier, A, case["sr"], executor=executor, **args)
    assert_same_rounds(got, want)


@given(
    data=st.data(),
    levels=st.booleans(),
    executor=st.sampled_from(["loop", "auto", "reference"]),
    exit_edges=st.none() | st.integers(0, 12),
    max_rounds=st.none() | st.integers(1, 4),
)
def test_propagate_never_writes_into_its_arguments_arrays(
    backend: str,
    data: Any,
    levels: bool,
    executor: str,
    exit_edges: int | None,
    max_rounds: int | None,
) -> None:
    """The rounds work on arrays of their own: a sparse argument's arrays are shared with
    them, not copied, so every one of its arrays must hold what it held before, and the
    arguments change only by taking the result at the end."""
    with hb.using_backend(backend):
        W, _ = _weighted_grid(12, 9, seed=7, source=0)  # noqa: N806
        n = W.nrows
        dense = data.draw(st.booleans())  # a bitmap argument (copied) or a sparse one (shared)
        ids = data.draw(
            st.lists(st.integers(0, n - 1), min_size=1, max_size=60 if dense else 3, unique=True)
        )
        values = np.arange(len(ids), dtype=np.float32)
        if levels:
            sr = hb.semiring.any_pair[np.float32]
            state = hb.Vector.from_coo(ids, np.zeros(len(ids), dtype=np.int64), size=n)
        else:
            sr = hb.semiring.min_plus[np.float32]
            state = hb.Vector.from_coo(ids, values, size=n)
        frontier = hb.Vector.from_coo(ids, values, size=n)
        arrays = [a for v in (state, frontier) for a in (v.stored_sparse or v.stored_bitmap)]
        before = [to_numpy(a).copy() for a in arrays]
        with loop_params(exit_edges=exit_edges):
            hb.ops.propagate(
                state, frontier, W, sr, levels=levels, executor=executor, max_rounds=max_rounds
            )
    for array, was in zip(arrays, before):
        np.testing.assert_array_equal(to_numpy(array), was)


@pytest.mark.parametrize("exit_edges", [None, 0, 1, 3, 7, 10**9])
def test_bfs_levels_for_every_split_between_loop_and_host(
    backend: str, exit_edges: int | None
) -> None:
    with hb.using_backend(backend):
        A = hb.generators.grid_2d(17, 23)
        want = hb.algorithms.bfs(A, 40, executor="reference")
        with loop_params(exit_edges=exit_edges, heavy=2):
            got = hb.algorithms.bfs(A, 40, executor="loop")
        with loop_params(exit_edges=exit_edges, heavy=0, huge=3):  # inner ones: by the grid
            again = hb.algorithms.bfs(A, 40, executor="loop")
        with loop_params(exit_edges=exit_edges, warp_vertices=0, thread_edges=2):  # 32 a warp
            warps = hb.algorithms.bfs(A, 40, executor="loop")
    for levels in (got, again, warps):
        assert levels.isequal(want, check_dtype=True)


@given(data=st.data())
def test_levels_rounds_again_and_again_on_one_matrix(backend: str, data: Any) -> None:
    """Levels rounds keep their reached-once stamps on the matrix between calls
    (:mod:`hyblas.traversal.stamps`): later calls on the same matrix, with other states (stored
    sparse or as a bitmap) and frontiers (in the state or not), see none of the earlier
    calls' stamps, with or without a read of each stamp before its atomic."""
    n = data.draw(st.integers(1, 160))
    A = drawn_graph(data, n, 3 * n, bool, backend)
    any_pair = hb.semiring.any_pair[np.bool_]
    for _ in range(4):
        most = data.draw(st.sampled_from([2, n]))  # a state of 2 in 64+ vertices is kept sparse
        ids = data.draw(st.lists(st.integers(0, n - 1), max_size=most, unique=True))
        state = hb.Vector.from_coo(
            ids, np.zeros(len(ids), dtype=np.int64), size=n, dtype=np.int64, backend=backend
        )
        starts = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4, unique=True))
        frontier = hb.Vector.from_coo(
            starts, np.ones(len(starts), dtype=bool), size=n, dtype=bool, backend=backend
        )
        want = run_rounds(state, frontier, A, any_pair, levels=True, executor="reference")
        with loop_params(
            exit_edges=data.draw(st.integers(0, 6) | st.just(10**9)),
            atomic_stamp_degree=data.draw(st.sampled_from([0, 64])),
        ):
            got = run_rounds(state, frontier, A, any_pair, levels=True, executor="loop")
        assert_same_rounds(got, want)


@given(data=st.data())
def test_frontier_facts_count_out_edges_and_the_widest_vertex(backend: str, data: Any) -> None:
    """propagate's entry test reads the frontier as stored: sparse, or a bitmap (on the GPU one
    kernel for both); compared with the CSR's row lengths."""
    n = data.draw(st.integers(1, 300))
    A = drawn_graph(data, n, 4 * n, np.float32, backend)
    picked = data.draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True))
    frontier = hb.Vector.from_coo(
        picked, np.ones(len(picked), dtype=bool), size=n, dtype=bool, backend=backend
    )
    degrees = np.diff(A.to_scipy().indptr)[np.array(picked, dtype=np.int64)]
    want = (int(degrees.sum()), int(degrees.max(initial=0)))
    assert frontier_facts(A, frontier) == want, frontier.format
    other = frontier.dup()
    if other.stored_bitmap is None:  # the other storage, whatever the density
        other.set_storage(bitmap=other.as_bitmap(), settle=False)
    else:
        other.set_storage(sparse=other.as_sparse(), settle=False)
    assert frontier_facts(A, other) == want, other.format


def test_a_stay_that_fails_drops_what_it_borrowed_from_the_matrix(backend: str) -> None:
    with hb.using_backend(backend):
        A = hb.generators.grid_2d(3, 3)
    made = []

    def make() -> list[int]:
        made.append([len(made)])
        return made[-1]

    with borrow(A, "scratch", make) as first:
        assert "scratch" not in A.cache  # taken while the stay runs
    with borrow(A, "scratch", make) as second:
        pass
    assert second is first and len(made) == 1 and A.cache["scratch"] is first
    with pytest.raises(RuntimeError), borrow(A, "scratch", make):
        raise RuntimeError("the kernel failed half-way")
    assert "scratch" not in A.cache
    with borrow(A, "scratch", make) as third:
        assert third is not first and len(made) == 2


def test_rounds_that_end_on_the_last_allowed_round_and_zero_and_one_rounds(backend: str) -> None:
    """The frontier empties exactly on round ``max_rounds``, one round before, one after; 0
    rounds (nothing changes) and 1 round; an empty frontier runs no round."""
    with hb.using_backend(backend):
        A = hb.generators.grid_2d(6, 7)
        n = A.nrows
        any_pair = hb.semiring.any_pair[np.bool_]
        state = hb.Vector.from_coo([0], [0], size=n, dtype=np.int64)
        frontier = hb.Vector.from_coo([0], [True], size=n, dtype=bool)
        full = run_rounds(state, frontier, A, any_pair, levels=True, executor="reference")
        depth = full[2]  # the last round finds nothing
        assert depth == 6 + 7 - 1 and full[1].nnz == 0
        for executor in ("loop", "auto"):
            for exit_edges in (None, 0):
                with loop_params(exit_edges=exit_edges):
                    for rounds in (0, 1, 2, depth - 2, depth - 1, depth, depth + 1, None):
                        want = run_rounds(
                            state,
                            frontier,
                            A,
                            any_pair,
                            levels=True,
                            max_rounds=rounds,
                            executor="reference",
                        )
                        got = run_rounds(
                            state,
                            frontier,
                            A,
                            any_pair,
                            levels=True,
                            max_rounds=rounds,
                            executor=executor,
                        )
                        assert_same_rounds(got, want)
                        assert got[2] == (depth if rounds is None else min(rounds, depth))
                    empty = hb.Vector.new(bool, n)
                    assert (
                        run_rounds(state, empty, A, any_pair, levels=True, executor=executor)[2]
                        == 0
                    )
        zero = run_rounds(state, frontier, A, any_pair, levels=True, max_rounds=0, executor="loop")
        assert zero[0].isequal(state) and zero[1].isequal(frontier)


def _weighted_grid(rows: int, cols: int, seed: int, source: int) -> tuple[hb.Matrix, hb.Vector]:
    """A grid with float32 weights in [1, 64) and the distance vector {source: 0}."""
    A = hb.generators.grid_2d(rows, cols)
    W = hb.generators.random_weights(A, 1.0, 64.0, seed=seed, dtype=np.float32)  # noqa: N806
    return W, hb.Vector.from_coo([source], [0.0], size=A.nrows, dtype=np.float32)


def test_sssp_rounds_with_the_loop_and_a_bounded_number_of_rounds(backend: str) -> None:
    with hb.using_backend(backend):
        W, dist = _weighted_grid(12, 9, seed=4, source=5)  # noqa: N806
        min_plus = hb.semiring.min_plus[np.float32]
        for rounds in (None, 1, 3, 17):
            want = run_rounds(dist, dist, W, min_plus, max_rounds=rounds, executor="reference")
            for exit_edges in (None, 0, 5):
                with loop_params(exit_edges=exit_edges, heavy=1):
                    assert_same_rounds(
                        run_rounds(dist, dist, W, min_plus, max_rounds=rounds, executor="loop"),
                        want,
                    )


@pytest.mark.parametrize("levels", [True, False])
def test_the_out_edges_a_round_counts_on_the_way_are_the_frontiers(
    backend: str, levels: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stay that ends on a wide frontier counts that frontier's out-edges (the kernel's
    queue counter), and so does an improving host round's update on the GPU (with its
    kernel); propagate takes the next round's decision from that count instead of counting
    again: it must be the frontier's out-edges."""
    compared = []
    entering = propagate_module._entering

    def checked(
        A: hb.Matrix,
        sr: Any,
        levels: bool,
        frontier: hb.Vector,
        limit: int,  # noqa: N803
        state: Any,
        edges: int | None = None,
    ) -> Any:
        if edges is not None:
            compared.append((edges, frontier_facts(A, frontier)[0]))
        return entering(A, sr, levels, frontier, limit, state, edges)

    monkeypatch.setattr(propagate_module, "_entering", checked)
    with hb.using_backend(backend):
        W, dist = _weighted_grid(12, 9, seed=4, source=5)  # noqa: N806
        sr = hb.semiring.any_pair[np.float32] if levels else hb.semiring.min_plus[np.float32]
        state = hb.Vector.from_coo([5], [0], size=W.nrows, dtype=np.int64) if levels else dist
        frontier = dist.dup(dtype=bool) if levels else dist
        want = run_rounds(state, frontier, W, sr, levels=levels, executor="reference")
        for exit_edges in (3, 5, 8, 12, 20):
            with loop_params(exit_edges=exit_edges, pull_rounds=False):
                assert_same_rounds(
                    run_rounds(state, frontier, W, sr, levels=levels, executor="loop"), want
                )
    assert len(compared) >= 5, compared
    assert all(counted == edges for counted, edges in compared), compared


@given(
    data=st.data(),
    delta=st.sampled_from([1e-3, 0.5, 2.0, 1e9]),
    executor=st.sampled_from(["reference", "loop", "auto"]),
    exit_edges=st.none() | st.integers(0, 6),
)
def test_bucketed_rounds_end_where_plain_rounds_end(
    backend: str, data: Any, delta: float, executor: str, exit_edges: int | None
) -> None:
    """Shortest paths over non-negative weights do not depend on the order the vertices are
    expanded in: bucketed rounds reach the plain rounds' state with an empty frontier."""
    n = data.draw(st.integers(1, 9))
    A = data.draw(S.matrices(nrows=n, ncols=n, dtype=np.dtype(np.float64)))  # noqa: N806
    W = hb.ops.apply(A.hyblas(backend), "abs")  # noqa: N806
    source = data.draw(st.integers(0, n - 1))
    min_plus = hb.semiring.min_plus[np.float64]
    dist = hb.Vector.from_coo([source], [0.0], size=n, dtype=np.float64, backend=backend)
    want = run_rounds(dist, dist, W, min_plus, executor="reference")
    with loop_params(exit_edges=exit_edges, heavy=1):
        got = run_rounds(dist, dist, W, min_plus, executor=executor, delta=delta)
    assert got[0].isequal(want[0], check_dtype=True) and got[1].nnz == 0


def test_bucketed_sssp_on_a_grid_walks_fewer_edges_in_more_rounds(backend: str) -> None:
    with hb.using_backend(backend):
        W, dist = _weighted_grid(24, 31, seed=9, source=0)  # noqa: N806
        min_plus = hb.semiring.min_plus[np.float32]
        edges = {}
        for delta in (None, 64.0):
            want = run_rounds(dist, dist, W, min_plus, executor="reference", delta=delta)
            with hb.trace() as t:
                got = run_rounds(dist, dist, W, min_plus, executor="loop", delta=delta)
            assert_same_rounds(got, want)
            edges[delta] = (sum(row.edges for row in t), got[2])
        plain = run_rounds(dist, dist, W, min_plus, executor="reference")
        assert got[0].isequal(plain[0])
    assert edges[64.0][0] < edges[None][0] and edges[64.0][1] > edges[None][1], edges


@pytest.mark.parametrize("delta", [1, 2, 3, 7])
def test_bucketed_rounds_with_ties_for_every_split_and_bounded_rounds(
    backend: str, delta: int
) -> None:
    """Integer weights 1..3 put many vertices on the threshold and on the frontier's minimum,
    where near and far are told apart."""
    with hb.using_backend(backend):
        A = hb.generators.grid_2d(9, 11)
        rows, cols, _ = A.to_coo()
        weights = 1 + (rows * 7 + cols * 3) % 3
        W = hb.Matrix.from_coo(
            rows,
            cols,
            weights,
            nrows=A.nrows,
            ncols=A.ncols,  # noqa: N806
            dtype=np.int64,
        )
        min_plus = hb.semiring.min_plus[np.int64]
        dist = hb.Vector.from_coo([0, 50], [0, 2], size=A.nrows, dtype=np.int64)
        full = run_rounds(dist, dist, W, min_plus, executor="reference", delta=delta)
        assert full[0].isequal(run_rounds(dist, dist, W, min_plus, executor="reference")[0])
        for rounds in (None, 1, 2, full[2] // 2, full[2] - 1, full[2]):
            want = run_rounds(
                dist, dist, W, min_plus, executor="reference", delta=delta, max_rounds=rounds
            )
            for exit_edges in (None, 0, 6):
                with loop_params(
                    exit_edges=exit_edges, heavy=2, warp_vertices=0 if exit_edges == 6 else None
                ):
                    got = run_rounds(
                        dist, dist, W, min_plus, executor="loop", delta=delta, max_rounds=rounds
                    )
                assert_same_rounds(got, want)


def test_the_device_loop_leaves_rows_in_the_trace(backend: str) -> None:
    with hb.using_backend(backend):
        A = hb.generators.grid_2d(10, 10)
        with hb.trace() as t:
            levels = hb.algorithms.bfs(A, 0, executor="loop")
    assert int(levels.reduce("max")) == 18
    loop_rows = [r for r in t if r.executor == "loop"]
    assert len(loop_rows) == 1 and loop_rows[0].op == "loop"
    assert loop_rows[0].input_nnz == 1 and "rounds 1-19" in loop_rows[0].reason
    assert loop_rows[0].edges == A.nnz  # every vertex's out-edges walked once
    assert loop_rows[0].time_ms >= 0


@given(data=st.data())
def test_pull_rounds_equal_the_host_rounds_on_directed_graphs(backend: str, data: Any) -> None:
    """Wide levels rounds of ``any_pair`` / ``any_second`` are pulled in the loop (in-edges:
    the rows of ``A.T``), from a first frontier in or out of the state, a state stored sparse
    or as a bitmap, rows walked by a lane or by the warp, light and heavy vertices reached,
    and bounded rounds."""
    n = data.draw(st.integers(1, 200))
    A = drawn_graph(data, n, 4 * n, np.float32, backend)
    if data.draw(st.booleans()):
        A.T  # noqa: B018 - at hand: a stay that starts narrow may pull when the rounds widen
    name = data.draw(st.sampled_from(["any_pair", "any_second"]))
    sr = hb.semiring[name][np.float32]
    most = data.draw(st.sampled_from([2, n]))
    ids = data.draw(st.lists(st.integers(0, n - 1), max_size=most, unique=True))
    state = hb.Vector.from_coo(
        ids, np.zeros(len(ids), dtype=np.int64), size=n, dtype=np.int64, backend=backend
    )
    starts = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    frontier = hb.Vector.from_coo(
        starts, np.ones(len(starts), dtype=np.float32), size=n, backend=backend
    )
    max_rounds = data.draw(st.none() | st.integers(1, 6))
    args = dict(levels=True, max_rounds=max_rounds)
    want = run_rounds(state, frontier, A, sr, executor="reference", **args)
    params = LoopParams(
        exit_edges=data.draw(st.integers(0, 8)),
        thread_edges=data.draw(st.integers(0, 3)),
        heavy=data.draw(st.sampled_from([0, 3, 1024])),  # queued from the back: a block each
        huge=data.draw(st.sampled_from([2, 1 << 13])),  # ... or the grid (a few a round)
    )
    with loop_params(params):
        got = run_rounds(state, frontier, A, sr, executor="loop", **args)
    assert got[2] == want[2] and got[0].isequal(want[0], check_dtype=True)
    # the frontier left by max_rounds: the same vertices (values: any in-edge's weight)
    assert got[1].to_coo()[0].tolist() == want[1].to_coo()[0].tolist()
    if name == "any_pair":
        assert got[1].isequal(want[1], check_dtype=True)


@pytest.mark.parametrize("thread_edges", [0, 2, 8])
def test_a_bfs_pulls_its_wide_rounds_in_one_stay(backend: str, thread_edges: int) -> None:
    """With every round wider than ``exit_edges``, the loop pulls them all in one stay; with
    pull rounds off, they are host rounds."""
    with hb.using_backend(backend):
        A = hb.generators.kronecker(10, 8, seed=4)
        source = int(np.argmax(np.diff(to_numpy(A.indptr))))
        want = hb.algorithms.bfs(A, source, executor="reference")
        with hb.trace() as pulled, loop_params(exit_edges=0, thread_edges=thread_edges):
            got = hb.algorithms.bfs(A, source, executor="loop")
        with hb.trace() as hosted, loop_params(exit_edges=0, pull_rounds=False):
            again = hb.algorithms.bfs(A, source, executor="loop")
    assert got.isequal(want, check_dtype=True) and again.isequal(want, check_dtype=True)
    rounds = int(want.reduce("max"))
    assert [r.op for r in pulled] == ["loop"], pulled.table()
    assert f"rounds 1-{rounds + 1}" in pulled[0].reason
    # a pull reads at most every in-edge of the vertices not reached yet, once a round
    assert 0 < pulled[0].edges <= (rounds + 1) * A.nnz
    assert sum(r.op == "vxm" for r in hosted) >= rounds


@pytest.mark.parametrize("huge", [0, 5, 60])
def test_huge_vertices_are_walked_by_the_whole_grid(backend: str, huge: int) -> None:
    """A vertex of more than ``huge`` (and ``heavy``) out-edges is dealt out over the whole grid
    when its round queues at most 256 such, and walked a block each when it queues more; a
    BFS from the hub of a Kronecker graph has rounds of both kinds here. The BFS is one stay
    that walks each reached vertex's out-edges once, and SSSP's plain and bucketed rounds
    (far vertices carried, not walked) give the host rounds' distances."""
    heavy = 4
    with hb.using_backend(backend):
        A = hb.generators.kronecker(11, 8, seed=3)
        degrees = np.diff(to_numpy(A.indptr))
        source = int(np.argmax(degrees))
        want = hb.algorithms.bfs(A, source, executor="reference")
        params = dict(exit_edges=10**9, heavy=heavy, huge=huge)
        with hb.trace() as t, loop_params(pull_rounds=False, **params):
            got = hb.algorithms.bfs(A, source, executor="loop")
        W = hb.generators.random_weights(A, 1.0, 64.0, seed=2, dtype=np.float32)  # noqa: N806
        dist = hb.Vector.from_coo([source], [0.0], size=A.nrows, dtype=np.float32)
        min_plus = hb.semiring.min_plus[np.float32]
        for delta in (None, 24.0):
            want_dist = run_rounds(dist, dist, W, min_plus, delta=delta, executor="reference")
            with loop_params(**params):
                assert_same_rounds(
                    run_rounds(dist, dist, W, min_plus, delta=delta, executor="loop"), want_dist
                )
    assert got.isequal(want, check_dtype=True)
    ids, levels = (to_numpy(a) for a in want.to_coo())
    per_level = np.bincount(levels[degrees[ids] > max(huge, heavy)])
    assert per_level[0] == 1 and (per_level.max() > 256) == (huge < 60)  # both kinds of round
    assert [r.op for r in t] == ["loop"] and t[0].edges == int(degrees[ids].sum())


@pytest.mark.parametrize("stored", ["sparse", "bitmap"])
def test_a_stay_writes_its_levels_into_a_state_that_is_or_becomes_a_bitmap(
    backend: str, stored: str
) -> None:
    """A levels stay lists the vertices it reached into a sparse state that stays sparse (a
    few rounds of a grid's BFS), and writes their rounds into the state's bitmap, in one pass
    over the stamps, where the state is one or becomes one: every round that is not this
    stay's, earlier stays' on the same matrix included, is left as it was. On the GPU the
    pass is queued before the stay's counts are read where the stay before on the matrix
    reached enough vertices (the third call), and dropped where this one reached too few (the
    fourth): each call's state is the same as with no guess."""
    with hb.using_backend(backend):
        A = hb.generators.grid_2d(40, 40)
        any_pair = hb.semiring.any_pair[np.bool_]
        # a bitmap state: the last 600 of 1600 vertices are in it (level 0) from the start
        ids = [0] if stored == "sparse" else [0, *range(1000, 1600)]
        state = hb.Vector.from_coo(ids, np.zeros(len(ids), dtype=np.int64), size=A.nrows)
        assert state.format == stored
        frontier = hb.Vector.from_coo([0], [True], size=A.nrows, dtype=bool)
        formats = []
        for rounds in (2, None, None, 3, None):  # later calls: stamps of earlier stays on A
            want = run_rounds(
                state, frontier, A, any_pair, levels=True, max_rounds=rounds, executor="reference"
            )
            got = run_rounds(
                state, frontier, A, any_pair, levels=True, max_rounds=rounds, executor="loop"
            )
            assert_same_rounds(got, want)
            formats.append(got[0].format)
    assert formats == [stored, "bitmap", "bitmap", stored, "bitmap"], formats


def test_device_loop_off_runs_every_round_on_the_host(backend: str) -> None:
    with hb.using_backend(backend):
        A = hb.generators.grid_2d(5, 5)
        with hb.trace() as t, loop_params(device_loop=False):
            hb.algorithms.bfs(A, 0, executor="loop")
    assert {r.op for r in t} == {"vxm"} and len(t) == 9


def test_bad_arguments_are_named_errors_and_change_nothing() -> None:
    A = hb.generators.grid_2d(3, 3)
    state = hb.Vector.from_coo([0], [0], size=9, dtype=np.int64)
    frontier = hb.Vector.from_coo([0], [True], size=9, dtype=bool)
    before = (state.dup(), frontier.dup())
    any_pair = hb.semiring.any_pair[np.bool_]
    bad: list[tuple[type[Exception], dict[str, Any]]] = [
        (InvalidValue, dict(executor="fastest")),
        (InvalidValue, dict(max_rounds=-1)),
        (InvalidValue, dict(levels=False)),  # any does not end the improving rounds
        (InvalidObject, dict(levels=1)),
    ]
    for error, kwargs in bad:
        with pytest.raises(error):
            hb.ops.propagate(state, frontier, A, any_pair, **{"levels": True, **kwargs})
    with pytest.raises(DimensionMismatch):
        hb.ops.propagate(
            state,
            frontier,
            hb.Matrix.from_coo([0], [1], True, nrows=9, ncols=4),
            any_pair,
            levels=True,
        )
    with pytest.raises(DimensionMismatch):
        hb.ops.propagate(hb.Vector.new(np.int64, 8), frontier, A, any_pair, levels=True)
    with pytest.raises(DomainMismatch):
        hb.ops.propagate(hb.Vector.new(bool, 9), frontier, A, any_pair, levels=True)
    with pytest.raises(DomainMismatch):  # min_plus on float32 gives float32 states
        hb.ops.propagate(state, frontier, A, hb.semiring.min_plus[np.float32])
    min_plus = hb.semiring.min_plus[np.int64]
    dist = hb.Vector.from_coo([0], [0], size=9, dtype=np.int64)
    dist_before = dist.dup()
    for error, kwargs in [
        (InvalidValue, dict(delta=0)),
        (InvalidValue, dict(delta=-2)),
        (InvalidValue, dict(delta=0.5)),
        (InvalidValue, dict(delta="1")),
        (InvalidValue, dict(delta=True)),
        (InvalidValue, dict(delta=1, levels=True)),
    ]:
        with pytest.raises(error):
            hb.ops.propagate(dist, dist, A, min_plus, **kwargs)
    with pytest.raises(InvalidValue):  # bucketed rounds are for the min monoid
        hb.ops.propagate(state, state, A, hb.semiring.max_plus[np.int64], delta=1)
    with pytest.raises(DomainMismatch):  # the frontier's values are compared with the state's
        hb.ops.propagate(
            dist, hb.Vector.from_coo([0], [0], size=9, dtype=np.int32), A, min_plus, delta=1
        )
    assert dist.isequal(dist_before)
    for blocks in (9, 0, 2.0, True):
        with pytest.raises(InvalidValue):
            LoopParams(blocks_per_sm=blocks)
    for bad in (dict(exit_edges=-1), dict(atomic_stamp_degree=-1), dict(atomic_stamp_degree=1.5)):
        with pytest.raises(InvalidValue):
            LoopParams(**bad)
    assert state.isequal(before[0]) and frontier.isequal(before[1])
    assert "loop" in EXECUTORS and "auto" in EXECUTORS


def test_a_stays_stamps_lie_above_the_stays_before_and_fall_from_round_to_round() -> None:
    """Round r of a stay stamps ``offset - r``: above every earlier stay's stamps (``floor``),
    below the stamp of the state's vertices, falling from round to round (so an atomicMax
    keeps a vertex's first round), for as many rounds as the stay may run: at least one, at
    most one more than there are vertices."""
    stamps = LevelStamps(np.zeros(3, dtype=np.int64))
    for first, last in [(1, 10**9), (5, 5), (3, 2), (1, 2), (7, 10**18)]:
        before = stamps.high_water
        stay = stamps.open(first, last)
        most = max(1, min(last - first + 1, 4))  # 3 vertices: 4 rounds at most
        tags = [stay.tag(r) for r in range(first, first + most)]
        assert stay.floor > before
        assert all(stay.floor < t < stay.state for t in tags)
        assert tags == sorted(tags, reverse=True) and len(set(tags)) == len(tags)
        assert [stay.round_of(t) for t in tags] == list(range(first, first + most))
        stamps.close(stay, reached=first)
        assert stamps.high_water == stay.state and stamps.reached == first


def test_a_levels_stay_writes_into_the_bitmap_by_the_count_it_reached(backend: str) -> None:
    """:class:`~hyblas.traversal.walk.ReachedInto`: a state stored as a bitmap always takes the
    rounds in it; a sparse one of k entries only once k + count reaches size / SPARSE_BELOW,
    and then as fresh arrays (the state is not changed: a bitmap made on a guess that the
    count proves wrong can be dropped)."""
    n = 4 * SPARSE_BELOW
    sparse = hb.Vector.from_coo([1, 2], [0, 0], size=n, dtype=np.int64, backend=backend)
    into = ReachedInto(sparse)
    assert [into.wants_bitmap(c) for c in (0, 1, 2, 3)] == [False, False, True, True]
    assert into(1) is None
    values, present = into(2)
    assert to_numpy(present).sum() == 2 and sparse.format == "sparse"
    dense = hb.Vector.from_dense(np.zeros(n, dtype=np.int64), backend=backend)
    assert ReachedInto(dense).wants_bitmap(0) and ReachedInto(dense)(0)[1] is dense.stored_bitmap[1]


def test_the_most_in_edges_of_a_vertex_come_from_the_pattern_the_loop_has_at_hand(
    backend: str,
) -> None:
    """Whether levels rounds read a stamp before its atomic depends on the most in-edges of
    any vertex: counted from ``A`` itself (directed), its rows (known symmetric) or the
    transpose the loop pulls over; kept in the matrix's cache."""
    with hb.using_backend(backend):
        star_in = hb.Matrix.from_coo([1, 2, 3, 0], [0, 0, 0, 1], [1, 1, 1, 1], nrows=5, ncols=5)
        assert device_loop._most_in_edges(star_in, None) == 3  # vertex 0's three
        assert star_in.cache[device_loop._MOST_IN_EDGES] == 3
        star_in.cache[device_loop._MOST_IN_EDGES] = 7  # read from the cache, not counted again
        assert device_loop._most_in_edges(star_in, None) == 7
        fresh = star_in.dup()
        assert device_loop._most_in_edges(fresh, fresh.T) == 3
        grid = hb.Graph(hb.generators.grid_2d(5, 6), "undirected").A
        assert device_loop._most_in_edges(grid, None) == 4
        empty = hb.Matrix.new(np.float64, 0, 0)
        assert device_loop._most_in_edges(empty, None) == 0


@pytest.mark.parametrize("pull_rounds", [True, False])
def test_a_one_vertex_frontier_enters_the_loop_without_counting_its_edges(
    backend: str, pull_rounds: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search from one vertex is pushed by the loop without a count of its edges first
    (on the GPU a host read): even a hub wider than ``exit_edges``, which the later rounds
    would pull, is pushed in the first round; the frontiers after it are counted."""
    counted = []
    facts = propagate_module.frontier_facts

    def counting(A: hb.Matrix, frontier: hb.Vector) -> tuple[int, int]:  # noqa: N803
        counted.append(frontier.nnz)
        return facts(A, frontier)

    monkeypatch.setattr(propagate_module, "frontier_facts", counting)
    with hb.using_backend(backend):
        A = hb.generators.kronecker(9, 8, seed=5)  # noqa: N806
        source = int(np.argmax(np.diff(to_numpy(A.indptr))))
        want = hb.algorithms.bfs(A, source, executor="reference")
        assert counted == []  # host rounds: no loop, no count
        with hb.trace() as t, loop_params(exit_edges=3, pull_rounds=pull_rounds):
            got = hb.algorithms.bfs(A, source, executor="loop")
    assert got.isequal(want, check_dtype=True)
    assert t[0].op == "loop" and t[0].input_nnz == 1 and "rounds 1-" in t[0].reason
    assert 1 not in counted  # only the wider frontiers host rounds hand back are counted
    if pull_rounds:
        assert [r.op for r in t] == ["loop"] and counted == []
