"""Every registered executor equals the NumPy model and the reference executor.

Each test here runs once per executor of :func:`hyblas.executors.registry.names` (read when the
tests are collected, so an executor registered later is tested with no change here), on the
CPU (the executors' NumPy emulations) and on CUDA (their kernels). What differs between the
executors is data, not code: :data:`PROFILES` says which parameter sets an executor's
hypothesis examples draw and which inputs, which fixed parameters the deterministic tests run
under, and which shaped matrices it is compared with the reference on. An executor without an
entry gets ``Profile()``: no parameters, inputs of any density, the shaped matrices of both
families under its defaults.

What is particular to one executor (the dense layout, the sparse walk, the pull's early exit)
is tested in its own file beside this one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.executors import registry
from hyblas.executors.dense import DenseParams, dense_params
from hyblas.executors.sparse import SparseParams, sparse_params
from tests.support import model
from tests.support import strategies as S
from tests.support.checks import (
    SEMIRINGS,
    assert_matches,
    expected_after,
    run_op,
    semiring_and_dtype,
    served,
)
from tests.support.executors import (
    DEGREE_KINDS,
    DENSE_SHAPED_PARAMS,
    PANEL_KINDS,
    SPARSE_SHAPED_PARAMS,
    assert_products_equal_reference,
    degree_matrix,
    panel_matrix,
    shaped_inputs,
    small_dense_params,
    small_sparse_params,
    sparse_frontier,
)


def any_frontier(data: st.DataObject, size: int, dtype: np.dtype) -> S.VectorData:
    """An input of any density."""
    return data.draw(S.vectors(size=size, dtype=dtype))


@dataclass(frozen=True)
class Shaped:
    """A family of matrices built against an executor's hard cases, the parameter sets they run
    under and the inputs they multiply."""

    family: str
    matrix: Callable[[str, np.random.Generator, str], hb.Matrix]
    kinds: tuple[str, ...]
    params: Mapping[str, Any]  # test id -> parameter set (None: the executor's own)
    seed: int
    inputs: tuple[float | str, ...]  # the share of the positions present; 'full': a full vector


def panels(params: Mapping[str, Any]) -> Shaped:
    """Empty panels, one huge row, one huge column, ragged sizes, a power law (full inputs and
    a third present)."""
    return Shaped("panels", panel_matrix, PANEL_KINDS, params, seed=5, inputs=("full", 0.3))


def degrees(params: Mapping[str, Any]) -> Shaped:
    """One input of huge degree, many of degree 0, every stage of the push, a power law of
    in-degrees (inputs from a few to most present)."""
    return Shaped(
        "degrees", degree_matrix, DEGREE_KINDS, params, seed=11, inputs=(0.003, 0.05, 0.6)
    )


@dataclass(frozen=True)
class Profile:
    """How the tests here exercise one executor."""

    #: puts a parameter set of the executor in force for a block (``dense_params`` ...)
    using: Callable[[Any], contextlib.AbstractContextManager] | None = None
    #: the parameter sets hypothesis draws, scaled down to its small matrices
    small_params: st.SearchStrategy[Any] = st.none()
    #: the input of the hypothesis products: ``(data, size, dtype) -> VectorData``
    frontier: Callable[[st.DataObject, int, np.dtype], S.VectorData] = any_frontier
    #: the every-semiring test: its parameter set and the share of the input present
    catalogue_params: Any = None
    catalogue_density: float = 0.6
    #: the mixed-signs min / max test's parameter set
    mixed_signs_params: Any = None
    #: the shaped matrices compared with the reference
    shaped: tuple[Shaped, ...] = (panels({"defaults": None}), degrees({"defaults": None}))

    def params(self, params: Any) -> contextlib.AbstractContextManager:
        """``params`` in force for a block (nothing to do where there are none)."""
        if params is None or self.using is None:
            return contextlib.nullcontext()
        return self.using(params)


#: The executors' test profiles, by registered name.
PROFILES: dict[str, Profile] = {
    # the reference is what the shaped matrices are compared with
    "reference": Profile(shaped=()),
    # panel widths, the heavy threshold, unit sizes and thread counts drawn small
    "dense": Profile(
        using=dense_params,
        small_params=small_dense_params(),
        catalogue_params=DenseParams(
            column_panel=8,
            row_panel=5,
            heavy_threshold=6,
            heavy_unit_edges=9,
            light_unit_edges=7,
            heavy_threads=4,
            reorder="both",
        ),
        catalogue_density=0.7,
        mixed_signs_params=DenseParams(column_panel=64, row_panel=16, heavy_threshold=8),
        shaped=(panels(DENSE_SHAPED_PARAMS),),
    ),
    # group bounds, segments and the gathering reach drawn small; sparse inputs
    "sparse": Profile(
        using=sparse_params,
        small_params=small_sparse_params(),
        frontier=sparse_frontier,
        catalogue_params=SparseParams(
            group_bounds=(12, 8, 5),
            shared_groups=2,
            segment=3,
            segment_min_edges=4,
            reach=9,
            spread_blocks=2,
        ),
        catalogue_density=0.3,
        shaped=(degrees(SPARSE_SHAPED_PARAMS),),
    ),
    # no parameters; its heavy rows and early exit: test_pull.py
    "pull": Profile(),
}

EXECUTORS = registry.names()


def profile_of(executor: str) -> Profile:
    """The executor's profile; ``Profile()`` for one without an entry."""
    return PROFILES.get(executor, Profile())


