"""The GraphBLAS operations.

Every operation takes ``mask=``, ``accum=``, ``replace=`` and ``out=`` with GraphBLAS C API 2.0
semantics (see :mod:`hyblas.ops.mask`) and returns ``out`` (updated in place) or a new object.
Arguments are checked before anything is computed, and the output is written only once the
result exists, so an operation that raises leaves ``out`` unchanged.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..errors import BackendError, DimensionMismatch, IndexOutOfBounds, InvalidObject, InvalidValue
from ..matrix import Matrix
from ..semiring.catalogue import NAMESPACES
from ..semiring.operators import BinaryOp, IndexUnaryOp, Monoid, Operator, Semiring, UnaryOp
from ..vector import SPARSE_BELOW, Vector
from . import hybrid as _hybrid
from . import mask as _mask
from . import primitives as _prim
from . import reference
from . import spgemm as _spgemm
from . import trace as _trace
from .dense import executor as _dense
from .kernels import ewise as _ewise_kernel
from .kernels import inner as _inner_kernel
from .pull import executor as _pull
from .sparse import executor as _sparse

__all__ = [
    "EXECUTORS",
    "mxv",
    "vxm",
    "mxm",
    "ewise_add",
    "ewise_mult",
    "apply",
    "select",
    "reduce_rows",
    "reduce_columns",
    "reduce_scalar",
    "inner",
    "extract",
    "assign",
    "transpose",
]

EXECUTORS = ("auto", "reference", "dense", "sparse", "pull")


# --- argument checking ----------------------------------------------------------------------


def _operator(op: Any, kinds: tuple[type, ...], argument: str) -> Operator:
    """A registered operator from an object or a name string, of one of ``kinds``."""
    if isinstance(op, str):
        for kind in kinds:
            table = NAMESPACES[kind.kind]
            if op in table:
                return table[op]
        wanted = " or ".join(k.kind for k in kinds)
        raise InvalidValue(f"{argument}={op!r} names no {wanted}")
    if not isinstance(op, kinds):
        wanted = " or ".join(k.__name__ for k in kinds)
        raise InvalidObject(f"{argument} must be a {wanted}, got {op!r}")
    return op


def _container(obj: Any, kinds: tuple[type, ...], argument: str) -> Any:
    if not isinstance(obj, kinds):
        wanted = " or ".join(k.__name__ for k in kinds)
        raise InvalidObject(f"{argument} must be a {wanted}, got {type(obj).__name__}")
    return obj


def _same_backend(op_name: str, **objects: Any) -> str:
    """The one backend all objects (masks included) live on; BackendError if they differ."""
    found = None
    for obj in objects.values():
        if obj is None:
            continue
        backend = _backend_of(obj)
        if found is None:
            found = backend
        elif backend != found:
            where = ", ".join(f"{k} on {_backend_of(v)!r}" for k, v in objects.items()
                              if v is not None)  # fmt: skip
            raise BackendError(f"{op_name}: objects live on different backends ({where}); "
                               "move them with .to_backend()")  # fmt: skip
    return found


def _backend_of(obj: Any) -> str:
    return (obj.parent if isinstance(obj, _mask.Mask) else obj).backend


def _check_mask_and_out(op_name: str, mask: Any, out: Any, kind: type,
                        shape: tuple[int, ...]) -> Any:  # fmt: skip
    mask = _mask.as_mask(mask)
    _mask.check_output(out, kind, shape, op_name)
    if mask is not None:
        if not isinstance(mask.parent, kind):
            raise InvalidObject(f"{op_name}: mask must be a {kind.__name__} (mask view), got "
                                f"{type(mask.parent).__name__}")  # fmt: skip
        if tuple(mask.parent.shape) != tuple(shape):
            raise DimensionMismatch(f"{op_name}: mask has shape {tuple(mask.parent.shape)} but "
                                    f"the output has shape {tuple(shape)}")  # fmt: skip
    return mask


def _check_executor(executor: str) -> None:
    if executor not in EXECUTORS:
        raise InvalidValue(f"executor must be one of {EXECUTORS}, got {executor!r}")


def _matrix_keys(m: Matrix) -> Any:
    return _prim.csr_keys(m._xp, m._indptr, m._indices, m.nrows, m.ncols)


def _write_vector(out: Vector | None, values: Any, present: Any, mask: Any, accum: Any,
                  replace: bool, backend: str, nnz: int | None = None) -> Vector:  # fmt: skip
    return _mask.write_vector(out, values, present, mask=mask, accum=accum, replace=replace,
                              backend=backend, nnz=nnz)  # fmt: skip


def _write_matrix(out: Matrix | None, keys: Any, values: Any, shape: tuple[int, int], mask: Any,
                  accum: Any, replace: bool, backend: str) -> Matrix:  # fmt: skip
    return _mask.write_matrix(out, keys, values, shape, mask=mask, accum=accum, replace=replace,
                              backend=backend)  # fmt: skip


# --- products -------------------------------------------------------------------------------


def mxv(
    A: Matrix,  # noqa: N803 - GraphBLAS / math spelling
    u: Vector,
    semiring: Semiring | str,
    *,
    mask: Any = None,
    accum: BinaryOp | None = None,
    replace: bool = False,
    out: Vector | None = None,
    executor: str = "auto",
) -> Vector:
    """Matrix-vector product ``w<mask> ⊙= A ⊕.⊗ u``: ``w_i = ⊕_j A_ij ⊗ u_j``.

    Parameters
    ----------
    A : Matrix
        ``m x n``.
    u : Vector
        Size ``n``.
    semiring : Semiring or str
        E.g. ``semiring.plus_times`` or ``"min_plus"``.
    mask : Vector or mask view, optional
        ``v`` (value), ``v.S`` (structural), ``~v.S`` / ``~v`` (complemented).
    accum : BinaryOp, optional
        Combines existing entries of ``out`` with the result.
    replace : bool
        Clear entries of ``out`` outside the mask.
    out : Vector, optional
        Size ``m``; updated in place and returned.
    executor : {'auto', 'reference', 'dense', 'sparse', 'pull'}
        Which executor runs the product: ``'reference'`` (the portable path); ``'dense'``, the
        2D-blocked two-phase SpMV (:mod:`hyblas.ops.dense`); ``'sparse'``, the push from
        ``u``'s entries over the in-degree-grouped layout, masked before any atomic
        (:mod:`hyblas.ops.sparse`); ``'pull'``, the outputs the mask allows reduce their rows
        and stop early where the monoid allows (:mod:`hyblas.ops.pull`). The fast executors
        run CUDA kernels on the GPU and NumPy emulations of the same walk on the CPU.
        ``'auto'`` asks the current policy (:func:`hyblas.set_policy`, see
        :mod:`hyblas.ops.hybrid`); :func:`hyblas.trace` records what it chose and why.

    Returns
    -------
    Vector
    """
    sr = _operator(semiring, (Semiring,), "semiring")
    _container(A, (Matrix,), "A")
    _container(u, (Vector,), "u")
    if u.size != A.ncols:
        raise DimensionMismatch(f"mxv: u has size {u.size} but A has {A.ncols} columns "
                                f"(A is {A.nrows}x{A.ncols}; (m,n),(n)->(m))")  # fmt: skip
    _check_executor(executor)
    m = _check_mask_and_out("mxv", mask, out, Vector, (A.nrows,))
    backend = _same_backend("mxv", A=A, u=u, mask=m, out=out)
    return _spmv(A, u, sr, flip=False, mask=m, accum=accum, replace=replace, out=out,
                 backend=backend, executor=executor)


def vxm(
    u: Vector,
    A: Matrix,  # noqa: N803
    semiring: Semiring | str,
    *,
    mask: Any = None,
    accum: BinaryOp | None = None,
    replace: bool = False,
    out: Vector | None = None,
    executor: str = "auto",
) -> Vector:
    """Vector-matrix product ``w<mask> ⊙= u ⊕.⊗ A``: ``w_j = ⊕_i u_i ⊗ A_ij``.

    The push step of a traversal: with ``A`` an adjacency matrix (rows = sources), ``u`` the
    frontier, ``w`` holds the neighbours. Parameters as in :func:`mxv` (``u`` has size
    ``A.nrows``, ``w`` size ``A.ncols``).
    """
    sr = _operator(semiring, (Semiring,), "semiring")
    _container(u, (Vector,), "u")
    _container(A, (Matrix,), "A")
    if u.size != A.nrows:
        raise DimensionMismatch(f"vxm: u has size {u.size} but A has {A.nrows} rows "
                                f"(A is {A.nrows}x{A.ncols}; (m),(m,n)->(n))")  # fmt: skip
    _check_executor(executor)
    m = _check_mask_and_out("vxm", mask, out, Vector, (A.ncols,))
    backend = _same_backend("vxm", u=u, A=A, mask=m, out=out)
    return _spmv(A.T, u, sr, flip=True, mask=m, accum=accum, replace=replace, out=out,
                 backend=backend, executor=executor)


def _spmv(edges: Matrix, u: Vector, sr: Semiring, *, flip: bool, mask: Any, accum: Any,
          replace: bool, out: Vector | None, backend: str, executor: str) -> Vector:  # fmt: skip
    """Run ``w<mask> accum= edges ⊕.⊗ u`` on the chosen executor (``edges``: rows = outputs);
    ``'auto'`` asks :func:`hyblas.ops.hybrid.choose`. An open trace records the call."""
    choice = _hybrid.choose(edges, u, sr, mask, flip=flip) if executor == "auto" else None
    run = choice.executor if choice is not None else executor
    args = dict(flip=flip, mask=mask, accum=accum, replace=replace, out=out, backend=backend,
                build=choice is None)  # fmt: skip
    if not _trace.tracing():
        return _run_spmv(run, edges, u, sr, **args)
    stats: dict[str, int] = {}
    timer = _trace.start_timer(backend)
    result = _run_spmv(run, edges, u, sr, stats=stats, **args)
    timing = timer.stop()
    row = _trace.TraceRow(call=0, op="vxm" if flip else "mxv", executor=run, asked=executor,
                          policy="", outputs=edges.nrows, input_nnz=u.nnz, allowed=None,
                          edges=stats.get("edges", _edges_touched(run, edges, u)),
                          reason="asked for")  # fmt: skip
    if choice is not None:
        row.policy, row.reason = choice.policy, choice.reason
        row.estimates_us, row.sampling_ms = dict(choice.estimates_us), choice.deciding_ms
        row.allowed = choice.allowed
    if mask is not None and row.allowed is None:
        row.allowed = int(_mask.vector_allowed(_mask.as_mask(mask)).sum())
    _trace.record(row, timing)
    return result


def _run_spmv(run: str, edges: Matrix, u: Vector, sr: Semiring, *, flip: bool, mask: Any,
              accum: Any, replace: bool, out: Vector | None, backend: str, build: bool,
              stats: dict[str, int] | None = None) -> Vector:  # fmt: skip
    """``build=False`` (the policy chose): the sparse push takes the flat layout when its own
    is not built (the policy counts the rent of a layout before building it)."""
    args = dict(flip=flip, mask=mask, accum=accum, replace=replace, out=out, backend=backend)
    if run == "pull":
        return _pull.spmv(edges, u, sr, stats=stats, **args)
    if run == "sparse":
        return _sparse.spmspv(edges, u, sr, build=build, **args)
    if run == "dense":
        return _dense.spmv(edges, u, sr, **args)
    u_values, u_present = u._as_bitmap()
    values, present, nnz = reference.spmv(edges, u_values, u_present, sr, flip=flip,
                                          all_present=u.nnz == u.size)  # fmt: skip
    return _mask.write_vector(out, values, present, mask=mask, accum=accum, replace=replace,
                              backend=backend, nnz=nnz)


def _edges_touched(run: str, edges: Matrix, u: Vector) -> int:
    """Edges an executor touched (for the trace): the frontier's out-edges for the push,
    every stored entry for the dense and reference walks."""
    if run != "sparse":
        return edges.nnz
    active = u._as_sparse()[0]
    return int(_hybrid.input_degrees(edges)[active].sum()) if active.size else 0


def mxm(
    A: Matrix,  # noqa: N803
    B: Matrix,  # noqa: N803
    semiring: Semiring | str,
    *,
    mask: Any = None,
    accum: BinaryOp | None = None,
    replace: bool = False,
    out: Matrix | None = None,
    executor: str = "auto",
) -> Matrix:
    """Matrix product ``C<mask> ⊙= A ⊕.⊗ B``: ``C_ij = ⊕_k A_ik ⊗ B_kj``.

    A non-complemented mask restricts the products computed (as in masked SpGEMM for triangle
    counting), a complemented one drops the products it rules out before reduction.
    ``executor`` is checked as in :func:`mxv`; ``'auto'`` and ``'reference'`` both run the
    reference path, the only one ``mxm`` has so far.
    """
    sr = _operator(semiring, (Semiring,), "semiring")
    _container(A, (Matrix,), "A")
    _container(B, (Matrix,), "B")
    if A.ncols != B.nrows:
        raise DimensionMismatch(f"mxm: A is {A.nrows}x{A.ncols} but B is {B.nrows}x{B.ncols} "
                                "((m,k),(k,n)->(m,n))")  # fmt: skip
    _check_executor(executor)
    shape = (A.nrows, B.ncols)
    m = _check_mask_and_out("mxm", mask, out, Matrix, shape)
    backend = _same_backend("mxm", A=A, B=B, mask=m, out=out)
    rows_of_mask = None if m is None else _spgemm.MaskRows(m.parent, m.structural, m.complement)
    keys, values = _spgemm.spgemm(A, B, sr, mask=rows_of_mask)
    if out is None:  # the product already holds only what the mask allows
        m = None
    return _write_matrix(out, keys, values, shape, m, accum, replace, backend)


# --- element-wise ---------------------------------------------------------------------------


def _binary_of(op: Any, argument: str) -> BinaryOp:
    """A BinaryOp from a BinaryOp, a Monoid (its operator), a Semiring (its add) or a name."""
    found = _operator(op, (BinaryOp, Monoid, Semiring), argument)
    if isinstance(found, Semiring):
        return found.monoid.binaryop
    return found.binaryop if isinstance(found, Monoid) else found


def _ewise(name: str, x: Any, y: Any, op: Any, mask: Any, accum: Any, replace: bool, out: Any,
           combine: Any) -> Any:  # fmt: skip
    bop = _binary_of(op, "op")
    _container(x, (Vector, Matrix), "x")
    if type(y) is not type(x):
        raise InvalidObject(f"{name}: x is a {type(x).__name__} but y is a {type(y).__name__}")
    if x.shape != y.shape:
        raise DimensionMismatch(f"{name}: x has shape {x.shape} but y has shape {y.shape}")
    m = _check_mask_and_out(name, mask, out, type(x), x.shape)
    backend = _same_backend(name, x=x, y=y, mask=m, out=out)
    xp = x._xp
    if isinstance(x, Vector):
        if x.format == "bitmap" and y.format == "bitmap":
            union = combine is reference.ewise_union
            both_full = x._known_full() and y._known_full()
            values, present = _ewise_bitmaps(x, y, bop, union=union, full=both_full)
            # full operands give a full result, known without a count (a device sync)
            full = (x._known_full() or y._known_full()) if union else both_full
            return _write_vector(out, values, present, m, accum, replace, backend,
                                 nnz=x.size if full else None)  # fmt: skip
        (xi, xv), (yi, yv) = x._as_sparse(), y._as_sparse()
        keys, values = combine(xp, xi, xv, yi, yv, bop)  # new arrays
        if out is None:
            return _new_sparse(x.size, keys, values, m, backend)
        out_values, present = _prim.to_bitmap(xp, x.size, keys, values)
        return _write_vector(out, out_values, present, m, accum, replace, backend)
    keys, values = combine(xp, _matrix_keys(x), x._values, _matrix_keys(y), y._values, bop)
    return _write_matrix(out, keys, values, x.shape, m, accum, replace, backend)


def _ewise_bitmaps(x: Vector, y: Vector, op: BinaryOp, *, union: bool,
                   full: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """Element-wise over two bitmap vectors position by position: no key merge.

    On the CPU ``op`` also runs on the absent positions' placeholder values; those results are
    discarded (floating-point warnings there are silenced). On the GPU one kernel does it all,
    without reading the flags where both are ``full`` (known to hold every position).
    """
    xp = x._xp
    (xv, xpres), (yv, ypres) = x._as_bitmap(), y._as_bitmap()
    if xp is not np:  # one kernel instead of five or six array passes
        return _ewise_kernel.ewise_bitmaps(xp, (xv, xpres), (yv, ypres), op, union=union,
                                           full=full)  # fmt: skip
    op_type = op.input_type(xv.dtype, yv.dtype)
    out_type = op.output_type(op_type)
    with _quiet(True):
        both = xp.asarray(op.numpy(xv.astype(op_type, copy=False),
                                   yv.astype(op_type, copy=False))).astype(out_type, copy=False)
    if not union:
        return both, xpres & ypres
    single = xp.where(xpres, xv.astype(out_type, copy=False), yv.astype(out_type, copy=False))
    return xp.where(xpres & ypres, both, single), xpres | ypres


def ewise_add(x: Any, y: Any, op: Any, *, mask: Any = None, accum: Any = None,
              replace: bool = False, out: Any = None) -> Any:  # fmt: skip
    """Element-wise "add" over the union of structures: ``op(x, y)`` where both are present,
    the present one where only one is (GrB_eWiseAdd).

    Parameters
    ----------
    x, y : Vector or Matrix
        Same kind and shape.
    op : BinaryOp, Monoid, Semiring (its add monoid) or str
    mask, accum, replace, out
        As in :func:`mxv`.
    """
    return _ewise("ewise_add", x, y, op, mask, accum, replace, out, reference.ewise_union)


def ewise_mult(x: Any, y: Any, op: Any, *, mask: Any = None, accum: Any = None,
               replace: bool = False, out: Any = None) -> Any:  # fmt: skip
    """Element-wise "multiply" over the intersection of structures: ``op(x, y)`` where both are
    present (GrB_eWiseMult). Parameters as in :func:`ewise_add`."""
    return _ewise("ewise_mult", x, y, op, mask, accum, replace, out, reference.ewise_intersection)


# --- apply / select -------------------------------------------------------------------------


def _entries(x: Any) -> tuple[Any, Any, Any]:
    """(rows, cols, values) of a Matrix's entries; (indices, zeros, values) of a Vector's."""
    xp = x._xp
    if isinstance(x, Vector):
        idx, vals = x._as_sparse()
        return idx, xp.zeros_like(idx), vals
    return _prim.row_ids(xp, x._indptr, x.nrows), x._indices.astype(np.int64), x._values


def _rebuild(x: Any, keep: Any, values: Any, out: Any, m: Any, accum: Any, replace: bool,
             backend: str) -> Any:  # fmt: skip
    """Write the entries of ``x`` selected by ``keep`` (None: all) with new ``values``
    (one value per kept entry)."""
    xp = x._xp
    if isinstance(x, Vector):
        idx, _ = x._as_sparse()
        if keep is not None:
            idx = idx[keep]
        if out is None:
            if keep is None:  # x's own arrays (apply's values too, cast with copy=False)
                idx, values = idx.copy(), values.copy()
            return _new_sparse(x.size, idx, values, m, backend)
        out_values, present = _prim.to_bitmap(xp, x.size, idx, values)
        return _write_vector(out, out_values, present, m, accum, replace, backend)
    keys = _matrix_keys(x)
    if keep is not None:
        keys = keys[keep]
    return _write_matrix(out, keys, values, x.shape, m, accum, replace, backend)


def _new_sparse(size: int, ids: Any, values: Any, mask: Any, backend: str) -> Vector:
    """A new vector of the sorted entries ``ids`` / ``values`` (arrays taken) the mask allows:
    with no output to write through, a sparse result needs no pass over every position."""
    if mask is not None:
        keep = _mask.vector_allowed_at(mask, ids)
        ids, values = ids[keep], values[keep]
    return Vector(size, values.dtype, backend=backend, sparse=(ids, values),
                  nnz=int(ids.size))._settled()  # fmt: skip


def _quiet(placeholders: bool) -> Any:
    """Silence floating-point warnings when an op also runs on absent positions' placeholders."""
    return np.errstate(all="ignore") if placeholders else contextlib.nullcontext()


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
        As in :func:`mxv`.
    """
    found = _operator(op, (UnaryOp, BinaryOp), "op")
    _container(x, (Vector, Matrix), "x")
    m = _check_mask_and_out("apply", mask, out, type(x), x.shape)
    backend = _same_backend("apply", x=x, mask=m, out=out)
    bitmap = isinstance(x, Vector) and x.format == "bitmap"
    if isinstance(x, Matrix):
        values = x._values  # the keys are not needed
    else:
        values = x._as_bitmap()[0] if bitmap else x._as_sparse()[1]
    xp = x._xp
    if isinstance(found, UnaryOp):
        if left is not None or right is not None:
            raise InvalidValue("apply: left= / right= bind a BinaryOp; op is a UnaryOp")
        op_type = found.input_type(x.dtype)
        with _quiet(bitmap):
            result = found.numpy(values.astype(op_type, copy=False))
        result = xp.asarray(result).astype(found.output_type(op_type), copy=False)
    else:
        if (left is None) == (right is None):
            raise InvalidValue("apply with a BinaryOp needs exactly one of left= or right=")
        scalar = left if left is not None else right
        # a Python scalar is "weak" (NEP 50): int32 + 1 stays int32, float32 * 0.5 float32
        weak = isinstance(scalar, bool | int | float)
        scalar_type = _dt.lookup(np.result_type(x.dtype, scalar) if weak
                                 else np.asarray(scalar).dtype, argument="left/right")
        op_type = found.input_type(x.dtype, scalar_type)
        own = values.astype(op_type, copy=False)
        bound = xp.full(own.shape, scalar, dtype=op_type)
        with _quiet(bitmap):
            result = found.numpy(bound, own) if left is not None else found.numpy(own, bound)
        result = result.astype(found.output_type(op_type), copy=False)
    if bitmap:  # the op also ran on absent positions' placeholders; their results are dropped
        return _write_vector(out, result, x._as_bitmap()[1], m, accum, replace, backend)
    return _rebuild(x, None, result, out, m, accum, replace, backend)


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
    mask, accum, replace, out
        As in :func:`mxv`.
    """
    found = _operator(op, (IndexUnaryOp,), "op")
    _container(x, (Vector, Matrix), "x")
    m = _check_mask_and_out("select", mask, out, type(x), x.shape)
    backend = _same_backend("select", x=x, mask=m, out=out)
    if isinstance(x, Vector) and x.format == "bitmap":  # it stays one: no compaction
        return _select_bitmap(x, found, thunk, out, m, accum, replace, backend)
    rows, cols, values = _entries(x)
    keep = x._xp.asarray(found.numpy(values, rows, cols, thunk)).astype(bool)
    return _rebuild(x, keep, values[keep], out, m, accum, replace, backend)


