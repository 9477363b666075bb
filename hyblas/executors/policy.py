"""Which executor runs a product: the cost model, the alternative policies, and the trace hook.

``executor='auto'`` asks the current policy (:func:`set_policy`):

``'sampling'`` (the default, after MultiGraph §6)
    Estimates each executor's time from the work it would do and picks the cheapest. The work
    comes from small random samples taken per call: the frontier's out-edges (the sparse push's
    work) from the degrees of up to ``SAMPLE`` active inputs, and the edges the pull would
    examine from walking up to ``SAMPLE`` of the outputs the mask allows until their early
    exit; the dense and reference work is every stored entry (known, no sampling). Times are
    ``fixed + per_edge * edges (+ per_output * outputs)`` with coefficients per backend in
    :data:`COSTS`. Sampling is skipped where the answer is obvious: a frontier below
    ``OBVIOUSLY_SPARSE`` of the inputs goes to the sparse push, a full input without a mask to
    the dense / reference path. An executor whose layout the matrix does not have yet is
    estimated too, and runs (building the layout) only once what it would have saved on this
    matrix's products so far, this one included, reaches the modelled cost of the build
    (:data:`LAYOUT_BUILD`); until then the best executor that needs no new layout runs. This
    is the ski-rental rule: a matrix used for a few products never pays for a layout, one
    that an algorithm iterates on pays at most about twice what the best choice in hindsight
    would have.

    On the CPU the reference estimate counts scipy's passes over the entries where scipy
    serves the product (:mod:`.reference.scipy_spmv`) and the NumPy path's work elsewhere, and
    the suitesparse executor is a candidate where python-graphblas is installed and it fits
    the product: it pushes or pulls, whichever costs less (:data:`ALTERNATIVES`), and its
    conversion of the matrix is its layout (rented like the others). In practice: a product
    scipy serves in one pass (a full input) runs on scipy; a narrow frontier, a wide one that
    scipy does not serve, and a masked product that reads few rows run on SuiteSparse.
    ``mxm`` on the CPU runs on SuiteSparse where it fits (:func:`choose_matrix_product`).
``'beamer'`` (direction-optimizing BFS, Beamer et al.)
    Push (sparse) until the frontier's out-edges exceed the allowed outputs' edges / ``ALPHA``,
    then pull until the frontier falls below ``outputs / BETA``; with no mask, no pull: sparse
    or dense by the same edge test.
``'density'`` (GraphBLAST)
    Push (sparse) while the frontier holds less than ``DENSITY_SWITCH`` of the inputs, then
    pull when there is a mask, else dense.

Every choice is recorded by an open :func:`hyblas.trace` with the estimates and the reason.
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..containers.derived import column_counts, iso_value
from ..containers.mask import Mask
from ..dtypes import short_repr
from ..errors import InvalidObject, InvalidValue
from ..ops.dispatch import MatrixProduct, Product
from . import registry, suitesparse
from .pull.emulation import examined_per_row, walk_rows
from .reference import scipy_spmv
from .reference.spmv import cusparse_applies

__all__ = [
    "POLICIES",
    "COSTS",
    "LAYOUT_BUILD",
    "Choice",
    "choose",
    "set_policy",
    "get_policy",
    "policy",
    "pending_layouts",
    "layout_build_us",
    "choose_matrix_product",
    "ALTERNATIVES",
]

POLICIES = ("sampling", "beamer", "density")
SAMPLE = 256
OBVIOUSLY_SPARSE = 1e-4
ALPHA, BETA = 14.0, 24.0
DENSITY_SWITCH = 0.01
PULL_WALK_CAP = 512  # a sampled row is walked at most this far (beyond: assumed walked whole)

# Microseconds per unit of each feature of a call: "fixed" (1 per call), "entries" (stored
# entries of the matrix), "frontier_edges" (the input's out-edges), "pull_edges" (edges the
# pull examines before its early exit), "allowed_edges" (all edges of the allowed outputs),
# "allowed" (outputs the mask allows), "outputs"; "entries_cusparse" / "entries_generic" are
# the entries when the reference path runs cuSPARSE (plus_times on floats, full input) or its
# generic CSR kernel (on the CPU "entries_scipy": the entries times the passes scipy makes over
# them, 1 for a full input and 2 for a partial one, and "entries_numpy" / "frontier_edges_numpy"
# where the NumPy path runs instead, the frontier's edges counting for a partial input only);
# "entries_full_input" / "entries_partial_input" the entries when every
# input entry is present or not (the dense kernels then skip the presence flags and take a
# branch-free path). GPU figures, H100: "fixed" (which holds the host's work per call: mask and
# frontier conversions, allocations, launches), "entries_generic", "entries_partial_input",
# "frontier_edges", "pull_edges" and "allowed" are a non-negative least-squares fit, per
# executor, to the per-level product times of BFS on kron22 and kron24 run on each single
# executor (benchmarks/policies.py; the smallest calls' time is all overhead, which "fixed"
# holds); "entries_full_input" is from the full-input dense products of kron22 and kron24, and
# "entries_cusparse" from cuSPARSE's kron22 SpMV. CPU figures: fitted to BFS levels of kron12
# on this project's CI-class machine, where the reference path works on the frontier's edges
# only, the dense emulation walks every tile, and the pull emulation reduces every edge of the
# allowed rows (it counts, but does not skip, what the early exit saves). The CPU reference
# figures (scipy's CSR product, the NumPy path that replaced the per-entry row ids) and the
# suitesparse figures (python-graphblas 2025.2, SuiteSparse:GraphBLAS 9, its default two
# threads) are kron12 to kron18 products on the project's 2-core CI-class machine, as is the
# sparse push's emulation (70 to 80 us a call, then about 0.05 us per frontier edge): a
# SuiteSparse push costs about 0.015 us per frontier edge above about 45 us, a pull about
# 1.1e-3 us per edge of the allowed rows (min_plus; plus_times about half; its bitmap saxpy of
# a wide frontier costs about what the pull does). On that machine a full plus_times runs in
# about 4.5 ms on SuiteSparse's two threads against scipy's 8 ms, but a core busy with other
# work costs each product a scheduler quantum or more (12 to 24 ms measured), where scipy's
# one thread is not held up: a product scipy serves in one pass stays on scipy (0.85e-3 <
# 1.1e-3 per entry). "valued_entries" / "valued_pull_edges" are what reading a value per
# entry adds where the matrix is not iso (BFS's matrices are: the fit above has no value
# reads): from SSSP's min_plus products over float32 weights on kron24 (H100; the reference's
# generic path, the dense layout's weights, the pull reading every entry of its rows).
COSTS: dict[str, dict[str, dict[str, float]]] = {
    "cuda": {
        "reference": {
            "fixed": 340.0,
            "entries_cusparse": 1.4e-5,
            "entries_generic": 1.2e-5,
            "valued_entries": 6.8e-6,
        },
        "dense": {
            "fixed": 220.0,
            "entries_full_input": 5e-6,
            "entries_partial_input": 4.9e-6,
            "valued_entries": 2.4e-6,
        },
        "sparse": {"fixed": 300.0, "frontier_edges": 5.5e-5},
        "pull": {
            "fixed": 670.0,
            "pull_edges": 1.2e-5,
            "allowed": 7.7e-6,
            "valued_pull_edges": 1.3e-5,
        },
    },
    "cpu": {
        "reference": {
            "fixed": 30.0,
            "entries_scipy": 0.85e-3,
            "entries_numpy": 2.8e-3,
            "frontier_edges_numpy": 6e-3,
        },
        "dense": {"fixed": 100.0, "entries": 0.4},
        "sparse": {"fixed": 80.0, "frontier_edges": 0.05},
        "pull": {"fixed": 150.0, "allowed_edges": 0.04, "outputs": 2e-3},
        # SuiteSparse pushes from the input's entries or pulls the allowed outputs' rows,
        # whichever costs less (ALTERNATIVES)
        "suitesparse": {"fixed": 45.0, "frontier_edges": 0.015, "allowed_edges": 1.1e-3},
    },
}
# Features of an executor's cost that are alternatives, of which the cheapest counts (the rest
# add up): the work of a library that chooses between pushing and pulling itself.
ALTERNATIVES: dict[str, tuple[str, ...]] = {"suitesparse": ("frontier_edges", "allowed_edges")}

# Microseconds to build an executor's layout, warm: "fixed" per build plus "entries" per
# stored entry. GPU: "entries" from warm builds on kron22 and grid2048 (an H200), "fixed" from
# builds of kron8 to kron16 on an H100 (a build is a few hundred array calls whatever the
# size). CPU: kron14 builds on this project's CI-class machine (kron8 to kron16 take about the
# same time per entry, with no visible fixed part).
LAYOUT_BUILD: dict[str, dict[str, dict[str, float]]] = {
    "cuda": {
        "dense": {"fixed": 6700.0, "entries": 8e-4},
        "sparse": {"fixed": 1600.0, "entries": 3e-4},
    },
    "cpu": {
        "dense": {"fixed": 0.0, "entries": 0.3},
        "sparse": {"fixed": 0.0, "entries": 0.12},
        # the conversion into a graphblas.Matrix (its index arrays as uint64, its values)
        "suitesparse": {"fixed": 100.0, "entries": 5e-4},
    },
}


#: Microseconds of importing python-graphblas, paid with the first suitesparse conversion.
GRAPHBLAS_IMPORT_US = 200_000.0


def layout_build_us(backend: str, executor: str, nnz: int) -> float:
    """The modelled microseconds of building ``executor``'s layout for ``nnz`` entries (the
    suitesparse executor's first conversion includes importing python-graphblas)."""
    cost = LAYOUT_BUILD[backend][executor]
    first = executor == "suitesparse" and not suitesparse.library.loaded()
    return cost["fixed"] + cost["entries"] * nnz + (GRAPHBLAS_IMPORT_US if first else 0.0)


