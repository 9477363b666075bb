"""Entry-by-entry operations: ``apply`` (an operator on every entry) and ``select`` (keep the
entries an index-unary test accepts)."""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import names_oom
from ..containers.derived import known_symmetric, mark_symmetric
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..device import arrays as _prim
from ..errors import DomainMismatch, InvalidValue
from ..operators import catalogue as _catalogue
from ..operators.classes import BinaryOp, IndexUnaryOp, UnaryOp
from ..operators.registry import NAMESPACES
from . import checks
from .output import matrix_keys, new_sparse_vector, write_matrix, write_vector
from .spec import OutputSpec, output_spec

__all__ = ["apply", "select"]

#: About the most entries of a Matrix whose row and column ids (and running counts of kept
#: entries) ``select`` makes at once: a run of whole rows at a time.
ROW_PART = 1 << 24


def entries(x: Any) -> tuple[Any, Any, Any]:
    """(rows, cols, values) of a Matrix's entries; (indices, zeros, values) of a Vector's."""
    xp = x.xp
    if isinstance(x, Vector):
        idx, vals = x.as_sparse()
        return idx, xp.zeros_like(idx), vals
    return _prim.row_ids(xp, x.indptr, x.nrows), x.indices.astype(np.int64), x.values


def _rebuild(x: Any, keep: Any, values: Any, spec: OutputSpec) -> Any:
    """Write the entries of ``x`` selected by ``keep`` (None: all) with new ``values``
    (one value per kept entry) as ``spec`` says."""
    xp = x.xp
    if isinstance(x, Vector):
        idx, _ = x.as_sparse()
        if keep is not None:
            idx = idx[keep]
        if spec.out is None:
            if keep is None:  # x's own arrays (apply's values too, cast with copy=False)
                idx, values = idx.copy(), values.copy()
            return new_sparse_vector(spec, x.size, idx, values)
        out_values, present = _prim.to_bitmap(xp, x.size, idx, values)
        return write_vector(spec, out_values, present)
    if spec.bare:
        return _compacted(x, keep, values)
    keys = matrix_keys(x)
    if keep is not None:
        keys = keys[keep]
    mask = spec.mask
    # written under its own pattern (levels<F.S> = depth): the mask's keys are these
    own = keep is None and mask is not None and mask.parent is x and mask.structural
    return write_matrix(spec, keys, values, x.shape, mask_keys=keys if own else None)


def _compacted(x: Matrix, keep: Any, values: Any) -> Matrix:
    """A new Matrix of the entries of ``x`` selected by ``keep`` (None: all), with ``values``:
    its CSR compacted as it is (each row's kept entries are in order already), not rebuilt
    from linear keys (three int64 arrays of ``x``'s entries less)."""
    xp = x.xp
    if keep is None:
        indptr, indices = x.indptr.copy(), x.indices.copy()
        if xp.may_share_memory(values, x.values):  # an operator that returned its operand
            values = values.copy()
        return Matrix(indptr, indices, values, x.shape, backend=x.backend)
    indptr = _prim.sums_before_rows(xp, x.indptr, keep, ROW_PART)
    idx = _prim.index_dtype(int(values.size), *x.shape)
    indices = x.indices[keep].astype(idx, copy=False)
    return Matrix(indptr.astype(idx, copy=False), indices, values, x.shape, backend=x.backend)


def _quiet(placeholders: bool) -> Any:
    """Silence floating-point warnings when an op also runs on absent positions' placeholders."""
    return _prim.quiet_placeholders() if placeholders else contextlib.nullcontext()


