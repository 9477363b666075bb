"""``primitives.to_bitmap``: a sparse vector's entries written into fresh bitmap arrays, on the
GPU by one kernel (``kernels/scatter_bitmap.cu``) that copies the values' bits, equal to the
NumPy assignment for every dtype, unsorted ids and none."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hyblas as hb
from hyblas.backend import to_backend, to_numpy, xp_for
from hyblas.device import arrays as primitives


@given(data=st.data(), dtype=st.sampled_from(hb.dtypes.DTYPES))
def test_entries_scattered_into_a_bitmap_keep_their_bits(
    backend: str, data: st.DataObject, dtype: np.dtype
) -> None:
    size = data.draw(st.integers(0, 700))
    ids = np.array(data.draw(st.permutations(range(size))), dtype=np.int64)
    ids = ids[: data.draw(st.integers(0, size))]
    values = data.draw(hnp.arrays(dtype, ids.size))  # NaN, infinities and -0.0 included
    got_values, got_present = primitives.to_bitmap(
        xp_for(backend), size, to_backend(ids, backend), to_backend(values, backend)
    )
    want_values = np.zeros(size, dtype=dtype)
    want_present = np.zeros(size, dtype=bool)
    want_values[ids], want_present[ids] = values, True
    word = f"u{np.dtype(dtype).itemsize}"
    assert got_values.dtype == dtype and got_present.dtype == bool
    np.testing.assert_array_equal(to_numpy(got_values).view(word), want_values.view(word))
    np.testing.assert_array_equal(to_numpy(got_present), want_present)