_policy = ["sampling"]


def set_policy(name: str) -> None:
    """Choose how ``executor='auto'`` picks: ``'sampling'`` (default), ``'beamer'`` or
    ``'density'``.

    Raises
    ------
    InvalidObject
        If ``name`` is not a str.
    InvalidValue
        If it names no policy.

    Examples
    --------
    >>> hb.get_policy()
    'sampling'
    >>> hb.set_policy("beamer")
    >>> hb.get_policy()
    'beamer'
    >>> hb.set_policy("sampling")
    """
    if not isinstance(name, str):  # an array would answer `in` element-wise
        raise InvalidObject(
            f"policy must be a str, one of {POLICIES}, got {type(name).__name__} {short_repr(name)}"
        )
    if name not in POLICIES:
        raise InvalidValue(f"policy must be one of {POLICIES}, got {name!r}")
    _policy[0] = name


def get_policy() -> str:
    """The current policy's name.

    Examples
    --------
    >>> hb.get_policy()
    'sampling'
    """
    return _policy[0]


@contextlib.contextmanager
def policy(name: str) -> Iterator[None]:
    """Use policy ``name`` inside the block.

    Examples
    --------
    >>> with hb.policy("density"):
    ...     print(hb.get_policy())
    density
    >>> hb.get_policy()
    'sampling'
    """
    before = get_policy()
    set_policy(name)
    try:
        yield
    finally:
        _policy[0] = before


