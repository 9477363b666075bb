"""Breadth-first search as a masked vector-matrix product per level."""

from __future__ import annotations

import numpy as np

from .. import binary as _binary
from .. import ops
from .. import semiring as _semiring
from ..backend import names_oom
from ..containers.matrix import Matrix
from ..containers.vector import Vector, one_entries, one_entry
from ..graph import Graph
from ..traversal import propagate
from ._checks import adjacency, flag, vertex

__all__ = ["bfs"]


@names_oom("bfs")
def bfs(
    A: Graph | Matrix,  # noqa: N803 - math spelling
    source: int,
    *,
    return_parents: bool = False,
    executor: str = "auto",
) -> Vector | tuple[Vector, Vector]:
    """Breadth-first search from ``source``.

    Each level is one product ``frontier<¬visited> = frontier ⊕.⊗ A``: ``any_pair`` for
    levels only, ``min_first`` over vertex ids when parents are wanted (the smallest id among
    the frontier vertices with an edge to ``v`` becomes ``v``'s parent). Levels only run as
    :func:`hyblas.ops.propagate` rounds, so on the GPU the narrow levels of a high-diameter
    graph run in the device loop (no host round trip per level); with parents, each level is
    a host round.

    Parameters
    ----------
    A : Graph or Matrix
        Square adjacency matrix, rows = sources (edge ``i -> j`` is ``A[i, j]``). Values are
        ignored: a stored 0 is an edge. A Matrix is taken as a directed graph.
    source : int
    return_parents : bool
        Also return the BFS tree.
    executor : str
        Passed to :func:`hyblas.ops.propagate` (levels only: ``'auto'``, ``'loop'`` or a
        ``vxm`` executor) or :func:`hyblas.ops.vxm` (with parents).

    Returns
    -------
    levels : Vector of int64
        ``levels[v]`` is the number of edges on a shortest path from ``source`` (0 for the
        source itself); unreachable vertices have no entry.
    parents : Vector of int64
        Only with ``return_parents``: the parent of each reached vertex in a BFS tree,
        ``parents[source] == source``.

    Raises
    ------
    InvalidObject
        If ``A`` is not a Matrix, ``source`` not an integer or ``return_parents`` not a bool.
    InvalidValue
        For an unknown executor.
    DimensionMismatch
        If ``A`` is not square.
    IndexOutOfBounds
        If ``source`` is not a vertex.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 1, 1], [1, 2, 3], [True, True, True], nrows=5, ncols=5)
    >>> levels = hb.algorithms.bfs(A, 0)
    >>> levels.to_coo()  # vertex 4 is not reached: no entry
    (array([0, 1, 2, 3]), array([0, 1, 2, 2]))
    >>> levels, parents = hb.algorithms.bfs(A, 0, return_parents=True)
    >>> parents.to_coo()
    (array([0, 1, 2, 3]), array([0, 0, 1, 1]))
    """
    A = adjacency(A, "bfs")  # noqa: N806
    n = A.nrows
    source = vertex(source, n, "bfs")
    backend = A.backend
    if flag(return_parents, "bfs", "return_parents"):
        return _bfs_with_parents(A, source, Vector.new(np.int64, n, backend=backend), executor)
    levels, frontier = one_entries(
        source, ((0, np.int64), (True, np.bool_)), size=n, backend=backend
    )
    propagate(levels, frontier, A, _semiring["any_pair"][np.bool_], levels=True, executor=executor)
    return levels


def _bfs_with_parents(
    A: Matrix,
    source: int,
    levels: Vector,  # noqa: N803
    executor: str,
) -> tuple[Vector, Vector]:
    n = A.nrows
    backend = A.backend
    ids = Vector.from_dense(np.arange(n, dtype=np.int64), backend=backend)
    parents = Vector.new(np.int64, n, backend=backend)
    frontier = one_entry(source, source, size=n, dtype=np.int64, backend=backend)
    min_first = _semiring["min_first"][np.int64]
    depth = 0
    while frontier.nnz:
        # frontier holds each new vertex's parent: record it, then let the vertex carry its id
        ops.assign(parents, frontier, None, mask=frontier.S)
        ops.assign(levels, depth, None, mask=frontier.S)
        frontier = ops.ewise_mult(ids, frontier, _binary["first"])
        depth += 1
        frontier = ops.vxm(frontier, A, min_first, mask=~levels.S, replace=True, executor=executor)
    return levels, parents