# --- hypothesis: the products against the model, with every write control -------------------


@pytest.mark.parametrize("op", ["mxv", "vxm"])
@pytest.mark.parametrize("executor", EXECUTORS)
@given(data=st.data())
def test_product_equals_the_model(
    backend: str, executor: str, op: str, data: st.DataObject
) -> None:
    profile = profile_of(executor)
    sr, dtype = data.draw(semiring_and_dtype())
    A = data.draw(S.matrices(dtype=dtype))
    if op == "mxv":
        u = profile.frontier(data, A.ncols, dtype)
        t = model.mxv(model.of(A), model.of(u), sr)
        args = (A.hyblas(backend), u.hyblas(backend))
    else:
        u = profile.frontier(data, A.nrows, dtype)
        t = model.vxm(model.of(u), model.of(A), sr)
        args = (u.hyblas(backend), A.hyblas(backend))
    ctl = data.draw(S.write_controls(t.shape, t.dtype, accum=sr.monoid.name != "any"))
    with profile.params(data.draw(profile.small_params)):
        result = run_op(getattr(hb.ops, op), ctl, backend, *args, sr, executor=executor)
    assert_matches(result, expected_after(ctl, t))


# --- the whole catalogue ------------------------------------------------------------------------


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("name", SEMIRINGS)
@pytest.mark.parametrize("dtype", S.DTYPES, ids=str)
def test_every_semiring_every_dtype(
    backend: str, executor: str, name: str, dtype: np.dtype
) -> None:
    """``A u`` against the model, and under a complemented mask against the reference."""
    sr = hb.semiring[name]
    if dtype not in served(sr):
        return
    profile = profile_of(executor)
    rng = np.random.default_rng(abs(hash((name, str(dtype)))) % 2**32)
    n, m = 37, 29
    keys = np.unique(rng.integers(0, n * m, 300))
    A_data = S.MatrixData(n, m, keys // m, keys % m, rng.integers(0, 4, keys.size).astype(dtype))
    u_idx = np.flatnonzero(rng.random(m) < profile.catalogue_density)
    u_data = S.VectorData(m, u_idx, rng.integers(0, 3, u_idx.size).astype(dtype))
    A, u = A_data.hyblas(backend), u_data.hyblas(backend)
    seen = hb.Vector.from_coo(np.flatnonzero(rng.random(n) < 0.5), True, size=n, backend=backend)
    with profile.params(profile.catalogue_params):
        got = hb.ops.mxv(A, u, sr, executor=executor)
        assert_matches(got, model.mxv(model.of(A_data), model.of(u_data), sr))
        got = hb.ops.mxv(A, u, sr, mask=~seen.S, executor=executor)
    want = hb.ops.mxv(A, u, sr, mask=~seen.S, executor="reference")
    assert got.to_coo()[0].tolist() == want.to_coo()[0].tolist()
    if sr.monoid.name != "any":
        assert got.isclose(want, rel_tol=1e-6)


# --- shaped matrices against the reference ------------------------------------------------------

SHAPED_CASES = [
    pytest.param(executor, shaped, kind, params, id=f"{executor}-{shaped.family}-{pid}-{kind}")
    for executor in EXECUTORS
    for shaped in profile_of(executor).shaped
    for pid, params in shaped.params.items()
    for kind in shaped.kinds
]


@pytest.mark.parametrize(("executor", "shaped", "kind", "params"), SHAPED_CASES)
@pytest.mark.parametrize(
    "name", ["plus_times", "min_plus", "max_min", "lor_land", "any_pair", "plus_pair", "times_plus"]
)
def test_shaped_matrices_equal_reference(
    backend: str, executor: str, shaped: Shaped, kind: str, params: Any, name: str
) -> None:
    """``A u`` and ``u A``, unmasked, under a complemented structural mask and under a value
    mask (a fifth of the outputs), equal the reference's."""
    rng = np.random.default_rng(shaped.seed)
    with hb.using_backend(backend):
        A = shaped.matrix(kind, rng, "float64" if name != "lor_land" else "bool")
        inputs = shaped_inputs(A, rng, shaped.inputs)
        visited = hb.Vector.from_coo(
            rng.choice(A.nrows, A.nrows // 5, replace=False), True, size=A.nrows
        )
        with profile_of(executor).params(params):
            assert_products_equal_reference(
                A, inputs, name, executor, masks=(None, ~visited.S, visited)
            )


# --- corner cases of the accumulators and algorithms on each executor ---------------------------


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("name", ["min_times", "max_times", "min_plus", "max_plus"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_float_min_max_combine_mixed_signs(
    backend: str, executor: str, name: str, dtype: type
) -> None:
    """The float min / max accumulators (integer atomics on the GPU, split by sign, where an
    executor combines with atomics) pick the same value as the reference where one output's
    contributions mix signs, zeros and -0.0."""
    rng = np.random.default_rng(8)
    n = 300
    rows = rng.integers(0, 40, 4000)  # few outputs, so each sees many contributions
    cols = rng.integers(0, n, rows.size)
    keys = np.unique(rows * n + cols)
    choices = np.array([-2.5, -0.5, -0.0, 0.0, 0.5, 3.0, -1e30, 1e30], dtype=dtype)
    with hb.using_backend(backend):
        A = hb.Matrix.from_coo(
            keys // n, keys % n, rng.choice(choices, keys.size), nrows=40, ncols=n
        )
        u = hb.Vector.from_dense(rng.choice(choices, n))
        profile = profile_of(executor)
        with profile.params(profile.mixed_signs_params):
            got = hb.ops.mxv(A, u, name, executor=executor)
        want = hb.ops.mxv(A, u, name, executor="reference")
    assert got.to_coo()[0].tolist() == want.to_coo()[0].tolist()
    np.testing.assert_array_equal(got.to_coo()[1], want.to_coo()[1])


@pytest.mark.parametrize("executor", EXECUTORS)
def test_bfs_equals_reference(backend: str, executor: str) -> None:
    with hb.using_backend(backend):
        A = hb.generators.kronecker(10, 8, seed=4)
        for source in (0, 17):
            got = hb.algorithms.bfs(A, source, executor=executor)
            assert got.isequal(hb.algorithms.bfs(A, source, executor="reference"))
            levels, parents = hb.algorithms.bfs(A, source, return_parents=True, executor=executor)
            assert levels.isequal(got)
            assert parents.get(source) == source