@dataclass
class Choice:
    """The executor picked for one product and what the decision saw."""

    executor: str
    policy: str
    reason: str
    estimates_us: dict[str, float] = field(default_factory=dict)
    allowed: int | None = None
    frontier_edges: float = 0.0
    deciding_ms: float = 0.0


def choose(product: Product, mask: Mask | None) -> Choice:
    """The executor ``executor='auto'`` runs ``product`` on, its output masked by ``mask``."""
    started = time.perf_counter()
    name = get_policy()
    facts = _Facts(product, mask)
    if name == "density":
        choice = _density(facts)
    elif name == "beamer":
        choice = _beamer(facts)
    else:
        choice = _sampling(facts)
    no_room = product.edges.cache.get(_NO_ROOM, ())
    if choice.executor in no_room:
        choice = Choice(
            "reference",
            "",
            f"no room on this device for the {choice.executor} layout (its build ran out of "
            "memory on this matrix)",
            choice.estimates_us,
        )
    choice.policy = name
    choice.allowed = facts.allowed_count if facts.mask is not None else None
    choice.frontier_edges = facts.frontier_edges if facts._frontier is not None else 0.0
    choice.deciding_ms = (time.perf_counter() - started) * 1e3
    return choice


class _Facts:
    """What the policies look at, each computed on first use."""

    def __init__(self, product: Product, mask: Mask | None) -> None:
        self.product, self.mask = product, mask
        self.edges, self.u, self.semiring = product.edges, product.u, product.semiring
        self.flip = product.flip
        edges, u = self.edges, self.u
        self.xp = edges.xp
        self.backend = edges.backend
        self.inputs = u.size
        self.outputs = edges.nrows
        self.nnz = edges.nnz
        self.input_nnz = u.nnz
        self._frontier: float | None = None
        self._allowed: tuple[Any, int] | None = None
        self._rng: np.random.Generator | None = None
        self._scipy_passes: int | None = None

    @functools.cached_property
    def pull_edges(self) -> float:
        """Edges the pull would examine (estimated once per call: see :func:`_pull_edges`)."""
        return _pull_edges(self)

    @property
    def valued(self) -> bool:
        """Whether the matrix's entries hold values to read (it is not iso)."""
        return iso_value(self.edges) is None

    @property
    def scipy_passes(self) -> int:
        """Passes over the entries the reference path's scipy product makes on the CPU (-1:
        it does not serve this product; the NumPy path runs)."""
        if self._scipy_passes is None:
            op_type = self.semiring.input_type(self.edges.dtype, self.u.dtype)
            self._scipy_passes = scipy_spmv.passes(
                self.edges,
                self.semiring,
                op_type,
                flip=self.flip,
                full=self.input_nnz == self.inputs,
            )
        return self._scipy_passes

    @property
    def rng(self) -> np.random.Generator:
        """The samples' generator, seeded by the call's sizes (made on first use: a remembered
        decision samples nothing, and making one costs more host time than the rest of it)."""
        if self._rng is None:
            self._rng = np.random.default_rng(self.input_nnz * 7919 + self.outputs)
        return self._rng

    @property
    def frontier_edges(self) -> float:
        """The frontier's out-edges: exact for small frontiers, else from a random sample."""
        if self._frontier is None:
            self._frontier = _frontier_edges(self)
        return self._frontier

    @property
    def allowed(self) -> Any:
        """Bool array of the outputs the mask allows (None without a mask)."""
        if self.mask is None:
            return None
        if self._allowed is None:
            allowed = self.mask.allowed()
            self._allowed = (allowed, int(allowed.sum()))
        return self._allowed[0]

    @property
    def allowed_count(self) -> int:
        if self.mask is None:
            return self.outputs
        if self.mask.structural and self._allowed is None:  # no pass over the outputs
            held = self.mask.parent.nnz
            return self.outputs - held if self.mask.complement else held
        self.allowed  # noqa: B018 - computes the count with the array
        return self._allowed[1]


