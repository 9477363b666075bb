"""Core numbers by parallel peeling: rounds of one masked product each."""

from __future__ import annotations

import numpy as np

from .. import binary as _binary
from .. import ops
from .. import semiring as _semiring
from .. import unary as _unary
from ..backend import names_oom
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..graph import Graph, as_graph

__all__ = ["core_number"]


@names_oom("core_number")
def core_number(
    G: Graph | Matrix,  # noqa: N803 - math spelling
    *,
    executor: str = "auto",
) -> Vector:
    """The core number of every vertex: the largest ``k`` such that the vertex belongs to a
    subgraph in which every vertex has degree at least ``k``.

    Parallel peeling: with ``k`` the smallest degree among the vertices left, every vertex of
    degree at most ``k`` gets core number ``k`` and leaves at once; the degrees of the others
    drop by their edges to those that left, ``d<left> -= W plus.times removed``, and peeling
    at the same ``k`` goes on until no vertex of degree at most ``k`` is left; then ``k`` grows
    to the smallest degree left. A directed graph's degree is its in- plus out-degree
    (``W = A + Aᵀ`` counts an edge stored both ways twice), as networkx counts it.

    Parameters
    ----------
    G : Graph or Matrix
        A Matrix is taken as a directed graph. Values are ignored; so are self loops.
    executor : str
        Passed to :func:`hyblas.ops.mxv`.

    Returns
    -------
    Vector of int64
        An entry for every vertex (0 for an isolated one).

    Raises
    ------
    InvalidObject
        If ``G`` is neither a Graph nor a Matrix.
    DimensionMismatch
        If the matrix is not square.
    InvalidValue
        For an unknown executor.

    Examples
    --------
    >>> G = hb.Graph.from_coo([0, 0, 1, 2], [1, 2, 2, 3], kind="undirected")
    >>> hb.algorithms.core_number(G).to_dense()  # the triangle is a 2-core, 3 hangs off it
    array([2, 2, 2, 1])
    """
    graph = as_graph(G, "core_number")
    n, backend = graph.n, graph.backend
    one = _unary["one"][np.int64]
    W = ops.select(ops.apply(graph.A, one), "offdiag", 0)  # noqa: N806
    if graph.is_directed:
        W = ops.ewise_add(W, ops.transpose(W), "plus")  # noqa: N806
    left = Vector.from_dense(np.zeros(n, dtype=np.int64), backend=backend)
    degrees = ops.reduce_rows(W, "plus")
    ops.assign(left, degrees, None, mask=degrees.S)  # the degrees of the vertices not peeled
    core = Vector.new(np.int64, n, backend=backend)
    plus_times = _semiring["plus_times"][np.int64]
    k = 0
    while left.nnz:
        k = max(k, int(ops.reduce_scalar(left, "min")))
        while True:
            peeled = ops.select(left, "valuele", k)
            if not peeled.nnz:
                break
            ops.assign(core, k, None, mask=peeled.S)
            left = ops.apply(left, "identity", mask=~peeled.S)
            lost = ops.mxv(W, ops.apply(peeled, one), plus_times, mask=left.S, executor=executor)
            ops.apply(lost, "identity", accum=_binary["minus"], out=left)
    return core
