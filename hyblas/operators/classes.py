"""Operator classes: UnaryOp, BinaryOp, IndexUnaryOp, Monoid, Semiring.

Each operator carries a CUDA C expression (spliced into kernels, see :mod:`hyblas.device.codegen`)
and a vectorized NumPy implementation. The NumPy implementation must be written with NumPy
ufuncs / array functions so that it also runs on CuPy arrays (NumPy dispatches to CuPy through
``__array_ufunc__`` / ``__array_function__``).

Operators are untyped until indexed with a dtype: ``semiring.min_plus[np.float32]`` fixes the
type the operands are cast to, and raises :class:`UnservedType` (a ``DomainMismatch`` and a
``KeyError``) for a dtype the operator does not serve. Untyped operators take their type from
the operands (see :func:`hyblas.dtypes.unify`).

A user's NumPy function is checked where it is called, in one place: the operator holds it
wrapped (:func:`_checked_function`), so that a result that is not an array of the operands'
shape, or an exception the function raises, becomes an ``InvalidObject`` naming the operator
wherever the operator runs (apply, the element-wise operations, select, accumulators, the
products' emulations, reductions). The wrapper hands it its operands as read-only views
(copies on the GPU, where arrays have no read-only flag): they may be a container's own
storage, which a function writing into its operands (``np.add(x, y, out=x)``) would change.
The built-in operators' functions (NumPy ufuncs, the catalogue's own and the ordered min /
max) are trusted and called as they are, on the arrays themselves.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import is_cuda_array
from ..errors import DomainMismatch, HyblasError, InvalidObject, InvalidValue
from .registry import lookup

__all__ = [
    "UnaryOp",
    "BinaryOp",
    "IndexUnaryOp",
    "Monoid",
    "Semiring",
    "Operator",
    "UnservedType",
    "THUNKS",
    "ATOMICS",
]


class UnservedType(DomainMismatch, KeyError):
    """The operator does not serve that dtype: a :class:`~hyblas.errors.DomainMismatch` that is
    also the ``KeyError`` indexing raises (``binary.bor[np.float32]``)."""

    __str__ = Exception.__str__  # KeyError's would show the message quoted


ALL_TYPES = frozenset(_dt.DTYPES)
NUMBER_TYPES = frozenset(d for d in _dt.DTYPES if d.kind != "b")
SIGNED_TYPES = frozenset(d for d in _dt.DTYPES if d.kind in "if")
INT_TYPES = frozenset(d for d in _dt.DTYPES if d.kind in "iu")
FLOAT_TYPES = frozenset(d for d in _dt.DTYPES if d.kind == "f")
BOOL = np.dtype(bool)


def _type_set(kind: str, name: str, types: Iterable[Any] | Any | None) -> frozenset[np.dtype]:
    if types is None:
        return ALL_TYPES
    argument = f"{kind} {name!r}: types"
    if isinstance(types, frozenset | set | list | tuple):
        found = frozenset(_dt.lookup(t, argument=argument) for t in types)
        if not found:
            raise InvalidValue(f"{argument} is empty; name at least one dtype (or None: all)")
        return found
    return frozenset({_dt.lookup(types, argument=argument)})


# The callables of the built-in operators: trusted to return an array of the operands' shape
_PACKAGE = __name__.rsplit(".", 1)[0]
_BUILTIN_MODULES = frozenset({_PACKAGE + ".catalogue", _PACKAGE + ".extrema"})


def _checked_function(op: Operator, function: Any) -> Any:
    """``function`` as ``op`` calls it: a built-in's (a NumPy ufunc, a function of the
    catalogue, an ordered min / max of :mod:`.extrema`) as it is; a user's wrapped by a check
    of each result (:func:`_check_result`) and of the exceptions it raises."""
    if not callable(function):
        raise InvalidObject(
            f"{op.kind} {op.name!r}: numpy must be a callable (a vectorized NumPy function), "
            f"got {type(function).__name__}"
        )
    if isinstance(function, np.ufunc) or getattr(function, "__module__", None) in _BUILTIN_MODULES:
        return function

    def checked(*operands: Any) -> Any:
        try:
            result = function(*map(_read_only, operands))
        except (HyblasError, MemoryError):
            raise
        except Exception as exc:  # a user's function failed: name the operator
            raise InvalidObject(
                f"{op.kind} {op.name!r}: its numpy function raised {type(exc).__name__}: {exc}"
            ) from exc
        return _check_result(op, result, operands[0])

    checked.__wrapped__ = function
    checked.__name__ = getattr(function, "__name__", "numpy")
    return checked


def _read_only(operand: Any) -> Any:
    """An operand as a user's function gets it: a NumPy array as a read-only view (a write
    into it raises, and the wrapper names the operator), a CuPy array (which has no read-only
    flag) as a copy, so that no container's storage can be written; a scalar as it is."""
    if isinstance(operand, np.ndarray):
        view = operand.view()
        view.flags.writeable = False
        return view
    if is_cuda_array(operand):
        return operand.copy()
    return operand


