"""CDLP and the local clustering coefficient against references written from the LDBC
Graphalytics specification's definitions (plain Python over edge sets) and networkx's
clustering, on random graphs, directed and undirected, on every executor."""

from __future__ import annotations

from collections import Counter

import networkx as nx
import numpy as np
import pytest

import hyblas as hb
from hyblas.algorithms import _blocks
from hyblas.errors import DimensionMismatch, InvalidObject, InvalidValue
from tests.support.checks import raises_unchanged

EXECUTORS = ("auto", "reference", "sparse", "dense", "pull")


def _random_edges(n: int, m: int, seed: int, loops: bool = False) -> set[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    edges = set(zip(rng.integers(0, n, m).tolist(), rng.integers(0, n, m).tolist(), strict=True))
    return edges if loops else {(u, v) for u, v in edges if u != v}


def _graph(edges: set[tuple[int, int]], n: int, directed: bool, backend: str) -> hb.Graph:
    rows, cols = zip(*sorted(edges), strict=True) if edges else ((), ())
    values = np.arange(len(rows), dtype=np.int32) % 3  # values are ignored: zeros included
    kind = "directed" if directed else "undirected"
    return hb.Graph.from_coo(list(rows), list(cols), values, n=n, kind=kind, backend=backend)


def _cdlp_reference(edges: set[tuple[int, int]], n: int, directed: bool, rounds: int) -> list:
    """The specification: each round every vertex takes the most frequent label among its
    neighbours (in- and out-, a vertex both counted twice), the smallest on a tie."""
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        neighbours[u].append(v)
        if directed or u != v:
            neighbours[v].append(u)
    if not directed:  # the undirected edge set lists each edge once; both ends see each other
        neighbours = [sorted(set(ns)) for ns in neighbours]
    labels = list(range(n))
    for _ in range(rounds):
        new = labels[:]
        for v in range(n):
            if neighbours[v]:
                counts = Counter(labels[u] for u in neighbours[v])
                best = max(counts.values())
                new[v] = min(label for label, c in counts.items() if c == best)
        labels = new
    return labels


def _lcc_reference(edges: set[tuple[int, int]], n: int) -> list[float]:
    """The specification (directed): N(v) = in ∪ out neighbours but v; the edges u -> w
    between two of them over |N(v)| (|N(v)| - 1)."""
    arcs = {(u, v) for u, v in edges if u != v}
    around: list[set[int]] = [set() for _ in range(n)]
    for u, v in arcs:
        around[u].add(v)
        around[v].add(u)
    result = []
    for v in range(n):
        d = len(around[v])
        links = sum((u, w) in arcs for u in around[v] for w in around[v] if u != w)
        result.append(links / (d * (d - 1)) if d >= 2 else 0.0)
    return result


@pytest.mark.parametrize("block", [None, 9], ids=["whole", "blocks"])
@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cdlp_matches_the_definition(
    backend: str,
    directed: bool,
    seed: int,
    executor: str,
    block: int | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rounds on the whole graph, or a block of rows of about 9 neighbour entries at a
    time (a vertex of more a block of its own)."""
    n = 40
    edges = _random_edges(n, 90, seed, loops=True)
    if not directed:
        edges = {(min(u, v), max(u, v)) for u, v in edges}
    G = _graph(edges, n, directed, backend)  # noqa: N806
    blocks = _count_blocks(monkeypatch, block)
    for rounds in (0, 1, 3, 10):
        got = hb.algorithms.cdlp(G, rounds, executor=executor).to_dense().tolist()
        assert got == _cdlp_reference(edges, n, directed, rounds), rounds
    _check_blocks(blocks, block, n, per_round=2 if directed else 1)


def _count_blocks(monkeypatch: pytest.MonkeyPatch, block: int | None) -> list[slice]:
    """With ``block``, the algorithms' row blocks set to about ``block`` entries, and the row
    ranges they extract recorded."""
    blocks: list[slice] = []
    if block is not None:
        monkeypatch.setattr(_blocks, "BLOCK_ENTRIES", block)
        extract = hb.ops.extract
        monkeypatch.setattr(
            hb.ops, "extract", lambda A, *i, **k: blocks.append(i[0]) or extract(A, *i, **k)
        )
    return blocks


def _check_blocks(blocks: list[slice], block: int | None, n: int, per_round: int = 1) -> None:
    """Each pass went over consecutive row ranges covering every row, in more than 3 blocks
    (each extracted ``per_round`` times: A's rows, and a directed graph's Aᵀ's)."""
    if block is None:
        assert not blocks
        return
    starts = [b.start for b in blocks[::per_round]]
    stops = [b.stop for b in blocks[::per_round]]
    passes = [i for i, start in enumerate(starts) if start == 0]
    assert passes and len(starts) // len(passes) > 3
    for first, end in zip(passes, [*passes[1:], len(starts)], strict=True):
        assert starts[first:end] == [0, *stops[first : end - 1]]
        assert stops[end - 1] == n


@pytest.mark.parametrize("block", [None, 7], ids=["whole", "blocks"])
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lcc_matches_the_definition_and_networkx(
    backend: str, directed: bool, seed: int, block: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The masked product whole, or a block of rows of about 7 entries at a time (rows of
    more than 7 a block of their own)."""
    n = 40
    edges = _random_edges(n, 160, seed, loops=True)
    if not directed:
        edges = {(min(u, v), max(u, v)) for u, v in edges}
    G = _graph(edges, n, directed, backend)  # noqa: N806
    blocks = _count_blocks(monkeypatch, block)
    got = hb.algorithms.local_clustering_coefficient(G).to_dense()
    _check_blocks(blocks, block, n)
    both_ways = edges | {(v, u) for u, v in edges} if not directed else edges
    np.testing.assert_allclose(got, _lcc_reference(both_ways, n), rtol=0, atol=1e-12)
    if not directed:
        reference = nx.Graph()
        reference.add_nodes_from(range(n))
        reference.add_edges_from(edges)
        clustering = nx.clustering(reference)  # ignores self loops, as the definition does
        np.testing.assert_allclose(got, [clustering[v] for v in range(n)], atol=1e-12)


def test_isolated_and_empty_graphs(backend: str) -> None:
    empty = hb.Graph(hb.Matrix.new(bool, 0, 0, backend=backend))
    assert hb.algorithms.cdlp(empty).size == 0
    assert hb.algorithms.local_clustering_coefficient(empty).size == 0
    lonely = hb.Graph(hb.Matrix.new(bool, 3, 3, backend=backend), "undirected")
    assert hb.algorithms.cdlp(lonely, 5).to_dense().tolist() == [0, 1, 2]
    assert hb.algorithms.local_clustering_coefficient(lonely).to_dense().tolist() == [0.0] * 3


def test_bad_input_is_named_and_changes_nothing(backend: str) -> None:
    A = hb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], nrows=2, ncols=2, backend=backend)  # noqa: N806
    wide = hb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=3, backend=backend)
    for bad in (-1, 1.5, "3", None, True):
        raises_unchanged(InvalidValue, "max_iter", lambda b=bad: hb.algorithms.cdlp(A, b), A)
    for algorithm in (hb.algorithms.cdlp, hb.algorithms.local_clustering_coefficient):
        raises_unchanged(
            InvalidObject, "must be a hyblas Matrix or Graph", lambda f=algorithm: f([[0, 1]])
        )
        raises_unchanged(DimensionMismatch, "square", lambda f=algorithm: f(wide), wide)
        raises_unchanged(InvalidValue, "executor", lambda f=algorithm: f(A, executor="nope"), A)
