"""PageRank by power iteration (matching ``networkx.pagerank``) or data-driven pushes."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .. import binary as _binary
from .. import monoid as _monoid
from .. import ops
from .. import semiring as _semiring
from .. import unary as _unary
from ..backend import names_oom
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..dtypes import short_repr
from ..errors import InvalidValue, NotConverged
from ..graph import Graph, as_graph
from ._checks import count, flag, real
from .reporting import ProgressBar, check_progress, finish, progress_bar

__all__ = ["pagerank"]

VARIANTS = ("power", "data")


@names_oom("pagerank")
def pagerank(
    A: Graph | Matrix,  # noqa: N803 - math spelling
    damping: float = 0.85,
    *,
    tol: float = 1e-6,
    max_iter: int = 100,
    iterations: int | None = None,
    variant: str = "power",
    executor: str = "auto",
    dtype: Any = np.float64,
    return_iterations: bool = False,
    progress: bool | None = None,
) -> Vector | tuple[Vector, int]:
    """PageRank of every vertex, as ``networkx.pagerank(G, alpha=damping, tol=tol)``.

    Edge ``i -> j`` (entry ``A[i, j]``) passes the share ``A[i, j] / Σ_k A[i, k]`` of ``i``'s
    rank to ``j``. Vertices whose out-weights sum to 0 (dangling) spread their rank evenly
    over all vertices. The ranks ``x`` are the fixed point of
    ``x = α (xP + d(x) / n) + (1 - α) / n`` (``P`` the row-normalized ``A``, ``d(x)`` the rank
    held by dangling vertices), computed in one of two ways:

    ``variant="power"``
        Power iteration from the uniform vector, one ``vxm`` over all vertices per iteration;
        it stops when the ranks change by less than ``n * tol`` in total (L1), as in networkx.
        With ``iterations=k`` it runs exactly ``k`` iterations instead, without any
        convergence test (and never raises for lack of convergence).
    ``variant="data"``
        Data-driven (push) PageRank, as Gunrock's and MultiGraph's PR-data: only vertices
        whose rank changed by more than ``tol`` since they last pushed push again. Round 1 is
        one power iteration from the uniform vector (every vertex pushes); each vertex then
        holds its rank ``r`` and its residual ``δ``, the (signed) change of its rank since it
        last pushed. In each later round the active vertices, those with ``|δ| > tol``, push
        ``α δ`` along their out-edges (dangling ones to every vertex) with one ``vxm`` over the
        active vertices only; what arrives is added to the receivers' ranks and residuals,
        and the pushers' residuals drop to 0. This keeps ``x* = r + (I - αM)⁻¹ αM δ`` (``M``
        the column-stochastic transition, ``x*`` the fixed point above) in every round, so it
        converges to the power method's fixed point. It stops when no vertex is active; the
        ranks are then within ``α / (1 - α) * n * tol`` of ``x*`` in total (L1), the bound the
        power method's stopping test gives, and are finally scaled to sum to 1 (which moves
        them by at most as much again).

    Parameters
    ----------
    A : Graph or Matrix
        Square adjacency matrix, rows = sources; its values are the (nonnegative) edge
        weights. A Matrix is taken as a directed graph.
    damping : float
        Probability of following an edge (networkx's ``alpha``).
    tol : float
    max_iter : int
        The most iterations (rounds, for ``"data"``) before giving up.
    iterations : int, optional
        ``variant="power"`` only: run exactly this many iterations (0 returns the uniform
        start), ignoring ``tol`` and ``max_iter``.
    variant : {'power', 'data'}
    executor : str
        Passed to :func:`hyblas.ops.vxm`.
    dtype : {np.float64, np.float32}
        The type of the ranks and of every product. float64 (the default) as networkx; float32
        as LAGraph and cuGraph compute PageRank: half the bytes per iteration and the memory
        per vector, with ranks rounded to about 7 significant digits.
    return_iterations : bool
        Also return the number of iterations (rounds, for ``"data"``) run.
    progress : bool, optional
        Show a tqdm progress bar, one step per iteration (round, for ``"data"``) out of
        ``max_iter`` (or ``iterations``), with the last L1 change (number of active vertices,
        for ``"data"``). None (default): only in a Jupyter kernel, once a call has run for a
        couple of seconds, and only if tqdm is installed.

    Returns
    -------
    Vector of ``dtype``
        One entry per vertex, summing to 1 (empty for a graph of 0 vertices).
    int
        Only with ``return_iterations``.

    Raises
    ------
    InvalidObject
        If ``A`` is not a Matrix, or ``return_iterations`` not a bool.
    DimensionMismatch
        If ``A`` is not square.
    InvalidValue
        For a negative, NaN or infinite weight in ``A``, a ``damping``, ``tol``, ``max_iter``
        or ``iterations`` that is not a number, ``damping`` outside [0, 1], ``tol <= 0``,
        ``max_iter < 1``, ``iterations < 0`` or given with ``"data"``, an unknown
        ``variant``, a ``dtype`` other than float32 / float64, ``progress`` not a bool or
        None.
    NotConverged
        If the iteration does not converge within ``max_iter`` steps (networkx raises
        ``PowerIterationFailedConvergence`` there); a subclass of InvalidValue.
    MissingDependency
        If ``progress=True`` and tqdm is not installed.

    Examples
    --------
    >>> G = hb.Graph.from_coo([0, 1, 2, 2], [1, 2, 0, 1], n=3)
    >>> rank = hb.algorithms.pagerank(G)
    >>> np.round(rank.to_dense(), 3)
    array([0.215, 0.397, 0.388])
    >>> round(float(rank.reduce("plus")), 6)
    1.0
    """
    name = "pagerank"
    graph = as_graph(A, name)
    A = graph.A  # noqa: N806
    damping = real(damping, name, "damping")
    if not 0.0 <= damping <= 1.0:  # NaN too
        raise InvalidValue(f"pagerank: damping must lie in [0, 1], got {damping}")
    tol = real(tol, name, "tol")
    if not tol > 0.0:
        raise InvalidValue(f"pagerank: tol must be positive, got {tol}")
    max_iter = count(max_iter, name, "max_iter", 1)
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise InvalidValue(
            f"pagerank: variant must be one of {VARIANTS}, got {short_repr(variant)}"
        )
    if iterations is not None:
        if variant != "power":
            raise InvalidValue(
                f"pagerank: iterations= runs a fixed number of power iterations; "
                f"it does not apply to variant={variant!r}"
            )
        iterations = count(iterations, name, "iterations", 0)
    return_iterations = flag(return_iterations, name, "return_iterations")
    check_progress(progress, "pagerank")
    dtype = _rank_type(dtype)
    n = A.nrows
    if n == 0:
        empty = Vector.new(dtype, 0, backend=A.backend)
        return (empty, 0) if return_iterations else empty
    shares = _shares(A, damping, dtype, undirected=graph.kind == "undirected")
    total = iterations if iterations is not None else max_iter
    unit = "iteration" if variant == "power" else "round"
    with progress_bar(progress, total=total, desc="pagerank", unit=unit) as bar:
        if variant == "power":
            ranks, done = _power(A, damping, shares, tol, max_iter, iterations, executor, bar)
        else:
            ranks, done = _data_driven(A, damping, shares, tol, max_iter, executor, bar)
        finish(bar)  # converged before max_iter
    return (ranks, done) if return_iterations else ranks


def _rank_type(dtype: Any) -> np.dtype:
    try:
        found = np.dtype(dtype) if dtype is not None else None
    except (TypeError, ValueError):
        found = None
    # "is None" first: a dtype compares equal to None (np.dtype(None) is float64)
    if found is None or found.name not in ("float32", "float64"):
        raise InvalidValue(f"pagerank: dtype must be float32 or float64, got {dtype!r}")
    return found


class _Shares(NamedTuple):
    edge: Vector  # α / out-weight of every vertex that sends along edges, 0 for the others
    dangling: Vector  # 1 for every vertex whose out-weight is 0 (dangling), 0 for the others
    dtype: np.dtype  # of the ranks and every product
    # an undirected Graph's A is its own transpose: the ranks travel by mxv over A, whose
    # rows are at hand, instead of vxm, which reads A by columns (a transpose, or a layout
    # of one, as large as A)
    undirected: bool


def _shares(A: Matrix, alpha: float, dtype: np.dtype, *, undirected: bool) -> _Shares:  # noqa: N803
    """What each vertex passes along each of its out-edges per unit of rank, damping included
    (one multiply per vertex and iteration does both). Both vectors are full: a full rank
    vector then gives a full input, the case cuSPARSE serves, and the dangling rank is the
    inner product of two full vectors (one pass), with no mask to build."""
    out_weights = ops.reduce_rows(A, _monoid["plus"][dtype])
    _check_weights(A, out_weights)
    senders = ops.select(out_weights, "valuene", 0.0)
    inverse = ops.apply(senders, _unary["minv"][dtype])
    damped = ops.apply(inverse, _binary["times"], right=alpha)
    dangling = _full(1.0, A, dtype)
    ops.assign(dangling, 0.0, None, mask=senders.S)
    edge = ops.ewise_add(damped, _full(0.0, A, dtype), _binary["first"])
    return _Shares(edge, dangling, dtype, undirected)


def _check_weights(A: Matrix, out_weights: Vector) -> None:  # noqa: N803
    """InvalidValue for weights PageRank has no meaning for: a negative one (a pass over the
    weights, signed types only), NaN or infinite ones (a pass over the ``n`` out-weights)."""
    if A.dtype.kind in "if" and A.nnz:
        low = ops.reduce_scalar(A, "min")
        if low < 0:
            raise InvalidValue(f"pagerank: edge weights must be non-negative; A holds {low}")
    total = float(ops.reduce_scalar(out_weights, _monoid["plus"][np.float64]))
    if not math.isfinite(total):
        raise InvalidValue(
            f"pagerank: edge weights must be finite; the out-weights of A sum to {total} "
            f"in {out_weights.dtype} (a NaN or infinite weight, or sums beyond the type)"
        )


def _push(
    A: Matrix,
    alpha: float,
    rank: Vector,
    shares: _Shares,
    executor: str,  # noqa: N803
    base: float | None = None,
) -> tuple[Vector, float]:
    """What ``rank`` (all or part of the vertices) sends: ``α (rank P + dangling rank / n)``.

    Returns the part sent along edges and the part every vertex receives from the dangling
    vertices (a scalar). With ``base``, the part sent along edges is added to a full vector of
    ``base`` plus that scalar, in the product's output write (one pass less than adding after).
    """
    semiring = _semiring["plus_times"][shares.dtype]
    # the dangling rank first: the host waits for it (a scalar), then queues the rest while
    # the device is still busy with the shares, so the device does not wait for the host
    everywhere = alpha * float(ops.inner(rank, shares.dangling, semiring)) / A.nrows
    share = ops.ewise_mult(rank, shares.edge, _binary["times"])
    if base is None:
        return _along_edges(A, share, shares, semiring, executor), everywhere
    out = _full(base + everywhere, A, shares.dtype)  # out + product, as ewise_add's would be
    return _along_edges(A, share, shares, semiring, executor, out=out), everywhere


def _along_edges(
    A: Matrix,  # noqa: N803
    share: Vector,
    shares: _Shares,
    semiring: Any,
    executor: str,
    out: Vector | None = None,
) -> Vector:
    """``share A`` (added into ``out`` if given): what every vertex receives along its
    in-edges."""
    accum = _binary["plus"] if out is not None else None
    if shares.undirected:
        return ops.mxv(A, share, semiring, out=out, accum=accum, executor=executor)
    return ops.vxm(share, A, semiring, out=out, accum=accum, executor=executor)


def _full(value: float, A: Matrix, dtype: np.dtype) -> Vector:  # noqa: N803
    return Vector.from_scalar(value, A.nrows, dtype=dtype, backend=A.backend)


def _power_step(
    A: Matrix,
    alpha: float,
    ranks: Vector,
    shares: _Shares,  # noqa: N803
    executor: str,
) -> Vector:
    return _push(A, alpha, ranks, shares, executor, base=(1.0 - alpha) / A.nrows)[0]


def _power(
    A: Matrix,
    alpha: float,
    shares: _Shares,
    tol: float,
    max_iter: int,  # noqa: N803
    iterations: int | None,
    executor: str,
    bar: ProgressBar,
) -> tuple[Vector, int]:
    n = A.nrows
    ranks = _full(1.0 / n, A, shares.dtype)
    if iterations is not None:  # a fixed amount of work: no convergence test
        for _ in range(int(iterations)):
            ranks = _power_step(A, alpha, ranks, shares, executor)
            bar.update()
        return ranks, int(iterations)
    plus = _monoid["plus"][shares.dtype]
    for iteration in range(1, max_iter + 1):
        new_ranks = _power_step(A, alpha, ranks, shares, executor)
        change = ops.apply(ops.ewise_add(new_ranks, ranks, "minus"), _unary["abs"]).reduce(plus)
        ranks = new_ranks
        l1_change = float(change)  # the iteration's one host synchronisation
        bar.set_postfix(change=l1_change, refresh=False)
        bar.update()
        if l1_change < n * tol:
            return ranks, iteration
    raise NotConverged(
        f"pagerank: no convergence within max_iter={max_iter} iterations "
        f"(last L1 change {l1_change:.3g}, needed < {n * tol:.3g})"
    )


def _data_driven(
    A: Matrix,
    alpha: float,
    shares: _Shares,
    tol: float,
    max_iter: int,  # noqa: N803
    executor: str,
    bar: ProgressBar,
) -> tuple[Vector, int]:
    plus = _binary["plus"]
    start = _full(1.0 / A.nrows, A, shares.dtype)
    ranks = _power_step(A, alpha, start, shares, executor)  # round 1: everyone pushes
    residual = ops.ewise_add(ranks, start, "minus")  # the change since each vertex pushed
    bar.update()
    for round_ in range(1, max_iter + 1):
        large = ops.select(ops.apply(residual, _unary["abs"]), "valuegt", tol)
        bar.set_postfix(active=large.nnz, refresh=False)  # nnz is cached on the host
        if not large.nnz:
            total = float(ranks.reduce(_monoid["plus"][shares.dtype]))
            return ops.apply(ranks, _binary["times"], right=1.0 / total), round_
        if round_ == max_iter:
            break
        active = ops.apply(residual, _unary["identity"], mask=large.S)
        arrived, everywhere = _push(A, alpha, active, shares, executor)
        if everywhere:
            arrived = ops.ewise_add(arrived, _full(everywhere, A, shares.dtype), plus)
        ops.assign(residual, 0.0, None, mask=active.S)  # the active vertices pushed theirs
        ops.apply(arrived, _unary["identity"], accum=plus, out=residual)
        ops.apply(arrived, _unary["identity"], accum=plus, out=ranks)
        bar.update()
    largest = float(ops.apply(residual, _unary["abs"]).reduce(_monoid["max"][shares.dtype]))
    raise NotConverged(
        f"pagerank: variant='data' did not converge within max_iter={max_iter} "
        f"rounds ({large.nnz} vertices still changed by more than tol={tol} "
        f"since they last pushed, the most by {largest:.3g})"
    )
