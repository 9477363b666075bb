"""The standard benchmark graphs, generated on the fly, seeded, identical every run.

* ``kron22`` / ``kron24``: Graph500 R-MAT, scale 22 / 24, edge factor 16, a=.57 b=.19 c=.19,
  random relabel, symmetrized, self loops removed, duplicates merged.
* ``grid2048``: 2048 x 2048 4-neighbour grid (high diameter, road-like).
* ``kron10`` / ``grid64``: the same families, tiny, for ``--smoke``.
* ``osm-highways``: the OpenStreetMap world highway network of the PyPI package
  ``scgraph-data`` 2.0.0 (MIT; the ``bench`` extra installs it): 560 K road junctions, every
  stored entry of its adjacency (symmetric; 1.65 M entries, self loops included), weighted by
  their lengths in km, explicit zeros kept (a zero-length self loop is an edge). Loaded only
  where the package is installed (:class:`GraphUnavailable` otherwise).

Every graph comes with the inputs the operations need: SSSP weights uniform in [1, 64) (seeded,
symmetric; ``osm-highways``: its lengths), the BFS/SSSP source (max-degree vertex, smallest id
on ties), 16 Graph500-style random non-isolated sources, 4 BC sources and 64 multi-source-BFS
sources (random, non-isolated, seeded), and SpMV input vectors.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import hyblas as hb
from hyblas.backend import to_numpy

from .peers import PeerGraph

KRONECKER_SEED = 1
WEIGHT_SEED = 7
SOURCE_SEED = 11

_BUILDERS: dict[str, Callable[[str], hb.Matrix]] = {
    "kron10": lambda backend: hb.generators.kronecker(10, 16, seed=KRONECKER_SEED, backend=backend),
    "kron18": lambda backend: hb.generators.kronecker(18, 16, seed=KRONECKER_SEED, backend=backend),
    "kron22": lambda backend: hb.generators.kronecker(22, 16, seed=KRONECKER_SEED, backend=backend),
    "kron24": lambda backend: hb.generators.kronecker(24, 16, seed=KRONECKER_SEED, backend=backend),
    "grid64": lambda backend: hb.generators.grid_2d(64, 64, backend=backend),
    "grid512": lambda backend: hb.generators.grid_2d(512, 512, backend=backend),
    "grid2048": lambda backend: hb.generators.grid_2d(2048, 2048, backend=backend),
}
OSM_HIGHWAYS = "osm-highways"
GRAPHS = (*_BUILDERS, OSM_HIGHWAYS)
FULL_GRAPHS = ("kron22", "kron24", "grid2048")
#: The default graphs of a CPU run (``--backend cpu``): what a CPU holds and runs in minutes.
CPU_GRAPHS = ("kron18", "grid512")
SMOKE_GRAPHS = ("kron10", "grid64")


@dataclass
class BenchGraph:
    """A benchmark graph on one backend and the inputs of every operation."""

    name: str
    A: hb.Matrix  # noqa: N815 - pattern, float32 ones
    weights: hb.Matrix  # float32 in [1, 64), same pattern
    degrees: np.ndarray  # host, int64
    source: int
    graph500_sources: np.ndarray
    bc_sources: np.ndarray
    msbfs_sources: np.ndarray
    x: np.ndarray  # float32 in [1, 2)
    x_bool: np.ndarray
    _peer: PeerGraph | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return self.A.nrows

    @property
    def nnz(self) -> int:
        return self.A.nnz

    def peer_graph(self) -> PeerGraph:
        """The host (scipy) form the peers start from, made once."""
        if self._peer is None:
            self._peer = PeerGraph(
                name=self.name,
                csr=self.A.to_scipy(),
                weights=self.weights.to_scipy(),
                source=self.source,
                bc_sources=self.bc_sources,
                msbfs_sources=self.msbfs_sources,
                x=self.x,
                x_bool=self.x_bool,
            )
        return self._peer

    def with_source(self, source: int) -> BenchGraph:
        """The same graph and inputs, searched from ``source``."""
        copy = dataclasses.replace(self, source=source, _peer=None)
        if self._peer is not None:
            copy._peer = dataclasses.replace(self._peer, source=source)
        return copy

    def drop_peer_setups(self) -> None:
        """Forget the peers' setups (:meth:`PeerGraph.setup_once`): each row makes its own."""
        if self._peer is not None:
            self._peer.setups.clear()

    def release(self) -> None:
        """Drop every array of this graph (before the next graph is built)."""
        self.A = self.weights = None  # type: ignore[assignment]
        self._peer = None