def _check_result(op: Operator, result: Any, like: Any) -> Any:
    """``result`` if it is an array (of the operands' kind: NumPy or CuPy) of ``like``'s shape
    with numbers hyblas stores; InvalidObject / DomainMismatch naming ``op`` otherwise."""
    shape = getattr(like, "shape", ())
    if getattr(result, "shape", None) != shape or not hasattr(result, "dtype"):
        got = (
            f"a {type(result).__name__} of shape {result.shape}"
            if hasattr(result, "shape")
            else f"{type(result).__name__} {_dt.short_repr(result)}"
        )
        raise InvalidObject(
            f"{op.kind} {op.name!r}: its numpy function returned {got} for operands of shape "
            f"{shape}; it must return an array of the operands' shape (write it with NumPy "
            "ufuncs and array functions, e.g. np.where instead of if / else)"
        )
    host = (np.ndarray, np.generic)
    if hasattr(like, "shape") and isinstance(like, host) != isinstance(result, host):
        raise InvalidObject(
            f"{op.kind} {op.name!r}: its numpy function returned a {type(result).__module__}."
            f"{type(result).__name__} for {type(like).__module__}.{type(like).__name__} "
            "operands; use NumPy functions that dispatch to the operands' library "
            "(np.add, np.where...), not ones that convert (np.asarray, np.array)"
        )
    if result.dtype.kind not in "biuf":
        raise DomainMismatch(
            f"{op.kind} {op.name!r}: its numpy function returned values of dtype "
            f"{result.dtype}; hyblas stores bool, integers and floats"
        )
    return result


def dtype_argument(op: Operator, dtype: Any) -> np.dtype:
    """``dtype`` (a dtype, a type or a name) as the hyblas dtype it names; DomainMismatch
    naming ``op`` for anything else (a name NumPy does not know, a string or complex type)."""
    try:
        if dtype in ALL_TYPES:  # a hyblas np.dtype already: no conversion
            return dtype
        dt = np.dtype(dtype)
    except (TypeError, ValueError):  # unhashable, or not a dtype
        dt = None
    if dt not in ALL_TYPES:
        names = ", ".join(d.name for d in _dt.DTYPES)
        raise DomainMismatch(
            f"{op!r}: {_dt.short_repr(dtype)} is not a dtype hyblas stores ({names})"
        )
    return dt


def _same_number(held: np.generic, value: Any) -> bool:
    """Whether ``held`` is the number ``value`` (compared as Python numbers: exactly; NaN is
    NaN)."""
    number = held.item()
    if not isinstance(value, bool | int | float):
        value = value.item()  # a NumPy scalar or a 0-d array
    return number == value or (number != number and value != value)


