"""Triangle counting against networkx."""

from __future__ import annotations

from math import comb

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.algorithms.triangles import triangle_count
from hyblas.errors import DimensionMismatch, InvalidObject, InvalidValue
from tests.support.graph_strategies import graphs


def _reference(G: nx.Graph) -> int:
    return sum(nx.triangles(G).values()) // 3  # networkx ignores self loops


@given(st.one_of(graphs(max_n=16, directed=False), graphs(max_n=12, directed=True)))
def test_triangle_count_matches_networkx(graph: tuple) -> None:
    # a directed graph is accepted only when its structure happens to be symmetric
    G, A = graph
    pattern = A.to_scipy()
    pattern.data[:] = 1
    if (pattern != pattern.T).nnz:
        with pytest.raises(InvalidValue, match="symmetric"):
            triangle_count(A)
        return
    count = triangle_count(A)
    assert type(count) is int
    assert count == _reference(G.to_undirected())


def test_triangle_count_classic_graphs() -> None:
    assert triangle_count(hb.io.from_networkx(nx.karate_club_graph())) == 45
    assert triangle_count(hb.io.from_networkx(nx.petersen_graph())) == 0
    assert triangle_count(hb.io.from_networkx(nx.path_graph(30))) == 0
    for n in (3, 4, 10):
        assert triangle_count(hb.io.from_networkx(nx.complete_graph(n))) == comb(n, 3)
    G = nx.les_miserables_graph()
    assert triangle_count(hb.io.from_networkx(G)) == _reference(G)


def test_triangle_count_ignores_values_and_self_loops() -> None:
    # a triangle 0-1-2 with stored zeros and negative values, self loops on 0 and 3
    rows = [0, 1, 1, 2, 0, 2, 0, 3]
    cols = [1, 0, 2, 1, 2, 0, 0, 3]
    vals = [0.0, 0.0, -1.0, -1.0, 5.0, 5.0, 1.0, 1.0]
    A = hb.Matrix.from_coo(rows, cols, vals, nrows=4, ncols=4)
    assert triangle_count(A) == 1
    assert triangle_count(A.dup(bool)) == 1
    assert triangle_count(A.dup(np.int8)) == 1


def test_triangle_count_empty_and_tiny() -> None:
    assert triangle_count(hb.Matrix.new(np.float64, 0, 0)) == 0
    assert triangle_count(hb.Matrix.new(np.float64, 1, 1)) == 0
    assert triangle_count(hb.Matrix.new(np.float64, 5, 5)) == 0
    assert triangle_count(hb.Matrix.from_coo([0], [0], nrows=1, ncols=1)) == 0


def test_triangle_count_kronecker_against_networkx(backend: str) -> None:
    A = hb.generators.kronecker(9, 8, seed=6, backend=backend)
    G = nx.from_scipy_sparse_array(A.to_scipy())
    assert triangle_count(A) == _reference(G)


def test_triangle_count_grid_has_none(backend: str) -> None:
    assert triangle_count(hb.generators.grid_2d(12, 9, backend=backend)) == 0


def test_triangle_count_bad_input() -> None:
    with pytest.raises(DimensionMismatch):
        triangle_count(hb.Matrix.new(np.float64, 2, 3))
    with pytest.raises(InvalidObject):
        triangle_count(nx.complete_graph(3))
    with pytest.raises(InvalidValue, match="symmetric"):
        triangle_count(hb.Matrix.from_coo([0, 1, 2], [1, 2, 0], nrows=3, ncols=3))
    with pytest.raises(InvalidValue):
        triangle_count(hb.generators.grid_2d(2, 2), executor="nonsense")
