"""Bad input to the operator registry and classes, and user-defined operators whose NumPy
function misbehaves (issue 42): named errors, the namespaces unchanged by a failed
registration, and nothing the caller passed in modified."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest

import hyblas as hb
from hyblas.backend import xp_for
from hyblas.errors import DomainMismatch, HyblasError, InvalidObject, InvalidValue
from hyblas.operators import BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp, lookup, register
from tests.support.checks import OPAQUE, raises_unchanged, snapshot

KINDS = ["semiring", "monoid", "binary", "unary", "indexunary"]


def _namespaces() -> dict[str, list[str]]:
    return {kind: list(getattr(hb, kind)) for kind in KINDS}


def raises_registering_nothing(exc: type, match: str | None, fn: Callable[[], Any]) -> Any:
    """``fn()`` raises ``exc`` and no namespace gained or lost a name."""
    before = _namespaces()
    with pytest.raises(exc, match=match) as info:
        fn()
    assert _namespaces() == before
    return info


# --- register_new: names ------------------------------------------------------------------


def test_unknown_operator_names_in_register_new() -> None:
    info = raises_registering_nothing(
        InvalidValue,
        "monoid='no_such_monoid' names no monoid",
        lambda: hb.semiring.register_new("test_bad_s", "no_such_monoid", "times"),
    )
    assert isinstance(info.value, ValueError) and isinstance(info.value, KeyError)
    raises_registering_nothing(
        InvalidValue,
        "binaryop='timse' names no binary; did you mean times",
        lambda: hb.semiring.register_new("test_bad_s", "plus", "timse"),
    )
    raises_registering_nothing(
        InvalidValue,
        "monoid='plsu' names no monoid; did you mean plus",
        lambda: hb.semiring.register_new("test_bad_s", "plsu", "times"),
    )
    raises_registering_nothing(
        InvalidValue,
        "binaryop='mxa' names no binary; did you mean max",
        lambda: hb.monoid.register_new("test_bad_m", "mxa", 0),
    )


@pytest.mark.parametrize("kind", KINDS)
def test_a_taken_name(kind: str) -> None:
    taken = {"semiring": "plus_times", "monoid": "plus", "binary": "plus", "unary": "abs"}
    name = taken.get(kind, "tril")
    calls = {
        "semiring": lambda: hb.semiring.register_new(name, "plus", "times"),
        "monoid": lambda: hb.monoid.register_new(name, "plus", 0),
        "binary": lambda: hb.binary.register_new(name, "(x)", np.add),
        "unary": lambda: hb.unary.register_new(name, "(x)", np.abs),
        "indexunary": lambda: hb.indexunary.register_new(name, lambda x, i, j, k: x > k),
    }
    original = getattr(hb, kind)[name]
    info = raises_registering_nothing(InvalidValue, "already registered", calls[kind])
    assert isinstance(info.value, ValueError)  # `except ValueError` callers keep working
    assert getattr(hb, kind)[name] is original


@pytest.mark.parametrize(
    "name", ["not a name", "1abc", "", "class", "lambda", "a-b", 3, None, b"abc", ("a",)], ids=repr
)
def test_a_name_that_is_not_an_identifier(name: Any) -> None:
    for call in (
        lambda: hb.semiring.register_new(name, "plus", "times"),
        lambda: hb.monoid.register_new(name, "plus", 0),
        lambda: hb.binary.register_new(name, "(x)", np.add),
        lambda: hb.unary.register_new(name, "(x)", np.abs),
        lambda: hb.indexunary.register_new(name, lambda x, i, j, k: x > k),
    ):
        raises_registering_nothing(InvalidValue, "name", call)


# --- register_new and the classes: objects of the wrong kind --------------------------------


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: hb.semiring.register_new("t_s", hb.binary.plus, "times"), InvalidObject, "Monoid"),
        (lambda: hb.semiring.register_new("t_s", "plus", hb.monoid.plus), InvalidObject, "Binary"),
        (lambda: hb.semiring.register_new("t_s", 3, "times"), InvalidObject, "Monoid"),
        (lambda: hb.semiring.register_new("t_s", "plus", None), InvalidObject, "BinaryOp"),
        (lambda: hb.semiring.register_new("t_s", "bor", "lt"), InvalidValue, "no dtype fits"),
        (lambda: hb.monoid.register_new("t_m", np.add, 0), InvalidObject, "BinaryOp"),
        (lambda: hb.monoid.register_new("t_m", "lt", False), InvalidValue, "returns bool"),
        (lambda: hb.monoid.register_new("t_m", "plus", 0, atomic="fma"), InvalidValue, "atomic"),
        (lambda: hb.monoid.register_new("t_m", "plus", "zero"), DomainMismatch, "identity"),
        (lambda: hb.monoid.register_new("t_m", "plus", None), DomainMismatch, "identity"),
        (lambda: hb.monoid.register_new("t_m", "plus", 0, [1]), DomainMismatch, "terminal"),
        (lambda: hb.binary.register_new("t_b", "(x)", "np.add"), InvalidObject, "callable"),
        (lambda: hb.binary.register_new("t_b", np.add, np.add), InvalidObject, "cuda"),
        (lambda: hb.binary.register_new("t_b", "(x)", np.add, types=[]), InvalidValue, "empty"),
        (
            lambda: hb.binary.register_new("t_b", "(x)", np.add, types=["complex64"]),
            DomainMismatch,
            "complex64",
        ),
        (
            lambda: hb.binary.register_new("t_b", "(x)", np.add, types=3.5),
            DomainMismatch,
            "types",
        ),
        (
            lambda: hb.binary.register_new("t_b", "(x)", np.add, output="same_as_x"),
            DomainMismatch,
            "output",
        ),
        (lambda: hb.unary.register_new("t_u", "(x)", None), InvalidObject, "callable"),
        (lambda: hb.unary.register_new("t_u", None, np.abs), InvalidObject, "cuda"),
        (lambda: hb.indexunary.register_new("t_i", 3), InvalidObject, "callable"),
        (
            lambda: hb.indexunary.register_new("t_i", np.greater, thunk="values"),
            InvalidValue,
            "thunk",
        ),
        (lambda: register("plus"), InvalidObject, "register takes an operator"),
        (lambda: register(hb.semiring.plus_times[np.float32]), InvalidValue, "untyped"),
    ],
)
def test_objects_of_the_wrong_kind(call: Callable[[], Any], exc: type, match: str) -> None:
    raises_registering_nothing(exc, match, call)


def test_the_classes_check_as_register_new_does() -> None:
    with pytest.raises(InvalidObject, match="BinaryOp"):
        Monoid("m", hb.unary.abs, 0)
    with pytest.raises(InvalidObject, match="Monoid"):
        Semiring("s", hb.binary.plus, hb.binary.times)
    with pytest.raises(InvalidValue, match="name must be a str"):
        UnaryOp(None, "(x)", np.abs)
    with pytest.raises(InvalidObject, match="callable"):
        IndexUnaryOp("i", "x > k")
    with pytest.raises(InvalidObject, match="cuda"):
        BinaryOp("b", 3, np.add)
    # TypeError / ValueError callers keep working
    with pytest.raises(TypeError):
        Monoid("m", None, 0)
    with pytest.raises(ValueError, match="returns bool"):
        Monoid("m", hb.binary.lt, False)


# --- lookups ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_lookups_of_unknown_names(kind: str) -> None:
    ns = getattr(hb, kind)
    info = raises_unchanged(InvalidValue, f"no {kind} named 'no_such_op'", lambda: ns["no_such_op"])
    assert isinstance(info.value, KeyError)  # a mapping's lookup
    info = raises_unchanged(InvalidValue, "no_such_op", lambda: ns.no_such_op)
    assert isinstance(info.value, AttributeError)
    assert not hasattr(ns, "no_such_op") and getattr(ns, "no_such_op", 7) == 7
    raises_unchanged(InvalidObject, "names are strings", lambda: ns[3])
    raises_unchanged(InvalidObject, "names are strings", lambda: ns[None])
    with pytest.raises(InvalidValue, match=f"no {kind} named"):
        lookup(kind, "no_such_op")
    with pytest.raises(InvalidValue, match="operator kinds"):
        lookup("semirings", "plus_times")


def test_lookup_hints() -> None:
    with pytest.raises(InvalidValue, match="did you mean min_plus"):
        hb.semiring["min_pluss"]
    with pytest.raises(InvalidValue, match="did you mean min_plus"):
        hb.semiring.min_pluss  # noqa: B018
    A = hb.Matrix.from_coo([0], [0], [1.0], nrows=1, ncols=1)  # noqa: N806
    u = hb.Vector.from_coo([0], [1.0], size=1)
    raises_unchanged(
        InvalidValue, "did you mean plus_times", lambda: hb.ops.mxv(A, u, "plus_timse"), A, u
    )
    raises_unchanged(InvalidValue, "did you mean abs", lambda: hb.ops.apply(u, "asb"), u)


@pytest.mark.parametrize("dtype", ["abc", 1.5, None, [1, 2], OPAQUE], ids=repr)
def test_typed_lookup_with_something_not_a_dtype(dtype: Any) -> None:
    if dtype is None:  # np.dtype(None) is float64: served
        assert hb.semiring.plus_times[dtype].dtype == np.float64
        return
    with pytest.raises(DomainMismatch, match="typed with a dtype"):
        hb.semiring.plus_times[dtype]


def test_typed_lookup_of_an_unserved_dtype() -> None:
    info = raises_unchanged(
        DomainMismatch, "does not serve dtype float32", lambda: hb.binary.bor[np.float32]
    )
    assert isinstance(info.value, KeyError)
    with pytest.raises(DomainMismatch, match="complex64"):
        hb.monoid.plus[np.complex64]


NOT_HYBLAS_DTYPES = ["x", "U5", np.complex128, object, 3, [1]]


@pytest.mark.parametrize("dtype", NOT_HYBLAS_DTYPES, ids=repr)
def test_operator_methods_taking_a_dtype(dtype: Any) -> None:
    """identity / terminal / input_type / output_type with something that is no hyblas dtype:
    DomainMismatch naming the operator, as ``op[dtype]``."""
    plus = hb.monoid.plus
    for method in (plus.identity, plus.terminal, hb.monoid.min.terminal):
        raises_unchanged(DomainMismatch, "is not a dtype hyblas stores", partial(method, dtype))
    for op in (hb.unary.abs, hb.binary.plus, hb.binary.eq, hb.semiring.min_plus):
        raises_unchanged(DomainMismatch, r"\.(abs|plus|eq): ", partial(op.output_type, dtype))
    if dtype != 3:  # operand dtypes unify as NumPy's result_type does: 3 stands for int64
        for operands in ((dtype,), (np.int8, dtype)):
            call = partial(hb.binary.plus.input_type, *operands)
            raises_unchanged(DomainMismatch, "binary.plus: an operand", call)
    with pytest.raises(InvalidValue, match="at least one dtype"):
        hb.binary.plus.input_type()
    # dtypes as names and types still work
    assert plus.identity("int8").dtype == np.int8 and plus.identity(np.float32).dtype == np.float32
    assert hb.binary.plus.input_type(np.int64, np.uint64) == np.float64


def test_monoid_values_of_an_unserved_dtype() -> None:
    for method in (hb.monoid.band.identity, hb.monoid.bor.terminal):
        raises_unchanged(DomainMismatch, "does not serve dtype float64", partial(method, float))


@pytest.mark.parametrize(
    ("value", "dtype", "becomes"),
    [
        (1.5, np.int64, "becomes 1 in int64"),
        (0.5, bool, "becomes True in bool"),
        (2, bool, "becomes True in bool"),
        (1e39, np.float32, "does not fit float32"),
        (0.1, np.float32, "becomes 0.10000000149011612 in float32"),
        (-1, np.uint8, "does not fit uint8"),
        (300, np.int8, "does not fit int8"),
        (2**63 - 1, np.float64, "becomes 9.223372036854776e\\+18 in float64"),
        (-np.inf, np.int32, "has no int32 value"),
    ],
)
def test_monoid_value_a_dtype_cannot_hold_exactly(value: Any, dtype: Any, becomes: str) -> None:
    """A monoid whose identity or terminal a dtype cannot hold exactly does not serve it."""
    name = f"test_bad_exact_{abs(hash((value, np.dtype(dtype).name)))}"
    identity = _once(hb.monoid, name, "plus", value)
    terminal = _once(hb.monoid, name + "_t", "plus", 0, value)
    match = f"monoid '{name}(_t)?' does not serve {np.dtype(dtype).name}: .*{becomes}"
    raises_unchanged(DomainMismatch, match, partial(identity.identity, dtype))
    raises_unchanged(DomainMismatch, match, partial(terminal.terminal, dtype))
    empty = hb.Vector.new(dtype, 3)
    raises_unchanged(DomainMismatch, match, partial(hb.ops.reduce_scalar, empty, identity), empty)
    if dtype is not np.float64:  # a dtype that holds it exactly takes it
        assert identity.identity(np.float64) == value


def test_monoid_values_held_exactly_pass() -> None:
    """NaN is held as NaN; a whole float in an integer type, an int in bool as 0 / 1."""
    fmax = _once(hb.binary, "test_bad_fmax", "fmax(x, y)", np.fmax)
    nan = _once(hb.monoid, "test_bad_nan_identity", fmax, np.nan)
    assert np.isnan(nan.identity(np.float32))
    whole = _once(hb.monoid, "test_bad_whole_identity", "plus", 2.0, 1)
    assert whole.identity(np.int8) == 2 and whole.terminal(bool) is np.True_
    assert hb.monoid.max.identity(np.int64) == np.iinfo(np.int64).min


# --- user-defined operators whose NumPy function misbehaves ---------------------------------


def _once(ns: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """``ns.register_new(name, ...)``, or the operator registered under ``name`` before (the
    fixture may be set up again in one session; names are global)."""
    return ns[name] if name in ns else ns.register_new(name, *args, **kwargs)


@pytest.fixture(scope="module")
def bad_ops() -> dict[str, Any]:
    """User operators whose functions return a scalar, the wrong shape, objects, or raise."""
    scalar_binary = _once(hb.binary, "test_bad_scalar", "(x)", lambda x, y: 5)
    return {
        "scalar_unary": _once(hb.unary, "test_bad_scalar_u", "(x)", lambda x: 1.5),
        "scalar_binary": scalar_binary,
        "shape": _once(hb.binary, "test_bad_shape", "(x)", lambda x, y: x[1:]),
        "list": _once(hb.unary, "test_bad_list", "(x)", lambda x: list(x)),
        "objects": _once(hb.binary, "test_bad_objects", "(x)", lambda x, y: x.astype(object)),
        "complex": _once(hb.unary, "test_bad_complex", "(x)", lambda x: x + 1j),
        "raises": _once(hb.binary, "test_bad_raises", "(x)", lambda x, y: x.no_such),
        "select": _once(hb.indexunary, "test_bad_select", lambda x, i, j, k: True),
        "monoid": _once(hb.monoid, "test_bad_scalar_m", scalar_binary, 0),
        "semiring": _once(hb.semiring, "test_bad_scalar_sr", "plus", scalar_binary),
        "add_semiring": _once(hb.semiring, "test_bad_scalar_add", "test_bad_scalar_m", "times"),
        "int_identity": _once(hb.monoid, "test_bad_inf", "min", -np.inf),
    }


LONG = 8 * hb.containers.SPARSE_BELOW  # vectors this long with a few entries stay sparse


def _operands(backend: str) -> dict[str, Any]:
    """Sparse vectors (their element-wise operations run the NumPy functions on the GPU too;
    two bitmaps there run one kernel of the CUDA expressions), a bitmap, a matrix."""
    u = hb.Vector.from_coo([0, 2], [1, 4], size=LONG, backend=backend)
    A = hb.Matrix.from_coo(  # noqa: N806 - row 0 has two products with u: the add runs too
        [0, 0, 1, 3], [0, 2, 0, 3], [2, 7, 3, 5], nrows=LONG, ncols=LONG, backend=backend
    )
    out = hb.Vector.from_coo([0, 1], [9, 9], size=LONG, backend=backend)  # meets u at 0
    assert u.format == out.format == "sparse"
    bitmap = hb.Vector(LONG, u.dtype, backend=backend, bitmap=u.as_bitmap())
    return {"u": u, "bitmap": bitmap, "A": A, "out": out}


@pytest.mark.parametrize(
    ("op", "exc", "match"),
    [
        ("scalar_unary", InvalidObject, "returned float 1.5 for operands of shape"),
        ("list", InvalidObject, "returned list"),
        ("complex", DomainMismatch, "complex128"),
    ],
)
def test_user_unary_results(backend: str, bad_ops: dict, op: str, exc: type, match: str) -> None:
    o = _operands(backend)
    name = bad_ops[op].name
    for x in (o["u"], o["bitmap"], o["A"]):
        out = o["out"] if isinstance(x, hb.Vector) else None
        call = partial(hb.ops.apply, x, bad_ops[op], out=out)
        raises_unchanged(exc, f"unary '{name}': .*{match}", call, x, out)


@pytest.mark.parametrize(
    ("op", "exc", "match"),
    [
        ("scalar_binary", InvalidObject, "returned int 5"),
        ("shape", InvalidObject, r"returned a ndarray of shape \(\d+,\) for operands"),
        ("objects", DomainMismatch, "dtype object"),
        ("raises", InvalidObject, "raised AttributeError"),
    ],
)
def test_user_binary_results(backend: str, bad_ops: dict, op: str, exc: type, match: str) -> None:
    """Wherever the operator's NumPy function runs on both backends: apply, the element-wise
    operations over sparse vectors and matrices, an accumulator."""
    o = _operands(backend)
    u, A, out = o["u"], o["A"], o["out"]  # noqa: N806
    bop = bad_ops[op]
    if op == "objects" and backend == "cuda":
        # CuPy has no object dtype: the user's astype(object) itself raises there
        exc, match = InvalidObject, "raised ValueError: Unsupported dtype object"
    for call in (
        lambda: hb.ops.apply(u, bop, right=1, out=out),
        lambda: hb.ops.apply(A, bop, left=1),
        lambda: hb.ops.ewise_add(u, out, bop),
        lambda: hb.ops.ewise_mult(A, A, bop),
        lambda: hb.ops.apply(u, "identity", accum=bop, out=out),
        lambda: hb.ops.assign(out, u, None, accum=bop),
    ):
        raises_unchanged(exc, f"binary '{bop.name}': .*{match}", call, u, A, out)


def test_user_select_result(backend: str, bad_ops: dict) -> None:
    o = _operands(backend)
    for x in (o["u"], o["bitmap"], o["A"]):
        raises_unchanged(
            InvalidObject,
            "indexunary 'test_bad_select': its numpy function returned bool",
            partial(hb.ops.select, x, bad_ops["select"], 0),
            x,
        )


@pytest.mark.parametrize("executor", ["reference", "dense", "sparse", "pull"])
def test_user_semiring_results_in_the_cpu_products(bad_ops: dict, executor: str) -> None:
    """The products' CPU emulations and the reductions call the NumPy functions (the GPU runs
    the operators' CUDA expressions instead)."""
    o = _operands("cpu")
    u, A, out = o["u"], o["A"], o["out"]  # noqa: N806
    for sr in (bad_ops["semiring"], bad_ops["add_semiring"]):
        raises_unchanged(
            InvalidObject,
            "binary 'test_bad_scalar': its numpy function returned int 5",
            partial(hb.ops.mxv, A, u, sr, out=out, executor=executor),
            A,
            u,
            out,
        )
    raises_unchanged(
        InvalidObject, "test_bad_scalar", lambda: hb.ops.mxm(A, A, bad_ops["semiring"]), A
    )
    raises_unchanged(
        InvalidObject, "test_bad_scalar", lambda: hb.ops.reduce_rows(A, bad_ops["monoid"]), A
    )
    raises_unchanged(
        InvalidObject, "test_bad_scalar", lambda: hb.ops.reduce_scalar(u, bad_ops["monoid"]), u
    )


