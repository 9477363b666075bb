"""Masks, accumulation and replace: the one place every operation writes its result.

GraphBLAS C API 2.0 semantics. With result ``T`` of an operation and existing output ``w``:

1. ``Z = T`` or, with ``accum``, ``Z = w ∪ T`` where entries in both become ``accum(w, t)``;
2. where the mask allows, ``w`` becomes ``Z`` (an absent ``Z`` entry deletes ``w``'s entry);
   where it does not, ``w`` keeps its entry, or loses it if ``replace=True``.

A value mask allows where the mask entry is present and nonzero; a structural mask (``m.S``)
where it is present; ``~`` complements either. Everything is computed into new arrays and
swapped into ``w`` at the very end, so an operation that raises leaves ``w`` unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import xp_for
from ..errors import DimensionMismatch, InvalidObject
from ..semiring.operators import BinaryOp, Monoid
from . import primitives as _prim

__all__ = ["Mask", "as_mask", "check_accum", "accum_type", "write_vector", "write_matrix",
           "mask_shape", "check_output", "vector_allowed", "vector_allowed_at"]


class Mask:
    """A view of a Vector or Matrix used as a write mask.

    Made with ``v.S`` (structural), ``v.V`` (value) and ``~`` (complement); passing the object
    itself as ``mask=`` means its value mask.
    """

    __slots__ = ("parent", "structural", "complement")

    def __init__(self, parent: Any, *, structural: bool, complement: bool = False):
        self.parent = parent
        self.structural = structural
        self.complement = complement

    def __invert__(self) -> Mask:
        return Mask(self.parent, structural=self.structural, complement=not self.complement)

    def __bool__(self) -> bool:
        raise TypeError("a Mask has no truth value; pass it as mask=")

    def __repr__(self) -> str:
        kind = "S" if self.structural else "V"
        return f"{'~' if self.complement else ''}{type(self.parent).__name__}.{kind}"


def as_mask(mask: Any) -> Mask | None:
    """Normalize ``mask=``: None, a Mask, or a Vector / Matrix meaning its value mask."""
    if mask is None or isinstance(mask, Mask):
        return mask
    if hasattr(mask, "_xp") and hasattr(mask, "_dtype"):
        return Mask(mask, structural=False)
    raise InvalidObject(f"mask must be a Vector, a Matrix or a mask view (v.S, ~v.S), got "
                        f"{type(mask).__name__}")  # fmt: skip


def mask_shape(mask: Mask) -> tuple[int, ...]:
    """The shape of the object behind a mask."""
    return tuple(mask.parent.shape)


def check_accum(accum: Any) -> BinaryOp | None:
    if accum is None or isinstance(accum, BinaryOp):
        return accum
    if isinstance(accum, Monoid):
        return accum.binaryop
    raise InvalidObject(f"accum must be a BinaryOp, got {accum!r}")


def accum_type(accum: BinaryOp, old_dtype: np.dtype, new_dtype: np.dtype,
               out_dtype: np.dtype) -> np.dtype:  # fmt: skip
    """The type ``accum`` combines old and new values in; DomainMismatch if its result cannot
    be stored in ``out_dtype``."""
    op_type = accum.input_type(old_dtype, new_dtype)
    _dt.check_cast(accum.output_type(op_type), out_dtype, argument="out (after accum)")
    return op_type


def _accumulate(accum: BinaryOp, old: Any, new: Any, out_dtype: np.dtype) -> Any:
    op_type = accum_type(accum, old.dtype, new.dtype, out_dtype)
    combined = accum.numpy(old.astype(op_type, copy=False), new.astype(op_type, copy=False))
    return combined.astype(out_dtype, copy=False)


# --- vectors: bitmap arithmetic -------------------------------------------------------------


def vector_allowed(mask: Mask) -> Any:
    """Where a vector mask lets a result through (bool array over the output positions)."""
    if mask.structural:
        allowed = mask.parent._presence()
    else:
        values, present = mask.parent._as_bitmap()
        allowed = present & values.astype(bool)
    return ~allowed if mask.complement else allowed


def vector_allowed_at(mask: Mask, ids: Any) -> Any:
    """Whether a vector mask lets a result through at each of the ascending positions ``ids``
    (reads the mask's entries there only: no array over all positions)."""
    parent = mask.parent
    xp = parent._xp
    if parent._bitmap is not None:
        values, present = parent._bitmap
        allowed = present[ids]
        if not mask.structural:
            allowed &= values[ids].astype(bool)
    elif parent._sparse[0].size == 0:
        allowed = xp.zeros(ids.shape, dtype=bool)
    else:
        mask_ids, mask_values = parent._sparse
        at, allowed = _prim.locate(xp, mask_ids, ids)
        if not mask.structural:
            allowed &= mask_values[at].astype(bool)
    return ~allowed if mask.complement else allowed


def write_vector(
    out: Any,
    values: Any,
    present: Any,
    *,
    mask: Any = None,
    accum: Any = None,
    replace: bool = False,
    backend: str,
    nnz: int | None = None,
) -> Any:
    """Write a bitmap result ``(values, present)`` through mask / accum / replace.

    Returns ``out`` (updated in place) or, if ``out`` is None, a new Vector. ``nnz`` is the
    number of present results when the caller knows it (saves a count on the device).
    """
    from ..vector import Vector  # noqa: PLC0415 - containers import this module

    mask = as_mask(mask)
    accum = check_accum(accum)
    size = values.size
    if mask is not None and mask_shape(mask) != (size,):
        raise DimensionMismatch(f"mask has shape {mask_shape(mask)} but the output has size "
                                f"{size}")  # fmt: skip
    if out is None:
        if mask is not None:
            present = present & vector_allowed(mask)
            nnz = None
        return Vector._from_bitmap(values, present, backend=backend, nnz=nnz)
    _dt.check_cast(values.dtype, out.dtype)
    xp = out._xp
    old_values, old_present = out._as_bitmap()
    if accum is not None:
        both = old_present & present
        z_values = xp.where(present, values.astype(out.dtype, copy=False), old_values)
        if bool(both.any()):
            z_values = xp.where(both, _accumulate(accum, old_values, values, out.dtype),
                                z_values)  # fmt: skip
        z_present = old_present | present
    else:
        z_values, z_present = values.astype(out.dtype, copy=False), present
    if mask is None:
        new_values, new_present = z_values, z_present
    else:
        allowed = vector_allowed(mask)
        kept = old_present & ~allowed if not replace else xp.zeros(size, dtype=bool)
        new_present = (z_present & allowed) | kept
        new_values = xp.where(allowed, z_values, old_values)
    out._set_content(bitmap=(new_values.astype(out.dtype, copy=False), new_present))
    return out


def _xp_of(mask: Mask) -> Any:
    return mask.parent._xp


# --- matrices: sorted linear keys ------------------------------------------------------------


def _mask_keys(mask: Mask) -> Any:
    parent = mask.parent
    keys = _prim.csr_keys(parent._xp, parent._indptr, parent._indices, parent.nrows, parent.ncols)
    if not mask.structural:
        keys = keys[parent._values.astype(bool)]
    return keys


def write_matrix(
    out: Any,
    keys: Any,
    values: Any,
    shape: tuple[int, int],
    *,
    mask: Any = None,
    accum: Any = None,
    replace: bool = False,
    backend: str,
) -> Any:
    """Write a result given as ascending linear keys (row * ncols + col) and values.

    Returns ``out`` (updated in place) or, if ``out`` is None, a new Matrix.
    """
    from ..matrix import Matrix  # noqa: PLC0415

    mask = as_mask(mask)
    accum = check_accum(accum)
    nrows, ncols = shape
    if mask is not None and mask_shape(mask) != tuple(shape):
        raise DimensionMismatch(f"mask has shape {mask_shape(mask)} but the output has shape "
                                f"{tuple(shape)}")  # fmt: skip
    xp = _xp_of(mask) if mask is not None else None
    if out is None:
        if mask is not None:
            allowed = _prim.member(xp, _mask_keys(mask), keys) ^ mask.complement
            keys, values = keys[allowed], values[allowed]
        idx = _prim.index_dtype(keys.size, nrows, ncols)
        if xp is None:
            xp = xp_for(backend)
        indptr, indices = _prim.csr_from_sorted_keys(xp, keys, nrows, ncols, idx)
        return Matrix(indptr, indices, values, shape, backend=backend)
    _dt.check_cast(values.dtype, out.dtype)
    xp = out._xp
    old_keys = _prim.csr_keys(xp, out._indptr, out._indices, nrows, ncols)
    old_vals = out._values
    values = values.astype(out.dtype, copy=False)
    if accum is not None:
        keys, values = accumulate_keys(xp, old_keys, old_vals, keys, values, accum, out.dtype)
    if mask is not None:
        mkeys = _mask_keys(mask)
        allowed = _prim.member(xp, mkeys, keys) ^ mask.complement
        keys, values = keys[allowed], values[allowed]
        if not replace:
            keep = ~(_prim.member(xp, mkeys, old_keys) ^ mask.complement)
            keys, values = _prim.sort_by_keys(
                xp, xp.concatenate([keys, old_keys[keep]]),
                xp.concatenate([values, old_vals[keep]]),
            )
    idx = _prim.index_dtype(keys.size, nrows, ncols)
    indptr, indices = _prim.csr_from_sorted_keys(xp, keys, nrows, ncols, idx)
    out._set_content(indptr, indices, values.astype(out.dtype, copy=False))
    return out


def accumulate_keys(xp: Any, old_keys: Any, old_vals: Any, keys: Any, values: Any,
                    accum: BinaryOp, out_dtype: np.dtype) -> tuple[Any, Any]:
    """``Z = w ∪ T`` on ascending keys: ``accum(w, t)`` where both exist; an entry of only one
    keeps its own value (cast to ``out_dtype``), it does not pass through ``accum``'s type."""
    return _prim.union_keys(xp, old_keys, old_vals, keys, values,
                            lambda w, t: _accumulate(accum, w, t, out_dtype), out_dtype)


def check_output(out: Any, expected_type: type, shape: tuple[int, ...], op_name: str) -> None:
    """Raise unless ``out`` is None or an object of ``expected_type`` and ``shape``."""
    if out is None:
        return
    if not isinstance(out, expected_type):
        raise InvalidObject(f"{op_name}: out must be a {expected_type.__name__}, got "
                            f"{type(out).__name__}")  # fmt: skip
    if tuple(out.shape) != tuple(shape):
        raise DimensionMismatch(f"{op_name}: out has shape {tuple(out.shape)} but the result has "
                                f"shape {tuple(shape)}")  # fmt: skip