def _select_bitmap(x: Vector, op: IndexUnaryOp, thunk: Any, out: Any, m: Any, accum: Any,
                   replace: bool, backend: str) -> Vector:  # fmt: skip
    """``select`` of a bitmap Vector over its bitmap: the op runs on every position (absent
    ones' placeholders too; those results are dropped), and the kept flags are the present
    ones it accepts. The result settles into the storage its density suits; compacting the
    whole input first would cost a pass more (on the GPU, one that waits for the device)."""
    xp = x._xp
    values, present = x._as_bitmap()
    index = xp.arange(x.size, dtype=np.int64)
    with _quiet(True):
        accepted = xp.asarray(op.numpy(values, index, xp.zeros_like(index), thunk))
    keep = present & accepted.astype(bool, copy=False)
    # a new vector shares x's values, as apply's shares x's flags: stored arrays are replaced,
    # never written in place (only private working copies are)
    return _write_vector(out, values, keep, m, accum, replace, backend)


# --- reductions -----------------------------------------------------------------------------


def _monoid_of(monoid: Any) -> Monoid:
    found = _operator(monoid, (Monoid, Semiring), "monoid")
    return found.monoid if isinstance(found, Semiring) else found


def reduce_rows(A: Matrix, monoid: Monoid | str, *, mask: Any = None, accum: Any = None,  # noqa: N803
                replace: bool = False, out: Vector | None = None) -> Vector:  # fmt: skip
    """``w_i = ⊕_j A_ij``: each row reduced with ``monoid``; empty rows give absent entries.

    Parameters
    ----------
    A : Matrix
    monoid : Monoid or str
    mask, accum, replace, out
        As in :func:`mxv` (``out`` of size ``A.nrows``).
    """
    mon = _monoid_of(monoid)
    _container(A, (Matrix,), "A")
    m = _check_mask_and_out("reduce_rows", mask, out, Vector, (A.nrows,))
    backend = _same_backend("reduce_rows", A=A, mask=m, out=out)
    values, present = reference.reduce_rows(A, mon)
    return _write_vector(out, values, present, m, accum, replace, backend)


