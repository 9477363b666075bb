"""The graph object of the hyblas backend: a NetworkX graph's structure and edge attributes as
arrays, its node keys, and the hyblas Graphs built from them on demand."""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterable, Iterator
from typing import Any

import networkx as nx
import numpy as np

import hyblas as hb

# how parallel edges of a multigraph combine, per what the algorithm reads (as networkx does:
# the shortest of them for path lengths, their sum for PageRank, any for the structure)
COMBINE = {"min": hb.binary.min, "sum": hb.binary.plus, "any": hb.binary.any}


class HyblasGraph:
    """A NetworkX graph converted for hyblas.

    ``nodes[k]`` is the node of vertex ``k`` (NetworkX's node order); the adjacency entries are
    ``(rows, cols)``, every one NetworkX stores (an undirected edge both ways, a multigraph's
    parallel edges each), with one value array per converted edge attribute. The hyblas
    :class:`hyblas.Graph` of an attribute, a way of combining parallel edges and a dtype is
    built on first use and kept.

    A conversion that preserves every edge attribute (what NetworkX asks for a function that
    returns part of the graph, such as ``k_core``) keeps the NetworkX graph it read as
    ``source``: such a function returns the part of ``source`` NetworkX would, with every
    attribute, and an attribute another function reads from it later (NetworkX's cache
    hands such a conversion to any call) is converted from ``source`` on first use. NetworkX
    drops its cached conversions when the graph's methods change it; a conversion held by hand
    is valid only while ``source`` keeps the edges it had.
    """

    __networkx_backend__ = "hyblas"

    def __init__(
        self,
        nodes: list[Hashable],
        rows: np.ndarray,
        cols: np.ndarray,
        values: dict[str, np.ndarray],
        *,
        directed: bool,
        multigraph: bool,
        backend: str,
        dtype: np.dtype,
        graph_attrs: dict | None = None,
        node_attrs: dict | None = None,
        source: nx.Graph | None = None,
    ) -> None:
        self.nodes = nodes
        self.index = {node: k for k, node in enumerate(nodes)}
        self.rows, self.cols, self.values = rows, cols, values
        self.directed, self.multigraph = directed, multigraph
        self.backend, self.dtype = backend, np.dtype(dtype)
        self.graph = graph_attrs if graph_attrs is not None else {}
        self.node_attrs = node_attrs
        self.source = source
        self.__networkx_cache__: dict = {}
        self._graphs: dict[tuple, hb.Graph] = {}

    @functools.cached_property
    def vertices_are_nodes(self) -> bool:
        """Whether every node is the Python int of its vertex id (``nodes[k] == k``): then ids
        map to nodes with no lookup."""
        return all(type(node) is int and node == k for k, node in enumerate(self.nodes))

    # --- what networkx asks of a backend graph ------------------------------------------------

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, node: Any) -> bool:
        try:
            return node in self.index
        except TypeError:  # unhashable: no node
            return False

    def __iter__(self) -> Iterable[Hashable]:
        return iter(self.nodes)

    def nbunch_iter(self, nbunch: Any = None) -> Iterator[Hashable]:
        """The nodes of ``nbunch`` (None: every node; a node; or an iterable of nodes, those
        not in the graph skipped) by ``nx.Graph.nbunch_iter`` itself: its rules and errors, as
        the installed NetworkX words them."""
        return nx.Graph.nbunch_iter(_NodeKeys(self), nbunch)

    # --- hyblas views ------------------------------------------------------------------------

    def hb_graph(
        self, attr: str | None = None, combine: str = "any", dtype: Any = None
    ) -> hb.Graph:
        """The hyblas Graph whose values are edge attribute ``attr`` (None: every edge 1, or
        True when ``combine`` is 'any': the structure), parallel edges combined by ``combine``
        ('min', 'sum', 'any')."""
        dt = self.dtype if dtype is None else np.dtype(dtype)
        structure = attr is None and combine == "any"
        key = (attr, combine if self.multigraph else "any", None if structure else dt.str)
        if key not in self._graphs:
            n = len(self.nodes)
            if structure:
                values: Any = True
                dt_used: Any = bool
            elif attr is None:
                values, dt_used = 1, dt
            else:
                values, dt_used = self.edge_values(attr).astype(dt, copy=False), dt
            A = hb.Matrix.from_coo(
                self.rows,
                self.cols,
                values,
                nrows=n,
                ncols=n,
                dtype=dt_used,
                dup_op=COMBINE[key[1]] if self.multigraph else None,
                backend=self.backend,
            )
            # an undirected graph's adjacency holds each edge both ways: no check needed
            kind = "directed" if self.directed else "undirected"
            self._graphs[key] = hb.Graph(A, kind, check=False)
        return self._graphs[key]

    def edge_values(self, attr: str) -> np.ndarray:
        """The values of edge attribute ``attr``, one per adjacency entry: as converted, or
        (a conversion that kept its ``source``) read from the source on first use, 1 for an
        edge without it (NetworkX's default for a weight a call names)."""
        if attr not in self.values:
            if self.source is None:
                raise KeyError(f"edge attribute {attr!r} was not converted")
            data = _edge_data(self.source._adj, self.multigraph, attr, 1)
            self.values[attr] = _numbers(data, self.rows.size, attr)
        return self.values[attr]

    def vertex(self, node: Any) -> int | None:
        """The vertex of ``node``, or None if it is not a node."""
        try:
            return self.index.get(node)
        except TypeError:
            return None

    def to_networkx(self) -> nx.Graph:
        """The NetworkX graph of this structure and its converted attributes (a conversion
        that kept its source: a copy of the source, every attribute with it)."""
        if self.source is not None:
            return self.source.copy()
        kind = {
            (False, False): nx.Graph,
            (True, False): nx.DiGraph,
            (False, True): nx.MultiGraph,
            (True, True): nx.MultiDiGraph,
        }[(self.directed, self.multigraph)]
        G = kind()
        G.graph.update(self.graph)
        if self.node_attrs:
            G.add_nodes_from((n, dict(self.node_attrs.get(n, {}))) for n in self.nodes)
        else:
            G.add_nodes_from(self.nodes)
        names = list(self.values)
        columns = [self.values[name].tolist() for name in names]
        for k, (u, v) in enumerate(zip(self.rows.tolist(), self.cols.tolist(), strict=True)):
            if not self.directed and u > v:
                continue  # an undirected edge is stored both ways; a self loop once
            G.add_edge(
                self.nodes[u],
                self.nodes[v],
                **{a: c[k] for a, c in zip(names, columns, strict=True)},
            )
        return G


