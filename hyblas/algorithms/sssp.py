"""Single-source shortest paths: frontier-based Bellman-Ford over the ``min_plus`` semiring,
with delta-stepping's buckets where the weights are non-negative."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .. import monoid as _monoid
from .. import ops
from .. import semiring as _semiring
from .. import unary as _unary
from ..backend import names_oom
from ..containers.matrix import Matrix
from ..containers.vector import Vector, one_entries
from ..dtypes import short_repr
from ..errors import DomainMismatch, InvalidValue, NegativeCycle
from ..graph import Graph
from ..traversal import propagate
from ._checks import adjacency, vertex
from .reporting import check_progress, progress_bar

__all__ = ["sssp"]


@names_oom("sssp")
def sssp(
    A: Graph | Matrix,  # noqa: N803 - math spelling
    source: int,
    *,
    delta: float | str | None = "auto",
    executor: str = "auto",
    progress: bool | None = None,
) -> Vector:
    """Shortest-path distances from ``source`` (Bellman-Ford, negative weights allowed).

    Each round is one product ``reached = frontier min.+ A``, where the frontier holds the
    vertices whose distance improved (with that distance). A reached vertex joins the frontier
    only if its candidate is strictly shorter than the distance known so far, so a round costs
    the out-edges of the expanded vertices only. The rounds are :func:`hyblas.ops.propagate`
    rounds: on the GPU the narrow ones run in the device loop, without a host round trip per
    round.

    With non-negative weights on a graph of low mean degree (see ``delta``) the rounds are
    bucketed as in delta-stepping (Meyer & Sanders; the GPU near-far queue of Davidson et
    al.): a round expands only the frontier vertices closer than a threshold that moves up in
    steps of ``delta``, so most vertices are expanded once, with their final distance, instead
    of once per improvement. On a high-diameter graph (a grid, a road network) that walks most
    edges about once instead of many times over.

    Otherwise the rounds are plain Bellman-Ford: after round ``k`` the distances
    are those of the shortest paths of at most ``k`` edges; without a negative cycle, a
    shortest path has at most ``n - 1`` edges, so an improvement in round ``n`` proves a
    negative cycle reachable from ``source``.

    Parameters
    ----------
    A : Graph or Matrix
        Square adjacency matrix, rows = sources: ``A[i, j]`` is the weight of edge ``i -> j``.
        A stored 0 is an edge of weight 0 (absent entries are not edges). Negative weights
        are allowed. Bool values count as 0 / 1. A Matrix is taken as a directed graph.
    source : int
    delta : float, 'auto' or None
        The bucket width (``propagate(delta=...)``). ``'auto'`` (default): for non-negative
        weights ``32 * mean weight / mean out-degree`` (Davidson et al.'s near-far rule: about
        a warp's worth of edges settled per bucket; integer weights round it up to an int)
        where that is at least two mean weights, i.e. a mean out-degree of at most 16 (grids,
        meshes, road networks); plain rounds otherwise, and for weights with a negative one.
        On a low-diameter graph plain rounds walk few edges more than buckets do, in fewer
        rounds, so they are faster there; on a high-diameter graph buckets save most of the
        edge walks. None: plain Bellman-Ford rounds. A number needs non-negative weights.
    executor : str
        Passed to :func:`hyblas.ops.propagate`.
    progress : bool, optional
        Show a tqdm progress bar, one step per relaxation round, with the frontier size (the
        number of rounds is not known in advance; at most ``n``). Rounds in the device loop
        show up together when the loop hands back to the host. None (default): only in a
        Jupyter kernel, once a call has run for a couple of seconds, and only if tqdm is
        installed.

    Returns
    -------
    Vector
        ``dist[v]`` is the length of a shortest path ``source -> v``; ``dist[source] == 0``
        (unless a negative cycle exists, which raises); unreachable vertices have no entry.
        Its dtype is ``A.dtype`` for float32 / float64 matrices and int64 otherwise (integer,
        unsigned and bool weights). An infinite weight gives infinite distances (``-inf``
        weights, ``-inf`` ones; both kinds in one matrix raise).

    Raises
    ------
    InvalidObject
        If ``A`` is not a Matrix or ``source`` not an integer.
    DimensionMismatch
        If ``A`` is not square.
    IndexOutOfBounds
        If ``source`` is not a vertex.
    NegativeCycle
        If a negative cycle is reachable from ``source`` (one that is not reachable does not
        matter); a subclass of InvalidValue.
    InvalidValue
        If ``progress`` is not a bool or None, or ``delta`` is not 'auto', None or a
        number > 0, or a number with a negative weight, or a weight is NaN, or weights of
        both +inf and -inf.
    DomainMismatch
        If integer weights could make the int64 distances overflow: a uint64 weight beyond
        int64, or ``n`` times the largest weight (in absolute value) beyond int64 (the
        message suggests float64 weights).
    MissingDependency
        If ``progress=True`` and tqdm is not installed.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 2, 1], [1, 2, 1, 3], [4.0, 1.0, 2.0, 5.0], nrows=4, ncols=4)
    >>> hb.algorithms.sssp(A, 0).to_dense(fill_value=np.inf)
    array([0., 3., 1., 8.])
    """
    A = adjacency(A, "sssp")  # noqa: N806
    n = A.nrows
    source = vertex(source, n, "sssp")
    check_progress(progress, "sssp")
    _check_delta(delta)
    dtype = A.dtype if A.dtype.kind == "f" else np.dtype(np.int64)
    min_plus = _semiring["min_plus"][dtype]
    low, total = _weight_facts(A)
    delta = _bucket_width(A, dtype, delta, low, total)
    dist, frontier = one_entries(source, ((0, dtype), (0, dtype)), size=n, backend=A.backend)
    shown = [0]  # rounds the bar shows
    with progress_bar(progress, total=None, desc="sssp", unit="round") as bar:

        def advanced(rounds: int, frontier_nnz: int) -> None:
            bar.set_postfix(frontier=frontier_nnz, refresh=False)
            bar.update(rounds - shown[0])
            shown[0] = rounds

        # plain rounds: the n-th one finds an improvement only around a negative cycle (with
        # non-negative weights, the bucketed ones, there is none: they end by themselves)
        propagate(
            dist,
            frontier,
            A,
            min_plus,
            max_rounds=n if delta is None else None,
            executor=executor,
            on_rounds=advanced,
            delta=delta,
        )
    if frontier.nnz:
        raise NegativeCycle(
            f"sssp: a negative cycle is reachable from source={source} (distances "
            f"still improve after {n} rounds of {n} vertices)"
        )
    return dist


_WARP = 32.0  # edges settled per bucket (Davidson et al.'s near-far rule)
# width >= 2 mean weights  <=>  mean out-degree <= _WARP / 2
_MOST_MEAN_DEGREE = _WARP / 2


def _check_delta(delta: Any) -> None:
    if isinstance(delta, str):
        if delta != "auto":
            raise InvalidValue(f"sssp: delta must be 'auto', None or a number > 0, got {delta!r}")
    elif delta is not None and (
        isinstance(delta, bool | np.bool_)
        or not isinstance(delta, int | float | np.integer | np.floating)
    ):
        raise InvalidValue(
            f"sssp: delta must be 'auto', None or a number > 0, got {short_repr(delta)}"
        )


_INT64_MAX = int(np.iinfo(np.int64).max)


def _once(A: Matrix, name: str, compute: Callable[[], Any]) -> Any:  # noqa: N803
    """``compute()``, a pass over ``A``'s weights, kept in ``A.cache`` (emptied when the
    entries change) under ``("sssp", name)``: searches from other sources on the same graph do
    not repeat the pass and the host read it ends with. A pass that raises keeps nothing."""
    key = ("sssp", name)
    if key not in A.cache:
        A.cache[key] = compute()
    return A.cache[key]


def _weight_facts(A: Matrix) -> tuple[Any, float | None]:  # noqa: N803
    """:func:`_check_weights`, once per matrix."""
    return _once(A, "weight_facts", lambda: _check_weights(A))


def _check_weights(A: Matrix) -> tuple[Any, float | None]:  # noqa: N803
    """Raise for weights the distances cannot take; returns what the checks computed: the
    smallest weight and the weights' float64 sum (None where not computed).

    Float weights: one pass (the sum), NaN in it only if a weight is NaN (or both infinities
    are weights), which a second pass tells. Integer weights: the distances are int64 sums of
    at most ``n`` weights (a round adds one edge to a walk of at most ``n - 1``); where the
    dtype's range alone does not rule out an overflow (int64, uint64, or 32-bit weights on
    more than 2**31 vertices), two passes find the weights' range."""
    if A.nnz == 0:
        return None, None
    n = A.nrows
    if A.dtype.kind == "f":
        total = float(ops.reduce_scalar(A, _monoid["plus"][np.float64]))
        if math.isnan(total):  # a NaN weight, or inf and -inf ones
            if bool(ops.reduce_scalar(ops.apply(A, _unary["isnan"]), _monoid["lor"])):
                raise InvalidValue(
                    "sssp: A holds a NaN weight; a path through it has no length (drop those "
                    "entries, e.g. with a mask of ops.apply(A, unary.isnan))"
                )
            raise InvalidValue(
                "sssp: A holds both an infinite and a -infinite weight; a path through both "
                "has no length"
            )
        return None, total
    if A.dtype.kind not in "iu":
        return None, None  # bool: 0 / 1
    low, high = _dt.int_range(A.dtype)
    if n * max(-low, high) <= _INT64_MAX:
        return None, None
    low = 0 if A.dtype.kind == "u" else int(ops.reduce_scalar(A, "min"))
    high = int(ops.reduce_scalar(A, "max"))
    if high > _INT64_MAX:
        raise DomainMismatch(
            f"sssp: A holds the weight {high}, beyond int64, the distances' type; "
            "convert A to float64 (A.dup(np.float64)) for approximate distances"
        )
    if n * max(-low, high) > _INT64_MAX:
        raise DomainMismatch(
            f"sssp: int64 distances could overflow: weights reach {max(-low, high)} and a "
            f"path may have up to {n} edges; convert A to float64 (A.dup(np.float64))"
        )
    return low, None