def reduce_columns(A: Matrix, monoid: Monoid | str, *, mask: Any = None, accum: Any = None,  # noqa: N803
                   replace: bool = False, out: Vector | None = None) -> Vector:  # fmt: skip
    """``w_j = ⊕_i A_ij``: each column reduced; parameters as in :func:`reduce_rows`."""
    _container(A, (Matrix,), "A")
    return reduce_rows(A.T, monoid, mask=mask, accum=accum, replace=replace, out=out)


def reduce_scalar(x: Any, monoid: Monoid | str) -> Any:
    """Every entry of a Vector or Matrix reduced to one NumPy scalar.

    An object without entries reduces to the monoid's identity (GrB_reduce with a monoid).
    """
    mon = _monoid_of(monoid)
    _container(x, (Vector, Matrix), "x")
    if isinstance(x, Vector) and x.format == "bitmap":
        values, present = x._as_bitmap()
        return reference.reduce_all(x._xp, values, mon, present=present)
    values = x._values if isinstance(x, Matrix) else x._as_sparse()[1]  # no keys needed
    return reference.reduce_all(x._xp, values, mon)


def inner(u: Vector, v: Vector, semiring: Semiring | str) -> Any:
    """The inner product ``⊕_i u_i ⊗ v_i`` over the positions where both have an entry, as one
    NumPy scalar (python-graphblas's ``Vector.inner``); the add monoid's identity where the
    structures do not meet.

    The same as ``reduce_scalar(ewise_mult(u, v, semiring.binaryop), semiring.monoid)``, with
    no vector in between: on the GPU two bitmap vectors take one pass.

    Parameters
    ----------
    u, v : Vector
        Of one size.
    semiring : Semiring or str
        E.g. ``semiring.plus_times`` (the dot product) or ``"min_plus"``.

    Returns
    -------
    NumPy scalar
        Of the semiring's result type for ``u``'s and ``v``'s dtypes.

    Raises
    ------
    InvalidObject
        If ``u`` or ``v`` is not a Vector, or ``semiring`` is not a Semiring.
    InvalidValue
        If ``semiring`` names no semiring.
    DimensionMismatch
        If the sizes differ.
    BackendError
        If ``u`` and ``v`` live on different backends.
    """
    sr = _operator(semiring, (Semiring,), "semiring")
    _container(u, (Vector,), "u")
    _container(v, (Vector,), "v")
    if u.size != v.size:
        raise DimensionMismatch(f"inner: u has size {u.size} but v has size {v.size}")
    _same_backend("inner", u=u, v=v)
    if u._xp is not np and u.format == "bitmap" and v.format == "bitmap":
        partials, found = _inner_kernel.inner_bitmaps(
            u._xp, u._as_bitmap(), v._as_bitmap(), sr,
            full=u._known_full() and v._known_full())  # fmt: skip
        return reference.reduce_all(u._xp, partials, sr.monoid, present=found)
    # the product on the semiring's operand type; the monoid casts it to its own domain
    products = ewise_mult(u, v, sr.binaryop[sr.input_type(u.dtype, v.dtype)])
    return reduce_scalar(products, sr.monoid)


