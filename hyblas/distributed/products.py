"""The partitioned products: local products on each process's block, plus collectives.

``vxm(u, A)`` (``w_j = ⊕_i u_i ⊗ A_ij``)::

    gather   u's pieces along the grid row: u over the row block
    mask     (with a mask) the mask's pieces to the column layout, gathered along the column
    local    ops.vxm on the block, masked: the single-device executors (and their policy)
    reduce   the partial results along the grid column: this process's piece of the column
             block (piece j * pr + i)
    permute  that piece to its owner (on a p x 1 grid each process holds its own); then the
             mask, accum and replace of the output

``mxv(A, u)`` moves the same with rows and columns exchanged (the permute comes first, to put
``u`` in the column layout). A group of one process sends nothing: its piece is its block.
Each piece travels in its smaller encoding (:func:`~hyblas.distributed.choose`), recorded by
:func:`~hyblas.distributed.trace`.
"""

from __future__ import annotations

from typing import Any

from .. import ops
from ..containers.vector import Vector
from ..dtypes import short_repr
from ..errors import InvalidObject
from ..operators import BinaryOp, Semiring
from ..ops.checks import operator
from .exchange import gather, permute, reduce
from .matrix import DistMatrix
from .trace import Timer
from .vector import DistMask, DistVector

__all__ = ["mxv", "vxm"]

# a product's result values are all 1 (presence alone travels) for these
_PATTERN_MONOIDS = ("any", "lor", "land", "min", "max")


def vxm(
    u: DistVector,
    A: DistMatrix,  # noqa: N803 - math spelling
    semiring: Semiring | str,
    *,
    mask: DistMask | DistVector | None = None,
    accum: BinaryOp | str | None = None,
    replace: bool = False,
    out: DistVector | None = None,
    executor: str = "auto",
) -> DistVector:
    """``w<mask> ⊙= u ⊕.⊗ A`` over the partition (as :func:`hyblas.ops.vxm`). *Collective.*

    Parameters
    ----------
    u : DistVector
        Size ``A.nrows``, on ``A``'s row partition.
    A : DistMatrix
    semiring : Semiring or str
    mask : DistMask or DistVector, optional
        ``x.S``, ``~x.S``, ``x`` (value), on ``A``'s column partition.
    accum : BinaryOp, optional
    replace : bool
    out : DistVector, optional
    executor : str
        The local products' executor (:func:`hyblas.ops.vxm`).

    Returns
    -------
    DistVector
        Size ``A.ncols`` (``out``, when given).

    Raises
    ------
    DimensionMismatch
        If ``u`` or ``mask`` is not on the matching partition of ``A``.
    InvalidObject
        For operands that are not distributed containers.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 0, 1], [1, 2, 2], nrows=3)
    >>> u = hb.distributed.DistVector.from_coo(comm, [0], [True], 3)
    >>> hb.distributed.vxm(u, A, hb.semiring.any_pair[bool], mask=~u.S).gather().to_coo()
    (array([1, 2]), array([ True,  True]))
    """
    sr = _prepare(u, A, semiring, mask, out, "vxm")
    grid = A.grid
    i, j = grid.coords(A.comm.rank)
    with_values = sr.binaryop.name not in ("pair", "second")
    x = gather(
        A.row_group, u.local, A.rows.lengths(i * grid.cols, grid.cols), with_values, "vxm", "gather"
    )
    local_mask = _block_mask(mask, A.cols, A.col_group, "vxm", column=True)
    partial = _local("vxm", x, A.local, sr, local_mask, executor)
    lengths = A.cols.lengths(j * grid.rows, grid.rows)
    piece = reduce(A.col_group, partial, lengths, sr.monoid, _carries_values(sr), "vxm")
    own = _to_owners(A.comm, piece, A.cols, "vxm", _carries_values(sr))
    return _write(own, A.cols, A.comm, mask, accum, replace, out)


def mxv(
    A: DistMatrix,  # noqa: N803 - math spelling
    u: DistVector,
    semiring: Semiring | str,
    *,
    mask: DistMask | DistVector | None = None,
    accum: BinaryOp | str | None = None,
    replace: bool = False,
    out: DistVector | None = None,
    executor: str = "auto",
) -> DistVector:
    """``w<mask> ⊙= A ⊕.⊗ u`` over the partition (as :func:`hyblas.ops.mxv`). *Collective.*

    Parameters
    ----------
    A : DistMatrix
    u : DistVector
        Size ``A.ncols``, on ``A``'s column partition.
    semiring : Semiring or str
    mask : DistMask or DistVector, optional
        On ``A``'s row partition.
    accum : BinaryOp, optional
    replace : bool
    out : DistVector, optional
    executor : str
        The local products' executor (:func:`hyblas.ops.mxv`).

    Returns
    -------
    DistVector
        Size ``A.nrows``.

    Raises
    ------
    DimensionMismatch
        If ``u`` or ``mask`` is not on the matching partition of ``A``.

    Examples
    --------
    >>> comm = hb.distributed.init("cpu")
    >>> A = hb.distributed.DistMatrix.from_edges(comm, [0, 1], [1, 2], [2.0, 3.0], nrows=3)
    >>> u = hb.distributed.DistVector.from_scalar(comm, 1.0, 3)
    >>> hb.distributed.mxv(A, u, "plus_times").gather().to_coo()
    (array([0, 1]), array([2., 3.]))
    """
    sr = _prepare(u, A, semiring, mask, out, "mxv")
    grid = A.grid
    rank = A.comm.rank
    i, j = grid.coords(rank)
    with_values = sr.binaryop.name not in ("pair", "first")
    column_piece = _to_column_layout(A.comm, u.local, A.cols, "mxv", with_values)
    lengths = A.cols.lengths(j * grid.rows, grid.rows)
    x = gather(A.col_group, column_piece, lengths, with_values, "mxv", "gather")
    local_mask = _block_mask(mask, A.rows, A.row_group, "mxv", column=False)
    partial = _local("mxv", x, A.local, sr, local_mask, executor)
    pieces = A.rows.lengths(i * grid.cols, grid.cols)
    own = reduce(A.row_group, partial, pieces, sr.monoid, _carries_values(sr), "mxv")
    return _write(own, A.rows, A.comm, mask, accum, replace, out)


