"""Peer implementations the benchmark harness measures in the same run as hyblas.

Each peer module (``cusparse``, ``cupyx_naive``, ``scipy_peer``, ``suitesparse``,
``unionfind``) defines

* ``NAME``: the ``impl`` string in the results;
* ``DEVICE``: ``"gpu"`` (time with CUDA events) or ``"cpu"`` (wall clock);
* ``available() -> str | None``: None when usable here, else the reason;
* ``OPS[op](graph) -> run``: all setup (conversions, allocations) untimed, then a zero-argument
  closure whose call is the timed work; it may raise :class:`Unavailable`. A setup that does
  not depend on the source goes through :meth:`PeerGraph.setup_once`, so that a multi-source
  op (``bfs16``) makes it once, not once per source;
* ``to_numpy(op, result)``: converts what ``run()`` returned to the conventions below (untimed).

Result conventions of ``to_numpy``:

``spmv:plus_times``  float32 (n,)  ``y = A @ x``
``spmv:min_plus``    float32 (n,)  ``y_i = min_j (A_ij + x_j)``, ``+inf`` for empty rows
``spmv:lor_land``    bool (n,)     ``y_i = OR_j (A_ij != 0 and x_bool_j)``, False for empty rows
``bfs``              int64 (n,)    levels from ``source``, -1 unreachable
``sssp``             float64 (n,)  distances over ``weights`` from ``source``, +inf unreachable
``pagerank20``       float64 (n,)  20 power iterations from 1/n, damping 0.85 (networkx formula)
``cc``               int64 (n,)    component labels, any labelling
``bc``               float64 (n,)  Brandes dependencies summed over ``bc_sources`` (raw)
``tc``               int           number of triangles
``msbfs``            int64 (k, n)  levels per row of ``msbfs_sources``, -1 unreachable
``cdlp10``           int64 (n,)    community labels after 10 rounds of synchronous label
                                   propagation (LDBC Graphalytics CDLP): every vertex starts
                                   with its id; each round it takes the label most frequent
                                   among its neighbours, the smallest on a tie; a vertex with
                                   no neighbours keeps its label (compared exactly)
``lcc``              float64 (n,)  local clustering coefficient (LDBC Graphalytics LCC): edges
                                   among the neighbours over ``d (d - 1)``, 0 for ``d < 2``

Edges are read as rows = sources: entry ``A[i, j]`` is the edge ``i -> j`` (the graphs are
structurally symmetric, so this only matters for the documentation). The ``cdlp10`` and ``lcc``
peers also offer builders for a directed graph (``make_cdlp`` / ``make_lcc`` with
``directed=True``, Graphalytics' directed definitions), which the tests check; the harness's
graphs take the undirected path.

Importing this package (and every peer module) works without CuPy and without python-graphblas;
those are imported inside functions.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = [
    "OPS_ALL",
    "PEER_MODULES",
    "PeerGraph",
    "Unavailable",
    "make_peer_graph",
    "load_peers",
]

#: Every op name a peer may offer, in the harness' order.
OPS_ALL = (
    "spmv:plus_times",
    "spmv:min_plus",
    "spmv:lor_land",
    "bfs",
    "sssp",
    "pagerank20",
    "cc",
    "bc",
    "tc",
    "msbfs",
    "cdlp10",
    "lcc",
)

#: Module names under ``benchmarks.peers``.
PEER_MODULES = ("cusparse", "cupyx_naive", "scipy_peer", "suitesparse", "unionfind")


@dataclass(frozen=True)
class PeerGraph:
    """One benchmark graph, on the host, as every peer receives it.

    Attributes
    ----------
    name : str
    csr : scipy.sparse csr (array or matrix)
        n x n, float32 values all 1.0, structurally symmetric, sorted indices, no self loops,
        no duplicates.
    weights : scipy.sparse csr
        The same pattern, float32 values in [1, 64), symmetric (``w_ij == w_ji``).
    source : int
        BFS / SSSP source.
    bc_sources : np.ndarray
        int64, the betweenness sources (e.g. 4 vertices).
    msbfs_sources : np.ndarray
        int64, the multi-source BFS sources (e.g. 64 vertices).
    x : np.ndarray
        float32 (n,), values in [1, 2): the SpMV input (never zero).
    x_bool : np.ndarray
        bool (n,), about half True.
    setups : dict
        What :meth:`setup_once` made, shared with every copy of this graph that
        ``dataclasses.replace`` makes (the same graph searched from another source).
    """

    name: str
    csr: Any
    weights: Any
    source: int
    bc_sources: np.ndarray
    msbfs_sources: np.ndarray
    x: np.ndarray
    x_bool: np.ndarray
    setups: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def n(self) -> int:
        return int(self.csr.shape[0])

    def setup_once(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()``, made once and kept under ``key`` for this graph and its copies: a
        peer's setup that does not depend on the source (a conversion of the whole graph,
        seconds on the largest ones). The harness empties :attr:`setups` before and after
        each row, so one row's setups never serve another's."""
        if key not in self.setups:
            self.setups[key] = make()
        return self.setups[key]