# --- extract / assign / transpose -----------------------------------------------------------


def _index_array(xp: Any, index: Any, extent: int, argument: str) -> tuple[Any, bool]:
    """(int64 positions, whether ``index`` was a scalar) for None / slice / int / array."""
    if index is None:
        return xp.arange(extent, dtype=np.int64), False
    if isinstance(index, slice):
        return xp.arange(*index.indices(extent), dtype=np.int64), False
    if isinstance(index, int | np.integer):
        if not 0 <= index < extent:
            raise IndexOutOfBounds(f"{argument}={index} outside [0, {extent})")
        return xp.asarray([index], dtype=np.int64), True
    from ..matrix import _as_index_array, _check_bounds  # noqa: PLC0415

    arr = _as_index_array(xp, index, argument)
    _check_bounds(xp, arr, extent, argument)
    return arr, False


def _submatrix_keys(A: Matrix, rows: Any, cols: Any) -> tuple[Any, Any, Any]:  # noqa: N803
    """(row slot, col slot, value) of every entry of ``A[rows, cols]`` (repeats allowed)."""
    xp = A._xp
    starts = A._indptr.astype(np.int64)
    counts = starts[rows + 1] - starts[rows]
    slot_r = _prim.expand(xp, counts)
    first = xp.cumsum(counts) - counts
    pos = starts[rows][slot_r] + (xp.arange(int(counts.sum()), dtype=np.int64) - first[slot_r])
    entry_cols = A._indices[pos].astype(np.int64)
    order = xp.argsort(cols)
    sorted_cols = cols[order]
    lo = xp.searchsorted(sorted_cols, entry_cols, side="left")
    hi = xp.searchsorted(sorted_cols, entry_cols, side="right")
    hits = hi - lo
    which = _prim.expand(xp, hits)
    first_hit = xp.cumsum(hits) - hits
    slot_c = order[lo[which] + (xp.arange(int(hits.sum()), dtype=np.int64) - first_hit[which])]
    return slot_r[which], slot_c, A._values[pos[which]]