@names_oom("apply")
def apply(
    x: Any,
    op: UnaryOp | BinaryOp | str,
    *,
    left: Any = None,
    right: Any = None,
    mask: Any = None,
    accum: Any = None,
    replace: bool = False,
    out: Any = None,
) -> Any:
    """Apply an operator to every entry: ``op(x)``, or ``op(left, x)`` / ``op(x, right)``.

    Parameters
    ----------
    x : Vector or Matrix
    op : UnaryOp, BinaryOp or str
        A typed UnaryOp casts: ``apply(x, unary.identity[np.float64])``.
    left, right : scalar, optional
        Bind one side of a BinaryOp to a scalar (exactly one, for a BinaryOp).
    mask, accum, replace, out
        As in :func:`~hyblas.ops.mxv`.

    Examples
    --------
    >>> v = hb.Vector.from_coo([0, 2], [-1.5, 4.0], size=3)
    >>> print(hb.ops.apply(v, hb.unary.abs))
    hyblas.Vector(size=3, nnz=2, dtype=float64, backend='cpu', format='bitmap')
      {0: 1.5, 2: 4.0}
    >>> print(hb.ops.apply(v, hb.binary.times, right=2.0))  # op(x, right) for every entry
    hyblas.Vector(size=3, nnz=2, dtype=float64, backend='cpu', format='bitmap')
      {0: -3.0, 2: 8.0}
    """
    found = checks.operator(op, (UnaryOp, BinaryOp), "op")
    checks.container(x, (Vector, Matrix), "x")
    spec = output_spec(
        "apply", type(x), x.shape, mask=mask, accum=accum, replace=replace, out=out, x=x
    )
    bitmap = isinstance(x, Vector) and x.format == "bitmap"
    if isinstance(x, Matrix):
        values = x.values  # the keys are not needed
    else:
        values = x.as_bitmap()[0] if bitmap else x.as_sparse()[1]
    xp = x.xp
    if isinstance(found, UnaryOp):
        if left is not None or right is not None:
            raise InvalidValue("apply: left= / right= bind a BinaryOp; op is a UnaryOp")
        op_type = found.input_type(x.dtype)
        if (
            _built_in(found) and found.name == "identity"
        ):  # a cast: one array, not a cast and its copy
            result = values.astype(op_type, copy=True)
        else:
            with _quiet(bitmap):
                result = found.numpy(values.astype(op_type, copy=False))
        result = xp.asarray(result).astype(found.output_type(op_type), copy=False)
    else:
        if (left is None) == (right is None):
            raise InvalidValue("apply with a BinaryOp needs exactly one of left= or right=")
        scalar = left if left is not None else right
        side = "left" if left is not None else "right"
        # a Python scalar is "weak" (NEP 50): int32 + 1 stays int32, float32 * 0.5 float32
        weak = isinstance(scalar, bool | int | float)
        if not weak:
            _dt.check_real_scalar(scalar, argument=f"apply: {side}")
        scalar_type = _dt.lookup(
            np.result_type(x.dtype, scalar) if weak else _dt.dtype_of(scalar),
            argument=f"apply: {side}",
        )
        op_type = found.input_type(x.dtype, scalar_type)
        # DomainMismatch if it does not fit the type the operator computes in
        scalar = _dt.scalar(scalar, op_type, argument=f"apply: {side}")
        bound = xp.full(values.shape, scalar, dtype=op_type)
        # a built-in that ignores the entries' values (second with right=) needs no cast of
        # them (a user operator's NumPy function may read what its CUDA expression does not)
        reads_own = not _built_in(found) or (found.reads_y if left is not None else found.reads_x)
        own = values.astype(op_type, copy=False) if reads_own else bound
        with _quiet(bitmap):
            result = found.numpy(bound, own) if left is not None else found.numpy(own, bound)
        del own, bound
        result = result.astype(found.output_type(op_type), copy=False)
    if bitmap:  # the op also ran on absent positions' placeholders; their results are dropped
        return write_vector(spec, result, x.as_bitmap()[1])
    return _rebuild(x, None, result, spec)


