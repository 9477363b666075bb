"""Connected components by lock-free union-find with Afforest's sampling (Sutton, Ben-Nun &
Barak, "Optimizing Parallel Graph Connectivity Computation via Subgraph Sampling", IPDPS
2018), on the GPU in the kernels of ``kernels/union_find.cu`` (the ECL-CC family: hooks by
compare-and-swap, the larger root under the smaller, path halving in every find), on the CPU
in their NumPy emulation.

The passes, each over the CSR rows of the graph:

1. sampling: every vertex linked to its first :data:`SAMPLE_NEIGHBOURS` neighbours, then
   every parent pointed at its root (compression);
2. the giant component: the most frequent root among :data:`GIANT_SAMPLES` vertices drawn
   (seeded) from all;
3. the full pass: every vertex whose root is not the giant's linked to the rest of its
   neighbours (a vertex with more than :data:`HEAVY` of them by a thread block of its own);
   on a structurally symmetric graph the giant's vertices are skipped, since each edge
   leaving the giant component is also an edge into it, which the other end links;
4. the final compression: each vertex labelled with its root, the smallest vertex id of its
   component (a root only ever goes under a smaller vertex).

The emulation runs the same passes on the same edges; where the kernels hook edge by edge in
any order, it hooks in rounds (every crossing edge's larger root under the smallest root
offered to it, then every parent pointed at its root, until no edge crosses two trees). The
labels are the same: the smallest vertex of each component.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..backend import compile_module, grid_stride_blocks, launch, to_backend, translate_oom
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..device.codegen import kernel_text
from ..errors import DimensionMismatch
from ..executors import trace as _trace

__all__ = [
    "union_find",
    "emulate",
    "UnionFindParams",
    "DEFAULT_UNION_FIND",
    "SAMPLE_NEIGHBOURS",
    "GIANT_SAMPLES",
    "HEAVY",
    "builtin_specializations",
    "kernel_names",
]

_SOURCE = Path(__file__).parent / "kernels" / "union_find.cu"
THREADS = 256
#: Neighbours each vertex is linked to in the sampling pass (Afforest's two rounds).
SAMPLE_NEIGHBOURS = 2
#: Vertices whose roots are counted to find the giant component.
GIANT_SAMPLES = 1024
#: A vertex with more neighbours than this left after sampling is linked by a thread block
#: (``HYBLAS_UF_HEAVY`` in the kernel file); the others by one thread each.
HEAVY = 32
_GIANT_SEED = 5
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}


@dataclass(frozen=True)
class UnionFindParams:
    """How :func:`union_find` runs.

    Attributes
    ----------
    sample : int
        Neighbours linked per vertex before the giant component is looked for (0: no
        sampling, and no giant component to skip).
    skip_giant : bool
        Whether the full pass skips the vertices of the giant component: right only on a
        structurally symmetric graph (every edge stored both ways).
    """

    sample: int = SAMPLE_NEIGHBOURS
    skip_giant: bool = True


DEFAULT_UNION_FIND = UnionFindParams()


def kernel_names(parent: str, indptr: str, indices: str) -> tuple[str, ...]:
    """The template instances of the five kernels for a parent type and CSR index types
    (CUDA spellings: ``int`` or ``long long``)."""
    three = f"{parent}, {indptr}, {indices}"
    return (
        f"hyblas_uf_sample<{three}>",
        f"hyblas_uf_compress<{parent}>",
        f"hyblas_uf_link_rows<{three}>",
        f"hyblas_uf_link_heavy<{three}>",
    )


@functools.lru_cache(maxsize=16)
def _module(names: tuple[str, ...]) -> Any:
    return compile_module(kernel_text(_SOURCE), names)


@functools.lru_cache(maxsize=8)
def _giant_samples(n: int, backend: str) -> Any:
    """The seeded vertices whose roots are counted (the same on both backends)."""
    ids = np.random.default_rng(_GIANT_SEED).integers(0, n, min(GIANT_SAMPLES, n))
    return to_backend(ids, backend)


def _most_frequent(xp: Any, roots: Any) -> Any:
    """The most frequent value of ``roots`` (the smallest on a tie), as a one-element array:
    no host read."""
    ordered = xp.sort(roots)
    counts = xp.searchsorted(ordered, ordered, side="right") - xp.searchsorted(
        ordered, ordered, side="left"
    )
    return ordered[xp.argmax(counts)].reshape(1)


def union_find(
    A: Matrix,  # noqa: N803 - math spelling
    params: UnionFindParams = DEFAULT_UNION_FIND,
) -> Vector:
    """Each vertex's component label, the smallest vertex id of its component, over the
    stored entries of ``A`` read as undirected edges (weak components of a directed graph).

    Parameters
    ----------
    A : Matrix
        Square; rows are the vertices, its stored entries (values ignored) the edges.
    params : UnionFindParams
        ``skip_giant`` only where ``A``'s structure is symmetric.

    Returns
    -------
    Vector
        Full, int64.

    Raises
    ------
    DimensionMismatch
        If ``A`` is not square.

    Examples
    --------
    >>> from hyblas.traversal import union_find
    >>> A = hb.Matrix.from_coo([0, 1, 3], [1, 0, 4], True, nrows=6, ncols=6)
    >>> union_find(A, hb.traversal.UnionFindParams(skip_giant=False)).to_dense()
    array([0, 0, 2, 3, 3, 5])
    """
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"union_find: A must be square, got {A.nrows}x{A.ncols}")
    n = A.nrows
    timer = _trace.start_timer(A.backend) if _trace.tracing() else None
    if A.backend == "cuda":
        labels = _run_kernels(A, params)
    else:
        labels = emulate(A.indptr, A.indices, n, params)
    if timer is not None:
        _trace.record(
            _trace.TraceRow(
                call=0,
                op="link",
                executor="union-find",
                asked="",
                policy="",
                outputs=n,
                input_nnz=n,
                allowed=None,
                edges=A.nnz,
                reason=(
                    f"union-find kernels (hyblas_uf_*): sampling {params.sample} neighbours, "
                    f"full pass {'skipping' if params.skip_giant else 'over'} the giant "
                    "component, compression"
                ),
            ),
            timer.stop(),
        )
    present = A.xp.ones(n, dtype=bool)
    return Vector(n, np.int64, backend=A.backend, bitmap=(labels, present), nnz=n)


def _run_kernels(A: Matrix, params: UnionFindParams) -> Any:  # noqa: N803
    xp, n = A.xp, A.nrows
    parent_dtype = np.dtype(np.int32 if n < np.iinfo(np.int32).max else np.int64)
    indptr, indices = A.indptr, A.indices
    names = kernel_names(_INDEX[parent_dtype], _INDEX[indptr.dtype], _INDEX[indices.dtype])
    module = _module(names)
    sample, compress, link_rows, link_heavy = (module.get_function(name) for name in names)
    blocks = grid_stride_blocks(n, THREADS)
    with translate_oom(f"union-find over {n} vertices"):
        labels = xp.empty(n, dtype=np.int64)
        parent = xp.arange(n, dtype=parent_dtype)
        heavy = xp.empty(n, dtype=parent_dtype)
        heavy_count = xp.zeros(1, dtype=np.uint64)
        if n == 0:
            return labels
        giant = xp.full(1, -1, dtype=parent_dtype)
        if params.sample:
            launch(
                sample,
                (blocks,),
                (THREADS,),
                (np.int64(n), indptr, indices, parent, np.int32(params.sample)),
            )
            if params.skip_giant:
                no_labels = np.uint64(0)  # a null pointer: only the parents are written
                launch(compress, (blocks,), (THREADS,), (np.int64(n), parent, no_labels))
                giant = _most_frequent(xp, parent[_giant_samples(n, A.backend)])
        first = np.int32(params.sample)
        launch(
            link_rows,
            (blocks,),
            (THREADS,),
            (np.int64(n), indptr, indices, parent, first, giant, heavy, heavy_count),
        )
        launch(
            link_heavy, (blocks,), (THREADS,), (indptr, indices, parent, first, heavy, heavy_count)
        )
        launch(compress, (blocks,), (THREADS,), (np.int64(n), parent, labels))
    return labels


# --- the NumPy emulation ----------------------------------------------------------------------


def _compress(parent: np.ndarray) -> np.ndarray:
    """Every parent pointed at its root (pointer jumping to the fixed point)."""
    while True:
        grand = parent[parent]
        if np.array_equal(grand, parent):
            return parent
        parent = grand


def _hook(parent: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rounds of hooking until no edge ``(u[k], v[k])`` joins two trees: each crossing edge
    offers the smaller of its two roots to the larger, which takes the smallest offered."""
    parent = _compress(parent)
    while u.size:
        ru, rv = parent[u], parent[v]
        crossing = ru != rv
        if not crossing.any():
            break
        u, v, ru, rv = u[crossing], v[crossing], ru[crossing], rv[crossing]
        np.minimum.at(parent, np.maximum(ru, rv), np.minimum(ru, rv))
        parent = _compress(parent)
    return parent


