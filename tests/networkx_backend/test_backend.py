"""The NetworkX backend (the nx-hyblas distribution in ``nx-hyblas/``): registration, the
functions' signatures, and their results against NetworkX's own on random graphs of every kind
(directed or not, multigraphs, node keys that are not integers), on both hyblas backends.

NetworkX's own test suite runs with the backend as a step of ``.ci/run``."""

from __future__ import annotations

import inspect
import math
import os
import random
import subprocess
import sys

import pytest

nx = pytest.importorskip("networkx")
_nx_hyblas = pytest.importorskip("_nx_hyblas", reason="nx-hyblas is not installed")

from nx_hyblas.interface import backend_interface  # noqa: E402

import hyblas as hb  # noqa: E402

FUNCTIONS = sorted(_nx_hyblas.FUNCTIONS)


def test_the_backend_is_registered_and_its_info_imports_nothing_heavy() -> None:
    assert "hyblas" in nx.utils.backends.backends
    assert set(nx.utils.backends.backend_info["hyblas"]["functions"]) == set(FUNCTIONS)
    code = (
        "import sys, _nx_hyblas; info = _nx_hyblas.get_info(); "
        "assert info['backend_name'] == 'hyblas'; "
        "assert 'hyblas' not in sys.modules and 'cupy' not in sys.modules, sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_signatures_match_networkx(name: str) -> None:
    """NetworkX's parameters, in order, with its defaults; then only the extra keywords
    get_info declares (executor, dtype), taken as **kwargs."""
    theirs = inspect.signature(getattr(nx, name).orig_func).parameters
    ours = inspect.signature(getattr(backend_interface, name)).parameters
    plain = [p for p in ours.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    assert [(p.name, p.default, p.kind) for p in plain] == [
        (p.name, p.default, p.kind) for p in theirs.values()
    ]
    assert [p.kind for p in ours.values()][-1] is inspect.Parameter.VAR_KEYWORD


@pytest.fixture
def on_hyblas(backend: str):
    """Every dispatched call of the test on hyblas, on ``backend``, however small the graph."""
    settings = nx.config.backends.hyblas
    saved = (settings.device, settings.min_edges, set(nx.config.warnings_to_ignore))
    settings.device, settings.min_edges = backend, 0
    nx.config.warnings_to_ignore.add("cache")  # the note on reusing a cached conversion
    yield backend
    settings.device, settings.min_edges = saved[:2]
    nx.config.warnings_to_ignore = saved[2]


def _random_graph(kind: type, seed: int, n: int = 30, m: int = 70) -> nx.Graph:
    rng = random.Random(seed)
    G = kind()
    G.add_nodes_from(f"v{k}" for k in range(n))  # keys that are not vertex ids
    for _ in range(m):
        u, v = f"v{rng.randrange(n)}", f"v{rng.randrange(n - 5)}"  # a few isolated
        G.add_edge(u, v, weight=rng.choice([0.5, 1.0, 2.0, 3.5]))
    return G


KINDS = [nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph]


def _same(ours, theirs) -> None:
    """Equal results: dicts with the same keys and values (floats within 1e-9), sets, lists
    of sets in the same order, numbers."""
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs) or set(ours) == set(theirs)
        for key, value in theirs.items():
            _same(ours[key], value)
    elif isinstance(theirs, float):
        assert type(ours) in (float, int) and math.isclose(
            ours, theirs, rel_tol=1e-9, abs_tol=1e-12
        )
    else:
        assert ours == theirs


def _outcome(call) -> tuple:
    """What ``call()`` raised: its type and message."""
    try:
        call()
    except nx.NetworkXException as exc:
        return type(exc), str(exc)
    raise AssertionError("no error")


def _eccentricities(G: nx.Graph, **kw) -> list:  # noqa: N803
    """Eccentricity asked every way, of the largest part of ``G`` where every node reaches
    every other; and the error of ``G`` with a node that reaches nothing."""
    parts = nx.strongly_connected_components if G.is_directed() else nx.connected_components
    H = G.subgraph(max(parts(G, backend="networkx"), key=len)).copy()  # noqa: N806
    nodes = list(H)
    G = G.copy()  # noqa: N806
    G.add_node("alone")
    return [
        nx.eccentricity(H, **kw),
        nx.eccentricity(H, nodes[-1], **kw),
        nx.eccentricity(H, [nodes[2], "absent", nodes[0]], **kw),
        nx.eccentricity(H, weight="weight", **kw),
        _outcome(lambda: nx.eccentricity(G, **kw)),
        _outcome(lambda: nx.eccentricity(G, weight="weight", **kw)),
    ]


CALLS = {
    "single_source_shortest_path_length": lambda G, **kw: nx.single_source_shortest_path_length(
        G, "v0", **kw
    ),
    "single_target_shortest_path_length": lambda G, **kw: dict(
        nx.single_target_shortest_path_length(G, "v1", **kw)
    ),
    "all_pairs_shortest_path_length": lambda G, **kw: dict(
        nx.all_pairs_shortest_path_length(G, cutoff=3, **kw)
    ),
    "descendants": lambda G, **kw: nx.descendants(G, "v2", **kw),
    "ancestors": lambda G, **kw: nx.ancestors(G, "v2", **kw),
    "descendants_at_distance": lambda G, **kw: nx.descendants_at_distance(G, "v0", 2, **kw),
    "has_path": lambda G, **kw: [nx.has_path(G, "v0", f"v{k}", **kw) for k in range(30)],
    "bfs_layers": lambda G, **kw: [set(layer) for layer in nx.bfs_layers(G, ["v0", "v3"], **kw)],
    "single_source_dijkstra_path_length": lambda G, **kw: nx.single_source_dijkstra_path_length(
        G, "v0", **kw
    ),
    "dijkstra_path_length": lambda G, **kw: (
        nx.dijkstra_path_length(G, "v0", "v1", **kw) if nx.has_path(G, "v0", "v1") else None
    ),
    "all_pairs_dijkstra_path_length": lambda G, **kw: dict(
        nx.all_pairs_dijkstra_path_length(G, cutoff=4.0, **kw)
    ),
    "single_source_bellman_ford_path_length": lambda G, **kw: (
        nx.single_source_bellman_ford_path_length(G, "v0", **kw)
    ),
    "bellman_ford_path_length": lambda G, **kw: nx.bellman_ford_path_length(G, "v0", "v0", **kw),
    "eccentricity": _eccentricities,
    "pagerank": lambda G, **kw: nx.pagerank(G, tol=1e-10, **kw),
    "betweenness_centrality": lambda G, **kw: nx.betweenness_centrality(G, **kw),
}
UNDIRECTED = {
    "connected_components": lambda G, **kw: list(nx.connected_components(G, **kw)),
    "number_connected_components": lambda G, **kw: nx.number_connected_components(G, **kw),
    "is_connected": lambda G, **kw: nx.is_connected(G, **kw),
    "node_connected_component": lambda G, **kw: nx.node_connected_component(G, "v4", **kw),
    "triangles": lambda G, **kw: nx.triangles(G, **kw),
}
SIMPLE_UNDIRECTED = {
    "transitivity": lambda G, **kw: nx.transitivity(G, **kw),
    "clustering": lambda G, **kw: nx.clustering(G, **kw),
    "average_clustering": lambda G, **kw: nx.average_clustering(G, **kw),
}
DIRECTED = {
    "weakly_connected_components": lambda G, **kw: list(nx.weakly_connected_components(G, **kw)),
    "number_weakly_connected_components": lambda G, **kw: nx.number_weakly_connected_components(
        G, **kw
    ),
    "is_weakly_connected": lambda G, **kw: nx.is_weakly_connected(G, **kw),
}


def _without_self_loops(G: nx.Graph) -> nx.Graph:  # noqa: N803
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    return G


def _graph_data(G: nx.Graph) -> tuple:  # noqa: N803
    """Everything a graph holds, as what NetworkX's own tests of a backend compare."""
    return type(G), G.graph, G._node, G._adj, list(G)


SIMPLE = {  # graphs (not multigraphs) without self loops, directed or not
    "core_number": lambda G, **kw: nx.core_number(_without_self_loops(G), **kw),
    "k_core": lambda G, **kw: [
        _graph_data(nx.k_core(_without_self_loops(G), k, **kw)) for k in (None, 0, 2, 3, 9)
    ],
}


def _cases() -> list:
    cases = []
    for kind in KINDS:
        table = dict(CALLS)
        table.update(DIRECTED if kind().is_directed() else UNDIRECTED)
        if kind is nx.Graph:
            table.update(SIMPLE_UNDIRECTED)
        if not kind().is_multigraph():
            table.update(SIMPLE)
        cases += [pytest.param(kind, name, id=f"{kind.__name__}-{name}") for name in table]
    return cases


def test_every_function_is_compared_somewhere() -> None:
    names = set(CALLS) | set(UNDIRECTED) | set(SIMPLE_UNDIRECTED) | set(DIRECTED) | set(SIMPLE)
    assert names == set(FUNCTIONS)


@pytest.mark.parametrize(("kind", "name"), _cases())
def test_results_match_networkx(on_hyblas: str, kind: type, name: str) -> None:
    call = {**CALLS, **UNDIRECTED, **SIMPLE_UNDIRECTED, **DIRECTED, **SIMPLE}[name]
    for seed in range(3):
        G = _random_graph(kind, seed)
        theirs = call(G, backend="networkx")
        ours = call(G, backend="hyblas")
        _same(ours, theirs)


def test_calls_really_run_on_hyblas(on_hyblas: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ran = []
    real = hb.algorithms.pagerank
    monkeypatch.setattr(hb.algorithms, "pagerank", lambda *a, **k: ran.append(1) or real(*a, **k))
    nx.pagerank(_random_graph(nx.DiGraph, 0), backend="hyblas")
    assert ran == [1]


def test_parallel_edges_reduce_per_algorithm(on_hyblas: str) -> None:
    """One converted multigraph (cached by networkx) serves the shortest paths (the shortest
    parallel edge) and PageRank (their sum)."""
    G = nx.MultiDiGraph()
    G.add_edge("a", "b", weight=5.0)
    G.add_edge("a", "b", weight=1.0)
    G.add_edge("a", "c", weight=3.0)
    G.add_edge("b", "c", weight=1.0)
    G.add_edge("c", "a", weight=1.0)
    assert nx.single_source_dijkstra_path_length(G, "a", backend="hyblas") == {
        "a": 0.0,
        "b": 1.0,
        "c": 2.0,
    }
    _same(nx.pagerank(G, backend="hyblas"), nx.pagerank(G, backend="networkx"))
    assert nx.single_source_dijkstra_path_length(G, "a", backend="hyblas")["b"] == 1.0


def test_k_core_copies_every_attribute_and_leaves_the_graph_as_it_was(on_hyblas: str) -> None:
    """k_core returns a NetworkX graph (the core numbers on hyblas, the subgraph copied from
    the graph with its graph, node and edge attributes); the conversion it leaves in NetworkX's
    cache serves a weighted call after it."""
    G = _without_self_loops(_random_graph(nx.Graph, 1, m=120))
    G.graph["name"] = "random"
    for k, node in enumerate(G):
        G.nodes[node]["colour"] = ["red", "blue"][k % 2]
    for u, v, data in G.edges(data=True):
        data["label"] = f"{u}-{v}"  # not a number: kept as it is
    before = _graph_data(G.copy())
    ran = []
    real = hb.algorithms.core_number
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            hb.algorithms, "core_number", lambda *a, **kw: ran.append(1) or real(*a, **kw)
        )
        ours = nx.k_core(G, backend="hyblas")
    assert ran == [1] and isinstance(ours, nx.Graph)
    assert _graph_data(ours) == _graph_data(nx.k_core(G, backend="networkx"))
    assert ours.number_of_nodes() < G.number_of_nodes()  # a proper part: the test can fail
    assert _graph_data(G) == before
    kept = backend_interface.convert_from_nx(
        G, preserve_edge_attrs=True, preserve_node_attrs=True, preserve_graph_attrs=True
    )
    back = backend_interface.convert_to_nx(kept)
    assert _graph_data(back) == before and back is not G
    # the cached conversion (every attribute kept) reads "weight" for pagerank on first use
    _same(nx.pagerank(G, backend="hyblas"), nx.pagerank(G, backend="networkx"))
    assert backend_interface.can_run("k_core", (G,), {"core_number": {}}) is not True


def test_errors_are_networkx_errors(on_hyblas: str) -> None:
    G = nx.DiGraph([(0, 1, {"weight": -1.0}), (1, 0, {"weight": -1.0})])
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford_path_length(G, 0, backend="hyblas")
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path_length(G, 7, backend="hyblas")
    with pytest.raises(nx.NetworkXNoPath):
        nx.dijkstra_path_length(nx.DiGraph([(0, 1), (2, 3)]), 0, 3, backend="hyblas")
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(nx.DiGraph([(0, 1), (1, 2), (2, 0), (0, 2)]), max_iter=1, backend="hyblas")
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.is_connected(nx.Graph(), backend="hyblas")
    with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
        nx.core_number(nx.Graph([(0, 0), (0, 1)]), backend="hyblas")
    with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
        nx.k_core(nx.Graph([(0, 0), (0, 1)]), backend="hyblas")
    with pytest.raises(nx.NetworkXNotImplemented, match="multigraph"):
        backend_interface.k_core(backend_interface.convert_from_nx(nx.MultiGraph([(0, 1)])))


def test_settings(backend: str) -> None:
    settings = nx.config.backends.hyblas
    assert settings.device == "auto" and settings.dtype == "float64"
    G = _random_graph(nx.Graph, 0)
    assert isinstance(backend_interface.should_run("pagerank", (G,), {}), str)  # too small
    saved = settings.min_edges
    settings.min_edges = 0
    try:
        assert backend_interface.should_run("pagerank", (G,), {}) is True
    finally:
        settings.min_edges = saved
    assert isinstance(backend_interface.can_run("pagerank", (G,), {"nstart": {}}), str)
    assert isinstance(
        backend_interface.can_run(
            "single_source_dijkstra_path_length", (G, 0), {"weight": lambda u, v, d: 1}
        ),
        str,
    )  # noqa: E501
    converted = backend_interface.convert_from_nx(G, {"weight": 1.0}, preserve_graph_attrs=True)
    back = backend_interface.convert_to_nx(converted)
    assert set(back.edges) == set(G.edges) and back.graph == G.graph
    assert backend_interface.convert_to_nx({"a": 1}) == {"a": 1}
    assert nx.pagerank(G, backend="hyblas", executor="reference")  # an extra keyword


@pytest.mark.parametrize("kind", KINDS)
def test_should_run_counts_edges_as_networkx_does(kind: type) -> None:
    """should_run reads only as much of the adjacency as min_edges needs, with NetworkX's
    count of edges (an undirected edge once, a self loop once, parallel edges each)."""
    settings = nx.config.backends.hyblas
    saved = settings.min_edges
    try:
        for seed in range(3):
            G = _random_graph(kind, seed, n=12, m=25)
            G.add_edge("v1", "v1")
            edges = G.number_of_edges()
            for threshold in range(edges + 3):
                settings.min_edges = threshold
                ran = backend_interface.should_run("pagerank", (G,), {}) is True
                assert ran == (edges >= threshold), (threshold, edges)
    finally:
        settings.min_edges = saved


def test_calls_are_counted_where_asked(tmp_path) -> None:
    """NX_HYBLAS_CALL_COUNTS: what scripts/networkx-suite reads to show the calls ran here."""
    counts = tmp_path / "calls.txt"
    code = (
        "import networkx as nx; nx.config.backends.hyblas.min_edges = 0; "
        "nx.config.backends.hyblas.device = 'cpu'; G = nx.path_graph(4); "
        "nx.pagerank(G, backend='hyblas'); nx.pagerank(G, backend='hyblas'); "
        "nx.has_path(G, 0, 3, backend='hyblas')"
    )
    env = {**os.environ, "NX_HYBLAS_CALL_COUNTS": str(counts)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    assert counts.read_text().splitlines() == ["has_path 1", "pagerank 2"]


def test_graph_classes_that_redefine_their_neighbours_stay_on_networkx(on_hyblas: str) -> None:
    """networkx's _AntiGraph answers G[n] with the complement of what its _adj holds."""

    class Complement(nx.Graph):
        def __getitem__(self, n):  # noqa: ANN001, ANN204
            return {m: {} for m in self if m != n and m not in self._adj[n]}

    class Labelled(nx.Graph):  # a subclass that keeps the adjacency views
        pass

    with pytest.raises(NotImplementedError, match="redefines its adjacency"):
        backend_interface.convert_from_nx(Complement([(0, 1)]), None)
    assert backend_interface.convert_from_nx(Labelled([(0, 1)]), None).rows.size == 2


@pytest.mark.parametrize(
    ("nodes", "identity"),
    [
        ([0, 1, 2], True),
        ([], True),
        ([1, 0, 2], False),  # node order is NetworkX's: vertex 0 is node 1
        ([0, 2], False),
        ([0, True], False),  # a bool is no vertex id, though it equals one
        (["a", "b"], False),
    ],
)
def test_vertices_are_nodes_only_where_each_node_is_its_id(nodes: list, identity: bool) -> None:
    G = nx.Graph()
    G.add_nodes_from(nodes)
    converted = backend_interface.convert_from_nx(G, None)
    assert converted.vertices_are_nodes is identity
    H = nx.Graph()
    H.add_nodes_from(nodes)
    for u, v in zip(nodes, nodes[1:]):
        H.add_edge(u, v)
    got = list(nx.connected_components(H, backend="hyblas"))
    assert got == list(nx.connected_components(H))
    assert all(
        type(n) is type(m)
        for c, d in zip(got, nx.connected_components(H))
        for n, m in zip(sorted(c, key=str), sorted(d, key=str))
    )


def _mostly_isolated(kind: type, keys: str, seed: int) -> nx.Graph:
    """Many isolated nodes, a few pairs and triples, and a few large components whose nodes
    are spread over the node order (as in a Kronecker graph): ``keys`` 'ids' (every node its
    vertex id), 'shuffled' (integers in another order) or 'mixed' (strings and tuples)."""
    rng = random.Random(seed)
    n = 400
    order = list(range(n))
    if keys != "ids":
        rng.shuffle(order)
    names = {
        "ids": order,
        "shuffled": order,
        "mixed": [f"v{k}" if k % 2 else (k, "x") for k in order],
    }[keys]
    G = kind()
    G.add_nodes_from(names)
    vertices = list(range(n))
    rng.shuffle(vertices)
    start = 0
    for size in (120, 60, 25, 3, 3, 2, 2, 2):  # the rest (183 nodes) stay isolated
        part = vertices[start : start + size]
        start += size
        for k, v in enumerate(part[1:], 1):  # a random tree, then a few more edges
            G.add_edge(names[v], names[part[rng.randrange(k)]])
        for _ in range(size // 4):
            G.add_edge(names[rng.choice(part)], names[rng.choice(part)])
    return G


@pytest.mark.parametrize("keys", ["ids", "shuffled", "mixed"])
def test_components_of_mostly_isolated_nodes_match_networkx(on_hyblas: str, keys: str) -> None:
    """The sets, and their order (by each component's first node in the graph's order), of a
    graph of mostly single-node components; the same with every node isolated, and with
    none."""
    for seed in range(3):
        G = _mostly_isolated(nx.Graph, keys, seed)
        D = _mostly_isolated(nx.DiGraph, keys, seed)
        alone = nx.Graph()
        alone.add_nodes_from(G)
        joined = G.copy()
        joined.remove_nodes_from([v for v in G if G.degree(v) == 0])
        for H in (G, alone, joined):
            ours = list(nx.connected_components(H, backend="hyblas"))
            theirs = list(nx.connected_components(H))
            assert [{(type(n), n) for n in c} for c in ours] == [
                {(type(n), n) for n in c} for c in theirs
            ]
            assert nx.number_connected_components(H, backend="hyblas") == len(ours)
        assert list(nx.weakly_connected_components(D, backend="hyblas")) == list(
            nx.weakly_connected_components(D)
        )
        assert nx.number_weakly_connected_components(D, backend="hyblas") == (
            nx.number_weakly_connected_components(D)
        )