class GraphUnavailable(RuntimeError):
    """A benchmark graph whose data package is not installed."""


_OSM_MISSING = (
    f"graph {OSM_HIGHWAYS!r} needs the packages scgraph-data==2.0.0 and scgraph<3 "
    "(pip install -e '.[bench]')"
)


def unavailable(name: str) -> str | None:
    """Why graph ``name`` cannot be built here (a data package is missing), or None."""
    if name == OSM_HIGHWAYS and not all(
        importlib.util.find_spec(package) for package in ("scgraph_data", "scgraph")
    ):
        return _OSM_MISSING
    return None


def osm_highways_coo() -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """The OpenStreetMap world highway network of ``scgraph-data``: ``(n, rows, cols, km)``,
    one entry per entry of its adjacency lists (each road both ways, a self loop once), in
    their order, zero lengths kept.

    Raises
    ------
    GraphUnavailable
        Where ``scgraph-data`` (with ``scgraph<3``, which its module imports) is not installed.
    """
    try:
        from scgraph_data.world_highways import world_highways_geograph
    except ImportError as exc:
        raise GraphUnavailable(f"{_OSM_MISSING}: {exc}") from exc
    adjacency = world_highways_geograph.graph  # vertex -> {neighbour: km}
    n = len(adjacency)
    counts = np.fromiter(map(len, adjacency), dtype=np.int64, count=n)
    nnz = int(counts.sum())
    rows = np.repeat(np.arange(n, dtype=np.int64), counts)
    cols = np.fromiter((v for nbrs in adjacency for v in nbrs), dtype=np.int64, count=nnz)
    km = np.fromiter((w for nbrs in adjacency for w in nbrs.values()), dtype=np.float64, count=nnz)
    return n, rows, cols, km


def _osm_highways(backend: str) -> tuple[hb.Matrix, hb.Matrix]:
    n, rows, cols, km = osm_highways_coo()
    pattern = hb.Matrix.from_coo(
        rows, cols, 1.0, nrows=n, ncols=n, dtype=np.float32, backend=backend
    )
    lengths = hb.Matrix.from_coo(
        rows, cols, km, nrows=n, ncols=n, dtype=np.float32, backend=backend
    )
    return pattern, lengths


def build(name: str, backend: str) -> BenchGraph:
    """Generate (or load) graph ``name`` on ``backend`` with its inputs."""
    if name == OSM_HIGHWAYS:
        A, weights = _osm_highways(backend)  # noqa: N806
    elif name in _BUILDERS:
        A = _BUILDERS[name](backend)  # noqa: N806
        weights = hb.generators.random_weights(A, 1.0, 64.0, seed=WEIGHT_SEED, dtype=np.float32)
    else:
        raise KeyError(f"unknown graph {name!r}; known: {', '.join(GRAPHS)}")
    degrees = np.diff(to_numpy(A.indptr)).astype(np.int64)
    rng = np.random.default_rng(SOURCE_SEED)
    connected = np.flatnonzero(degrees > 0)

    def pick(count: int) -> np.ndarray:
        return np.sort(rng.choice(connected, size=min(count, connected.size), replace=False))

    n = A.nrows
    return BenchGraph(
        name=name,
        A=A,
        weights=weights,
        degrees=degrees,
        source=int(np.argmax(degrees)),  # argmax takes the first (smallest id) maximum
        graph500_sources=pick(16),
        bc_sources=pick(4),
        msbfs_sources=pick(64),
        x=(1.0 + rng.random(n)).astype(np.float32),
        x_bool=rng.random(n) < 0.5,
    )


def describe(graph: BenchGraph) -> dict[str, Any]:
    return {
        "graph": graph.name,
        "n": graph.n,
        "nnz": graph.nnz,
        "source": graph.source,
        "max_degree": int(graph.degrees.max(initial=0)),
    }
