"""Betweenness centrality against networkx.

Exact centrality (every vertex a source) is compared with ``nx.betweenness_centrality``
directly. For a given set of sources the reference is the raw Brandes sum from
``nx.betweenness_centrality_subset(G, sources, all nodes, normalized=False)`` (times 2 for an
undirected graph, which that function halves), scaled with :func:`networkx_scale`; and
:func:`networkx_scale` itself is checked against ``nx.betweenness_centrality(G, k, ...)`` with a
random state whose ``sample`` returns those sources, under the installed networkx's semantics.
"""

from __future__ import annotations

import math
import random
from typing import Any

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.algorithms.centrality import betweenness_centrality, networkx_scale, sample_sources
from hyblas.errors import DimensionMismatch, IndexOutOfBounds, InvalidObject, InvalidValue
from tests.support.checks import built_no_transpose
from tests.support.graph_strategies import graphs

_NX_VERSION = tuple(int(p) for p in nx.__version__.split(".")[:2])
_LEGACY = _NX_VERSION < (3, 5)  # networkx 3.5 changed the scaling of sampled sources
_TOL = {"rtol": 1e-9, "atol": 1e-9}


class _FixedSample(random.Random):
    """A random state whose ``sample`` returns the given sources (to steer networkx's ``k``)."""

    def __init__(self, chosen: Any):
        super().__init__(0)
        self.chosen = [int(v) for v in chosen]

    def sample(self, population: Any, k: int, **kwargs: Any) -> list[int]:  # noqa: ARG002
        assert k == len(self.chosen)
        return list(self.chosen)


def _as_array(result: dict[int, float], n: int) -> np.ndarray:
    return np.array([result[v] for v in range(n)], dtype=np.float64)


def _nx_exact(G: nx.Graph, normalized: bool) -> np.ndarray:  # noqa: N803
    return _as_array(nx.betweenness_centrality(G, normalized=normalized), G.number_of_nodes())


def _nx_raw(G: nx.Graph, sources: Any) -> np.ndarray:  # noqa: N803
    """Raw Brandes sums over ordered (s, t) pairs from ``sources`` (version independent)."""
    n = G.number_of_nodes()
    subset = nx.betweenness_centrality_subset(
        G, [int(s) for s in sources], list(G), normalized=False
    )
    return _as_array(subset, n) * (1.0 if G.is_directed() else 2.0)


def _nx_sampled(G: nx.Graph, sources: Any, normalized: bool) -> np.ndarray:  # noqa: N803
    """Raw sums scaled as networkx >= 3.5 scales ``k = len(sources)`` sampled sources."""
    n, k = G.number_of_nodes(), len(sources)
    raw = _nx_raw(G, sources)
    directed = G.is_directed()
    chosen = {int(s) for s in sources}
    scale = [
        networkx_scale(n, k, directed=directed, normalized=normalized, source=v in chosen)
        for v in range(n)
    ]
    return raw * np.array(scale)


def _check(got: hb.Vector, want: np.ndarray) -> None:
    assert got.dtype == np.float64 and got.size == want.size and got.nnz == want.size
    np.testing.assert_allclose(got.to_dense(), want, equal_nan=True, **_TOL)


# --- exact centrality ------------------------------------------------------------------------


@given(graphs(), st.booleans(), st.integers(1, 5))
def test_betweenness_matches_networkx(graph: tuple, normalized: bool, batch: int) -> None:
    G, A = graph
    got = betweenness_centrality(A, normalized=normalized, directed=G.is_directed(), batch=batch)
    _check(got, _nx_exact(G, normalized))


@given(graphs(max_n=10, directed=False), st.booleans())
def test_betweenness_detects_undirected_graphs(graph: tuple, normalized: bool) -> None:
    G, A = graph
    _check(betweenness_centrality(A, normalized=normalized), _nx_exact(G, normalized))


