"""Indexing: ``extract`` (a sub-vector, sub-matrix, row or column), ``assign`` (write into a
region) and ``transpose``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import names_oom
from ..containers.matrix import Matrix
from ..containers.vector import SPARSE_BELOW, Vector
from ..device import arrays as _prim
from ..device import indexed as _indexed
from ..errors import DimensionMismatch, InvalidObject, InvalidValue
from ..operators import NAMESPACES
from ..operators.classes import BinaryOp, Monoid
from . import checks
from .output import (
    accumulate_keys,
    cast_into_out,
    check_fits,
    matrix_keys,
    narrower,
    write_matrix,
    write_vector,
)
from .spec import OutputSpec, output_spec
from .transform import entries

__all__ = ["extract", "assign", "transpose"]


def _submatrix_keys(A: Matrix, rows: Any, cols: Any) -> tuple[Any, Any, Any]:  # noqa: N803
    """(row slot, col slot, value) of every entry of ``A[rows, cols]`` (repeats allowed)."""
    xp = A.xp
    starts = A.indptr.astype(np.int64)
    counts = starts[rows + 1] - starts[rows]
    slot_r = _prim.expand(xp, counts)
    first = xp.cumsum(counts) - counts
    pos = starts[rows][slot_r] + (xp.arange(int(counts.sum()), dtype=np.int64) - first[slot_r])
    entry_cols = A.indices[pos].astype(np.int64)
    order = xp.argsort(cols)
    sorted_cols = cols[order]
    lo = xp.searchsorted(sorted_cols, entry_cols, side="left")
    hi = xp.searchsorted(sorted_cols, entry_cols, side="right")
    hits = hi - lo
    which = _prim.expand(xp, hits)
    first_hit = xp.cumsum(hits) - hits
    slot_c = order[lo[which] + (xp.arange(int(hits.sum()), dtype=np.int64) - first_hit[which])]
    return slot_r[which], slot_c, A.values[pos[which]]


def _row_range(A: Matrix, rows: Any, cols: Any) -> Matrix | None:  # noqa: N803
    """``A[start:stop, :]`` (rows a slice of step 1, every column) as a copy of the CSR's own
    slice: no keys made or sorted, memory of the block only. None for any other index."""
    every_column = cols is None or (isinstance(cols, slice) and cols == slice(None))
    if not isinstance(rows, slice) or not every_column:
        return None
    start, stop, step = checks.slice_bounds(rows, A.nrows, "rows")
    if step != 1:
        return None
    stop = max(stop, start)
    lo, hi = int(A.indptr[start]), int(A.indptr[stop])
    indptr = A.indptr[start : stop + 1] - A.indptr[start]
    indices, values = A.indices[lo:hi].copy(), A.values[lo:hi].copy()
    return Matrix(indptr, indices, values, (stop - start, A.ncols), backend=A.backend)


@names_oom("extract")
def extract(
    x: Any,
    *indices: Any,
    mask: Any = None,
    accum: Any = None,
    replace: bool = False,
    out: Any = None,
) -> Any:
    """Sub-vector ``u[I]``, sub-matrix ``A[I, J]``, or a row / column of a Matrix as a Vector.

    Parameters
    ----------
    x : Vector or Matrix
    *indices
        One index for a Vector, two (rows, cols) for a Matrix; each None (all), a slice, an
        int, an array of ints (repeats allowed), or an index Vector of integers (its entries'
        values, in the order of their positions). An int row or column gives a Vector.
        Extracting from a Vector by an array or an index Vector is a gather
        (``u[I]``): on the GPU one kernel pass, which also checks the positions.
    mask, accum, replace, out
        As in :func:`~hyblas.ops.mxv`.

    Raises
    ------
    IndexOutOfBounds
        For a position outside ``x``.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 0], [1.0, 2.0, 3.0, 4.0], nrows=3, ncols=3)
    >>> print(hb.ops.extract(A, [0, 1], None))  # rows 0 and 1, every column
    hyblas.Matrix(nrows=2, ncols=3, nnz=3, dtype=float64, backend='cpu')
      {(0,1): 1.0, (0,2): 2.0, (1,2): 3.0}
    >>> print(hb.ops.extract(A, 0, None))  # row 0 as a Vector
    hyblas.Vector(size=3, nnz=2, dtype=float64, backend='cpu', format='bitmap')
      {1: 1.0, 2: 2.0}
    >>> f = hb.Vector.from_dense(np.array([0, 0, 1, 2]))  # parents
    >>> hb.ops.extract(f, f).to_dense()  # by an index Vector: the grandparents f[f]
    array([0, 0, 0, 1])
    """
    checks.container(x, (Vector, Matrix), "x")
    xp = x.xp
    if isinstance(x, Vector):
        if len(indices) != 1:
            raise InvalidValue(f"extract from a Vector takes one index, got {len(indices)}")
        idx, _ = checks.index_array(xp, indices[0], x.size, "indices", bounds=False)
        spec = output_spec(
            "extract", Vector, (idx.size,), mask=mask, accum=accum, replace=replace, out=out, x=x
        )
        values, present = x.as_bitmap()
        return write_vector(spec, *_indexed.gather(xp, values, present, idx))
    if len(indices) != 2:
        raise InvalidValue(f"extract from a Matrix takes (rows, cols), got {len(indices)} indices")
    if mask is None and accum is None and out is None:
        block = _row_range(x, *indices)
        if block is not None:
            return block
    rows, row_scalar = checks.index_array(xp, indices[0], x.nrows, "rows")
    cols, col_scalar = checks.index_array(xp, indices[1], x.ncols, "cols")
    slot_r, slot_c, values = _submatrix_keys(x, rows, cols)
    if row_scalar or col_scalar:
        if row_scalar and col_scalar:
            raise InvalidValue("extract of a single element: use A[i, j] via to_coo or select")
        size = cols.size if row_scalar else rows.size
        slots = slot_c if row_scalar else slot_r
        spec = output_spec(
            "extract", Vector, (size,), mask=mask, accum=accum, replace=replace, out=out, x=x
        )
        out_values, present = _prim.to_bitmap(xp, size, slots, values.astype(x.dtype, copy=False))
        return write_vector(spec, out_values, present)
    shape = (rows.size, cols.size)
    spec = output_spec(
        "extract", Matrix, shape, mask=mask, accum=accum, replace=replace, out=out, x=x
    )
    keys, values = _prim.sort_by_keys(xp, slot_r * np.int64(max(cols.size, 1)) + slot_c, values)
    return write_matrix(spec, keys, values, shape)


def _unique_or_raise(xp: Any, idx: Any, argument: str) -> None:
    if idx.size > 1 and int(xp.unique(idx).size) != idx.size:
        raise InvalidValue(f"assign: {argument} holds repeated indices")


@names_oom("assign")
def assign(
    out: Any, value: Any, *indices: Any, mask: Any = None, accum: Any = None, replace: bool = False
) -> Any:
    """``out<mask>(I[, J]) ⊙= value`` (GrB_assign): write a Vector, Matrix or scalar into a
    region of ``out``.

    Parameters
    ----------
    out : Vector or Matrix
        Updated in place and returned.
    value : Vector, Matrix or scalar
        Shaped like the region; a scalar fills every position of the region. Its values must
        fit ``out``'s dtype (InvalidValue otherwise: 1000 into int8), and be of a kind it
        takes (DomainMismatch otherwise: floats into integers).
    *indices
        As in :func:`extract`; an int row/column with a Vector value writes into that
        row/column. Into a Vector by an array or an index Vector this is a scatter (on the
        GPU one kernel pass, which also checks the positions). A repeated position is
        refused (``InvalidValue``: GrB_assign leaves its result undefined), except into a
        Vector with an ``accum`` that is a monoid's operator on ``out``'s dtype (``min``,
        ``plus``...) and a value of that dtype: then every value listed for the position is
        folded into it, in any order, as SuiteSparse:GraphBLAS does.
    mask : optional
        Shaped like ``out`` (the whole of it, as in GrB_assign).
    accum, replace
        As in :func:`~hyblas.ops.mxv`. Without ``accum``, positions of the region where
        ``value`` has no entry lose theirs.

    Examples
    --------
    >>> w = hb.Vector.from_coo([0], [1.0], size=4)
    >>> print(hb.ops.assign(w, 9.0, [2, 3]))  # a scalar fills the region
    hyblas.Vector(size=4, nnz=3, dtype=float64, backend='cpu', format='bitmap')
      {0: 1.0, 2: 9.0, 3: 9.0}
    >>> value = hb.Vector.from_coo([0], [5.0], size=2)
    >>> print(hb.ops.assign(w, value, [2, 0]))  # without accum, w[0] gets value[1]: no entry
    hyblas.Vector(size=4, nnz=2, dtype=float64, backend='cpu', format='bitmap')
      {2: 5.0, 3: 9.0}
    >>> f = hb.Vector.from_dense(np.array([0, 0, 1, 2]))  # parents
    >>> offers = hb.Vector.from_dense(np.array([3, 2, 0, 0]))
    >>> hb.ops.assign(f, offers, f, accum=hb.binary.min).to_dense()  # f[f[u]] min= offers[u]
    array([0, 0, 0, 2])
    """
    checks.container(out, (Vector, Matrix), "out")
    xp = out.xp
    is_scalar = not isinstance(value, Vector | Matrix)
    if is_scalar:
        _dt.check_real_scalar(value, argument="assign: value")
        if type(value) is int and out.dtype.kind in "iu":  # weak: checked by its value below
            value_dtype = out.dtype
        else:
            value_dtype = _dt.lookup(_dt.dtype_of(value), argument="assign: value")
    else:
        value_dtype = value.dtype
    # the accumulator combines into the region only (below): the spec writes without one
    spec = output_spec(
        "assign",
        type(out),
        out.shape,
        mask=mask,
        replace=replace,
        out=out,
        value=None if is_scalar else value,
    )
    m = spec.mask
    _dt.check_cast(value_dtype, out.dtype, argument="out")
    if is_scalar:  # DomainMismatch if it does not fit (1000 into int8)
        value = _dt.scalar(value, out.dtype, argument="assign: value")
    accum_op = None if accum is None else checks.binary_of(accum, "accum")
    if isinstance(out, Vector):
        if len(indices) != 1:
            raise InvalidValue(f"assign into a Vector takes one index, got {len(indices)}")
        if (
            is_scalar
            and indices[0] is None
            and accum_op is None
            and not replace
            and m is not None
            and m.structural
            and not m.complement
        ):
            return _assign_scalar_where(out, value, m.parent)
        if is_scalar and accum_op is None and m is None and out.format == "sparse":
            idx, _ = checks.index_array(xp, indices[0], out.size, "indices")
            _unique_or_raise(xp, idx, "indices")
            return _assign_scalar_sparse(out, value, idx)
        idx, _ = checks.index_array(xp, indices[0], out.size, "indices", bounds=False)
        if is_scalar:
            region_values = xp.full(idx.size, value, dtype=out.dtype)
            region_present = xp.ones(idx.size, dtype=bool)
        else:
            if value.size != idx.size:
                raise DimensionMismatch(
                    f"assign: value has size {value.size} but the region has {idx.size} positions"
                )
            region_values, region_present = value.as_bitmap()
        old_values, old_present = out.as_bitmap()
        folding = None if accum_op is None else _folding_monoid(accum_op, region_values, out)
        if accum_op is None:
            if narrower(region_values.dtype, out.dtype):  # a value cast into out must fit
                check_fits(xp, region_values[region_present], out.dtype)
            z_values, z_present = _indexed.scatter(
                xp,
                old_values,
                old_present,
                idx,
                region_values.astype(out.dtype, copy=False),
                region_present,
            )
        elif folding is not None:  # repeated positions fold every value listed for them
            z_values, z_present = _indexed.scatter_combine(
                xp, old_values, old_present, idx, region_values, region_present, folding
            )
        else:
            checks.index_array(xp, idx, out.size, "indices")  # the bounds
            if idx.size > 1 and int(xp.unique(idx).size) != idx.size:
                raise InvalidValue(
                    f"assign: indices holds repeated indices, and accum={accum_op.name} is no "
                    "monoid's operator on these types to fold them with"
                )
            z_values, z_present = old_values.copy(), old_present.copy()
            patch = Vector.wrap_bitmap(old_values[idx], old_present[idx], backend=out.backend)
            write_vector(
                OutputSpec(backend=out.backend, out=patch, accum=accum_op),
                region_values,
                region_present,
            )
            z_values[idx], z_present[idx] = patch.as_bitmap()
        return write_vector(spec, z_values, z_present)
    return _assign_matrix(out, value, is_scalar, indices, spec, accum_op)


def _folding_monoid(accum: BinaryOp, region_values: Any, out: Vector) -> Monoid | None:
    """The monoid whose operator ``accum`` is, where it folds values of ``out``'s dtype as
    they are and the region's values are of that dtype: then repeated positions are folded
    (associative and commutative, so in any order), as SuiteSparse:GraphBLAS does. None
    otherwise."""
    monoid = NAMESPACES["monoid"].get(accum.name)
    dtype = out.dtype
    if (
        monoid is None
        or monoid.binaryop is not accum
        or region_values.dtype != dtype
        or dtype not in monoid.types
        or monoid.cast_inputs_to not in (None, dtype)
        or accum.input_type(dtype, dtype) != dtype
        or accum.output_type(dtype) != dtype
    ):
        return None
    return monoid


def _assign_scalar_sparse(out: Vector, value: Any, idx: Any, *, ascending: bool = False) -> Vector:
    """``out(idx) = value`` into a sparse ``out``, no mask: a merge of the indices (sorted
    here unless ``ascending``) into its keys (O(entries + indices); no bitmap over ``out``'s
    size), a BFS's first level."""
    xp = out.xp
    keys, vals = out.stored_sparse
    idx = (idx if ascending else xp.sort(idx)).astype(keys.dtype, copy=False)
    fill = xp.full(idx.size, value, dtype=out.dtype)
    if keys.size:
        keys, fill = _prim.union_keys(xp, keys, vals, idx, fill, lambda _, new: new, out.dtype)
    else:
        keys = idx
    out.set_storage(sparse=(keys, fill), nnz=int(keys.size))
    return out


