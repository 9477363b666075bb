"""Breadth-first search on a partitioned graph: one masked ``vxm`` per level."""

from __future__ import annotations

import numpy as np

from .. import ops
from .. import semiring as _semiring
from ..dtypes import short_repr
from ..errors import DimensionMismatch, IndexOutOfBounds, InvalidObject
from .matrix import DistMatrix
from .products import vxm
from .vector import DistVector

__all__ = ["bfs"]


def bfs(A: DistMatrix, source: int, *, executor: str = "auto") -> DistVector:  # noqa: N803
    """BFS levels from ``source``, as :func:`hyblas.algorithms.bfs`. *Collective.*

    Each level is ``frontier = frontier any.pair A`` masked by the unvisited vertices: the
    frontier's pieces travel along the grid rows as index lists while it is narrow and as
    bitmaps once it is wide, and the mask reaches each block, so that each block's product
    runs on whichever executor the local policy picks (push on the frontier's rows, or pull
    on the unvisited columns: direction-optimizing per block).

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
    mine = [source] if A.rows.owner(np.asarray([source]))[0] == comm.rank else []
    levels = DistVector.from_coo(comm, mine, [0] * len(mine), n, dtype=np.int64, grid=A.grid)
    frontier = DistVector.from_coo(comm, mine, [True] * len(mine), n, dtype=bool, grid=A.grid)
    any_pair = _semiring["any_pair"][np.bool_]
    depth = 0
    while frontier.nnz:
        depth += 1
        frontier = vxm(frontier, A, any_pair, mask=~levels.S, replace=True, executor=executor)
        ops.assign(levels.local, depth, None, mask=frontier.local.S)
    return levels


def _square(A: DistMatrix, name: str) -> int:  # noqa: N803
    if not isinstance(A, DistMatrix):
        raise InvalidObject(f"{name}: A must be a DistMatrix, got {short_repr(A)}")
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"{name}: A must be square, got {A.nrows}x{A.ncols}")
    return A.nrows
