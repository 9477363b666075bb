"""Generators: reproducible, well-formed (symmetric, no self loops, no duplicates), sized right."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import hyblas as hb
from hyblas import generators as gen
from hyblas.errors import InvalidObject, InvalidValue


def _canonical(A: hb.Matrix) -> sp.csr_array:
    """The scipy copy, after checking that hyblas' CSR is canonical (sorted, no duplicates)."""
    S = A.to_scipy()
    assert S.has_canonical_format or S.nnz == 0
    rows, cols, _ = A.to_coo()
    keys = rows * max(A.ncols, 1) + cols
    assert np.all(np.diff(keys) > 0), "entries must be strictly increasing (no duplicates)"
    return S


def _assert_simple_undirected(A: hb.Matrix) -> None:
    S = _canonical(A)
    assert A.nrows == A.ncols
    assert S.diagonal().sum() == 0, "no self loops"
    assert (S != S.T).nnz == 0, "symmetric"


# --- Kronecker ------------------------------------------------------------------------------


def test_kronecker_same_seed_same_graph(backend: str) -> None:
    a = gen.kronecker(10, seed=7, backend=backend)
    b = gen.kronecker(10, seed=7, backend=backend)
    assert a.isequal(b, check_dtype=True)


def test_kronecker_different_seed_different_graph() -> None:
    a = gen.kronecker(10, seed=0, backend="cpu")
    b = gen.kronecker(10, seed=1, backend="cpu")
    assert not a.isequal(b)


@pytest.mark.gpu
def test_kronecker_same_graph_on_cpu_and_cuda(cuda_usable: bool) -> None:
    if not cuda_usable:
        pytest.skip("needs the 'cuda' backend")
    for seed in (0, 3):
        cpu = gen.kronecker(12, seed=seed, backend="cpu")
        cuda = gen.kronecker(12, seed=seed, backend="cuda")
        assert cuda.backend == "cuda"
        assert cpu.isequal(cuda.to_backend("cpu"), check_dtype=True)


def test_kronecker_is_simple_undirected(backend: str) -> None:
    A = gen.kronecker(10, 16, backend=backend)
    assert A.shape == (1024, 1024)
    assert A.dtype == np.float32
    _assert_simple_undirected(A)
    assert np.all(A.to_coo()[2] == 1)


def test_kronecker_size_scale10() -> None:
    # 16 * 1024 = 16384 generated edges; self loops and repeats removed, then both directions
    # stored. R-MAT with Graph500 parameters repeats a good share of its edges: measured
    # 21,000 to 21,300 entries over seeds; accept a generous band around that.
    for seed in range(3):
        nnz = gen.kronecker(10, 16, seed=seed).nnz
        assert 18_000 <= nnz <= 25_000, nnz
        assert nnz % 2 == 0


def test_kronecker_directed_and_options() -> None:
    A = gen.kronecker(8, 8, symmetric=False, dtype=np.int32, seed=2)
    assert A.dtype == np.int32
    S = _canonical(A)
    assert S.diagonal().sum() == 0
    assert (S != S.T).nnz > 0  # directed: some edges have no reverse
    assert A.nnz <= 8 * 256


def test_kronecker_degree_skew() -> None:
    # R-MAT gives a heavy-tailed degree distribution: the top vertex has far more than average
    A = gen.kronecker(12, 16)
    degree = np.diff(A.to_scipy().indptr)
    assert degree.max() > 20 * degree.mean()


def test_kronecker_uniform_quadrants_look_like_erdos_renyi() -> None:
    # a = b = c = d = 1/4 gives uniform endpoints: no strong hub
    A = gen.kronecker(12, 16, a=0.25, b=0.25, c=0.25)
    degree = np.diff(A.to_scipy().indptr)
    assert degree.max() < 4 * degree.mean()


def test_kronecker_small_scales() -> None:
    assert gen.kronecker(0).shape == (1, 1) and gen.kronecker(0).nnz == 0  # only self loops
    A = gen.kronecker(1, 4)
    _assert_simple_undirected(A)
    assert gen.kronecker(5, 0).nnz == 0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"scale": -1}, InvalidValue),
        ({"scale": 32}, InvalidValue),
        ({"scale": 4, "edge_factor": -2}, InvalidValue),
        ({"scale": 4, "a": 0.6, "b": 0.3, "c": 0.3}, InvalidValue),
        ({"scale": 4, "a": -0.1}, InvalidValue),
        ({"scale": 4, "seed": "x"}, InvalidObject),
        ({"scale": 2.5}, InvalidValue),
    ],
)
def test_kronecker_bad_arguments(kwargs: dict, error: type) -> None:
    with pytest.raises(error):
        gen.kronecker(**kwargs)


# --- grid -------------------------------------------------------------------------------------


