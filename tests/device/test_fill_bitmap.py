"""``primitives.full_bitmap``: a full vector's fresh bitmap arrays, on the GPU by one kernel
(``kernels/fill_bitmap.cu``) that writes a 16-byte pattern, equal bit for bit to ``numpy.full``
for every dtype, at sizes on and off the pattern's 16 bytes; and ``Vector.from_scalar``, which
uses it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hyblas as hb
from hyblas.backend import to_numpy, xp_for
from hyblas.device import arrays as primitives


@given(data=st.data(), dtype=st.sampled_from(hb.dtypes.DTYPES))
def test_a_full_bitmap_holds_the_value_everywhere(
    backend: str, data: st.DataObject, dtype: np.dtype
) -> None:
    size = data.draw(st.one_of(st.integers(0, 70), st.integers(0, 5000)))
    value = data.draw(hnp.from_dtype(np.dtype(dtype)))  # NaN, infinities and -0.0 included
    got_values, got_present = primitives.full_bitmap(xp_for(backend), size, value, dtype)
    word = f"u{np.dtype(dtype).itemsize}"
    assert got_values.dtype == dtype and got_present.dtype == bool
    assert got_values.shape == got_present.shape == (size,)
    np.testing.assert_array_equal(
        to_numpy(got_values).view(word), np.full(size, value, dtype=dtype).view(word)
    )
    np.testing.assert_array_equal(to_numpy(got_present), np.ones(size, dtype=bool))


@pytest.mark.parametrize("size", [1, 15, 16, 17, 2**20 + 3])
def test_from_scalar_is_full_of_its_value(backend: str, size: int) -> None:
    v = hb.Vector.from_scalar(0.25, size, dtype=np.float32, backend=backend)
    assert v.nnz == size and v.dtype == np.float32
    values, present = v.as_bitmap()
    assert bool(present.all())
    np.testing.assert_array_equal(to_numpy(values), np.full(size, 0.25, dtype=np.float32))
