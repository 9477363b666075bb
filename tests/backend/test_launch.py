"""The backend's launch helpers on the GPU: prepared launches, the count mailbox, the host
readback, the memset, the work queued behind the current stream.

``PreparedLaunch`` writes arguments into a block it built once: every argument kind the
executors pass (pointers, 1- to 16-byte scalars, fixed or changed per run) must reach the kernel
as given, and a run must see its own values, not the last ones.
"""

from __future__ import annotations

import numpy as np
import pytest

import hyblas as hb
from hyblas.backend import (
    CountMailbox,
    PreparedLaunch,
    compile_module,
    count_mailbox,
    host_readback,
    launch,
    run_behind,
    synchronize,
    translate_oom,
    wait_for,
    xp_for,
    zero_async,
)
from hyblas.errors import BackendError, InvalidValue, OutOfMemory

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
    args = (
        np.int32(-3),
        np.int64(2**40 + 5),
        np.float32(1.5),
        np.float64(-2.25),
        source,
        out,
        np.uint8(200),
        np.complex128(3 - 4j),
        np.int16(-7),
    )
    launch = PreparedLaunch(_probe(), (2,), (32,), args, variable=(0, 3, 4, 5, 8))
    _run_probe(launch, np.int32(-3), np.float64(-2.25), source, out, np.int16(-7))
    np.testing.assert_array_equal(out.get(), [-3, 2**40 + 5, 1.5, -2.25, 7, 200, 3, -4, -7, 2])
    second = cp.zeros(10, dtype=np.float64)
    _run_probe(
        launch, np.int32(2**31 - 1), np.float64(1e300), other, second, np.int16(123), grid=(3,)
    )
    np.testing.assert_array_equal(
        second.get(), [2**31 - 1, 2**40 + 5, 1.5, 1e300, -11, 200, 3, -4, 123, 3]
    )
    np.testing.assert_array_equal(out.get()[:5], [-3, 2**40 + 5, 1.5, -2.25, 7])  # untouched


def test_prepared_launch_checks_its_arguments() -> None:
    cp = xp_for("cuda")
    out = cp.zeros(10, dtype=np.float64)
    source = cp.zeros(1, dtype=np.int32)
    with pytest.raises(BackendError, match="argument 0"):
        PreparedLaunch(_probe(), (1,), (32,), (3, 0, 0, 0, source, out, 0, 0, 0))
    args = (
        np.int32(1),
        np.int64(2),
        np.float32(3),
        np.float64(4),
        source,
        out,
        np.uint8(5),
        np.complex128(6),
        np.int16(7),
    )
    launch = PreparedLaunch(_probe(), (1,), (32,), args, variable=(5,))
    with pytest.raises(BackendError, match="1 values expected, got 2"):
        launch.run(out, out)


_WRITER = r"""
extern "C" __global__ void write_word(unsigned long long* box, const unsigned long long word) {
    *(volatile unsigned long long*)box = word;
    __threadfence_system();
}
"""


def _write_word(mailbox: CountMailbox, word: int) -> None:
    writer = compile_module(_WRITER, ("write_word",)).get_function("write_word")
    launch(writer, (1,), (1,), (mailbox.address, np.uint64(word)))


def test_count_mailbox_takes_the_count_of_its_own_call() -> None:
    mailbox = count_mailbox()
    assert count_mailbox() is mailbox  # one per thread
    tag = mailbox.next_tag()
    _write_word(mailbox, int(tag) << CountMailbox.COUNT_BITS | 12345)
    assert mailbox.wait(tag) == 12345
    biggest = (1 << CountMailbox.COUNT_BITS) - 1
    tag = mailbox.next_tag()
    _write_word(mailbox, int(tag) << CountMailbox.COUNT_BITS | biggest)
    assert mailbox.wait(tag) == biggest


def test_count_mailbox_does_not_take_another_calls_count() -> None:
    mailbox = count_mailbox()
    stale = mailbox.next_tag()
    tag = mailbox.next_tag()
    _write_word(mailbox, int(stale) << CountMailbox.COUNT_BITS | 7)  # an abandoned call's
    with pytest.raises(BackendError, match="did not write the count"):
        mailbox.wait(tag)


