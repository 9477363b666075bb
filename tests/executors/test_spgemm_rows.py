"""The reference SpGEMM takes a row of ``A`` as its own row SpMV only when the row's products
reach both ``nnz(B) / DENSE_ROW_FRACTION`` and the backend's ``DENSE_ROW_MIN``; every other
row goes into a saxpy group. Either way the product is the same."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp

import hyblas as hb
from hyblas.executors.reference import spgemm

N = 64


def _operands(backend: str) -> tuple[hb.Matrix, hb.Matrix, sp.csr_matrix, sp.csr_matrix]:
    """``A``: row 0 reaches every column (N * N products, the whole of ``B``), row 1 one
    column (N products), the rest empty. ``B``: N x N, every entry stored."""
    rng = np.random.default_rng(7)
    a = sp.lil_matrix((N, N))
    a[0, :] = rng.integers(1, 5, N)
    a[1, 3] = 2.0
    a = a.tocsr()
    b = sp.csr_matrix(rng.integers(1, 5, (N, N)).astype(np.float64))
    A = hb.Matrix.from_scipy(a, backend=backend)
    B = hb.Matrix.from_scipy(b, backend=backend)
    return A, B, a, b


@pytest.mark.parametrize(
    ("fraction", "least", "dense_rows"),
    [
        (1, 0, [0]),  # row 0 has nnz(B) products; row 1 far fewer
        (2, N * N + 1, []),  # row 0 short of the backend's least
        (1 << 40, 1, [0, 1]),  # every row with a product
    ],
    ids=["wide-row", "under-the-least", "every-row"],
)
def test_a_row_spmv_takes_the_rows_past_both_thresholds(
    backend: str, fraction: int, least: int, dense_rows: list[int]
) -> None:
    A, B, a, b = _operands(backend)
    rows_taken: list[int] = []
    real = spgemm._dense_row

    def counting(a_, b_, row, *args):
        rows_taken.append(row)
        return real(a_, b_, row, *args)

    # only this backend's entry counts: the other's is set so that it would decide otherwise
    other = {"cpu": "cuda", "cuda": "cpu"}[backend]
    least_by_backend = {backend: least, other: N * N + 1 if least <= N * N else 1}
    with mock.patch.multiple(
        spgemm,
        DENSE_ROW_FRACTION=fraction,
        DENSE_ROW_MIN=least_by_backend,
        _dense_row=counting,
    ):
        C = hb.ops.mxm(A, B, "plus_times", executor="reference")
    assert rows_taken == dense_rows
    np.testing.assert_array_equal(C.to_scipy().toarray(), (a @ b).toarray())
