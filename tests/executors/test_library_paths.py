"""The CPU library paths against the NumPy path they replace: scipy's CSR product inside the
reference executor, and the suitesparse executor (SuiteSparse:GraphBLAS).

Each product runs on the library path and on the reference executor's NumPy path
(``scipy_spmv.disabled()``, an executor other than suitesparse) with the same write controls:
every mask kind (value, structural, complemented), accumulation with and without replace, an
input that is full, partial (a bitmap), sparse or empty, empty rows and explicit zeros in the
matrix. Integer and bool results must be identical bit for bit; float results must have the
same structure and the values of a float64 NumPy reference within rounding, except float
``min`` / ``max``, which must be identical bit for bit (the sign of a zero included).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hyblas as hb
from hyblas.containers.mask import Mask
from hyblas.dtypes import DTYPES
from hyblas.errors import BackendError, ExecutorFallback, MissingDependency
from hyblas.executors import policy, registry, suitesparse
from hyblas.executors.reference import scipy_spmv
from hyblas.executors.suitesparse import library
from hyblas.ops.dispatch import MatrixProduct

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf - inf in the NumPy path

gb_missing = library.missing()
needs_graphblas = pytest.mark.skipif(gb_missing is not None, reason=f"{gb_missing}")

SCIPY_SEMIRINGS = [
    "plus_times",
    "plus_first",
    "plus_second",
    "plus_pair",
    "lor_land",
    "lor_first",
    "lor_second",
    "lor_pair",
    "any_pair",
]
SUITESPARSE_SEMIRINGS = [
    *SCIPY_SEMIRINGS,
    "min_plus",
    "max_times",
    "min_second",
    "max_first",
    "min_max",
    "times_plus",
    "plus_minus",
    "land_lor",
    "lxor_land",
]
N, M = 23, 17  # outputs, inputs (vxm: the transpose)


def _values(rng: np.random.Generator, dtype: np.dtype, size: int) -> np.ndarray:
    """Zeros of both signs, mixed signs, and for integers values that overflow a product."""
    if dtype.kind == "b":
        return rng.random(size) < 0.6
    if dtype.kind == "f":
        choices = [-2.5, -0.5, -0.0, 0.0, 0.5, 1.0, 3.0]
        return rng.choice(np.array(choices), size).astype(dtype)
    info = np.iinfo(dtype)
    big = [info.max // 3, info.max, info.min] if dtype.kind == "i" else [info.max // 3, info.max]
    small = [-3, -1, 0, 1, 2, 5] if dtype.kind == "i" else [0, 1, 2, 5]
    return np.array(small + big, dtype=dtype)[rng.integers(0, len(small) + len(big), size)]


def _matrix(rng: np.random.Generator, dtype: np.dtype) -> hb.Matrix:
    """Rows 0 to 3 empty, explicit zeros among the stored values."""
    keys = np.unique(rng.integers(4 * M, N * M, 150))
    return hb.Matrix.from_coo(
        keys // M, keys % M, _values(rng, dtype, keys.size), nrows=N, ncols=M, dtype=dtype
    )


def _vector(rng: np.random.Generator, dtype: np.dtype, size: int, kind: str) -> hb.Vector:
    count = {"full": size, "partial": size * 2 // 5, "sparse": 2, "empty": 0}[kind]
    ids = np.sort(rng.choice(size, count, replace=False))
    return hb.Vector.from_coo(ids, _values(rng, dtype, count), size=size, dtype=dtype)


def _masks(rng: np.random.Generator, size: int) -> list[Any]:
    v = hb.Vector.from_coo(
        np.sort(rng.choice(size, size // 2, replace=False)), rng.random(size // 2) < 0.6, size=size
    )
    return [None, v, v.S, ~v, ~v.S]


def _cases(dtype: np.dtype, op: str, seed: int) -> list[tuple[hb.Matrix, hb.Vector, dict]]:
    """Products and their write controls: every input kind under every mask, the write mode
    cycling through none, out, out + accum, out + accum + replace."""
    rng = np.random.default_rng(seed)
    A = _matrix(rng, dtype)
    size_u, size_w = M, N  # vxm multiplies by the transpose
    if op == "vxm":
        A = hb.Matrix.from_coo(*A.T.to_coo(), nrows=M, ncols=N, dtype=dtype)
    cases = []
    k = 0
    for kind in ("full", "partial", "sparse", "empty"):
        u = _vector(rng, dtype, size_u, kind)
        for mask in _masks(rng, size_w):
            mode = k % 4
            k += 1
            controls: dict[str, Any] = {"mask": mask}
            if mode:
                controls["out"] = _vector(rng, dtype, size_w, "partial")
            if mode >= 2:
                controls["accum"] = hb.binary["max" if dtype.kind == "b" else "plus"]
            if mode == 3:
                controls["replace"] = True
            cases.append((A, u, controls))
    return cases


def _run(op: str, A: hb.Matrix, u: hb.Vector, name: str, controls: dict, executor: str) -> Any:
    controls = dict(controls)
    if "out" in controls:
        controls["out"] = controls["out"].dup()
    if op == "mxv":
        return hb.ops.mxv(A, u, name, executor=executor, **controls)
    return hb.ops.vxm(u, A, name, executor=executor, **controls)


def _as64(x: Any) -> Any:
    if x is None or isinstance(x, Mask) or x.dtype.kind != "f":
        return x
    return x.dup(np.float64)


def _reference(op: str, A: hb.Matrix, u: hb.Vector, name: str, controls: dict) -> hb.Vector:
    """The NumPy path's result; for floats computed in float64 (operands and out)."""
    if A.dtype.kind == "f":
        A, u = _as64(A), _as64(u)
        controls = {k: _as64(v) if k == "out" else v for k, v in controls.items()}
    with scipy_spmv.disabled():
        return _run(op, A, u, name, controls, "reference")


