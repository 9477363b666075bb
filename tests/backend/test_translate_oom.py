"""``translate_oom`` on the host: NumPy's MemoryError (and its ValueError for an array whose size
in bytes overflows) become OutOfMemory naming what was being built; anything else passes."""

from __future__ import annotations

import numpy as np
import pytest

from hyblas.backend import names_oom, runtime, translate_oom
from hyblas.errors import HyblasError, OutOfMemory

HUGE = 2**40  # 8 TiB of int64: NumPy refuses it at once


def test_numpy_memory_error_names_the_bytes_and_what() -> None:
    with pytest.raises(OutOfMemory, match="while a probe array, asked for 8.0 TiB") as raised:
        with translate_oom("a probe array"):
            np.zeros(HUGE, dtype=np.int64)
    error = raised.value
    assert error.requested_bytes == 8 * HUGE and error.what == "a probe array"
    assert isinstance(error, MemoryError) and isinstance(error, HyblasError)
    assert isinstance(error.__cause__, MemoryError)


def test_an_array_too_big_to_count_its_bytes() -> None:
    with pytest.raises(OutOfMemory, match=r"a probe array \(an array of more than 2\*\*63 bytes"):
        with translate_oom("a probe array"):
            np.zeros(2**62, dtype=np.int64)


def test_other_errors_pass_and_inner_translations_stand() -> None:
    with pytest.raises(ValueError, match="other"), translate_oom("x"):
        raise ValueError("other errors pass through")
    with pytest.raises(OutOfMemory, match="while the inner one") as raised:
        with translate_oom("the outer one"), translate_oom("the inner one"):
            np.empty(HUGE)
    assert raised.value.what == "the inner one"
    with translate_oom("nothing"):
        pass


def test_a_device_allocation_failing_in_a_sort_reports_the_device(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CuPy's sorts (Thrust) raise a plain MemoryError from a failed device allocation: it
    is the device's free memory the error reports, not the host's. (Raised here from code
    compiled under the file name of CuPy's Thrust module, as its Cython frame would be.)"""
    monkeypatch.setattr(runtime, "_device_free", lambda: 5 * 2**30)
    monkeypatch.setattr(runtime, "_host_free", lambda: 100 * 2**30)
    thrust = compile("raise MemoryError('std::bad_alloc')", "cupy/cuda/thrust.pyx", "exec")
    with pytest.raises(OutOfMemory, match="while a sort, 5.0 GiB free") as raised:
        with translate_oom("a sort"):
            exec(thrust)  # noqa: S102
    assert raised.value.free_bytes == 5 * 2**30
    with pytest.raises(OutOfMemory, match="while a host array, 100.0 GiB free"):
        with translate_oom("a host array"):
            raise MemoryError("no room")


def test_the_message_without_known_sizes() -> None:
    assert str(OutOfMemory(None, None, "")) == "out of memory"
    assert (
        str(OutOfMemory(3 * 2**20, 2**30, "x"))
        == "out of memory while x, asked for 3.0 MiB, 1.0 GiB free"
    )


def test_names_oom_names_the_entry_point_unless_an_inner_block_did() -> None:
    @names_oom("a probe entry point")
    def allocate(inner: bool) -> None:
        if inner:
            with translate_oom("its inner array"):
                np.zeros(HUGE, dtype=np.int64)
        np.zeros(HUGE, dtype=np.int64)

    with pytest.raises(OutOfMemory, match="while a probe entry point"):
        allocate(False)
    with pytest.raises(OutOfMemory, match="while its inner array"):
        allocate(True)

    @names_oom("a probe entry point")
    def refuse(value: int) -> int:
        if value < 0:
            raise ValueError("other errors pass through")
        return value

    with pytest.raises(ValueError, match="other errors"):
        refuse(-1)
    assert refuse(3) == 3 and refuse.__name__ == "refuse"


def test_an_operation_that_runs_out_of_memory_names_itself_and_leaves_out_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The host's allocation failing in the middle of an operation (here: where the result is
    written) raises OutOfMemory naming the operation; the inputs and ``out`` stay as they were,
    and the next call succeeds."""
    import hyblas as hb  # noqa: PLC0415 - the backend tests import the package lazily elsewhere too
    from hyblas.ops import transform  # noqa: PLC0415

    u = hb.Vector.from_coo([0, 2, 5], [1.0, -2.0, 3.0], size=8)
    out = hb.Vector.from_coo([1, 2], [7.0, 7.0], size=8)
    before = [a.copy() for a in (*u.to_coo(), *out.to_coo())]

    def no_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError("no memory left")

    with monkeypatch.context() as patch:
        patch.setattr(transform, "write_vector", no_memory)
        patch.setattr(transform, "new_sparse_vector", no_memory)
        with pytest.raises(OutOfMemory, match="while apply"):
            hb.ops.apply(u, "abs", out=out, accum=hb.binary.plus)
    after = [*u.to_coo(), *out.to_coo()]
    assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
    hb.ops.apply(u, "abs", out=out, accum=hb.binary.plus)
    assert out.to_dense(fill_value=0).tolist() == [1.0, 7.0, 9.0, 0.0, 0.0, 3.0, 0.0, 0.0]
