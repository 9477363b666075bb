"""``fmin`` / ``fmax`` whose result does not depend on the order of their operands.

``fmin(-0.0, +0.0)`` may be either zero (C's ``fmin`` leaves it open; NumPy's returns its first
operand), so a reduction that combines an output's contributions in the order its threads
arrive could give ``-0.0`` one run and ``+0.0`` the next. hyblas's ``min`` orders ``-0.0``
before ``+0.0`` and its ``max`` the reverse (IEEE 754-2019 ``minimumNumber`` /
``maximumNumber``), as the GPU's integer atomics for float min / max already do, so every
executor and every order of combining gives the same bits. A NaN operand is ignored, as in
``fmin`` / ``fmax``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import binary_elementwise, is_cuda_array, xp_for

__all__ = ["OrderedExtremum", "ordered_min", "ordered_max", "MIN_CUDA", "MAX_CUDA"]

# x, y of any type (bool, ints, floats, half); the sign bit settles a tie only between zeros
MIN_CUDA = "((x) != (x) ? (y) : (((y) < (x) || ((y) == (x) && signbit((float)(y)))) ? (y) : (x)))"
MAX_CUDA = "((x) != (x) ? (y) : (((y) > (x) || ((y) == (x) && signbit((float)(x)))) ? (y) : (x)))"


class OrderedExtremum:
    """``fmin`` (``negative_zero_wins``) or ``fmax`` with the tie between zeros settled.

    Called like the ufunc (NumPy or CuPy operands: on the device, one element-wise kernel of
    the ``cuda`` expression, which the GPU's reductions use too); :meth:`reduceat` and
    :meth:`settle_zero` give the segmented and whole-array reductions the same order.
    """

    def __init__(self, ufunc: np.ufunc, cuda: str, *, negative_zero_wins: bool):
        self.ufunc = ufunc
        self.cuda = cuda
        self.negative_zero_wins = negative_zero_wins
        self.__name__ = f"ordered_{ufunc.__name__}"

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, x: Any, y: Any) -> Any:
        if is_cuda_array(x) or is_cuda_array(y):  # one kernel: the ufunc and the tie together
            xp = xp_for("cuda")
            dtype = xp.result_type(x, y)
            kernel = binary_elementwise(self.cuda, self.__name__)
            return kernel(xp.asarray(x, dtype=dtype), xp.asarray(y, dtype=dtype))
        result = self.ufunc(x, y)
        if result.dtype.kind != "f":
            return result
        # where both operands are zeros, the result is -0.0 if either (min) / both (max) are
        either_or_both = np.logical_or if self.negative_zero_wins else np.logical_and
        negative = either_or_both(np.signbit(x), np.signbit(y))
        flip = (x == y) & (result == 0) & (np.signbit(result) != negative)
        settled = np.where(flip, -result, result)
        if isinstance(result, np.generic):
            return result.dtype.type(settled)
        return settled

    def reduceat(self, values: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """``ufunc.reduceat`` (NumPy arrays; ``starts`` strictly increasing) with every zero
        result given the sign that wins among its segment's zeros."""
        reduced = self.ufunc.reduceat(values, starts)
        if reduced.dtype.kind != "f":
            return reduced
        zero = reduced == 0
        if zero.any():
            winning = (values == 0) & (np.signbit(values) == self.negative_zero_wins)
            has_winner = np.logical_or.reduceat(winning, starts)[zero]
            reduced[zero] = np.where(has_winner == self.negative_zero_wins, -0.0, 0.0)
        return reduced

    def reduce(self, values: np.ndarray, initial: Any = None) -> Any:
        """``ufunc.reduce`` of a 1-d NumPy array (from ``initial``, where given), a zero result
        given the sign that wins among the zeros."""
        if initial is not None:
            values = np.concatenate([np.asarray([initial], dtype=values.dtype), values])
        reduced = self.ufunc.reduce(values)
        return self.settle_zero(np, values, reduced)

    def settle_zero(self, xp: Any, values: Any, reduced: Any) -> Any:
        """A whole-array reduction's result (``xp.nanmin`` / ``xp.nanmax`` of ``values``) with
        a zero given the sign that wins among the zeros of ``values``."""
        if np.dtype(values.dtype).kind != "f" or bool(reduced != 0):
            return reduced
        winning = (values == 0) & (xp.signbit(values) == self.negative_zero_wins)
        has_winner = bool(xp.any(winning))
        return reduced.dtype.type(-0.0 if has_winner == self.negative_zero_wins else 0.0)


ordered_min = OrderedExtremum(np.fmin, MIN_CUDA, negative_zero_wins=True)
ordered_max = OrderedExtremum(np.fmax, MAX_CUDA, negative_zero_wins=False)
