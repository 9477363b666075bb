"""The Graph: an adjacency matrix, its kind (directed or undirected), and the properties the
algorithms derive from it, each computed once (LAGraph's ``LAGraph_Graph``).

The properties are cached on the adjacency matrix itself (:attr:`Matrix.cache
<hyblas.Matrix.cache>`), beside the transpose and the executors' layouts that the matrix
caches already: whatever writes into the matrix drops them all at once, and a Graph built again
over the same matrix finds them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from . import binary as _binary
from . import ops
from . import unary as _unary
from .containers.derived import mark_symmetric
from .containers.matrix import Matrix
from .containers.vector import Vector
from .dtypes import short_repr
from .errors import DimensionMismatch, InvalidObject, InvalidValue
from .io import from_networkx, read_edge_list

__all__ = ["Graph", "KINDS"]

KINDS = ("directed", "undirected")


class Graph:
    """A graph over the vertices ``0`` to ``n-1``: edge ``i -> j`` is the entry ``A[i, j]``.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix (rows = sources). It is held, not copied: writing into it later
        drops every cached property (they are recomputed on next use, and an undirected graph's
        symmetry is checked again).
    kind : {'directed', 'undirected'}
        An undirected graph stores every edge both ways (``A[i, j]`` exactly when ``A[j, i]``);
        this is checked once, when the Graph is made.
    check : bool
        False: the caller vouches that an undirected graph's ``A`` is structurally symmetric
        (it was built both ways, from a symmetric source), and the check (a transpose and an
        element-wise product) is skipped. A false promise gives wrong results.

    Raises
    ------
    InvalidObject
        If ``A`` is not a Matrix.
    DimensionMismatch
        If ``A`` is not square.
    InvalidValue
        If ``kind`` is not one of :data:`~hyblas.graph.KINDS`, or ``kind='undirected'`` and the
        structure of ``A`` is not symmetric.

    Examples
    --------
    >>> import hyblas as hb
    >>> G = hb.Graph.from_coo([0, 1], [1, 2], n=3, kind="undirected")
    >>> G.out_degree.to_dense().tolist()
    [1, 2, 1]
    """

    def __init__(self, A: Matrix, kind: str = "directed", *, check: bool = True) -> None:  # noqa: N803
        if not isinstance(A, Matrix):
            raise InvalidObject(f"Graph: A must be a hyblas Matrix, got {type(A).__name__}")
        if A.nrows != A.ncols:
            raise DimensionMismatch(
                f"Graph: A must be square (an adjacency matrix), got {A.nrows}x{A.ncols}"
            )
        self._A = A
        self._kind = _kind(kind)
        if not isinstance(check, bool):
            raise InvalidObject(f"Graph: check must be True or False, got {short_repr(check)}")
        if check:
            self.check()
        elif kind == "undirected":
            mark_symmetric(A)

    # --- construction ------------------------------------------------------------------------

    @classmethod
    def from_coo(
        cls,
        sources: Any,
        targets: Any,
        weights: Any = True,
        *,
        n: int | None = None,
        kind: str = "directed",
        dtype: Any = None,
        backend: str | None = None,
    ) -> Graph:
        """A graph of the edges ``sources[k] -> targets[k]`` (weight ``weights[k]``, or one
        value for all; default ``True``: an unweighted graph).

        For ``kind='undirected'`` each edge is given once, in either direction (or both: the
        two are then one edge, combined with ``any``); it is stored both ways.

        Examples
        --------
        >>> G = hb.Graph.from_coo([0, 1, 2], [1, 2, 0], kind="undirected")
        >>> G.kind, G.n, G.nedges, G.A.nnz  # each undirected edge is stored both ways
        ('undirected', 3, 3, 6)
        """
        kind = _kind(kind)
        dup_op = _binary["any"] if kind == "undirected" else None
        A = Matrix.from_coo(  # noqa: N806
            sources,
            targets,
            weights,
            nrows=n,
            ncols=n,
            dtype=dtype,
            dup_op=dup_op,
            backend=backend,
        )
        A = _square(A)  # noqa: N806 - without n: one past the largest id, rows or columns
        if kind == "undirected":
            A = ops.ewise_add(A, ops.transpose(A), "any")  # noqa: N806
        return cls(A, kind)

    @classmethod
    def from_edgelist(
        cls, path: str | os.PathLike, kind: str = "directed", **options: Any
    ) -> Graph:
        """A graph read from a text edge list (:func:`hyblas.io.read_edge_list`, whose keyword
        ``options`` are passed on). For ``kind='undirected'`` each line is one edge, stored
        both ways (an edge listed in both directions is one edge).

        Examples
        --------
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = pathlib.Path(folder) / "edges.txt"
        ...     _ = path.write_text("0 1\\n1 2\\n")
        ...     G = hb.Graph.from_edgelist(path, kind="undirected")
        >>> G.n, G.nedges
        (3, 2)
        """
        kind = _kind(kind)
        if kind == "undirected":
            options = {"symmetric": True, **options}
        return cls(read_edge_list(path, **options), kind)

    @classmethod
    def from_scipy(
        cls, matrix: Any, kind: str = "directed", *, dtype: Any = None, backend: str | None = None
    ) -> Graph:
        """A graph over a copy of a scipy.sparse adjacency matrix (see
        :meth:`Matrix.from_scipy <hyblas.Matrix.from_scipy>`); the matrix itself is not changed.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> G = hb.Graph.from_scipy(sp.csr_array(np.array([[0, 1], [1, 0]])), kind="undirected")
        >>> G.is_directed, G.nedges
        (False, 1)
        """
        return cls(Matrix.from_scipy(matrix, dtype=dtype, backend=backend), _kind(kind))

    @classmethod
    def from_networkx(cls, G: Any, **options: Any) -> Graph:  # noqa: N803
        """A graph of a networkx graph, directed exactly when ``G`` is (keyword ``options``
        as :func:`hyblas.io.from_networkx`: ``weight``, ``dtype``, ``nodelist``, ``backend``).

        Examples
        --------
        >>> import networkx as nx
        >>> G = hb.Graph.from_networkx(nx.path_graph(4))
        >>> G.kind, G.n, G.nedges
        ('undirected', 4, 3)
        """
        kind = "directed" if G.is_directed() else "undirected"
        return cls(from_networkx(G, **options), kind)

    # --- what it is --------------------------------------------------------------------------

    @property
    def A(self) -> Matrix:  # noqa: N802 - math spelling
        """The adjacency matrix (rows = sources)."""
        return self._A

    @property
    def kind(self) -> str:
        """``'directed'`` or ``'undirected'``."""
        return self._kind

    @property
    def is_directed(self) -> bool:
        """Whether the graph is directed (its :attr:`kind` is ``'directed'``)."""
        return self._kind == "directed"

    @property
    def n(self) -> int:
        """The number of vertices."""
        return self._A.nrows

    @property
    def nedges(self) -> int:
        """The number of edges: stored entries of ``A``; an undirected edge between two
        vertices counts once, a self loop once."""
        if self.is_directed:
            return self._A.nnz
        return (self._A.nnz + self.nself_edges) // 2

    @property
    def backend(self) -> str:
        """``'cpu'`` or ``'cuda'``: where the adjacency matrix lives."""
        return self._A.backend

    def check(self) -> Graph:
        """Raise InvalidValue if an undirected graph's matrix is not structurally symmetric
        (after it was written into). Costs nothing while the answer is cached.

        Examples
        --------
        >>> A = hb.Matrix.from_coo([0, 1], [1, 0], [True, True])
        >>> G = hb.Graph(A, kind="undirected")
        >>> _ = hb.ops.assign(A, True, 1, 1)  # a self-loop keeps the structure symmetric
        >>> G.check() is G
        True
            >>> A.clear()
        >>> _ = hb.ops.assign(A, True, 0, 1)  # an edge one way only
        >>> G.check()
        Traceback (most recent call last):
            ...
        hyblas.errors.InvalidValue: Graph: kind='undirected' needs a structurally symmetric A, ...
        """
        if self._kind == "undirected" and not self.is_symmetric_structure:
            A = self._A  # noqa: N806
            raise InvalidValue(
                f"Graph: kind='undirected' needs a structurally symmetric A, but "
                f"{A.nnz - _mirrored(A)} of its {A.nnz} entries A[i, j] have no A[j, i]; "
                "symmetrize it (ops.ewise_add(A, A.T, 'any')) or use kind='directed'"
            )
        return self

    # --- cached properties -------------------------------------------------------------------

    @property
    def AT(self) -> Matrix:  # noqa: N802 - math spelling
        """The transpose (rows = targets): ``A`` itself for an undirected graph."""
        return self._A if self._kind == "undirected" else self._A.T

    @property
    def out_degree(self) -> Vector:
        """Stored entries per row, int64, for every vertex (0 included)."""
        return self._cached("out_degree", lambda: _row_counts(self._A))

    @property
    def in_degree(self) -> Vector:
        """Stored entries per column, int64, for every vertex (0 included)."""
        if self._kind == "undirected":
            return self.out_degree
        return self._cached("in_degree", lambda: _row_counts(self._A.T))

    @property
    def is_symmetric_structure(self) -> bool:
        """Whether ``A[j, i]`` is stored exactly when ``A[i, j]`` is (values ignored)."""
        return self._cached("is_symmetric_structure", lambda: _mirrored(self._A) == self._A.nnz)

    @property
    def nself_edges(self) -> int:
        """The number of self loops ``A[i, i]``."""
        return self._cached("nself_edges", lambda: ops.select(self._A, "diag", 0).nnz)

    @property
    def undirected_structure(self) -> Matrix:
        """The bool structure of ``A ∪ Aᵀ`` (every value True; self loops kept): what weakly
        connected components, triangles and clustering read. An undirected graph's is ``A``'s
        own structure: no symmetrization."""
        return self._cached("undirected_structure", self._undirected_structure)

    def _undirected_structure(self) -> Matrix:
        A = self._A  # noqa: N806
        either = A if self._kind == "undirected" else ops.ewise_add(A, ops.transpose(A), "any")
        structure = ops.apply(either, _unary["one"][np.bool_])
        mark_symmetric(structure)  # by construction: products may read it for its transpose
        return structure

    def _cached(self, name: str, compute: Callable[[], Any]) -> Any:
        cache = self._A.cache
        key = ("graph", name)
        if key not in cache:
            cache[key] = compute()
        return cache[key]

    def cached(self) -> list[str]:
        """The names of the properties computed so far (and not dropped since).

        Examples
        --------
        >>> G = hb.Graph.from_coo([0, 1], [1, 2])
        >>> G.cached()
        []
        >>> _ = G.out_degree
        >>> G.cached()
        ['out_degree']
        """
        return sorted(k[1] for k in self._A.cache if isinstance(k, tuple) and k[0] == "graph")

    def __repr__(self) -> str:
        return (
            f"hyblas.Graph(n={self.n}, nedges={self.nedges}, kind={self._kind!r}, "
            f"dtype={self._A.dtype}, backend={self.backend!r})"
        )


def as_graph(graph: Graph | Matrix, algorithm: str) -> Graph:
    """``graph`` if it is a Graph (checked again if its matrix changed), a Matrix wrapped as a
    directed Graph; InvalidObject / DimensionMismatch otherwise, naming ``algorithm``."""
    if isinstance(graph, Graph):
        return graph.check()
    if not isinstance(graph, Matrix):
        raise InvalidObject(
            f"{algorithm}: A must be a hyblas Matrix or Graph, got {type(graph).__name__}"
        )
    if graph.nrows != graph.ncols:
        raise DimensionMismatch(
            f"{algorithm}: A must be square (an adjacency matrix), got {graph.nrows}x{graph.ncols}"
        )
    return Graph(graph, "directed")


def _kind(kind: Any) -> str:
    if not isinstance(kind, str) or kind not in KINDS:
        raise InvalidValue(f"Graph: kind must be one of {KINDS}, got {short_repr(kind)}")
    return kind


def _mirrored(A: Matrix) -> int:  # noqa: N803
    """How many stored ``A[i, j]`` also have ``A[j, i]`` stored."""
    return ops.ewise_mult(A, A.T, "pair").nnz


def _row_counts(A: Matrix) -> Vector:  # noqa: N803
    """Entries per row of ``A``, int64, with an entry (maybe 0) for every row."""
    counts = ops.reduce_rows(ops.apply(A, _unary["one"][np.int64]), "plus")
    full = Vector.from_dense(np.zeros(A.nrows, dtype=np.int64), backend=A.backend)
    ops.assign(full, counts, None, mask=counts.S)
    return full


def _square(A: Matrix) -> Matrix:  # noqa: N803
    """``A`` padded with empty rows or columns to ``n x n``, ``n`` its larger side."""
    n = max(A.nrows, A.ncols)
    if A.nrows == A.ncols:
        return A
    xp = A.xp
    indptr = xp.concatenate([A.indptr, xp.repeat(A.indptr[-1:], n - A.nrows)])
    return Matrix(indptr, A.indices, A.values, (n, n), backend=A.backend)