@names_oom("select")
def select(
    x: Any,
    op: IndexUnaryOp | str,
    thunk: Any = 0,
    *,
    mask: Any = None,
    accum: Any = None,
    replace: bool = False,
    out: Any = None,
) -> Any:
    """Keep the entries for which ``op(value, row, col, thunk)`` is true (GrB_select).

    Parameters
    ----------
    x : Vector or Matrix
    op : IndexUnaryOp or str
        ``tril``, ``triu``, ``diag``, ``offdiag`` (thunk = diagonal offset), ``rowle``,
        ``rowgt``, ``colle``, ``colgt`` (thunk = index), ``valueeq`` ... ``valuege``
        (thunk = value). For a Vector the row is the index and the column 0.
    thunk : scalar
        An integer for the index tests; a number (bool, int or float) for the value tests,
        compared exactly where it is an integer outside the range of integer values
        (``valuegt`` with 1000 on int8 values keeps none).
    mask, accum, replace, out
        As in :func:`~hyblas.ops.mxv`.

    Raises
    ------
    DomainMismatch
        If ``thunk`` is not an integer (index tests) or not a real number (value tests), or
        an integer beyond float64 for float values.
    InvalidObject
        If ``thunk`` is an array or a sequence.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 2], [5.0, 1.0, 7.0, 2.0])
    >>> print(hb.ops.select(A, "triu", 1))  # strictly above the diagonal
    hyblas.Matrix(nrows=3, ncols=3, nnz=2, dtype=float64, backend='cpu')
      {(0,1): 5.0, (1,2): 7.0}
    >>> print(hb.ops.select(A, hb.indexunary.valuegt, 3.0))
    hyblas.Matrix(nrows=3, ncols=3, nnz=2, dtype=float64, backend='cpu')
      {(0,1): 5.0, (1,2): 7.0}
    """
    found = checks.operator(op, (IndexUnaryOp,), "op")
    checks.container(x, (Vector, Matrix), "x")
    spec = output_spec(
        "select", type(x), x.shape, mask=mask, accum=accum, replace=replace, out=out, x=x
    )
    # checked (a built-in's made exact) before any pass; a small Python int is fine as it is
    if found.thunk is not None and not (type(thunk) is int and 0 <= thunk <= _SMALL):
        found, thunk = _checked_thunk(found, thunk, x)
    if isinstance(x, Vector) and x.format == "bitmap":  # it stays one: no compaction
        return _select_bitmap(x, found, thunk, spec)
    if isinstance(x, Matrix) and not _reads_indices(found):
        values = x.values  # a value test: no row and column id per entry to build
        keep = x.xp.asarray(found.numpy(values, None, None, thunk)).astype(bool)
    elif isinstance(x, Matrix):
        values = x.values
        keep = _index_test(x, found, thunk)
    else:
        rows, cols, values = entries(x)
        keep = x.xp.asarray(found.numpy(values, rows, cols, thunk)).astype(bool)
        del rows, cols
    result = _rebuild(x, keep, values[keep], spec)
    if spec.bare and _keeps_symmetry(x, found, thunk):
        mark_symmetric(result)
    return result


def _index_test(x: Matrix, op: IndexUnaryOp, thunk: Any) -> Any:
    """Whether ``op`` keeps each entry of ``x`` (bool per entry), its row and column ids made
    a run of rows at a time (three int64 arrays of every entry were more than twice the
    matrix)."""
    xp = x.xp
    keep = xp.empty(x.nnz, dtype=bool)
    for start, stop, lo, hi in _prim.row_runs(x.xp, x.indptr, ROW_PART):
        rows = _prim.run_row_ids(xp, x.indptr, start, stop, lo)
        cols = x.indices[lo:hi].astype(np.int64)
        keep[lo:hi] = xp.asarray(op.numpy(x.values[lo:hi], rows, cols, thunk)).astype(bool)
    return keep


def _keeps_symmetry(x: Any, op: IndexUnaryOp, thunk: Any) -> bool:
    """Whether ``select`` keeps a known symmetric structure symmetric: the built-in ``diag``
    and ``offdiag`` about the main diagonal keep ``(i, j)`` exactly when they keep ``(j, i)``
    (a value test need not: the two values may differ)."""
    if not (isinstance(x, Matrix) and known_symmetric(x)) or thunk != 0:
        return False
    builtin = _BUILTIN_TESTS.get(op.name)
    return op.name in ("diag", "offdiag") and builtin is not None and builtin.numpy is op.numpy


def _built_in(op: UnaryOp | BinaryOp | IndexUnaryOp) -> bool:
    """Whether ``op`` is one of hyblas's own operators (its NumPy function is the
    catalogue's, so its CUDA expression says what it reads)."""
    return getattr(op.numpy, "__module__", None) == _catalogue.__name__


def _reads_indices(op: IndexUnaryOp) -> bool:
    """Whether ``op``'s NumPy function reads the row and column ids: all but the built-in
    value tests (``valueeq`` ... ``valuege``), which compare the values with the thunk only."""
    return not (op.thunk == "value" and _built_in(op))


def _select_bitmap(x: Vector, op: IndexUnaryOp, thunk: Any, spec: OutputSpec) -> Vector:
    """``select`` of a bitmap Vector over its bitmap: the op runs on every position (absent
    ones' placeholders too; those results are dropped), and the kept flags are the present
    ones it accepts. The result settles into the storage its density suits; compacting the
    whole input first would cost a pass more (on the GPU, one that waits for the device)."""
    xp = x.xp
    values, present = x.as_bitmap()
    index = xp.arange(x.size, dtype=np.int64)
    with _quiet(True):
        accepted = xp.asarray(op.numpy(values, index, xp.zeros_like(index), thunk))
    keep = present & accepted.astype(bool, copy=False)
    # a new vector shares x's values, as apply's shares x's flags: stored arrays are replaced,
    # never written in place (only private working copies are)
    return write_vector(spec, values, keep)