def _frontier_edges(f: _Facts) -> float:
    if f.input_nnz == 0 or f.nnz == 0:
        return 0.0
    degrees = column_counts(f.edges)
    if f.input_nnz == f.inputs:
        return float(f.nnz)
    # a product's bitmap may be kept as written: few entries are sampled as entries, not
    # from its positions
    f.u.settle()
    if f.u.format == "sparse":
        active = f.u.as_sparse()[0]
        if f.input_nnz > SAMPLE:
            pick = f.xp.asarray(f.rng.integers(0, f.input_nnz, SAMPLE))
            return float(degrees[active[pick]].mean()) * f.input_nnz
        return float(degrees[active].sum())
    present = f.u.as_bitmap()[1]
    pick = f.xp.asarray(f.rng.integers(0, f.inputs, 4 * SAMPLE))
    return float((degrees[pick] * present[pick]).mean()) * f.inputs


def _pull_edges(f: _Facts) -> float:
    """Edges the pull would examine: the allowed outputs' rows walked to their early exit,
    estimated from a sample of allowed outputs. Without a mask every row is walked: the stored
    entries times the share of its rows' entries the sample's walks examined (a skewed graph's
    few heavy rows make a sample's mean degree far too low)."""
    xp, edges = f.xp, f.edges
    if f.allowed_count == 0 or f.nnz == 0:
        return 0.0
    if f.mask is None:
        rows = xp.asarray(f.rng.integers(0, f.outputs, SAMPLE))
    else:
        candidates = xp.asarray(f.rng.integers(0, f.outputs, 8 * SAMPLE))
        rows = candidates[f.allowed[candidates]][:SAMPLE]
        if rows.size == 0:
            rows = xp.flatnonzero(f.allowed)[:SAMPLE]
    op_type = f.semiring.input_type(edges.dtype, f.u.dtype)
    out_type = f.semiring.output_type(op_type)
    stops = f.semiring.monoid.name == "any" or f.semiring.monoid.terminal(out_type) is not None
    if not stops or f.input_nnz == 0:
        if f.mask is None:  # every row walked to its end
            return float(f.nnz)
        degrees = edges.indptr[rows + 1].astype(np.int64) - edges.indptr[rows]
        return float(degrees.mean()) * f.allowed_count
    values, present = f.u.as_bitmap()
    walk = walk_rows(
        xp,
        edges,
        rows,
        values.astype(op_type, copy=False),
        present,
        f.semiring,
        op_type,
        flip=f.flip,
        cap=PULL_WALK_CAP,
    )
    examined = examined_per_row(xp, walk)
    if f.mask is None:
        walked = float(walk.degrees.sum())  # 0: the sample met no entry; assume full walks
        return f.nnz * float(examined.sum()) / walked if walked else float(f.nnz)
    return float(examined.mean()) * f.allowed_count