# what a subclass may change about which nodes are neighbours: one that redefines any of these
# (networkx's own _AntiGraph answers with the complement) is not read through G._adj
_ADJACENCY_VIEWS = (
    "__getitem__",
    "adj",
    "adjacency",
    "neighbors",
    "succ",
    "pred",
    "successors",
    "predecessors",
    "degree",
    "in_degree",
    "out_degree",
    "edges",
)
_STANDARD = (nx.MultiDiGraph, nx.MultiGraph, nx.DiGraph, nx.Graph)


class _NodeKeys:
    """What ``nx.Graph.nbunch_iter`` reads of a graph: its nodes in order (``_adj``, here the
    node -> vertex index) and membership (the graph's own)."""

    def __init__(self, graph: HyblasGraph) -> None:
        self._adj, self._graph = graph.index, graph

    def __contains__(self, node: Any) -> bool:
        return node in self._graph


def _adjacency_is_standard(G: nx.Graph) -> bool:
    """Whether ``G``'s neighbours are those its ``_adj`` dict holds: one of NetworkX's four
    graph classes, or a subclass that keeps their adjacency views."""
    kind = type(G)
    base = next(c for c in _STANDARD if isinstance(G, c))
    return kind is base or all(
        getattr(kind, name, None) is getattr(base, name, None) for name in _ADJACENCY_VIEWS
    )


def from_networkx(
    G: nx.Graph,
    edge_attrs: dict[str, Any] | None,
    *,
    backend: str,
    dtype: np.dtype,
    preserve_graph_attrs: bool = False,
    preserve_node_attrs: bool = False,
    keep_source: bool = False,
) -> HyblasGraph:
    """Convert ``G``: every adjacency entry NetworkX stores, the attributes ``edge_attrs``
    names (each with its default for an edge without it); ``keep_source``: keep ``G`` itself
    (a conversion that preserves every attribute). NotImplementedError (networkx then runs
    the function itself) for a graph class that redefines its neighbours."""
    if not _adjacency_is_standard(G):
        raise NotImplementedError(
            f"{type(G).__name__} redefines its adjacency: networkx reads it its own way"
        )
    nodes = list(G)
    index = {node: k for k, node in enumerate(nodes)}
    adj = G._adj  # the dict of dicts every conversion to arrays reads
    multigraph = G.is_multigraph()
    if multigraph:
        per_node = [sum(len(keys) for keys in nbrs.values()) for nbrs in adj.values()]
        targets = (index[v] for nbrs in adj.values() for v, keys in nbrs.items() for _ in keys)
    else:
        per_node = [len(nbrs) for nbrs in adj.values()]
        targets = (index[v] for nbrs in adj.values() for v in nbrs)
    count = int(sum(per_node))
    rows = np.repeat(np.arange(len(nodes), dtype=np.int64), per_node)
    cols = np.fromiter(targets, dtype=np.int64, count=count)
    values = {
        attr: _numbers(_edge_data(adj, multigraph, attr, default), count, attr)
        for attr, default in (edge_attrs or {}).items()
    }
    return HyblasGraph(
        nodes,
        rows,
        cols,
        values,
        directed=G.is_directed(),
        multigraph=multigraph,
        backend=backend,
        dtype=dtype,
        graph_attrs=dict(G.graph) if preserve_graph_attrs else None,
        node_attrs={n: dict(d) for n, d in G._node.items()} if preserve_node_attrs else None,
        source=G if keep_source else None,
    )


def _edge_data(adj: dict, multigraph: bool, attr: str, default: Any) -> Iterable[Any]:
    """Edge attribute ``attr`` of every adjacency entry of ``adj`` (``default`` where an edge
    has none), in the order of the conversion's entries."""
    if multigraph:
        return (
            d.get(attr, default)
            for nbrs in adj.values()
            for keys in nbrs.values()
            for d in keys.values()
        )
    return (d.get(attr, default) for nbrs in adj.values() for d in nbrs.values())


def _numbers(data: Iterable[Any], count: int, attr: str) -> np.ndarray:
    """The attribute values as float64; NotImplementedError (networkx then runs the function
    itself) for values that are not real numbers."""
    try:
        return np.fromiter(data, dtype=np.float64, count=count)
    except (TypeError, ValueError) as exc:
        raise NotImplementedError(
            f"edge attribute {attr!r} holds values hyblas cannot convert to numbers"
        ) from exc
