"""Products on SuiteSparse:GraphBLAS: ``mxv`` / ``vxm`` (and ``mxm``) handed to python-graphblas
with the output mask, the result written through :mod:`hyblas.ops.output` as every executor's.

The edge matrix ``E`` (rows = outputs) is converted once per operand type and cached in its
cache: by row (SuiteSparse then reduces each output's row: dot products, the pull) or, for an
input stored sparse whose edge matrix has its transpose at hand (``vxm``'s ``Aᵀ``), by column
(it then pushes from the input's entries: saxpy). ``vxm`` multiplies ``u_j ⊗ E_ij`` as
``u.vxm(E.T)``, GraphBLAS's own operand order. The input and a vector mask are converted per
call (copies of their entries); SuiteSparse applies the mask while it computes, then
:func:`~hyblas.ops.output.write_vector` applies accumulation and replace exactly as for the
other executors.

Float ``min`` / ``max`` (monoid or multiply): SuiteSparse's ``fmin`` / ``fmax`` give ``-0.0``
or ``+0.0`` for a tie between the two depending on the order of operands; hyblas orders them
(:mod:`hyblas.operators.extrema`), so the outputs whose result is a zero are computed again by
the reference path (few, and exact).
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np

from ...containers.matrix import Matrix
from ...containers.vector import Vector
from ...device import arrays as _prim
from ...errors import ExecutorFallback
from ...operators.classes import Semiring
from ...ops.dispatch import MatrixProduct, Product
from ...ops.output import write_matrix, write_vector
from ...ops.spec import OutputSpec
from ..builtin import semiring_names
from ..reference import executor as reference
from ..reference.spmv import spmv_rows
from . import library

__all__ = ["run", "run_matrix_product", "fits", "fits_matrix_product", "has_layout"]

_semirings: dict[tuple[str, str, str], tuple[Any, bool, np.dtype] | None] = {}


def _semiring(semiring: Semiring, op_type: np.dtype) -> tuple[Any, bool, np.dtype] | None:
    """:func:`.library.semiring_of`, remembered per built-in pair and operand type."""
    add, mult = semiring_names(semiring)
    if add is None or mult is None:
        return None
    key = (add, mult, op_type.str)
    if key not in _semirings:
        _semirings[key] = library.semiring_of(semiring, op_type)
    return _semirings[key]


def _serves(semiring: Semiring, op_type: np.dtype) -> bool:
    """Whether SuiteSparse has this semiring for these types: once python-graphblas is loaded,
    its answer; before, every semiring of built-in operators (each of the catalogue's, on each
    type, has its SuiteSparse version: tests/executors/test_library_paths.py), so that asking
    imports nothing."""
    if library.loaded():
        return _semiring(semiring, op_type) is not None
    return None not in semiring_names(semiring)


def fits(product: Product) -> bool:
    """Whether SuiteSparse runs this product as hyblas computes it (on the CPU, with
    python-graphblas installed, a semiring of built-in operators it has for these types)."""
    edges = product.edges
    if library.unavailable(edges.backend) is not None:
        return False
    return _serves(product.semiring, product.semiring.input_type(edges.dtype, product.u.dtype))


def fits_matrix_product(product: MatrixProduct) -> bool:
    """Whether SuiteSparse runs this ``mxm`` as hyblas computes it (as :func:`fits`, and no
    float ``min`` / ``max``, whose zeros it would not settle)."""
    A, B, semiring = product.A, product.B, product.semiring
    if library.unavailable(A.backend) is not None:
        return False
    op_type = semiring.input_type(A.dtype, B.dtype)
    return _serves(semiring, op_type) and not library.settles(semiring, op_type)


def has_layout(edges: Matrix) -> bool:
    """Whether ``edges`` holds a conversion (of any operand type, by row or by column)."""
    return any(isinstance(k, tuple) and k[:1] == ("suitesparse",) for k in edges.cache)


def _fallback(what: str) -> None:
    warnings.warn(
        f"{what}: the 'suitesparse' executor does not serve this semiring and these types "
        "(a semiring of user-defined operators, or types SuiteSparse's version does not "
        "take); the 'reference' executor ran it",
        ExecutorFallback,
        stacklevel=6,
    )


def run(
    product: Product,
    spec: OutputSpec,
    *,
    may_build: bool = True,
    stats: dict[str, int] | None = None,
) -> Vector:
    """``w<mask> accum= E ⊕.⊗ u`` on SuiteSparse, written as ``spec`` says (``may_build`` and
    ``stats`` are not used: the conversion the product needs is made when missing).
    A product it does not serve runs on the reference executor, with an
    :class:`~hyblas.errors.ExecutorFallback` warning."""
    edges, u, semiring, flip = product.edges, product.u, product.semiring, product.flip
    library.require(edges.backend)
    op_type = semiring.input_type(edges.dtype, u.dtype)
    found = _semiring(semiring, op_type)
    if found is None:
        _fallback(product.op)
        return reference.run(product, spec)
    typed, settle, in_type = found
    out_type = semiring.output_type(op_type)
    gb = library.graphblas()
    pushes = _pushes(edges, u, semiring)
    matrix = library.matrix_of(edges, in_type, by_column=pushes)
    # a partial input goes to a pull as a bitmap: SuiteSparse's dot products with a sparse
    # vector cost many times more
    vector = library.vector_of(u, in_type, bitmap=not pushes)
    expression = vector.vxm(matrix.T, typed) if flip else matrix.mxv(vector, typed)
    if spec.mask is None:
        w = expression.new()
    else:
        w = gb.Vector(out_type, edges.nrows)
        w(mask=library.mask_of(spec.mask)) << expression
    layout, first, second, nnz = library.export_vector(w)
    if settle:
        _settle_zeros(product, layout, first, second)
    if spec.out is None and spec.accum is None:  # SuiteSparse applied the mask
        if layout == "sparse":
            return Vector(
                edges.nrows, out_type, backend=spec.backend, sparse=(first, second), nnz=nnz
            ).settle()
        return Vector.wrap_bitmap(first, second, backend=spec.backend, nnz=nnz)
    if layout == "sparse":
        first, second = _prim.to_bitmap(np, edges.nrows, first, second)
    return write_vector(spec, first, second, nnz=nnz)


#: A frontier holding at least this share of the inputs is pulled when the monoid can stop
#: early (any, lor, land): each allowed output stops at its first contribution.
PULL_TERMINAL_FROM = 1 / 8
_STOPS_EARLY = frozenset({"any", "lor", "land"})


def _pushes(edges: Matrix, u: Vector, semiring: Semiring) -> bool:
    """Whether to hand SuiteSparse the edge matrix by column, so that it pushes from the
    input's entries (saxpy), rather than by row (each output reduces its row: dot products).
    Pushing costs less for every partial input (SuiteSparse's bitmap saxpy of a wide one
    included), except a wide one under a monoid that stops early; a full input is pulled."""
    nnz = u.nnz
    if nnz == u.size:
        return False
    add, _ = semiring_names(semiring)
    return not (add in _STOPS_EARLY and nnz >= PULL_TERMINAL_FROM * u.size)


def _settle_zeros(product: Product, layout: str, first: Any, second: Any) -> None:
    """Compute the zero results again on the reference path (in place): the sign of a zero
    that float min / max reached."""
    if layout == "sparse":
        ids, values = first, second
        where = np.flatnonzero(values == 0)
        rows = ids[where]
    else:
        values, present = first, second
        where = np.flatnonzero(present & (values == 0))
        rows = where
    if where.size == 0:
        return
    u_values, u_present = product.u.as_bitmap()
    values[where] = spmv_rows(
        product.edges, rows, u_values, u_present, product.semiring, flip=product.flip
    )


def run_matrix_product(product: MatrixProduct, spec: OutputSpec) -> Matrix:
    """``C<mask> accum= A ⊕.⊗ B`` on SuiteSparse (both converted once and cached; the mask's
    matrix too), written as ``spec`` says. A product it does not serve
    (:func:`fits_matrix_product`) runs on the reference executor, with an
    :class:`~hyblas.errors.ExecutorFallback` warning."""
    A, B, semiring = product.A, product.B, product.semiring
    library.require(A.backend)
    if not fits_matrix_product(product):
        _fallback("mxm")
        return reference.run_matrix_product(product, spec)
    _prim.check_keys_fit(A.nrows, B.ncols)
    op_type = semiring.input_type(A.dtype, B.dtype)
    typed, _, in_type = _semiring(semiring, op_type)
    out_type = semiring.output_type(op_type)
    gb = library.graphblas()
    expression = library.matrix_of(A, in_type).mxm(library.matrix_of(B, in_type), typed)
    shape = (A.nrows, B.ncols)
    if spec.mask is None:
        c = expression.new()
    else:
        c = gb.Matrix(out_type, *shape)
        c(mask=library.mask_of(spec.mask)) << expression
    indptr, indices, values = library.export_matrix(c)
    if spec.out is None and spec.accum is None:  # SuiteSparse applied the mask
        index = _prim.index_dtype(values.size, *shape)
        return Matrix(
            indptr.astype(index), indices.astype(index), values, shape, backend=spec.backend
        )
    rows = _prim.row_ids(np, indptr, shape[0])
    keys = rows * np.int64(max(shape[1], 1)) + indices
    if spec.out is None:
        spec = dataclasses.replace(spec, mask=None)
    return write_matrix(spec, keys, values, shape)
