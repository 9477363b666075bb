"""A plain GPU union-find for connected components, written here (a CuPy ``RawKernel``):
the speed any GPU library's ``cc`` is measured against.

* ``cc``: edge-centric and lock-free (the ECL-CC / Afforest family without their sampling):
  setup (untimed) uploads each undirected edge once (``i < j`` of the symmetric pattern) as
  int32 pairs; the timed run starts every vertex as its own parent, links the two ends of
  every edge (one thread per edge: find both roots with path halving, hook the larger root
  under the smaller with ``atomicCAS``, and on a lost race go on from the new parent), then
  points every vertex at its root in a final compression pass, which walks without halving
  (a halving write from another thread landing after a vertex's final write would leave it
  pointing at an ancestor that is no root). Three launches, no host read. Roots only ever go
  under a smaller vertex, so each label is the smallest vertex of its component.

:func:`model_labels` is the same algorithm in plain Python (edges one after the other), which
the tests check on the CPU; ``OPS`` runs the kernels with CuPy.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import PeerGraph, Unavailable
from ._gpu import asnumpy, modules, unavailable_reason

NAME = "unionfind"
DEVICE = "gpu"
THREADS = 256

SOURCE = r"""
__device__ __forceinline__ int uf_find(int* parent, int v) {
    volatile int* links = parent;
    int current = links[v];
    if (current != v) {
        int previous = v, next;
        while (current > (next = links[current])) {  // path halving
            links[previous] = next;
            previous = current;
            current = next;
        }
    }
    return current;
}

extern "C" __global__ void uf_link(long long edges, const int* __restrict__ rows,
                                   const int* __restrict__ cols, int* parent) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < edges; e += stride) {
        int a = uf_find(parent, rows[e]), b = uf_find(parent, cols[e]);
        while (a != b) {
            if (a < b) { const int t = a; a = b; b = t; }
            const int seen = atomicCAS(parent + a, a, b);  // the larger root under the smaller
            if (seen == a) break;
            a = seen;  // a was no root any more: go on from its parent
        }
    }
}

// The compression walks without halving: a halving write from another thread (parent[v] =
// its grandparent, read before v's own root was written) could land after that write and
// leave v pointing at an ancestor that is no root. Each thread writes only its own entry.
extern "C" __global__ void uf_compress(long long n, int* parent) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        int root = parent[v], next;
        while (root > (next = parent[root])) root = next;
        parent[v] = root;
    }
}
"""


def available() -> str | None:
    return unavailable_reason()


def edge_list(csr: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each undirected edge of a symmetric pattern once, ``(i, j)`` with ``i < j`` (int32)."""
    upper = sp.triu(sp.csr_array(csr), k=1, format="coo")
    return upper.row.astype(np.int32), upper.col.astype(np.int32)


def model_labels(rows: np.ndarray, cols: np.ndarray, n: int) -> np.ndarray:
    """The kernels' algorithm, edge after edge on the host: hooks, path halving and the final
    compression as ``uf_link`` / ``uf_compress`` do them (int64 labels)."""
    parent = list(range(n))

    def find(v: int) -> int:
        current = parent[v]
        if current != v:
            previous = v
            while current > parent[current]:
                parent[previous] = parent[current]
                previous, current = current, parent[current]
        return current

    for u, v in zip(rows.tolist(), cols.tolist(), strict=True):
        a, b = find(u), find(v)
        while a != b:
            a, b = max(a, b), min(a, b)
            if parent[a] == a:
                parent[a] = b
                break
            a = parent[a]

    def root(v: int) -> int:
        while v > parent[v]:
            v = parent[v]
        return v

    return np.array([root(v) for v in range(n)], dtype=np.int64)


@functools.lru_cache(maxsize=2)
def _kernels(cp: Any) -> tuple[Any, Any]:
    module = cp.RawModule(code=SOURCE)
    return module.get_function("uf_link"), module.get_function("uf_compress")


def _cc(graph: PeerGraph) -> Callable[[], Any]:
    cp, _, _ = modules()
    n = graph.n
    if n >= np.iinfo(np.int32).max:
        raise Unavailable(f"unionfind: int32 vertex ids, {n} vertices")
    rows, cols = (cp.asarray(a) for a in edge_list(graph.csr))
    link, compress = _kernels(cp)
    edges = int(rows.size)
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]

    def blocks(count: int) -> int:
        return max(1, min(-(-count // THREADS), 8 * sms))

    def run() -> Any:
        parent = cp.arange(n, dtype=cp.int32)
        if edges:
            link((blocks(edges),), (THREADS,), (np.int64(edges), rows, cols, parent))
        compress((blocks(n),), (THREADS,), (np.int64(n), parent))
        return parent

    return run


OPS: dict[str, Callable[[PeerGraph], Callable[[], Any]]] = {"cc": _cc}


def to_numpy(op: str, result: Any) -> np.ndarray:
    if op not in OPS:
        raise KeyError(f"{NAME}: no op {op!r}")
    return asnumpy(result).astype(np.int64, copy=False)
