"""Gather and scatter by an index list (``hyblas.device.indexed``: on the GPU one checked
kernel pass each) against NumPy's fancy indexing, on both backends, and through the
operations that use them: ``extract`` / ``assign`` with an index array or an index Vector.

Repeated positions: a plain scatter refuses them (``InvalidValue``); a scatter folded by a
monoid (``assign`` with an ``accum`` that is a monoid's operator) folds every value listed
for a position, as ``numpy.<ufunc>.at`` does. A position outside the vector is
``IndexOutOfBounds``, and the operation leaves its output unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hyblas as hb
from hyblas.backend import to_backend, to_numpy, xp_for
from hyblas.device import indexed
from hyblas.errors import IndexOutOfBounds, InvalidValue

# dtypes whose values round-trip bit for bit; the 4- and 8-byte integers take the GPU's
# folding kernel, the others its sort-and-fold path
DTYPES = [np.dtype(t) for t in ("bool", "int8", "int32", "int64", "uint32", "uint64", "float32")]
FOLDS = {"min": np.minimum, "max": np.maximum, "plus": np.add}


@st.composite
def _bitmap(draw: st.DrawFn, dtype: np.dtype, size: int) -> tuple[np.ndarray, np.ndarray]:
    elements = st.integers(0, 1) if dtype.kind == "b" else st.integers(-50, 50)
    if dtype.kind == "u":
        elements = st.integers(0, 100)
    values = draw(hnp.arrays(dtype, size, elements=elements))
    present = draw(hnp.arrays(bool, size))
    return values, present


def _on(backend: str, *arrays: np.ndarray) -> list:
    return [to_backend(a, backend) for a in arrays]


@given(data=st.data(), dtype=st.sampled_from(DTYPES))
def test_gather_is_fancy_indexing(backend: str, data: st.DataObject, dtype: np.dtype) -> None:
    size = data.draw(st.integers(1, 300))
    values, present = data.draw(_bitmap(dtype, size))
    ids = data.draw(
        hnp.arrays(np.int64, data.draw(st.integers(0, 400)), elements=st.integers(0, size - 1))
    )
    got = indexed.gather(xp_for(backend), *_on(backend, values, present, ids))
    assert np.array_equal(to_numpy(got[0]), values[ids])
    assert np.array_equal(to_numpy(got[1]), present[ids])


@given(data=st.data(), dtype=st.sampled_from(DTYPES))
def test_scatter_is_fancy_assignment_without_repeats(
    backend: str, data: st.DataObject, dtype: np.dtype
) -> None:
    size = data.draw(st.integers(1, 300))
    values, present = data.draw(_bitmap(dtype, size))
    ids = np.array(data.draw(st.permutations(range(size))), dtype=np.int64)
    ids = ids[: data.draw(st.integers(0, size))]
    x, x_present = data.draw(_bitmap(dtype, ids.size))
    want, want_present = values.copy(), present.copy()
    want[ids], want_present[ids] = x, x_present
    args = _on(backend, values, present, ids, x, x_present)
    got, got_present = indexed.scatter(xp_for(backend), *args)
    assert np.array_equal(to_numpy(got), want) and np.array_equal(
        to_numpy(got_present), want_present
    )
    assert np.array_equal(to_numpy(args[0]), values)  # new arrays: the input is unchanged


@given(data=st.data(), dtype=st.sampled_from(DTYPES), fold=st.sampled_from(sorted(FOLDS)))
def test_scatter_combine_folds_repeats_as_ufunc_at(
    backend: str, data: st.DataObject, dtype: np.dtype, fold: str
) -> None:
    if dtype.kind == "b" and fold == "plus":
        fold = "max"  # plus is no monoid on bool here: lor is (max's fold on 0 / 1)
    monoid = hb.monoid["lor" if dtype.kind == "b" else fold]
    size = data.draw(st.integers(1, 60))
    values, present = data.draw(_bitmap(dtype, size))
    ids = data.draw(
        hnp.arrays(np.int64, data.draw(st.integers(0, 200)), elements=st.integers(0, size - 1))
    )
    x, x_present = data.draw(_bitmap(dtype, ids.size))
    # the model: entries where the old vector had one start from it, the others from the
    # first value folded in
    want, want_present = values.copy(), present.copy()
    for k in np.flatnonzero(x_present):
        i = ids[k]
        if want_present[i]:
            want[i] = FOLDS[fold](want[i], x[k]) if dtype.kind != "b" else want[i] | x[k]
        else:
            want[i], want_present[i] = x[k], True
    got, got_present = indexed.scatter_combine(
        xp_for(backend), *_on(backend, values, present, ids, x, x_present), monoid
    )
    assert np.array_equal(to_numpy(got_present), want_present)
    assert np.array_equal(to_numpy(got)[want_present], want[want_present])


def test_repeats_out_of_range_and_negative_positions(backend: str) -> None:
    xp = xp_for(backend)
    values, present = _on(backend, np.arange(5, dtype=np.int64), np.ones(5, dtype=bool))
    ids = to_backend(np.array([1, 3, 1]), backend)
    x, x_present = _on(backend, np.array([7, 8, 9]), np.ones(3, dtype=bool))
    with pytest.raises(InvalidValue, match="assign: indices holds repeated indices"):
        indexed.scatter(xp, values, present, ids, x, x_present)
    for bad, named in (([0, 5], "index 5, outside"), ([-1, 2], "index -1, outside")):
        bad_ids = to_backend(np.array(bad), backend)
        with pytest.raises(IndexOutOfBounds, match=named):
            indexed.gather(xp, values, present, bad_ids)
        with pytest.raises(IndexOutOfBounds, match=named):
            indexed.scatter(xp, values, present, bad_ids, x[:2], x_present[:2])
        with pytest.raises(IndexOutOfBounds, match=named):
            indexed.scatter_combine(
                xp, values, present, bad_ids, x[:2], x_present[:2], hb.monoid.min
            )
    got, _ = indexed.scatter_combine(xp, values, present, ids, x, x_present, hb.monoid.min)
    assert to_numpy(got).tolist() == [0, 1, 2, 3, 4]  # min(1, 7, 9), min(3, 8)


def test_the_gpu_folds_4_and_8_byte_integers_in_one_kernel() -> None:
    assert indexed.kernel_combines(hb.monoid.min, np.int64)
    assert indexed.kernel_combines(hb.monoid.plus, np.uint32)
    assert not indexed.kernel_combines(hb.monoid.min, np.float64)
    assert not indexed.kernel_combines(hb.monoid.plus, np.int8)


# --- the operations ---------------------------------------------------------------------------


def test_extract_and_assign_by_an_index_vector(backend: str) -> None:
    """FastSV's steps: ``gp = f[f]`` (extract by the index vector f) and ``f[f[u]] min=
    mngp[u]`` (assign by it, repeats folded by min)."""
    f = hb.Vector.from_dense(np.array([0, 0, 1, 2, 2, 5]), backend=backend)
    assert hb.ops.extract(f, f).to_dense().tolist() == [0, 0, 0, 1, 1, 5]
    mngp = hb.Vector.from_dense(np.array([4, 3, 0, 6, 1, 5]), backend=backend)
    w = hb.ops.assign(f.dup(), mngp, f, accum=hb.binary.min)
    # position 0 gets min(0, 4, 3), 1 gets min(0, 0), 2 gets min(1, 6, 1), 5 min(5, 5)
    assert w.to_dense().tolist() == [0, 0, 1, 2, 2, 5]
    # an index vector with missing entries: its entries' values in order of their positions
    sparse = hb.Vector.from_coo([1, 4], [3, 0], size=6, backend=backend)
    assert hb.ops.extract(mngp, sparse).to_dense().tolist() == [6, 4]


def test_assign_by_index_keeps_the_spec_rules_on_repeats(backend: str) -> None:
    w = hb.Vector.from_dense(np.array([5.0, 5.0, 5.0]), backend=backend)
    two = hb.Vector.from_dense(np.array([1.0, 2.0]), backend=backend)
    with pytest.raises(InvalidValue, match="repeated"):
        hb.ops.assign(w, two, [0, 0])
    with pytest.raises(InvalidValue, match="no monoid's operator"):
        hb.ops.assign(w, two, [0, 0], accum=hb.binary.minus)
    with pytest.raises(IndexOutOfBounds):
        hb.ops.assign(w, two, [0, 3], accum=hb.binary.min)
    with pytest.raises(IndexOutOfBounds):
        hb.ops.extract(w, hb.Vector.from_dense(np.array([0, 3]), backend=backend))
    assert w.to_dense().tolist() == [5.0, 5.0, 5.0]  # unchanged by the failures
    # float values fold by the sort path: plus of both into position 0
    assert hb.ops.assign(w, two, [0, 0], accum=hb.binary.plus).to_dense().tolist() == [
        8.0,
        5.0,
        5.0,
    ]


def test_an_index_vector_must_hold_integers_of_the_same_backend() -> None:
    u = hb.Vector.from_dense(np.arange(4.0))
    with pytest.raises(hb.errors.InvalidObject, match="must hold integers"):
        hb.ops.extract(u, hb.Vector.from_dense(np.array([True, False])))
    with pytest.raises(hb.errors.InvalidObject, match="must hold integers"):
        hb.ops.extract(u, hb.Vector.from_dense(np.array([0.5, 1.0])))
    assert hb.ops.extract(u, hb.Vector.from_dense(np.array([3.0, 0.0]))).to_dense().tolist() == [
        3.0,
        0.0,
    ]  # whole floats are taken as integers, as in an index array


@given(data=st.data())
def test_any_position_outside_the_vector_is_refused(backend: str, data: st.DataObject) -> None:
    """Positions drawn from ``[-3, size + 3)``: with one outside the vector every primitive
    raises IndexOutOfBounds naming it; with none, it agrees with NumPy."""
    size = data.draw(st.integers(1, 40))
    ids = data.draw(
        hnp.arrays(np.int64, data.draw(st.integers(1, 30)), elements=st.integers(-3, size + 2))
    )
    values, present = np.arange(size, dtype=np.int64), np.ones(size, dtype=bool)
    x, x_present = np.arange(ids.size, dtype=np.int64), np.ones(ids.size, dtype=bool)
    xp = xp_for(backend)
    on = _on(backend, values, present, ids, x, x_present)
    calls = (
        lambda: indexed.gather(xp, *on[:3]),
        lambda: indexed.scatter_combine(xp, *on, hb.monoid.max),
    )
    outside = ids[(ids < 0) | (ids >= size)]
    for call in calls:
        if outside.size:
            bad = int(outside.min()) if outside.min() < 0 else int(outside.max())
            with pytest.raises(IndexOutOfBounds, match=f"index {bad}, outside"):
                call()
        else:
            call()
    if not outside.size:
        assert np.array_equal(to_numpy(calls[0]()[0]), values[ids])
        want = values.copy()
        np.maximum.at(want, ids, x)
        assert np.array_equal(to_numpy(calls[1]()[0]), want)
