"""Graphs for algorithm tests: hypothesis-drawn networkx graphs with their hyblas matrices."""

from __future__ import annotations

from typing import Any

import networkx as nx
from hypothesis import strategies as st

import hyblas as hb


def edge_pairs(n: int, most: int) -> st.SearchStrategy[list[tuple[int, int]]]:
    """Up to ``most`` distinct (source, target) pairs among ``n >= 1`` vertices."""
    return st.lists(
        st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=most, unique=True
    )


@st.composite
def graphs(
    draw: Any,
    max_n: int = 12,
    *,
    directed: bool | None = None,
    weights: tuple[float, ...] = (0.0, 0.5, 1.0, 2.0, 3.0),
    self_loops: bool = True,
    backend: str = "cpu",
) -> tuple[nx.Graph, hb.Matrix]:
    """A small networkx graph and its hyblas matrix (rows = sources).

    Directed or not (``directed=None`` draws it), with self loops (unless ``self_loops`` is
    False), isolated vertices, 0 or 1 vertex, disconnected parts, and edge weights drawn from
    ``weights``.
    """
    n = draw(st.integers(0, max_n))
    if directed is None:
        directed = draw(st.booleans())
    G = nx.DiGraph() if directed else nx.Graph()  # noqa: N806
    G.add_nodes_from(range(n))
    if n:
        pairs = draw(edge_pairs(n, 3 * n))
        if not self_loops:
            pairs = [(u, v) for u, v in pairs if u != v]
        drawn = draw(st.lists(st.sampled_from(weights), min_size=len(pairs), max_size=len(pairs)))
        G.add_weighted_edges_from((u, v, w) for (u, v), w in zip(pairs, drawn))
    return G, hb.io.from_networkx(G, nodelist=range(n), backend=backend)


def as_dict(v: hb.Vector) -> dict[int, Any]:
    """A Vector's entries as ``{index: value}`` (any backend)."""
    idx, vals = v.to_coo()
    return dict(zip(idx.tolist(), vals.tolist()))


def check_bfs_tree(A: hb.Matrix, source: int, levels: hb.Vector, parents: hb.Vector) -> None:  # noqa: N803
    """The Graph500 validation of a BFS tree (any backend).

    1. parents and levels cover the same vertices; the source is its own parent at level 0;
    2. every tree edge (parent -> v) is an edge of ``A`` and spans exactly one level;
    3. every edge from a reached vertex reaches a vertex at most one level further;
    4. every vertex reached by an edge from a reached vertex is reached.
    """
    lv, pa = as_dict(levels), as_dict(parents)
    assert set(pa) == set(lv), "parents and levels cover the same vertices"
    assert pa[source] == source and lv[source] == 0
    rows, cols, _ = A.to_coo()
    edges = set(zip(rows.tolist(), cols.tolist()))
    for v, p in pa.items():
        if v == source:
            continue
        assert lv[p] == lv[v] - 1, f"parent {p} of {v} is not one level up"
        assert (p, v) in edges, f"({p}, {v}) is not an edge"
    for u, w in edges:
        if u in lv:
            assert w in lv, f"edge ({u}, {w}) leaves the tree"
            assert lv[w] <= lv[u] + 1, f"edge ({u}, {w}) skips a level"