def test_betweenness_symmetric_digraph_counts_as_undirected_unless_told() -> None:
    G = nx.cycle_graph(6)  # noqa: N806
    A = hb.io.from_networkx(G.to_directed(), nodelist=range(6))
    _check(betweenness_centrality(A, normalized=False), _nx_exact(G, False))
    _check(
        betweenness_centrality(A, normalized=False, directed=True),
        _nx_exact(G.to_directed(), False),
    )
    # a one-way edge makes the matrix asymmetric: detected as directed
    B = hb.Matrix.from_coo([0, 1, 1, 2, 3], [1, 0, 2, 1, 0], nrows=4, ncols=4)  # noqa: N806
    H = nx.DiGraph([(0, 1), (1, 0), (1, 2), (2, 1), (3, 0)])  # noqa: N806
    _check(betweenness_centrality(B, normalized=False), _nx_exact(H, False))


def test_betweenness_on_an_undirected_graph_builds_no_transpose(backend: str) -> None:
    """The backward sweep reads only the pattern of ``Aᵀ``: an undirected Graph's A is that
    pattern, so no transpose is built; the centrality is the directed-matrix one's."""
    A = hb.generators.kronecker(8, 8, seed=6, backend=backend)  # noqa: N806
    want = betweenness_centrality(A.dup(), sources=[0, 3, 17, 40], normalized=False)
    G = hb.Graph(A, "undirected", check=False)  # built symmetric; the check caches a transpose
    got = betweenness_centrality(G, sources=[0, 3, 17, 40], normalized=False)
    np.testing.assert_allclose(got.to_dense(), want.to_dense(), **_TOL)
    assert built_no_transpose(A)


@pytest.mark.parametrize(
    "G",
    [
        nx.karate_club_graph(),
        nx.convert_node_labels_to_integers(nx.florentine_families_graph()),
        nx.path_graph(7),
        nx.star_graph(6),
        nx.complete_graph(6),
        nx.gn_graph(30, seed=4),
        nx.gnp_random_graph(30, 0.1, seed=5, directed=True),
    ],
    ids=["karate", "florentine", "path", "star", "complete", "gn-directed", "gnp-directed"],
)
@pytest.mark.parametrize("normalized", [True, False])
def test_betweenness_classic_graphs(G: nx.Graph, normalized: bool) -> None:  # noqa: N803
    A = hb.io.from_networkx(G, nodelist=range(G.number_of_nodes()))
    got = betweenness_centrality(A, normalized=normalized, directed=G.is_directed(), batch=8)
    _check(got, _nx_exact(G, normalized))


def test_betweenness_path_and_star_values() -> None:
    # path 0 - 1 - 2 - 3: vertex 1 lies on the paths 0-2 and 0-3, vertex 2 on 0-3 and 1-3
    A = hb.io.from_networkx(nx.path_graph(4), nodelist=range(4))
    assert betweenness_centrality(A, normalized=False).to_dense().tolist() == [0, 2, 2, 0]
    # star: the centre lies on all (n-1)(n-2)/2 leaf pairs, normalized to 1
    S = hb.io.from_networkx(nx.star_graph(5), nodelist=range(6))  # noqa: N806
    assert betweenness_centrality(S).to_dense().tolist() == [1, 0, 0, 0, 0, 0]


def test_betweenness_kronecker_against_networkx(backend: str) -> None:
    A = hb.generators.kronecker(7, 8, seed=3, backend=backend)
    got = betweenness_centrality(A, batch=40)
    assert got.backend == backend
    G = nx.from_scipy_sparse_array(A.to_backend("cpu").to_scipy())  # noqa: N806
    _check(got.to_backend("cpu"), _nx_exact(G, True))


def test_betweenness_directed_kronecker_and_grid_against_networkx(backend: str) -> None:
    A = hb.generators.kronecker(7, 4, seed=1, symmetric=False, backend=backend)
    G = nx.from_scipy_sparse_array(A.to_backend("cpu").to_scipy(), create_using=nx.DiGraph)  # noqa: N806
    _check(betweenness_centrality(A, normalized=False).to_backend("cpu"), _nx_exact(G, False))
    grid = hb.generators.grid_2d(5, 6, backend=backend)
    H = nx.from_scipy_sparse_array(grid.to_backend("cpu").to_scipy())  # noqa: N806
    _check(betweenness_centrality(grid).to_backend("cpu"), _nx_exact(H, True))


# --- sources ---------------------------------------------------------------------------------


