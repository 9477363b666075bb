"""Connected components: Afforest's union-find (the traversal layer's kernels), or FastSV
written with GraphBLAS operations (``mxv``, and ``extract`` / ``assign`` by an index vector:
the gather and the scatter of parent pointers)."""

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
from ..traversal import UnionFindParams, union_find

__all__ = ["connected_components"]

#: The ``method=`` values of :func:`connected_components`.
METHODS = ("auto", "afforest", "fastsv")


@names_oom("connected_components")
def connected_components(
    A: Graph | Matrix,  # noqa: N803 - math spelling
    *,
    method: str = "auto",
    executor: str = "auto",
) -> Vector:
    """Component labels: ``labels[v]`` is the smallest vertex id in the component of ``v``.

    ``method='afforest'``: union-find with Afforest's sampling (Sutton, Ben-Nun & Barak,
    "Optimizing Parallel Graph Connectivity Computation via Subgraph Sampling", 2018), in
    :func:`hyblas.traversal.union_find`: every vertex is linked to two neighbours, the most
    frequent root among a sample of vertices names the giant component, then the vertices
    outside it are linked to the rest of their neighbours (an edge leaving the giant component
    is also stored the other way, where its other end links it), and every vertex takes its
    root. A link hooks the larger of two roots under the smaller, so a root is the smallest
    vertex of its tree: the labels need no relabelling. On the GPU these passes are a few
    kernels (their trace row: op ``'link'``, executor ``'union-find'``); on the CPU their
    NumPy emulation. A directed graph whose structure is not symmetric is linked over its
    stored entries as they are (no giant component skipped, no ``A ∪ Aᵀ`` built).

    ``method='fastsv'``: FastSV (Zhang, Azad & Hu, "FastSV: a distributed-memory connected
    component algorithm with fast convergence", 2020) in GraphBLAS operations over the
    undirected structure ``S``. Every vertex keeps a parent ``f`` (initially itself) and its
    grandparent ``gp = f[f]``; each round, with ``mngp = S min.second gp`` (the smallest
    grandparent among ``u``'s neighbours, and ``gp[u]``),

    1. stochastic hooking: ``f[f[u]] = min(f[f[u]], mngp[u])``:
       ``assign(f, mngp, f, accum=min)``, a scatter by the index vector ``f`` whose repeated
       positions fold with ``min``;
    2. aggressive hooking and shortcutting: ``f[u] = min(f[u], mngp[u])``;
    3. ``gp = f[f]``: ``extract(f, f)``, a gather; stop when ``gp`` no longer changes.

    Parents only decrease and stay inside the component, so the trees collapse into stars
    rooted at each component's smallest vertex, in a number of rounds that grows with the
    logarithm of the diameter.

    Parameters
    ----------
    A : Graph or Matrix
        Square adjacency matrix, rows = sources. Values are ignored (a stored 0 is an edge,
        a self loop joins nothing). A directed graph (a Matrix is one) is taken as
        undirected: the result is its weakly connected components. FastSV reads the Graph's
        cached :attr:`~hyblas.Graph.undirected_structure` (an undirected Graph's own, with
        no symmetrization).
    method : {'auto', 'afforest', 'fastsv'}
        ``'auto'``: ``'afforest'`` with ``executor='auto'``, ``'fastsv'`` on the executor
        named otherwise (the union-find kernels run no products).
    executor : str
        FastSV's :func:`hyblas.ops.mxv` executor (``'loop'`` means ``'auto'`` there).

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
        For an unknown method or executor.

    Examples
    --------
    >>> G = hb.Graph.from_coo([0, 2, 3], [1, 3, 4], n=6, kind="undirected")
    >>> hb.algorithms.connected_components(G).to_dense()  # the smallest id of each component
    array([0, 0, 2, 2, 2, 5])
    >>> hb.algorithms.connected_components(G, method="fastsv").to_dense()
    array([0, 0, 2, 2, 2, 5])
    """
    graph = as_graph(A, "connected_components")
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidValue(
            f"connected_components: method must be one of {METHODS}, got {short_repr(method)}"
        )
    if not isinstance(executor, str) or executor not in LOOP_EXECUTORS:
        raise InvalidValue(
            f"connected_components: executor must be one of {LOOP_EXECUTORS}, got "
            f"{short_repr(executor)}"
        )
    if method == "auto":
        method = "afforest" if executor == "auto" else "fastsv"
    if graph.n == 0:
        return Vector.new(np.int64, 0, backend=graph.backend)
    if method == "afforest":
        symmetric = not graph.is_directed or graph.is_symmetric_structure
        return union_find(graph.A, UnionFindParams(skip_giant=symmetric))
    return _fastsv(graph.undirected_structure, "auto" if executor == "loop" else executor)


def _fastsv(S: Matrix, executor: str) -> Vector:  # noqa: N803
    """FastSV's labels of the undirected bool structure ``S``."""
    n = S.nrows
    min_second = _semiring["min_second"][np.int64]
    minimum = _binary["min"]
    f = Vector.from_dense(np.arange(n, dtype=np.int64), backend=S.backend)
    gp = f.dup()
    while True:
        mngp = ops.mxv(S, gp, min_second, accum=minimum, out=gp.dup(), executor=executor)
        ops.assign(f, mngp, f, accum=minimum)  # 1. stochastic hooking: f[f[u]] min= mngp[u]
        ops.apply(mngp, "identity", accum=minimum, out=f)  # 2. aggressive hooking, shortcutting
        new_gp = ops.extract(f, f)  # 3. the grandparents f[f]
        if new_gp.isequal(gp):
            return f
        gp = new_gp