def _bucket_width(
    A: Matrix,  # noqa: N803
    dtype: np.dtype,
    delta: Any,
    low: Any = None,
    total: float | None = None,
) -> Any:
    """The ``delta`` to pass to propagate: None for plain rounds. ``low`` / ``total``: the
    smallest weight and the float64 sum where :func:`_check_weights` computed them."""
    if delta is None or A.nnz == 0:
        return None
    if delta == "auto" and A.nnz > _MOST_MEAN_DEGREE * A.nrows:
        # the rule below gives plain rounds whatever the weights: no pass over them
        return None
    if low is None and A.dtype.kind in "if":
        low = _once(A, "smallest_weight", lambda: ops.reduce_scalar(A, "min"))
    negative = low is not None and low < 0
    if delta != "auto":
        if negative:
            raise InvalidValue(
                "sssp: delta (bucketed rounds) needs non-negative weights; this "
                "matrix has a negative one (use delta=None)"
            )
        return delta
    if negative:
        return None
    if total is None:
        plus = _monoid["plus"][np.float64]
        total = _once(A, "weight_sum", lambda: float(ops.reduce_scalar(A, plus)))
    mean_weight = total / A.nnz
    width = _WARP * mean_weight / (A.nnz / A.nrows)
    if not (math.isfinite(width) and width > 0 and width >= 2 * mean_weight):
        return None  # all weights 0 or infinite, or a low-diameter graph: plain rounds
    if dtype.kind == "f":
        return width
    # integer weights: a whole width, no wider than the int64 distances (propagate would cap)
    return min(max(1, math.ceil(width)), _INT64_MAX)
