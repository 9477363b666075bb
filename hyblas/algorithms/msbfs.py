"""Multi-source breadth-first search: one masked matrix-matrix product per level."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import binary as _binary
from .. import ops
from .. import semiring as _semiring
from .. import unary as _unary
from ..backend import names_oom
from ..containers.matrix import Matrix
from ..graph import Graph
from ._checks import adjacency, vertices
from .reporting import check_progress, progress_bar

__all__ = ["multi_source_bfs"]


@names_oom("multi_source_bfs")
def multi_source_bfs(
    A: Graph | Matrix,  # noqa: N803 - math spelling
    sources: Any,
    *,
    executor: str = "auto",
    progress: bool | None = None,
) -> Matrix:
    """Breadth-first searches from several sources at once.

    Row ``r`` of the frontier matrix ``F`` (``k x n``, ``k = len(sources)``) is the frontier of
    the search from ``sources[r]``; every level advances all searches with one product
    ``F<¬levels.S, replace> = F any_pair A`` (the simultaneous BFS of McLaughlin, Riedy and
    Bader, written as GraphBLAS), and a masked apply records the level of the new frontier.

    Parameters
    ----------
    A : Graph or Matrix
        Square adjacency matrix, rows = sources (edge ``i -> j`` is ``A[i, j]``). Values are
        ignored: a stored 0 is an edge. A Matrix is taken as a directed graph.
    sources : sequence or 1-D array of int
        The start vertices; repeats are allowed (their rows repeat), and an empty sequence
        gives an empty ``0 x n`` result.
    executor : str
        Passed to :func:`hyblas.ops.mxm`.
    progress : bool, optional
        Show a tqdm progress bar, one step per BFS level, with the number of (search, vertex)
        pairs in the frontier (the depth is not known in advance). None (default): only in a
        Jupyter kernel, once a call has run for a couple of seconds, and only if tqdm is
        installed.

    Returns
    -------
    Matrix of int64
        ``len(sources) x n``: entry ``(r, v)`` is the number of edges on a shortest path from
        ``sources[r]`` to ``v`` (0 for the source itself); unreachable vertices have no entry.
        Row ``r`` equals ``bfs(A, sources[r])``.

    Raises
    ------
    InvalidObject
        If ``A`` is not a Matrix, or ``sources`` is not a one-dimensional sequence of integers.
    DimensionMismatch
        If ``A`` is not square.
    IndexOutOfBounds
        If a source is not a vertex.
    InvalidValue
        If ``progress`` is not a bool or None.
    MissingDependency
        If ``progress=True`` and tqdm is not installed.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 1, 2], [1, 2, 3], [True, True, True], nrows=4, ncols=4)
    >>> L = hb.algorithms.multi_source_bfs(A, [0, 2])  # one row of levels per source
    >>> L.to_dense(fill_value=-1)
    array([[ 0,  1,  2,  3],
           [-1, -1,  0,  1]])
    """
    A = adjacency(A, "multi_source_bfs")  # noqa: N806
    n = A.nrows
    starts = vertices(sources, n, "multi_source_bfs")
    k = starts.size
    check_progress(progress, "multi_source_bfs")
    if k == 0:
        return Matrix.new(np.int64, k, n, backend=A.backend)
    # levels in int32 while they grow (each level's write rebuilds the matrix: half the bytes
    # of its values to copy and to hold twice), int64 once at the end
    level_type = np.dtype(np.int32 if n <= np.iinfo(np.int32).max else np.int64)
    levels = Matrix.new(level_type, k, n, backend=A.backend)
    frontier = Matrix.from_coo(
        np.arange(k), starts, True, nrows=k, ncols=n, dtype=bool, backend=A.backend
    )
    any_pair = _semiring["any_pair"][np.bool_]
    depth = 0
    with progress_bar(progress, total=None, desc="multi_source_bfs", unit="level") as bar:
        while frontier.nnz:
            # levels<frontier.S> = depth: only the new frontier's entries are written
            ops.apply(
                frontier, _binary["second"][level_type], right=depth, mask=frontier.S, out=levels
            )
            bar.set_postfix(frontier=frontier.nnz, refresh=False)
            depth += 1
            frontier = ops.mxm(
                frontier, A, any_pair, mask=~levels.S, replace=True, executor=executor
            )
            bar.update()
    if level_type == np.int64:
        return levels
    return ops.apply(levels, _unary["identity"][np.int64])
