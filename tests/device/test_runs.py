"""Runs of positions given by their starts (a CSR row pointer): ``run_ids`` of a slice of the
positions against NumPy's repeat, and ``run_cuts``' groups of about ``part_entries``
positions, and ``host_row_ids``' rows expanded a run at a time, on both backends."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hyblas as hb
from hyblas.backend import device_memory_peak, to_backend, xp_for
from hyblas.device import arrays

LENGTHS = st.lists(st.integers(0, 6), min_size=1, max_size=30)


@given(lengths=LENGTHS, data=st.data())
def test_run_ids_of_a_slice_are_numpys_repeat(backend: str, lengths: list, data: st.DataObject):
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    total = int(starts[-1])
    begin = data.draw(st.integers(0, total))
    end = data.draw(st.integers(begin, total))
    xp = xp_for(backend)
    got = arrays.run_ids(xp, to_backend(starts, backend), begin, end)
    want = np.repeat(np.arange(len(lengths)), lengths)[begin:end]
    np.testing.assert_array_equal(np.asarray(to_backend(got, "cpu")), want)
    np.testing.assert_array_equal(
        np.asarray(
            to_backend(arrays.exclusive_cumsum(xp, to_backend(np.array(lengths), backend)), "cpu")
        ),
        starts,
    )


@given(lengths=LENGTHS, part=st.integers(1, 12))
def test_run_cuts_cover_the_runs_in_groups_of_about_part_entries(
    backend: str, lengths: list, part: int
) -> None:
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    cuts = arrays.run_cuts(xp_for(backend), to_backend(starts, backend), part)
    assert cuts[0] == 0 and cuts[-1] == len(lengths) and cuts == sorted(set(cuts))
    for first, end in zip(cuts, cuts[1:]):
        held = int(starts[end] - starts[first])
        longest = max(lengths[first:end])
        # a group ends at the run holding a target: part_entries positions, give or take
        # the runs that hold targets (at most two of its longest)
        assert held <= part + 2 * longest
    # the run holding each target starts a group
    for target in range(part, int(starts[-1]), part):
        holding = int(np.searchsorted(starts, target, side="right") - 1)
        assert holding in cuts


@given(lengths=LENGTHS, part=st.integers(1, 12))
def test_host_row_ids_are_numpys_repeat_whatever_the_runs(
    backend: str, lengths: list, part: int
) -> None:
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrays, "HOST_ROWS_PART", part)
        got = arrays.host_row_ids(xp_for(backend), to_backend(starts.astype(np.int32), backend))
    assert isinstance(got, np.ndarray) and got.dtype == np.int64
    np.testing.assert_array_equal(got, np.repeat(np.arange(len(lengths)), lengths))


@pytest.mark.gpu
def test_a_matrix_leaves_the_device_without_a_row_id_of_every_entry_there(
    cuda_usable: bool,
) -> None:
    """``to_coo`` / ``to_dense`` of a device matrix expand its rows a run at a time: the device
    then holds far less than the int64 row of every entry (8 bytes each, and the expansion's
    second array) above what was in use."""
    if not cuda_usable:
        pytest.skip("backend 'cuda' needs CuPy and a usable GPU; cuda_available() is False")
    nrows, per_row = 4096, 256
    rows = np.repeat(np.arange(nrows), per_row)
    cols = np.tile(np.arange(per_row), nrows)
    A = hb.Matrix.from_coo(rows, cols, np.ones(rows.size, np.float32), backend="cuda")  # noqa: N806
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrays, "HOST_ROWS_PART", 1 << 14)
        with device_memory_peak() as memory:
            got_rows, got_cols, _ = A.to_coo()
            dense = A.to_dense()
    np.testing.assert_array_equal(got_rows, rows)
    np.testing.assert_array_equal(got_cols, cols)
    assert dense.shape == (nrows, per_row) and dense.all()
    assert memory.above_start < 8 * rows.size / 4, memory.above_start