# the executors whose layout of a matrix could not be built for lack of memory (in its cache)
_NO_ROOM = "layouts_without_room"


def builds_layout(edges: Any, executor: str) -> bool:
    """Whether running ``executor`` on the edge matrix ``edges`` builds a layout first (one it
    needs and ``edges`` does not have yet)."""
    return not _has_layout(edges, executor)


def no_room_for(edges: Any, executor: str) -> None:
    """Remember that ``executor``'s layout of ``edges`` did not fit the device: ``auto`` then
    runs the products of ``edges`` on the reference executor instead (until the matrix
    changes, which drops its cache)."""
    edges.cache[_NO_ROOM] = (*edges.cache.get(_NO_ROOM, ()), executor)


def _has_layout(edges: Any, executor: str) -> bool:
    """Whether ``edges`` has the layout ``executor`` needs (True for those that need none)."""
    return registry.get(executor).has_layout(edges)


def pending_layouts(edges: Any) -> list[str]:
    """Executors whose savings on the edge matrix ``edges`` are being added up towards a layout
    it does not have yet (under the sampling policy)."""
    return [e for e in edges.cache.get("layout_rent", {}) if not _has_layout(edges, e)]


def _rent_paid(f: _Facts, executor: str, estimates: dict[str, float]) -> bool:
    """Add what ``executor`` would save on this call over the best executor with no layout to
    build to its savings on this matrix so far; whether those now pay for its layout."""
    ready = min(v for k, v in estimates.items() if _has_layout(f.edges, k))
    rent = f.edges.cache.setdefault("layout_rent", {})
    rent[executor] = rent.get(executor, 0.0) + max(ready - estimates[executor], 0.0)
    return rent[executor] >= layout_build_us(f.backend, executor, f.nnz)


def _dense_fits(f: _Facts) -> bool:
    """Whether the dense executor can run this product (its panels fit shared memory)."""
    return registry.get("dense").fits(f.product)


