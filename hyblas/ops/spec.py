"""The output description every operation builds once and hands on: ``out``, the mask, the
accumulator and ``replace`` (the GraphBLAS C API's output descriptor), with the backend all the
operation's objects live on.

:func:`output_spec` is the one place these arguments are checked; everything below it (the
writers of :mod:`.output`, the executors) takes an :class:`OutputSpec` and trusts it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..containers.mask import Mask
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..dtypes import short_repr
from ..errors import BackendError, DimensionMismatch, InvalidObject
from ..operators.classes import BinaryOp, Monoid

__all__ = [
    "OutputSpec",
    "output_spec",
    "as_mask",
    "check_accum",
    "check_replace",
    "same_backend",
]


# Not frozen: a frozen dataclass's __init__ costs about four times a plain one's, host time
# spent on every operation; nothing changes a spec after output_spec builds it.
@dataclass(slots=True)
class OutputSpec:
    """Where and how an operation's result ``T`` is written (not changed once built).

    Attributes
    ----------
    backend : str
        The backend every object of the operation lives on (the result's too).
    out : Vector or Matrix, optional
        Updated in place; None: the result is a new object.
    mask : Mask, optional
        Normalized mask view, shaped like the output.
    accum : BinaryOp, optional
        Combines ``out``'s existing entries with the result.
    replace : bool
        Clear ``out``'s entries the mask does not allow.
    """

    backend: str
    out: Any = None
    mask: Mask | None = None
    accum: BinaryOp | None = None
    replace: bool = False

    @property
    def bare(self) -> bool:
        """Whether the result is written as it is: no ``out``, no mask, no accumulator."""
        return self.out is None and self.mask is None and self.accum is None


def as_mask(mask: Any) -> Mask | None:
    """Normalize ``mask=``: None, a Mask, or a Vector / Matrix meaning its value mask."""
    if mask is None or isinstance(mask, Mask):
        return mask
    if isinstance(mask, Vector | Matrix):
        return Mask(mask, structural=False)
    raise InvalidObject(
        f"mask must be a Vector, a Matrix or a mask view (v.S, ~v.S), got {type(mask).__name__}"
    )


def check_accum(accum: Any) -> BinaryOp | None:
    """``accum=`` as a BinaryOp (a Monoid stands for its operator); InvalidObject otherwise."""
    if accum is None or isinstance(accum, BinaryOp):
        return accum
    if isinstance(accum, Monoid):
        return accum.binaryop
    raise InvalidObject(f"accum must be a BinaryOp, got {short_repr(accum)}")


def check_replace(op_name: str, replace: Any) -> bool:
    """``replace=`` as a bool: True, False or a NumPy bool; InvalidObject otherwise."""
    if isinstance(replace, np.bool_):
        return bool(replace)
    raise InvalidObject(f"{op_name}: replace must be True or False, got {short_repr(replace)}")


def _backend_of(obj: Any) -> str:
    return (obj.parent if isinstance(obj, Mask) else obj).backend


def same_backend(op_name: str, **objects: Any) -> str:
    """The one backend all objects (masks included; None skipped) live on; BackendError if
    they differ."""
    return _one_backend(op_name, objects)


def _one_backend(op_name: str, objects: dict[str, Any]) -> str:
    found = None
    for obj in objects.values():
        if obj is None:
            continue
        backend = _backend_of(obj)
        if found is None:
            found = backend
        elif backend != found:
            where = ", ".join(
                f"{k} on {_backend_of(v)!r}" for k, v in objects.items() if v is not None
            )
            raise BackendError(
                f"{op_name}: objects live on different backends ({where}); "
                "move them with .to_backend()"
            )
    return found


def output_spec(
    op_name: str,
    kind: type,
    shape: tuple[int, ...],
    *,
    mask: Any = None,
    accum: Any = None,
    replace: bool = False,
    out: Any = None,
    **operands: Any,
) -> OutputSpec:
    """Check an operation's output arguments and build its :class:`OutputSpec`.

    Parameters
    ----------
    op_name : str
        For the messages.
    kind : type
        Vector or Matrix: what the result is.
    shape : tuple of int
        The result's shape.
    mask, accum, replace, out
        As the operation took them.
    **operands
        The operation's inputs, which must live on one backend with ``out`` and the mask.

    Raises
    ------
    InvalidObject
        ``out`` or the mask is not of ``kind``, ``accum`` is not a BinaryOp or Monoid,
        ``replace`` is not a bool.
    DimensionMismatch
        ``out`` or the mask has another shape.
    BackendError
        The objects live on different backends.
    """
    if mask is not None:
        mask = as_mask(mask)
    if out is not None:
        if not isinstance(out, kind):
            raise InvalidObject(
                f"{op_name}: out must be a {kind.__name__}, got {type(out).__name__}"
            )
        if tuple(out.shape) != tuple(shape):
            raise DimensionMismatch(
                f"{op_name}: out has shape {tuple(out.shape)} but the result "
                f"has shape {tuple(shape)}"
            )
    if mask is not None:
        if not isinstance(mask.parent, kind):
            raise InvalidObject(
                f"{op_name}: mask must be a {kind.__name__} (mask view), got "
                f"{type(mask.parent).__name__}"
            )
        if mask.shape != tuple(shape):
            raise DimensionMismatch(
                f"{op_name}: mask has shape {mask.shape} but the output has shape {tuple(shape)}"
            )
    operands["mask"], operands["out"] = mask, out
    backend = _one_backend(op_name, operands)
    if accum is not None:
        accum = check_accum(accum)
    if replace is not False and replace is not True:
        replace = check_replace(op_name, replace)
    return OutputSpec(backend, out, mask, accum, replace)
