"""Connected components: a BFS for the component of the highest-degree vertex (the device
loop's rounds), then FastSV, min-label hooking and shortcutting over ``min_second``, for the
rest of the graph."""

from __future__ import annotations

import numpy as np

from .. import binary as _binary
from .. import ops
from .. import semiring as _semiring
from ..backend import names_oom
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..dtypes import short_repr
from ..errors import InvalidValue
from ..graph import Graph, as_graph
from ..traversal import EXECUTORS as LOOP_EXECUTORS
from .bfs import bfs

__all__ = ["connected_components"]


@names_oom("connected_components")
def connected_components(
    A: Graph | Matrix,  # noqa: N803 - math spelling
    *,
    executor: str = "auto",
) -> Vector:
    """Component labels: ``labels[v]`` is the smallest vertex id in the component of ``v``.

    On a graph of mean degree at most 16 (grids, meshes, road networks: high diameter) a BFS
    first (:func:`hyblas.algorithms.bfs`, whose rounds run in the device loop on the GPU)
    labels the component of the highest-degree vertex (the smallest id among those of the
    highest degree): the giant component, and on a connected mesh everything. The other
    vertices have no edge into that component, so the rest is the subgraph they induce, where
    FastSV runs. A denser graph has a low diameter, where FastSV alone converges in a few
    rounds and a BFS first would not pay for itself; on a mesh FastSV alone needs many
    rounds of several products each, where the BFS's rounds run in the device loop.

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

    The parent pointers are applied as a Matrix ``P`` with ``P[u, f[u]]`` stored: ``f[f]`` is ``P
    min.second f`` and the stochastic hooking is ``mngp min.first P``. ``P`` is rebuilt from ``f``
    each round through :meth:`~hyblas.Vector.to_coo` / :meth:`~hyblas.Matrix.from_coo` (a host round
    trip of ``n`` ids on the 'cuda' backend: hyblas.ops has no gather / scatter by index values
    yet).

    Parameters
    ----------
    A : Graph or Matrix
        Square adjacency matrix, rows = sources. Values are ignored (a stored 0 is an edge).
        A directed graph (a Matrix is one) is taken as undirected: the result is its weakly
        connected components. The undirected structure ``A ∪ Aᵀ`` is the Graph's cached
        :attr:`~hyblas.Graph.undirected_structure`: an undirected Graph's own, with no
        symmetrization.
    executor : str
        Passed to :func:`hyblas.algorithms.bfs` and to FastSV's :func:`hyblas.ops.mxv` /
        :func:`hyblas.ops.vxm` calls (``'loop'`` means ``'auto'`` there).

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
    InvalidValue
        For an unknown executor.

    Examples
    --------
    >>> G = hb.Graph.from_coo([0, 2, 3], [1, 3, 4], n=6, kind="undirected")
    >>> hb.algorithms.connected_components(G).to_dense()  # the smallest id of each component
    array([0, 0, 2, 2, 2, 5])
    """
    graph = as_graph(A, "connected_components")
    if not isinstance(executor, str) or executor not in LOOP_EXECUTORS:
        raise InvalidValue(
            f"connected_components: executor must be one of {LOOP_EXECUTORS}, got "
            f"{short_repr(executor)}"
        )
    products = "auto" if executor == "loop" else executor  # the mxv / vxm calls' executor
    n = graph.n
    backend = graph.backend
    if n == 0:
        return Vector.new(np.int64, 0, backend=backend)
    S = graph.undirected_structure  # noqa: N806 - A ∪ Aᵀ, values dropped
    if S.nnz > 16 * n:
        return _fastsv(S, products)
    ids = Vector.from_dense(np.arange(n, dtype=np.int64), backend=backend)
    degrees = ops.mxv(
        S,
        Vector.from_dense(np.ones(n, dtype=bool), backend=backend),
        _semiring["plus_pair"][np.int64],
        executor=products,
    )
    seed = 0
    if degrees.nnz:
        widest = ops.select(degrees, "valueeq", ops.reduce_scalar(degrees, "max"))
        seed = int(ops.reduce_scalar(ops.apply(ids, "identity", mask=widest.S), "min"))
    giant = bfs(S, seed, executor=executor)
    labels = Vector.new(np.int64, n, backend=backend)
    ops.assign(
        labels,
        ops.reduce_scalar(ops.apply(ids, "identity", mask=giant.S), "min"),
        None,
        mask=giant.S,
    )
    rest = ops.apply(ids, "identity", mask=~giant.S)
    if rest.nnz:
        rest_ids = rest.to_coo(device=True)[0]  # ascending: FastSV's smallest ids stay so
        inner, parents = _fastsv(ops.extract(S, rest_ids, rest_ids), products).to_coo(device=True)
        ops.assign(
            labels,
            Vector.from_coo(
                rest_ids[inner], rest_ids[parents], size=n, dtype=np.int64, backend=backend
            ),
            None,
            mask=rest.S,
        )
    return labels


def _fastsv(S: Matrix, executor: str) -> Vector:  # noqa: N803
    """FastSV's labels of the undirected bool structure ``S``."""
    n = S.nrows
    min_second = _semiring["min_second"][np.int64]
    min_first = _semiring["min_first"][np.int64]
    minimum = _binary["min"]
    f = Vector.from_dense(np.arange(n, dtype=np.int64), backend=S.backend)
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
    vertices, parents = f.to_coo(device=True)  # no host round trip
    return Matrix.from_coo(
        vertices, parents, True, nrows=f.size, ncols=f.size, dtype=bool, backend=f.backend
    )
