"""The dtype of a dense export (``to_dense``): the container's own unless the fill value needs
another, and never one that changes a stored value.

The rule, for a container of dtype ``D`` and a ``fill_value`` (a Python or NumPy bool, int or
float):

1. ``D`` itself where it holds the fill: a bool fill for a bool ``D``; a bool or an integer in
   its range for an integer ``D``; a bool, an integer or a float that does not overflow it for
   a float ``D`` (a float fill rounds as floats do everywhere in hyblas);
2. else the promotion of ``D`` with the fill's own dtype (a Python float's is float64, a
   Python int's the smallest integer type that holds it, a NumPy scalar's its own), within
   the dtypes hyblas stores (``hyblas.dtypes.unify``): a bool or int8 ``D`` with a
   float fill gives float64 (never float16), a uint8 ``D`` with fill -1 int16, an int64 ``D``
   with fill NaN float64. It must hold the fill and every stored value exactly: an integer
   ``D`` of more bits than the float's mantissa (int64, uint64 into float64) is checked,
   value by value, only then;
3. else InvalidValue, naming the value that would change.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..errors import InvalidValue

__all__ = ["dense_dtype"]


def dense_dtype(
    dtype: np.dtype, fill_value: Any, stored: np.ndarray, present: np.ndarray | None = None
) -> np.dtype:
    """The dtype of a dense array of a container of ``dtype`` whose absent entries become
    ``fill_value`` (already checked to be a number or a bool), by the rule above.

    ``stored`` holds the container's values on the host (where ``present``, when given: a
    bitmap's flags); they are read only where the promotion could change one.

    Raises
    ------
    InvalidValue
        If no dtype holds both the fill and every stored value exactly.
    """
    fill = fill_value[()] if isinstance(fill_value, np.ndarray) else fill_value  # a 0-d one
    own = _fill_dtype(fill)
    if _holds(dtype, fill, own.kind, rounding=True):
        return dtype
    result = _dt.unify(dtype, own)
    why = f"to_dense(fill_value={_dt.short_repr(fill_value)}): {dtype.name} cannot hold the fill"
    if not _holds(result, fill, own.kind, rounding=False):
        raise InvalidValue(
            f"{why}, nor can {result.name} (the type of both) hold it exactly; convert the "
            "container first (dup) or pass another fill_value"
        )
    if _may_round(dtype, result):
        _check_exact(dtype, result, stored if present is None else stored[present], why)
    return result


def _fill_dtype(fill: Any) -> np.dtype:
    """The fill's own dtype: a NumPy scalar's; bool, the smallest integer type, or float64
    for a Python bool, int or float."""
    if isinstance(fill, np.generic):
        return fill.dtype
    if isinstance(fill, bool):
        return np.dtype(bool)
    if isinstance(fill, int):
        return np.min_scalar_type(fill)
    return np.dtype(np.float64)


def _holds(dtype: np.dtype, fill: Any, kind: str, *, rounding: bool) -> bool:
    """Whether ``dtype`` holds the fill (of dtype kind ``kind``): exactly, or, with
    ``rounding``, a number a float ``dtype`` rounds without overflowing."""
    if kind == "b":
        return True
    if dtype.kind == "b":
        return False
    if dtype.kind in "iu":
        if kind == "f":
            return False
        low, high = _dt.int_range(dtype)
        return low <= int(fill) <= high
    number = float(fill)  # a 64-bit int or a float: no overflow into a Python float
    if not math.isfinite(number):
        return True  # inf and NaN are values of every float type
    with np.errstate(over="ignore"):  # an overflow is the answer
        cast = dtype.type(fill)
    if not np.isfinite(cast):
        return False
    if rounding:
        return True
    return (int(cast) == int(fill)) if kind in "iu" else float(cast) == number


def _may_round(dtype: np.dtype, result: np.dtype) -> bool:
    """Whether some value of ``dtype`` is not one of ``result``: an integer type of more bits
    than a float ``result`` has in its mantissa."""
    if dtype.kind not in "iu" or result.kind != "f":
        return False
    bits = dtype.itemsize * 8 - (1 if dtype.kind == "i" else 0)
    return bits > np.finfo(result).nmant + 1


def _check_exact(dtype: np.dtype, result: np.dtype, values: np.ndarray, why: str) -> None:
    """InvalidValue naming the first of ``values`` that ``result`` does not hold exactly."""
    low, high = _dt.int_range(dtype)
    cast = values.astype(result)
    with np.errstate(invalid="ignore"):  # values beyond the range are not cast back
        back = cast.astype(dtype)
    exact = (cast >= float(low)) & (cast < float(high) + 1.0) & (back == values)
    if not bool(exact.all()):
        bad = values[np.flatnonzero(~exact)[0]].item()
        raise InvalidValue(
            f"{why}, and {result.name} (the type of both) would change the stored value {bad} "
            f"to {float(result.type(bad))!r}; pass a fill_value {dtype.name} holds, or convert "
            "the container first (dup)"
        )
