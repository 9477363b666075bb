"""Single-source shortest paths: frontier-based Bellman-Ford over the ``min_plus`` semiring."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..errors import InvalidValue
from ..matrix import Matrix
from ..progress import progress_bar
from ..semiring.catalogue import NAMESPACES
from ..vector import Vector
from ._checks import square_matrix, vertex

__all__ = ["sssp"]

_semiring = NAMESPACES["semiring"]


def sssp(
    A: Matrix,  # noqa: N803 - math spelling
    source: int,
    *,
    executor: str = "auto",
    progress: bool | None = None,
) -> Vector:
    """Shortest-path distances from ``source`` (Bellman-Ford, negative weights allowed).

    Each round is one product ``reached = frontier min.+ A``, where the frontier holds the
    vertices whose distance improved in the previous round (with that distance). A reached
    vertex joins the next frontier only if its candidate is strictly shorter than the distance
    known so far, so a round costs the out-edges of the improved vertices only. The rounds are
    :func:`hyblas.ops.propagate` rounds: on the GPU the narrow ones run in the device loop,
    without a host round trip per round. After round
    ``k`` the distances are those of the shortest paths of at most ``k`` edges; without a
    negative cycle, a shortest path has at most ``n - 1`` edges, so an improvement in round
    ``n`` proves a negative cycle reachable from ``source``.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix, rows = sources: ``A[i, j]`` is the weight of edge ``i -> j``.
        A stored 0 is an edge of weight 0 (absent entries are not edges). Negative weights
        are allowed. Bool values count as 0 / 1.
    source : int
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
        unsigned and bool weights; uint64 weights beyond the int64 range wrap).

    Raises
    ------
    InvalidObject
        If ``A`` is not a Matrix or ``source`` not an integer.
    DimensionMismatch
        If ``A`` is not square.
    IndexOutOfBounds
        If ``source`` is not a vertex.
    InvalidValue
        If a negative cycle is reachable from ``source`` (one that is not reachable does not
        matter), or ``progress`` is not a bool or None.
    MissingDependency
        If ``progress=True`` and tqdm is not installed.
    """
    square_matrix(A, "sssp")
    n = A.nrows
    source = vertex(source, n, "sssp")
    dtype = A.dtype if A.dtype.kind == "f" else np.dtype(np.int64)
    min_plus = _semiring["min_plus"][dtype]
    dist = Vector.from_coo([source], [0], size=n, dtype=dtype, backend=A.backend)
    frontier = dist.dup()
    shown = [0]  # rounds the bar shows
    with progress_bar(progress, total=None, desc="sssp", unit="round") as bar:

        def advanced(rounds: int, frontier_nnz: int) -> None:
            bar.set_postfix(frontier=frontier_nnz, refresh=False)
            bar.update(rounds - shown[0])
            shown[0] = rounds

        # n rounds: the last one finds an improvement only around a negative cycle
        ops.propagate(dist, frontier, A, min_plus, max_rounds=n, executor=executor,
                      on_rounds=advanced)  # fmt: skip
    if frontier.nnz:
        raise InvalidValue(f"sssp: a negative cycle is reachable from source={source} (distances "
                           f"still improve after {n} rounds of {n} vertices)")  # fmt: skip
    return dist
