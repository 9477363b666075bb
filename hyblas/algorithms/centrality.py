"""Betweenness centrality: Brandes' algorithm over batches of sources, as masked products."""

from __future__ import annotations

import math
from typing import Any

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
from ..errors import InvalidObject, InvalidValue
from ..graph import Graph, as_graph
from ._checks import flag, vertices
from .reporting import check_progress, progress_bar

__all__ = ["betweenness_centrality", "networkx_scale", "sample_sources"]


def networkx_scale(
    n: int,
    k: int | None = None,
    *,
    directed: bool,
    normalized: bool,
    source: bool = False,
    legacy: bool = False,
) -> float:
    """The factor ``networkx.betweenness_centrality`` (``endpoints=False``) multiplies a
    vertex's raw Brandes sum with.

    The raw sum of ``v`` is ``Σ_s Σ_{t ≠ s, v} σ(s, t | v) / σ(s, t)`` over the sources ``s``
    used and every target ``t``, counting ordered pairs (so an undirected path counts twice).

    Parameters
    ----------
    n : int
        Number of vertices.
    k : int, optional
        Number of sampled sources; None (or ``k == n``) for all vertices as sources.
    directed : bool
    normalized : bool
    source : bool
        Whether the vertex was one of the ``k`` sampled sources (matters only when sampling).
    legacy : bool
        The formula of networkx 3.2 - 3.4 instead of that of networkx >= 3.5 (networkx pull
        requests 7908 and 7949 changed the sampled case).

    Returns
    -------
    float
        With ``N = n - 1`` and ``c = 1`` if directed else ``2``, networkx >= 3.5:

        * ``N < 2``: 1 (no rescaling);
        * all sources: ``1 / (N (N - 1))`` normalized, else ``1 / c``;
        * ``k`` sampled sources, a non-source vertex: ``1 / (k (N - 1))`` normalized, else
          ``N / (k c)``;
        * ``k`` sampled sources, a source vertex: ``1 / ((k - 1) (N - 1))`` normalized, else
          ``N / ((k - 1) c)``; NaN when ``k == 1``, as in networkx.

        Legacy (networkx 3.2 - 3.4), for every vertex alike: ``1 / ((n - 1)(n - 2))``
        normalized, ``1 / 2`` undirected unnormalized, each times ``n / k`` when ``k`` sources
        were sampled; 1 (no rescaling) for directed unnormalized and for normalized ``n <= 2``.

    Raises
    ------
    InvalidValue
        If ``n < 0``, or ``k`` is not in ``[1, n]``.

    Examples
    --------
    >>> from hyblas.algorithms.centrality import networkx_scale
    >>> networkx_scale(4, 4, directed=False, normalized=True)
    0.16666666666666666
    """
    if n < 0:
        raise InvalidValue(f"networkx_scale: n must be non-negative, got {n}")
    if k is not None and not 1 <= k <= n:
        raise InvalidValue(f"networkx_scale: k={k} sampled sources must lie in [1, n={n}]")
    if k == n:
        k = None  # networkx treats k == n as all sources
    correction = 1 if directed else 2
    if legacy:
        if normalized:
            scale = None if n <= 2 else 1.0 / ((n - 1) * (n - 2))
        else:
            scale = None if directed else 1.0 / correction
        if scale is None:
            return 1.0
        return scale * n / k if k is not None else scale
    big_n = n - 1
    if big_n < 2:
        return 1.0
    if k is None:
        return 1.0 / (big_n * (big_n - 1)) if normalized else 1.0 / correction
    count = k - 1 if source else k
    if count == 0:
        return math.nan
    return 1.0 / (count * (big_n - 1)) if normalized else big_n / (count * correction)


def sample_sources(n: int, k: int, seed: int | np.random.Generator | None = 0) -> np.ndarray:
    """The ``k`` distinct sources :func:`~hyblas.algorithms.betweenness_centrality` samples,
    in ascending order: ``np.sort(np.random.default_rng(seed).choice(n, size=k, replace=False))``.

    Raises
    ------
    InvalidValue
        If ``k`` is not in ``[0, n]`` or ``seed`` is not a seed.

    Examples
    --------
    >>> from hyblas.algorithms.centrality import sample_sources
    >>> sample_sources(10, 3, seed=0)
    array([5, 6, 9])
    """
    if not 0 <= k <= n:
        raise InvalidValue(
            f"betweenness_centrality: sources={k} sampled sources must lie in [0, n={n}]"
        )
    try:
        rng = np.random.default_rng(seed)
    except (TypeError, ValueError) as exc:
        raise InvalidValue(
            "betweenness_centrality: seed must be None, an int >= 0 or a numpy Generator, "
            f"got {short_repr(seed)}"
        ) from exc
    return np.sort(rng.choice(n, size=k, replace=False)).astype(np.int64)


