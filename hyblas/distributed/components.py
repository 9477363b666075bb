"""Connected components on a partitioned graph: FastSV, as in
:func:`hyblas.algorithms.connected_components` (whose single-device version first runs a BFS)."""

from __future__ import annotations

import numpy as np

from .. import binary as _binary
from .. import ops
from .. import semiring as _semiring
from ..containers.vector import Vector
from .bfs import _square
from .matrix import DistMatrix
from .products import mxv, vxm
from .vector import DistVector

__all__ = ["connected_components"]


def connected_components(A: DistMatrix, *, executor: str = "auto") -> DistVector:  # noqa: N803
    """Component labels: the smallest vertex id in each vertex's (weakly) connected component.
    *Collective.*

    FastSV (Zhang, Azad & Hu 2020) over ``A ∪ Aᵀ``: stochastic hooking through the parent
    matrix ``P`` (``P[u, f[u]]``, rebuilt from the parents each round as a partitioned matrix:
    each process sends its piece's entries to their blocks' owners), aggressive hooking and
    shortcutting through partitioned ``mxv`` / ``vxm`` with ``min_second`` / ``min_first``;
    it stops when no grandparent changes.

    Parameters
    ----------
    A : DistMatrix
        Square; rows = sources; values ignored; a directed graph gives its weakly connected
        components.
    executor : str
        The local products' executor.

    Returns
    -------
    DistVector of int64
        One entry per vertex.

    Raises
    ------
    InvalidObject
        If ``A`` is not a DistMatrix.
    DimensionMismatch
        If ``A`` is not square.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 2, 3], [1, 3, 4], nrows=6)
    >>> hb.distributed.connected_components(A).gather().to_dense()
    array([0, 0, 2, 2, 2, 5])
    """
    n = _square(A, "connected_components")
    S = A.with_local(ops.ewise_add(A.local, A.transpose().local, _binary["first"]))  # noqa: N806
    start, stop = A.rows.piece(A.comm.rank)
    ids = Vector.from_dense(np.arange(start, stop, dtype=np.int64), backend=A.backend)
    f = DistVector(A.comm, A.rows, ids)
    if n == 0:
        return f
    min_second = _semiring["min_second"][np.int64]
    min_first = _semiring["min_first"][np.int64]
    minimum = _binary["min"]
    gp = f.dup()
    P = _parent_matrix(f)  # noqa: N806
    while True:
        mngp = mxv(S, gp, min_second, accum=minimum, out=gp.dup(), executor=executor)
        vxm(mngp, P, min_first, accum=minimum, out=f, executor=executor)  # stochastic hooking
        ops.apply(mngp.local, "identity", accum=minimum, out=f.local)  # aggressive hooking
        P = _parent_matrix(f)  # noqa: N806
        new_gp = mxv(P, f, min_second, executor=executor)
        if new_gp.isequal(gp):
            return f
        gp = new_gp


def _parent_matrix(f: DistVector) -> DistMatrix:
    """The bool matrix with one entry per vertex ``u``, at ``(u, f[u])``: built from the
    entries as they are (valid by construction: one per vertex, every parent a vertex), with
    no check of this process's share against the whole matrix."""
    vertices, parents = f.local.to_coo(device=True)
    present = f.local.xp.ones(vertices.size, dtype=bool)
    part = f.partition
    return DistMatrix._build(f.comm, part, part, vertices + f.start, parents, present, bool, None)