def _feature(f: _Facts, name: str) -> float:
    if name == "fixed":
        return 1.0
    if name == "entries":
        return float(f.nnz)
    if name in ("entries_full_input", "entries_partial_input"):
        full = f.input_nnz == f.inputs
        return float(f.nnz) if full == (name == "entries_full_input") else 0.0
    if name in ("entries_cusparse", "entries_generic"):
        op_type = f.semiring.input_type(f.edges.dtype, f.u.dtype)
        served = f.input_nnz == f.inputs and cusparse_applies(f.semiring, op_type, f.edges)
        return float(f.nnz) if served == (name == "entries_cusparse") else 0.0
    if name == "entries_scipy":
        return float(f.nnz * max(f.scipy_passes, 0))
    if name == "entries_numpy":
        return float(f.nnz) if f.scipy_passes < 0 else 0.0
    if name == "frontier_edges_numpy":
        partial = f.input_nnz < f.inputs
        return f.frontier_edges if partial and f.scipy_passes < 0 else 0.0
    if name == "outputs":
        return float(f.outputs)
    if name == "allowed":
        return float(f.allowed_count)
    if name == "frontier_edges":
        return f.frontier_edges
    if name == "pull_edges":
        return f.pull_edges
    if name == "valued_entries":
        return float(f.nnz) if f.valued else 0.0
    if name == "valued_pull_edges":
        return f.pull_edges if f.valued else 0.0
    if name == "allowed_edges":
        if f.mask is None:
            return float(f.nnz)
        return float(f.xp.diff(f.edges.indptr)[f.allowed].sum())
    raise KeyError(name)


def _estimate(f: _Facts, executor: str) -> float:
    """Modelled microseconds of ``executor`` on this call: its features' costs added up, the
    cheapest of its :data:`ALTERNATIVES` counting alone."""
    costs = COSTS[f.backend][executor]
    either = ALTERNATIVES.get(executor, ())
    total = sum(c * _feature(f, k) for k, c in costs.items() if c and k not in either)
    options = [costs[k] * _feature(f, k) for k in either if costs.get(k)]
    return total + (min(options) if options else 0.0)


def _suitesparse_fits(f: _Facts) -> bool:
    """Whether ``'auto'`` may run this product on the suitesparse executor: on the CPU, with
    python-graphblas usable, not switched off (:func:`.suitesparse.disabled`), and a semiring
    it computes as hyblas does."""
    if f.backend != "cpu" or not suitesparse.library.offered():
        return False
    executor = registry.get("suitesparse")
    return executor.unavailable(f.backend) is None and executor.fits(f.product)


def _bucket(count: int) -> int:
    """Half-octave size classes: calls of about the same size share a decision."""
    return int(2 * math.log2(count + 1))


def _sampling(f: _Facts) -> Choice:
    if f.input_nnz == 0:
        return Choice("sparse", "", "empty input: nothing to push")
    if f.input_nnz < OBVIOUSLY_SPARSE * f.inputs:
        for name in ("suitesparse", "sparse"):  # SuiteSparse's push costs less on the CPU
            if name == "suitesparse" and not _suitesparse_fits(f):
                continue
            if _has_layout(f.edges, name):
                return Choice(name, "", f"frontier below {OBVIOUSLY_SPARSE:g} of the inputs")
    key = (
        f.semiring.name,
        f.u.dtype.str,
        f.flip,
        f.mask is not None and f.mask.structural,
        f.mask is not None and f.mask.complement,
        _bucket(f.input_nnz),
        _bucket(f.allowed_count),
        tuple(_has_layout(f.edges, e) for e in ("dense", "sparse", "suitesparse")),
        f.backend == "cpu" and suitesparse.library.offered(),
    )
    remembered = f.edges.cache.setdefault("auto_decisions", {})
    if key in remembered:
        best, estimates, wanted = remembered[key]
        if wanted is not None and _rent_paid(f, wanted, estimates):
            return Choice(wanted, "", _PAID.format(wanted), estimates)
        return Choice(best, "", "as an earlier call of this size (not sampled)", estimates)
    choice, wanted = _sample_and_estimate(f)
    remembered[key] = (choice.executor, choice.estimates_us, wanted)
    return choice