@names_oom("betweenness_centrality")
def betweenness_centrality(
    A: Graph | Matrix,  # noqa: N803 - math spelling
    *,
    sources: int | Any | None = None,
    normalized: bool = True,
    directed: bool | None = None,
    seed: int | np.random.Generator | None = 0,
    batch: int = 64,
    executor: str = "auto",
    progress: bool | None = None,
) -> Vector:
    """Betweenness centrality of every vertex over unweighted shortest paths, as
    ``networkx.betweenness_centrality(G, k, normalized)`` on the same graph.

    Brandes' algorithm, ``batch`` sources at a time (the LAGraph formulation): the forward
    sweep advances all searches of the batch with one product per level,
    ``F<¬σ.S, replace> = F plus_first A``, whose entries count the shortest paths from each
    source (``F`` is ``batch x n``); each level's ``F`` is kept. The backward sweep goes from the
    deepest level ``d`` up to level 2: ``W = (1 + δ) / σ`` on level ``d``, then
    ``δ<level d-1> = (W plus_first Aᵀ) * σ``. The column sums of ``δ`` are the raw sums, which
    are then rescaled with :func:`~hyblas.algorithms.centrality.networkx_scale`.

    Parameters
    ----------
    A : Graph or Matrix
        Square adjacency matrix, rows = sources (edge ``i -> j`` is ``A[i, j]``). Values are
        ignored (every edge has length 1); self loops never lie on a shortest path.
    sources : None, int or sequence of int
        None: every vertex is a source (exact centrality). An int ``k``: ``k`` distinct sources
        drawn with :func:`~hyblas.algorithms.centrality.sample_sources` (``seed``), an estimate
        scaled as networkx scales its ``k`` samples. A sequence: these distinct vertices are the
        sources, scaled as ``k`` sampled ones (``k = len(sources)``; networkx's ``k == n`` counts as
        all vertices). No sources give 0 everywhere (networkx divides by zero there).
    normalized : bool
        Divide by the number of (source, target) pairs, as networkx does.
    directed : bool, optional
        Treat ``A`` as a directed graph (``nx.DiGraph``) or an undirected one (``nx.Graph``, each
        edge stored both ways; unnormalized values are halved as each pair is counted twice).
        None: undirected exactly when ``A`` is an undirected Graph or a structurally
        symmetric Matrix.
    seed : int, numpy Generator or None
        Seeds the sampling when ``sources`` is an int.
    batch : int
        Sources per forward/backward sweep: memory is ``O(batch · n)`` per BFS level.
    executor : str
        Passed to :func:`hyblas.ops.mxm`.
    progress : bool, optional
        Show a tqdm progress bar counting the sources done, advanced once per batch. None
        (default): only in a Jupyter kernel, once a call has run for a couple of seconds, and
        only if tqdm is installed.

    Returns
    -------
    Vector of float64
        One entry per vertex. The scaling follows networkx >= 3.5; with sampled sources (an
        int ``k`` or a sequence) networkx < 3.5 scaled differently (see
        :func:`~hyblas.algorithms.centrality.networkx_scale`, ``legacy=True``). With exactly
        one sampled source and ``n >= 3`` the source's own entry is NaN, as in networkx.

    Raises
    ------
    InvalidObject
        If ``A`` is not a Matrix, ``sources`` is neither None, an int nor a one-dimensional
        sequence of integers, or ``normalized`` / ``directed`` is not a bool.
    DimensionMismatch
        If ``A`` is not square.
    IndexOutOfBounds
        If a source is not a vertex.
    InvalidValue
        If an int ``sources`` is outside ``[0, n]``, a sequence repeats a vertex,
        ``batch < 1``, ``seed`` is not a seed, or ``progress`` is not a bool or None.
    MissingDependency
        If ``progress=True`` and tqdm is not installed.

    Examples
    --------
    >>> G = hb.Graph.from_coo([0, 1, 2], [1, 2, 3], kind="undirected")  # a path 0-1-2-3
    >>> hb.algorithms.betweenness_centrality(G).to_dense()
    array([0.        , 0.66666667, 0.66666667, 0.        ])
    >>> hb.algorithms.betweenness_centrality(G, normalized=False).to_dense()
    array([0., 2., 2., 0.])
    """
    name = "betweenness_centrality"
    graph = as_graph(A, name)
    A = graph.A  # noqa: N806
    n = A.nrows
    if isinstance(sources, bool):
        raise InvalidObject(
            f"{name}: sources must be None, an int or a sequence of vertex ids, got {sources!r}"
        )
    if isinstance(batch, bool) or not isinstance(batch, int | np.integer) or batch < 1:
        raise InvalidValue(f"{name}: batch must be a positive int, got {short_repr(batch)}")
    check_progress(progress, name)
    normalized = flag(normalized, name, "normalized")
    if directed is not None:
        directed = flag(directed, name, "directed")
    if sources is None:
        chosen = np.arange(n, dtype=np.int64)
    elif isinstance(sources, int | np.integer):
        chosen = sample_sources(n, int(sources), seed)
    else:
        chosen = vertices(sources, n, name)
        if np.unique(chosen).size != chosen.size:
            raise InvalidValue(f"{name}: sources repeat a vertex; give distinct vertices")
    if directed is None:
        directed = graph.is_directed and not graph.is_symmetric_structure

    # the backward sweep multiplies by Aᵀ and reads only its pattern (plus_first): an
    # undirected graph's A has that pattern, and no transpose is built (on the largest
    # graphs, building one is most of the memory the algorithm needs)
    reverse = A if not graph.is_directed else A.T
    raw = Vector.from_scalar(0.0, n, dtype=np.float64, backend=A.backend)
    with progress_bar(progress, total=int(chosen.size), desc=name, unit="source") as bar:
        for first in range(0, chosen.size, int(batch)):
            batch_sources = chosen[first : first + int(batch)]
            dependencies = _brandes_batch(A, reverse, batch_sources, executor)
            raw = ops.ewise_add(
                raw, ops.reduce_columns(dependencies, _monoid["plus"]), _binary["plus"]
            )
            bar.update(int(batch_sources.size))
    if chosen.size == 0:
        return raw
    k = None if sources is None else chosen.size
    times = _binary["times"][np.float64]
    scale = networkx_scale(n, k, directed=bool(directed), normalized=normalized)
    centrality = ops.apply(raw, times, right=scale)
    source_scale = networkx_scale(n, k, directed=bool(directed), normalized=normalized, source=True)
    if source_scale != scale:  # sampled sources: the sources scale differently
        is_source = Vector.from_coo(chosen, True, size=n, dtype=bool, backend=A.backend)
        ops.apply(raw, times, right=source_scale, mask=is_source.S, out=centrality)
    return centrality


