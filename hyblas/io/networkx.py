"""Conversion to and from networkx graphs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..containers.matrix import Matrix
from ..errors import DimensionMismatch, DomainMismatch, InvalidObject, InvalidValue

__all__ = ["from_networkx", "to_networkx"]


def from_networkx(
    G: Any,  # noqa: N803 - networkx spelling
    *,
    weight: str | None = "weight",
    dtype: Any = None,
    nodelist: Iterable[Any] | None = None,
    backend: str | None = None,
) -> Matrix:
    """The adjacency matrix of a networkx graph (rows = sources).

    Vertex ``k`` of the matrix is ``nodelist[k]`` (default ``list(G)``). An undirected graph
    gives a symmetric matrix; parallel edges of a multigraph are summed (as networkx does),
    exactly: integer weights in Python's integers, then checked against ``dtype``.

    Parameters
    ----------
    G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
    weight : str or None
        Edge attribute holding the value (missing: 1). None: every value is 1.
    dtype : dtype, optional
        Default float64. Integer weights go into an integer dtype exactly (never through a
        float: 2**53 + 1 stays itself, a uint64 takes 2**64 - 1).
    nodelist : iterable, optional
        The nodes, in matrix order; each node of ``G`` at most once. Nodes of ``G`` not listed
        are left out with their edges.
    backend : {'cpu', 'cuda'}, optional

    Returns
    -------
    Matrix
        ``len(nodelist) x len(nodelist)``.

    Raises
    ------
    InvalidObject
        If ``G`` is not a networkx graph, or ``nodelist`` not an iterable.
    InvalidValue
        If ``nodelist`` repeats a node or names one not in ``G`` (an unhashable item
        included), a weight is not a number, or ``dtype`` cannot hold a weight (not an
        integer of an integer ``dtype``, out of its range, overflowing a float one).
    DomainMismatch
        For a weight that is an int beyond 64 bits, or a ``dtype`` hyblas does not store.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1, {"weight": 2.0}), (1, 2, {"weight": 3.0})])
    >>> hb.io.from_networkx(G).to_coo()
    (array([0, 1]), array([1, 2]), array([2., 3.]))
    """
    import networkx as nx  # noqa: PLC0415 - networkx is an optional dependency

    if not isinstance(G, nx.Graph):
        raise InvalidObject(f"G must be a networkx graph, got {type(G).__name__}")
    index = _node_index(G, nodelist)
    target = _dt.lookup(dtype) if dtype is not None else np.dtype(np.float64)
    n = len(index)
    if n == 0:
        return Matrix.new(target, 0, 0, backend=backend)
    rows, cols, weights = _entries(G, index, weight)
    if G.is_multigraph():
        rows, cols, weights = _sum_parallel(rows, cols, weights)
    try:  # the values are checked against dtype (1.5 is no int64 weight), Python ints exactly
        return Matrix.from_coo(rows, cols, weights, nrows=n, ncols=n, dtype=target, backend=backend)
    except (InvalidValue, DomainMismatch) as exc:
        raise type(exc)(f"G's edge weights ({weight!r}) as {target.name}: {exc}") from exc


def _node_index(G: Any, nodelist: Iterable[Any] | None) -> dict[Any, int]:  # noqa: N803
    """Each node's row: ``nodelist`` (default: ``G``'s nodes) checked."""
    try:
        nodes = list(G) if nodelist is None else list(nodelist)
    except TypeError as exc:
        raise InvalidObject(
            f"nodelist must be an iterable of nodes, got {type(nodelist).__name__}"
        ) from exc
    index: dict[Any, int] = {}
    for k, node in enumerate(nodes):
        try:
            index[node] = k
        except TypeError:  # unhashable: no node of any graph
            raise InvalidValue(
                f"nodelist holds {_dt.short_repr(node)}, which is no node of G (nodes are hashable)"
            ) from None
    if len(index) != len(nodes):
        raise InvalidValue("nodelist holds a node more than once")
    missing = [v for v in nodes if v not in G]
    if missing:
        raise InvalidValue(f"nodelist names {len(missing)} node(s) not in G, e.g. {missing[0]!r}")
    return index


def _entries(
    G: Any,  # noqa: N803
    index: dict[Any, int],
    weight: str | None,
) -> tuple[list[int], list[int], list[Any]]:
    """(rows, cols, weights) of the edges between listed nodes, each edge of an undirected
    graph both ways (a self loop once); InvalidValue for a weight that is not a number."""
    edges = G.edges(data=weight, default=1) if weight is not None else G.edges(data=False)
    rows: list[int] = []
    cols: list[int] = []
    weights: list[Any] = []
    both_ways = not G.is_directed()
    for edge in edges:
        r, c = index.get(edge[0]), index.get(edge[1])
        if r is None or c is None:
            continue
        w = edge[2] if weight is not None else 1
        if not isinstance(w, _dt.REAL_SCALARS) and not _dt.is_real_scalar(w):
            raise InvalidValue(
                f"G's edge attribute {weight!r} is not a number on every edge: edge "
                f"({_dt.short_repr(edge[0])}, {_dt.short_repr(edge[1])}) holds "
                f"{_dt.short_repr(w)} (hyblas stores bool, int and float values)"
            )
        rows.append(r)
        cols.append(c)
        weights.append(w)
        if both_ways and r != c:
            rows.append(c)
            cols.append(r)
            weights.append(w)
    return rows, cols, weights


def _sum_parallel(
    rows: list[int], cols: list[int], weights: list[Any]
) -> tuple[list[int], list[int], list[Any]]:
    """One entry per cell, the weights of its parallel edges summed in Python (integers
    exactly, whatever their size: the sum is then checked against the dtype, not wrapped)."""
    summed: dict[tuple[int, int], Any] = {}
    for r, c, w in zip(rows, cols, weights):
        summed[r, c] = summed.get((r, c), 0) + w
    return [r for r, _ in summed], [c for _, c in summed], list(summed.values())


def to_networkx(
    A: Matrix,
    *,
    directed: bool = True,
    weight: str | None = "weight",  # noqa: N803
) -> Any:
    """A networkx graph with nodes ``0`` to ``n-1`` and an edge per stored entry of ``A``.

    Parameters
    ----------
    A : Matrix
        Square.
    directed : bool
        A DiGraph (default) or a Graph; for a Graph, ``A[i, j]`` and ``A[j, i]`` become one
        edge (the value of the later one in row-major order wins).
    weight : str or None
        Attribute that receives the value; None: no attribute.

    Returns
    -------
    networkx.DiGraph or networkx.Graph

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 1], [1, 2], [2.0, 3.0], nrows=3, ncols=3)
    >>> G = hb.io.to_networkx(A)
    >>> sorted(G.edges(data="weight"))
    [(0, 1, 2.0), (1, 2, 3.0)]
    """
    import networkx as nx  # noqa: PLC0415

    if not isinstance(A, Matrix):
        raise InvalidObject(f"A must be a Matrix, got {type(A).__name__}")
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"A must be square to be a graph, got {A.nrows}x{A.ncols}")
    G = nx.DiGraph() if directed else nx.Graph()  # noqa: N806
    G.add_nodes_from(range(A.nrows))
    rows, cols, values = A.to_coo()
    if weight is None:
        G.add_edges_from(zip(rows.tolist(), cols.tolist()))
    else:
        G.add_weighted_edges_from(zip(rows.tolist(), cols.tolist(), values.tolist()), weight=weight)
    return G