def _words(values: np.ndarray) -> np.ndarray:
    values = np.ascontiguousarray(values)
    return values.view(f"u{values.itemsize}") if values.dtype.kind == "f" else values


def _assert_same(got: hb.Vector, want: hb.Vector, name: str) -> None:
    got_ids, got_values = got.to_coo()
    want_ids, want_values = want.to_coo()
    assert got_ids.tolist() == want_ids.tolist(), name
    if name.startswith("any_") and name != "any_pair":
        return  # any contribution will do
    if got_values.dtype.kind != "f":
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got_values, want_values, err_msg=name)
        return
    if {"min", "max"} & set(name.split("_")):  # bit for bit, the sign of zero included
        np.testing.assert_array_equal(
            _words(got_values), _words(want_values.astype(got.dtype)), err_msg=name
        )
        return
    rtol = 1e-6 if got.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got_values, want_values, rtol=rtol, atol=0, err_msg=name)


def _check(dtype: np.dtype, op: str, names: list[str], executor: str) -> int:
    checked = 0
    for index, name in enumerate(names):
        sr = hb.semiring[name]
        if dtype not in sr.types and sr.binaryop.cast_inputs_to is None:
            continue
        for A, u, controls in _cases(dtype, op, seed=index):
            if controls.get("accum") is not None and sr.monoid.name == "any":
                continue  # accumulating an arbitrary pick
            got = _run(op, A, u, name, controls, executor)
            _assert_same(got, _reference(op, A, u, name, controls), name)
            checked += 1
    return checked


# --- scipy inside the reference executor ---------------------------------------------------------


