"""Triangle counting by a masked product of the strict lower triangle with its transpose."""

from __future__ import annotations

import numpy as np

from .. import monoid as _monoid
from .. import ops
from .. import semiring as _semiring
from ..backend import names_oom
from ..containers.matrix import Matrix
from ..errors import InvalidValue
from ..graph import Graph, as_graph

__all__ = ["triangle_count"]


@names_oom("triangle_count")
def triangle_count(
    A: Graph | Matrix,  # noqa: N803 - math spelling
    *,
    executor: str = "auto",
) -> int:
    """The number of triangles of an undirected graph.

    With ``L`` the strict lower triangle of ``A``, ``C<L.S> = L plus.pair Lᵀ`` counts, for
    every edge ``(i, j)`` with ``j < i``, the common neighbours ``k < j`` of ``i`` and ``j``:
    each triangle ``k < j < i`` is counted once, at ``C[i, j]``. The answer is the sum of ``C``.

    Parameters
    ----------
    A : Graph or Matrix
        An undirected Graph, or a square, structurally symmetric adjacency matrix
        (``A[i, j]`` is stored exactly when ``A[j, i]`` is). Only the structure counts:
        values are ignored (a stored 0 is an edge) and so are self loops.
    executor : str
        Passed to :func:`hyblas.ops.mxm`.

    Returns
    -------
    int

    Raises
    ------
    InvalidObject
        If ``A`` is not a Matrix.
    DimensionMismatch
        If ``A`` is not square.
    InvalidValue
        If the structure of ``A`` is not symmetric (a directed graph).

    Examples
    --------
    >>> G = hb.Graph.from_coo([0, 0, 1, 1, 2], [1, 2, 2, 3, 3], kind="undirected")
    >>> hb.algorithms.triangle_count(G)  # 0-1-2 and 1-2-3
    2
    """
    graph = as_graph(A, "triangle_count")
    A = graph.A  # noqa: N806
    if graph.is_directed and not graph.is_symmetric_structure:
        mirrored = ops.ewise_mult(A, A.T, "pair").nnz
        raise InvalidValue(
            f"triangle_count: A must be structurally symmetric (an undirected "
            f"graph), but {A.nnz - mirrored} of its {A.nnz} entries A[i, j] have "
            "no A[j, i]; symmetrize it first, e.g. "
            "ops.ewise_add(A, ops.transpose(A), 'any')"
        )
    L = ops.select(A, "tril", -1)  # noqa: N806
    # L.T, cached on L, knows its own transpose is L: the masked dot products read the rows of
    # L for both operands, and nothing is transposed twice
    C = ops.mxm(
        L,
        L.T,
        _semiring["plus_pair"][np.int64],
        mask=L.S,  # noqa: N806
        executor=executor,
    )
    return int(ops.reduce_scalar(C, _monoid["plus"][np.int64]))
