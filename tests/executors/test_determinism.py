"""The idempotent semirings give bit-identical results run to run and executor to executor.

A ``min`` / ``max`` / ``lor`` / ``land`` monoid's result does not depend on the order its
contributions are combined in, so an executor that combines them in whatever order its threads
arrive (atomics, split heavy rows, shared-memory segments) must still give the same bits: the
same structure and the same value words, ``-0.0`` against ``0.0`` included (the operands below
tie them on purpose). Each product runs :data:`REPEATS` times on every executor that runs on the
backend and every word is compared with the reference executor's first result.

The ``any`` monoid is GraphBLAS's "any contribution will do": its structure is fixed, and so
are its values where every contribution is the same (``any_pair``), but which of several
different contributions it keeps is left to the executor (the GPU keeps the first to arrive).
For ``any`` with another multiply the test asserts the fixed structure and that every value is
one of the output's contributions.
"""

from __future__ import annotations

import numpy as np
import pytest

import hyblas as hb
from hyblas.executors import registry
from tests.support.checks import served

REPEATS = 5
IDEMPOTENT = [
    name for name in hb.semiring if hb.semiring[name].monoid.name in ("min", "max", "lor", "land")
]
ANY = [name for name in hb.semiring if hb.semiring[name].monoid.name == "any"]
# Values chosen to tie: -0.0 against 0.0, and the same magnitude reached through several paths.
_FLOAT_CHOICES = (-2.5, -0.5, -0.0, 0.0, 0.5, 3.0, -1e18, 1e18)
_INT_CHOICES = (-3, -1, 0, 1, 2, 7)


def _dtype_of(name: str) -> np.dtype:
    """The dtype a semiring runs in here: float32 where served (its atomics split by sign),
    else the first it serves."""
    dtypes = served(hb.semiring[name])
    for preferred in (np.dtype(np.float32), np.dtype(np.int32), np.dtype(bool)):
        if preferred in dtypes:
            return preferred
    return dtypes[0]


def _operands(backend: str, dtype: np.dtype, density: float) -> tuple[hb.Matrix, hb.Vector]:
    """A power-law matrix (heavy rows and columns, many contributions per output) and an input
    with about ``density`` of its positions present."""
    rng = np.random.default_rng(20261126)
    structure = hb.generators.kronecker(9, 12, seed=3, backend="cpu")
    rows, cols, _ = structure.to_coo()
    n = structure.nrows
    choices = _FLOAT_CHOICES if dtype.kind == "f" else _INT_CHOICES
    values = rng.choice(np.array(choices, dtype=np.float64), rows.size).astype(dtype)
    A = hb.Matrix.from_coo(rows, cols, values, nrows=n, ncols=n, backend=backend)
    present = np.flatnonzero(rng.random(n) < density)
    u_values = rng.choice(np.array(choices, dtype=np.float64), present.size).astype(dtype)
    u = hb.Vector.from_coo(present, u_values, size=n, backend=backend)
    return A, u


def _words(v: hb.Vector) -> tuple[np.ndarray, np.ndarray]:
    """A result's indices and its values' bits (floats as unsigned words, so -0.0 != 0.0)."""
    indices, values = v.to_coo()
    values = np.ascontiguousarray(values)
    if values.dtype.kind == "f":
        values = values.view(f"u{values.dtype.itemsize}")
    return np.asarray(indices), values


def _products(A: hb.Matrix, u: hb.Vector, name: str, executor: str) -> list[hb.Vector]:
    """``A u`` and ``u A``, unmasked and under a complemented structural mask."""
    seen = hb.Vector.from_coo(np.arange(0, A.nrows, 3), True, size=A.nrows)
    return [
        hb.ops.mxv(A, u, name, executor=executor),
        hb.ops.vxm(u, A, name, executor=executor),
        hb.ops.mxv(A, u, name, mask=~seen.S, executor=executor),
    ]


@pytest.mark.parametrize("density", [1.0, 0.02], ids=["full", "sparse"])
@pytest.mark.parametrize("name", IDEMPOTENT)
def test_idempotent_semirings_are_bit_identical(backend: str, name: str, density: float) -> None:
    A, u = _operands(backend, _dtype_of(name), density)
    with hb.using_backend(backend):
        want = [_words(v) for v in _products(A, u, name, "reference")]
        for executor in registry.available(backend):
            for repeat in range(REPEATS):
                got = [_words(v) for v in _products(A, u, name, executor)]
                for product, ((gi, gv), (wi, wv)) in enumerate(zip(got, want, strict=True)):
                    where = f"{name} {executor} product {product} repeat {repeat}"
                    np.testing.assert_array_equal(gi, wi, err_msg=where)
                    np.testing.assert_array_equal(gv, wv, err_msg=where)


@pytest.mark.parametrize("name", ANY)
def test_any_semirings_fixed_structure_and_valid_values(backend: str, name: str) -> None:
    dtype = _dtype_of(name)
    A, u = _operands(backend, dtype, 0.3)
    multiply = hb.semiring[name].binaryop.name
    with hb.using_backend(backend):
        want = [_words(v) for v in _products(A, u, name, "reference")]
        # every contribution of A u, to check that the value kept is one of them
        rows, cols, a_values = A.to_coo()
        u_dense = np.zeros(A.ncols, dtype=dtype)
        u_present = np.zeros(A.ncols, dtype=bool)
        ui, uv = u.to_coo()
        u_dense[ui], u_present[ui] = uv, True
        live = u_present[cols]
        candidates = _multiply(multiply, a_values[live], u_dense[cols[live]])
        for executor in registry.available(backend):
            for repeat in range(REPEATS):
                got = _products(A, u, name, executor)
                for product, (v, (wi, wv)) in enumerate(zip(got, want, strict=True)):
                    gi, gv = _words(v)
                    where = f"{name} {executor} product {product} repeat {repeat}"
                    np.testing.assert_array_equal(gi, wi, err_msg=where)
                    if multiply == "pair":
                        np.testing.assert_array_equal(gv, wv, err_msg=where)
                indices, values = got[0].to_coo()
                for i, value in zip(indices.tolist(), values.tolist(), strict=True):
                    assert value in set(candidates[rows[live] == i].tolist()), (name, executor, i)


def _multiply(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x (*) y`` for the multiplies of the ``any`` semirings (an independent NumPy model)."""
    table = {
        "first": lambda: x,
        "second": lambda: y,
        "pair": lambda: np.ones_like(x),
        "plus": lambda: x + y,
        "minus": lambda: x - y,
        "times": lambda: x * y,
        "min": lambda: np.fmin(x, y),
        "max": lambda: np.fmax(x, y),
    }
    return table[name]()