def test_grid_degrees(backend: str) -> None:
    rows, cols = 4, 6
    A = gen.grid_2d(rows, cols, backend=backend)
    _assert_simple_undirected(A)
    assert A.shape == (24, 24)
    degree = np.diff(A.to_scipy().indptr)
    counts = np.bincount(degree, minlength=5)
    assert counts[2] == 4  # corners
    assert counts[3] == 2 * (rows - 2) + 2 * (cols - 2)  # border
    assert counts[4] == (rows - 2) * (cols - 2)  # interior
    assert A.nnz == 2 * (rows * (cols - 1) + cols * (rows - 1))


def test_grid_neighbours_are_the_four_adjacent_cells() -> None:
    #   0 - 1 - 2
    #   |   |   |
    #   3 - 4 - 5
    A = gen.grid_2d(2, 3).to_scipy()
    assert set(A[[4]].indices.tolist()) == {1, 3, 5}
    assert set(A[[0]].indices.tolist()) == {1, 3}
    assert set(A[[2]].indices.tolist()) == {1, 5}


@pytest.mark.parametrize(("rows", "cols", "nnz"), [(0, 5, 0), (1, 1, 0), (1, 5, 8), (5, 1, 8)])
def test_grid_degenerate(rows: int, cols: int, nnz: int) -> None:
    A = gen.grid_2d(rows, cols)
    assert A.shape == (rows * cols, rows * cols)
    assert A.nnz == nnz
    _assert_simple_undirected(A)


# --- Erdos-Renyi --------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "m"), [(10, 0), (10, 1), (50, 300), (200, 5000), (6, 30)])
def test_erdos_renyi_exact_m_directed(n: int, m: int, backend: str) -> None:
    A = gen.erdos_renyi(n, m, seed=4, backend=backend)
    S = _canonical(A)
    assert A.shape == (n, n)
    assert A.nnz == m
    assert S.diagonal().sum() == 0


@pytest.mark.parametrize(("n", "m"), [(50, 300), (6, 15), (2, 1)])
def test_erdos_renyi_exact_m_symmetric(n: int, m: int) -> None:
    A = gen.erdos_renyi(n, m, seed=1, symmetric=True)
    _assert_simple_undirected(A)
    assert A.nnz == 2 * m


def test_erdos_renyi_reproducible() -> None:
    a = gen.erdos_renyi(100, 400, seed=9)
    assert a.isequal(gen.erdos_renyi(100, 400, seed=9))
    assert not a.isequal(gen.erdos_renyi(100, 400, seed=10))


def test_erdos_renyi_too_many_edges() -> None:
    with pytest.raises(InvalidValue, match="possible"):
        gen.erdos_renyi(5, 21)
    with pytest.raises(InvalidValue, match="possible"):
        gen.erdos_renyi(5, 11, symmetric=True)


def test_erdos_renyi_uses_the_whole_range() -> None:
    A = gen.erdos_renyi(1000, 20_000, seed=3)
    rows, cols, _ = A.to_coo()
    assert rows.min() < 10 and rows.max() > 990 and cols.min() < 10 and cols.max() > 990
    # out-degrees about Poisson(20): over 1000 vertices, P(any < 3 or > 45) is below 1e-6
    degree = np.bincount(rows, minlength=1000)
    assert 3 <= degree.min() and degree.max() <= 45
    assert abs(degree.mean() - 20) < 1e-9


# --- random weights -------------------------------------------------------------------------------


def test_random_weights_structure_range_and_symmetry(backend: str) -> None:
    A = gen.kronecker(9, backend=backend)
    W = gen.random_weights(A, 1.0, 5.0, seed=2)
    assert W.backend == backend and W.dtype == A.dtype
    S, T = A.to_scipy(), W.to_scipy()
    assert np.array_equal(S.indptr, T.indptr) and np.array_equal(S.indices, T.indices)
    assert T.data.min() >= 1.0 and T.data.max() < 5.0
    assert (T != T.T).nnz == 0
    assert np.unique(T.data).size > T.nnz // 4  # really random, not constant
    assert W.isequal(gen.random_weights(A, 1.0, 5.0, seed=2))
    assert not W.isequal(gen.random_weights(A, 1.0, 5.0, seed=3))


def test_random_weights_dtypes() -> None:
    A = gen.grid_2d(10, 10, dtype=bool)
    W = gen.random_weights(A, 0.0, 1.0)
    assert W.dtype == np.float64
    I = gen.random_weights(A, 1, 4, dtype=np.int32)  # noqa: E741
    values = I.to_coo()[2]
    assert I.dtype == np.int32 and set(np.unique(values).tolist()) <= {1, 2, 3}
    W32 = gen.random_weights(A, 0.0, 1e-30, dtype=np.float32)
    assert W32.to_coo()[2].max() < np.float32(1e-30)


def test_random_weights_bad_arguments() -> None:
    A = gen.grid_2d(2, 2)
    with pytest.raises(InvalidValue):
        gen.random_weights(A, 2.0, 1.0)
    with pytest.raises(InvalidObject):
        gen.random_weights(A.to_scipy(), 0.0, 1.0)