# the built-in tests whose meaning select relies on to make a thunk exact
_BUILTIN_TESTS = NAMESPACES["indexunary"]
_ALWAYS, _NEVER = "valuege", "valuelt"  # with the values' smallest value: true / false for all
_BOOLS, _INTEGERS, _PYTHON_NUMBERS = (bool, np.bool_), (int, np.integer), (int, float)
_INT64 = np.dtype(np.int64)
# a Python int thunk in these bounds compares as it is with values of the dtype (weak, it
# takes the values' type: within an integer type's range; well within a float type's)
_AS_IT_IS = {
    dt: _dt.int_range(dt) if dt.kind in "iu" else _dt.int_range(_INT64) for dt in _dt.DTYPES
}
_SMALL = 127  # a thunk in 0..127 needs nothing: integer types hold it, bools compare as 0 / 1
_INDEX = 2**31  # an index thunk this small needs no clamping into int64 arithmetic


def _checked_thunk(op: IndexUnaryOp, thunk: Any, x: Any) -> tuple[IndexUnaryOp, Any]:
    """``(op, thunk)`` to run: DomainMismatch / InvalidObject for a thunk the op cannot take
    (:attr:`IndexUnaryOp.thunk`); for the built-in tests an equivalent pair whose thunk is
    exact in the values' (or indices') type, so that NumPy and CuPy compare alike."""
    if type(thunk) is int:  # a Python int: as it is where it needs nothing
        if op.thunk == "value":
            low, high = _AS_IT_IS[x.dtype]
            if low <= thunk <= high:
                return op, thunk
        elif -_INDEX <= thunk <= _INDEX:
            return op, thunk
    elif not isinstance(thunk, _dt.REAL_SCALARS):
        if not _dt.is_real_scalar(thunk):  # not one number
            if op.thunk == "index":
                _not_an_index(op, thunk)
            _dt.check_real_scalar(thunk, argument=f"select: {op.name}'s thunk")
        thunk = thunk.item()  # a 0-d array
    builtin = _BUILTIN_TESTS.get(op.name)
    builtin = builtin is not None and builtin.numpy is op.numpy
    if op.thunk == "index":
        if isinstance(thunk, _BOOLS) or not isinstance(thunk, _INTEGERS):
            _not_an_index(op, thunk)
        if not builtin:
            return op, int(thunk)
        # |col - row| < the largest extent: beyond it every test answers alike
        extent = max(x.shape) + 1
        return op, min(max(int(thunk), -extent), extent)
    if not builtin or isinstance(thunk, _BOOLS):
        return op, thunk
    return _exact_comparison(op, thunk, x.dtype)


def _not_an_index(op: IndexUnaryOp, thunk: Any) -> None:
    raise DomainMismatch(
        f"select: {op.name}'s thunk is an index or a diagonal offset, an integer; "
        f"got {_dt.short_repr(thunk)}"
    )


def _exact_comparison(op: IndexUnaryOp, thunk: Any, dtype: np.dtype) -> tuple[IndexUnaryOp, Any]:
    """A built-in value test with a number (not a bool): an integer thunk goes into integer
    values' own type, or, outside its range, where every value compares alike, becomes a test
    true (or false) for every value; with float values a Python number goes as the float it
    is cast to (as a float64 beyond the values' type)."""
    kind = dtype.kind
    if kind in "iub":
        if not isinstance(thunk, _INTEGERS):
            return op, thunk  # a float: compared in float64, as NumPy does
        k = int(thunk)
        low, high = _dt.int_range(dtype if kind != "b" else _INT64)
        if low <= k <= high:
            return op, (dtype.type(k) if kind != "b" else k)
        # every value lies on one side of k: the test gives the same for all (NumPy compares
        # an out-of-range Python int exactly; 0 stands for any value)
        zero = np.zeros(1, dtype=dtype if kind != "b" else _INT64)
        answer = bool(np.asarray(op.numpy(zero, zero, zero, k))[0])
        always = _BUILTIN_TESTS[_ALWAYS if answer else _NEVER]
        return always, dtype.type(low) if kind != "b" else False
    if isinstance(thunk, _PYTHON_NUMBERS):  # weak: NumPy would cast it to the values' type
        try:
            number = float(thunk)
        except OverflowError:
            raise DomainMismatch(
                f"select: {op.name}'s thunk {_dt.short_repr(thunk)} does not fit float64"
            ) from None
        if math.isfinite(number) and abs(number) > _dt.float_max(dtype):
            return op, np.float64(number)  # compared in float64, not overflowed to inf
        return op, number  # an int beyond int64 as the float it becomes (CuPy takes no such)
    return op, thunk
