"""The Graphalytics file formats: ids mapped both ways, undirected edges stored both ways, and
bad files named."""

from __future__ import annotations

import numpy as np
import pytest

import hyblas as hb
from hyblas.errors import DimensionMismatch, InvalidObject, InvalidValue
from hyblas.io.graphalytics import BFS_UNREACHED


def _files(tmp_path, vertices: str, edges: str) -> tuple:
    v, e = tmp_path / "g.v", tmp_path / "g.e"
    v.write_text(vertices)
    e.write_text(edges)
    return v, e


def test_sparse_ids_map_to_indices_and_back(backend: str, tmp_path) -> None:
    v, e = _files(tmp_path, "70\n5\n1000000000000\n", "5 70 0.5\n1000000000000 5 2.0\n")
    data = hb.io.read_graphalytics(v, e, directed=False, backend=backend)
    assert data.vertex_ids.tolist() == [5, 70, 1000000000000]
    assert data.index_of(70) == 1
    rows, cols, values = data.matrix.to_coo()
    assert list(zip(rows.tolist(), cols.tolist(), values.tolist())) == [
        (0, 1, 0.5),
        (0, 2, 2.0),
        (1, 0, 0.5),
        (2, 0, 2.0),
    ]
    directed = hb.io.read_graphalytics(v, e, directed=True, backend=backend)
    assert directed.matrix.nnz == 2
    with pytest.raises(InvalidValue, match="no vertex 6"):
        data.index_of(6)


def test_output_lines(backend: str, tmp_path) -> None:
    ids = np.array([5, 70, 9])
    levels = hb.Vector.from_coo([0, 2], [0, 1], size=3, dtype=np.int64, backend=backend)
    path = tmp_path / "out"
    hb.io.write_graphalytics_output(path, ids, levels, missing=BFS_UNREACHED)
    assert path.read_text() == f"5 0\n70 {BFS_UNREACHED}\n9 1\n"
    distances = hb.Vector.from_coo([1], [0.1], size=3, backend=backend)
    hb.io.write_graphalytics_output(path, ids, distances, missing=float("inf"))
    assert path.read_text() == "5 Infinity\n70 0.10000000000000001\n9 Infinity\n"
    with pytest.raises(InvalidValue, match="2 vertices have no value"):
        hb.io.write_graphalytics_output(tmp_path / "other", ids, distances)
    assert not (tmp_path / "other").exists()
    with pytest.raises(DimensionMismatch):
        hb.io.write_graphalytics_output(path, ids[:2], distances, missing=0.0)


@pytest.mark.parametrize(
    ("vertices", "edges", "match"),
    [
        ("1\n2\n", "1 3\n", "names vertex 3, not in the vertex file"),
        ("1\n2\n1\n", "1 2\n", "vertex 1 is listed twice"),
        ("1\nx\n", "1 2\n", "malformed vertex file"),
        ("1\n2\n", "1 2\n1 2\n", "duplicate"),
        ("1\n2\n", "1 2 0.5\n2\n", "line 2"),
    ],
)
def test_bad_files_are_named(tmp_path, vertices: str, edges: str, match: str) -> None:
    v, e = _files(tmp_path, vertices, edges)
    with pytest.raises(InvalidValue, match=match):
        hb.io.read_graphalytics(v, e, directed=True)


def test_bad_arguments(tmp_path) -> None:
    v, e = _files(tmp_path, "1\n", "")
    with pytest.raises(InvalidObject, match="directed must be a bool"):
        hb.io.read_graphalytics(v, e, directed="yes")
    with pytest.raises(InvalidValue):
        hb.io.read_graphalytics(tmp_path / "missing.v", e, directed=True)
    assert hb.io.read_graphalytics(v, e, directed=True).matrix.shape == (1, 1)
