"""PageRank by power iteration, matching ``networkx.pagerank``."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..errors import InvalidValue
from ..matrix import Matrix
from ..semiring.catalogue import NAMESPACES
from ..vector import Vector
from ._checks import square_matrix

__all__ = ["pagerank"]

_semiring = NAMESPACES["semiring"]
_binary = NAMESPACES["binary"]
_monoid = NAMESPACES["monoid"]
_unary = NAMESPACES["unary"]


def pagerank(
    A: Matrix,  # noqa: N803 - math spelling
    damping: float = 0.85,
    *,
    tol: float = 1e-6,
    max_iter: int = 100,
    executor: str = "auto",
    return_iterations: bool = False,
) -> Vector | tuple[Vector, int]:
    """PageRank of every vertex, as ``networkx.pagerank(G, alpha=damping, tol=tol)``.

    Edge ``i -> j`` (entry ``A[i, j]``) passes the share ``A[i, j] / Σ_k A[i, k]`` of ``i``'s
    rank to ``j``. Vertices whose out-weights sum to 0 (dangling) spread their rank evenly
    over all vertices. Iteration stops when the ranks change by less than ``n * tol`` in
    total (L1), as in networkx.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix, rows = sources; its values are the edge weights.
    damping : float
        Probability of following an edge (networkx's ``alpha``).
    tol : float
    max_iter : int
    executor : str
        Passed to :func:`hyblas.ops.vxm`.
    return_iterations : bool
        Also return the number of iterations run.

    Returns
    -------
    Vector of float64
        One entry per vertex, summing to 1 (empty for a graph of 0 vertices).
    int
        Only with ``return_iterations``.

    Raises
    ------
    DimensionMismatch
        If ``A`` is not square.
    InvalidValue
        For ``damping`` outside [0, 1], ``tol <= 0`` or ``max_iter < 1``, or if the iteration
        does not converge within ``max_iter`` steps (networkx raises
        ``PowerIterationFailedConvergence`` there).
    """
    square_matrix(A, "pagerank")
    if not 0.0 <= float(damping) <= 1.0:
        raise InvalidValue(f"pagerank: damping must lie in [0, 1], got {damping}")
    if not float(tol) > 0.0:
        raise InvalidValue(f"pagerank: tol must be positive, got {tol}")
    if int(max_iter) < 1:
        raise InvalidValue(f"pagerank: max_iter must be at least 1, got {max_iter}")
    n = A.nrows
    backend = A.backend
    if n == 0:
        empty = Vector.new(np.float64, 0, backend=backend)
        return (empty, 0) if return_iterations else empty
    alpha = float(damping)
    plus = _monoid["plus"][np.float64]
    plus_times = _semiring["plus_times"][np.float64]
    times, minus = _binary["times"], _binary["minus"]

    # 1 / out-weight of every vertex with a nonzero out-weight; the others are dangling.
    out_weight = ops.select(ops.reduce_rows(A, plus), "valuene", 0.0)
    inv_out = ops.apply(out_weight, _unary["minv"])
    ranks = Vector.from_scalar(1.0 / n, n, dtype=np.float64, backend=backend)
    for iteration in range(1, int(max_iter) + 1):
        share = ops.ewise_mult(ranks, inv_out, times)
        spread = ops.vxm(share, A, plus_times, executor=executor)
        dangling = ops.apply(ranks, _unary["identity"], mask=~out_weight.S).reduce(plus)
        teleport = (alpha * float(dangling) + (1.0 - alpha)) / n
        new_ranks = ops.ewise_add(
            ops.apply(spread, times, right=alpha),
            Vector.from_scalar(teleport, n, dtype=np.float64, backend=backend),
            _binary["plus"],
        )
        change = ops.apply(ops.ewise_add(new_ranks, ranks, minus), _unary["abs"]).reduce(plus)
        ranks = new_ranks
        if float(change) < n * float(tol):
            return (ranks, iteration) if return_iterations else ranks
    raise InvalidValue(
        f"pagerank: no convergence within max_iter={max_iter} iterations "
        f"(last L1 change {float(change):.3g}, needed < {n * float(tol):.3g})"
    )
