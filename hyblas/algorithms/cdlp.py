"""Community detection by label propagation (CDLP), as the LDBC Graphalytics benchmark
defines it, written with hyblas.ops only."""

from __future__ import annotations

import numpy as np

from .. import binary as _binary
from .. import ops
from .. import semiring as _semiring
from ..backend import names_oom
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..graph import Graph, as_graph
from . import _blocks
from ._blocks import row_blocks
from ._checks import count

#: ``accum`` that writes a block's new labels over the old ones (``second(old, new)``).
_keep_new = _binary["second"][np.int64]

__all__ = ["cdlp"]


@names_oom("cdlp")
def cdlp(
    G: Graph | Matrix,  # noqa: N803 - math spelling
    max_iter: int = 10,
    *,
    executor: str = "auto",
) -> Vector:
    """Community labels by synchronous label propagation (LDBC Graphalytics CDLP).

    Every vertex starts with its own id as label. In each of ``max_iter`` rounds every vertex
    takes, all at once, the label most frequent among its neighbours, the smallest such label
    on a tie; a vertex without neighbours keeps its label. The neighbours of a directed graph's
    vertex are its in- and out-neighbours, and a vertex that is both counts twice.

    Every step is an operation of :mod:`hyblas.ops`; no device primitive is needed. With the
    labels as a matrix ``L`` (``L[u, label[u]]`` stored, one entry per row):

    1. ``C = A plus.pair L`` counts, for every vertex ``v`` and label ``l``, the neighbours
       of ``v`` labelled ``l`` (a directed graph adds ``Aᵀ plus.pair L``);
    2. ``m = max`` of each row of ``C`` (:func:`~hyblas.ops.reduce_rows`);
    3. ``T = select(C == diag(m) any.first C, True)`` keeps the entries that reach their
       row's maximum (the row's maximum spread over the row's entries by a product with the
       diagonal matrix of ``m``);
    4. ``label<T's rows> = T min.second ids``: the smallest tied label.

    On a graph of more than ``hyblas.algorithms._blocks.BLOCK_ENTRIES`` (2**26) neighbour
    entries the steps run a block of rows (vertices) at a time, ``A[start:stop, :]`` against
    the whole ``L`` (:func:`~hyblas.ops.extract` of a row range), each block's new labels
    written into a copy of the round's labels: ``C`` and the matrices made from it (an
    entry per edge at most) are never held for the whole graph.

    Parameters
    ----------
    G : Graph or Matrix
        A Matrix is taken as a directed graph. Values are ignored (a stored 0 is an edge); a
        self loop makes a vertex its own neighbour.
    max_iter : int
        The number of rounds (>= 0): all of them run (the specification's fixed count; a
        round that changes nothing changes nothing after it either, so the labels are those
        of a run that stops there).
    executor : str
        Passed to the product that picks the smallest tied label (:func:`hyblas.ops.mxv`);
        the matrix products run on the reference executor, the only one with ``mxm`` so far.

    Returns
    -------
    Vector of int64
        A label for every vertex.

    Raises
    ------
    InvalidObject
        If ``G`` is neither a Graph nor a Matrix.
    DimensionMismatch
        If the matrix is not square.
    InvalidValue
        If ``max_iter`` is not an integer >= 0; for an unknown executor.

    Examples
    --------
    >>> G = hb.Graph.from_coo([0, 0, 1, 3, 3, 4], [1, 2, 2, 4, 5, 5], kind="undirected")
    >>> hb.algorithms.cdlp(G).to_dense()  # two triangles, two communities
    array([0, 0, 0, 3, 3, 3])
    """
    graph = as_graph(G, "cdlp")
    rounds = count(max_iter, "cdlp", "max_iter", 0)
    n, backend = graph.n, graph.backend
    ids = Vector.from_dense(np.arange(n, dtype=np.int64), backend=backend)
    labels = ids.dup()
    neighbours = graph.out_degree
    if graph.is_directed:
        neighbours = ops.ewise_add(neighbours, graph.in_degree, "plus")
    blocks = row_blocks(neighbours, _blocks.BLOCK_ENTRIES)
    for _ in range(rounds):
        L = _label_matrix(labels)  # noqa: N806
        if len(blocks) <= 1:
            smallest = _smallest_tied(graph, L, ids, None, executor)
            ops.assign(labels, smallest, None, mask=smallest.S)
        else:  # every block reads this round's labels (L); the new ones go into a copy
            relabelled = labels.dup()
            for start, stop in blocks:
                smallest = _smallest_tied(graph, L, ids, slice(start, stop), executor)
                ops.assign(relabelled, smallest, slice(start, stop), accum=_keep_new)
            labels = relabelled
        # this round's matrices (each of up to one entry per edge) freed before the next's
        del L, smallest
    return labels


def _smallest_tied(
    graph: Graph,
    L: Matrix,  # noqa: N803
    ids: Vector,
    rows: slice | None,
    executor: str,
) -> Vector:
    """For the vertices of ``rows`` (None: all), the smallest of the labels most frequent
    among their neighbours (absent for a vertex without any): steps 1-4 above on the rows'
    block of the adjacency."""
    plus_pair = _semiring["plus_pair"][np.int64]
    A = graph.A if rows is None else ops.extract(graph.A, rows, None)  # noqa: N806
    counts = ops.mxm(A, L, plus_pair)
    if graph.is_directed:
        AT = graph.AT if rows is None else ops.extract(graph.AT, rows, None)  # noqa: N806
        counts = ops.ewise_add(counts, ops.mxm(AT, L, plus_pair), "plus")
    del A
    most = ops.reduce_rows(counts, "max")
    spread = ops.mxm(_diagonal(most), counts, _semiring["any_first"][np.int64])
    tied = ops.select(ops.ewise_mult(counts, spread, "eq"), "valueeq", True)
    del most, spread, counts
    return ops.mxv(tied, ids, _semiring["min_second"][np.int64], executor=executor)


def _label_matrix(labels: Vector) -> Matrix:
    """The ``n x n`` bool matrix with one entry per vertex ``u``, at ``(u, labels[u])``."""
    vertices, values = labels.to_coo(device=True)
    n = labels.size
    return Matrix.from_coo(
        vertices, values, True, nrows=n, ncols=n, dtype=bool, backend=labels.backend
    )


def _diagonal(v: Vector) -> Matrix:
    """The square matrix with ``v`` on its diagonal (absent entries stay absent)."""
    idx, values = v.to_coo(device=True)
    return Matrix.from_coo(idx, idx, values, nrows=v.size, ncols=v.size, backend=v.backend)