@given(graphs(max_n=10), st.booleans(), st.integers(1, 4), st.data())
def test_betweenness_given_sources(graph: tuple, normalized: bool, batch: int, data: Any) -> None:
    G, A = graph
    n = A.nrows
    sources = data.draw(
        st.lists(st.integers(0, n - 1), unique=True, max_size=n) if n else st.just([])
    )
    got = betweenness_centrality(
        A, sources=sources, normalized=normalized, directed=G.is_directed(), batch=batch
    )
    if not sources:
        _check(got, np.zeros(n))
    else:
        _check(got, _nx_sampled(G, sources, normalized))


@given(graphs(max_n=10), st.booleans(), st.integers(0, 2**32 - 1), st.data())
def test_betweenness_sampled_sources(graph: tuple, normalized: bool, seed: int, data: Any) -> None:
    G, A = graph
    n = A.nrows
    k = data.draw(st.integers(0, n))
    directed = G.is_directed()
    got = betweenness_centrality(A, sources=k, seed=seed, normalized=normalized, directed=directed)
    chosen = sample_sources(n, k, seed)
    assert chosen.size == k and np.unique(chosen).size == k
    again = betweenness_centrality(
        A, sources=chosen[::-1].copy(), normalized=normalized, directed=directed
    )
    np.testing.assert_allclose(got.to_dense(), again.to_dense(), equal_nan=True, **_TOL)
    _check(got, _nx_sampled(G, chosen, normalized) if k else np.zeros(n))


def test_betweenness_sampled_kronecker_matches_networkx_k(backend: str) -> None:
    A = hb.generators.kronecker(9, 4, seed=7, backend=backend)
    G = nx.from_scipy_sparse_array(A.to_backend("cpu").to_scipy())  # noqa: N806
    got = betweenness_centrality(A, sources=24, seed=11, batch=16).to_backend("cpu")
    chosen = sample_sources(A.nrows, 24, 11)
    _check(got, _nx_sampled(G, chosen, True))
    if not _LEGACY:  # the installed networkx scales k samples as betweenness_centrality does
        want = nx.betweenness_centrality(G, k=24, seed=_FixedSample(chosen))
        _check(got, _as_array(want, A.nrows))


def test_betweenness_all_vertices_as_sources_is_exact() -> None:
    G = nx.karate_club_graph()  # noqa: N806
    A = hb.io.from_networkx(G, nodelist=range(34))
    exact = betweenness_centrality(A).to_dense()
    np.testing.assert_allclose(betweenness_centrality(A, sources=34).to_dense(), exact, **_TOL)
    np.testing.assert_allclose(
        betweenness_centrality(A, sources=np.arange(34)[::-1]).to_dense(), exact, **_TOL
    )


def test_sample_sources_is_reproducible() -> None:
    first = sample_sources(100, 10, seed=3)
    assert np.array_equal(first, sample_sources(100, 10, seed=3))
    assert np.array_equal(first, np.sort(np.random.default_rng(3).choice(100, 10, replace=False)))
    assert np.all(np.diff(first) > 0) and first.dtype == np.int64
    assert sample_sources(5, 0).size == 0 and np.array_equal(sample_sources(5, 5), np.arange(5))


# --- the networkx scale ----------------------------------------------------------------------


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("normalized", [False, True])
def test_networkx_scale_matches_installed_networkx(directed: bool, normalized: bool) -> None:
    G = nx.gnp_random_graph(14, 0.25, seed=9, directed=directed)  # noqa: N806
    n = 14
    for k in (1, 2, 5, 13, 14, None):
        chosen = list(range(n)) if k is None else sample_sources(n, k, seed=k).tolist()
        raw = _nx_raw(G, chosen)
        state = _FixedSample(chosen)
        want = _as_array(nx.betweenness_centrality(G, k=k, normalized=normalized, seed=state), n)
        scale = np.array(
            [
                networkx_scale(
                    n,
                    k,
                    directed=directed,
                    normalized=normalized,
                    source=v in chosen,
                    legacy=_LEGACY,
                )
                for v in range(n)
            ]
        )
        np.testing.assert_allclose(raw * scale, want, equal_nan=True, **_TOL)


