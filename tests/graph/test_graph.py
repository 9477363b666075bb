"""hyblas.Graph: its kinds, constructors, cached properties (and their dropping when the
matrix changes), and that the algorithms use them."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import hyblas as hb
from hyblas.errors import DimensionMismatch, InvalidObject, InvalidValue
from tests.support.checks import raises_unchanged

EDGES = ([0, 0, 1, 3, 3], [1, 2, 2, 3, 0])  # 3 -> 3 a self loop; vertex 4 isolated


def _directed(backend: str) -> hb.Graph:
    return hb.Graph.from_coo(*EDGES, n=5, backend=backend)


def test_degrees_and_facts_of_a_directed_graph(backend: str) -> None:
    G = _directed(backend)  # noqa: N806
    assert (G.n, G.nedges, G.kind, G.is_directed) == (5, 5, "directed", True)
    assert G.out_degree.to_dense().tolist() == [2, 1, 0, 2, 0]
    assert G.in_degree.to_dense().tolist() == [1, 1, 2, 1, 0]
    assert not G.is_symmetric_structure
    assert G.nself_edges == 1
    S = sp.csr_array((np.ones(5), EDGES), shape=(5, 5))  # noqa: N806
    expected = ((S + S.T) != 0).astype(bool)
    rows, cols, _ = G.undirected_structure.to_coo()
    assert sorted(zip(rows.tolist(), cols.tolist())) == sorted(zip(*expected.nonzero()))
    assert G.AT.isequal(hb.ops.transpose(G.A))


def test_an_undirected_graph_stores_each_edge_both_ways(backend: str) -> None:
    G = hb.Graph.from_coo([0, 1, 2, 1], [1, 2, 2, 0], n=4, kind="undirected", backend=backend)  # noqa: N806
    assert G.A.nnz == 5 and G.nedges == 3 and G.nself_edges == 1
    assert G.is_symmetric_structure and G.AT is G.A
    assert G.out_degree.to_dense().tolist() == G.in_degree.to_dense().tolist() == [1, 2, 2, 0]
    assert G.undirected_structure.isequal(hb.ops.apply(G.A, hb.unary["one"][np.bool_]))


def test_properties_are_cached_and_dropped_when_the_matrix_changes(backend: str) -> None:
    G = _directed(backend)  # noqa: N806
    assert G.cached() == []
    first = G.out_degree
    assert G.out_degree is first and G.cached() == ["out_degree"]
    again = hb.Graph(G.A)  # another Graph over the same matrix finds it
    assert again.out_degree is first
    loop = hb.Matrix.from_coo([4], [4], [True], nrows=5, ncols=5, backend=backend)
    hb.ops.assign(G.A, loop, None, None, accum=hb.binary.lor)
    assert G.cached() == []
    assert G.out_degree.to_dense().tolist() == [2, 1, 0, 2, 1]


def test_an_undirected_graph_is_checked_again_after_its_matrix_changed(backend: str) -> None:
    G = hb.Graph.from_coo([0], [1], n=2, kind="undirected", backend=backend)  # noqa: N806
    one_way = hb.Matrix.from_coo([0], [1], [True], nrows=2, ncols=2, backend=backend)
    hb.ops.assign(G.A, one_way, None, None, replace=True, mask=one_way.S)
    with pytest.raises(InvalidValue, match="structurally symmetric"):
        hb.algorithms.connected_components(G)


def test_constructors_agree(backend: str, tmp_path) -> None:
    path = tmp_path / "edges.txt"
    path.write_text("0 1\n1 2\n2 0\n")
    from_file = hb.Graph.from_edgelist(path, kind="undirected", backend=backend)
    from_coo = hb.Graph.from_coo([0, 1, 2], [1, 2, 0], 1.0, kind="undirected", backend=backend)
    S = sp.csr_array(([1.0, 1.0, 1.0], ([0, 1, 2], [1, 2, 0])), shape=(3, 3))  # noqa: N806
    from_scipy = hb.Graph.from_scipy(S + S.T, kind="undirected", backend=backend)
    from_nx = hb.Graph.from_networkx(nx.cycle_graph(3), backend=backend)
    assert from_nx.kind == "undirected"
    for G in (from_coo, from_scipy, from_nx):  # noqa: N806
        assert G.A.isequal(from_file.A)
    assert hb.Graph.from_networkx(nx.DiGraph([(0, 1)]), backend=backend).kind == "directed"
    assert hb.Graph.from_coo([0], [5], backend=backend).n == 6  # square without n


def test_bad_graphs_are_named(backend: str) -> None:
    square = hb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=2, backend=backend)
    wide = hb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=3, backend=backend)
    raises_unchanged(InvalidObject, "must be a hyblas Matrix", lambda: hb.Graph(np.eye(2)))
    raises_unchanged(DimensionMismatch, "square", lambda: hb.Graph(wide), wide)
    raises_unchanged(InvalidValue, "kind must be one of", lambda: hb.Graph(square, "mixed"), square)
    raises_unchanged(InvalidValue, "kind must be one of", lambda: hb.Graph(square, None), square)
    raises_unchanged(
        InvalidValue, "1 of its 1 entries", lambda: hb.Graph(square, "undirected"), square
    )
    raises_unchanged(InvalidValue, "kind must be", lambda: hb.Graph.from_coo([0], [1], kind="both"))


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = {"ewise_add": 0, "transpose": 0}
    for name in calls:
        real = getattr(hb.ops, name)

        def counted(*args, _real=real, _name=name, **kwargs):  # noqa: ANN002, ANN003, ANN202
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(hb.ops, name, counted)
    return calls


def test_components_of_an_undirected_graph_do_no_symmetrization(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    A = hb.generators.kronecker(8, 8, seed=3, backend=backend)  # noqa: N806 - symmetric
    undirected = hb.Graph(A, "undirected")
    calls = _counting(monkeypatch)
    labels = hb.algorithms.connected_components(undirected)
    assert hb.algorithms.connected_components(undirected, method="fastsv").isequal(labels)
    assert calls == {"ewise_add": 0, "transpose": 0}
    # the same matrix as a directed graph: Afforest links its stored entries as they are (no
    # union built); FastSV pays the union A ∪ Aᵀ; both get the same labels
    directed = hb.Graph(A.dup(), "directed")
    assert hb.algorithms.connected_components(directed).isequal(labels)
    assert calls["ewise_add"] == 0
    assert hb.algorithms.connected_components(directed, method="fastsv").isequal(labels)
    assert calls["ewise_add"] >= 1 and calls["transpose"] >= 1


def test_algorithms_take_a_graph_or_a_matrix(backend: str) -> None:
    A = hb.generators.kronecker(7, 6, seed=5, backend=backend)  # noqa: N806
    G = hb.Graph(A, "undirected")  # noqa: N806
    algorithms = hb.algorithms
    assert algorithms.bfs(G, 0).isequal(algorithms.bfs(A, 0))
    assert algorithms.sssp(G, 0).isequal(algorithms.sssp(A, 0))
    assert algorithms.pagerank(G).isclose(algorithms.pagerank(A))
    assert algorithms.triangle_count(G) == algorithms.triangle_count(A)
    assert algorithms.multi_source_bfs(G, [0, 1]).isequal(algorithms.multi_source_bfs(A, [0, 1]))
    assert algorithms.betweenness_centrality(G, sources=[0, 1]).isclose(
        algorithms.betweenness_centrality(A, sources=[0, 1])
    )


def test_a_vouched_symmetry_is_not_checked(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    A = hb.Matrix.from_coo([0, 1], [1, 0], [1.0, 1.0], nrows=2, ncols=2, backend=backend)  # noqa: N806

    def no_check(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - the check's product
        raise AssertionError("the symmetry was checked")

    monkeypatch.setattr(hb.ops, "ewise_mult", no_check)
    G = hb.Graph(A, "undirected", check=False)  # noqa: N806
    assert G.is_symmetric_structure
    with pytest.raises(AssertionError, match="was checked"):
        hb.Graph(A.dup(), "undirected")  # checked: the product runs
    with pytest.raises(InvalidObject, match="check must be True or False"):
        hb.Graph(A, "undirected", check="no")
