"""Bad input to the algorithms (issue 42): weights of every dtype, NaN / inf, parameters of the
wrong type or outside their range, 0-size graphs and empty frontiers. Each raises its named
error and leaves ``A`` as it was, or gives the right answer."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

import hyblas as hb
from hyblas.algorithms import (
    betweenness_centrality,
    bfs,
    connected_components,
    multi_source_bfs,
    pagerank,
    sssp,
    triangle_count,
)
from hyblas.errors import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBounds,
    InvalidObject,
    InvalidValue,
    NegativeCycle,
)
from tests.support.checks import OPAQUE, raises_unchanged, snapshot

NOT_A_NUMBER = ["abc", None, 1j, [0.5], np.array([0.5, 0.5]), OPAQUE]
NOT_A_FLAG = [np.array([True, False]), "yes", None, 1, [True]]
NOT_AN_EXECUTOR = [np.array(["auto"]), ["auto"], None, 3, "fastest"]


def _path(backend: str, dtype: Any = np.float64, weights: Any = (1, 2, 3)) -> hb.Matrix:
    """0 -> 1 -> 2 -> 3 with the given weights, and 3 -> 0 (weight 1)."""
    values = np.array([*weights, 1], dtype=dtype)
    return hb.Matrix.from_coo([0, 1, 2, 3], [1, 2, 3, 0], values, nrows=4, ncols=4, backend=backend)


def _undirected(backend: str) -> hb.Matrix:
    """A triangle 0-1-2 and the edge 2-3, both ways."""
    r, c = [0, 1, 1, 2, 0, 2, 2, 3], [1, 0, 2, 1, 2, 0, 3, 2]
    return hb.Matrix.from_coo(r, c, 1.0, nrows=4, ncols=4, backend=backend)


def _dist(v: hb.Vector) -> dict[int, Any]:
    idx, vals = v.to_coo()
    return dict(zip(idx.tolist(), vals.tolist()))


# --- sssp: weights ---------------------------------------------------------------------------


def test_sssp_uint64_weights_beyond_int64(backend: str) -> None:
    A = _path(backend, np.uint64, (2**63 + 5, 3, 1))  # noqa: N806
    for delta in ("auto", None, 5, 2**70):
        raises_unchanged(
            DomainMismatch,
            "weight 9223372036854775813, beyond int64",
            partial(sssp, A, 0, delta=delta),
            A,
        )


def test_sssp_uint64_weights_within_int64(backend: str) -> None:
    A = _path(backend, np.uint64, (2**40, 3, 1))  # noqa: N806
    for delta in ("auto", None, 7):
        got = sssp(A, 0, delta=delta)
        assert got.dtype == np.int64
        assert _dist(got) == {0: 0, 1: 2**40, 2: 2**40 + 3, 3: 2**40 + 4}


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_sssp_distances_that_could_overflow_int64(backend: str, dtype: Any) -> None:
    A = _path(backend, dtype, (2**62, 2**62, 1))  # noqa: N806
    raises_unchanged(DomainMismatch, "int64 distances could overflow", partial(sssp, A, 0), A)
    # negative weights too
    if dtype == np.int64:
        B = _path(backend, dtype, (-(2**62), -(2**62), 1))  # noqa: N806
        raises_unchanged(DomainMismatch, "could overflow", partial(sssp, B, 0, delta=None), B)


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64, bool]
)
def test_sssp_integer_weights_at_the_edges_of_their_dtype(backend: str, dtype: Any) -> None:
    """The largest weights of a narrow type add up in int64 (no wrap in the weights' type)."""
    top = 1 if dtype is bool else int(np.iinfo(dtype).max)
    if dtype == np.int64 or dtype == np.uint64:
        top = 2**60  # 4 edges of it fit int64
    A = _path(backend, dtype, (top, top, top))  # noqa: N806
    expected = {0: 0, 1: top, 2: 2 * top, 3: 3 * top}
    for delta in ("auto", None, 1):
        assert _dist(sssp(A, 0, delta=delta)) == expected


def test_sssp_nan_weight(backend: str) -> None:
    for dtype in (np.float32, np.float64):
        A = _path(backend, dtype, (1.0, np.nan, 2.0))  # noqa: N806
        for delta in ("auto", None, 1.0):
            raises_unchanged(InvalidValue, "NaN weight", partial(sssp, A, 0, delta=delta), A)


def test_sssp_infinite_weights(backend: str) -> None:
    A = _path(backend, np.float64, (1.0, np.inf, 2.0))  # noqa: N806
    for delta in ("auto", None, 1.0):
        assert _dist(sssp(A, 0, delta=delta)) == {0: 0.0, 1: 1.0, 2: np.inf, 3: np.inf}
    B = hb.Matrix.from_coo(  # noqa: N806
        [0, 1], [1, 2], [1.0, -np.inf], nrows=3, ncols=3, backend=backend
    )
    assert _dist(sssp(B, 0, delta=None)) == {0: 0.0, 1: 1.0, 2: -np.inf}
    raises_unchanged(InvalidValue, "non-negative", partial(sssp, B, 0, delta=1.0), B)
    # a cycle through a -inf weight is a negative cycle
    cycle = _path(backend, np.float64, (1.0, -np.inf, 2.0))
    raises_unchanged(InvalidValue, "negative cycle", partial(sssp, cycle, 0), cycle)
    # both infinities: a path through both has no length
    C = _path(backend, np.float64, (np.inf, -np.inf, 2.0))  # noqa: N806
    raises_unchanged(InvalidValue, "both an infinite and a -infinite", partial(sssp, C, 0), C)


def test_sssp_negative_weights_keep_their_behaviour(backend: str) -> None:
    """Documented: negative weights are allowed (plain rounds), a reachable negative cycle
    raises InvalidValue, a number delta with a negative weight raises InvalidValue."""
    A = _path(backend, np.int64, (-1, 2, -3))  # noqa: N806  cycle 0-1-2-3-0 weighs -1
    raises_unchanged(NegativeCycle, "negative cycle", partial(sssp, A, 0), A)
    B = hb.Matrix.from_coo([0, 1], [1, 2], [-1, -2], nrows=3, ncols=3)  # noqa: N806
    B = B.to_backend(backend)  # noqa: N806
    assert _dist(sssp(B, 0)) == {0: 0, 1: -1, 2: -3}
    raises_unchanged(InvalidValue, "non-negative", partial(sssp, B, 0, delta=2), B)


@pytest.mark.parametrize("delta", [2**70, np.uint64(2**64 - 1), np.inf, 1e300, 10**30])
def test_sssp_delta_beyond_the_distances_type(backend: str, delta: Any) -> None:
    """A bucket wider than every distance: one bucket, the plain rounds' answer."""
    for dtype in (np.int64, np.float32):
        A = _path(backend, dtype)  # noqa: N806
        assert _dist(sssp(A, 0, delta=delta)) == _dist(sssp(A, 0, delta=None))


@pytest.mark.parametrize(
    ("delta", "match"),
    [
        (np.nan, "> 0"),
        (0, "> 0"),
        (-1.5, "> 0"),
        ("x", "delta must be 'auto', None or a number"),
        (True, "delta must be"),
        (1j, "delta must be"),
        (np.array([1.0, 2.0]), "delta must be"),
        ([1], "delta must be"),
        (2.5, "exact in int64"),
    ],
    ids=repr,
)
def test_sssp_bad_delta(backend: str, delta: Any, match: str) -> None:
    A = _path(backend, np.int64)  # noqa: N806
    raises_unchanged(InvalidValue, match, partial(sssp, A, 0, delta=delta), A, delta)


def test_sssp_auto_width_of_huge_integer_weights(backend: str) -> None:
    """The auto bucket width of weights near the int64 limit fits int64 (no OverflowError)."""
    A = hb.Matrix.from_coo([0], [1], [2**61], nrows=2, ncols=2, backend=backend)  # noqa: N806
    assert _dist(sssp(A, 0)) == {0: 0, 1: 2**61}


# --- the single-source algorithms: source, flags, executor, progress ---------------------------


@pytest.mark.parametrize("algorithm", [bfs, sssp])
def test_source(backend: str, algorithm: Callable) -> None:
    A = _path(backend)  # noqa: N806
    for source, exc in (
        (4, IndexOutOfBounds),
        (-1, IndexOutOfBounds),
        (2**70, IndexOutOfBounds),
        (1.0, InvalidObject),
        ("0", InvalidObject),
        (None, InvalidObject),
        (True, InvalidObject),
        (np.array([0]), InvalidObject),
    ):
        raises_unchanged(exc, "source", partial(algorithm, A, source), A)
    assert algorithm(A, np.int8(0)).nnz == 4


@pytest.mark.parametrize("executor", NOT_AN_EXECUTOR, ids=repr)
def test_executor(backend: str, executor: Any) -> None:
    A = _path(backend)  # noqa: N806
    S = _undirected(backend)  # noqa: N806
    for call in (
        partial(bfs, A, 0, executor=executor),
        partial(bfs, A, 0, return_parents=True, executor=executor),
        partial(sssp, A, 0, executor=executor),
        partial(pagerank, A, executor=executor),
        partial(connected_components, A, executor=executor),
        partial(multi_source_bfs, A, [0, 1], executor=executor),
        partial(betweenness_centrality, A, executor=executor),
        partial(triangle_count, S, executor=executor),
    ):
        raises_unchanged(InvalidValue, "executor must be one of", call, A, S)


@pytest.mark.parametrize("progress", NOT_A_FLAG[:-1] + [0], ids=repr)
def test_progress(backend: str, progress: Any) -> None:
    A = _path(backend)  # noqa: N806
    if progress is None:  # None: the default (a bar only in a Jupyter kernel)
        return
    for call in (
        partial(sssp, A, 0, progress=progress),
        partial(pagerank, A, progress=progress),
        partial(multi_source_bfs, A, [0], progress=progress),
        partial(betweenness_centrality, A, progress=progress),
    ):
        raises_unchanged(InvalidValue, "progress must be True, False or None", call, A)


@pytest.mark.parametrize("value", NOT_A_FLAG, ids=repr)
def test_flags(backend: str, value: Any) -> None:
    A = _path(backend)  # noqa: N806
    calls = [
        partial(bfs, A, 0, return_parents=value),
        partial(pagerank, A, return_iterations=value),
        partial(betweenness_centrality, A, normalized=value),
    ]
    if value is not None:  # directed=None: decide from the structure
        calls.append(partial(betweenness_centrality, A, directed=value))
    for call in calls:
        raises_unchanged(InvalidObject, "must be True or False", call, A)
    # NumPy bools are bools
    assert len(bfs(A, 0, return_parents=np.bool_(True))) == 2


# --- pagerank --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        *(({"damping": v}, "damping must be a number") for v in NOT_A_NUMBER),
        ({"damping": np.nan}, r"damping must lie in \[0, 1\]"),
        ({"damping": 1.5}, r"damping must lie in \[0, 1\]"),
        ({"damping": -0.1}, r"damping must lie in \[0, 1\]"),
        ({"damping": True}, "damping must be a number"),
        *(({"tol": v}, "tol must be a number") for v in NOT_A_NUMBER),
        ({"tol": np.nan}, "tol must be positive"),
        ({"tol": 0.0}, "tol must be positive"),
        ({"tol": -1e-6}, "tol must be positive"),
        ({"max_iter": 0}, "max_iter must be at least 1"),
        ({"max_iter": 2.5}, "max_iter must be an integer"),
        ({"max_iter": np.inf}, "max_iter must be an integer"),
        ({"max_iter": np.nan}, "max_iter must be an integer"),
        ({"max_iter": "100"}, "max_iter must be an integer"),
        ({"max_iter": None}, "max_iter must be an integer"),
        ({"iterations": -1}, "iterations must be at least 0"),
        ({"iterations": 1.5}, "iterations must be an integer"),
        ({"iterations": "3"}, "iterations must be an integer"),
        ({"variant": np.array(["power"])}, "variant must be one of"),
        ({"variant": "push"}, "variant must be one of"),
        ({"variant": "data", "iterations": 3}, "does not apply"),
        ({"dtype": np.int64}, "dtype must be float32 or float64"),
        ({"dtype": "abc"}, "dtype must be float32 or float64"),
        ({"dtype": np.arange(2)}, "dtype must be float32 or float64"),
    ],
    ids=lambda v: repr(v)[:40],
)
def test_pagerank_parameters(backend: str, kwargs: dict, match: str) -> None:
    A = _path(backend)  # noqa: N806
    raises_unchanged(InvalidValue, match, partial(pagerank, A, **kwargs), A)