def test_networkx_scale_formula() -> None:
    # networkx >= 3.5, N = n - 1
    assert networkx_scale(10, None, directed=True, normalized=True) == 1 / (9 * 8)
    assert networkx_scale(10, None, directed=False, normalized=True) == 1 / (9 * 8)
    assert networkx_scale(10, None, directed=False, normalized=False) == 0.5
    assert networkx_scale(10, None, directed=True, normalized=False) == 1.0
    assert networkx_scale(10, 10, directed=False, normalized=False) == 0.5  # k == n: exact
    assert networkx_scale(10, 4, directed=True, normalized=True) == 1 / (4 * 8)
    assert networkx_scale(10, 4, directed=True, normalized=True, source=True) == 1 / (3 * 8)
    assert networkx_scale(10, 4, directed=False, normalized=False) == 9 / (4 * 2)
    assert networkx_scale(10, 4, directed=False, normalized=False, source=True) == 9 / (3 * 2)
    assert math.isnan(networkx_scale(10, 1, directed=True, normalized=True, source=True))
    for n in (0, 1, 2):
        assert networkx_scale(n, None, directed=False, normalized=True) == 1.0
    # networkx 3.2 - 3.4: one scale for every vertex, times n / k when sampling
    assert networkx_scale(10, 4, directed=True, normalized=True, legacy=True) == 10 / (4 * 72)
    assert networkx_scale(10, 4, directed=False, normalized=False, legacy=True) == 0.5 * 10 / 4
    assert networkx_scale(10, 4, directed=True, normalized=False, legacy=True) == 1.0
    with pytest.raises(InvalidValue):
        networkx_scale(5, 6, directed=True, normalized=True)
    with pytest.raises(InvalidValue):
        networkx_scale(5, 0, directed=True, normalized=True)


def test_betweenness_single_source_nan_like_networkx() -> None:
    # networkx gives the one sampled source NaN (0 / 0 pairs) when n >= 3
    G = nx.path_graph(5)  # noqa: N806
    A = hb.io.from_networkx(G, nodelist=range(5))
    got = betweenness_centrality(A, sources=[1]).to_dense()
    # from 1, vertex 2 lies on the paths to 3 and 4, vertex 3 on that to 4; scale 1 / (1 * 3)
    assert math.isnan(got[1]) and np.allclose(np.delete(got, 1), [0, 2 / 3, 1 / 3, 0])
    if not _LEGACY:
        want = nx.betweenness_centrality(G, k=1, seed=_FixedSample([1]))
        np.testing.assert_allclose(got, _as_array(want, 5), equal_nan=True, **_TOL)


# --- bad input and empty graphs --------------------------------------------------------------


def test_betweenness_empty_and_tiny_graphs() -> None:
    empty = betweenness_centrality(hb.Matrix.new(np.float64, 0, 0))
    assert empty.size == 0 and empty.dtype == np.float64
    assert betweenness_centrality(hb.Matrix.new(np.float64, 0, 0), sources=[]).size == 0
    for n in (1, 2):
        A = hb.Matrix.new(bool, n, n)
        assert betweenness_centrality(A).to_dense().tolist() == [0.0] * n
    A = hb.generators.grid_2d(2, 3)
    for none in ([], 0, np.zeros(0, dtype=np.int64)):
        got = betweenness_centrality(A, sources=none)
        assert got.nnz == 6 and got.to_dense().tolist() == [0.0] * 6


def test_betweenness_bad_input() -> None:
    A = hb.generators.grid_2d(2, 3)
    with pytest.raises(DimensionMismatch):
        betweenness_centrality(hb.Matrix.new(np.float64, 2, 3))
    with pytest.raises(InvalidObject):
        betweenness_centrality(A.to_scipy())
    for bad in ([6], [0, -1]):
        with pytest.raises(IndexOutOfBounds):
            betweenness_centrality(A, sources=bad)
    for bad in (True, "01", [[0, 1]], [0.5]):
        with pytest.raises(InvalidObject):
            betweenness_centrality(A, sources=bad)
    for kwargs in (
        {"sources": 7},
        {"sources": -1},
        {"sources": [1, 2, 1]},
        {"batch": 0},
        {"batch": 2.0},
        {"executor": "nonsense"},
    ):
        with pytest.raises(InvalidValue):
            betweenness_centrality(A, **kwargs)