class Operator:
    """What every operator shares: a name, the input types it serves, an optional fixed type."""

    kind = "operator"

    def __init__(self, name: str, types: Iterable[Any] | Any | None = None):
        if not isinstance(name, str):
            raise InvalidValue(f"{self.kind} name must be a str, got {name!r}")
        self.name = name
        self.types = _type_set(self.kind, name, types)
        self.dtype: np.dtype | None = None  # set on typed instances only

    def __getitem__(self, dtype: Any) -> Operator:
        """The operator typed for ``dtype``.

        The same object each time (as python-graphblas's typed operators), so that what is
        cached per operator, compiled kernels above all, is found again on the next call.

        Raises
        ------
        DomainMismatch
            If ``dtype`` is not a dtype.
        UnservedType
            (a DomainMismatch and a KeyError) if the operator does not serve ``dtype``.
        """
        try:
            dt = np.dtype(dtype)
        except (TypeError, ValueError):
            raise DomainMismatch(
                f"{self!r}[{_dt.short_repr(dtype)}]: operators are typed with a dtype "
                "(e.g. np.float64 or 'int32')"
            ) from None
        typed_ones = self.__dict__.setdefault("_typed", {})  # shared with the typed ones
        typed = typed_ones.get(dt)
        if typed is not None:
            return typed
        if dt not in self.types:
            served = ", ".join(sorted(t.name for t in self.types))
            raise UnservedType(
                f"{self.kind} {self.name!r} does not serve dtype {dt.name} ({served})"
            )
        typed = object.__new__(type(self))
        typed.__dict__.update(self.__dict__, dtype=dt)
        typed_ones[dt] = typed
        return typed

    def input_type(self, *operand_dtypes: np.dtype) -> np.dtype:
        """The type operands are cast to before this operator runs.

        Raises
        ------
        DomainMismatch
            If an operand's dtype is not one hyblas stores, or the operator does not serve the
            type they unify to.

        Examples
        --------
        >>> hb.binary.plus.input_type(np.dtype("int8"), np.dtype("float32"))
        dtype('float32')
        """
        if self.dtype is not None:
            dt = self.dtype
        else:
            try:
                dt = _dt.unify(*operand_dtypes)
            except DomainMismatch as exc:
                raise DomainMismatch(f"{self!r}: {exc}") from None
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
        self.cuda = _cuda_expression(self, cuda)
        self.numpy = _checked_function(self, numpy)
        self.output = _output_rule(self, output)

    def output_type(self, input_type: np.dtype) -> np.dtype:
        """The result dtype for inputs of ``input_type``.

        Examples
        --------
        >>> hb.unary.isnan.output_type(np.dtype("float32"))
        dtype('bool')
        """
        return _output_type(self, self.output, input_type)

    def __call__(self, x: Any) -> Any:
        return self.numpy(x)


def _output_type(op: Operator, rule: str | Any, input_type: np.dtype) -> np.dtype:
    """The result dtype by ``rule`` for inputs of ``input_type`` (DomainMismatch if that is no
    hyblas dtype)."""
    input_type = dtype_argument(op, input_type)
    if rule == "same":
        return input_type
    if rule == "bool":
        return BOOL
    return rule


def _output_rule(op: Operator, rule: Any) -> str | np.dtype:
    """``output=`` checked: 'same', 'bool' or a hyblas dtype (then as a np.dtype)."""
    if isinstance(rule, str) and rule in ("same", "bool"):
        return rule
    try:
        return _dt.lookup(rule, argument=f"{op.kind} {op.name!r}: output")
    except DomainMismatch as exc:
        raise DomainMismatch(f"{exc}; or give 'same' or 'bool'") from None


def _cuda_expression(op: Operator, cuda: Any) -> str:
    if not isinstance(cuda, str):
        raise InvalidObject(
            f"{op.kind} {op.name!r}: cuda must be a str (a CUDA C expression), "
            f"got {type(cuda).__name__}"
        )
    return cuda


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
        self.cuda = _cuda_expression(self, cuda)
        self.numpy = _checked_function(self, numpy)
        self.output = _output_rule(self, output)
        self.cast_inputs_to = (
            None
            if cast_inputs_to is None
            else _dt.lookup(cast_inputs_to, argument=f"binary {name!r}: cast_inputs_to")
        )

    @property
    def ufunc(self) -> np.ufunc | None:
        """The NumPy ufunc behind this operator, if any (enables ``reduceat``)."""
        return self.numpy if isinstance(self.numpy, np.ufunc) else None

    @property
    def reads_x(self) -> bool:
        """Whether the result depends on ``x``: its CUDA expression names it.

        Examples
        --------
        >>> hb.binary.second.reads_x, hb.binary.pair.reads_x, hb.binary.plus.reads_x
        (False, False, True)
        """
        return re.search(r"\bx\b", self.cuda) is not None

    @property
    def reads_y(self) -> bool:
        """Whether the result depends on ``y``: its CUDA expression names it. A product whose
        multiply does not (``first``, ``pair``) reads only the pattern of its right operand.

        Examples
        --------
        >>> hb.binary.first.reads_y, hb.binary.plus.reads_y
        (False, True)
        """
        return re.search(r"\by\b", self.cuda) is not None

    def input_type(self, *operand_dtypes: np.dtype) -> np.dtype:
        """The type operands are cast to before this operator runs.

        Examples
        --------
        >>> hb.binary.plus.input_type(np.dtype("int32"), np.dtype("int64"))
        dtype('int64')
        """
        if self.cast_inputs_to is not None and self.dtype is None:
            return self.cast_inputs_to
        return super().input_type(*operand_dtypes)

    def output_type(self, input_type: np.dtype) -> np.dtype:
        """The result dtype for operands of ``input_type``.

        Examples
        --------
        >>> hb.binary.lt.output_type(np.dtype("float64"))
        dtype('bool')
        """
        return _output_type(self, self.output, input_type)

    def __call__(self, x: Any, y: Any) -> Any:
        return self.numpy(x, y)