def emulate(
    indptr: np.ndarray, indices: np.ndarray, n: int, params: UnionFindParams = DEFAULT_UNION_FIND
) -> np.ndarray:
    """The labels the kernels compute (int64), by the same passes over the same edges (NumPy
    arrays in, a NumPy array out)."""
    indptr = np.asarray(indptr, dtype=np.int64)
    indices = np.asarray(indices, dtype=np.int64)
    parent = np.arange(n, dtype=np.int64)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    rank = np.arange(indices.size, dtype=np.int64) - indptr[rows]  # position in its row
    sampled = rank < params.sample
    parent = _hook(parent, rows[sampled], indices[sampled])
    giant = -1
    if params.sample and params.skip_giant and n:
        roots = parent[_giant_samples(n, "cpu")]
        values, counts = np.unique(roots, return_counts=True)
        giant = int(values[np.argmax(counts)])
    rest = ~sampled & (parent[rows] != giant)
    return _hook(parent, rows[rest], indices[rest])


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel names)`` for the compile check: every kernel for both parent
    types, with int32 and int64 CSR indices and int64 row pointers over int32 indices."""
    layouts = (("int", "int"), ("long long", "int"), ("long long", "long long"))
    for parent in ("int", "long long"):
        names = [name for indptr, idx in layouts for name in kernel_names(parent, indptr, idx)]
        label = "union_find_int32" if parent == "int" else "union_find_int64"
        yield label, kernel_text(_SOURCE), list(dict.fromkeys(names))