def test_pagerank_whole_numbers_and_edges(backend: str) -> None:
    A = _path(backend)  # noqa: N806
    ranks, done = pagerank(A, max_iter=1e3, return_iterations=True)
    assert ranks.isclose(pagerank(A, max_iter=1000), rel_tol=0.0)
    assert pagerank(A, iterations=np.int8(0)).isclose(
        hb.Vector.from_scalar(0.25, 4, backend=backend)
    )
    assert pagerank(A, damping=0, tol=np.inf).nnz == 4
    assert pagerank(A, damping=np.float32(1.0)).nnz == 4


@pytest.mark.parametrize(
    ("weights", "match"),
    [
        ((1.0, -2.0, 1.0), "non-negative; A holds -2"),
        ((1.0, np.nan, 1.0), "must be finite"),
        ((1.0, np.inf, 1.0), "must be finite"),
    ],
)
@pytest.mark.parametrize("variant", ["power", "data"])
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # sums beyond float32
def test_pagerank_weights(backend: str, weights: tuple, match: str, variant: str) -> None:
    for dtype in (np.float64, np.float32):
        A = _path(backend, dtype, weights)  # noqa: N806
        raises_unchanged(InvalidValue, match, partial(pagerank, A, variant=variant), A)
    if weights[1] < 0:
        A = _path(backend, np.int8, (1, -2, 1))  # noqa: N806
        raises_unchanged(InvalidValue, match, partial(pagerank, A), A)
    # float32 ranks of float64 weights whose sums pass float32's largest value
    wide = hb.Matrix.from_coo([0], [2], [2e38], nrows=4, ncols=4, backend=backend)
    A = hb.ops.ewise_add(_path(backend, np.float64, (2e38, 1.0, 1.0)), wide, "plus")  # noqa: N806
    raises_unchanged(
        InvalidValue, "must be finite", partial(pagerank, A, dtype=np.float32, variant=variant), A
    )


