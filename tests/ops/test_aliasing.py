"""An operation's ``out`` (and its mask) may be one of its inputs, as in GraphBLAS: the result is
that of the same call on copies, every input read as it was before the call (results are
computed into new arrays and swapped into ``out`` at the end)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hyblas as hb
from tests.support.checks import snapshot

SIZE = 256  # a vector with a few entries stays sparse
MASKS = [None, "S", "~S", "V", "~V"]


def _vector(backend: str, entries: int, seed: int) -> hb.Vector:
    rng = np.random.default_rng(seed)
    ids = np.sort(rng.choice(SIZE, entries, replace=False))
    return hb.Vector.from_coo(ids, rng.integers(0, 9, entries).astype(float), size=SIZE).to_backend(
        backend
    )


def _matrix(backend: str, density: float, seed: int) -> hb.Matrix:
    rng = np.random.default_rng(seed)
    rows, cols = np.nonzero(rng.random((SIZE, SIZE)) < density)
    values = rng.integers(0, 9, rows.size).astype(float)
    return hb.Matrix.from_coo(rows, cols, values, nrows=SIZE, ncols=SIZE, backend=backend)


def _mask(parent: Any, kind: str | None) -> Any:
    if kind is None:
        return None
    return {"S": parent.S, "~S": ~parent.S, "V": parent.V, "~V": ~parent}[kind]


def _aliased_equals_copied(op: Callable[..., Any], x: Any, A: hb.Matrix) -> None:  # noqa: N803
    """``op(x, x, A, out=x, mask=<x>)`` (every role of ``x`` one object) against the same call
    with each role a copy, for every mask kind, accumulator and replace."""
    for kind, accum, replace in itertools.product(MASKS, [None, hb.binary.min], [False, True]):
        if replace and kind is None:
            continue
        controls = {"accum": accum, "replace": replace}
        aliased = x.dup()
        op(aliased, aliased, A, out=aliased, mask=_mask(aliased, kind), **controls)
        out = x.dup()
        op(x.dup(), x.dup(), A, out=out, mask=_mask(x.dup(), kind), **controls)
        assert snapshot(aliased) == snapshot(out), (kind, accum, replace)


VECTOR_OPS = {
    "vxm": lambda u, v, A, **k: hb.ops.vxm(u, A, "plus_times", **k),
    "mxv_any": lambda u, v, A, **k: hb.ops.mxv(A, u, "any_pair", **k),
    "ewise_add": lambda u, v, A, **k: hb.ops.ewise_add(u, v, "minus", **k),
    "ewise_mult": lambda u, v, A, **k: hb.ops.ewise_mult(u, v, "times", **k),
    "apply": lambda u, v, A, **k: hb.ops.apply(u, "ainv", **k),
    "apply_bound": lambda u, v, A, **k: hb.ops.apply(u, "minus", left=2.0, **k),
    "select": lambda u, v, A, **k: hb.ops.select(u, "valuegt", 3, **k),
    "extract": lambda u, v, A, **k: hb.ops.extract(u, np.arange(SIZE)[::-1], **k),
    "assign": lambda u, v, A, out, **k: hb.ops.assign(out, v, None, **k),
    "assign_region": lambda u, v, A, out, **k: hb.ops.assign(
        out, hb.ops.extract(v, slice(0, SIZE // 2)), slice(SIZE // 2, SIZE), **k
    ),
    "assign_scalar": lambda u, v, A, out, **k: hb.ops.assign(out, 5.0, None, **k),
    "reduce_rows": lambda u, v, A, **k: hb.ops.reduce_rows(A, "plus", **k),
}
MATRIX_OPS = {
    "mxm": lambda B, C, A, **k: hb.ops.mxm(B, C, "plus_times", **k),
    "mxm_right": lambda B, C, A, **k: hb.ops.mxm(A, B, "min_plus", **k),
    "ewise_add": lambda B, C, A, **k: hb.ops.ewise_add(B, C, "minus", **k),
    "apply": lambda B, C, A, **k: hb.ops.apply(B, "ainv", **k),
    "select": lambda B, C, A, **k: hb.ops.select(B, "tril", 0, **k),
    "transpose": lambda B, C, A, **k: hb.ops.transpose(B, **k),
    "assign": lambda B, C, A, out, **k: hb.ops.assign(out, C.T, None, None, **k),
}


@pytest.mark.parametrize("entries", [3, 40, SIZE])
@pytest.mark.parametrize("name", list(VECTOR_OPS))
def test_vector_out_is_an_input(backend: str, name: str, entries: int) -> None:
    A = _matrix(backend, 0.05, 1)  # noqa: N806
    _aliased_equals_copied(VECTOR_OPS[name], _vector(backend, entries, 2), A)


@pytest.mark.parametrize("executor", ["reference", "dense", "sparse", "pull"])
def test_product_out_is_its_input_on_every_executor(backend: str, executor: str) -> None:
    A = _matrix(backend, 0.05, 1)  # noqa: N806
    for entries in (3, 40, SIZE):
        for semiring in ("plus_times", "any_pair", "min_plus"):

            def product(u: Any, v: Any, A: Any, semiring: str = semiring, **k: Any) -> Any:  # noqa: N803
                return hb.ops.vxm(u, A, semiring, executor=executor, **k)

            _aliased_equals_copied(product, _vector(backend, entries, 2), A)


@pytest.mark.parametrize("name", list(MATRIX_OPS))
def test_matrix_out_is_an_input(backend: str, name: str) -> None:
    _aliased_equals_copied(MATRIX_OPS[name], _matrix(backend, 0.02, 3), _matrix(backend, 0.02, 4))