def test_user_monoid_identity_that_does_not_fit(backend: str, bad_ops: dict) -> None:
    empty = hb.Vector.new(np.int64, 3, backend=backend)
    raises_unchanged(
        DomainMismatch,
        "monoid 'test_bad_inf': identity=-inf has no int64 value",
        lambda: hb.ops.reduce_scalar(empty, bad_ops["int_identity"]),
        empty,
    )
    floats = hb.Vector.new(np.float64, 3, backend=backend)
    assert hb.ops.reduce_scalar(floats, bad_ops["int_identity"]) == -np.inf


def test_a_failing_user_function_is_chained(backend: str, bad_ops: dict) -> None:
    u = _operands(backend)["u"]
    with pytest.raises(InvalidObject) as info:
        hb.ops.ewise_mult(u, u, bad_ops["raises"])
    assert isinstance(info.value.__cause__, AttributeError)


@pytest.fixture(scope="module")
def writing_ops() -> dict[str, Any]:
    """User operators whose functions write into their operands."""

    inplace = _once(hb.binary, "test_bad_inplace", "(x)", lambda x, y: np.add(x, y, out=x))
    return {
        "binary": inplace,
        "second": _once(hb.binary, "test_bad_inplace_y", "(y)", lambda x, y: np.add(y, x, out=y)),
        "unary": _once(hb.unary, "test_bad_inplace_u", "(x)", lambda x: np.negative(x, out=x)),
        "select": _once(
            hb.indexunary, "test_bad_inplace_s", lambda v, i, j, k: np.add(i, 1, out=i) > 0
        ),
        "monoid": _once(hb.monoid, "test_bad_inplace_m", inplace, 0),
        "semiring": _once(hb.semiring, "test_bad_inplace_sr", "plus", inplace),
        "add_semiring": _once(hb.semiring, "test_bad_inplace_add", "test_bad_inplace_m", "times"),
    }