def _to_column_layout(
    comm: Any, piece: Vector, part: Any, op: str, with_values: bool = True
) -> Vector:
    """This process's piece of the column layout (piece ``j * pr + i``), from its owner;
    nothing moves on a ``p x 1`` grid, where each process holds its own."""
    grid = part.grid
    if grid.cols == 1:
        return piece
    wanted = grid.column_piece(comm.rank)
    start, stop = part.piece(wanted)
    holder = grid.column_holder(comm.rank)
    return permute(comm, piece, holder, wanted, stop - start, op, with_values)


def _to_owners(comm: Any, piece: Vector, part: Any, op: str, with_values: bool = True) -> Vector:
    """The column layout's pieces back to their owners (the inverse of
    :func:`_to_column_layout`)."""
    grid = part.grid
    if grid.cols == 1:
        return piece
    start, stop = part.piece(comm.rank)
    held = grid.column_piece(comm.rank)
    holder = grid.column_holder(comm.rank)
    return permute(comm, piece, held, holder, stop - start, op, with_values)


def _carries_values(sr: Semiring) -> bool:
    """Whether a product's values are more than presence (``pair`` under a selecting
    monoid gives ones)."""
    return not (sr.binaryop.name == "pair" and sr.monoid.name in _PATTERN_MONOIDS)


def _local(op: str, x: Vector, block: Any, sr: Semiring, mask: Any, executor: str) -> Vector:
    """The product on this process's block (timed in an open trace)."""
    timer = Timer()
    if op == "vxm":
        partial = ops.vxm(x, block, sr, mask=mask, executor=executor)
    else:
        partial = ops.mxv(block, x, sr, mask=mask, executor=executor)
    timer.done(op, "local", nnz=x.nnz, size=partial.size)
    return partial


def _prepare(
    u: Any,
    A: Any,
    semiring: Any,
    mask: Any,
    out: Any,
    name: str,  # noqa: N803
) -> Semiring:
    """The operands checked (types, ``u`` on the matching partition of ``A``); the semiring."""
    _check(u, A, mask, out, name)
    if name == "vxm":
        A.rows.check_same(u.partition, "vxm: u and the rows of A")
    else:
        A.cols.check_same(u.partition, "mxv: u and the columns of A")
    return operator(semiring, (Semiring,), "semiring")


def _check(u: Any, A: Any, mask: Any, out: Any, name: str) -> None:  # noqa: N803
    if not isinstance(A, DistMatrix):
        raise InvalidObject(f"{name}: A must be a DistMatrix, got {short_repr(A)}")
    if not isinstance(u, DistVector):
        raise InvalidObject(f"{name}: u must be a DistVector, got {short_repr(u)}")
    if mask is not None and not isinstance(mask, DistMask | DistVector):
        raise InvalidObject(
            f"{name}: mask must be a DistVector or its .S / ~.S, got {short_repr(mask)}"
        )
    if out is not None and not isinstance(out, DistVector):
        raise InvalidObject(f"{name}: out must be a DistVector, got {short_repr(out)}")


def _as_mask(mask: DistMask | DistVector | None) -> DistMask | None:
    return mask.V if isinstance(mask, DistVector) else mask


def _block_mask(
    mask: DistMask | DistVector | None, part: Any, group: Any, op: str, *, column: bool
) -> Any:
    """The mask over this process's output block: its pieces (in the column layout, for a
    column block) gathered along ``group``."""
    mask = _as_mask(mask)
    if mask is None:
        return None
    mask.parent.partition.check_same(part, f"{op}: the mask and the output")
    comm = mask.parent.comm
    grid = part.grid
    local = mask.parent.local
    if column:
        local = _to_column_layout(comm, local, part, op, not mask.structural)
        i, j = grid.coords(comm.rank)
        lengths = part.lengths(j * grid.rows, grid.rows)
    else:
        i, _ = grid.coords(comm.rank)
        lengths = part.lengths(i * grid.cols, grid.cols)
    block = gather(group, local, lengths, not mask.structural, op, "mask")
    return mask.over(block)


def _write(
    result: Vector,
    part: Any,
    comm: Any,
    mask: DistMask | DistVector | None,
    accum: Any,
    replace: bool,
    out: DistVector | None,
) -> DistVector:
    """The result piece written as GraphBLAS says: mask, accum, replace, into ``out``."""
    mask = _as_mask(mask)
    local_mask = None if mask is None else mask.local()
    if out is None:
        written = result if local_mask is None else ops.apply(result, "identity", mask=local_mask)
        return DistVector(comm, part, written)
    out.partition.check_same(part, "the output")
    ops.apply(result, "identity", mask=local_mask, accum=accum, replace=replace, out=out.local)
    return out
