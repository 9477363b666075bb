"""What is particular to the output-masked pull executor (``executor='pull'``): heavy rows
(more than ``HEAVY_ROW`` entries, walked by a whole block) built on purpose, under every kind of
mask, and the number of edges the walk examines (its early exit) checked against counts worked
out by hand, on both backends. Its products against the model and the reference:
``test_products.py``.

On the CPU this runs the NumPy emulation of the walk, on CUDA the kernels.
"""

from __future__ import annotations

import numpy as np
import pytest

import hyblas as hb
from hyblas.executors.pull import allowed_rows, pull
from hyblas.executors.pull.kernels import THREAD_EDGES, THREAD_STEP
from hyblas.executors.reference.kernels import HEAVY_ROW
from hyblas.ops.spec import as_mask


def _heavy_matrix(rng: np.random.Generator, dtype: str) -> hb.Matrix:
    """Rows are the outputs of ``mxv``: rows 0 and 7 are heavy (block-walked), rows 1-6 of
    THREAD_EDGES + 1 to HEAVY_ROW entries warp-walked, row 8 of THREAD_EDGES and the rest
    (about 3 entries each) thread-walked."""
    n = 6000
    walked = {
        0: 5000,
        7: HEAVY_ROW + 300,
        1: THREAD_EDGES + 1,
        2: 40,
        3: 100,
        4: 1000,
        5: HEAVY_ROW,
        6: 2000,
        8: THREAD_EDGES,
    }
    rows = np.concatenate([np.full(d, r) for r, d in walked.items()] + [rng.integers(9, n, 20000)])
    cols = np.concatenate(
        [rng.choice(n, d, replace=False) for d in walked.values()] + [rng.integers(0, n, 20000)]
    )
    keys = np.unique(rows * n + cols)
    values = rng.integers(1, 5, keys.size).astype(dtype)
    return hb.Matrix.from_coo(keys // n, keys % n, values, nrows=n, ncols=n)


@pytest.mark.parametrize(
    "name",
    [
        "plus_times",
        "min_plus",
        "max_min",
        "lor_land",
        "any_pair",
        "plus_pair",
        "min_first",
        "land_lor",
    ],
)
def test_heavy_rows_and_masks_equal_reference(backend: str, name: str) -> None:
    rng = np.random.default_rng(5)
    with hb.using_backend(backend):
        A = _heavy_matrix(rng, "bool" if name in ("lor_land", "land_lor") else "float64")
        visited = hb.Vector.from_coo(rng.choice(A.nrows, 2500, replace=False), True, size=A.nrows)
        few = hb.Vector.from_coo([0, 3, 7, 8, 11, 5999], True, size=A.nrows)
        for p in (0.001, 0.3, 1.0):
            keep = np.flatnonzero(rng.random(A.ncols) < p)
            u = hb.Vector.from_coo(
                keep, rng.integers(0, 4, keep.size).astype(A.dtype), size=A.ncols
            )
            for op, args in ((hb.ops.mxv, (A, u)), (hb.ops.vxm, (u, A))):
                for mask in (None, ~visited.S, visited.S, visited, few.S, ~few.S):
                    got = op(*args, name, mask=mask, executor="pull")
                    want = op(*args, name, mask=mask, executor="reference")
                    assert got.to_coo()[0].tolist() == want.to_coo()[0].tolist()
                    if name != "any_pair":
                        np.testing.assert_allclose(got.to_coo()[1], want.to_coo()[1], rtol=1e-12)


def _count_examined(backend: str, A: hb.Matrix, u: hb.Vector, name: str, mask=None) -> int:  # noqa: ANN001, N803
    xp = A.xp
    rows, allowed = allowed_rows(as_mask(mask), xp)
    values, present = u.as_bitmap()
    _, _, examined = pull(
        A, values, present, hb.semiring[name], flip=False, rows=rows, allowed=allowed, count=True
    )
    return examined


def test_the_walk_stops_at_the_step_of_the_first_final_contribution(backend: str) -> None:
    """Row 0: 100 edges (a warp's steps of 32), the first true input at edge 40 -> 64 edges.
    Row 1: HEAVY_ROW + 100 edges (a block's steps of 1024), first true input at edge 1500 ->
    2048. Row 2: 50 edges and no true input -> all 50. Row 3: 20 edges (a thread's steps of
    THREAD_STEP), first true input at edge 10 -> the step holding it. lor_land stops;
    plus_times never does."""
    assert 20 <= THREAD_EDGES < 50 and THREAD_STEP == 4  # the rows' walkers as described
    n = HEAVY_ROW + 200
    heavy = HEAVY_ROW + 100
    rows = np.concatenate(
        [np.zeros(100, np.int64), np.ones(heavy, np.int64), np.full(50, 2), np.full(20, 3)]
    )
    cols = np.concatenate(
        [np.arange(100), np.arange(heavy) + 100, np.arange(50) + 100, np.arange(20) + 1590]
    )
    inputs = np.zeros(n, bool)
    inputs[40] = inputs[1600] = True  # edge 40 of row 0, edge 1500 of row 1, edge 10 of row 3
    with hb.using_backend(backend):
        A = hb.Matrix.from_coo(rows, cols, True, nrows=4, ncols=n)
        u = hb.Vector.from_dense(inputs)  # every input present, only two true
        assert _count_examined(backend, A, u, "lor_land") == 64 + 2048 + 50 + 12
        assert _count_examined(backend, A, u, "plus_times") == 100 + heavy + 50 + 20
        only_row_2 = hb.Vector.from_coo([2], True, size=4)
        assert _count_examined(backend, A, u, "lor_land", only_row_2.S) == 50
        assert _count_examined(backend, A, u, "lor_land", ~only_row_2.S) == 64 + 2048 + 12
        got = hb.ops.mxv(A, u, "lor_land", executor="pull")
        assert got.to_coo()[0].tolist() == [0, 1, 2, 3]
        assert got.to_coo()[1].tolist() == [True, True, False, True]
        got = hb.ops.mxv(A, u, "lor_land", mask=~only_row_2.S, executor="pull")
        assert got.to_coo()[0].tolist() == [0, 1, 3]