def _writes_nothing(backend: str, call: Callable[[], Any], *objects: Any) -> None:
    """On the CPU the operator gets read-only views: its write raises, named; on the GPU
    (CuPy arrays have no read-only flag) it gets copies: the call runs. Either way nothing the
    caller passed in changes."""
    if backend == "cpu":
        raises_unchanged(InvalidObject, "test_bad_inplace.*read-only", call, *objects)
        return
    before = [snapshot(o) for o in objects]
    call()
    assert [snapshot(o) for o in objects] == before


# What each writing operator computes, as a built-in: on the GPU a call that writes ``out`` runs,
# and its output is compared with the same call of the built-in
_BUILTIN_TWINS = {"binary": hb.binary.plus, "second": hb.binary.plus, "unary": hb.unary.ainv}


def test_user_functions_cannot_write_their_operands(backend: str, writing_ops: dict) -> None:
    """apply, the element-wise operations, select (its indices too), accumulators, dup_op,
    reductions, and the products' CPU emulations on every executor (the GPU runs the
    operators' CUDA expressions there)."""
    o = _operands(backend)
    u, bitmap, A, out = o["u"], o["bitmap"], o["A"], o["out"]  # noqa: N806
    ops = writing_ops
    calls = [
        lambda: hb.ops.apply(bitmap, ops["binary"], left=1),
        lambda: hb.ops.apply(A, ops["second"], left=1),
        lambda: hb.ops.apply(u, ops["unary"]),
        lambda: hb.ops.apply(A, ops["unary"]),
        lambda: hb.ops.ewise_add(u, out, ops["binary"]),
        lambda: hb.ops.ewise_mult(bitmap, bitmap, ops["second"]),
        lambda: hb.ops.ewise_add(A, A, ops["binary"]),
        lambda: hb.ops.select(u, ops["select"], 0),
        lambda: hb.ops.select(bitmap, ops["select"], 0),
        lambda: hb.ops.select(A, ops["select"], 0),
        lambda: hb.ops.reduce_scalar(u, ops["monoid"]),
        lambda: hb.ops.reduce_rows(A, ops["monoid"]),
        lambda: hb.ops.mxm(A, A, ops["semiring"]),
    ]
    for call in calls:
        _writes_nothing(backend, call, u, bitmap, A, out)
    writing_out = [  # (operator, target) -> call
        lambda op, target: hb.ops.apply(u, op["binary"], right=1, out=target),
        lambda op, target: hb.ops.apply(bitmap, op["unary"], out=target),
        lambda op, target: hb.ops.apply(u, "identity", accum=op["binary"], out=target),
        lambda op, target: hb.ops.assign(target, u, None, accum=op["second"]),
    ]
    for call in writing_out:
        if backend == "cpu":
            _writes_nothing(backend, partial(call, ops, out), u, bitmap, A, out)
            continue
        target, twin = out.dup(), out.dup()
        _writes_nothing(backend, partial(call, ops, target), u, bitmap, A, out)
        call(_BUILTIN_TWINS, twin)
        assert snapshot(target) == snapshot(twin)
    if backend == "cpu":
        for executor in ("reference", "dense", "sparse", "pull"):
            for sr in (ops["semiring"], ops["add_semiring"]):
                call = partial(hb.ops.mxv, A, u, sr, out=out, executor=executor)
                _writes_nothing(backend, call, u, A, out)
    # a few entries given on the host are combined there (then copied), on either backend
    values = np.array([1, 2, 3])
    call = partial(hb.Vector.from_coo, [0, 0, 1], values, dup_op=ops["binary"], backend=backend)
    _writes_nothing("cpu", call, values)
    if backend == "cuda":  # entries given on the device are combined there
        xp = xp_for(backend)
        on_device = xp.asarray(values)
        call = partial(
            hb.Vector.from_coo,
            xp.asarray([0, 0, 1]),
            on_device,
            dup_op=ops["binary"],
            backend=backend,
        )
        _writes_nothing(backend, call, on_device)
        # the device's fold runs the operator's CUDA expression "(x)": each run's first value
        assert call().to_coo()[1].tolist() == [1, 3]


