"""The built-in operators, registered through the same :func:`~.registry.register` as a user's."""

from __future__ import annotations

import numpy as np

from .classes import (
    FLOAT_TYPES,
    INT_TYPES,
    NUMBER_TYPES,
    SIGNED_TYPES,
    BinaryOp,
    IndexUnaryOp,
    Monoid,
    Semiring,
    UnaryOp,
    all_bits,
    max_value,
    min_value,
    zero_for_integers,
)
from .extrema import MAX_CUDA, MIN_CUDA, ordered_max, ordered_min
from .registry import NAMESPACES, register


def _copy(x):  # noqa: ANN001, ANN202 - a cast when typed: unary.identity[float64]
    return x.copy()


class _CopyOfOperand:
    """``x`` (the first operand) or ``y``, copied. :meth:`reduceat` reduces runs the same way
    with one gather (each run's first or last value), where the generic segmented reduction
    would scan in ⌈log2(longest run)⌉ steps (``any`` combines a BFS product's contributions
    per vertex in the CPU executors' products)."""

    def __init__(self, first: bool):
        self.first = first
        self.__name__ = "copy_of_first" if first else "copy_of_second"

    def __call__(self, x, y):  # noqa: ANN001, ANN204 - operands are same-shaped arrays
        return (x if self.first else y).copy()

    def reduceat(self, values: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Each run ``values[starts[k]:starts[k + 1]]`` (``starts`` strictly increasing,
        from 0) reduced: its first value, or its last."""
        if self.first:
            return values[starts]
        return values[np.append(starts[1:], values.size) - 1]


_copy_of_first = _CopyOfOperand(first=True)
_copy_of_second = _CopyOfOperand(first=False)


def _ones_like(x):  # noqa: ANN001, ANN202 - a function of this module: a trusted built-in
    return np.ones_like(x)


def _ones_like_first(x, y):  # noqa: ANN001, ANN202
    return np.ones_like(x)


# --- unary ---------------------------------------------------------------------------------
for _u in (
    UnaryOp("identity", "(x)", _copy),
    UnaryOp("ainv", "(-(x))", np.negative, types=SIGNED_TYPES),
    UnaryOp("abs", "((x) < 0 ? -(x) : (x))", np.absolute, types=NUMBER_TYPES),
    UnaryOp("minv", "(1 / (x))", np.reciprocal, types=FLOAT_TYPES),
    UnaryOp("lnot", "(!(bool)(x))", np.logical_not, output="bool"),
    UnaryOp("one", "(1)", _ones_like),
    UnaryOp("sqrt", "sqrt(x)", np.sqrt, types=FLOAT_TYPES),
    UnaryOp("exp", "exp(x)", np.exp, types=FLOAT_TYPES),
    UnaryOp("log", "log(x)", np.log, types=FLOAT_TYPES),
    UnaryOp("floor", "floor(x)", np.floor, types=FLOAT_TYPES),
    UnaryOp("ceil", "ceil(x)", np.ceil, types=FLOAT_TYPES),
    UnaryOp("isnan", "((x) != (x))", np.isnan, types=FLOAT_TYPES, output="bool"),
):
    register(_u)

# --- binary --------------------------------------------------------------------------------
for _b in (
    BinaryOp("plus", "((x) + (y))", np.add),
    BinaryOp("minus", "((x) - (y))", np.subtract, types=NUMBER_TYPES),
    BinaryOp("rminus", "((y) - (x))", lambda x, y: np.subtract(y, x), types=NUMBER_TYPES),
    BinaryOp("times", "((x) * (y))", np.multiply),
    BinaryOp("div", "((x) / (y))", np.true_divide, types=FLOAT_TYPES),
    BinaryOp("rdiv", "((y) / (x))", lambda x, y: np.true_divide(y, x), types=FLOAT_TYPES),
    BinaryOp("min", MIN_CUDA, ordered_min),
    BinaryOp("max", MAX_CUDA, ordered_max),
    BinaryOp("first", "(x)", _copy_of_first),
    BinaryOp("second", "(y)", _copy_of_second),
    BinaryOp("pair", "(1)", _ones_like_first),
    BinaryOp("any", "(x)", _copy_of_first),
    BinaryOp("lor", "((bool)(x) || (bool)(y))", np.logical_or, cast_inputs_to=bool, output="bool"),
    BinaryOp(
        "land", "((bool)(x) && (bool)(y))", np.logical_and, cast_inputs_to=bool, output="bool"
    ),
    BinaryOp(
        "lxor", "((bool)(x) != (bool)(y))", np.logical_xor, cast_inputs_to=bool, output="bool"
    ),
    BinaryOp("lxnor", "((bool)(x) == (bool)(y))", np.equal, cast_inputs_to=bool, output="bool"),
    BinaryOp("bor", "((x) | (y))", np.bitwise_or, types=INT_TYPES),
    BinaryOp("band", "((x) & (y))", np.bitwise_and, types=INT_TYPES),
    BinaryOp("bxor", "((x) ^ (y))", np.bitwise_xor, types=INT_TYPES),
    BinaryOp("eq", "((x) == (y))", np.equal, output="bool"),
    BinaryOp("ne", "((x) != (y))", np.not_equal, output="bool"),
    BinaryOp("lt", "((x) < (y))", np.less, output="bool"),
    BinaryOp("le", "((x) <= (y))", np.less_equal, output="bool"),
    BinaryOp("gt", "((x) > (y))", np.greater, output="bool"),
    BinaryOp("ge", "((x) >= (y))", np.greater_equal, output="bool"),
):
    register(_b)

_bin = NAMESPACES["binary"]

# --- monoids -------------------------------------------------------------------------------
for _m in (
    Monoid("plus", _bin["plus"], 0, atomic="add"),
    Monoid("times", _bin["times"], 1, zero_for_integers),
    Monoid("min", _bin["min"], max_value, min_value, atomic="min"),
    Monoid("max", _bin["max"], min_value, max_value, atomic="max"),
    Monoid("any", _bin["any"], 0),
    Monoid("lor", _bin["lor"], False, True, atomic="or"),
    Monoid("land", _bin["land"], True, False, atomic="and"),
    Monoid("lxor", _bin["lxor"], False, atomic="xor"),
    Monoid("lxnor", _bin["lxnor"], True),
    Monoid("bor", _bin["bor"], 0, all_bits, atomic="or"),
    Monoid("band", _bin["band"], all_bits, 0, atomic="and"),
    Monoid("bxor", _bin["bxor"], 0, atomic="xor"),
):
    register(_m)

_mon = NAMESPACES["monoid"]

# --- semirings: every (add, multiply) pair below, named add_multiply -------------------------
_ARITHMETIC_ADDS = ("plus", "times", "min", "max", "any")
_ARITHMETIC_MULTS = ("times", "plus", "minus", "min", "max", "first", "second", "pair")
for _add in _ARITHMETIC_ADDS:
    for _mult in _ARITHMETIC_MULTS:
        register(Semiring(f"{_add}_{_mult}", _mon[_add], _bin[_mult]))
for _add, _mult in (
    ("lor", "land"),
    ("land", "lor"),
    ("lxor", "land"),
    ("lxnor", "lor"),
    ("lor", "first"),
    ("lor", "second"),
    ("lor", "pair"),
    ("land", "pair"),
):
    register(Semiring(f"{_add}_{_mult}", _mon[_add], _bin[_mult]))

# --- index-unary operators for select ------------------------------------------------------
# the index tests take an integer thunk (a diagonal offset, a row, a column), the value tests a
# number compared with the values: ops.select checks the thunk before the op runs
for _name, _test, _cuda, _thunk in (
    ("tril", lambda x, i, j, k: j <= i + k, "((j) <= (i) + (thunk))", "index"),
    ("triu", lambda x, i, j, k: j >= i + k, "((j) >= (i) + (thunk))", "index"),
    ("diag", lambda x, i, j, k: j == i + k, "((j) == (i) + (thunk))", "index"),
    ("offdiag", lambda x, i, j, k: j != i + k, "((j) != (i) + (thunk))", "index"),
    ("rowle", lambda x, i, j, k: i <= k, "((i) <= (thunk))", "index"),
    ("rowgt", lambda x, i, j, k: i > k, "((i) > (thunk))", "index"),
    ("colle", lambda x, i, j, k: j <= k, "((j) <= (thunk))", "index"),
    ("colgt", lambda x, i, j, k: j > k, "((j) > (thunk))", "index"),
    ("valueeq", lambda x, i, j, k: x == k, "((x) == (thunk))", "value"),
    ("valuene", lambda x, i, j, k: x != k, "((x) != (thunk))", "value"),
    ("valuelt", lambda x, i, j, k: x < k, "((x) < (thunk))", "value"),
    ("valuele", lambda x, i, j, k: x <= k, "((x) <= (thunk))", "value"),
    ("valuegt", lambda x, i, j, k: x > k, "((x) > (thunk))", "value"),
    ("valuege", lambda x, i, j, k: x >= k, "((x) >= (thunk))", "value"),
):
    register(IndexUnaryOp(_name, _test, cuda=_cuda, thunk=_thunk))

BUILTIN_NAMES = {kind: frozenset(table) for kind, table in NAMESPACES.items()}
