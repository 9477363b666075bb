"""Conversion to and from networkx graphs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..containers.matrix import Matrix
from ..errors import DimensionMismatch, InvalidObject, InvalidValue

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
    gives a symmetric matrix; parallel edges of a multigraph are summed (as networkx does).

    Parameters
    ----------
    G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
    weight : str or None
        Edge attribute holding the value (missing: 1). None: every value is 1.
    dtype : dtype, optional
        Default float64.
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
        If ``G`` is not a networkx graph.
    InvalidValue
        If ``nodelist`` repeats a node or names one not in ``G``.
    """
    import networkx as nx  # noqa: PLC0415 - networkx is an optional dependency

    if not isinstance(G, nx.Graph):
        raise InvalidObject(f"G must be a networkx graph, got {type(G).__name__}")
    nodes = list(G) if nodelist is None else list(nodelist)
    if len(set(nodes)) != len(nodes):
        raise InvalidValue("nodelist holds a node more than once")
    missing = [v for v in nodes if v not in G]
    if missing:
        raise InvalidValue(f"nodelist names {len(missing)} node(s) not in G, e.g. {missing[0]!r}")
    target = _dt.lookup(dtype) if dtype is not None else np.dtype(np.float64)
    n = len(nodes)
    if n == 0:
        return Matrix.new(target, 0, 0, backend=backend)
    # CSR: networkx's COO may repeat cells (multigraph edges), which the conversion sums
    try:
        coo = nx.to_scipy_sparse_array(
            G, nodelist=nodes, weight=weight, dtype=np.float64, format="csr"
        ).tocoo()
    except (TypeError, ValueError) as exc:  # e.g. a weight attribute that is not a number
        raise InvalidValue(
            f"G's edge attribute {weight!r} is not a number on every edge: {exc}"
        ) from exc
    # the values are checked against dtype (1.5 is no int64 weight)
    return Matrix.from_coo(
        coo.row, coo.col, coo.data, nrows=n, ncols=n, dtype=target, backend=backend
    )


def to_networkx(
    A: Matrix,
    *,
    directed: bool = True,
    weight: str | None = "weight",  # noqa: N803
) -> Any:
    """A networkx graph with nodes ``0 .. n-1`` and an edge per stored entry of ``A``.

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
