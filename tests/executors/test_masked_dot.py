"""The masked dot-product SpGEMM kernel (the reference executor's ``C<M> = A ⊕.⊗ B`` when
the mask makes intersecting rows cheaper than expanding products: triangle counting, the
clustering coefficient) on the GPU equals the CPU's array code and a NumPy model.

The mask's entries go to the kernels in slices of its rows (one, or many small ones here).
The operands have hub rows and columns, so the mask's entries take both kernels: one thread
for an entry whose shorter row is short, one warp for one whose shorter row has at least
``LONG_ENTRY`` indices. Values are small integers, so sums are exact in any order.
"""

from __future__ import annotations

import numpy as np
import pytest

import hyblas as hb
from hyblas.executors.reference import masked_dot, spgemm

pytestmark = pytest.mark.gpu

if not hb.cuda_available():
    pytest.skip("no usable GPU: the 'cuda' backend is unavailable", allow_module_level=True)

N = 400
HUBS = 3


def _operand(rng: np.random.Generator, dtype: str) -> tuple[np.ndarray, ...]:
    """COO of an N x N matrix: sparse random entries plus HUBS full rows and columns."""
    rows = [rng.integers(0, N, 3 * N), np.repeat(np.arange(HUBS), N), np.tile(np.arange(N), HUBS)]
    cols = [rng.integers(0, N, 3 * N), np.tile(np.arange(N), HUBS), np.repeat(np.arange(HUBS), N)]
    r, c = np.concatenate(rows), np.concatenate(cols)
    keys = np.unique(r * N + c)
    values = rng.integers(1, 4, keys.size).astype(dtype)
    return keys // N, keys % N, values


def _model(a: np.ndarray, b: np.ndarray, mask: np.ndarray, name: str) -> tuple:
    """Dense NumPy model: ``(present, values)`` of ``C<mask> = A ⊕.⊗ B`` (absent = NaN in a)."""
    add, mult = {
        "plus_times": (np.add, np.multiply),
        "plus_pair": (np.add, lambda x, y: np.ones_like(x)),
        "min_plus": (np.fmin, np.add),
        "max_second": (np.fmax, lambda x, y: y),
    }[name]
    present = np.zeros((N, N), dtype=bool)
    values = np.zeros((N, N))
    for i, j in zip(*np.nonzero(mask), strict=True):
        both = ~np.isnan(a[i]) & ~np.isnan(b[:, j])
        if both.any():
            present[i, j] = True
            values[i, j] = add.reduce(mult(a[i][both], b[:, j][both]))
    return present, values


@pytest.mark.parametrize("slice_entries", [spgemm.DOT_SLICE, 97], ids=["one", "slices"])
@pytest.mark.parametrize("name", ["plus_times", "plus_pair", "min_plus", "max_second"])
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_masked_dot_kernel_equals_the_cpu_and_a_model(
    name: str, dtype: str, slice_entries: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(7)
    (ar, ac, av), (br, bc, bv) = _operand(rng, dtype), _operand(rng, dtype)
    mr, mc = rng.integers(0, N, 4 * N), rng.integers(0, N, 4 * N)
    mr[:HUBS], mc[:HUBS] = np.arange(HUBS), np.arange(HUBS)[::-1]  # hub x hub: warp entries
    a_len = np.bincount(ar, minlength=N)
    b_len = np.bincount(bc, minlength=N)
    shorter = np.minimum(a_len[mr], b_len[mc])
    assert (shorter >= masked_dot.LONG_ENTRY).any() and (shorter < masked_dot.LONG_ENTRY).any()

    monkeypatch.setattr(spgemm, "DOT_SLICE", slice_entries)
    calls = []  # the mask entries of each kernel pass
    real = spgemm.masked_dot
    monkeypatch.setattr(
        spgemm, "masked_dot", lambda *args: calls.append(int(args[3].size)) or real(*args)
    )
    results = {}
    for backend in ("cpu", "cuda"):
        A = hb.Matrix.from_coo(ar, ac, av, nrows=N, ncols=N, backend=backend)  # noqa: N806
        B = hb.Matrix.from_coo(br, bc, bv, nrows=N, ncols=N, backend=backend)  # noqa: N806
        M = hb.Matrix.from_coo(
            mr, mc, True, nrows=N, ncols=N, dup_op=hb.binary.any, backend=backend
        )  # noqa: N806
        C = hb.ops.mxm(A, B, name, mask=M.S, executor="reference")  # noqa: N806
        results[backend] = C.to_coo()
    # the GPU ran the kernel once a slice of the mask's rows, each entry once; the CPU the
    # array code. A slice holds about slice_entries entries (one row more at most).
    mask_entries = np.unique(mr * N + mc).size
    assert sum(calls) == mask_entries
    longest_row = np.bincount(np.unique(mr * N + mc) // N).max()
    assert max(calls) <= slice_entries + longest_row
    assert len(calls) >= mask_entries // (slice_entries + longest_row)

    dense_a = np.full((N, N), np.nan)
    dense_a[ar, ac] = av
    dense_b = np.full((N, N), np.nan)
    dense_b[br, bc] = bv
    mask = np.zeros((N, N), dtype=bool)
    mask[mr, mc] = True
    present, values = _model(dense_a, dense_b, mask, name)
    want_rows, want_cols = np.nonzero(present)
    for backend, (rows, cols, got) in results.items():
        np.testing.assert_array_equal(rows, want_rows, err_msg=backend)
        np.testing.assert_array_equal(cols, want_cols, err_msg=backend)
        np.testing.assert_array_equal(got, values[present].astype(got.dtype), err_msg=backend)


def test_triangle_count_and_clustering_on_a_power_law_graph_equal_the_cpu() -> None:
    G = {  # noqa: N806
        b: hb.Graph(hb.generators.kronecker(10, 16, seed=5, backend=b), "undirected")
        for b in ("cpu", "cuda")
    }
    assert hb.algorithms.triangle_count(G["cuda"]) == hb.algorithms.triangle_count(G["cpu"])
    np.testing.assert_allclose(
        hb.algorithms.local_clustering_coefficient(G["cuda"]).to_dense(),
        hb.algorithms.local_clustering_coefficient(G["cpu"]).to_dense(),
        rtol=0,
        atol=1e-12,
    )


def test_a_pattern_multiply_converts_no_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """plus_pair reads neither operand's values: the kernel gets placeholders, and no
    converted copy of a boolean matrix's values (as int64) is made or cached."""
    monkeypatch.setattr(spgemm, "_dot_cost", lambda *args: -1)  # the dot strategy
    calls = []
    real = spgemm.masked_dot
    monkeypatch.setattr(spgemm, "masked_dot", lambda *args: calls.append(1) or real(*args))
    rng = np.random.default_rng(3)
    rows, cols, _ = _operand(rng, "int32")
    A = hb.Matrix.from_coo(rows, cols, True, nrows=N, ncols=N, backend="cuda")  # noqa: N806
    At = A.T  # noqa: N806
    C = hb.ops.mxm(A, At, hb.semiring.plus_pair[np.int64], mask=A.S, executor="reference")  # noqa: N806
    assert calls
    copies = [k for k in (*A.cache, *At.cache) if isinstance(k, tuple) and k[0] == "values_as"]
    assert not copies
    dense = np.zeros((N, N), dtype=np.int64)
    dense[rows, cols] = 1
    want = (dense @ dense.T) * dense
    got = np.zeros((N, N), dtype=np.int64)
    r, c, v = C.to_coo()
    got[r, c] = v
    np.testing.assert_array_equal(got, want)