@pytest.mark.parametrize("op", ["mxv", "vxm"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_scipy_path_equals_the_numpy_path(dtype: np.dtype, op: str) -> None:
    assert scipy_spmv.enabled()
    assert _check(np.dtype(dtype), op, SCIPY_SEMIRINGS, "reference") > 0


@pytest.mark.parametrize("name", SCIPY_SEMIRINGS)
def test_scipy_serves_what_it_claims(name: str) -> None:
    """The plan of every semiring above on the types of the catalogue test: served (so the test
    above runs scipy, not the NumPy path) except where documented."""
    sr = hb.semiring[name]
    A = hb.Matrix.from_coo([0], [0], [1.0], nrows=1, ncols=1)
    for dtype in (np.int8, np.uint64, np.float32, np.float64):
        op_type = sr.input_type(np.dtype(dtype), np.dtype(dtype))
        assert scipy_spmv.applies(A.dup(dtype), sr, op_type, flip=False, full=True), (name, dtype)
    assert not scipy_spmv.plan(hb.semiring.min_plus, np.dtype(np.float64), flip=False)
    assert not scipy_spmv.plan(hb.semiring.plus_min, np.dtype(np.float64), flip=False)


def test_scipy_matrix_is_cached_over_the_matrix_arrays_and_dropped_with_them() -> None:
    A = hb.generators.kronecker(6, 4, seed=1, dtype=np.float64)
    x = hb.Vector.from_dense(np.arange(A.ncols, dtype=np.float64))
    before = [a.copy() for a in (A.indptr, A.indices, A.values)]
    first = hb.ops.mxv(A, x, "plus_times")
    cached = [v for k, v in A.cache.items() if isinstance(k, tuple) and k[0] == "scipy_csr"]
    assert len(cached) == 1
    assert np.shares_memory(cached[0].indices, A.indices)  # no copy
    assert np.shares_memory(cached[0].data, A.values)
    hb.ops.mxv(A, x, "plus_times")
    assert [v for k, v in A.cache.items() if isinstance(k, tuple) and k[0] == "scipy_csr"] == cached
    for old, new in zip(before, (A.indptr, A.indices, A.values)):
        np.testing.assert_array_equal(old, new)
    A.set_storage(A.indptr, A.indices, A.values * 2)
    assert not any(isinstance(k, tuple) and k[0] == "scipy_csr" for k in A.cache)
    assert hb.ops.mxv(A, x, "plus_times").isclose(hb.ops.apply(first, hb.binary.times, right=2.0))


def test_scipy_skips_a_partial_input_against_non_finite_values() -> None:
    """An absent input enters scipy's product as 0, and 0 * inf is NaN: a float matrix holding
    inf or NaN takes the NumPy path for a partial input (and scipy for a full one)."""
    A = hb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [np.inf, 2.0, 3.0], nrows=2, ncols=2)
    u = hb.Vector.from_coo([1], [1.0], size=2)
    sr = hb.semiring.plus_times
    op_type = np.dtype(np.float64)
    assert not scipy_spmv.applies(A, sr, op_type, flip=False, full=False)
    assert scipy_spmv.applies(A, sr, op_type, flip=False, full=True)
    got = hb.ops.mxv(A, u, sr)
    assert got.to_coo()[1].tolist() == [2.0, 3.0]


def test_scipy_path_on_mixed_types() -> None:
    """Operands cast to the semiring's type first (int8 matrix, float32 input: float32)."""
    rng = np.random.default_rng(3)
    A = _matrix(rng, np.dtype(np.int8))
    u = _vector(rng, np.dtype(np.float32), M, "partial")
    got = hb.ops.mxv(A, u, "plus_times")
    with scipy_spmv.disabled():
        want = hb.ops.mxv(A, u, "plus_times")
    assert got.dtype == want.dtype == np.float32
    _assert_same(got, want, "plus_times")


# --- the suitesparse executor --------------------------------------------------------------------


@needs_graphblas
@pytest.mark.parametrize("op", ["mxv", "vxm"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_suitesparse_equals_the_numpy_path(dtype: np.dtype, op: str) -> None:
    assert _check(np.dtype(dtype), op, SUITESPARSE_SEMIRINGS, "suitesparse") > 0


@needs_graphblas
@pytest.mark.parametrize("name", ["min_plus", "max_times", "min_max", "max_min"])
def test_suitesparse_settles_the_sign_of_zero_like_hyblas(name: str) -> None:
    """Rows whose contributions tie -0.0 and +0.0 in both orders, pushed and pulled."""
    n = 64
    rng = np.random.default_rng(1)
    rows = np.repeat(np.arange(n), 2)
    cols = np.tile([0, 1], n)
    A = hb.Matrix.from_coo(rows, cols, rng.choice([-0.0, 0.0], 2 * n), nrows=n, ncols=2)
    for u in (
        hb.Vector.from_dense(np.array([-0.0, 0.0])),
        hb.Vector.from_dense(np.array([0.0, -0.0])),
        hb.Vector.from_coo([1], [-0.0], size=2),
    ):
        got = hb.ops.mxv(A, u, name, executor="suitesparse")
        with scipy_spmv.disabled():
            want = hb.ops.mxv(A, u, name, executor="reference")
        _assert_same(got, want, name)
        got = hb.ops.vxm(u, A.T, name, executor="suitesparse")
        _assert_same(got, want, name)


@needs_graphblas
def test_suitesparse_conversions_are_cached_and_copy() -> None:
    A = hb.generators.kronecker(6, 4, seed=2, dtype=np.float64)
    A = hb.ops.apply(A, hb.unary.identity)  # not iso: its values are converted too
    A.set_storage(A.indptr, A.indices, np.arange(A.nnz, dtype=np.float64))
    before = [a.copy() for a in (A.indptr, A.indices, A.values)]
    u = hb.Vector.from_coo([1, 5], [1.0, 2.0], size=A.ncols)
    x = hb.Vector.from_dense(np.ones(A.ncols))
    hb.ops.mxv(A, x, "min_plus", executor="suitesparse")  # by row
    hb.ops.vxm(u, A, "min_plus", executor="suitesparse")  # A.T by column: A's CSR
    by_row = library.matrix_of(A, np.dtype(np.float64))
    assert library.has_matrix(A, np.float64) and library.has_matrix(A.T, np.float64, True)
    hb.ops.mxv(A, x, "min_plus", executor="suitesparse")
    assert library.matrix_of(A, np.dtype(np.float64)) is by_row  # not converted again
    for old, new in zip(before, (A.indptr, A.indices, A.values)):
        np.testing.assert_array_equal(old, new)
    assert not np.shares_memory(by_row.ss.export("csr")["values"], A.values)
    A.set_storage(A.indptr, A.indices, A.values + 1)
    assert not library.has_matrix(A, np.float64)


@needs_graphblas
@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        ("plus_pair", np.int64),
        ("plus_times", np.float64),
        ("min_plus", np.int32),
        ("lor_land", bool),
    ],
)
def test_suitesparse_mxm_equals_the_reference(name: str, dtype: type) -> None:
    rng = np.random.default_rng(5)
    A = _matrix(rng, np.dtype(dtype))
    B = hb.Matrix.from_coo(*A.T.to_coo(), nrows=M, ncols=N, dtype=dtype)
    keys = np.unique(rng.integers(0, N * N, 200))
    mask_parent = hb.Matrix.from_coo(
        keys // N, keys % N, rng.random(keys.size) < 0.7, nrows=N, ncols=N
    )
    out = hb.Matrix.from_coo([0, 5, 7], [1, 5, 2], np.ones(3, dtype=dtype), nrows=N, ncols=N)
    for mask in (None, mask_parent, mask_parent.S, ~mask_parent.S, ~mask_parent):
        for controls in ({}, {"out": out}, {"out": out, "accum": hb.binary.max, "replace": True}):
            runs = []
            for executor in ("suitesparse", "reference"):
                given = dict(controls)
                if "out" in given:
                    given["out"] = given["out"].dup()
                runs.append(hb.ops.mxm(A, B, name, mask=mask, executor=executor, **given))
            got, want = runs
            assert got.isequal(want, check_dtype=True) or (
                np.dtype(dtype).kind == "f" and got.isclose(want, rel_tol=1e-12)
            ), (mask, controls)


@needs_graphblas
def test_suitesparse_falls_back_for_a_user_semiring() -> None:
    name = "test_library_paths_plus_rdiff"
    if name not in hb.semiring:
        mult = hb.binary.BinaryOp("test_library_paths_rdiff", "((y) - (x))", lambda x, y: y - x)
        hb.semiring.register_new(name, hb.monoid.plus, mult)
    A = hb.generators.kronecker(5, 4, seed=1, dtype=np.float64)
    u = hb.Vector.from_dense(np.arange(A.ncols, dtype=np.float64))
    with pytest.warns(ExecutorFallback, match="'reference' executor ran it"):
        got = hb.ops.mxv(A, u, name, executor="suitesparse")
    assert got.isequal(hb.ops.mxv(A, u, name, executor="reference"))


def test_suitesparse_is_unavailable_on_cuda_and_without_graphblas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert "suitesparse" in registry.names()
    assert "only" in registry.unavailable("suitesparse", "cuda")
    with pytest.raises(BackendError, match="'suitesparse' executor is unavailable"):
        registry.require("suitesparse", "cuda")
    assert registry.unavailable("reference", "cuda") is None
    monkeypatch.setattr(library, "_loaded", {})
    monkeypatch.setitem(sys.modules, "graphblas", None)
    reason = registry.unavailable("suitesparse", "cpu")
    assert reason is not None and "hyblas[suitesparse]" in reason
    assert "suitesparse" not in registry.available("cpu")
    A = hb.generators.grid_2d(3, 3)
    u = hb.Vector.from_coo([0], [1.0], size=9)
    with pytest.raises(MissingDependency, match="python-graphblas"):
        hb.ops.mxv(A, u, "plus_times", executor="suitesparse")
    assert hb.ops.mxv(A, u, "plus_times").nnz > 0  # 'auto' runs without it


# --- what 'auto' chooses on the CPU --------------------------------------------------------------


def _auto_choice(run: Callable[[], Any]) -> str:
    with hb.trace() as t:
        run()
    return t[-1].executor


def test_auto_runs_a_full_plus_times_on_scipy() -> None:
    A = hb.generators.kronecker(10, 8, seed=1, dtype=np.float64)
    x = hb.Vector.from_dense(np.ones(A.ncols))
    for run in (lambda: hb.ops.mxv(A, x, "plus_times"), lambda: hb.ops.vxm(x, A, "plus_times")):
        run()
        assert _auto_choice(run) == "reference"


@needs_graphblas
def test_the_first_conversion_counts_the_import(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking whether the executor fits imports nothing; the rent of its first conversion
    includes importing python-graphblas, and a small ``mxm`` waits for it."""
    library.graphblas()
    loaded = policy.layout_build_us("cpu", "suitesparse", 1000)
    A = hb.generators.kronecker(5, 4, seed=1)
    product = MatrixProduct(A, A, hb.semiring.plus_pair)
    assert policy.choose_matrix_product(product) == "suitesparse"
    monkeypatch.setattr(library, "_loaded", {})
    monkeypatch.delitem(sys.modules, "graphblas")  # as in a program that never imported it
    assert not library.loaded() and library.missing() is None
    assert policy.layout_build_us("cpu", "suitesparse", 1000) == (
        loaded + policy.GRAPHBLAS_IMPORT_US
    )
    assert policy.choose_matrix_product(product) == "reference"
    u = hb.Vector.from_coo([1], [1.0], size=A.nrows)
    hb.ops.vxm(u, A, "min_plus")
    hb.ops.mxv(A, hb.Vector.from_dense(np.ones(A.ncols)), "min_plus")
    assert not library.loaded()


@needs_graphblas
def test_auto_pushes_a_narrow_frontier_on_suitesparse_and_mxm_goes_there() -> None:
    library.graphblas()  # loaded: the import is not this test's rent
    A = hb.generators.kronecker(11, 8, seed=1)
    u = hb.Vector.from_coo([3, 9], [1.0, 1.0], size=A.nrows)
    seen = hb.Vector.from_coo([3, 9], True, size=A.nrows)
    run = lambda: hb.ops.vxm(u, A, "any_pair", mask=~seen.S)  # noqa: E731
    choices = [_auto_choice(run) for _ in range(200)]  # the conversion's rent paid on the way
    assert choices[-1] == "suitesparse"
    with suitesparse.disabled():
        assert _auto_choice(run) != "suitesparse"
        assert policy.choose_matrix_product(MatrixProduct(A, A, hb.semiring.plus_pair)) == (
            "reference"
        )
    assert policy.choose_matrix_product(MatrixProduct(A, A, hb.semiring.plus_pair)) == (
        "suitesparse"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        C = hb.ops.mxm(A, A, "plus_pair", mask=A.S)
    assert C.isequal(hb.ops.mxm(A, A, "plus_pair", mask=A.S, executor="reference"))
