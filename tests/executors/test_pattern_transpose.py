"""A product that reads only the pattern of its right operand's transpose (a multiply that
ignores ``y``: ``first``, ``pair``) takes a structurally symmetric operand (an undirected
Graph's matrix) for its own transpose: nothing is transposed, the result is the same. A product
that reads the values still uses the true transpose, whatever the operand's structure.

The reference executor's product reads ``Bᵀ`` on two of its paths: the masked dot products
(a mask with few entries) and the rows walked as one vector-matrix product (a row of ``A``
with many products)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import hyblas as hb
from hyblas.device import arrays
from tests.support.checks import built_no_transpose


def _symmetric_structure(backend: str, n: int, edges: int) -> tuple[hb.Matrix, hb.Matrix]:
    """(marked, plain): one matrix of symmetric structure and asymmetric values, once as an
    undirected Graph's (marked symmetric) and once as a copy that carries no mark."""
    rng = np.random.default_rng(8)
    rows, cols = rng.integers(0, n, edges), rng.integers(0, n, edges)
    keys = np.unique(np.concatenate([rows * n + cols, cols * n + rows]))
    values = rng.integers(1, 9, keys.size).astype(np.float64)  # (i, j) and (j, i) differ
    A = hb.Matrix.from_coo(keys // n, keys % n, values, nrows=n, ncols=n, backend=backend)  # noqa: N806
    plain = A.dup()
    hb.Graph(A, "undirected", check=False)
    return A, plain


def _operands(backend: str, path: str) -> tuple[hb.Matrix, hb.Matrix, hb.Matrix, object]:
    """(A marked, A plain, X, mask) whose product ``X ⊕.⊗ A`` takes ``path``."""
    rng = np.random.default_rng(9)
    if path == "dot":  # few mask entries, rows of X with many products: dot products
        A, plain = _symmetric_structure(backend, 60, 240)  # noqa: N806
        x_rows, x_cols = rng.integers(0, 5, 200), rng.integers(0, 60, 200)
        m_rows, m_cols = rng.integers(0, 5, 10), rng.integers(0, 60, 10)
        mask = hb.Matrix.from_coo(
            m_rows, m_cols, True, nrows=5, ncols=60, backend=backend, dup_op=hb.binary.any
        ).S
    else:  # a full row of X over a dense-ish A: more products than a sort should take
        A, plain = _symmetric_structure(backend, 300, 12000)  # noqa: N806
        x_rows, x_cols = np.zeros(300, dtype=np.int64), np.arange(300)
        mask = None
    X = hb.Matrix.from_coo(  # noqa: N806
        x_rows,
        x_cols,
        rng.random(x_rows.size),
        nrows=5,
        ncols=A.nrows,
        backend=backend,
        dup_op=hb.binary.plus,
    )
    return A, plain, X, mask


@pytest.mark.parametrize("semiring", ["plus_first", "plus_pair", "plus_times", "min_plus"])
@pytest.mark.parametrize("path", ["dot", "dense_row"])
def test_product_with_a_symmetric_operand_equals_the_unmarked_one(
    backend: str, semiring: str, path: str
) -> None:
    A, plain, X, mask = _operands(backend, path)  # noqa: N806
    want = hb.ops.mxm(X, plain, semiring, mask=mask, executor="reference").to_coo()
    got = hb.ops.mxm(X, A, semiring, mask=mask, executor="reference").to_coo()
    for mine, theirs in zip(got, want, strict=True):
        np.testing.assert_allclose(mine, theirs)
    assert plain.transpose_at_hand() is not None  # the path read Bᵀ
    if not hb.semiring[semiring].binaryop.reads_y:
        assert A.transpose_at_hand() is None


def test_offdiag_and_diag_of_a_symmetric_structure_stay_marked(backend: str) -> None:
    """``select`` with ``offdiag`` / ``diag`` keeps a symmetric structure symmetric (the mark
    goes on); a value test, a ``tril`` or an offset diagonal does not."""
    A, plain = _symmetric_structure(backend, 30, 80)  # noqa: N806
    for kept in (hb.ops.select(A, "offdiag"), hb.ops.select(A, "diag")):
        assert hb.containers.derived.known_symmetric(kept)
    for lost in (
        hb.ops.select(A, "tril"),
        hb.ops.select(A, "offdiag", 1),
        hb.ops.select(A, "valuegt", 4.0),
        hb.ops.select(plain, "offdiag"),
    ):
        assert not hb.containers.derived.known_symmetric(lost)


def test_clustering_and_triangles_transpose_nothing_on_an_undirected_graph(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clustering coefficient's product reads the offdiagonal structure for its own
    transpose, and triangle counting reads L for the transpose of Lᵀ (L's own cached
    transpose, built once): the results are networkx's, and nothing else is transposed."""
    G = nx.gnm_random_graph(80, 400, seed=5)  # noqa: N806
    A = hb.io.from_networkx(G, nodelist=range(80), backend=backend)  # noqa: N806
    graph = hb.Graph(A, "undirected", check=False)
    transposed = []
    transpose = arrays.transpose_csr
    monkeypatch.setattr(
        arrays, "transpose_csr", lambda *args: transposed.append(args[-2:]) or transpose(*args)
    )
    lcc = hb.algorithms.local_clustering_coefficient(graph).to_dense()
    np.testing.assert_allclose(lcc, [nx.clustering(G)[v] for v in range(80)])
    assert transposed == []
    assert hb.algorithms.triangle_count(graph) == sum(nx.triangles(G).values()) // 3
    assert transposed == [(80, 80)]  # L.T


def test_a_matrix_known_to_equal_its_transpose_is_its_own_transpose(backend: str) -> None:
    """An undirected Graph's matrix whose values are all one, or agree with their mirror as
    ``random_weights`` makes them, is its own transpose: ``A.T is A``, and value-reading
    products (``min_plus``) read it as it is. Asymmetric values, or a write into the matrix,
    bring back the real transpose."""
    A = hb.generators.kronecker(8, 8, seed=3, backend=backend)  # noqa: N806 - iso, symmetric
    hb.Graph(A, "undirected", check=False)
    assert A.T is A
    W = hb.generators.random_weights(A, 1.0, 9.0, seed=4)  # noqa: N806 - structure from A
    assert W.T is W
    plain = W.dup()
    frontier = hb.Vector.from_coo([0, 5, 9], [0.0, 1.5, 3.0], size=W.nrows, backend=backend)
    want = hb.ops.vxm(frontier, plain, "min_plus", executor="reference").to_coo()
    got = hb.ops.vxm(frontier, W, "min_plus", executor="reference").to_coo()
    for mine, theirs in zip(got, want, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    assert plain.T is not plain  # no mark: a real transpose
    asymmetric, _ = _symmetric_structure(backend, 30, 80)
    transpose = asymmetric.T
    assert transpose is not asymmetric
    np.testing.assert_array_equal(
        transpose.to_dense(fill_value=0), asymmetric.to_dense(fill_value=0).T
    )
    hb.ops.assign(W, 100.0, 0, 1)  # A[0, 1] no longer agrees with A[1, 0]
    transpose = W.T
    assert transpose is not W
    np.testing.assert_array_equal(transpose.to_dense(fill_value=0), W.to_dense(fill_value=0).T)


@pytest.mark.parametrize("executor", ["auto", "reference"])
def test_sssp_on_an_undirected_weighted_graph_builds_no_transpose(
    backend: str, executor: str
) -> None:
    """SSSP's value-reading rounds (``vxm`` on the host, every round with ``reference``) read
    an undirected Graph's ``random_weights`` matrix for its transpose: the distances are
    scipy's Dijkstra's and no transpose is built."""
    A = hb.generators.kronecker(9, 8, seed=5, backend=backend)  # noqa: N806
    W = hb.generators.random_weights(A, 1.0, 9.0, seed=6)  # noqa: N806
    G = hb.Graph(W, "undirected", check=False)
    got = hb.algorithms.sssp(G, 3, executor=executor).to_dense(fill_value=np.inf)
    rows, cols, values = W.to_coo()
    scipy_matrix = sp.csr_array((values, (rows, cols)), shape=W.shape)
    want = csgraph.dijkstra(scipy_matrix, indices=3)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert built_no_transpose(W)