THUNKS = (None, "index", "value")
"""What an IndexUnaryOp's thunk is: anything (None: the op's function checks it), an integer
(``'index'``: a diagonal offset, a row or column), or a number compared with the values
(``'value'``)."""


class IndexUnaryOp(Operator):
    """``keep = f(value, row, col, thunk)`` used by ``select``.

    Parameters
    ----------
    name : str
    numpy : callable
        Vectorized ``f(values, rows, cols, thunk) -> bool array``; for vectors ``cols`` is 0.
    cuda : str, optional
        CUDA C expression in ``x``, ``i``, ``j``, ``thunk`` (for kernels that fuse select).
    thunk : {None, 'index', 'value'}
        What ``select`` accepts as the thunk (see :data:`~hyblas.operators.classes.THUNKS`);
        checked before the op runs.
    """

    kind = "indexunary"

    def __init__(
        self,
        name: str,
        numpy: Callable[[Any, Any, Any, Any], Any],
        *,
        cuda: str = "",
        types: Iterable[Any] | Any | None = None,
        thunk: str | None = None,
    ):
        super().__init__(name, types)
        self.numpy = _checked_function(self, numpy)
        self.cuda = _cuda_expression(self, cuda)
        if not (thunk is None or (isinstance(thunk, str) and thunk in THUNKS)):
            raise InvalidValue(f"indexunary {name!r}: thunk must be one of {THUNKS}, got {thunk!r}")
        self.thunk = thunk

    def __call__(self, values: Any, rows: Any, cols: Any, thunk: Any) -> Any:
        return self.numpy(values, rows, cols, thunk)


