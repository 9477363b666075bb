"""Breadth-first search on a partitioned graph: one masked local product and three
collectives per level (two for a symmetric matrix on a ``p x 1`` grid)."""

from __future__ import annotations

import numpy as np

from ..containers.vector import Vector
from ..dtypes import short_repr
from ..errors import DimensionMismatch, IndexOutOfBounds, InvalidObject
from .frontier import Frontier, FrontierExchange
from .matrix import DistMatrix
from .vector import DistVector

__all__ = ["bfs"]


def bfs(A: DistMatrix, source: int, *, executor: str = "auto") -> DistVector:  # noqa: N803
    """BFS levels from ``source``, as :func:`hyblas.algorithms.bfs`. *Collective.*

    Each level is ``frontier = frontier any.pair A`` masked by the unvisited vertices. Every
    process keeps the frontier and the visited set over all vertices, so a level costs three
    collectives and one host read (:class:`~hyblas.distributed.FrontierExchange`): the local
    product, the new frontier's flags reduce-scattered along the grid columns, and its pieces
    all-gathered as index lists while it is narrow and as bitmaps once it is wide. The local
    product sees the frontier over its row block and the unvisited vertices of its column
    block, so it runs on whichever executor the local policy picks (push on the frontier's
    rows, or pull on the unvisited columns: direction-optimizing per block). On a ``p x 1``
    grid the level of a matrix with ``A.symmetric`` (see
    :class:`~hyblas.distributed.DistMatrix`) is an ``mxv`` of the whole frontier masked by
    the process's own unvisited vertices: its result is the process's own piece, so nothing
    is reduced.

    Parameters
    ----------
    A : DistMatrix
        Square; rows = sources. Values are ignored.
    source : int
    executor : str
        The local products' executor.

    Returns
    -------
    DistVector of int64
        Levels (0 at the source); unreached vertices have no entry.

    Raises
    ------
    InvalidObject
        If ``A`` is not a DistMatrix or ``source`` not an int.
    DimensionMismatch
        If ``A`` is not square.
    IndexOutOfBounds
        If ``source`` is not a vertex.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 1, 1], [1, 2, 3], nrows=5)
    >>> hb.distributed.bfs(A, 0).gather().to_coo()
    (array([0, 1, 2, 3]), array([0, 1, 2, 2]))
    """
    n = _square(A, "bfs")
    if not isinstance(source, int | np.integer) or isinstance(source, bool | np.bool_):
        raise InvalidObject(f"bfs: source must be an int, got {short_repr(source)}")
    if not 0 <= source < n:
        raise IndexOutOfBounds(f"bfs: source {source} is not a vertex of a graph of {n}")
    comm = A.comm
    xp = comm.xp
    walk = FrontierExchange(A, executor)
    frontier = walk.start(int(source))
    visited = Frontier(frontier.flags.copy(), frontier.counts.copy())
    levels = xp.where(walk.own(frontier), 0, -1).astype(np.int64)
    depth = 0
    while frontier.nnz:
        depth += 1
        frontier = walk.level(frontier, visited)
        visited.flags |= frontier.flags
        visited.counts += frontier.counts
        xp.copyto(levels, depth, where=walk.own(frontier))
    reached = Vector.wrap_bitmap(
        levels, levels >= 0, backend=comm.backend, nnz=int(visited.counts[comm.rank])
    )
    return DistVector(comm, A.rows, reached)


def _square(A: DistMatrix, name: str) -> int:  # noqa: N803
    if not isinstance(A, DistMatrix):
        raise InvalidObject(f"{name}: A must be a DistMatrix, got {short_repr(A)}")
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"{name}: A must be square, got {A.nrows}x{A.ncols}")
    return A.nrows
