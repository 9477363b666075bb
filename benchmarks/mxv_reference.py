"""Reference-executor ``mxv`` on the GPU against a bare cupyx ``A @ x``, same run, same graph.

    python -m benchmarks.mxv_reference [--scale 22] [--out out/mxv_reference.json]

Targets (issue "Foundation"): plus_times float32 within 1.2x of cupyx, min_plus float32 within
4x. Each result is checked against a float64 reference before it is timed; the bandwidth floor
counts 8 bytes per stored entry (value + column index) plus the row pointers and the vectors.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from typing import Any

import numpy as np

import hyblas as hb
from hyblas.backend import device_name, to_numpy, xp_for

from .meta import commit_id, experiment_out
from .timing import copy_bandwidth_tbps, time_gpu_ms


def _floor_ms(A: hb.Matrix, copy_tbps: float) -> float:
    nbytes = 8 * A.nnz + 4 * (A.nrows + 1) + 4 * A.ncols + 4 * A.nrows
    return nbytes / (copy_tbps * 1e12) * 1e3


def relative_error(got: Any, ref: np.ndarray) -> float:
    """Relative L2 error of ``got`` against the float64 ``ref``; presence and infinities must
    match exactly (non-finite ``ref`` positions are compared only for that)."""
    got = to_numpy(got).astype(np.float64)
    finite = np.isfinite(ref)
    assert np.array_equal(np.isfinite(got), finite), "presence / infinities differ"
    return float(np.linalg.norm(got[finite] - ref[finite]) / np.linalg.norm(ref[finite]))


def _tune(
    weights: hb.Matrix, u: hb.Vector, ref: np.ndarray, repeats: int, floor: float, scale: int
) -> list[dict[str, Any]]:
    """min_plus time over the generic kernel's parameters; restores the defaults after."""
    from hyblas.executors.reference import kernels

    defaults = (kernels.HEAVY_ROW, kernels.BLOCK_KERNEL_THREADS)
    rows = []
    try:
        for heavy in (256, 1024, 4096, 2**40):
            for threads in (256, 512, 1024):
                kernels.HEAVY_ROW, kernels.BLOCK_KERNEL_THREADS = heavy, threads
                fn = lambda: hb.ops.mxv(weights, u, hb.semiring.min_plus)  # noqa: E731
                error = relative_error(fn().to_dense(fill_value=np.inf), ref)
                assert error < 1e-5
                ms = time_gpu_ms(fn, repeats=repeats)
                rows.append(
                    {
                        "graph": f"kron{scale}",
                        "op": f"tune min_plus heavy>{heavy} block={threads}",
                        "ms": ms,
                        "rel_error": error,
                        "floor_ms": floor,
                        "fraction_of_floor": floor / ms,
                    }
                )
    finally:
        kernels.HEAVY_ROW, kernels.BLOCK_KERNEL_THREADS = defaults
    return rows


def run(scale: int, repeats: int, *, tune: bool = False) -> dict[str, Any]:
    cp = xp_for("cuda")
    copy_tbps = copy_bandwidth_tbps()
    A = hb.generators.kronecker(scale, backend="cuda")  # float32 values, symmetric
    rng = np.random.default_rng(0)
    x_host = rng.random(A.ncols).astype(np.float32) + 0.5  # never time on zeros
    weights = hb.Matrix(
        A.indptr,
        A.indices,
        cp.asarray(rng.random(A.nnz).astype(np.float32) + 1.0),
        A.shape,
        backend="cuda",
    )  # same structure, random weights
    x = cp.asarray(x_host)
    u = hb.Vector.from_dense(x)
    S = weights.to_cupyx()
    scipy_w = weights.to_scipy().astype(np.float64)
    ref_plus = scipy_w @ x_host.astype(np.float64)
    ref_min = _min_plus_reference(scipy_w, x_host.astype(np.float64))
    empty_rows = np.diff(scipy_w.indptr) == 0
    ref_plus[empty_rows] = np.inf  # absent in hyblas, 0 in scipy: compare as "missing"
    floor = _floor_ms(weights, copy_tbps)
    rows = []

    def dense(v: hb.Vector) -> Any:
        return v.to_dense(fill_value=np.inf)

    peers = {
        "cupyx A@x plus_times": (lambda: S @ x, None),
        "hyblas mxv plus_times": (lambda: hb.ops.mxv(weights, u, hb.semiring.plus_times), ref_plus),
        "hyblas mxv min_plus": (lambda: hb.ops.mxv(weights, u, hb.semiring.min_plus), ref_min),
        "hyblas mxv plus_times (generic kernel)": (
            lambda: hb.ops.mxv(weights, u, hb.semiring.plus_times["float64"]),
            ref_plus,
        ),
    }
    for name, (fn, ref) in peers.items():
        result = fn()
        if ref is None:
            error = relative_error(cp.where(cp.asarray(~empty_rows), result, cp.inf), ref_plus)
        else:
            error = relative_error(dense(result), ref)
        assert error < 1e-5, f"{name}: relative error {error:.2e} against float64"
        ms = time_gpu_ms(fn, repeats=repeats)
        rows.append(
            {
                "graph": f"kron{scale}",
                "op": name,
                "ms": ms,
                "rel_error": error,
                "floor_ms": floor,
                "fraction_of_floor": floor / ms,
            }
        )
    if tune:
        rows += _tune(weights, u, ref_min, repeats, floor, scale)
    base = rows[0]["ms"]
    for row in rows:
        row["ratio_to_cupyx"] = row["ms"] / base
    return {
        "device": device_name(),
        "date": datetime.date.today().isoformat(),
        "commit": commit_id(),
        "copy_TBps": copy_tbps,
        "graph": {"name": f"kron{scale}", "nrows": A.nrows, "nnz": A.nnz},
        "targets": {"plus_times_ratio_max": 1.2, "min_plus_ratio_max": 4.0},
        "rows": rows,
    }


def _min_plus_reference(S: Any, x: np.ndarray) -> np.ndarray:
    """min_j (A_ij + x_j) in float64 on the CPU, +inf for empty rows."""
    import scipy.sparse as sp

    coo = sp.coo_array(S)
    out = np.full(S.shape[0], np.inf)
    np.minimum.at(out, coo.row, coo.data + x[coo.col])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=22)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument(
        "--out", help="the JSON written (default: $OUT/mxv_reference.json, ./out without OUT)"
    )
    parser.add_argument("--tune", action="store_true", help="sweep the kernel parameters")
    args = parser.parse_args(argv)
    if hb.backend() != "cuda":
        print("mxv_reference needs the 'cuda' backend", file=sys.stderr)
        return 2
    out = experiment_out(args.out, "mxv_reference")
    result = run(args.scale, args.repeats, tune=args.tune)
    text = json.dumps(result, indent=2)
    out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
