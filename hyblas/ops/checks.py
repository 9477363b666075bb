"""Argument checks shared by the operations: operators given as objects or names, the kinds of
the containers, and index arguments (None, a slice, an int or an array of ints)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..containers.arguments import as_index_array, check_bounds
from ..containers.vector import Vector
from ..device.arrays import check_fits
from ..dtypes import short_repr
from ..errors import IndexOutOfBounds, InvalidObject, InvalidValue
from ..operators.classes import BinaryOp, Monoid, Operator, Semiring
from ..operators.registry import NAMESPACES, did_you_mean

__all__ = ["operator", "container", "binary_of", "monoid_of", "index_array", "slice_bounds"]


def operator(op: Any, kinds: tuple[type, ...], argument: str) -> Operator:
    """A registered operator from an object or a name string, of one of ``kinds``."""
    if isinstance(op, str):
        for kind in kinds:
            table = NAMESPACES[kind.kind]
            if op in table:
                return table[op]
        wanted = " or ".join(k.kind for k in kinds)
        hint = next(filter(None, (did_you_mean(kind.kind, op) for kind in kinds)), "")
        raise InvalidValue(f"{argument}={op!r} names no {wanted}{hint}")
    if not isinstance(op, kinds):
        wanted = " or ".join(k.__name__ for k in kinds)
        raise InvalidObject(f"{argument} must be a {wanted}, got {short_repr(op)}")
    return op


def container(obj: Any, kinds: tuple[type, ...], argument: str) -> Any:
    """``obj`` if it is one of ``kinds``; InvalidObject otherwise."""
    if not isinstance(obj, kinds):
        wanted = " or ".join(k.__name__ for k in kinds)
        raise InvalidObject(f"{argument} must be a {wanted}, got {type(obj).__name__}")
    return obj


def binary_of(op: Any, argument: str) -> BinaryOp:
    """A BinaryOp from a BinaryOp, a Monoid (its operator), a Semiring (its add) or a name."""
    found = operator(op, (BinaryOp, Monoid, Semiring), argument)
    if isinstance(found, Semiring):
        return found.monoid.binaryop
    return found.binaryop if isinstance(found, Monoid) else found


def monoid_of(monoid: Any) -> Monoid:
    """A Monoid from a Monoid, a Semiring (its add monoid) or a name."""
    found = operator(monoid, (Monoid, Semiring), "monoid")
    return found.monoid if isinstance(found, Semiring) else found


def index_array(
    xp: Any, index: Any, extent: int, argument: str, *, bounds: bool = True
) -> tuple[Any, bool]:
    """(int64 positions, whether ``index`` was a scalar) for None / slice / int / array /
    Vector (an index vector: the values of its entries, in the order of their positions).
    ``bounds=False`` leaves an array's or a Vector's bounds to the caller (the gather and
    scatter primitives check them in their pass).

    Raises
    ------
    InvalidValue
        A slice whose step is 0.
    InvalidObject
        A slice with a bound or step that is not an integer (or None); an array of anything
        but integers.
    IndexOutOfBounds
        An int or an array's index outside ``[0, extent)``.
    """
    if index is None or isinstance(index, slice):
        bounds = (extent,) if index is None else slice_bounds(index, extent, argument)
        count = len(range(*bounds))
        check_fits(count, np.int64, f"listing the {count} positions {argument} names")
        return xp.arange(*bounds, dtype=np.int64), False
    if isinstance(index, int | np.integer):
        if not 0 <= index < extent:
            raise IndexOutOfBounds(f"{argument}={index} outside [0, {extent})")
        return xp.asarray([index], dtype=np.int64), True
    if isinstance(index, Vector):
        if index.backend != ("cpu" if xp is np else "cuda"):
            raise InvalidObject(
                f"{argument}: an index vector on backend {index.backend!r} indexes a "
                f"container on {'cpu' if xp is np else 'cuda'!r}"
            )
        if index.dtype.kind == "b":
            raise InvalidObject(f"{argument} must hold integers, got dtype {index.dtype}")
        full = index.known_full() and index.stored_bitmap is not None
        index = index.stored_bitmap[0] if full else index.as_sparse()[1]
    arr = as_index_array(xp, index, argument)
    if bounds:
        check_bounds(xp, arr, extent, argument)
    return arr, False


def slice_bounds(index: slice, extent: int, argument: str) -> tuple[int, int, int]:
    """``index.indices(extent)``, its errors named."""
    try:
        return index.indices(extent)
    except ValueError:  # the step is 0
        raise InvalidValue(f"{argument}={index!r}: a slice's step cannot be 0") from None
    except TypeError:
        raise InvalidObject(
            f"{argument}={short_repr(index)}: a slice's start, stop and step must be integers "
            "or None"
        ) from None
