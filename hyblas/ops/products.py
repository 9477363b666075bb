"""The products: ``mxv``, ``vxm`` and ``mxm``. Each checks its arguments, builds its output
description and hands both to the executors (:mod:`.dispatch`)."""

from __future__ import annotations

from typing import Any

from ..backend import names_oom
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..errors import DimensionMismatch
from ..operators.classes import BinaryOp, Semiring
from . import checks
from .dispatch import MatrixProduct, Product, check_executor, run_matrix_product, run_product
from .spec import output_spec

__all__ = ["mxv", "vxm", "mxm"]


@names_oom("mxv")
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
        Which executor runs the product (``hyblas.ops.EXECUTORS`` lists the registered ones):
        ``'reference'`` (the portable path); ``'dense'``, the 2D-blocked two-phase SpMV
        (:mod:`hyblas.executors.dense`); ``'sparse'``, the push from ``u``'s entries over the
        in-degree-grouped layout, masked before any atomic (:mod:`hyblas.executors.sparse`);
        ``'pull'``, the outputs the mask allows reduce their rows and stop early where the
        monoid allows (:mod:`hyblas.executors.pull`). The fast executors run CUDA kernels on
        the GPU and NumPy emulations of the same walk on the CPU. ``'auto'`` asks the current
        policy (:func:`hyblas.set_policy`, see :mod:`hyblas.executors.policy`);
        :func:`hyblas.trace` records what it chose and why.

    Returns
    -------
    Vector

    Raises
    ------
    InvalidObject, InvalidValue
        An argument of the wrong kind, an unknown semiring or executor name.
    DimensionMismatch
        ``u``, ``out`` or the mask does not fit ``A``.
    BackendError
        The objects live on different backends.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 0], [1.0, 2.0, 3.0, 4.0], nrows=3, ncols=3)
    >>> u = hb.Vector.from_coo([1, 2], [10.0, 20.0], size=3)
    >>> print(hb.ops.mxv(A, u, hb.semiring.plus_times))  # row 2 meets no entry of u: absent
    hyblas.Vector(size=3, nnz=2, dtype=float64, backend='cpu', format='bitmap')
      {0: 50.0, 1: 60.0}
    >>> print(hb.ops.mxv(A, u, "min_plus", mask=hb.Vector.from_coo([0], [True], size=3)))
    hyblas.Vector(size=3, nnz=1, dtype=float64, backend='cpu', format='bitmap')
      {0: 11.0}
    """
    sr = checks.operator(semiring, (Semiring,), "semiring")
    checks.container(A, (Matrix,), "A")
    checks.container(u, (Vector,), "u")
    if u.size != A.ncols:
        raise DimensionMismatch(
            f"mxv: u has size {u.size} but A has {A.ncols} columns "
            f"(A is {A.nrows}x{A.ncols}; (m,n),(n)->(m))"
        )
    check_executor(executor)
    spec = output_spec(
        "mxv", Vector, (A.nrows,), mask=mask, accum=accum, replace=replace, out=out, A=A, u=u
    )
    return run_product(Product("mxv", A, u, sr), spec, executor)


@names_oom("vxm")
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
    ``A.nrows``, ``w`` size ``A.ncols``); the executors run it as ``Aᵀ ⊕.⊗ u`` with the
    multiply's operands swapped.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 0], [1.0, 2.0, 3.0, 4.0], nrows=3, ncols=3)
    >>> frontier = hb.Vector.from_coo([0], [True], size=3)
    >>> seen = frontier.dup()
    >>> hb.ops.vxm(frontier, A, hb.semiring.lor_land, mask=~seen.S).to_coo()  # one BFS step
    (array([1, 2]), array([ True,  True]))
    """
    sr = checks.operator(semiring, (Semiring,), "semiring")
    checks.container(u, (Vector,), "u")
    checks.container(A, (Matrix,), "A")
    if u.size != A.nrows:
        raise DimensionMismatch(
            f"vxm: u has size {u.size} but A has {A.nrows} rows "
            f"(A is {A.nrows}x{A.ncols}; (m),(m,n)->(n))"
        )
    check_executor(executor)
    spec = output_spec(
        "vxm", Vector, (A.ncols,), mask=mask, accum=accum, replace=replace, out=out, u=u, A=A
    )
    return run_product(Product("vxm", A.T, u, sr), spec, executor)


@names_oom("mxm")
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
    ``executor`` is checked as in :func:`mxv`; only the reference executor runs ``mxm`` so
    far: ``'auto'`` takes it, and another executor named falls back to it with an
    :class:`~hyblas.errors.ExecutorFallback` warning.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 0], [1.0, 2.0, 3.0, 4.0], nrows=3, ncols=3)
    >>> C = hb.ops.mxm(A, A, hb.semiring.plus_times)  # paths of two edges, weights multiplied
    >>> print(C)
    hyblas.Matrix(nrows=3, ncols=3, nnz=5, dtype=float64, backend='cpu')
      {(0,0): 8.0, (0,2): 3.0, (1,0): 12.0, (2,1): 4.0, (2,2): 8.0}
    >>> print(hb.ops.mxm(A, A, "plus_pair", mask=A.S))  # count them only where A has an edge
    hyblas.Matrix(nrows=3, ncols=3, nnz=1, dtype=float64, backend='cpu')
      {(0,2): 1.0}
    """
    sr = checks.operator(semiring, (Semiring,), "semiring")
    checks.container(A, (Matrix,), "A")
    checks.container(B, (Matrix,), "B")
    if A.ncols != B.nrows:
        raise DimensionMismatch(
            f"mxm: A is {A.nrows}x{A.ncols} but B is {B.nrows}x{B.ncols} ((m,k),(k,n)->(m,n))"
        )
    check_executor(executor)
    spec = output_spec(
        "mxm",
        Matrix,
        (A.nrows, B.ncols),
        mask=mask,
        accum=accum,
        replace=replace,
        out=out,
        A=A,
        B=B,
    )
    return run_matrix_product(MatrixProduct(A, B, sr), spec, executor)
