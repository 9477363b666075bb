"""Masks, accumulation and replace: the one place an operation's result is written.

GraphBLAS C API 2.0 semantics. With result ``T`` of an operation and existing output ``w``:

1. ``Z = T`` or, with ``accum``, ``Z = w ∪ T`` where entries in both become ``accum(w, t)``;
2. where the mask allows, ``w`` becomes ``Z`` (an absent ``Z`` entry deletes ``w``'s entry);
   where it does not, ``w`` keeps its entry, or loses it if ``replace=True``.

``Z`` takes ``w``'s dtype: a result's value goes into it as it is cast (same kind: an integer
into a narrower integer, a float into float32), an accumulated one after ``accum`` ran on the
uncast operands. A value so cast must fit ``w``'s dtype, or the operation raises InvalidValue
(as a scalar 1000 assigned into int8 does), before the mask decides where ``Z`` is written;
the pass that checks it runs only where ``w``'s dtype is narrower than the values'.

A value mask allows where the mask entry is present and nonzero; a structural mask (``m.S``)
where it is present; ``~`` complements either. Everything is computed into new arrays and
swapped into ``w`` at the very end, so an operation that raises leaves ``w`` unchanged. The
dense executor's GPU kernels apply the same rules in their last pass instead (but into a
narrower ``w``, whose values are checked here).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import xp_for
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..device import arrays as _prim
from ..device import csr_merge as _merge
from ..errors import InvalidValue
from ..operators.classes import BinaryOp
from .spec import OutputSpec

__all__ = [
    "accum_type",
    "write_vector",
    "write_matrix",
    "new_sparse_vector",
    "accumulate_keys",
    "matrix_keys",
    "narrower",
    "check_fits",
    "cast_into_out",
]


def accum_type(
    accum: BinaryOp, old_dtype: np.dtype, new_dtype: np.dtype, out_dtype: np.dtype
) -> np.dtype:
    """The type ``accum`` combines old and new values in; DomainMismatch if its result cannot
    be stored in ``out_dtype``."""
    op_type = accum.input_type(old_dtype, new_dtype)
    _dt.check_cast(accum.output_type(op_type), out_dtype, argument="out (after accum)")
    return op_type


def narrower(source: np.dtype, target: np.dtype) -> bool:
    """Whether ``target`` (an out's dtype) may not hold every value of ``source``."""
    return source != target and not np.can_cast(source, target, "safe")


def check_fits(xp: Any, values: Any, dtype: np.dtype) -> None:
    """InvalidValue unless every one of ``values`` (cast into an out of ``dtype``, narrower)
    fits it, as a scalar 1000 into int8 does not: an integer out of ``dtype``'s range, a
    finite float beyond its largest (rounding is fine)."""
    if values.size == 0:
        return
    if dtype.kind in "iu":  # from integers (floats into integers are refused before)
        low, high = _dt.int_range(dtype)
        least, most = values.min().item(), values.max().item()
        if least < low or most > high:
            raise InvalidValue(
                f"out has dtype {dtype.name}; a value cast into it, "
                f"{least if least < low else most}, does not fit (its values lie in "
                f"[{low}, {high}])"
            )
    elif values.dtype.kind == "f":  # a float into a narrower float
        top = _dt.float_max(dtype)
        over = xp.isfinite(values) & (xp.abs(values) > top)
        if bool(over.any()):
            raise InvalidValue(
                f"out has dtype {dtype.name}; a value cast into it, "
                f"{values[over][0].item()!r}, does not fit (its largest value is {top:.6g})"
            )


def _accumulate(
    xp: Any, accum: BinaryOp, old: Any, new: Any, out_dtype: np.dtype, written: Any = None
) -> Any:
    """``accum(old, new)`` cast into ``out_dtype``; its values where ``written`` (all when
    None) must fit a narrower ``out_dtype``."""
    op_type = accum_type(accum, old.dtype, new.dtype, out_dtype)
    combined = accum.numpy(old.astype(op_type, copy=False), new.astype(op_type, copy=False))
    if narrower(combined.dtype, out_dtype):
        check_fits(xp, combined if written is None else combined[written], out_dtype)
    return combined.astype(out_dtype, copy=False)


# --- vectors: bitmap arithmetic -------------------------------------------------------------


def write_vector(spec: OutputSpec, values: Any, present: Any, *, nnz: int | None = None) -> Vector:
    """Write a bitmap result ``(values, present)`` as ``spec`` says.

    Returns ``spec.out`` (updated in place) or, without one, a new Vector (taking the arrays).
    ``nnz`` is the number of present results when the caller knows it (saves a count on the
    device).
    """
    mask, accum, out = spec.mask, spec.accum, spec.out
    size = values.size
    if out is None:
        if mask is not None:
            present = present & mask.allowed()
            nnz = None
        return Vector.wrap_bitmap(values, present, backend=spec.backend, nnz=nnz)
    _dt.check_cast(values.dtype, out.dtype)
    xp = out.xp
    old_values, old_present = out.as_bitmap()
    if accum is not None:
        both = old_present & present
        if narrower(values.dtype, out.dtype):  # the result's values cast into out's dtype
            check_fits(xp, values[present & ~old_present], out.dtype)
        z_values = xp.where(present, values.astype(out.dtype, copy=False), old_values)
        if bool(both.any()):
            combined = _accumulate(xp, accum, old_values, values, out.dtype, both)
            z_values = xp.where(both, combined, z_values)
        z_present = old_present | present
    else:
        if narrower(values.dtype, out.dtype):
            check_fits(xp, values[present], out.dtype)
        z_values, z_present = values.astype(out.dtype, copy=False), present
    if mask is None:
        new_values, new_present = z_values, z_present
    else:
        allowed = mask.allowed()
        kept = old_present & ~allowed if not spec.replace else xp.zeros(size, dtype=bool)
        new_present = (z_present & allowed) | kept
        new_values = xp.where(allowed, z_values, old_values)
    out.set_storage(bitmap=(new_values.astype(out.dtype, copy=False), new_present))
    return out


def new_sparse_vector(spec: OutputSpec, size: int, ids: Any, values: Any) -> Vector:
    """A new vector of the sorted entries ``ids`` / ``values`` (arrays taken) that ``spec``'s
    mask allows (``spec`` has no ``out``): with nothing to write through, a sparse result
    needs no pass over every position."""
    if spec.mask is not None:
        keep = spec.mask.allowed_at(ids)
        ids, values = ids[keep], values[keep]
    return Vector(
        size, values.dtype, backend=spec.backend, sparse=(ids, values), nnz=int(ids.size)
    ).settle()


# --- matrices: sorted linear keys ------------------------------------------------------------


def matrix_keys(A: Matrix) -> Any:  # noqa: N803
    """The linear keys ``row * ncols + col`` of ``A``'s entries, ascending (int64)."""
    return _prim.csr_keys(A.xp, A.indptr, A.indices, A.nrows, A.ncols)


def write_matrix(
    spec: OutputSpec,
    keys: Any,
    values: Any,
    shape: tuple[int, int],
    mask_keys: Any | None = None,
) -> Matrix:
    """Write a result given as ascending linear keys (row * ncols + col) and values as
    ``spec`` says. ``mask_keys``: the mask's keys (:meth:`Mask.keys`) where the caller has
    them already (a result written under its own pattern).

    Returns ``spec.out`` (updated in place) or, without one, a new Matrix.
    """
    mask, accum, out = spec.mask, spec.accum, spec.out
    nrows, ncols = shape
    if out is not None:
        xp = out.xp
    else:
        xp = mask.parent.xp if mask is not None else xp_for(spec.backend)
    if mask is not None:
        mkeys = mask.keys() if mask_keys is None else mask_keys
    if out is None:
        if mask is not None:
            keys, values = _allowed(xp, mkeys, mask.complement, keys, values)
        idx = _prim.index_dtype(keys.size, nrows, ncols)
        indptr, indices = _prim.csr_from_sorted_keys(xp, keys, nrows, ncols, idx)
        return Matrix(indptr, indices, values, shape, backend=spec.backend)
    _dt.check_cast(values.dtype, out.dtype)
    if accum is not None:  # the result's values go into accum as they are
        old_keys = _prim.csr_keys(xp, out.indptr, out.indices, nrows, ncols)
        keys, values = accumulate_keys(xp, old_keys, out.values, keys, values, accum, out.dtype)
        del old_keys
    else:
        values = cast_into_out(xp, values, out.dtype)
    if mask is not None:
        keys, values = _allowed(xp, mkeys, mask.complement, keys, values)
        if not spec.replace:
            # out's entries outside the mask's reach stay: merged with the allowed new ones a
            # run of rows at a time (no key of each of out's entries, nor of the union, at once)
            in_mask = _merge.in_keys(xp, out.indptr, out.indices, ncols, mkeys)
            keep = in_mask if mask.complement else ~in_mask
            del in_mask
            if bool(keep.all()):
                keep = None
            idx = _prim.index_dtype(out.nnz + keys.size, nrows, ncols)
            indptr, indices, merged = _merge.merge_disjoint(
                xp, out.indptr, out.indices, out.values, keep, keys, values, shape, idx
            )
            out.set_storage(indptr, indices, merged)
            return out
    idx = _prim.index_dtype(keys.size, nrows, ncols)
    indptr, indices = _prim.csr_from_sorted_keys(xp, keys, nrows, ncols, idx)
    out.set_storage(indptr, indices, values.astype(out.dtype, copy=False))
    return out


def _allowed(xp: Any, mask_keys: Any, complement: bool, keys: Any, values: Any) -> tuple:
    """The entries (ascending ``keys``, ``values``) a mask of ``mask_keys`` allows; the arrays
    themselves where it allows all (no copies)."""
    if mask_keys is keys:  # written under its own pattern: each key is the mask's
        return (keys[:0], values[:0]) if complement else (keys, values)
    allowed = _prim.member(xp, mask_keys, keys)
    if complement:
        allowed = ~allowed
    if bool(allowed.all()):
        return keys, values
    return keys[allowed], values[allowed]


def accumulate_keys(
    xp: Any,
    old_keys: Any,
    old_vals: Any,
    keys: Any,
    values: Any,
    accum: BinaryOp,
    out_dtype: np.dtype,
) -> tuple[Any, Any]:
    """``Z = w ∪ T`` on ascending keys: ``accum(w, t)`` where both exist; an entry of only one
    keeps its own value (cast to ``out_dtype``), it does not pass through ``accum``'s type.
    InvalidValue if a value cast into a narrower ``out_dtype`` (T's own, or accumulated) does
    not fit it."""
    if narrower(values.dtype, out_dtype):
        check_fits(xp, values[~_prim.member(xp, old_keys, keys)], out_dtype)
    return _prim.union_keys(
        xp,
        old_keys,
        old_vals,
        keys,
        values,
        lambda w, t: _accumulate(xp, accum, w, t, out_dtype),
        out_dtype,
    )


def cast_into_out(xp: Any, values: Any, dtype: np.dtype) -> Any:
    """``values`` (each one written) cast into an out of ``dtype``; InvalidValue where one does
    not fit a narrower ``dtype`` (:func:`check_fits`)."""
    if narrower(values.dtype, dtype):
        check_fits(xp, values, dtype)
    return values.astype(dtype, copy=False)