_PAID = "its savings on this matrix so far pay for building the {} layout"


def _sample_and_estimate(f: _Facts) -> tuple[Choice, str | None]:
    """The choice, and the executor that would be faster if its layout were built (or None)."""
    candidates = ["reference"]
    if _dense_fits(f):
        candidates.append("dense")
    if f.input_nnz < f.inputs:
        candidates.append("sparse")
    if f.input_nnz < f.inputs or f.mask is not None:
        candidates.append("pull")
    if _suitesparse_fits(f):
        candidates.append("suitesparse")
    estimates = {name: _estimate(f, name) for name in candidates}
    best = min(estimates, key=estimates.get)
    if _has_layout(f.edges, best):
        return Choice(best, "", "lowest estimate", estimates), None
    if _rent_paid(f, best, estimates):
        return Choice(best, "", _PAID.format(best), estimates), best
    ready = min((k for k in estimates if _has_layout(f.edges, k)), key=estimates.get)
    reason = f"lowest estimate without a new layout ({best}'s would cost more than it saved so far)"
    return Choice(ready, "", reason, estimates), best


def _density(f: _Facts) -> Choice:
    density = f.input_nnz / max(f.inputs, 1)
    if density < DENSITY_SWITCH:
        return Choice("sparse", "", f"frontier density {density:.4f} < {DENSITY_SWITCH}")
    if f.mask is not None:
        return Choice("pull", "", f"frontier density {density:.4f} >= {DENSITY_SWITCH}, masked")
    return Choice(
        "dense" if _dense_fits(f) else "reference",
        "",
        f"frontier density {density:.4f} >= {DENSITY_SWITCH}, no mask",
    )


def _beamer(f: _Facts) -> Choice:
    cache = f.edges.cache
    pulling = cache.get("beamer_pulling", False)
    m_f = f.frontier_edges
    if f.mask is None:
        wide = m_f > f.nnz / ALPHA
        name = ("dense" if _dense_fits(f) else "reference") if wide else "sparse"
        return Choice(name, "", f"no mask: frontier edges {m_f:.0f} vs entries / {ALPHA:g}")
    rows_degrees = f.xp.diff(f.edges.indptr)
    m_u = float(rows_degrees[f.allowed].sum())
    if not pulling and m_f > m_u / ALPHA:
        pulling, reason = True, f"frontier edges {m_f:.0f} > unexplored edges {m_u:.0f} / {ALPHA:g}"
    elif pulling and f.input_nnz < f.outputs / BETA:
        pulling, reason = False, f"frontier {f.input_nnz} < outputs / {BETA:g}"
    else:
        reason = "keeps direction"
    cache["beamer_pulling"] = pulling
    return Choice("pull" if pulling else "sparse", "", reason)


#: An ``mxm`` whose operands hold fewer entries together goes to SuiteSparse only once
#: python-graphblas is loaded (importing it costs more than such a product).
MXM_IMPORT_FROM = 1 << 17


def choose_matrix_product(product: MatrixProduct) -> str:
    """The executor ``executor='auto'`` runs an ``mxm`` on: the suitesparse executor where it
    is available and fits (SuiteSparse's compiled, multithreaded SpGEMM against the reference's
    NumPy one; a small product only once python-graphblas is loaded, see
    :data:`MXM_IMPORT_FROM`), else the first registered executor that runs ``mxm`` (the
    reference)."""
    A, B = product.A, product.B
    if A.backend == "cpu" and suitesparse.library.offered():
        executor = registry.get("suitesparse")
        big = suitesparse.library.loaded() or A.nnz + B.nnz >= MXM_IMPORT_FROM
        if big and executor.unavailable("cpu") is None and executor.fits_matrix_product(product):
            return executor.name
    return next(e.name for e in registry.EXECUTORS.values() if e.runs_mxm)
