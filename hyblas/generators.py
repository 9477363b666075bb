"""Seeded, reproducible graph generators: Graph500 Kronecker (R-MAT), 2D grid, Erdos-Renyi.

Every generator is vectorized array code on the backend's array module (NumPy or CuPy); Python
loops run only over bit levels or doubling rounds, never over edges or vertices. Randomness
comes from a counter-based hash (splitmix64 of a stream key and a counter) written with uint64
integer arithmetic, which behaves identically on NumPy and CuPy, so the same seed gives the
same graph on both backends.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np

from . import dtypes as _dt
from .backend import resolve, translate_oom, xp_for
from .containers.derived import known_symmetric, mark_mirrored_values, mark_symmetric
from .containers.matrix import Matrix
from .device import arrays as _prim
from .errors import DimensionMismatch, DomainMismatch, InvalidObject, InvalidValue

__all__ = ["kronecker", "kronecker_edges", "grid_2d", "erdos_renyi", "random_weights"]

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB

# Stream tags keep the random numbers of different uses independent for one seed.
_STREAM_KRONECKER_LEVEL = 1
_STREAM_KRONECKER_RELABEL = 2
_STREAM_ERDOS_RENYI = 3
_STREAM_WEIGHTS = 4


def _splitmix64_int(x: int) -> int:
    """splitmix64 of one Python int (the scalar twin of :func:`_splitmix64`)."""
    z = (x + _GOLDEN) & _MASK64
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
    return z ^ (z >> 31)


def _stream_key(seed: int, stream: int, counter: int = 0) -> int:
    """A 64-bit key for (seed, stream, counter), mixed so that nearby inputs differ widely."""
    return _splitmix64_int(_splitmix64_int(_splitmix64_int(seed & _MASK64) ^ stream) ^ counter)


def _splitmix64(
    xp: ModuleType, counter: Any, key: int, *, out: Any = None, scratch: Any = None
) -> Any:
    """splitmix64 of ``counter + key`` for a uint64 array ``counter`` (wrapping arithmetic).

    ``out`` and ``scratch`` (uint64 arrays shaped like ``counter``) may be given to reuse
    memory across calls; ``out`` receives the result.
    """
    z = xp.add(counter, np.uint64((key + _GOLDEN) & _MASK64), out=out)
    tmp = xp.empty_like(z) if scratch is None else scratch
    for shift, multiplier in ((30, _MIX1), (27, _MIX2), (31, None)):
        xp.right_shift(z, np.uint64(shift), out=tmp)
        z ^= tmp
        if multiplier is not None:
            z *= np.uint64(multiplier)
    return z


def _counters(xp: ModuleType, count: int, start: int = 0) -> Any:
    _prim.check_fits(count, np.uint64, f"drawing {count} random numbers")
    return xp.arange(start, start + count, dtype=np.uint64)


def _is_integer(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _check_seed(seed: Any) -> int:
    """A seed: an integer that fits 64 bits (negative ones as their two's complement)."""
    if not _is_integer(seed):
        raise InvalidObject(f"seed must be an integer, got {seed!r}")
    if not -(2**63) <= seed < 2**64:
        raise InvalidValue(f"seed must fit 64 bits (in [-2**63, 2**64)), got {seed}")
    return int(seed)


def _check_count(value: Any, argument: str, minimum: int = 0) -> int:
    if not _is_integer(value) or value < minimum:
        raise InvalidValue(f"{argument} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_real(value: Any, argument: str) -> float:
    """A finite real number (a Python or NumPy int or float; not a bool) as a float."""
    if not isinstance(value, int | float | np.integer | np.floating) or isinstance(
        value, bool | np.bool_
    ):
        raise InvalidObject(f"{argument} must be a real number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an int beyond float64
        number = math.inf
    if not math.isfinite(number):
        raise InvalidValue(f"{argument} must be finite, got {value!r}")
    return number


def _check_flag(value: Any, argument: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise InvalidObject(f"{argument} must be a bool, got {value!r}")
    return bool(value)


def _check_vertices(n: int, what: str) -> None:
    """DimensionMismatch when an ``n x n`` graph's edges cannot be numbered by int64 keys."""
    if not _prim.keys_fit(n, n):
        raise DimensionMismatch(
            f"{what} gives {n} vertices; an {n}x{n} matrix has more positions than int64 "
            f"keys number (at most {math.isqrt(_prim.KEY_SPACE)} vertices)"
        )


def _pattern_matrix(xp: ModuleType, keys: Any, n: int, dtype: np.dtype, backend: str) -> Matrix:
    """An ``n x n`` matrix with value 1 at the strictly increasing linear keys ``row*n+col``."""
    idx = _prim.index_dtype(int(keys.size), n, n)
    indptr, indices = _prim.csr_from_sorted_keys(xp, keys, n, n, idx)
    values = xp.ones(keys.size, dtype=dtype)
    return Matrix(indptr, indices, values, (n, n), backend=backend)


def kronecker(
    scale: int,
    edge_factor: int = 16,
    *,
    seed: int = 0,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
    symmetric: bool = True,
    dtype: Any = np.float32,
    backend: str | None = None,
) -> Matrix:
    """A Graph500-style Kronecker (R-MAT) graph with ``2**scale`` vertices.

    ``edge_factor * 2**scale`` edges are generated. For each edge and each of the ``scale`` bit
    levels a quadrant is drawn with probabilities ``a`` (top left), ``b`` (top right), ``c``
    (bottom left) and ``d = 1 - a - b - c`` (bottom right), setting one bit of the source and
    of the destination. Vertices are then relabelled by a random permutation, self loops are
    removed and repeated edges merged; every stored value is 1.

    Parameters
    ----------
    scale : int
        log2 of the number of vertices (0 to 31).
    edge_factor : int
        Generated edges per vertex (before removing self loops and duplicates).
    seed : int
        The same seed gives the same graph, on every backend.
    a, b, c : float
        Quadrant probabilities (Graph500: 0.57, 0.19, 0.19).
    symmetric : bool
        Add the transpose, giving an undirected graph (both directions stored).
    dtype : dtype
        Value type of the stored ones.
    backend : {'cpu', 'cuda'}, optional
        Default: :func:`hyblas.backend`.

    Returns
    -------
    Matrix
        ``n x n`` adjacency matrix, rows = sources.

    Raises
    ------
    InvalidValue
        For a scale outside [0, 31], a negative edge factor, a seed beyond 64 bits, or
        probabilities that are not a distribution (each finite in [0, 1], a + b + c <= 1).
    InvalidObject
        For arguments of the wrong type (a probability that is not a number, a seed that is
        not an integer, a ``symmetric`` that is not a bool).
    DomainMismatch
        For a ``dtype`` hyblas does not store.
    OutOfMemory
        If the edges do not fit in memory.

    Examples
    --------
    >>> A = hb.generators.kronecker(6, edge_factor=4, seed=1)  # 2**6 vertices
    >>> A.shape, A.dtype
    ((64, 64), dtype('float32'))
    """
    scale, edge_factor, seed, probs = _kronecker_arguments(scale, edge_factor, seed, a, b, c)
    symmetric = _check_flag(symmetric, "symmetric")
    dtype = _dt.lookup(dtype)
    name = resolve(backend)
    xp = xp_for(name)
    n = 1 << scale
    m = edge_factor * n
    with translate_oom(f"generating a Kronecker graph of {n} vertices and {m} edges"):
        return _kronecker(xp, n, m, scale, seed, probs, symmetric, dtype, name)


def _kronecker_arguments(
    scale: Any, edge_factor: Any, seed: Any, a: Any, b: Any, c: Any
) -> tuple[int, int, int, tuple[float, float, float]]:
    """The checked ``(scale, edge_factor, seed, (a, b, c))`` of a Kronecker graph."""
    scale = _check_count(scale, "scale")
    if scale > 31:
        raise InvalidValue(f"scale must be at most 31 (keys are int64), got {scale}")
    edge_factor = _check_count(edge_factor, "edge_factor")
    seed = _check_seed(seed)
    probs = (_check_real(a, "a"), _check_real(b, "b"), _check_real(c, "c"))
    if min(probs) < 0 or sum(probs) > 1 + 1e-12:
        raise InvalidValue(f"a, b, c must be >= 0 with a + b + c <= 1, got a={a}, b={b}, c={c}")
    return scale, edge_factor, seed, probs


def kronecker_edges(
    scale: int,
    edge_factor: int = 16,
    *,
    seed: int = 0,
    start: int = 0,
    stop: int | None = None,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
    backend: str | None = None,
) -> tuple[Any, Any]:
    """Edges ``start`` to ``stop - 1`` of the stream :func:`kronecker` draws, relabelled,
    self loops dropped (neither merged nor symmetrized).

    Each edge is a function of the seed and its number alone, so processes that take
    disjoint ranges of ``[0, edge_factor * 2**scale)`` generate the graph together:
    :func:`kronecker` is the union of every range's edges (and their transposes, with
    ``symmetric=True``), repeats merged.

    Parameters
    ----------
    scale, edge_factor, seed, a, b, c
        As :func:`kronecker`.
    start, stop : int
        The range of edge numbers (``stop`` default: every edge).
    backend : {'cpu', 'cuda'}, optional
        Default: :func:`hyblas.backend`.

    Returns
    -------
    src, dst : arrays of int64
        NumPy or CuPy, as ``backend``.

    Raises
    ------
    InvalidValue
        As :func:`kronecker`, and for a range outside ``[0, edge_factor * 2**scale]``.

    Examples
    --------
    >>> src, dst = hb.generators.kronecker_edges(4, 2, seed=1, start=0, stop=5)
    >>> src.dtype, bool((src != dst).all())
    (dtype('int64'), True)
    """
    scale, edge_factor, seed, probs = _kronecker_arguments(scale, edge_factor, seed, a, b, c)
    m = edge_factor << scale
    start = _check_count(start, "start")
    stop = m if stop is None else _check_count(stop, "stop")
    if not start <= stop <= m:
        raise InvalidValue(f"the edges must satisfy 0 <= start <= stop <= {m}, got {start}, {stop}")
    xp = xp_for(resolve(backend))
    with translate_oom(f"generating edges {start} to {stop} of a Kronecker graph"):
        return _kronecker_edges(xp, 1 << scale, scale, seed, probs, start, stop)


def _kronecker_edges(
    xp: ModuleType,
    n: int,
    scale: int,
    seed: int,
    probs: tuple[float, float, float],
    start: int,
    stop: int,
) -> tuple[Any, Any]:
    src, dst = _rmat_endpoints(xp, stop - start, scale, seed, probs, start)
    # Random relabel: the permutation sorting hashed vertex ids (distinct keys: splitmix64 is a
    # bijection), applied to both endpoints.
    vertex_hash = _splitmix64(xp, _counters(xp, n), _stream_key(seed, _STREAM_KRONECKER_RELABEL))
    perm = xp.argsort(vertex_hash).astype(np.uint32)
    del vertex_hash
    src = perm[src]
    dst = perm[dst]
    del perm
    off_diagonal = src != dst
    return src[off_diagonal].astype(np.int64), dst[off_diagonal].astype(np.int64)


def _kronecker(
    xp: ModuleType,
    n: int,
    m: int,
    scale: int,
    seed: int,
    probs: tuple[float, float, float],
    symmetric: bool,
    dtype: np.dtype,
    name: str,
) -> Matrix:
    src, dst = _kronecker_edges(xp, n, scale, seed, probs, 0, m)
    if symmetric:
        keys = xp.empty(2 * src.size, dtype=np.int64)
        xp.left_shift(src, scale, out=keys[: src.size])
        keys[: src.size] |= dst
        xp.left_shift(dst, scale, out=keys[src.size :])
        keys[src.size :] |= src
    else:
        keys = (src << scale) | dst
    del src, dst
    # key (row << scale) | col equals row * n + col: the linear key the CSR builder expects
    return _pattern_matrix(xp, _prim.sorted_unique(xp, keys, overwrite=True), n, dtype, name)


_LEVELS_PER_HASH = 4  # one 64-bit hash gives four 16-bit uniform numbers


def _rmat_endpoints(
    xp: ModuleType,
    m: int,
    scale: int,
    seed: int,
    probs: tuple[float, float, float],
    start: int = 0,
) -> tuple[Any, Any]:
    """Source and destination ids (uint32 arrays of length ``m``) of the R-MAT edges.

    Each level draws a 16-bit uniform ``r`` and picks the quadrant ``q`` in {0: a, 1: b,
    2: c, 3: d} through a 65536-entry table; ``q = 2 * src_bit + dst_bit``. Four levels share
    one 64-bit hash; their quadrants form one byte, which two 256-entry tables split into four
    source and four destination bits. So the work per level is a few byte-wide passes.
    """
    cumulative = np.cumsum(probs)
    r = np.arange(1 << 16, dtype=np.int64)
    thresholds = [min(int(round(p * (1 << 16))), 1 << 16) for p in cumulative]
    quadrant = sum((r >= t).astype(np.uint8) for t in thresholds).astype(np.uint8)
    quadrant_of = xp.asarray(quadrant)
    byte = np.arange(256, dtype=np.uint32)
    src_nibble = np.zeros(256, dtype=np.uint32)
    dst_nibble = np.zeros(256, dtype=np.uint32)
    for k in range(_LEVELS_PER_HASH):  # quadrant k of a byte sits in bits [2k, 2k+2)
        src_nibble |= ((byte >> (2 * k + 1)) & 1) << k
        dst_nibble |= ((byte >> (2 * k)) & 1) << k
    src_of, dst_of = xp.asarray(src_nibble), xp.asarray(dst_nibble)

    counter = _counters(xp, m, start)  # edge numbers start to start + m - 1
    src = xp.zeros(m, dtype=np.uint32)
    dst = xp.zeros(m, dtype=np.uint32)
    hashed = xp.empty(m, dtype=np.uint64)
    scratch = xp.empty(m, dtype=np.uint64)
    for first in range(0, scale, _LEVELS_PER_HASH):
        levels = min(_LEVELS_PER_HASH, scale - first)
        key = _stream_key(seed, _STREAM_KRONECKER_LEVEL, first)
        _splitmix64(xp, counter, key, out=hashed, scratch=scratch)
        words = hashed.view(np.uint16)  # little-endian on every supported platform
        code = quadrant_of[words[0::4]]  # (fancy indexing beats xp.take(out=) on NumPy)
        for k in range(1, levels):
            q = quadrant_of[words[k::4]]
            q <<= np.uint8(2 * k)
            code |= q
        shift = np.uint32(levels)
        src <<= shift
        src |= src_of[code]
        dst <<= shift
        dst |= dst_of[code]
    return src, dst


def grid_2d(rows: int, cols: int, *, dtype: Any = np.float32, backend: str | None = None) -> Matrix:
    """The 4-neighbour grid graph of ``rows x cols`` vertices.

    Vertex ``(r, c)`` has id ``r * cols + c`` and is joined to its up, down, left and right
    neighbours. The matrix is symmetric, without self loops, every value 1.

    Parameters
    ----------
    rows, cols : int
    dtype : dtype
    backend : {'cpu', 'cuda'}, optional

    Returns
    -------
    Matrix
        ``(rows*cols) x (rows*cols)``.

    Raises
    ------
    InvalidValue
        For a negative or non-integer ``rows`` or ``cols``.
    DimensionMismatch
        If ``rows * cols`` vertices are more than int64 keys number.
    DomainMismatch
        For a ``dtype`` hyblas does not store.
    OutOfMemory
        If the grid does not fit in memory.

    Examples
    --------
    >>> A = hb.generators.grid_2d(2, 3)
    >>> A.shape, A.nnz  # 7 edges, each stored both ways
    ((6, 6), 14)
    """
    rows = _check_count(rows, "rows")
    cols = _check_count(cols, "cols")
    n = rows * cols
    _check_vertices(n, f"grid_2d({rows}, {cols})")
    dtype = _dt.lookup(dtype)
    name = resolve(backend)
    xp = xp_for(name)
    with translate_oom(f"generating a {rows}x{cols} grid graph"):
        return _grid(xp, rows, cols, n, dtype, name)


def _grid(xp: ModuleType, rows: int, cols: int, n: int, dtype: np.dtype, name: str) -> Matrix:
    ids = xp.arange(n, dtype=np.int64)
    col_of = ids % max(cols, 1)
    right = ids[col_of < cols - 1]  # edges (v, v+1)
    down = ids[ids < n - cols]  # edges (v, v+cols)
    src = xp.concatenate([right, right + 1, down, down + cols])
    dst = xp.concatenate([right + 1, right, down + cols, down])
    keys = xp.sort(src * np.int64(max(n, 1)) + dst)
    return _pattern_matrix(xp, keys, n, dtype, name)


def erdos_renyi(
    n: int,
    m: int,
    *,
    seed: int = 0,
    symmetric: bool = False,
    dtype: Any = np.float32,
    backend: str | None = None,
) -> Matrix:
    """A uniformly random graph with exactly ``m`` distinct edges and no self loops (G(n, m)).

    Candidate edges are drawn from the hash stream in a fixed order; the result is the first
    ``m`` distinct ones, so it depends only on ``(n, m, seed, symmetric)``.

    Parameters
    ----------
    n : int
        Number of vertices.
    m : int
        Number of edges: directed edges, or undirected edges when ``symmetric`` (then the
        matrix stores ``2 * m`` entries).
    seed : int
    symmetric : bool
        Undirected: store each edge in both directions.
    dtype : dtype
    backend : {'cpu', 'cuda'}, optional

    Returns
    -------
    Matrix

    Raises
    ------
    InvalidValue
        If ``m`` exceeds the number of possible edges, for a negative or non-integer ``n`` or
        ``m``, or a seed beyond 64 bits.
    InvalidObject
        For a seed that is not an integer or a ``symmetric`` that is not a bool.
    DimensionMismatch
        If ``n`` vertices are more than int64 keys number.
    DomainMismatch
        For a ``dtype`` hyblas does not store.
    OutOfMemory
        If the edges do not fit in memory.

    Examples
    --------
    >>> A = hb.generators.erdos_renyi(100, 300, seed=2)
    >>> A.shape, A.nnz
    ((100, 100), 300)
    """
    n = _check_count(n, "n")
    m = _check_count(m, "m")
    seed = _check_seed(seed)
    symmetric = _check_flag(symmetric, "symmetric")
    _check_vertices(n, f"erdos_renyi(n={n})")
    dtype = _dt.lookup(dtype)
    possible = n * (n - 1) // (2 if symmetric else 1)
    if m > possible:
        kind = "undirected" if symmetric else "directed"
        raise InvalidValue(
            f"m={m} but a graph of n={n} vertices has only {possible} possible "
            f"{kind} edges without self loops"
        )
    name = resolve(backend)
    xp = xp_for(name)
    with translate_oom(f"generating a random graph of {n} vertices and {m} edges"):
        return _erdos_renyi(xp, n, m, seed, symmetric, dtype, name)


def _erdos_renyi(
    xp: ModuleType, n: int, m: int, seed: int, symmetric: bool, dtype: np.dtype, name: str
) -> Matrix:
    key = _stream_key(seed, _STREAM_ERDOS_RENYI)
    edges = xp.zeros(0, dtype=np.int64)
    drawn = 0
    want = m + m // 8 + 64
    while m and edges.size < m:
        # Draw candidates [drawn, want) and keep, among all candidates so far, the first
        # occurrence of each edge in draw order. Earlier candidates never change, so the
        # result does not depend on how many rounds were needed.
        hashed = _splitmix64(xp, _counters(xp, want - drawn, drawn), key)
        src = ((hashed >> np.uint64(32)) % np.uint64(n)).astype(np.int64)
        dst = ((hashed & np.uint64(0xFFFFFFFF)) % np.uint64(n)).astype(np.int64)
        if n > 2**32:  # ids beyond 32 bits: take the second half from a second hash
            hashed2 = _splitmix64(xp, hashed, key)
            src = (hashed % np.uint64(n)).astype(np.int64)
            dst = (hashed2 % np.uint64(n)).astype(np.int64)
        keep = src != dst
        src, dst = src[keep], dst[keep]
        if symmetric:
            src, dst = xp.minimum(src, dst), xp.maximum(src, dst)
        candidates = xp.concatenate([edges, src * np.int64(n) + dst])
        order = xp.arange(candidates.size, dtype=np.int64)
        sorted_keys, order = _prim.sort_by_keys(xp, candidates, order)
        starts = _prim.segment_starts(xp, sorted_keys)
        first = xp.sort(order[starts])
        edges = candidates[first]
        drawn = want
        want = 2 * want
    edges = edges[:m]
    if symmetric:
        src, dst = edges // np.int64(max(n, 1)), edges % np.int64(max(n, 1))
        edges = xp.concatenate([edges, dst * np.int64(n) + src])
    return _pattern_matrix(xp, xp.sort(edges), n, dtype, name)


def random_weights(
    A: Matrix,  # noqa: N803 - math spelling
    low: float,
    high: float,
    *,
    seed: int = 0,
    dtype: Any = None,
) -> Matrix:
    """A matrix with the structure of ``A`` and values uniform in ``[low, high)``.

    The weight of entry ``(i, j)`` is a hash of ``(seed, min(i, j), max(i, j))``, so a
    symmetric matrix gets symmetric weights (and ``A[i, j]``, ``A[j, i]`` always agree).

    Parameters
    ----------
    A : Matrix
    low, high : float
        ``low < high``, both finite.
    seed : int
    dtype : dtype, optional
        Default: ``A.dtype`` if it is a float type, else float64. An integer dtype gets
        integers uniform in ``[low, high)``. A float dtype gets values of that dtype that lie
        in ``[low, high)``, compared exactly with the bounds as given: with ``low=0.7`` no
        float32 value is float32(0.7), which lies below 0.7; a value that rounds outside is
        clipped to the least or the largest value of the dtype inside.

    Returns
    -------
    Matrix
        On the backend of ``A``.

    Raises
    ------
    InvalidObject
        If ``A`` is not a Matrix, ``low`` or ``high`` not a real number, ``seed`` not an
        integer.
    InvalidValue
        Unless ``low < high`` are finite, ``high - low`` is finite, and ``dtype`` has a value
        in ``[low, high)`` with both bounds in its range; for a seed beyond 64 bits.
    DomainMismatch
        For a ``dtype`` that is not a numeric type hyblas stores (bool included).

    Examples
    --------
    >>> A = hb.generators.grid_2d(3, 3)
    >>> W = hb.generators.random_weights(A, 1.0, 10.0, seed=0)
    >>> W.nnz == A.nnz, bool(W.reduce_scalar("min") >= 1.0)
    (True, True)
    """
    if not isinstance(A, Matrix):
        raise InvalidObject(f"A must be a Matrix, got {type(A).__name__}")
    seed = _check_seed(seed)
    lo_f, hi_f = _check_real(low, "low"), _check_real(high, "high")
    if not low < high:  # exact for ints beyond 2**53 too
        raise InvalidValue(f"need low < high, got low={low}, high={high}")
    if not math.isfinite(hi_f - lo_f):
        raise InvalidValue(f"high - low overflows float64 (low={low}, high={high})")
    target = (
        _dt.lookup(dtype)
        if dtype is not None
        else (A.dtype if A.dtype.kind == "f" else np.dtype(np.float64))
    )
    if target.kind not in "iuf":
        raise DomainMismatch(f"random_weights needs a numeric dtype, got {target.name}")
    span = _integer_span(low, high, target) if target.kind in "iu" else None
    bounds = _float_bounds(low, high, target) if target.kind == "f" else None
    xp = A.xp
    with translate_oom(f"random weights for {A.nnz} entries"):
        rows = _prim.row_ids(xp, A.indptr, A.nrows)
        cols = A.indices.astype(np.int64)
        lo, hi = xp.minimum(rows, cols), xp.maximum(rows, cols)
        pair = (lo * np.int64(max(A.nrows, A.ncols, 1)) + hi).astype(np.uint64)
        hashed = _splitmix64(xp, pair, _stream_key(seed, _STREAM_WEIGHTS))
        unit = (hashed >> np.uint64(11)).astype(np.float64) * (1.0 / 2**53)  # [0, 1)
        if bounds is not None:
            with np.errstate(over="ignore"):  # beyond the bounds: clipped below
                values = (lo_f + (hi_f - lo_f) * unit).astype(target)
            first, last = (xp.asarray(bound, dtype=target) for bound in bounds)
            values = xp.minimum(xp.maximum(values, first), last)  # rounding stays inside
        else:
            first, count = span
            # offsets in [0, count) as uint64, then shifted by ``first`` with wrapping uint64
            # arithmetic: exact for every integer type, whatever the size of the range
            offset = xp.floor(unit * float(count)).astype(np.uint64)
            offset = xp.minimum(offset, np.uint64(count - 1))
            values = (offset + np.uint64(first % 2**64)).astype(target)
        weighted = Matrix(A.indptr.copy(), A.indices.copy(), values, A.shape, backend=A.backend)
    # A[i, j] and A[j, i] agree by construction: a symmetric structure makes it its own
    # transpose (products that would transpose it read it as it is)
    mark_mirrored_values(weighted)
    if known_symmetric(A):
        mark_symmetric(weighted)
    return weighted


def _integer_span(low: Any, high: Any, target: np.dtype) -> tuple[int, int]:
    """(first, count): the integers of ``[low, high)`` are ``first .. first + count - 1``;
    InvalidValue if there are none or they leave ``target``'s range."""
    first, stop = (int(v) if _is_integer(v) else math.ceil(v) for v in (low, high))  # exact
    if stop <= first:
        raise InvalidValue(f"no integer lies in [{low}, {high})")
    info = np.iinfo(target)
    if first < info.min or stop - 1 > info.max:
        raise InvalidValue(
            f"the integers of [{low}, {high}) leave the range [{info.min}, {info.max}] of "
            f"{target.name}"
        )
    return first, stop - first


def _float_bounds(low: Any, high: Any, target: np.dtype) -> tuple[np.generic, np.generic]:
    """The least and the largest value of a float ``target`` in ``[low, high)``, compared
    exactly with the bounds as given (a Python int beyond 2**53 too); InvalidValue if a bound
    overflows ``target`` or no value of ``target`` lies in the interval."""
    with np.errstate(over="ignore"):
        first, last = target.type(low), target.type(high)
    if not (np.isfinite(first) and np.isfinite(last)):
        raise InvalidValue(
            f"low={low} or high={high} overflows {target.name} (largest {np.finfo(target).max})"
        )
    # Python compares a float with an int or a float exactly
    if float(first) < _exact(low):
        first = np.nextafter(first, target.type(np.inf))
    if float(last) >= _exact(high):
        last = np.nextafter(last, target.type(-np.inf))
    if not first <= last:
        raise InvalidValue(f"no {target.name} value lies in [{low}, {high})")
    return first, last


def _exact(value: Any) -> int | float:
    """A real number (already checked) as a Python int or float, exactly."""
    return int(value) if _is_integer(value) else float(value)