# --- betweenness centrality, multi-source BFS, components, triangles -------------------------


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"sources": 5}, InvalidValue, "must lie in"),
        ({"sources": -1}, InvalidValue, "must lie in"),
        ({"sources": True}, InvalidObject, "sources must be None"),
        ({"sources": "ab"}, InvalidObject, "sources"),
        ({"sources": [0, 0]}, InvalidValue, "repeat a vertex"),
        ({"sources": [0, 9]}, IndexOutOfBounds, "vertex 9"),
        ({"sources": [0.5]}, InvalidObject, "integer"),
        ({"sources": [[0, 1]]}, InvalidObject, "one-dimensional"),
        ({"sources": 2, "seed": "abc"}, InvalidValue, "seed must be"),
        ({"sources": 2, "seed": -1}, InvalidValue, "seed must be"),
        ({"batch": 0}, InvalidValue, "batch must be a positive int"),
        ({"batch": 2.5}, InvalidValue, "batch must be a positive int"),
        ({"batch": None}, InvalidValue, "batch must be a positive int"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_betweenness_parameters(backend: str, kwargs: dict, exc: type, match: str) -> None:
    A = _path(backend)  # noqa: N806
    raises_unchanged(exc, match, partial(betweenness_centrality, A, **kwargs), A)


def test_multi_source_bfs_sources(backend: str) -> None:
    A = _path(backend)  # noqa: N806
    for sources, exc in (
        (0, InvalidObject),
        (None, InvalidObject),
        ("01", InvalidObject),
        ([0, 4], IndexOutOfBounds),
        ([-1], IndexOutOfBounds),
        (np.array([0.5]), InvalidObject),
        (np.zeros((1, 1), dtype=int), InvalidObject),
    ):
        raises_unchanged(exc, "sources", partial(multi_source_bfs, A, sources), A, sources)
    assert multi_source_bfs(A, []).shape == (0, 4)


def test_wrong_matrices(backend: str) -> None:
    rect = hb.Matrix.new(np.float64, 2, 3, backend=backend)
    for call in (
        partial(bfs, rect, 0),
        partial(sssp, rect, 0),
        partial(pagerank, rect),
        partial(connected_components, rect),
        partial(triangle_count, rect),
        partial(betweenness_centrality, rect),
        partial(multi_source_bfs, rect, [0]),
    ):
        raises_unchanged(DimensionMismatch, "square", call, rect)
        not_a_matrix = partial(call.func, np.eye(3), *call.args[1:], **call.keywords)
        raises_unchanged(InvalidObject, "A must be a hyblas Matrix", not_a_matrix)
    A = _path(backend)  # noqa: N806
    raises_unchanged(InvalidValue, "structurally symmetric", partial(triangle_count, A), A)


# --- 0-size graphs, isolated vertices, empty frontiers ---------------------------------------


def test_zero_vertices(backend: str) -> None:
    E = hb.Matrix.new(np.float64, 0, 0, backend=backend)  # noqa: N806
    before = snapshot(E)
    raises_unchanged(IndexOutOfBounds, "outside the 0 vertices", partial(bfs, E, 0), E)
    raises_unchanged(IndexOutOfBounds, "outside the 0 vertices", partial(sssp, E, 0), E)
    assert pagerank(E).size == 0 and pagerank(E, variant="data").size == 0
    assert pagerank(E, return_iterations=True)[1] == 0
    assert connected_components(E).size == 0
    assert triangle_count(E) == 0
    assert betweenness_centrality(E).size == 0
    assert betweenness_centrality(E, sources=0).size == 0
    assert multi_source_bfs(E, []).shape == (0, 0)
    assert snapshot(E) == before


def test_isolated_vertices_and_empty_frontiers(backend: str) -> None:
    one = hb.Matrix.new(np.float64, 1, 1, backend=backend)
    assert _dist(sssp(one, 0)) == {0: 0.0}
    levels, parents = bfs(one, 0, return_parents=True)
    assert _dist(levels) == {0: 0} and _dist(parents) == {0: 0}
    assert _dist(pagerank(one)) == {0: 1.0}
    two = hb.Matrix.new(np.float64, 2, 2, backend=backend)
    assert betweenness_centrality(two, sources=1).to_dense().tolist() == [0.0, 0.0]
    assert _dist(connected_components(two)) == {0: 0, 1: 1}
    assert multi_source_bfs(two, [1, 1]).to_coo()[1].tolist() == [1, 1]
    # no edge leaves the source: the first frontier product is empty
    A = hb.Matrix.from_coo([1], [0], [2.0], nrows=2, ncols=2, backend=backend)  # noqa: N806
    for delta in ("auto", None, 1.0):
        assert _dist(sssp(A, 0, delta=delta)) == {0: 0.0}


def test_sssp_matches_scipy_on_integer_weights(backend: str) -> None:
    """The int64 distances of every integer weight type, against scipy."""
    rng = np.random.default_rng(7)
    n = 30
    rows, cols = rng.integers(0, n, 90), rng.integers(0, n, 90)
    keep = rows != cols
    rows, cols = rows[keep], cols[keep]
    pairs = np.unique(np.stack([rows, cols]), axis=1)
    weights = rng.integers(0, 100, pairs.shape[1])
    for dtype in (np.uint8, np.int16, np.uint32, np.int64, np.uint64):
        A = hb.Matrix.from_coo(  # noqa: N806
            pairs[0], pairs[1], weights.astype(dtype), nrows=n, ncols=n, backend=backend
        )
        expected = csgraph.dijkstra(A.to_scipy().astype(np.float64), indices=0)
        got = sssp(A, 0).to_dense(fill_value=np.inf)
        assert np.array_equal(got.astype(np.float64), expected), dtype
