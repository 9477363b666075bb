"""The sparse executor's graph rounds (:mod:`hyblas.traversal.graph_rounds`) give what host
rounds give.

``propagate(levels=True, executor='sparse')`` in the ``any`` monoid runs on the GPU as graph
rounds: the claims set up once from the state and left set, one queue for every round, the
push kernel's fixed grid taking groups of inputs one after another, and ``graph_rounds`` rounds a
launch. Each case is compared with the same rounds on the reference executor (host rounds). The
sparse parameters are drawn small (few push blocks, so that each takes several groups; a small
reach, so that rounds gather and spread inputs) and so is ``graph_rounds`` (rounds that end
inside a launch, on its last round, and launches after the end). On the CPU the same tests run
the sparse executor's host rounds (its NumPy emulation).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.executors.sparse import SparseParams, sparse_params
from hyblas.traversal.graph_rounds import launch_timing
from tests.support.executors import small_sparse_params
from tests.support.rounds import assert_same_rounds, drawn_graph, run_rounds

ANY_PAIR = hb.semiring.any_pair[np.bool_]


@given(
    data=st.data(),
    params=small_sparse_params(),
    graph_rounds=st.integers(1, 3),
    name=st.sampled_from(["any_pair", "any_first", "any_second", "any_plus"]),
)
def test_graph_rounds_equal_host_rounds(
    backend: str, data: Any, params: SparseParams, graph_rounds: int, name: str
) -> None:
    """States stored sparse or as a bitmap, first frontiers in the state or not, rounds bounded
    or not. The ``any`` monoid keeps whichever value arrives first, so only ``any_pair``'s
    frontier values are compared; the levels and the frontier's vertices always are."""
    n = data.draw(st.integers(1, 120))
    dtype = np.dtype(bool) if name == "any_pair" else np.dtype(np.int32)
    A = drawn_graph(data, n, 4 * n, dtype, backend)
    sr = hb.semiring[name][dtype]
    most = data.draw(st.sampled_from([2, n]))  # a state of 2 in 64+ vertices is kept sparse
    ids = data.draw(st.lists(st.integers(0, n - 1), max_size=most, unique=True))
    state = hb.Vector.from_coo(
        ids, np.zeros(len(ids), dtype=np.int64), size=n, dtype=np.int64, backend=backend
    )
    starts = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=6, unique=True))
    values = np.arange(1, len(starts) + 1).astype(dtype)
    frontier = hb.Vector.from_coo(starts, values, size=n, dtype=dtype, backend=backend)
    max_rounds = data.draw(st.none() | st.integers(1, 8))
    want = run_rounds(
        state, frontier, A, sr, levels=True, max_rounds=max_rounds, executor="reference"
    )
    with sparse_params(params, graph_rounds=graph_rounds):
        got = run_rounds(
            state, frontier, A, sr, levels=True, max_rounds=max_rounds, executor="sparse"
        )
    if name == "any_pair":
        assert_same_rounds(got, want)
    else:
        assert got[2] == want[2]
        assert got[0].isequal(want[0], check_dtype=True)
        assert got[1].to_coo()[0].tolist() == want[1].to_coo()[0].tolist()


@pytest.mark.parametrize("graph_rounds", [0, 1, 4, 16])
@pytest.mark.parametrize("spread_blocks", [1, 3, 1056])
def test_bfs_on_graph_rounds_equals_reference(
    backend: str, graph_rounds: int, spread_blocks: int
) -> None:
    """A power-law graph (hubs gathered and spread with ``reach`` 64) and a grid (hundreds of
    narrow rounds), on one push block taking every group, a few, and a full GPU's grid."""
    with hb.using_backend(backend):
        graphs = ((hb.generators.kronecker(11, 8, seed=3), 5), (hb.generators.grid_2d(40, 23), 3))
        for A, source in graphs:
            want = hb.algorithms.bfs(A, source, executor="reference")
            with sparse_params(graph_rounds=graph_rounds, spread_blocks=spread_blocks, reach=64):
                got = hb.algorithms.bfs(A, source, executor="sparse")
            assert got.isequal(want, check_dtype=True)


def test_rounds_end_on_the_last_allowed_round_inside_and_at_the_end_of_a_launch(
    backend: str,
) -> None:
    """``max_rounds`` stops the rounds with the last round's frontier handed back, on every
    round of a launch; a first frontier outside the state is reached again like any vertex."""
    with hb.using_backend(backend):
        A = hb.generators.grid_2d(6, 7)
        n = A.nrows
        state = hb.Vector.from_coo([0], [0], size=n, dtype=np.int64)
        frontier = hb.Vector.from_coo([0, 9], [True, True], size=n, dtype=bool)  # 9 not in state
        depth = run_rounds(state, frontier, A, ANY_PAIR, levels=True, executor="reference")[2]
        for graph_rounds in (1, 3, 4):
            with sparse_params(graph_rounds=graph_rounds):
                for rounds in (1, 2, 3, 4, 5, depth - 1, depth, depth + 1, None):
                    want = run_rounds(
                        state,
                        frontier,
                        A,
                        ANY_PAIR,
                        levels=True,
                        max_rounds=rounds,
                        executor="reference",
                    )
                    got = run_rounds(
                        state,
                        frontier,
                        A,
                        ANY_PAIR,
                        levels=True,
                        max_rounds=rounds,
                        executor="sparse",
                    )
                    assert_same_rounds(got, want)


