"""The local clustering coefficient (LCC), as the LDBC Graphalytics benchmark defines it,
written as a masked product (the formulation of triangle counting)."""

from __future__ import annotations

import numpy as np

from .. import monoid as _monoid
from .. import ops
from .. import semiring as _semiring
from .. import unary as _unary
from ..backend import names_oom
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..graph import Graph, as_graph
from . import _blocks
from ._blocks import row_blocks

__all__ = ["local_clustering_coefficient"]


@names_oom("local_clustering_coefficient")
def local_clustering_coefficient(
    G: Graph | Matrix,  # noqa: N803 - math spelling
    *,
    executor: str = "auto",
) -> Vector:
    """For every vertex, the edges among its neighbours over the number possible.

    The neighbourhood ``N(v)`` of a vertex is every other vertex joined to it by an edge in
    either direction (a directed graph's in- and out-neighbours, once each). The coefficient is
    ``t(v) / (d(v) (d(v) - 1))`` with ``d(v) = |N(v)|`` and ``t(v)`` the number of edges
    ``u -> w`` of the graph between two neighbours ``u != w``: for a directed graph ordered
    pairs, as LDBC Graphalytics defines it; for an undirected graph each edge is stored both
    ways, so this is the usual ``edges / (d (d - 1) / 2)``. A vertex with ``d(v) < 2`` has 0.

    With ``S`` the structure of ``A ∪ Aᵀ`` without self loops and ``B`` that of ``A`` without
    self loops, ``C<S> = S plus.pair Bᵀ`` holds at ``(v, u)`` the neighbours ``w`` of ``v``
    with an edge ``u -> w``; its row sums are ``t``. Self loops and values are ignored.

    Parameters
    ----------
    G : Graph or Matrix
        A Matrix is taken as a directed graph.
    executor : str
        Passed to the masked product (:func:`hyblas.ops.mxm`: only the reference executor
        runs it so far; another one named falls back to it, with a warning).

    Returns
    -------
    Vector of float64
        An entry for every vertex.

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
    >>> hb.algorithms.local_clustering_coefficient(G).to_dense()
    array([1.        , 1.        , 0.33333333, 0.        ])
    """
    graph = as_graph(G, "local_clustering_coefficient")
    n, backend = graph.n, graph.backend
    S = ops.select(graph.undirected_structure, "offdiag", 0)  # noqa: N806
    if graph.is_directed:
        B = ops.select(ops.apply(graph.A, _unary["one"][np.bool_]), "offdiag", 0)  # noqa: N806
        Bt = ops.transpose(B)  # noqa: N806
    else:
        Bt = S  # noqa: N806 - symmetric: its own transpose
    # S holds True only: its row sums in float64 count its entries (no float64 copy of S)
    degree = ops.reduce_rows(S, _monoid["plus"][np.float64])
    links = _links(S, Bt, degree, executor)
    possible = ops.ewise_mult(degree, ops.apply(degree, "minus", right=1.0), "times")
    coefficient = ops.ewise_mult(ops.apply(links, _unary["identity"][np.float64]), possible, "div")
    result = Vector.from_dense(np.zeros(n, dtype=np.float64), backend=backend)
    ops.assign(result, coefficient, None, mask=coefficient.S)
    return result


def _links(S: Matrix, Bt: Matrix, degree: Vector, executor: str) -> Vector:  # noqa: N803
    """``t``: the row sums of ``C<S> = S plus.pair Bᵀ``, for blocks of ``S``'s rows of about
    ``_blocks.BLOCK_ENTRIES`` entries (:func:`row_blocks`), each block
    ``S[start:stop, :]`` multiplied, summed and written into ``t[start:stop]``: the product's
    result (a count per entry of ``S``) is never held whole."""
    plus_pair = _semiring["plus_pair"][np.int64]
    blocks = row_blocks(degree, _blocks.BLOCK_ENTRIES)
    if len(blocks) <= 1:
        return ops.reduce_rows(ops.mxm(S, Bt, plus_pair, mask=S.S, executor=executor), "plus")
    links = Vector.new(np.int64, S.nrows, backend=S.backend)
    for start, stop in blocks:
        block = ops.extract(S, slice(start, stop), None)
        counts = ops.mxm(block, Bt, plus_pair, mask=block.S, executor=executor)
        ops.assign(links, ops.reduce_rows(counts, "plus"), slice(start, stop))
        del block, counts
    return links
