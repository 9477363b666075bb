"""A matrix's cache: what it holds is counted (``cache_nbytes``) and can be freed
(``clear_cache``): the derived forms are dropped, their memory released, and the results of
everything built on them are the same when they are built again; what is known of the entries
(a symmetric structure, mirrored values) stays until they change."""

from __future__ import annotations

import gc
import weakref

import numpy as np

import hyblas as hb
from hyblas.containers import derived


def _arrays_bytes(M: hb.Matrix) -> int:  # noqa: N803
    return sum(int(a.nbytes) for a in (M.indptr, M.indices, M.values))


def _matrix(backend: str) -> hb.Matrix:
    return hb.generators.kronecker(10, 8, seed=4, backend=backend)


def test_the_transpose_is_counted_exactly(backend: str) -> None:
    A = _matrix(backend)  # noqa: N806
    assert A.cache_nbytes() == 0
    T = A.T  # noqa: N806
    assert A.cache_nbytes() == _arrays_bytes(T)
    # the transpose's own cache links back to A weakly: A's arrays are not counted twice
    assert T.cache_nbytes() == 0


def test_clear_cache_frees_what_it_counted_and_results_stay_the_same(backend: str) -> None:
    # values that do not agree with their mirror: the matrix has a transpose of its own (a
    # symmetric matrix of equal values would be its own, and nothing would be freed for it)
    rows, cols, _ = _matrix("cpu").to_coo()
    weights = np.random.default_rng(5).uniform(1.0, 2.0, rows.size)
    A = hb.Matrix.from_coo(rows, cols, weights, nrows=1024, ncols=1024, backend=backend)  # noqa: N806
    G = hb.Graph(A)  # noqa: N806
    with hb.using_backend(backend):
        before = {
            "bfs": hb.algorithms.bfs(G, 0).to_dense(fill_value=-1),
            "pagerank": hb.algorithms.pagerank(G).to_dense(),
            "cc": hb.algorithms.connected_components(G).to_dense(),
        }
        u = hb.Vector.from_dense(np.ones(A.ncols), backend=backend)
        for executor in hb.executors.registry.available(backend):
            hb.ops.mxv(A, u, "plus_times", executor=executor)
    held = A.cache_nbytes()
    assert A.T is not A
    transpose = weakref.ref(A.T)
    assert held > _arrays_bytes(A.T)  # more than the transpose: degrees, layouts, ...
    assert A.clear_cache() == held
    assert set(A.cache) <= derived.FACTS and A.cache_nbytes() == 0  # only what holds none
    gc.collect()
    assert transpose() is None  # nothing else kept it alive
    with hb.using_backend(backend):
        after = {
            "bfs": hb.algorithms.bfs(G, 0).to_dense(fill_value=-1),
            "pagerank": hb.algorithms.pagerank(G).to_dense(),
            "cc": hb.algorithms.connected_components(G).to_dense(),
        }
    for name, values in before.items():
        np.testing.assert_array_equal(after[name], values, err_msg=name)


def test_a_changed_matrix_drops_its_cache_as_clear_cache_does(backend: str) -> None:
    A = _matrix(backend)  # noqa: N806
    T = A.T  # noqa: N806
    hb.ops.apply(A, "ainv", out=A)
    assert A.cache_nbytes() == 0
    assert A.transpose_at_hand() is None and T.transpose_at_hand() is None


def test_clear_cache_keeps_what_is_known_of_the_entries(backend: str) -> None:
    """An undirected Graph's weights made by ``random_weights`` equal their transpose: after
    ``clear_cache`` that is still known (no transpose is built for ``A.T``); once the entries
    change, it is not."""
    W = hb.generators.random_weights(_matrix(backend), 1.0, 2.0, seed=3)  # noqa: N806
    hb.Graph(W, "undirected", check=False)
    assert W.T is W
    W.cache["scratch"] = W.indptr.copy()  # a derived form that holds memory
    assert W.clear_cache() == int(W.indptr.nbytes)
    assert "scratch" not in W.cache and W.cache_nbytes() == 0
    assert derived.known_symmetric_values(W)
    assert W.T is W
    hb.ops.apply(W, "ainv", out=W)  # changed: nothing is known of the new entries
    assert not derived.known_symmetric(W)
    assert W.T is not W