def test_builtin_operators_run_on_the_arrays_themselves() -> None:
    """No view or copy on the built-ins' path: their functions are not wrapped."""
    for kind in ("unary", "binary", "indexunary"):
        for name in getattr(hb, kind):
            op = getattr(hb, kind)[name]
            if not name.startswith("test_"):
                assert not hasattr(op.numpy, "__wrapped__"), op


def test_well_behaved_user_operators_are_untouched(backend: str) -> None:
    """A user's ufunc is called as it is; a function's results pass the check unchanged."""
    ufunc = _once(hb.binary, "test_bad_input_good_ufunc", "fmax(x, y)", np.fmax)
    assert ufunc.numpy is np.fmax and ufunc.ufunc is np.fmax
    absdiff = _once(hb.binary, "test_bad_input_good", "(x)", lambda x, y: np.abs(x - y))
    u = _operands(backend)["u"]
    assert hb.ops.ewise_add(u, u, absdiff).to_coo()[1].tolist() == [0, 0]
    # scalar operands give a scalar result: fine (the bucketed rounds combine two scalars)
    assert absdiff.numpy(np.int64(3), np.int64(5)) == 2


def test_operators_are_not_hyblas_errors_by_accident() -> None:
    """UnknownName / UnservedType are hyblas errors and the built-in exceptions callers used."""
    for exc in (hb.operators.registry.UnknownName, hb.operators.classes.UnservedType):
        assert issubclass(exc, HyblasError) and issubclass(exc, KeyError)