def extract(x: Any, *indices: Any, mask: Any = None, accum: Any = None, replace: bool = False,
            out: Any = None) -> Any:  # fmt: skip
    """Sub-vector ``u[I]``, sub-matrix ``A[I, J]``, or a row / column of a Matrix as a Vector.

    Parameters
    ----------
    x : Vector or Matrix
    *indices
        One index for a Vector, two (rows, cols) for a Matrix; each None (all), a slice, an
        int, or an array of ints (repeats allowed). An int row or column gives a Vector.
    mask, accum, replace, out
        As in :func:`mxv`.
    """
    _container(x, (Vector, Matrix), "x")
    xp = x._xp
    if isinstance(x, Vector):
        if len(indices) != 1:
            raise InvalidValue(f"extract from a Vector takes one index, got {len(indices)}")
        idx, _ = _index_array(xp, indices[0], x.size, "indices")
        m = _check_mask_and_out("extract", mask, out, Vector, (idx.size,))
        backend = _same_backend("extract", x=x, mask=m, out=out)
        values, present = x._as_bitmap()
        return _write_vector(out, values[idx], present[idx], m, accum, replace, backend)
    if len(indices) != 2:
        raise InvalidValue(f"extract from a Matrix takes (rows, cols), got {len(indices)} indices")
    rows, row_scalar = _index_array(xp, indices[0], x.nrows, "rows")
    cols, col_scalar = _index_array(xp, indices[1], x.ncols, "cols")
    slot_r, slot_c, values = _submatrix_keys(x, rows, cols)
    if row_scalar or col_scalar:
        if row_scalar and col_scalar:
            raise InvalidValue("extract of a single element: use A[i, j] via to_coo or select")
        size = cols.size if row_scalar else rows.size
        slots = slot_c if row_scalar else slot_r
        m = _check_mask_and_out("extract", mask, out, Vector, (size,))
        backend = _same_backend("extract", x=x, mask=m, out=out)
        out_values, present = _prim.to_bitmap(xp, size, slots, values.astype(x.dtype, copy=False))
        return _write_vector(out, out_values, present, m, accum, replace, backend)
    shape = (rows.size, cols.size)
    m = _check_mask_and_out("extract", mask, out, Matrix, shape)
    backend = _same_backend("extract", x=x, mask=m, out=out)
    keys, values = _prim.sort_by_keys(xp, slot_r * np.int64(max(cols.size, 1)) + slot_c, values)
    return _write_matrix(out, keys, values, shape, m, accum, replace, backend)