IdentityRule = Callable[[np.dtype], Any] | Any
_UNKNOWN = object()  # not yet looked up
ATOMICS = ("add", "min", "max", "or", "and", "xor")


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
            raise InvalidObject(
                f"monoid {name!r}: binaryop must be a BinaryOp, got {_dt.short_repr(binaryop)}"
            )
        if binaryop.output == "bool" and binaryop.cast_inputs_to is None:
            raise InvalidValue(f"monoid {name!r}: {binaryop!r} returns bool for any input type")
        if atomic is not None and not (isinstance(atomic, str) and atomic in ATOMICS):
            raise InvalidValue(
                f"monoid {name!r}: atomic must be None or one of {ATOMICS}, got {atomic!r}"
            )
        for role, rule in (("identity", identity), ("terminal", terminal)):
            if not (
                callable(rule) or _dt.is_real_scalar(rule) or (role == "terminal" and rule is None)
            ):
                raise DomainMismatch(
                    f"monoid {name!r}: {role} must be a number (bool, int or float) or a "
                    f"callable(dtype) giving one, got {_dt.short_repr(rule)}"
                )
        super().__init__(name, binaryop.types)
        self.binaryop = binaryop
        self._identity = identity
        self._terminal = terminal
        self._held: dict[tuple[str, np.dtype], Any] = {}  # (role, dtype) -> checked value
        self.atomic = atomic
        self.cast_inputs_to = binaryop.cast_inputs_to

    def input_type(self, *operand_dtypes: np.dtype) -> np.dtype:
        """The type operands are cast to before this operator runs.

        Examples
        --------
        >>> hb.monoid.min.input_type(np.dtype("uint8"), np.dtype("uint8"))
        dtype('uint8')
        """
        if self.cast_inputs_to is not None and self.dtype is None:
            return self.cast_inputs_to
        return super().input_type(*operand_dtypes)

    def identity(self, dtype: Any) -> Any:
        """The identity as a NumPy scalar of ``dtype``.

        Raises
        ------
        DomainMismatch
            If ``dtype`` is not a dtype hyblas stores, the monoid does not serve it, or it
            cannot hold the identity exactly (a user's ``-inf`` or ``1.5`` in an integer type,
            ``0.5`` in bool, ``1e39`` in float32): then the monoid does not serve that dtype.

        Examples
        --------
        >>> hb.monoid.min.identity("int8"), hb.monoid.plus.identity("float64")
        (np.int8(127), np.float64(0.0))
        """
        return self._value("identity", self._identity, dtype)

    def terminal(self, dtype: Any) -> Any | None:
        """The terminal value as a NumPy scalar of ``dtype``, or None when there is none.

        Raises
        ------
        DomainMismatch
            As :meth:`identity`, for the terminal value.

        Examples
        --------
        >>> hb.monoid.min.terminal("int8"), hb.monoid.plus.terminal("float64")
        (np.int8(-128), None)
        """
        return self._value("terminal", self._terminal, dtype)

    def _value(self, role: str, rule: IdentityRule, dtype: Any) -> Any:
        """The identity or terminal (``role``) of ``dtype``: checked once per dtype, then
        remembered (shared with the typed monoids)."""
        dt = dtype_argument(self, dtype)
        found = self._held.get((role, dt), _UNKNOWN)
        if found is not _UNKNOWN:
            return found
        if dt not in self.types:
            served = ", ".join(sorted(t.name for t in self.types))
            raise UnservedType(f"monoid {self.name!r} does not serve dtype {dt.name} ({served})")
        value = rule(dt) if callable(rule) else rule
        held = None if value is None else self._hold(value, dt, role)
        self._held[(role, dt)] = held
        return held

    def _hold(self, value: Any, dt: np.dtype, role: str) -> Any:
        """``value`` as a NumPy scalar of ``dt``; DomainMismatch unless ``dt`` holds it
        exactly."""
        argument = f"monoid {self.name!r}: {role}"
        try:
            held = _dt.scalar(value, dt, argument=argument)  # says why a value does not fit
        except InvalidValue as exc:  # a value dt cannot hold: the monoid does not serve dt
            raise DomainMismatch(f"monoid {self.name!r} does not serve {dt.name}: {exc}") from exc
        if not _same_number(held, value):  # rounded, truncated or made a bool
            raise DomainMismatch(
                f"monoid {self.name!r} does not serve {dt.name}: {role}="
                f"{_dt.short_repr(value)} becomes {held.item()!r} in {dt.name}"
            )
        return held

    def __call__(self, x: Any, y: Any) -> Any:
        return self.binaryop.numpy(x, y)


class Semiring(Operator):
    """``(add monoid, multiply BinaryOp)``: ``C(i,j) = add_k mult(A(i,k), B(k,j))``.

    The multiply's result type must be one the add monoid serves.
    """

    kind = "semiring"

    def __init__(self, name: str, monoid: Monoid, binaryop: BinaryOp):
        if not isinstance(monoid, Monoid):
            raise InvalidObject(
                f"semiring {name!r}: monoid must be a Monoid, got {_dt.short_repr(monoid)}"
            )
        if not isinstance(binaryop, BinaryOp):
            raise InvalidObject(
                f"semiring {name!r}: binaryop must be a BinaryOp, got {_dt.short_repr(binaryop)}"
            )
        served = {t for t in binaryop.types if binaryop.output_type(t) in monoid.types}
        if not served:
            raise InvalidValue(f"semiring {name!r}: no dtype fits both {monoid!r} and {binaryop!r}")
        super().__init__(name, served)
        self.monoid = monoid
        self.binaryop = binaryop

    def input_type(self, *operand_dtypes: np.dtype) -> np.dtype:
        """The type operands are cast to before this operator runs.

        Examples
        --------
        >>> hb.semiring.min_plus.input_type(np.dtype("int32"), np.dtype("float64"))
        dtype('float64')
        """
        if self.binaryop.cast_inputs_to is not None and self.dtype is None:
            return self.binaryop.cast_inputs_to
        return super().input_type(*operand_dtypes)

    def output_type(self, input_type: np.dtype) -> np.dtype:
        """The result dtype for operands of ``input_type``: the add monoid's type.

        Products are cast to the monoid's domain before they are added, as GraphBLAS casts the
        multiply's output to the monoid's type (``lor_first`` on floats gives bool).

        Examples
        --------
        >>> hb.semiring.lor_land.output_type(np.dtype("bool"))
        dtype('bool')
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