def _brandes_batch(
    A: Matrix,  # noqa: N803
    reverse: Matrix,
    batch_sources: np.ndarray,
    executor: str,
) -> Matrix:
    """δ (``len(batch_sources) x n``): row ``r`` holds the dependencies of every vertex on the
    source ``batch_sources[r]`` (the source's own entry absent). ``reverse`` has the pattern
    of ``Aᵀ``."""
    n = A.nrows
    b = batch_sources.size
    plus_first = _semiring["plus_first"][np.float64]
    plus, times, div = _binary["plus"], _binary["times"], _binary["div"]

    # forward: frontiers[d][r, v] = σ(source_r, v), the number of shortest paths, at depth d
    frontier = Matrix.from_coo(
        np.arange(b), batch_sources, 1.0, nrows=b, ncols=n, dtype=np.float64, backend=A.backend
    )
    frontiers = [frontier]
    visited = frontier
    while True:
        frontier = ops.mxm(
            frontier, A, plus_first, mask=~visited.S, replace=True, executor=executor
        )
        if not frontier.nnz:
            break
        frontiers.append(frontier)
        visited = ops.ewise_add(visited, frontier, plus)

    # backward: δ(v) = Σ_{w child of v} σ(v) / σ(w) · (1 + δ(w)), deepest level first
    delta = Matrix.new(np.float64, b, n, backend=A.backend)
    for depth in range(len(frontiers) - 1, 1, -1):
        sigma, parent_sigma = frontiers[depth], frontiers[depth - 1]
        # W = (1 + δ) / σ on level `depth` (δ is absent on leaves of the BFS DAG)
        weight = ops.ewise_add(
            ops.apply(sigma, _unary["minv"]), ops.ewise_mult(delta, sigma, div), plus
        )
        pulled = ops.mxm(
            weight, reverse, plus_first, mask=parent_sigma.S, replace=True, executor=executor
        )
        ops.ewise_mult(pulled, parent_sigma, times, accum=plus, out=delta)
    return delta