def _assign_scalar_where(out: Vector, value: Any, where: Vector) -> Vector:
    """``out<where.S> = value``: only the mask's entries are written, the level update of a
    BFS. Into a sparse ``out`` from a mask with few entries, a merge of the mask's keys
    (O(entries)); otherwise elementwise over bitmaps into new arrays (no copy of ``out``
    first, no list of the mask's positions)."""
    if (
        out.stored_sparse is not None
        and where.stored_sparse is not None
        and (out.nnz + where.nnz) * SPARSE_BELOW < out.size
    ):
        return _assign_scalar_sparse(out, value, where.stored_sparse[0], ascending=True)
    xp = out.xp
    old_values, old_present = out.as_bitmap()
    if where.stored_bitmap is not None:
        written = where.stored_bitmap[1]
    else:
        written = xp.zeros(out.size, dtype=bool)
        written[where.stored_sparse[0]] = True
    values = xp.where(written, out.dtype.type(value), old_values)
    out.set_storage(bitmap=(values, old_present | written))
    return out


def _assign_matrix(
    out: Matrix,
    value: Any,
    is_scalar: bool,
    indices: tuple,
    spec: OutputSpec,
    accum_op: BinaryOp | None,
) -> Matrix:
    xp = out.xp
    if len(indices) != 2:
        raise InvalidValue(f"assign into a Matrix takes (rows, cols), got {len(indices)} indices")
    rows, row_scalar = checks.index_array(xp, indices[0], out.nrows, "rows")
    cols, col_scalar = checks.index_array(xp, indices[1], out.ncols, "cols")
    _unique_or_raise(xp, rows, "rows")
    _unique_or_raise(xp, cols, "cols")
    ncols = np.int64(max(out.ncols, 1))
    if is_scalar:
        grid_r = xp.repeat(rows, cols.size)
        grid_c = xp.tile(cols, rows.size)
        new_keys = grid_r * ncols + grid_c
        new_values = xp.full(new_keys.size, value, dtype=out.dtype)
    elif isinstance(value, Vector):
        if not (row_scalar or col_scalar):
            raise InvalidObject(
                "assign: a Vector value goes into one row or one column; give "
                "an int row or column index"
            )
        line = cols if row_scalar else rows
        if value.size != line.size:
            raise DimensionMismatch(
                f"assign: value has size {value.size} but the region has {line.size} positions"
            )
        idx, new_values = value.as_sparse()
        placed = line[idx]
        new_keys = rows[0] * ncols + placed if row_scalar else placed * ncols + cols[0]
    else:
        if value.shape != (rows.size, cols.size):
            raise DimensionMismatch(
                f"assign: value has shape {value.shape} but the region is {rows.size}x{cols.size}"
            )
        r, c, new_values = entries(value)
        new_keys = rows[r] * ncols + cols[c]
    if accum_op is None:  # (with accum, accumulate_keys casts: they go into it as they are)
        new_values = cast_into_out(xp, new_values, out.dtype)
    new_keys, new_values = _prim.sort_by_keys(xp, new_keys, new_values)
    old_keys = matrix_keys(out)
    old_rows, old_cols = old_keys // ncols, old_keys % ncols
    in_region = _prim.member(xp, xp.sort(rows), old_rows) & _prim.member(
        xp, xp.sort(cols), old_cols
    )
    if accum_op is not None:
        new_keys, new_values = accumulate_keys(
            xp,
            old_keys[in_region],
            out.values[in_region],
            new_keys,
            new_values,
            accum_op,
            out.dtype,
        )
    z_keys, z_values = _prim.sort_by_keys(
        xp,
        xp.concatenate([old_keys[~in_region], new_keys]),
        xp.concatenate([out.values[~in_region], new_values.astype(out.dtype, copy=False)]),
    )
    return write_matrix(spec, z_keys, z_values, out.shape)


@names_oom("transpose")
def transpose(
    A: Matrix,
    *,
    mask: Any = None,
    accum: Any = None,
    replace: bool = False,  # noqa: N803
    out: Matrix | None = None,
) -> Matrix:
    """``C<mask> ⊙= Aᵀ``. Without mask, accum or out, this is ``A.T.dup()``.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 0], [1.0, 2.0, 3.0, 4.0], nrows=3, ncols=3)
    >>> print(hb.ops.transpose(A))
    hyblas.Matrix(nrows=3, ncols=3, nnz=4, dtype=float64, backend='cpu')
      {(0,2): 4.0, (1,0): 1.0, (2,0): 2.0, (2,1): 3.0}
    """
    checks.container(A, (Matrix,), "A")
    shape = (A.ncols, A.nrows)
    spec = output_spec(
        "transpose", Matrix, shape, mask=mask, accum=accum, replace=replace, out=out, A=A
    )
    t = A.T
    return write_matrix(spec, matrix_keys(t), t.values.copy(), shape)