def _unique_or_raise(xp: Any, idx: Any, argument: str) -> None:
    if idx.size > 1 and int(xp.unique(idx).size) != idx.size:
        raise InvalidValue(f"assign: {argument} holds repeated indices")


def assign(out: Any, value: Any, *indices: Any, mask: Any = None, accum: Any = None,
           replace: bool = False) -> Any:  # fmt: skip
    """``out<mask>(I[, J]) ⊙= value`` (GrB_assign): write a Vector, Matrix or scalar into a
    region of ``out``.

    Parameters
    ----------
    out : Vector or Matrix
        Updated in place and returned.
    value : Vector, Matrix or scalar
        Shaped like the region; a scalar fills every position of the region.
    *indices
        As in :func:`extract` (no repeats); an int row/column with a Vector value writes
        into that row/column.
    mask : optional
        Shaped like ``out`` (the whole of it, as in GrB_assign).
    accum, replace
        As in :func:`mxv`. Without ``accum``, positions of the region where ``value`` has no
        entry lose theirs.
    """
    _container(out, (Vector, Matrix), "out")
    xp = out._xp
    is_scalar = not isinstance(value, Vector | Matrix)
    if is_scalar:
        value_dtype = _dt.lookup(np.asarray(value).dtype, argument="value")
    else:
        value_dtype = value.dtype
    m = _check_mask_and_out("assign", mask, out, type(out), out.shape)
    _same_backend("assign", out=out, value=None if is_scalar else value, mask=m)
    _dt.check_cast(value_dtype, out.dtype, argument="out")
    accum_op = None if accum is None else _binary_of(accum, "accum")
    if isinstance(out, Vector):
        if len(indices) != 1:
            raise InvalidValue(f"assign into a Vector takes one index, got {len(indices)}")
        if (is_scalar and indices[0] is None and accum_op is None and not replace
                and m is not None and m.structural and not m.complement):  # fmt: skip
            return _assign_scalar_where(out, value, m.parent)
        idx, _ = _index_array(xp, indices[0], out.size, "indices")
        _unique_or_raise(xp, idx, "indices")
        if is_scalar and accum_op is None and m is None and out.format == "sparse":
            return _assign_scalar_sparse(out, value, idx)
        if is_scalar:
            region_values = xp.full(idx.size, value, dtype=out.dtype)
            region_present = xp.ones(idx.size, dtype=bool)
        else:
            if value.size != idx.size:
                raise DimensionMismatch(f"assign: value has size {value.size} but the region has "
                                        f"{idx.size} positions")  # fmt: skip
            region_values, region_present = value._as_bitmap()
        old_values, old_present = out._as_bitmap()
        z_values, z_present = old_values.copy(), old_present.copy()
        if accum_op is None:
            z_values[idx] = region_values.astype(out.dtype, copy=False)
            z_present[idx] = region_present
        else:
            patch = Vector._from_bitmap(old_values[idx], old_present[idx], backend=out.backend)
            _mask.write_vector(patch, region_values, region_present, accum=accum_op,
                               backend=out.backend)  # fmt: skip
            z_values[idx], z_present[idx] = patch._as_bitmap()
        return _write_vector(out, z_values, z_present, m, None, replace, out.backend)
    return _assign_matrix(out, value, is_scalar, indices, m, accum_op, replace)


