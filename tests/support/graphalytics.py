"""The LDBC Graphalytics validation graphs shipped in ``tests/data/graphalytics`` (Apache-2.0,
from the public ``ldbc/ldbc_graphalytics`` repository): their two input formats, their
expected outputs, and the parameters the repository's validation tests run them with."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

import hyblas as hb

DATA = Path(__file__).resolve().parent.parent / "data" / "graphalytics"


@dataclasses.dataclass(frozen=True)
class Case:
    """One graph of the validation set and one kernel's expected output on it."""

    name: str  # e.g. 'example-directed' or 'validation/bfs/dir'
    kernel: str  # BFS, CDLP, LCC, PR, SSSP, WCC
    directed: bool
    parameters: dict

    def load(self, backend: str) -> hb.io.GraphalyticsGraph:
        if self.name.startswith("example-"):
            prefix = DATA / "example" / self.name
            return hb.io.read_graphalytics(
                f"{prefix}.v", f"{prefix}.e", directed=self.directed, backend=backend
            )
        folder, kind = self._validation()
        if (folder / f"{kind}-input.e").exists():
            return hb.io.read_graphalytics(
                folder / f"{kind}-input.v",
                folder / f"{kind}-input.e",
                directed=self.directed,
                backend=backend,
            )
        return adjacency_lists(folder / f"{kind}-input", self.directed, backend)

    def expected(self) -> dict[int, str]:
        if self.name.startswith("example-"):
            path = DATA / "example" / f"{self.name}-{self.kernel}"
        else:
            folder, kind = self._validation()
            path = folder / f"{kind}-output"
        pairs = (line.split() for line in path.read_text().splitlines() if line.strip())
        return {int(vertex): value for vertex, value in pairs}

    def _validation(self) -> tuple[Path, str]:
        _, kernel, kind = self.name.split("/")
        return DATA / "validation" / kernel, kind


def adjacency_lists(path: Path, directed: bool, backend: str) -> hb.io.GraphalyticsGraph:
    """A graph in the validation tests' vertex-based format: each line a vertex followed by its
    out-neighbours; every id named is a vertex; an undirected graph's edges are stored both
    ways (as the repository's GraphParser reads them), repeated edges are one."""
    edges: set[tuple[int, int]] = set()
    vertices: set[int] = set()
    for line in path.read_text().splitlines():
        tokens = [int(t) for t in line.split()]
        if not tokens:
            continue
        source, targets = tokens[0], tokens[1:]
        vertices.update(tokens)
        for target in targets:
            edges.add((source, target))
            if not directed:
                edges.add((target, source))
    ids = np.array(sorted(vertices), dtype=np.int64)
    pairs = np.array(sorted(edges), dtype=np.int64).reshape(-1, 2)
    rows, cols = np.searchsorted(ids, pairs[:, 0]), np.searchsorted(ids, pairs[:, 1])
    matrix = hb.Matrix.from_coo(
        rows, cols, 1.0, nrows=ids.size, ncols=ids.size, dtype=np.float64, backend=backend
    )
    return hb.io.GraphalyticsGraph(matrix, ids, directed)


# The parameters of the repository's validation tests (graphalytics-validation, *ValidationTest)
_EXAMPLE = {
    True: {
        "BFS": {"source": 1},
        "CDLP": {"max_iter": 2},
        "PR": {"iterations": 2},
        "SSSP": {"source": 1},
    },
    False: {
        "BFS": {"source": 2},
        "CDLP": {"max_iter": 2},
        "PR": {"iterations": 2},
        "SSSP": {"source": 2},
    },
}
_VALIDATION = {
    "BFS": {True: {"source": 1}, False: {"source": 1}},
    "CDLP": {True: {"max_iter": 5}, False: {"max_iter": 5}},
    "PR": {True: {"iterations": 14}, False: {"iterations": 26}},
    "SSSP": {True: {"source": 1}, False: {"source": 1}},
    "LCC": {True: {}, False: {}},
    "WCC": {True: {}, False: {}},
}
KERNELS = ("BFS", "CDLP", "LCC", "PR", "SSSP", "WCC")


def cases() -> list[Case]:
    found = []
    for directed in (True, False):
        name = "example-directed" if directed else "example-undirected"
        for kernel in KERNELS:
            found.append(Case(name, kernel, directed, _EXAMPLE[directed].get(kernel, {})))
        for kernel in KERNELS:
            kind = "dir" if directed else "undir"
            found.append(
                Case(
                    f"validation/{kernel.lower()}/{kind}",
                    kernel,
                    directed,
                    _VALIDATION[kernel][directed],
                )
            )
    return found
