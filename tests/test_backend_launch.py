"""The backend's launch helpers on the GPU: prepared launches, the pinned count read, the memset.

``PreparedLaunch`` writes arguments into a block it built once: every argument kind the
executors pass (pointers, 1- to 16-byte scalars, fixed or changed per run) must reach the kernel
as given, and a run must see its own values, not the last ones.
"""

from __future__ import annotations

import numpy as np
import pytest

import hyblas as hb
from hyblas.backend import (PreparedLaunch, compile_module, read_count, synchronize,
                            translate_oom, xp_for, zero_async)
from hyblas.errors import BackendError, OutOfMemory

pytestmark = pytest.mark.gpu

if not hb.cuda_available():
    pytest.skip("no usable GPU: the 'cuda' backend is unavailable", allow_module_level=True)

_PROBE = r"""
struct pair { double re, im; };  // a complex128's 16 bytes
extern "C" __global__ void probe(const int a, const long long b, const float c, const double d,
                                 const int* in, double* out, const unsigned char e,
                                 const pair z, const short f) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = a; out[1] = (double)b; out[2] = c; out[3] = d; out[4] = in[0]; out[5] = e;
        out[6] = z.re; out[7] = z.im; out[8] = f; out[9] = gridDim.x;
    }
}
"""


def _probe():
    return compile_module(_PROBE, ("probe",)).get_function("probe")


def _run_probe(launch, *values, grid=None):
    launch.run(*values, grid=grid)
    synchronize()


def test_prepared_launch_passes_fixed_and_variable_arguments() -> None:
    cp = xp_for("cuda")
    source = cp.asarray(np.array([7], dtype=np.int32))
    other = cp.asarray(np.array([-11], dtype=np.int32))
    out = cp.zeros(10, dtype=np.float64)
    args = (np.int32(-3), np.int64(2**40 + 5), np.float32(1.5), np.float64(-2.25), source, out,
            np.uint8(200), np.complex128(3 - 4j), np.int16(-7))
    launch = PreparedLaunch(_probe(), (2,), (32,), args, variable=(0, 3, 4, 5, 8))
    _run_probe(launch, np.int32(-3), np.float64(-2.25), source, out, np.int16(-7))
    np.testing.assert_array_equal(out.get(), [-3, 2**40 + 5, 1.5, -2.25, 7, 200, 3, -4, -7, 2])
    second = cp.zeros(10, dtype=np.float64)
    _run_probe(launch, np.int32(2**31 - 1), np.float64(1e300), other, second, np.int16(123),
               grid=(3,))  # fmt: skip
    np.testing.assert_array_equal(second.get(),
                                  [2**31 - 1, 2**40 + 5, 1.5, 1e300, -11, 200, 3, -4, 123, 3])
    np.testing.assert_array_equal(out.get()[:5], [-3, 2**40 + 5, 1.5, -2.25, 7])  # untouched


def test_prepared_launch_checks_its_arguments() -> None:
    cp = xp_for("cuda")
    out = cp.zeros(10, dtype=np.float64)
    source = cp.zeros(1, dtype=np.int32)
    with pytest.raises(BackendError, match="argument 0"):
        PreparedLaunch(_probe(), (1,), (32,), (3, 0, 0, 0, source, out, 0, 0, 0))
    args = (np.int32(1), np.int64(2), np.float32(3), np.float64(4), source, out, np.uint8(5),
            np.complex128(6), np.int16(7))
    launch = PreparedLaunch(_probe(), (1,), (32,), args, variable=(5,))
    with pytest.raises(BackendError, match="1 values expected, got 2"):
        launch.run(out, out)


def test_read_count_and_zero_async() -> None:
    cp = xp_for("cuda")
    counts = cp.asarray(np.array([2**63 + 9, 4], dtype=np.uint64))
    assert read_count(counts) == 2**63 + 9
    assert read_count(counts[1:]) == 4
    zero_async(counts)
    np.testing.assert_array_equal(counts.get(), [0, 0])


def test_translate_oom_names_what_did_not_fit() -> None:
    cp = xp_for("cuda")
    with pytest.raises(OutOfMemory, match="a probe array"):
        with translate_oom("a probe array"):
            cp.empty(1 << 50, dtype=np.uint8)
    with pytest.raises(ValueError, match="other"), translate_oom("a probe array"):
        raise ValueError("other errors pass through")