def _assign_scalar_sparse(out: Vector, value: Any, idx: Any, *,
                          ascending: bool = False) -> Vector:  # fmt: skip
    """``out(idx) = value`` into a sparse ``out``, no mask: a merge of the indices (sorted
    here unless ``ascending``) into its keys (O(entries + indices); no bitmap over ``out``'s
    size), a BFS's first level."""
    xp = out._xp
    keys, vals = out._sparse
    idx = (idx if ascending else xp.sort(idx)).astype(keys.dtype, copy=False)
    fill = xp.full(idx.size, value, dtype=out.dtype)
    if keys.size:
        keys, fill = _prim.union_keys(xp, keys, vals, idx, fill, lambda _, new: new, out.dtype)
    else:
        keys = idx
    out._set_content(sparse=(keys, fill), nnz=int(keys.size))
    return out


def _assign_scalar_where(out: Vector, value: Any, where: Vector) -> Vector:
    """``out<where.S> = value``: only the mask's entries are written, the level update of a
    BFS. Into a sparse ``out`` from a mask with few entries, a merge of the mask's keys
    (O(entries)); otherwise elementwise over bitmaps into new arrays (no copy of ``out``
    first, no list of the mask's positions)."""
    if out._sparse is not None and where._sparse is not None \
            and (out.nnz + where.nnz) * SPARSE_BELOW < out.size:
        return _assign_scalar_sparse(out, value, where._sparse[0], ascending=True)
    xp = out._xp
    old_values, old_present = out._as_bitmap()
    if where._bitmap is not None:
        written = where._bitmap[1]
    else:
        written = xp.zeros(out.size, dtype=bool)
        written[where._sparse[0]] = True
    values = xp.where(written, out.dtype.type(value), old_values)
    out._set_content(bitmap=(values, old_present | written))
    return out


