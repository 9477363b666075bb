"""Operator classes: UnaryOp, BinaryOp, IndexUnaryOp, Monoid, Semiring.

Each operator carries a CUDA C expression (spliced into kernels, see :mod:`hyblas.device.codegen`)
and a vectorized NumPy implementation. The NumPy implementation must be written with NumPy
ufuncs / array functions so that it also runs on CuPy arrays (NumPy dispatches to CuPy through
``__array_ufunc__`` / ``__array_function__``).

Operators are untyped until indexed with a dtype: ``semiring.min_plus[np.float32]`` fixes the
type the operands are cast to, and raises ``KeyError`` for a dtype the operator does not serve.
Untyped operators take their type from the operands (see :func:`hyblas.dtypes.unify`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..errors import DomainMismatch
from .registry import lookup

__all__ = ["UnaryOp", "BinaryOp", "IndexUnaryOp", "Monoid", "Semiring", "Operator"]

ALL_TYPES = frozenset(_dt.DTYPES)
NUMBER_TYPES = frozenset(d for d in _dt.DTYPES if d.kind != "b")
SIGNED_TYPES = frozenset(d for d in _dt.DTYPES if d.kind in "if")
INT_TYPES = frozenset(d for d in _dt.DTYPES if d.kind in "iu")
FLOAT_TYPES = frozenset(d for d in _dt.DTYPES if d.kind == "f")
BOOL = np.dtype(bool)


def _type_set(types: Iterable[Any] | Any | None) -> frozenset[np.dtype]:
    if types is None:
        return ALL_TYPES
    if isinstance(types, frozenset | set | list | tuple):
        return frozenset(_dt.lookup(t) for t in types)
    return frozenset({_dt.lookup(types)})


class Operator:
    """What every operator shares: a name, the input types it serves, an optional fixed type."""

    kind = "operator"

    def __init__(self, name: str, types: Iterable[Any] | Any | None = None):
        self.name = name
        self.types = _type_set(types)
        self.dtype: np.dtype | None = None  # set on typed instances only

    def __getitem__(self, dtype: Any) -> Operator:
        """The operator typed for ``dtype``; ``KeyError`` if it does not serve that type.

        The same object each time (as python-graphblas's typed operators), so that what is
        cached per operator, compiled kernels above all, is found again on the next call."""
        dt = np.dtype(dtype)
        typed_ones = self.__dict__.setdefault("_typed", {})  # shared with the typed ones
        typed = typed_ones.get(dt)
        if typed is not None:
            return typed
        if dt not in self.types:
            served = ", ".join(sorted(t.name for t in self.types))
            raise KeyError(f"{self.kind} {self.name!r} does not serve dtype {dt.name} ({served})")
        typed = object.__new__(type(self))
        typed.__dict__.update(self.__dict__, dtype=dt)
        typed_ones[dt] = typed
        return typed

    def input_type(self, *operand_dtypes: np.dtype) -> np.dtype:
        """The type operands are cast to before this operator runs."""
        dt = self.dtype if self.dtype is not None else _dt.unify(*operand_dtypes)
        if dt not in self.types:
            served = ", ".join(sorted(t.name for t in self.types))
            raise DomainMismatch(
                f"{self.kind} {self.name!r} does not serve dtype {dt.name} "
                f"(operands: {', '.join(np.dtype(d).name for d in operand_dtypes)}; "
                f"it serves {served})"
            )
        return dt

    def __repr__(self) -> str:
        typed = f"[{self.dtype.name}]" if self.dtype is not None else ""
        return f"{self.kind}.{self.name}{typed}"

    def __reduce__(self) -> Any:  # pickle registered operators by name
        return (_lookup_registered, (self.kind, self.name, self.dtype))


def _lookup_registered(kind: str, name: str, dtype: np.dtype | None) -> Operator:
    return lookup(kind, name, dtype)


class UnaryOp(Operator):
    """``z = f(x)``.

    Parameters
    ----------
    name : str
    cuda : str
        CUDA C expression in ``x``.
    numpy : callable
        Vectorized ``f(x) -> array``.
    types : dtype or iterable of dtypes, optional
        Input dtypes served (default: all).
    output : 'same', 'bool' or a dtype
        The result dtype rule.
    """

    kind = "unary"

    def __init__(
        self,
        name: str,
        cuda: str,
        numpy: Callable[[Any], Any],
        *,
        types: Iterable[Any] | Any | None = None,
        output: str | Any = "same",
    ):
        super().__init__(name, types)
        self.cuda = cuda
        self.numpy = numpy
        self.output = output

    def output_type(self, input_type: np.dtype) -> np.dtype:
        """The result dtype for inputs of ``input_type``."""
        return _output_type(self.output, input_type)

    def __call__(self, x: Any) -> Any:
        return self.numpy(x)


def _output_type(rule: str | Any, input_type: np.dtype) -> np.dtype:
    if rule == "same":
        return np.dtype(input_type)
    if rule == "bool":
        return BOOL
    return np.dtype(rule)


class BinaryOp(Operator):
    """``z = f(x, y)``.

    Parameters
    ----------
    name : str
    cuda : str
        CUDA C expression in ``x`` and ``y`` (both already of the operator's type).
    numpy : callable
        Vectorized ``f(x, y) -> array``; a NumPy ufunc gives the CPU path ``reduceat``.
    types : dtype or iterable of dtypes, optional
        Input dtypes served (default: all).
    output : 'same', 'bool' or a dtype
        The result dtype rule.
    cast_inputs_to : dtype, optional
        Logical operators cast any operand to bool first.
    """

    kind = "binary"

    def __init__(
        self,
        name: str,
        cuda: str,
        numpy: Callable[[Any, Any], Any],
        *,
        types: Iterable[Any] | Any | None = None,
        output: str | Any = "same",
        cast_inputs_to: Any = None,
    ):
        super().__init__(name, types)
        self.cuda = cuda
        self.numpy = numpy
        self.output = output
        self.cast_inputs_to = None if cast_inputs_to is None else np.dtype(cast_inputs_to)

    @property
    def ufunc(self) -> np.ufunc | None:
        """The NumPy ufunc behind this operator, if any (enables ``reduceat``)."""
        return self.numpy if isinstance(self.numpy, np.ufunc) else None

    def input_type(self, *operand_dtypes: np.dtype) -> np.dtype:
        if self.cast_inputs_to is not None and self.dtype is None:
            return self.cast_inputs_to
        return super().input_type(*operand_dtypes)

    def output_type(self, input_type: np.dtype) -> np.dtype:
        """The result dtype for operands of ``input_type``."""
        return _output_type(self.output, input_type)

    def __call__(self, x: Any, y: Any) -> Any:
        return self.numpy(x, y)


class IndexUnaryOp(Operator):
    """``keep = f(value, row, col, thunk)`` used by ``select``.

    Parameters
    ----------
    name : str
    numpy : callable
        Vectorized ``f(values, rows, cols, thunk) -> bool array``; for vectors ``cols`` is 0.
    cuda : str, optional
        CUDA C expression in ``x``, ``i``, ``j``, ``thunk`` (for kernels that fuse select).
    """

    kind = "indexunary"

    def __init__(
        self,
        name: str,
        numpy: Callable[[Any, Any, Any, Any], Any],
        *,
        cuda: str = "",
        types: Iterable[Any] | Any | None = None,
    ):
        super().__init__(name, types)
        self.numpy = numpy
        self.cuda = cuda

    def __call__(self, values: Any, rows: Any, cols: Any, thunk: Any) -> Any:
        return self.numpy(values, rows, cols, thunk)


IdentityRule = Callable[[np.dtype], Any] | Any


class Monoid(Operator):
    """An associative BinaryOp with an identity and, optionally, a terminal (absorbing) value.

    Parameters
    ----------
    name : str
    binaryop : BinaryOp
    identity : value or callable(dtype) -> value
    terminal : value or callable(dtype) -> value or None, optional
        A value ``t`` with ``op(t, x) == t`` for all ``x``: a reduction may stop on reaching it.
    atomic : {'add', 'min', 'max', 'or', 'and', 'xor', None}
        The native CUDA atomic that implements this monoid (None: compare-and-swap loop).
    """

    kind = "monoid"

    def __init__(
        self,
        name: str,
        binaryop: BinaryOp,
        identity: IdentityRule,
        terminal: IdentityRule = None,
        *,
        atomic: str | None = None,
    ):
        if not isinstance(binaryop, BinaryOp):
            raise TypeError(f"monoid {name!r}: binaryop must be a BinaryOp, got {binaryop!r}")
        if binaryop.output == "bool" and binaryop.cast_inputs_to is None:
            raise ValueError(f"monoid {name!r}: {binaryop!r} returns bool for any input type")
        super().__init__(name, binaryop.types)
        self.binaryop = binaryop
        self._identity = identity
        self._terminal = terminal
        self.atomic = atomic
        self.cast_inputs_to = binaryop.cast_inputs_to

    def input_type(self, *operand_dtypes: np.dtype) -> np.dtype:
        if self.cast_inputs_to is not None and self.dtype is None:
            return self.cast_inputs_to
        return super().input_type(*operand_dtypes)

    def identity(self, dtype: Any) -> Any:
        """The identity as a NumPy scalar of ``dtype``."""
        dt = np.dtype(dtype)
        value = self._identity(dt) if callable(self._identity) else self._identity
        return dt.type(value)

    def terminal(self, dtype: Any) -> Any | None:
        """The terminal value as a NumPy scalar of ``dtype``, or None when there is none."""
        dt = np.dtype(dtype)
        value = self._terminal(dt) if callable(self._terminal) else self._terminal
        return None if value is None else dt.type(value)

    def __call__(self, x: Any, y: Any) -> Any:
        return self.binaryop.numpy(x, y)


class Semiring(Operator):
    """``(add monoid, multiply BinaryOp)``: ``C(i,j) = add_k mult(A(i,k), B(k,j))``.

    The multiply's result type must be one the add monoid serves.
    """

    kind = "semiring"

    def __init__(self, name: str, monoid: Monoid, binaryop: BinaryOp):
        if not isinstance(monoid, Monoid):
            raise TypeError(f"semiring {name!r}: monoid must be a Monoid, got {monoid!r}")
        if not isinstance(binaryop, BinaryOp):
            raise TypeError(f"semiring {name!r}: binaryop must be a BinaryOp, got {binaryop!r}")
        served = {t for t in binaryop.types if binaryop.output_type(t) in monoid.types}
        if not served:
            raise ValueError(f"semiring {name!r}: no dtype fits both {monoid!r} and {binaryop!r}")
        super().__init__(name, served)
        self.monoid = monoid
        self.binaryop = binaryop

    def input_type(self, *operand_dtypes: np.dtype) -> np.dtype:
        if self.binaryop.cast_inputs_to is not None and self.dtype is None:
            return self.binaryop.cast_inputs_to
        return super().input_type(*operand_dtypes)

    def output_type(self, input_type: np.dtype) -> np.dtype:
        """The result dtype for operands of ``input_type``: the add monoid's type.

        Products are cast to the monoid's domain before they are added, as GraphBLAS casts the
        multiply's output to the monoid's type (``lor_first`` on floats gives bool).
        """
        product = self.binaryop.output_type(input_type)
        return self.monoid.binaryop.output_type(self.monoid.input_type(product))


# --- identity / terminal rules for the built-in monoids ----------------------------------------


def max_value(dt: np.dtype) -> Any:
    """The largest value of ``dt`` (+inf for floats, True for bool)."""
    if dt.kind == "f":
        return math.inf
    if dt.kind == "b":
        return True
    return np.iinfo(dt).max


def min_value(dt: np.dtype) -> Any:
    """The smallest value of ``dt`` (-inf for floats, False for bool)."""
    if dt.kind == "f":
        return -math.inf
    if dt.kind == "b":
        return False
    return np.iinfo(dt).min


def all_bits(dt: np.dtype) -> Any:
    """The value with every bit set (-1 for signed integers)."""
    return -1 if dt.kind == "i" else np.iinfo(dt).max


def zero_for_integers(dt: np.dtype) -> Any:
    """0 is terminal for ``times`` on integers and bool, not on floats (0 * inf is nan)."""
    return None if dt.kind == "f" else 0