class Unavailable(Exception):
    """The peer cannot run this op here (package missing, no GPU, too big for this machine);
    the message says why."""


def _below(limit: float, dtype: Any) -> Any:
    """The largest value of ``dtype`` strictly below ``limit``."""
    return np.nextafter(dtype(limit), dtype(0))


def make_peer_graph(
    name: str,
    csr: Any,
    *,
    seed: int = 0,
    n_bc_sources: int = 4,
    n_msbfs_sources: int = 64,
) -> PeerGraph:
    """A :class:`PeerGraph` from a structurally symmetric pattern, with seeded inputs.

    Sources are drawn (with replacement for the multi-source sets only if there are fewer
    non-isolated vertices than asked for) among the vertices with at least one edge, as
    Graph500 does; ``source`` is the first BFS source. Weights are drawn for the upper
    triangle and mirrored, so ``w_ij == w_ji``.
    """
    A = sp.csr_array(csr, dtype=np.float32, copy=True)  # noqa: N806 - math spelling
    A.sum_duplicates()
    A.sort_indices()
    n = A.shape[0]
    if A.shape != (n, n):
        raise ValueError(f"make_peer_graph: matrix must be square, got shape {A.shape}")
    if A.diagonal().any():
        raise ValueError("make_peer_graph: the pattern has self loops")
    A.data[:] = 1.0
    rng = np.random.default_rng(seed)
    upper = sp.triu(A, k=1, format="coo")
    w = np.minimum(1.0 + 63.0 * rng.random(upper.nnz), _below(64.0, np.float64))
    upper = sp.coo_array((w.astype(np.float32), (upper.row, upper.col)), shape=(n, n))
    W = sp.csr_array(upper + upper.T)  # noqa: N806
    W.sort_indices()
    W.data = np.minimum(W.data.astype(np.float32), _below(64.0, np.float32))
    if W.nnz != A.nnz or not (
        np.array_equal(W.indptr, A.indptr) and np.array_equal(W.indices, A.indices)
    ):
        raise ValueError("make_peer_graph: the pattern is not structurally symmetric")

    degree = np.diff(A.indptr)
    candidates = np.flatnonzero(degree > 0)
    if candidates.size == 0:  # no edges at all: any vertex will do
        candidates = np.arange(n, dtype=np.int64)

    def draw(k: int) -> np.ndarray:
        if candidates.size == 0:
            return np.zeros(0, np.int64)
        replace = candidates.size < k
        return np.sort(rng.choice(candidates, size=k, replace=replace)).astype(np.int64)

    source = int(rng.choice(candidates)) if candidates.size else 0
    x = np.minimum(1.0 + rng.random(n, dtype=np.float32), _below(2.0, np.float32))
    return PeerGraph(
        name=name,
        csr=A,
        weights=W,
        source=source,
        bc_sources=draw(n_bc_sources),
        msbfs_sources=draw(n_msbfs_sources),
        x=x.astype(np.float32),
        x_bool=rng.random(n) < 0.5,
    )


def load_peers() -> dict[str, ModuleType]:
    """Every peer module, by its ``NAME`` (importing them needs neither CuPy nor graphblas)."""
    modules = [importlib.import_module(f"{__name__}.{name}") for name in PEER_MODULES]
    return {module.NAME: module for module in modules}