def test_graph_rounds_leave_rows_in_the_trace_and_time_their_launches(backend: str) -> None:
    """The trace has one row for the rounds; ``on_rounds`` hears of them once, at the end."""
    seen: list[tuple[int, int]] = []
    with hb.using_backend(backend):
        A = hb.generators.grid_2d(10, 10)
        with sparse_params(graph_rounds=4), hb.trace() as t, launch_timing() as launches:
            levels = hb.algorithms.bfs(A, 0, executor="sparse")
            state = hb.Vector.from_coo([0], [0], size=A.nrows, dtype=np.int64)
            frontier = hb.Vector.from_coo([0], [True], size=A.nrows, dtype=bool)
            hb.ops.propagate(
                state,
                frontier,
                A,
                ANY_PAIR,
                levels=True,
                executor="sparse",
                on_rounds=lambda done, nnz: seen.append((done, nnz)),
            )
    assert int(levels.reduce("max")) == 18 and state.isequal(levels)
    if backend == "cpu":  # host rounds: one vxm a round, no graph
        assert not launches and len([r for r in t if r.op == "vxm"]) == 2 * 19
        assert [done for done, _ in seen] == list(range(1, 20)) and seen[-1] == (19, 0)
        return
    assert seen == [(19, 0)]
    rows = [r for r in t if r.op == "loop"]  # the bfs's, then the propagate's
    assert len(rows) == 2 and not [r for r in t if r.op == "vxm"]
    for row in rows:
        assert row.executor == "sparse" and "rounds 1-19" in row.reason
        assert row.edges == A.nnz  # every vertex's out-edges walked once
    # round 1 on its own, then 4 a launch: rounds 1-5, 6-9, ..., 18-19 (the last found nothing)
    assert [(r["first_round"], r["rounds"]) for r in launches] == 2 * [
        (1, 5),
        (6, 4),
        (10, 4),
        (14, 4),
        (18, 2),
    ]
    assert all(r["gpu_ms"] > 0 and r["wall_ms"] > 0 for r in launches)


def test_graph_rounds_share_the_any_workspace_with_single_calls(backend: str) -> None:
    """Graph rounds leave their claims set in the ``any`` workspace, and ``vxm`` calls on it
    rewrite them: calls and rounds interleaved on one matrix see nothing of each other."""
    rng = np.random.default_rng(12)
    with hb.using_backend(backend):
        A = hb.generators.kronecker(10, 8, seed=9)
        n = A.nrows
        for source in (1, 77, 300):
            want = hb.algorithms.bfs(A, source, executor="reference")
            assert hb.algorithms.bfs(A, source, executor="sparse").isequal(want)
            keep = np.flatnonzero(rng.random(n) < 0.1)
            u = hb.Vector.from_coo(keep, True, size=n)
            visited = hb.Vector.from_coo(rng.choice(n, n // 3, replace=False), True, size=n)
            got = hb.ops.vxm(u, A, ANY_PAIR, mask=~visited.S, executor="sparse")
            assert got.isequal(hb.ops.vxm(u, A, ANY_PAIR, mask=~visited.S, executor="reference"))


def test_graph_rounds_off_and_other_semirings_run_host_rounds(backend: str) -> None:
    """``graph_rounds=0``, and rounds outside the ``any`` monoid, are host rounds."""
    with hb.using_backend(backend):
        A = hb.generators.grid_2d(5, 5)
        state = hb.Vector.from_coo([0], [0], size=A.nrows, dtype=np.int64)
        frontier = hb.Vector.from_coo([0], [True], size=A.nrows, dtype=bool)
        for sr, graph_rounds in ((ANY_PAIR, 0), (hb.semiring.lor_land[np.bool_], 16)):
            with sparse_params(graph_rounds=graph_rounds), hb.trace() as t:
                got = run_rounds(state, frontier, A, sr, levels=True, executor="sparse")
            assert not [r for r in t if r.op == "loop"]
            assert len([r for r in t if r.op == "vxm" and r.executor == "sparse"]) == got[2] == 9
            assert_same_rounds(
                got, run_rounds(state, frontier, A, sr, levels=True, executor="reference")
            )
