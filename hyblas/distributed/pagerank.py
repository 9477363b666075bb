"""PageRank by power iteration on a partitioned graph (the formula of
:func:`hyblas.algorithms.pagerank`, a fixed number of iterations)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from .. import semiring as _semiring
from ..containers.vector import Vector
from ..dtypes import short_repr
from ..errors import InvalidValue
from .bfs import _square
from .dense import DenseExchange
from .matrix import DistMatrix
from .vector import DistVector

__all__ = ["pagerank"]


def pagerank(
    A: DistMatrix,  # noqa: N803 - math spelling
    damping: float = 0.85,
    *,
    iterations: int = 20,
    dtype: Any = np.float64,
    executor: str = "auto",
) -> DistVector:
    """PageRank by ``iterations`` power iterations from the uniform vector, as
    ``hb.algorithms.pagerank(A, damping, iterations=iterations)``. *Collective.*

    Each iteration is one partitioned product of full vectors
    (:class:`~hyblas.distributed.DenseExchange`) and one all-reduce of the rank held by
    dangling vertices, reading nothing on the host (the local products' policy may). The
    product is ``ranks ⊕.⊗ A``: a ``vxm`` (the row block's pieces all-gathered, the partial
    sums reduce-scattered, on a square grid a move to the owners). Where ``A.symmetric``
    (see :class:`~hyblas.distributed.DistMatrix`) it is also ``A ⊕.⊗ ranks``: on a
    ``p x 1`` grid an ``mxv`` (the ranks all-gathered; each process computes its own rows,
    nothing reduced), on a square grid a ``vxm`` into the column layout and an ``mxv`` back
    from it in turn (no move to the owners).

    Parameters
    ----------
    A : DistMatrix
        Square; rows = sources; values are the (nonnegative) edge weights.
    damping : float
        In [0, 1].
    iterations : int
        Power iterations, >= 0.
    dtype : {np.float64, np.float32}
    executor : str
        The local products' executor.

    Returns
    -------
    DistVector of ``dtype``
        One entry per vertex.

    Raises
    ------
    InvalidValue
        For ``damping`` outside [0, 1], ``iterations < 0``, another ``dtype``, or a negative
        weight in ``A``.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 1, 2, 2], [1, 2, 0, 1], nrows=3)
    >>> rank = hb.distributed.pagerank(A, iterations=50)
    >>> np.round(rank.gather().to_dense(), 3)
    array([0.215, 0.397, 0.388])
    """
    n = _square(A, "pagerank")
    if not isinstance(damping, int | float | np.floating) or not 0.0 <= damping <= 1.0:
        raise InvalidValue(f"pagerank: damping must lie in [0, 1], got {short_repr(damping)}")
    if not isinstance(iterations, int | np.integer) or iterations < 0:
        raise InvalidValue(
            f"pagerank: iterations must be an int >= 0, got {short_repr(iterations)}"
        )
    found = np.dtype(dtype) if dtype is not None else None
    if found is None or found.name not in ("float32", "float64"):
        raise InvalidValue(f"pagerank: dtype must be float32 or float64, got {dtype!r}")
    alpha = float(damping)
    if n == 0:
        return DistVector.new(A.comm, 0, found, grid=A.grid)
    lowest = A.comm.allreduce_scalar(_lowest(A), "min", np.float64)
    if lowest < 0:
        raise InvalidValue(f"pagerank: edge weights must be non-negative; A holds {lowest}")
    comm = A.comm
    xp = comm.xp
    plus_times = _semiring["plus_times"][found]
    product = DenseExchange(A, plus_times, found, executor)
    start, stop = A.rows.piece(comm.rank)
    # the out-weights: row sums, 0 (plus's identity) where a row holds no entry
    weights = product.mxv(xp.ones(stop - start, dtype=found))
    sends = weights != 0
    # alpha / out-weight along each sender's edges, computed as hb.algorithms does (the
    # weight's inverse, then times alpha); the dangling vertices' rank goes to every vertex
    inverse = 1 / xp.where(sends, weights, 1).astype(found, copy=False)
    edge_share = xp.where(sends, inverse * found.type(alpha), 0).astype(found, copy=False)
    dangling = (~sends).astype(found)
    steps = _steps(A)
    # each layout's pieces of the per-vertex factors (the column layout's moved there once)
    factors = {"row": (edge_share, dangling)}
    if "column" in steps:
        factors["column"] = (product.to_column(edge_share), product.to_column(dangling))
    ranks = xp.full(weights.size, 1.0 / n, dtype=found)
    held_in = "row"
    for it in range(int(iterations)):
        share, dangles = factors[held_in]
        held = xp.dot(ranks, dangles).astype(np.float64).reshape(1)
        total = comm.allreduce(held, "sum") if comm.size > 1 else held
        base = ((1.0 - alpha) / n + alpha * total / n).astype(found)
        step = steps[it % len(steps)]
        if step == "vxm":
            ranks = product.vxm(ranks * share)
        elif step == "column":
            ranks, held_in = product.vxm(ranks * share, result="column"), "column"
        else:
            ranks, held_in = product.mxv(ranks * share, given=held_in), "row"
        ranks = ranks + base
    if held_in == "column":
        ranks = product.to_row(ranks)
    everywhere = xp.ones(ranks.size, dtype=bool)
    local = Vector.wrap_bitmap(ranks, everywhere, backend=A.backend, nnz=ranks.size)
    return DistVector(comm, A.rows, local)


def _steps(A: DistMatrix) -> tuple[str, ...]:  # noqa: N803
    """The products of one round of iterations: ``vxm`` (row layout to row layout),
    ``column`` (a vxm into the column layout), ``mxv`` (into the row layout, from the layout
    the ranks are held in)."""
    if not A.symmetric:
        return ("vxm",)
    return ("mxv",) if A.grid.cols == 1 else ("column", "mxv")


def _lowest(A: DistMatrix) -> float:  # noqa: N803
    """The smallest weight of this process's block (0 where it holds none or is unsigned)."""
    if not A.local.nnz or A.dtype.kind not in "if":
        return 0.0
    return float(ops.reduce_scalar(A.local, "min"))
