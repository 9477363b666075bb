"""The program every process of a multi-process test runs (``mpiexec -n N python -m
tests.distributed.worker OUT BACKEND``): each scenario on the partitioned containers; rank 0
writes what was gathered to ``OUT/<scenario>.npz``, every rank its refused inputs to
``OUT/errors-<rank>.json``. The tests (``test_processes.py``) compare with one process.

The graphs are built from seeds here and in the tests alike (``GRAPHS``): random directed
graphs with isolated vertices and several components, a Kronecker graph, sizes that no
number of processes divides.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np

import hyblas as hb
from hyblas import distributed as hd


def random_directed(n: int, m: int, seed: int, isolated: int) -> hb.Matrix:
    """``m`` random edges among the first ``n - isolated`` vertices, split into three parts
    with no edge between them (several components); the last ``isolated`` have no edge."""
    rng = np.random.default_rng(seed)
    live = n - isolated
    part = rng.integers(0, 3, size=m)
    bounds = np.linspace(0, live, 4).astype(np.int64)
    src = bounds[part] + rng.integers(0, 1 << 30, size=m) % np.diff(bounds)[part]
    dst = bounds[part] + rng.integers(0, 1 << 30, size=m) % np.diff(bounds)[part]
    weights = rng.uniform(0.5, 2.0, size=m)
    return hb.Matrix.from_coo(
        src, dst, weights, nrows=n, ncols=n, dup_op=hb.binary.plus, backend="cpu"
    )


def undirected(n: int, m: int, seed: int, isolated: int) -> hb.Matrix:
    """:func:`random_directed` plus its transpose (weights summed): equal to its transpose."""
    A = random_directed(n, m, seed, isolated)  # noqa: N806
    return hb.ops.ewise_add(A, hb.ops.transpose(A), hb.binary.plus)


GRAPHS: dict[str, Callable[[], hb.Matrix]] = {
    "directed": lambda: random_directed(101, 300, seed=5, isolated=7),
    "sparse": lambda: random_directed(67, 60, seed=9, isolated=3),
    "kron": lambda: hb.generators.kronecker(8, 8, seed=3, backend="cpu"),
    # pieces of unequal lengths (padded slots) on 2 and 4 processes
    "undirected": lambda: undirected(97, 200, seed=13, isolated=5),
}
# the graphs that equal their transpose (each edge stored both ways)
SYMMETRIC = ("kron", "undirected")
SEMIRINGS = ("plus_times", "min_plus", "max_first", "any_pair", "lor_land", "plus_pair")
PRODUCT_FORMS = ("plain", "mask", "complement", "accum")
# DenseExchange's products: a semiring of each collective reduction (sum, min, max, and lor as
# max on bools), with the input's dtype
DENSE_SEMIRINGS = {"plus_times": np.float64, "min_plus": np.float64, "max_times": np.float32,
                   "lor_land": np.bool_}  # fmt: skip


def dense_input(n: int, dtype: type) -> np.ndarray:
    """A full input vector of ``dtype`` (about a third false, for bools)."""
    values = np.random.default_rng(n + 1).uniform(0.5, 3.0, n)
    return (values > 1.3) if dtype is np.bool_ else values.astype(dtype)


def product_input(n: int) -> hb.Vector:
    rng = np.random.default_rng(n)
    ids = np.flatnonzero(rng.random(n) < 0.3)
    return hb.Vector.from_coo(ids, rng.uniform(1.0, 3.0, ids.size), size=n, backend="cpu")


def product_mask(n: int) -> hb.Vector:
    ids = np.arange(0, n, 3)
    return hb.Vector.from_coo(ids, ids % 2 == 0, size=n, dtype=bool, backend="cpu")


def product_out(n: int) -> hb.Vector:
    ids = np.arange(1, n, 4)
    return hb.Vector.from_coo(ids, np.ones(ids.size), size=n, backend="cpu")


def product_kwargs(form: str, mask: object, out: Callable[[], object]) -> dict:
    """The keywords of a product form, for hyblas's and the distributed containers alike
    (both spell masks ``v.S`` and ``~v``); ``out()`` makes the output of the ``accum`` form."""
    if form == "mask":
        return {"mask": mask.S}  # type: ignore[attr-defined]
    if form == "complement":
        return {"mask": ~mask, "replace": True}  # type: ignore[operator]
    if form == "accum":
        return {"mask": mask, "accum": hb.binary.plus, "out": out()}
    return {}


def scenarios(comm: hb.distributed.Communicator, backend: str) -> dict[str, dict]:
    found: dict[str, dict] = {}

    def host(v: hb.Vector) -> tuple[np.ndarray, np.ndarray]:
        ids, values = v.to_backend("cpu").to_coo()
        return ids, values

    for name, build in GRAPHS.items():
        A = build().to_backend(backend)
        n = A.nrows
        D = hd.DistMatrix.from_matrix(comm, A)
        rows, cols, values = A.to_coo()
        share = slice(comm.rank * rows.size // comm.size, (comm.rank + 1) * rows.size // comm.size)
        E = hd.DistMatrix.from_edges(
            comm, rows[share], cols[share], values[share], nrows=n, dtype=A.dtype
        )
        T = D.transpose().gather()
        out: dict[str, np.ndarray] = {
            "gathered": np.stack(D.gather().to_backend("cpu").to_coo()[:2]),
            "from_edges_equal": np.array(E.gather().isequal(A)),
            "transpose": np.stack(T.to_backend("cpu").to_coo()[:2]),
            "nnz": np.array(D.nnz),
        }
        for source in (0, n // 2):
            out[f"bfs_{source}"] = np.stack(host(hd.bfs(D, source).gather()))
        out["pagerank"] = hd.pagerank(D, iterations=20).to_numpy_dense()
        out["pagerank32"] = hd.pagerank(D, iterations=5, dtype=np.float32).to_numpy_dense()
        if name in SYMMETRIC:  # vouched for: PageRank's products run over either side
            S = hd.DistMatrix.from_matrix(comm, A, symmetric=True)
            marked = hd.DistMatrix.from_edges(
                comm, rows[share], cols[share], values[share], nrows=n, dtype=A.dtype,
                symmetric=True,
            )  # fmt: skip
            out["symmetric_marks"] = np.array([S.symmetric, marked.symmetric, D.symmetric])
            for source in (0, n // 2):
                out[f"bfs_symmetric_{source}"] = np.stack(host(hd.bfs(S, source).gather()))
            for iterations in (5, 20):  # on a square grid: ending in either layout
                ranks = hd.pagerank(S, iterations=iterations)
                out[f"pagerank_symmetric_{iterations}"] = ranks.to_numpy_dense()
        out["components"] = hd.connected_components(D).to_numpy_dense()
        start, stop = D.rows.piece(comm.rank)
        for semiring, dtype in DENSE_SEMIRINGS.items():
            product = hd.DenseExchange(D, semiring, dtype)
            x = comm.xp.asarray(dense_input(n, dtype)[start:stop])

            def whole(piece: object, D: hd.DistMatrix = D) -> np.ndarray:  # noqa: N803
                local = hb.Vector.from_dense(piece, backend=backend)
                return hd.DistVector(comm, D.rows, local).to_numpy_dense()

            for op in ("vxm", "mxv"):
                with hd.trace() as t:
                    before = comm.traffic.bytes_sent
                    piece = product.vxm(x) if op == "vxm" else product.mxv(x)
                    sent = comm.traffic.bytes_sent - before
                out[f"dense_{op}_{semiring}"] = whole(piece)
                out[f"dense_{op}_{semiring}_bytes"] = np.array(
                    [sum(row.bytes for row in t.rows), sent]
                )
            # the column layout: a vxm left there, an mxv started there
            out[f"dense_column_{semiring}"] = whole(product.to_row(product.vxm(x, result="column")))
            out[f"dense_from_column_{semiring}"] = whole(
                product.mxv(product.to_column(x), given="column")
            )
            out[f"dense_round_trip_{semiring}"] = whole(product.to_row(product.to_column(x)))
        u = hd.DistVector.from_vector(comm, product_input(n).to_backend(backend))
        mask = hd.DistVector.from_vector(comm, product_mask(n).to_backend(backend))
        for semiring in SEMIRINGS:
            for form in PRODUCT_FORMS:
                for op in ("mxv", "vxm"):
                    target = product_out(n).to_backend(backend)
                    kwargs = product_kwargs(
                        form, mask, lambda t=target: hd.DistVector.from_vector(comm, t)
                    )
                    if op == "mxv":
                        w = hd.mxv(D, u, semiring, **kwargs)
                    else:
                        w = hd.vxm(u, D, semiring, **kwargs)
                    ids, vals = host(w.gather())
                    out[f"{op}_{semiring}_{form}"] = np.stack([ids, vals.astype(np.float64)])
        found[name] = out
    # every process passes entry (1, 2) with its rank + 1 and (0, rank): repeats across
    # processes merged by dup_op
    rows, cols = [1, 0], [2, comm.rank]
    summed = hd.DistMatrix.from_edges(
        comm,
        rows,
        cols,
        [comm.rank + 1.0, 1.0],
        nrows=3,
        ncols=comm.size + 3,
        dup_op=hb.binary.plus,
    )
    found["repeats"] = {"coo": np.stack(summed.gather().to_backend("cpu").to_coo())}
    for symmetric in (True, False):
        K = hd.DistMatrix.kronecker(comm, 7, 6, seed=11, symmetric=symmetric)
        found[f"kronecker_{symmetric}"] = {
            "equal": np.array(
                K.gather().isequal(hb.generators.kronecker(7, 6, seed=11, symmetric=symmetric,
                                                           backend=backend))
            )
        }  # fmt: skip
    A = hd.DistMatrix.from_matrix(comm, GRAPHS["kron"]().to_backend(backend))
    with hd.trace() as t:
        _masked_vxm_levels(A, 1)
    # the pieces that travelled (a group of one sends nothing: a p x 1 grid's rows)
    gathers = [row for row in t.rows if row.step in ("gather", "mask") and row.group > 1]
    found["trace"] = {
        "encodings": np.array(sorted({row.encoding for row in gathers})),
        "reduce_encodings": np.array(
            sorted({r.encoding for r in t.rows if r.step == "reduce" and r.group > 1})
        ),
        "bytes": np.array(sum(row.bytes for row in t.rows)),
        "traffic": np.array(comm.traffic.bytes_sent),
        "chosen_smaller": np.array(
            all((r.sparse_bytes <= r.bitmap_bytes) == (r.encoding == "sparse") for r in gathers)
        ),
    }
    found["bfs_trace"] = _bfs_trace(comm, backend)
    return found


def _masked_vxm_levels(A: hd.DistMatrix, source: int) -> None:  # noqa: N803
    """A BFS written with the general masked ``vxm``: its narrow and wide levels exercise
    every encoding of the general exchange."""
    comm = A.comm
    mine = [source] if A.rows.owner(np.asarray([source]))[0] == comm.rank else []
    seen = hd.DistVector.from_coo(comm, mine, [True] * len(mine), A.nrows, dtype=bool)
    frontier = seen.dup()
    while frontier.nnz:
        frontier = hd.vxm(frontier, A, hb.semiring.any_pair[bool], mask=~seen.S, replace=True)
        hb.ops.assign(seen.local, True, None, mask=frontier.local.S)


def _bfs_trace(comm: hd.Communicator, backend: str) -> dict[str, np.ndarray]:
    """What ``hd.bfs`` sent from a low-degree source of a Kronecker graph (narrow levels
    first, then wide ones): the encodings, whether each was the smaller, collectives a
    level."""
    K = hb.generators.kronecker(12, 8, seed=3, backend="cpu")
    degrees = np.diff(K.indptr)
    A = hd.DistMatrix.from_matrix(comm, K.to_backend(backend))
    source = int(np.flatnonzero(degrees == degrees[degrees > 0].min())[0])
    calls = comm.traffic.calls
    with hd.trace() as t:
        levels = hd.bfs(A, source)
    calls = comm.traffic.calls - calls
    gathers = [row for row in t.rows if row.step == "gather" and row.op == "bfs"]
    return {
        "equal": np.array(
            levels.gather().isequal(hb.algorithms.bfs(K.to_backend(backend), source))
        ),
        "encodings": np.array(sorted({row.encoding for row in gathers})),
        "reduce_encodings": np.array(sorted({r.encoding for r in t.rows if r.step == "reduce"})),
        "chosen_smaller": np.array(
            all((r.sparse_bytes < r.bitmap_bytes) == (r.encoding == "sparse") for r in gathers)
        ),
        "levels": np.array(len(gathers)),
        "calls": np.array(calls),
    }


def collectives(comm: hb.distributed.Communicator) -> dict[str, bool]:
    """Each collective of the communicator against the value it must give on this rank."""
    xp, r, p = comm.xp, comm.rank, comm.size
    checks: dict[str, bool] = {}
    for dtype in (np.float32, np.float64, np.int64, np.uint8):
        x = xp.arange(5, dtype=dtype) * (r + 1)
        total = xp.arange(5, dtype=dtype) * (p * (p + 1) // 2)
        checks[f"allreduce sum {np.dtype(dtype)}"] = bool((comm.allreduce(x, "sum") == total).all())
        checks[f"allreduce min {np.dtype(dtype)}"] = bool(
            (comm.allreduce(x, "min") == xp.arange(5, dtype=dtype)).all()
        )
    flags = xp.asarray([r == 0, False, True])
    checks["allreduce bool max"] = comm.allreduce(flags, "max").tolist() == [True, False, True]
    checks["allreduce bool min"] = comm.allreduce(flags, "min").tolist() == [p == 1, False, True]
    gathered = comm.allgatherv(xp.full(r + 1, r, dtype=np.int64))
    checks["allgatherv"] = [g.tolist() for g in gathered] == [[k] * (k + 1) for k in range(p)]
    counts = [k + 1 for k in range(p)]
    block = comm.reduce_scatter(xp.full(sum(counts), r + 1, dtype=np.float64), counts, "sum")
    checks["reduce_scatter"] = block.tolist() == [p * (p + 1) / 2] * (r + 1)
    checks["broadcast"] = (
        comm.broadcast(xp.full(3, r, dtype=np.int32), p - 1).tolist() == [p - 1] * 3
    )
    chunks = [xp.full((r + k) % 3, 10 * r + k, dtype=np.int16) for k in range(p)]
    arrived = comm.alltoallv(chunks)
    checks["alltoallv"] = [a.tolist() for a in arrived] == [
        [10 * s + r] * ((s + r) % 3) for s in range(p)
    ]
    calls = comm.traffic.calls
    known = comm.alltoallv(chunks, counts=[(s + r) % 3 for s in range(p)])
    checks["alltoallv of known counts"] = comm.traffic.calls == calls + 1 and [
        a.tolist() for a in known
    ] == [[10 * s + r] * ((s + r) % 3) for s in range(p)]
    half = comm.split(r % 2, r)
    checks["split"] = (half.size, half.rank) == (len(range(r % 2, p, 2)), r // 2)
    checks["split allreduce"] = comm.allreduce_scalar(1, "sum", np.int64) == p and (
        half.allreduce_scalar(r, "sum", np.int64) == sum(range(r % 2, p, 2))
    )
    before = comm.traffic.bytes_sent
    comm.allgather(xp.zeros(16, dtype=np.uint8))
    checks["traffic of a ring all-gather"] = comm.traffic.bytes_sent - before == 16 * (p - 1)
    comm.barrier()
    return {name: bool(passed) for name, passed in checks.items()}


def refused(comm: hb.distributed.Communicator, backend: str) -> dict[str, str]:
    """Inputs refused on one process only: every process raises, with the same class."""
    cases: dict[str, Callable[[], object]] = {
        # rank 1 alone passes an index beyond the matrix
        "out_of_bounds": lambda: hd.DistMatrix.from_edges(
            comm, [0, 9 if comm.rank == 1 else 1], [1, 1], nrows=5, dup_op=hb.binary.plus
        ),
        # every rank passes the same entry, and no dup_op: a repeat across processes
        "repeat": lambda: hd.DistMatrix.from_edges(comm, [0], [1], nrows=4),
        "vector_out_of_bounds": lambda: hd.DistVector.from_coo(
            comm, [7] if comm.rank == 0 else [], [1.0] if comm.rank == 0 else [], 4
        ),
        "source": lambda: hd.bfs(hd.DistMatrix.from_edges(comm, [], [], nrows=3), 3),
        "mismatch": lambda: hd.mxv(
            hd.DistMatrix.from_edges(comm, [], [], nrows=3, ncols=5),
            hd.DistVector.new(comm, 3, float),
            "plus_times",
        ),
        "damping": lambda: hd.pagerank(hd.DistMatrix.from_edges(comm, [], [], nrows=3), 1.5),
        "negative": lambda: hd.pagerank(
            hd.DistMatrix.from_edges(
                comm,
                [0] if comm.rank == 0 else [1],
                [1] if comm.rank == 0 else [0],
                [-1.0 if comm.rank == 0 else 1.0],
                nrows=2,
                dup_op=hb.binary.plus,
            )
        ),  # fmt: skip
    }
    found = {}
    for name, case in cases.items():
        try:
            case()
            found[name] = "no error"
        except hb.errors.HyblasError as error:
            found[name] = type(error).__name__
    return found


def main() -> int:
    out, backend = Path(sys.argv[1]), sys.argv[2]
    comm = hd.init(backend)  # first: it picks this process's GPU before anything touches one
    hb.set_backend(backend)
    try:
        (out / f"collectives-{comm.rank}.json").write_text(json.dumps(collectives(comm)))
        errors = refused(comm, backend)
        (out / f"errors-{comm.rank}.json").write_text(json.dumps(errors))
        for name, arrays in scenarios(comm, backend).items():
            if comm.rank == 0:
                np.savez(out / f"{name}.npz", **arrays)
        (out / f"done-{comm.rank}").write_text(str(comm.size))
    except Exception:
        (out / f"failed-{comm.rank}.txt").write_text(traceback.format_exc())
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
