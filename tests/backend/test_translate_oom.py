"""``translate_oom`` on the host: NumPy's MemoryError (and its ValueError for an array whose size
in bytes overflows) become OutOfMemory naming what was being built; anything else passes."""

from __future__ import annotations

import numpy as np
import pytest

from hyblas.backend import translate_oom
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


def test_the_message_without_known_sizes() -> None:
    assert str(OutOfMemory(None, None, "")) == "out of memory"
    assert (
        str(OutOfMemory(3 * 2**20, 2**30, "x"))
        == "out of memory while x, asked for 3.0 MiB, 1.0 GiB free"
    )
