"""Faults on the GPU: an allocation that fails in the middle of a product, a layout build or an
algorithm, and a kernel launch the driver refuses.

Each call is first run whole to count its device allocations; then, for allocations spread over
that count (the first and the last included), the same call on fresh inputs with that one
allocation failing must raise :class:`~hyblas.errors.OutOfMemory` naming what it was building,
leave its inputs and ``out`` as they were, hold no more device memory than the whole call keeps
(a matrix's caches), and the next call must succeed with the right result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import hyblas as hb
from hyblas.backend import compile_module, launch, xp_for
from hyblas.errors import BackendError, OutOfMemory
from tests.support.faults import device_bytes_in_use, failing_allocation

pytestmark = pytest.mark.gpu

if not hb.cuda_available():
    pytest.skip("no usable GPU: the 'cuda' backend is unavailable", allow_module_level=True)

FAILURES_PER_CASE = 24  # allocations failed per case, spread over the call's count


@dataclass(frozen=True)
class Inputs:
    A: hb.Matrix
    u: hb.Vector
    out: hb.Vector


@dataclass(frozen=True)
class Case:
    name: str
    call: Callable[[Inputs], Any]  # the call under test; its result is compared, not kept


_GRAPH = hb.generators.kronecker(13, 12, seed=7, backend="cpu")
_COO = _GRAPH.to_coo()
_N = _GRAPH.nrows


def _fresh() -> Inputs:
    """Inputs with no cached layout, so that every call builds what it needs again."""
    rows, cols, values = _COO
    rng = np.random.default_rng(1)
    weights = (values * rng.uniform(0.5, 2.0, values.size)).astype(np.float32)
    A = hb.Matrix.from_coo(rows, cols, weights, nrows=_N, ncols=_N, backend="cuda")
    u = hb.Vector.from_dense(rng.uniform(-1, 1, _N).astype(np.float32), backend="cuda")
    out = hb.Vector.from_coo(np.arange(0, _N, 5), 9.0, size=_N, dtype=np.float32, backend="cuda")
    return Inputs(A, u, out)


CASES = [
    Case("mxv-dense", lambda x: hb.ops.mxv(x.A, x.u, "plus_times", out=x.out, executor="dense")),
    Case(
        "vxm-sparse",
        lambda x: hb.ops.vxm(
            hb.Vector.from_coo([3, 50, 700], 1.0, size=_N, dtype=np.float32, backend="cuda"),
            x.A,
            "min_plus",
            out=x.out,
            accum=hb.binary.min,
            executor="sparse",
        ),
    ),
    Case("mxv-pull", lambda x: hb.ops.mxv(x.A, x.u, "max_times", out=x.out, executor="pull")),
    Case("mxm", lambda x: hb.ops.mxm(x.A, x.A, "plus_times", mask=x.A.S)),
    Case("bfs", lambda x: hb.algorithms.bfs(x.A, 0)),
    Case("sssp", lambda x: hb.algorithms.sssp(x.A, 0)),
    Case("pagerank", lambda x: hb.algorithms.pagerank(x.A)),
    Case("connected_components", lambda x: hb.algorithms.connected_components(x.A)),
]


def _host(obj: Any) -> tuple[np.ndarray, ...]:
    """An object's entries copied to the host, to compare bit for bit."""
    return tuple(np.array(a, copy=True) for a in obj.to_coo())


def _same(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> bool:
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
        for x, y in zip(a, b, strict=True)
    )


def _close(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> bool:
    """The same entries, values equal up to float rounding (a sum's order may differ between
    runs on the GPU)."""
    *a_keys, a_values = a
    *b_keys, b_values = b
    if not _same(tuple(a_keys), tuple(b_keys)) or a_values.dtype != b_values.dtype:
        return False
    if a_values.dtype.kind == "f":
        return bool(np.allclose(a_values, b_values, rtol=1e-6, equal_nan=True))
    return bool(np.array_equal(a_values, b_values))


def _allocations_to_fail(count: int) -> list[int]:
    return sorted({int(k) for k in np.linspace(1, count, min(count, FAILURES_PER_CASE)).round()})


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_failed_allocation_is_named_and_leaves_everything_intact(case: Case) -> None:
    """Only the call runs with the failing allocator (its result is copied to the host after).
    A failure that CuPy itself recovers from (seen inside ``cupy.bincount``'s CUB path) lets
    the call finish: its result must then be the right one; at least one failure of each case
    must be named."""
    case.call(_fresh())  # once first: what is allocated once per process is not counted
    whole = _fresh()
    before = device_bytes_in_use()
    with failing_allocation(None) as seen:
        result = case.call(whole)
    expected = _host(result)
    del result
    kept = device_bytes_in_use() - before  # the caches a whole call leaves on its inputs
    assert seen.count > 0, f"{case.name} allocated nothing on the device"
    slack = 64 * _N  # the last result's bitmap, rounded up by the pool
    named = set()
    for fail_at in _allocations_to_fail(seen.count):
        inputs = _fresh()
        given = (_host(inputs.A), _host(inputs.u), _host(inputs.out))
        before = device_bytes_in_use()
        message, result = "", None
        with failing_allocation(fail_at) as seen_now:
            try:
                result = case.call(inputs)
            except OutOfMemory as exc:
                message = str(exc)
        assert seen_now.failed, f"{case.name}: allocation {fail_at} never came"
        assert _same(_host(inputs.A), given[0]), (case.name, fail_at, "A changed")
        assert _same(_host(inputs.u), given[1]), (case.name, fail_at, "u changed")
        if result is not None:  # CuPy recovered from the failure
            assert _close(_host(result), expected), (case.name, fail_at, "recovered, wrong")
            continue
        assert message.startswith("out of memory while "), (case.name, fail_at, message)
        named.add(message.split(",")[0])
        assert _same(_host(inputs.out), given[2]), (case.name, fail_at, "out changed")
        held = device_bytes_in_use() - before
        assert held <= max(kept, 0) + slack, (case.name, fail_at, held, kept)
        # the next call, on the same inputs, succeeds
        assert _close(_host(case.call(inputs)), expected), (case.name, fail_at)
    assert named, case.name


def test_a_refused_launch_names_the_kernel() -> None:
    module = compile_module(
        'extern "C" __global__ void hyblas_test_refused(int* out) { out[threadIdx.x] = 1; }',
        ("hyblas_test_refused",),
    )
    kernel = module.get_function("hyblas_test_refused")
    out = xp_for("cuda").zeros(4096, dtype=np.int32)
    with pytest.raises(BackendError, match="hyblas_test_refused"):
        launch(kernel, (1,), (4096,), (out,))  # more threads a block than any device allows
    launch(kernel, (1,), (32,), (out,))  # and the next launch goes through
    assert int(out[:32].sum()) == 32
