"""One side of ``test_bundled_kernels_give_the_results_of_jit_compiled_ones``, run in a process
of its own so that nothing is compiled or cached before it.

``python -m tests.backend.bundle_worker jit DIR``: the work with every hyblas module compiled by
NVRTC (recorded), its results in ``DIR/jit.npz``, and a bundle of the recorded modules for this
GPU in ``DIR/bundle``. ``... bundled DIR`` (with ``HYBLAS_KERNEL_BUNDLE=DIR/bundle``): the work
again, results in ``DIR/bundled.npz``. The last line printed is a JSON summary: the modules
recorded, or those loaded from the bundle and those compiled.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

import hyblas as hb
from hyblas.backend import cupy_module, runtime, to_numpy
from hyblas.backend.kernel_bundle import compile_for, write_bundle
from hyblas.executors import registry


def work() -> dict[str, np.ndarray]:
    """Algorithms and products over the kernels of every layer (traversal loop, executors,
    device primitives), on integer and floating values."""
    A = hb.generators.kronecker(10, 8, seed=3)  # noqa: N806 - math spelling
    W = hb.generators.random_weights(A, 1, 9, seed=4, dtype=np.int64)  # noqa: N806
    x = np.arange(A.nrows, dtype=np.float64) % 7
    results = {
        "bfs": hb.algorithms.bfs(A, 0).to_dense(-1),
        "sssp": hb.algorithms.sssp(W, 0).to_dense(-1),
        "cc": hb.algorithms.connected_components(A).to_dense(-1),
        "pagerank": hb.algorithms.pagerank(A, tol=1e-12).to_dense(0.0),
        "triangles": np.asarray(hb.algorithms.triangle_count(A)),
    }
    F = A.dup(np.float64)  # noqa: N806
    for executor in registry.available("cuda"):
        product = hb.ops.mxv(F, hb.Vector.from_dense(x), "plus_times", executor=executor)
        results[f"mxv {executor}"] = product.to_dense(0.0)
    return {name: to_numpy(value) for name, value in results.items()}


def main(mode: str, directory: Path) -> dict[str, Any]:
    cp = cupy_module()
    if mode == "jit":
        with runtime.recording_compiles() as record:
            np.savez(directory / "jit.npz", **work())
        capability = cp.cuda.Device().compute_capability
        modules = [(r, {capability: compile_for(cp, r, capability)}) for r in record.requests]
        write_bundle(
            directory / "bundle", modules, {}, cupy_version=cp.__version__,
            cache_capability=capability,
        )  # fmt: skip
        return {"modules": len(record.requests)}
    counts = {"loaded": 0, "compiled": 0}
    bundled = runtime._bundled

    def counting_bundled(cp: Any, request: Any) -> Any:
        module = bundled(cp, request)
        counts["loaded" if module is not None else "compiled"] += 1
        return module

    runtime._bundled = counting_bundled
    np.savez(directory / "bundled.npz", **work())
    return counts


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], Path(sys.argv[2]))))
