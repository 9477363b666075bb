"""Core numbers against networkx's (Batagelj-Zaversnik) on random graphs, directed (in- plus
out-degree, as networkx counts) and undirected, on every executor."""

from __future__ import annotations

import networkx as nx
import pytest

import hyblas as hb
from hyblas.errors import DimensionMismatch, InvalidObject, InvalidValue
from tests.support.checks import raises_unchanged


@pytest.mark.parametrize("executor", ["auto", "reference", "sparse", "dense", "pull"])
@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
def test_core_numbers_match_networkx(backend: str, directed: bool, executor: str) -> None:
    for seed in range(4):
        G = nx.gnp_random_graph(50, 0.1 + 0.05 * seed, seed=seed, directed=directed)  # noqa: N806
        expected = nx.core_number(G)
        A = hb.io.from_networkx(G, weight=None, backend=backend)  # noqa: N806
        graph = hb.Graph(A, "directed" if directed else "undirected")
        got = hb.algorithms.core_number(graph, executor=executor).to_dense().tolist()
        assert got == [expected[v] for v in range(50)], seed


def test_self_loops_are_ignored_and_isolated_vertices_are_zero(backend: str) -> None:
    G = hb.Graph.from_coo([0, 1, 2, 3], [1, 2, 0, 3], n=5, kind="undirected", backend=backend)  # noqa: N806
    assert hb.algorithms.core_number(G).to_dense().tolist() == [2, 2, 2, 0, 0]
    empty = hb.Graph(hb.Matrix.new(bool, 0, 0, backend=backend))
    assert hb.algorithms.core_number(empty).size == 0


def test_bad_input(backend: str) -> None:
    wide = hb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=3, backend=backend)
    square = hb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=2, backend=backend)
    raises_unchanged(InvalidObject, "Matrix or Graph", lambda: hb.algorithms.core_number([1]))
    raises_unchanged(DimensionMismatch, "square", lambda: hb.algorithms.core_number(wide), wide)
    raises_unchanged(
        InvalidValue, "executor", lambda: hb.algorithms.core_number(square, executor="x"), square
    )