def test_count_mailbox_tags_cycle_without_zero() -> None:
    mailbox = CountMailbox()
    mailbox._tag = (1 << 24) - 2
    assert [int(mailbox.next_tag()) for _ in range(3)] == [(1 << 24) - 1, 1, 2]


_SLOW_WRITER = r"""
extern "C" __global__ void slow_write(int* out, const int value, const long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {}
    out[threadIdx.x] = value;
}
"""
_SLOW_CYCLES = np.int64(50_000_000)  # about 30 ms at the H100's clock: far longer than a launch


def _slow_write(out, value: int) -> None:
    kernel = compile_module(_SLOW_WRITER, ("slow_write",)).get_function("slow_write")
    launch(kernel, (1,), (out.size,), (out, np.int32(value), _SLOW_CYCLES))


def test_work_run_behind_waits_for_the_current_streams_work() -> None:
    cp = xp_for("cuda")
    source = cp.zeros(32, dtype=np.int32)
    copied = cp.zeros(32, dtype=np.int32)
    _slow_write(source, 5)  # on the current stream, still running when the copy is queued
    done = run_behind(lambda: copied.__setitem__(slice(None), source), keep=copied)
    done.synchronize()
    np.testing.assert_array_equal(copied.get(), 5)


def test_wait_for_orders_the_current_stream_after_the_work_behind() -> None:
    cp = xp_for("cuda")
    out = cp.zeros(32, dtype=np.int32)
    done = run_behind(lambda: _slow_write(out, 9), keep=out)
    assert not done.done  # the slow kernel runs on the other stream; the host went on
    wait_for(done)
    read = out + 0  # queued on the current stream: after the slow write, not before it
    np.testing.assert_array_equal(read.get(), 9)


def test_run_behind_keeps_what_it_writes_until_done() -> None:
    import weakref  # noqa: PLC0415

    cp = xp_for("cuda")
    out = cp.zeros(32, dtype=np.int32)
    alive = weakref.ref(out)
    done = run_behind(lambda: _slow_write(out, 3), keep=out)  # noqa: F821 - run at once
    del out
    assert alive() is not None  # the slow write still runs: its array is not freed
    done.synchronize()
    run_behind(lambda: None, keep=None)  # a later call drops what finished work kept
    assert alive() is None


def test_host_readback_waits_for_its_copy_not_for_work_queued_after_it() -> None:
    cp = xp_for("cuda")
    readback = host_readback()
    assert host_readback() is readback  # one per thread
    words = cp.zeros(32, dtype=np.int32)
    _slow_write(words, 7)  # the counts' kernel: still running when the copy is queued
    readback.start(words.view(np.uint64))
    later = cp.zeros(32, dtype=np.int32)
    _slow_write(later, 1)  # queued after the copy: the host does not wait for it
    after = cp.cuda.Event()
    after.record()
    assert readback.wait() == [7 << 32 | 7] * 16
    assert not after.done
    for size in (3, 40, 0):  # a smaller one, one past the pinned words so far, none
        counts = cp.arange(size, dtype=np.uint64) + np.uint64(2**63)
        readback.start(counts)
        assert readback.wait() == [2**63 + i for i in range(size)]
    for bad in (cp.zeros(3, dtype=np.int32), cp.zeros(8, dtype=np.uint64)[::2]):
        with pytest.raises(InvalidValue, match="contiguous array of 64-bit words"):
            readback.start(bad)


def test_zero_async() -> None:
    cp = xp_for("cuda")
    counts = cp.asarray(np.array([2**63 + 9, 4], dtype=np.uint64))
    zero_async(counts)
    np.testing.assert_array_equal(counts.get(), [0, 0])


def test_translate_oom_names_what_did_not_fit() -> None:
    cp = xp_for("cuda")
    with pytest.raises(OutOfMemory, match="a probe array"):
        with translate_oom("a probe array"):
            cp.empty(1 << 50, dtype=np.uint8)
    with pytest.raises(ValueError, match="other"), translate_oom("a probe array"):
        raise ValueError("other errors pass through")