def _assign_matrix(out: Matrix, value: Any, is_scalar: bool, indices: tuple, m: Any,
                   accum_op: Any, replace: bool) -> Matrix:  # fmt: skip
    xp = out._xp
    if len(indices) != 2:
        raise InvalidValue(f"assign into a Matrix takes (rows, cols), got {len(indices)} indices")
    rows, row_scalar = _index_array(xp, indices[0], out.nrows, "rows")
    cols, col_scalar = _index_array(xp, indices[1], out.ncols, "cols")
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
            raise InvalidObject("assign: a Vector value goes into one row or one column; give "
                                "an int row or column index")  # fmt: skip
        line = cols if row_scalar else rows
        if value.size != line.size:
            raise DimensionMismatch(f"assign: value has size {value.size} but the region has "
                                    f"{line.size} positions")  # fmt: skip
        idx, vals = value._as_sparse()
        placed = line[idx]
        new_keys = rows[0] * ncols + placed if row_scalar else placed * ncols + cols[0]
        new_values = vals.astype(out.dtype, copy=False)
    else:
        if value.shape != (rows.size, cols.size):
            raise DimensionMismatch(f"assign: value has shape {value.shape} but the region is "
                                    f"{rows.size}x{cols.size}")  # fmt: skip
        r, c, vals = _entries(value)
        new_keys = rows[r] * ncols + cols[c]
        new_values = vals.astype(out.dtype, copy=False)
    new_keys, new_values = _prim.sort_by_keys(xp, new_keys, new_values)
    old_keys = _matrix_keys(out)
    old_rows, old_cols = old_keys // ncols, old_keys % ncols
    in_region = _prim.member(xp, xp.sort(rows), old_rows) & _prim.member(xp, xp.sort(cols),
                                                                          old_cols)  # fmt: skip
    if accum_op is not None:
        new_keys, new_values = _mask.accumulate_keys(
            xp, old_keys[in_region], out._values[in_region], new_keys, new_values, accum_op,
            out.dtype,
        )
    z_keys, z_values = _prim.sort_by_keys(
        xp, xp.concatenate([old_keys[~in_region], new_keys]),
        xp.concatenate([out._values[~in_region], new_values.astype(out.dtype, copy=False)]),
    )
    return _write_matrix(out, z_keys, z_values, out.shape, m, None, replace, out.backend)


def transpose(A: Matrix, *, mask: Any = None, accum: Any = None, replace: bool = False,  # noqa: N803
              out: Matrix | None = None) -> Matrix:  # fmt: skip
    """``C<mask> ⊙= Aᵀ``. Without mask, accum or out, this is ``A.T.dup()``."""
    _container(A, (Matrix,), "A")
    shape = (A.ncols, A.nrows)
    m = _check_mask_and_out("transpose", mask, out, Matrix, shape)
    backend = _same_backend("transpose", A=A, mask=m, out=out)
    t = A.T
    return _write_matrix(out, _matrix_keys(t), t._values.copy(), shape, m, accum, replace,
                         backend)  # fmt: skip
