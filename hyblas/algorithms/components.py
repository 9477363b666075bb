"""Connected components by FastSV: min-label hooking and shortcutting over ``min_second``."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..matrix import Matrix
from ..semiring.catalogue import NAMESPACES
from ..vector import Vector
from ._checks import square_matrix

__all__ = ["connected_components"]

_semiring = NAMESPACES["semiring"]
_unary = NAMESPACES["unary"]
_binary = NAMESPACES["binary"]


def connected_components(
    A: Matrix,  # noqa: N803 - math spelling
    *,
    executor: str = "auto",
) -> Vector:
    """Component labels: ``labels[v]`` is the smallest vertex id in the component of ``v``.

    FastSV (Zhang, Azad & Hu, "FastSV: a distributed-memory connected component algorithm
    with fast convergence", 2020). Every vertex keeps a parent ``f`` (initially itself) and
    its grandparent ``gp = f[f]``; each round, with ``mngp[u]`` the smallest grandparent among
    ``u`` and its neighbours,

    1. stochastic hooking: ``f[f[u]] = min(f[f[u]], mngp[u])`` (a parent adopts the smallest
       value offered by its children);
    2. aggressive hooking and shortcutting: ``f[u] = min(f[u], mngp[u])`` (``mngp[u] <= gp[u]``);
    3. ``gp = f[f]``; stop when ``gp`` no longer changes.

    Parents only decrease and stay inside the component, so the trees collapse into stars
    rooted at each component's smallest vertex. Pointer jumping (reading grandparents) makes
    the number of rounds grow with the logarithm of the diameter, not with the diameter as in
    plain label propagation.

    The parent pointers are applied as a Matrix ``P`` with ``P[u, f[u]]`` stored: ``f[f]`` is
    ``P min.second f`` and the stochastic hooking is ``mngp min.first P``. ``P`` is rebuilt
    from ``f`` each round through :meth:`Vector.to_coo` / :meth:`Matrix.from_coo` (a host
    round trip of ``n`` ids on the 'cuda' backend: hyblas.ops has no gather / scatter by
    index values yet).

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix, rows = sources. Values are ignored (a stored 0 is an edge).
        A directed graph is taken as undirected: the result is its weakly connected
        components.
    executor : str
        Passed to :func:`hyblas.ops.mxv` / :func:`hyblas.ops.vxm`.

    Returns
    -------
    Vector of int64
        One entry for every vertex (isolated vertices label themselves).

    Raises
    ------
    InvalidObject
        If ``A`` is not a Matrix.
    DimensionMismatch
        If ``A`` is not square.
    """
    square_matrix(A, "connected_components")
    n = A.nrows
    backend = A.backend
    min_second = _semiring["min_second"][np.int64]
    min_first = _semiring["min_first"][np.int64]
    minimum = _binary["min"]
    # the undirected structure A ∪ Aᵀ, values dropped
    S = ops.apply(ops.ewise_add(A, ops.transpose(A), "any"), _unary["one"][np.bool_])  # noqa: N806
    f = Vector.from_dense(np.arange(n, dtype=np.int64), backend=backend)
    gp = f.dup()
    P = _parent_matrix(f)  # noqa: N806
    while True:
        mngp = ops.mxv(S, gp, min_second, accum=minimum, out=gp.dup(), executor=executor)
        ops.vxm(mngp, P, min_first, accum=minimum, out=f, executor=executor)  # 1. stochastic
        ops.apply(mngp, "identity", accum=minimum, out=f)  # 2. aggressive hooking, shortcutting
        P = _parent_matrix(f)  # noqa: N806
        new_gp = ops.mxv(P, f, min_second, executor=executor)
        if new_gp.isequal(gp):
            return f
        gp = new_gp


def _parent_matrix(f: Vector) -> Matrix:
    """The ``n x n`` bool matrix with one entry per vertex ``u``, at ``(u, f[u])``."""
    vertices, parents = f.to_coo()
    return Matrix.from_coo(vertices, parents, True, nrows=f.size, ncols=f.size, dtype=bool,
                           backend=f.backend)  # fmt: skip
