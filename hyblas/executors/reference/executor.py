"""The reference executor: correct for every semiring, dtype and mask on both backends, the
oracle the fast executors are tested against, and the one that runs ``mxm``."""

from __future__ import annotations

import dataclasses

from ...containers.matrix import Matrix
from ...containers.vector import Vector
from ...ops.dispatch import MatrixProduct, Product
from ...ops.output import write_matrix, write_vector
from ...ops.spec import OutputSpec
from .spgemm import MaskRows, spgemm
from .spmv import spmv

__all__ = ["run", "run_matrix_product"]


def run(
    product: Product,
    spec: OutputSpec,
    *,
    may_build: bool = True,
    stats: dict[str, int] | None = None,
) -> Vector:
    """``w<mask> accum= E ⊕.⊗ u`` over every stored entry, written as ``spec`` says
    (``may_build`` and ``stats`` are not used: it needs no layout)."""
    u = product.u
    u_values, u_present = u.as_bitmap()
    values, present, nnz = spmv(
        product.edges,
        u_values,
        u_present,
        product.semiring,
        flip=product.flip,
        all_present=u.nnz == u.size,
    )
    return write_vector(spec, values, present, nnz=nnz)


def run_matrix_product(product: MatrixProduct, spec: OutputSpec) -> Matrix:
    """``C<mask> accum= A ⊕.⊗ B`` by the reference SpGEMM (:mod:`.spgemm`), written as
    ``spec`` says."""
    A, B = product.A, product.B  # noqa: N806 - math spelling
    mask = spec.mask
    rows_of_mask = None if mask is None else MaskRows(mask.parent, mask.structural, mask.complement)
    keys, values = spgemm(A, B, product.semiring, mask=rows_of_mask)
    if spec.out is None:  # the product already holds only what the mask allows
        spec = dataclasses.replace(spec, mask=None)
    return write_matrix(spec, keys, values, (A.nrows, B.ncols))
