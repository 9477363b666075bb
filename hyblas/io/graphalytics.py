"""The LDBC Graphalytics formats: a graph as a vertex file and an edge file, a result as one
``id value`` line per vertex."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np

from .. import binary as _binary
from ..backend import resolve, to_numpy
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..errors import DimensionMismatch, InvalidObject, InvalidValue
from .edgelist import load_edges
from .paths import os_errors_named, readable_file, writable_file

__all__ = ["GraphalyticsGraph", "read_graphalytics", "write_graphalytics_output"]

BFS_UNREACHED = np.iinfo(np.int64).max  # the specification's depth of an unreached vertex


@dataclasses.dataclass(frozen=True)
class GraphalyticsGraph:
    """A graph read from Graphalytics files: vertex ``k`` of ``matrix`` is ``vertex_ids[k]``."""

    matrix: Matrix
    vertex_ids: np.ndarray  # int64, ascending
    directed: bool

    def index_of(self, vertex_id: int) -> int:
        """The matrix index of the vertex named ``vertex_id`` in the files; InvalidValue if
        there is none.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     vertices, edges = pathlib.Path(folder) / "g.v", pathlib.Path(folder) / "g.e"
        ...     _ = vertices.write_text("10\\n20\\n")
        ...     _ = edges.write_text("10 20\\n")
        ...     g = hb.io.read_graphalytics(vertices, edges, directed=True)
        >>> g.index_of(20)
        1
        """
        k = int(np.searchsorted(self.vertex_ids, vertex_id))
        if k == self.vertex_ids.size or self.vertex_ids[k] != vertex_id:
            raise InvalidValue(f"no vertex {vertex_id} in the graph's vertex file")
        return k


def read_graphalytics(
    vertex_file: str | os.PathLike,
    edge_file: str | os.PathLike,
    *,
    directed: bool,
    weighted: bool | None = None,
    backend: str | None = None,
) -> GraphalyticsGraph:
    """Read a graph in the Graphalytics format.

    The vertex file holds one vertex id per line; the edge file one ``src dst`` or
    ``src dst weight`` line per edge (ids are non-negative integers, not necessarily
    contiguous). An undirected graph's edge file lists each edge once; it is stored both ways.

    Parameters
    ----------
    vertex_file, edge_file : str or os.PathLike
    directed : bool
    weighted : bool, optional
        Whether the edge file has a weight column. Default: if its first line has three fields.
        Weights are float64; without them every edge has the value 1.0.
    backend : {'cpu', 'cuda'}, optional

    Returns
    -------
    GraphalyticsGraph

    Raises
    ------
    InvalidValue
        A malformed line, a repeated vertex id or edge, an edge naming a vertex the vertex
        file does not hold, a path that names no readable file.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     vertices, edges = pathlib.Path(folder) / "g.v", pathlib.Path(folder) / "g.e"
    ...     _ = vertices.write_text("10\\n20\\n30\\n")
    ...     _ = edges.write_text("10 20\\n20 30\\n")
    ...     g = hb.io.read_graphalytics(vertices, edges, directed=True)
    >>> g.vertex_ids, g.matrix.to_coo()[:2]
    (array([10, 20, 30]), (array([0, 1]), array([1, 2])))
    """
    if not isinstance(directed, bool | np.bool_):
        raise InvalidObject(f"directed must be a bool, got {directed!r}")
    vertices_name = readable_file(vertex_file, "vertex_file")
    edges_name = readable_file(edge_file, "edge_file")
    resolved = resolve(backend)
    ids = _vertex_ids(vertices_name)
    src, dst, values = load_edges(edges_name, None, "#", weighted, np.dtype(np.float64))
    rows, cols = _indices(ids, src, edges_name), _indices(ids, dst, edges_name)
    dup_op = None
    if not directed:
        off = rows != cols
        rows, cols = np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]])
        values = np.concatenate([values, values[off]])
        dup_op = _binary["first"]  # an edge listed both ways is one edge
    matrix = Matrix.from_coo(
        rows, cols, values, nrows=ids.size, ncols=ids.size, dup_op=dup_op, backend=resolved
    )
    return GraphalyticsGraph(matrix, ids, bool(directed))


def write_graphalytics_output(
    path: str | os.PathLike, vertex_ids: Any, result: Vector, *, missing: Any = None
) -> None:
    """Write ``result`` as Graphalytics output: one ``id value`` line per vertex, in the order
    of ``vertex_ids`` (the files' ids of the vertices ``0`` to ``n-1``).

    Integers are written exactly, floats with 17 significant digits (``inf`` as
    ``Infinity``). A vertex without an entry gets ``missing`` (BFS:
    :data:`~hyblas.io.graphalytics.BFS_UNREACHED`, SSSP: ``float('inf')``); with
    ``missing=None`` every vertex must have an entry.

    Raises
    ------
    DimensionMismatch
        If ``vertex_ids`` and ``result`` differ in length.
    InvalidValue
        If a vertex has no entry and ``missing`` is None, or the path cannot be written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> levels = hb.Vector.from_coo([0, 1], [0, 1], size=3)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "bfs.out"
    ...     hb.io.write_graphalytics_output(path, [10, 20, 30], levels, missing=-1)
    ...     print(path.read_text(), end="")
    10 0
    20 1
    30 -1
    """
    ids = np.asarray(vertex_ids)
    if ids.ndim != 1 or ids.size != result.size:
        raise DimensionMismatch(
            f"vertex_ids holds {ids.size} ids for a result of size {result.size}"
        )
    name = writable_file(path)
    positions, stored = result.to_coo()
    if positions.size != result.size and missing is None:
        raise InvalidValue(
            f"{result.size - positions.size} vertices have no value; pass missing= to write one"
        )
    values = np.full(result.size, missing if missing is not None else 0, dtype=stored.dtype)
    values[positions] = stored
    if values.dtype.kind == "f":
        text = [_float_text(v) for v in values.tolist()]
    else:
        text = [str(v) for v in values.tolist()]
    with os_errors_named(name), open(name, "w", encoding="ascii") as out:
        out.writelines(f"{i} {t}\n" for i, t in zip(ids.tolist(), text, strict=True))


def _float_text(value: float) -> str:
    if np.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"  # as the reference outputs write it
    return f"{value:.17g}"


def _vertex_ids(name: str) -> np.ndarray:
    with os_errors_named(name, "vertex_file"):
        try:
            ids = np.loadtxt(name, dtype=np.int64, comments="#", ndmin=1)
        except ValueError as exc:
            raise InvalidValue(f"{name}: malformed vertex file: {exc}") from exc
    if ids.ndim != 1:
        raise InvalidValue(f"{name}: a vertex file holds one id per line")
    ordered = np.sort(ids)
    repeated = np.flatnonzero(ordered[1:] == ordered[:-1])
    if repeated.size:
        raise InvalidValue(f"{name}: vertex {ordered[repeated[0]]} is listed twice")
    return ordered


def _indices(ids: np.ndarray, names: np.ndarray, edges_name: str) -> np.ndarray:
    """The matrix indices of the vertex ids ``names``; InvalidValue for an unknown one."""
    k = np.searchsorted(ids, names)
    unknown = (
        (k == ids.size) | (ids[np.minimum(k, ids.size - 1)] != names)
        if ids.size
        else (np.ones(names.size, dtype=bool))
    )
    if unknown.any():
        first = int(names[np.flatnonzero(unknown)[0]])
        raise InvalidValue(f"{edges_name}: an edge names vertex {first}, not in the vertex file")
    return to_numpy(k).astype(np.int64)
