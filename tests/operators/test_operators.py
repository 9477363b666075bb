"""The operator catalogue: names, lookup, typed operators, monoid identities, user operators,
pickling."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import hyblas as hb
from hyblas.errors import DomainMismatch

DESIGN_SEMIRINGS = [
    "plus_times",
    "plus_min",
    "min_plus",
    "max_plus",
    "min_times",
    "max_times",
    "max_min",
    "min_max",
    "lor_land",
    "land_lor",
    "lxor_land",
    "any_pair",
    "any_first",
    "any_second",
    "plus_pair",
    "min_first",
    "min_second",
    "max_first",
    "max_second",
    "plus_first",
    "plus_second",
]


@pytest.mark.parametrize("name", DESIGN_SEMIRINGS)
def test_design_catalogue_exists(name: str) -> None:
    sr = hb.semiring[name]
    assert name in hb.semiring and name in list(hb.semiring)
    assert getattr(hb.semiring, name) is sr
    add, mult = name.split("_")
    assert sr.monoid is hb.monoid[add] and sr.binaryop is hb.binary[mult]
    assert repr(sr) == f"semiring.{name}"


def test_namespaces_hold_operators_of_their_kind() -> None:
    for ns, kind in (
        (hb.semiring, "semiring"),
        (hb.monoid, "monoid"),
        (hb.binary, "binary"),
        (hb.unary, "unary"),
        (hb.indexunary, "indexunary"),
    ):
        names = list(ns)
        assert names == sorted(names) and len(ns) == len(names) > 0
        assert all(ns[n].kind == kind and ns[n].name == n for n in names)
        assert "register_new" in dir(ns)


def test_typed_operators() -> None:
    typed = hb.semiring.min_plus[np.float32]
    assert typed.dtype == np.float32 and hb.semiring.min_plus.dtype is None
    assert repr(typed) == "semiring.min_plus[float32]"
    assert hb.semiring.min_plus["int32"].dtype == np.int32
    # a typed semiring casts the operands: 1.5 + 1.5 in int32 is 1 + 1
    A = hb.Matrix.from_coo([0], [0], [1.5], nrows=1, ncols=1, backend="cpu")  # noqa: N806
    u = hb.Vector.from_coo([0], [1.5], size=1, backend="cpu")
    assert hb.ops.mxv(A, u, hb.semiring.min_plus[np.int32]).to_coo()[1].tolist() == [2]
    assert hb.ops.mxv(A, u, hb.semiring.min_plus).to_coo()[1].tolist() == [3.0]
    assert hb.unary.identity[np.int64].dtype == np.int64
    assert np.dtype("bool") not in hb.binary.minus.types
    with pytest.raises(KeyError):
        hb.binary.minus[bool]
    # one object per type (kernels compiled for it are found again), also through a typed one
    assert hb.semiring.min_plus[np.float32] is hb.semiring.min_plus["float32"] is typed
    assert hb.semiring.min_plus[np.int32][np.float32] is typed
    assert hb.semiring.min_plus[np.int32] is not typed


@pytest.mark.parametrize(
    ("name", "dtype", "identity", "terminal"),
    [
        ("plus", np.int32, 0, None),
        ("times", np.int64, 1, 0),
        ("times", np.float64, 1.0, None),  # 0 is not terminal for floats: 0 * inf is nan
        ("min", np.int32, np.iinfo(np.int32).max, np.iinfo(np.int32).min),
        ("min", np.float32, np.inf, -np.inf),
        ("max", np.int64, np.iinfo(np.int64).min, np.iinfo(np.int64).max),
        ("max", np.float64, -np.inf, np.inf),
        ("lor", bool, False, True),
        ("land", bool, True, False),
        ("lxor", bool, False, None),
        ("bor", np.int32, 0, -1),
        ("band", np.int64, -1, 0),
    ],
)
def test_monoid_identity_and_terminal(
    name: str, dtype: type, identity: object, terminal: object
) -> None:
    mon = hb.monoid[name]
    ident = mon.identity(dtype)
    assert ident.dtype == np.dtype(dtype) and ident == identity
    term = mon.terminal(dtype)
    assert (term is None) if terminal is None else (term == terminal)
    # the identity really is one, and the terminal really absorbs
    xs = (
        np.array([-3, 0, 2], dtype=dtype)
        if np.dtype(dtype) != bool
        else np.array([0, 1], dtype=bool)
    )
    ident_arr = np.full(xs.shape, ident, dtype=dtype)
    assert np.array_equal(mon(ident_arr, xs).astype(dtype), xs)
    if term is not None:
        assert np.all(mon(np.full(xs.shape, term, dtype=dtype), xs).astype(dtype) == term)


def test_reduce_of_empty_gives_identity(backend: str) -> None:
    e = hb.Vector.new(np.int32, 4, backend=backend)
    assert hb.ops.reduce_scalar(e, "min") == np.iinfo(np.int32).max
    assert hb.ops.reduce_scalar(e, hb.monoid.plus) == 0
    assert hb.ops.reduce_scalar(hb.Matrix.new(np.float64, 0, 3, backend=backend), "max") == -np.inf


@pytest.fixture(scope="module")
def user_ops() -> tuple:
    """Registered once per session (a name can be registered only once)."""
    # absdiff(x, y) = |x - y|; its monoid: max with identity 0 on non-negative values
    absdiff = hb.binary.register_new(
        "test_absdiff",
        "((x) > (y) ? (x) - (y) : (y) - (x))",
        lambda x, y: np.abs(x - y),
        types=[np.int64, np.float64],
    )
    maxmon = hb.monoid.register_new("test_max0", "max", 0)
    sr = hb.semiring.register_new("test_max0_absdiff", maxmon, absdiff)
    sr_by_name = hb.semiring.register_new("test_max0_absdiff_byname", "test_max0", "test_absdiff")
    return absdiff, maxmon, sr, sr_by_name


def test_user_defined_operators_behave_like_builtins(backend: str, user_ops: tuple) -> None:
    absdiff, maxmon, sr, sr_by_name = user_ops
    assert hb.binary.test_absdiff is absdiff and hb.monoid["test_max0"] is maxmon
    assert hb.semiring["test_max0_absdiff"] is sr and "test_max0_absdiff" in hb.semiring
    #   A (2x3)          u (3)
    #   [ 1  5  . ]      [ 4 ]
    #   [ .  .  2 ]      [ 1 ]
    #                    [ 2 ]
    A = hb.Matrix.from_coo(
        [0, 0, 1],
        [0, 1, 2],
        [1, 5, 2],
        nrows=2,
        ncols=3,  # noqa: N806
        backend=backend,
    )
    u = hb.Vector.from_coo([0, 1, 2], [4, 1, 2], backend=backend)
    for op in (sr, sr_by_name, "test_max0_absdiff"):
        w = hb.ops.mxv(A, u, op)  # row 0: max(|1-4|, |5-1|) = 4; row 1: |2-2| = 0
        assert w.to_coo()[0].tolist() == [0, 1] and w.to_coo()[1].tolist() == [4, 0]
    out = hb.Vector.from_coo([0], [10], size=2, backend=backend)
    hb.ops.mxv(A, u, sr, mask=~out.S, accum=absdiff, out=out)  # only row 1 may be written
    assert out.to_coo()[1].tolist() == [10, 0]
    with pytest.raises(DomainMismatch):
        hb.ops.mxv(A.dup(np.int32), u.dup(np.int32), sr)  # int32 is not served
    with pytest.raises(KeyError):
        sr[np.float32]
    assert pickle.loads(pickle.dumps(sr)) is sr
    with pytest.raises(ValueError, match="already registered"):
        hb.binary.register_new("test_absdiff", "(x)", lambda x, y: x)


def test_register_rejects_bad_names() -> None:
    with pytest.raises(ValueError, match="identifier"):
        hb.binary.register_new("not a name", "(x)", lambda x, y: x)
    with pytest.raises(ValueError, match="already registered"):
        hb.semiring.register_new("plus_times", "plus", "times")


@pytest.mark.parametrize("kind", ["semiring", "monoid", "binary", "unary", "indexunary"])
def test_pickle_round_trip(kind: str) -> None:
    ns = getattr(hb, kind)
    for name in ns:
        op = ns[name]
        assert pickle.loads(pickle.dumps(op)) is op
    typed = hb.semiring.plus_times[np.float32]
    back = pickle.loads(pickle.dumps(typed))
    assert back.name == "plus_times" and back.dtype == np.float32


def test_every_builtin_semiring_has_a_served_dtype() -> None:
    for name in hb.semiring:
        sr = hb.semiring[name]
        assert sr.types, name
        for dt in sr.types:
            assert (
                sr.output_type(sr.input_type(dt, dt)) in sr.monoid.types
                or sr.monoid.cast_inputs_to is not None
            ), (name, dt)


def test_apply_treats_python_scalars_as_weak() -> None:
    """int32 + 1 stays int32 and float32 * 0.5 stays float32 (NEP 50, as python-graphblas);
    a NumPy scalar keeps its own dtype, and a Python float promotes an int vector."""
    ints = hb.Vector.from_coo([0, 2], np.array([1, 2], dtype=np.int32), size=3)
    floats = hb.Vector.from_dense(np.array([1.0, 2.0], dtype=np.float32))
    assert ints.apply(hb.binary.plus, right=1).dtype == np.int32
    assert ints.apply(hb.binary.plus, right=1).to_coo()[1].tolist() == [2, 3]
    assert floats.apply(hb.binary.times, left=0.5).dtype == np.float32
    assert ints.apply(hb.binary.plus, right=np.int64(1)).dtype == np.int64
    assert ints.apply(hb.binary.times, right=1.5).dtype == np.float64
