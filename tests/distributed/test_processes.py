"""The partitioned containers, products and algorithms on 2 and 4 processes (an MPI launcher
on the CPU; NCCL on as many GPUs, gpu-marked), compared with one process's hyblas and with
scipy.sparse.csgraph.

One launch per (backend, processes) runs every scenario (``worker.py``); the tests read what it
gathered.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

import hyblas as hb
from hyblas.backend import cupy_module

from . import spmd
from .worker import (
    DENSE_SEMIRINGS,
    GRAPHS,
    PRODUCT_FORMS,
    SEMIRINGS,
    SYMMETRIC,
    dense_input,
    product_input,
    product_kwargs,
    product_mask,
    product_out,
)

SETUPS = [
    pytest.param(("cpu", 1), id="cpu-1"),
    pytest.param(("cpu", 2), id="cpu-2"),
    pytest.param(("cpu", 4), id="cpu-4"),
    # one process: the NCCL communicator (and its grid's sub-communicators) on a single GPU
    pytest.param(("cuda", 1), id="cuda-1", marks=pytest.mark.gpu),
    pytest.param(("cuda", 2), id="cuda-2", marks=pytest.mark.gpu),
    pytest.param(("cuda", 4), id="cuda-4", marks=pytest.mark.gpu),
]


@pytest.fixture(scope="module", params=SETUPS)
def results(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    backend, nprocs = request.param
    if backend == "cuda":
        cupy = cupy_module()
        if cupy is None:
            pytest.skip("backend 'cuda' needs CuPy and a usable GPU; cuda_available() is False")
        if cupy.cuda.runtime.getDeviceCount() < nprocs:
            pytest.skip(f"needs {nprocs} GPUs")
    out = _launched(tmp_path_factory, backend, nprocs)
    found: dict = {"nprocs": nprocs}
    for path in out.glob("*.npz"):
        with np.load(path) as data:
            found[path.stem] = {k: data[k] for k in data.files}
    found["errors"] = [
        json.loads((out / f"errors-{rank}.json").read_text()) for rank in range(nprocs)
    ]
    found["collectives"] = [
        json.loads((out / f"collectives-{rank}.json").read_text()) for rank in range(nprocs)
    ]
    assert sorted(p.name for p in out.glob("done-*")) == [f"done-{r}" for r in range(nprocs)]
    return found


def _launched(tmp_path_factory: pytest.TempPathFactory, backend: str, nprocs: int) -> Path:
    """The folder the setup's launch wrote, launched once in the test session.

    Under pytest-xdist each worker that gets one of this module's tests sets the module's
    fixture up: the workers share one launch, in the session's folder, under a lock (several
    multi-process jobs at once, each NCCL job on the same GPU, would run past their time)."""
    timeout = 120 if backend == "cpu" else 900  # the GPUs' first kernel compilations
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        out = tmp_path_factory.mktemp(f"{backend}-{nprocs}")
        spmd.run(nprocs, "tests.distributed.worker", str(out), backend, timeout=timeout)
        return out
    out = tmp_path_factory.getbasetemp().parent / f"launch-{backend}-{nprocs}"  # the session's
    with out.with_suffix(".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "launched").exists():  # not yet, or a failed launch: launch (again)
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            spmd.run(nprocs, "tests.distributed.worker", str(out), backend, timeout=timeout)
            (out / "launched").touch()
    return out


def coo(v: hb.Vector) -> np.ndarray:
    ids, values = v.to_coo()
    return np.stack([ids, values.astype(np.float64)])


@pytest.mark.parametrize("graph", list(GRAPHS))
def test_the_partition_holds_the_matrix(results: dict, graph: str) -> None:
    A = GRAPHS[graph]()
    got = results[graph]
    rows, cols, _ = A.to_coo()
    np.testing.assert_array_equal(got["gathered"], np.stack([rows, cols]))
    assert bool(got["from_edges_equal"])
    assert int(got["nnz"]) == A.nnz
    transposed = hb.ops.transpose(A).to_coo()
    np.testing.assert_array_equal(got["transpose"], np.stack(transposed[:2]))


@pytest.mark.parametrize("graph", list(GRAPHS))
def test_bfs_levels_match_one_process_and_csgraph(results: dict, graph: str) -> None:
    A = GRAPHS[graph]()
    for source in (0, A.nrows // 2):
        got = results[graph][f"bfs_{source}"]
        np.testing.assert_array_equal(got, coo(hb.algorithms.bfs(A, source)))
        hops = csgraph.shortest_path(A.to_scipy(), unweighted=True, indices=source)
        reached = np.flatnonzero(np.isfinite(hops))
        np.testing.assert_array_equal(got[0], reached)
        np.testing.assert_array_equal(got[1], hops[reached])


@pytest.mark.parametrize("graph", list(GRAPHS))
def test_pagerank_matches_one_process(results: dict, graph: str) -> None:
    A = GRAPHS[graph]()
    one = hb.algorithms.pagerank(A, iterations=20).to_dense()
    np.testing.assert_allclose(results[graph]["pagerank"], one, rtol=1e-12, atol=1e-15)
    assert results[graph]["pagerank"].sum() == pytest.approx(1.0)
    single = hb.algorithms.pagerank(A, iterations=5, dtype=np.float32).to_dense()
    np.testing.assert_allclose(results[graph]["pagerank32"], single, rtol=1e-5)


@pytest.mark.parametrize("graph", SYMMETRIC)
def test_bfs_over_a_symmetric_matrix_matches_one_process(results: dict, graph: str) -> None:
    """On a p x 1 grid each process computes its own rows' next level (an mxv)."""
    A = GRAPHS[graph]()
    for source in (0, A.nrows // 2):
        got = results[graph][f"bfs_symmetric_{source}"]
        np.testing.assert_array_equal(got, coo(hb.algorithms.bfs(A, source)))


@pytest.mark.parametrize("graph", SYMMETRIC)
def test_pagerank_over_a_symmetric_matrix_matches_one_process(results: dict, graph: str) -> None:
    """A matrix marked symmetric runs mxv (p x 1) or vxm and mxv in turn (a square grid,
    ending in the column layout after an odd number of iterations): the same ranks."""
    A = GRAPHS[graph]()
    assert hb.ops.transpose(A).isequal(A)  # the mark is true
    # from_matrix and from_edges keep the caller's word; unmarked, from_matrix is not told
    assert results[graph]["symmetric_marks"].tolist() == [True, True, False]
    for iterations in (5, 20):
        one = hb.algorithms.pagerank(A, iterations=iterations).to_dense()
        got = results[graph][f"pagerank_symmetric_{iterations}"]
        np.testing.assert_allclose(got, one, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("semiring", list(DENSE_SEMIRINGS))
@pytest.mark.parametrize("graph", list(GRAPHS))
def test_dense_exchange_matches_one_process(results: dict, graph: str, semiring: str) -> None:
    """A product of full vectors over the partition, for each collective reduction (sum,
    min, max; lor as max on bools): one process's product, the monoid's identity where no
    entry; the trace's rows count every byte sent."""
    A = GRAPHS[graph]()
    dtype = DENSE_SEMIRINGS[semiring]
    values = dense_input(A.nrows, dtype)
    x = hb.Vector.from_dense(values, backend="cpu")
    found = results[graph]
    tolerance = 1e-6 if dtype == np.float32 else 1e-12
    for op in ("vxm", "mxv"):
        w = hb.ops.vxm(x, A, semiring) if op == "vxm" else hb.ops.mxv(A, x, semiring)
        expected = w.to_dense(fill_value=hb.semiring[semiring].monoid.identity(w.dtype))
        got = found[f"dense_{op}_{semiring}"]
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=tolerance)
        # through the column layout: the same
        via = found[f"dense_column_{semiring}" if op == "vxm" else f"dense_from_column_{semiring}"]
        np.testing.assert_array_equal(via, got)
        traced, sent = found[f"dense_{op}_{semiring}_bytes"].tolist()
        assert traced == sent
        assert (sent > 0) == (results["nprocs"] > 1)
    np.testing.assert_array_equal(found[f"dense_round_trip_{semiring}"], values)


@pytest.mark.parametrize("graph", list(GRAPHS))
def test_components_match_one_process_and_csgraph(results: dict, graph: str) -> None:
    A = GRAPHS[graph]()
    got = results[graph]["components"]
    np.testing.assert_array_equal(got, hb.algorithms.connected_components(A).to_dense())
    count, labels = csgraph.connected_components(A.to_scipy(), directed=True, connection="weak")
    smallest = {label: np.flatnonzero(labels == label).min() for label in range(count)}
    np.testing.assert_array_equal(got, [smallest[label] for label in labels])
    assert len(np.unique(got)) == count > 3  # several components and isolated vertices


@pytest.mark.parametrize("graph", list(GRAPHS))
@pytest.mark.parametrize("semiring", SEMIRINGS)
def test_products_match_one_process(results: dict, graph: str, semiring: str) -> None:
    A = GRAPHS[graph]()
    n = A.nrows
    u, mask = product_input(n), product_mask(n)
    for form in PRODUCT_FORMS:
        kwargs = product_kwargs(form, mask, lambda: product_out(n))
        for op in ("mxv", "vxm"):
            if op == "mxv":
                want = hb.ops.mxv(A, u, semiring, **{**kwargs, "out": _copy(kwargs)})
            else:
                want = hb.ops.vxm(u, A, semiring, **{**kwargs, "out": _copy(kwargs)})
            got = results[graph][f"{op}_{semiring}_{form}"]
            expected = coo(want)
            np.testing.assert_array_equal(got[0], expected[0], err_msg=f"{op} {form}")
            np.testing.assert_allclose(got[1], expected[1], rtol=1e-12, err_msg=f"{op} {form}")


def _copy(kwargs: dict) -> hb.Vector | None:
    return kwargs["out"].dup() if "out" in kwargs else None


def test_entries_repeated_across_processes_are_merged_by_dup_op(results: dict) -> None:
    p = results["nprocs"]
    rows, cols, values = results["repeats"]["coo"]
    assert rows.tolist() == [0] * p + [1]
    assert cols.tolist() == [*range(p), 2]
    assert values.tolist() == [1.0] * p + [p * (p + 1) / 2]


@pytest.mark.parametrize("symmetric", [True, False])
def test_parallel_kronecker_is_the_generators_graph(results: dict, symmetric: bool) -> None:
    assert bool(results[f"kronecker_{symmetric}"]["equal"])


def test_the_exchange_picks_the_smaller_encoding_and_counts_bytes(results: dict) -> None:
    trace = results["trace"]
    if results["nprocs"] == 1:  # a group of one keeps everything: nothing is encoded or sent
        assert list(trace["encodings"]) == [] and int(trace["bytes"]) == 0
        return
    # a BFS of masked vxm on the Kronecker graph has narrow and wide frontiers: both
    # encodings travel
    assert list(trace["encodings"]) == ["bitmap", "sparse"]
    assert bool(trace["chosen_smaller"])
    # the partial results: index lists while narrow, a dense reduce-scatter once wide
    assert {"sparse", "dense"} <= set(trace["reduce_encodings"]) <= {"sparse", "bitmap", "dense"}
    assert int(trace["bytes"]) > 0
    assert int(trace["traffic"]) >= int(trace["bytes"])


def test_a_bfs_level_is_three_collectives_in_the_smaller_encoding(results: dict) -> None:
    trace = results["bfs_trace"]
    assert bool(trace["equal"])
    levels = int(trace["levels"])
    assert levels >= 3
    if results["nprocs"] == 1:  # nothing to exchange
        assert int(trace["calls"]) == 0
        return
    # narrow levels travel as index lists, wide ones as bitmaps, each the smaller
    assert list(trace["encodings"]) == ["bitmap", "sparse"]
    assert bool(trace["chosen_smaller"])
    assert list(trace["reduce_encodings"]) == ["dense"]
    # a reduce-scatter, the counts' all-reduce and an all-gather a level (the last level,
    # empty everywhere, gathers nothing)
    assert int(trace["calls"]) == 3 * levels - 1


@pytest.mark.parametrize(
    ("case", "error"),
    [
        ("out_of_bounds", "IndexOutOfBounds"),
        ("repeat", "InvalidValue"),
        ("vector_out_of_bounds", "IndexOutOfBounds"),
        ("source", "IndexOutOfBounds"),
        ("mismatch", "DimensionMismatch"),
        ("damping", "InvalidValue"),
        ("negative", "InvalidValue"),
    ],
)
def test_input_refused_on_one_process_raises_on_every_process(
    results: dict, case: str, error: str
) -> None:
    p = results["nprocs"]
    if p == 1 and case in ("out_of_bounds", "repeat"):
        error = "no error"  # these inputs are bad only across processes (rank 1's, a repeat)
    assert [found[case] for found in results["errors"]] == [error] * p


def test_every_collective_gives_what_it_must_on_every_rank(results: dict) -> None:
    for rank, checks in enumerate(results["collectives"]):
        failed = [name for name, passed in checks.items() if not passed]
        assert len(checks) == 18 and not failed, f"rank {rank}: {failed}"
