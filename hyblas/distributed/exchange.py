"""The frontier exchange: pieces of a vector sent as index lists or bitmaps, whichever is
smaller, and the collectives of a partitioned product built on them.

A piece travels as one uint8 message: a 16-byte header (encoding, entries), then either the
entries' indices (int32 within the piece, int64 beyond 2**31 elements) and their values
(*sparse*), or one bit per element and every element's value (*bitmap*), each part padded to
8 bytes. :func:`choose` is the cost model: the encoding with fewer bytes. Values are left out
where the receiver ignores them (a ``pair`` product's input, a structural mask); the receiver
then sees ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import monoid as _monoid
from .. import ops
from ..backend import Communicator, to_numpy, xp_for
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..operators import Monoid
from .trace import Timer

__all__ = [
    "Choice",
    "choose",
    "encode",
    "decode",
    "concatenate",
    "gather",
    "reduce",
    "permute",
    "HEADER_BYTES",
]

HEADER_BYTES = 16
SPARSE, BITMAP = 0, 1
# monoids a dense reduce-scatter computes, as the collective's reduction (and its identity)
_DENSE = {"plus": "sum", "times": "prod", "min": "min", "max": "max", "any": "min"}
_DENSE_BOOL = {"lor": "max", "land": "min", "any": "max"}


@dataclass(frozen=True)
class Choice:
    """The cost model's decision for one piece.

    Attributes
    ----------
    encoding : {'sparse', 'bitmap'}
    sparse_bytes, bitmap_bytes : int
        The message's size in either encoding.
    """

    encoding: str
    sparse_bytes: int
    bitmap_bytes: int


def _pad8(nbytes: int) -> int:
    return -(-nbytes // 8) * 8


def _index_type(size: int) -> np.dtype:
    return np.dtype(np.int32) if size < 2**31 else np.dtype(np.int64)


def choose(nnz: int, size: int, value_bytes: int) -> Choice:
    """The smaller encoding of a piece of ``size`` elements holding ``nnz`` entries.

    Parameters
    ----------
    nnz, size : int
    value_bytes : int
        Bytes per value sent (0 where values are left out).

    Examples
    --------
    >>> hb.distributed.choose(10, 100_000, 0).encoding  # a narrow frontier: its indices
    'sparse'
    >>> hb.distributed.choose(50_000, 100_000, 0).encoding  # a wide one: a bitmap
    'bitmap'
    """
    index_bytes = _index_type(size).itemsize
    sparse = HEADER_BYTES + _pad8(nnz * index_bytes) + nnz * value_bytes
    bitmap = HEADER_BYTES + _pad8(-(-size // 8)) + size * value_bytes
    return Choice("sparse" if sparse <= bitmap else "bitmap", sparse, bitmap)


def encode(piece: Vector, with_values: bool) -> tuple[Any, Choice]:
    """The message of ``piece`` in its smaller encoding (:func:`choose`), read from the
    storage the vector holds (its sorted indices, or its bitmap).

    Examples
    --------
    >>> message, choice = hb.distributed.encode(hb.Vector.from_coo([3], [2.5], size=8), True)
    >>> choice.encoding, message.size
    ('sparse', 32)
    """
    xp = piece.xp
    nnz = piece.nnz
    choice = choose(nnz, piece.size, piece.dtype.itemsize if with_values else 0)
    parts = [xp.asarray([SPARSE if choice.encoding == "sparse" else BITMAP, nnz], np.int64)]
    if choice.encoding == "sparse":
        ids, values = piece.as_sparse()
        parts.append(_padded(xp, ids.astype(_index_type(piece.size))))
    else:
        values, present = piece.as_bitmap()
        parts.append(_padded(xp, xp.packbits(present)))
    if with_values:
        parts.append(values.astype(piece.dtype, copy=False))
    return xp.concatenate([part.view(np.uint8) for part in parts]), choice


def _padded(xp: Any, array: Any) -> Any:
    raw = array.view(np.uint8)
    extra = _pad8(raw.size) - raw.size
    return xp.concatenate([raw, xp.zeros(extra, np.uint8)]) if extra else raw


def decode(message: Any, size: int, dtype: Any, with_values: bool, backend: str) -> Vector:
    """The piece of ``size`` elements a message from :func:`encode` carries (values are ones
    of ``dtype`` where they were left out): sparse or bitmap storage, as it travelled.

    Examples
    --------
    >>> v = hb.Vector.from_coo([1, 6], [True, True], size=8)
    >>> message, _ = hb.distributed.encode(v, False)
    >>> hb.distributed.decode(message, 8, bool, False, "cpu").to_coo()
    (array([1, 6]), array([ True,  True]))
    """
    xp = xp_for(backend)
    kind, nnz = (int(v) for v in to_numpy(message[:HEADER_BYTES].copy().view(np.int64)))
    body = message[HEADER_BYTES:]
    dtype = np.dtype(dtype)
    if kind == SPARSE:
        index_type = _index_type(size)
        span = nnz * index_type.itemsize
        ids = body[:span].copy().view(index_type).astype(np.int64)
        start = _pad8(span)
        if with_values:
            values = body[start : start + nnz * dtype.itemsize].copy().view(dtype)
        else:
            values = xp.ones(nnz, dtype=dtype)
        return Vector(size, dtype, backend=backend, sparse=(ids, values), nnz=nnz)
    span = -(-size // 8)
    present = xp.unpackbits(body[:span])[:size].astype(bool)
    if with_values:
        start = _pad8(span)
        values = body[start : start + size * dtype.itemsize].copy().view(dtype)
    else:
        values = xp.ones(size, dtype=dtype)
    return Vector(size, dtype, backend=backend, bitmap=(values, present), nnz=nnz)


def concatenate(pieces: list[Vector]) -> Vector:
    """The pieces end to end: sparse storage if every piece is sparse, else a bitmap.

    Examples
    --------
    >>> a, b = hb.Vector.from_coo([1], [1.0], size=2), hb.Vector.from_coo([0], [2.0], size=3)
    >>> hb.distributed.concatenate([a, b]).to_coo()
    (array([1, 2]), array([1., 2.]))
    """
    first = pieces[0]
    xp, dtype = first.xp, first.dtype
    sizes = [piece.size for piece in pieces]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    nnz = sum(piece.nnz for piece in pieces)
    if all(piece.stored_bitmap is None for piece in pieces):
        ids = xp.concatenate([p.as_sparse()[0] + int(offsets[k]) for k, p in enumerate(pieces)])
        values = xp.concatenate([p.as_sparse()[1].astype(dtype, copy=False) for p in pieces])
        return Vector(int(offsets[-1]), dtype, backend=first.backend, sparse=(ids, values),
                      nnz=nnz)  # fmt: skip
    values = xp.concatenate([p.as_bitmap()[0].astype(dtype, copy=False) for p in pieces])
    present = xp.concatenate([p.as_bitmap()[1] for p in pieces])
    return Vector.wrap_bitmap(values, present, backend=first.backend, nnz=nnz)


def gather(
    group: Communicator, piece: Vector, lengths: list[int], with_values: bool, op: str, step: str
) -> Vector:
    """The pieces of the processes of ``group`` (``piece`` from this one, of ``lengths[k]``
    elements from member ``k``), concatenated in the group's rank order: an all-gather of
    each piece in its smaller encoding. A group of one returns ``piece`` itself.

    Examples
    --------
    >>> comm = hb.distributed.SelfCommunicator("cpu")
    >>> v = hb.Vector.from_coo([2], [1.5], size=4)
    >>> hb.distributed.gather(comm, v, [4], True, "vxm", "gather").to_coo()
    (array([2]), array([1.5]))
    """
    timer = Timer(group)
    if group.size == 1:  # nothing to send: the piece is the block
        timer.done(op, step, nnz=piece.nnz, size=piece.size)
        return piece
    message, choice = encode(piece, with_values)
    found = [
        decode(m, n, piece.dtype, with_values, piece.backend)
        for m, n in zip(group.allgatherv(message), lengths)
    ]
    result = concatenate(found)
    timer.done(op, step, choice=choice, nnz=piece.nnz, size=piece.size)
    return result


def dense_reduction(monoid: Monoid, dtype: np.dtype) -> str | None:
    """The collective's reduction that computes ``monoid`` on ``dtype``, or None."""
    if dtype == np.bool_:
        return _DENSE_BOOL.get(monoid.name)
    return _DENSE.get(monoid.name) if dtype.kind in "iuf" else None


def dense_identity(reduction: str, dtype: np.dtype) -> Any:
    """The identity of the collective's ``reduction`` on ``dtype``."""
    if reduction in ("sum", "prod"):
        return dtype.type(0 if reduction == "sum" else 1)
    if dtype == np.bool_:
        return np.bool_(reduction == "min")
    if dtype.kind == "f":
        return dtype.type(np.inf if reduction == "min" else -np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.max if reduction == "min" else info.min)


def reduce(
    group: Communicator,
    partial: Vector,
    lengths: list[int],
    monoid: Monoid,
    with_values: bool,
    op: str,
) -> Vector:
    """Combine the processes' ``partial`` results over one block with ``monoid``, and keep
    this process's piece of the block (member ``k`` gets ``lengths[k]`` elements).

    Where the monoid is one of the collective's reductions and the widest partial is dense
    enough, a reduce-scatter of full blocks (values and a presence byte per element); else
    every piece of the partial travels to its member in its smaller encoding (all-to-all) and
    the receiver combines what arrived with ``monoid``.

    Examples
    --------
    >>> comm = hb.distributed.SelfCommunicator("cpu")
    >>> partial = hb.Vector.from_coo([0, 3], [2.0, 1.0], size=4)
    >>> hb.distributed.reduce(comm, partial, [4], hb.monoid.plus, True, "vxm").to_coo()
    (array([0, 3]), array([2., 1.]))
    """
    timer = Timer(group)
    if group.size == 1:  # nothing to combine
        timer.done(op, "reduce", nnz=partial.nnz, size=partial.size)
        return partial
    xp = partial.xp
    dtype = partial.dtype
    value_bytes = dtype.itemsize if with_values else 0
    reduction = dense_reduction(monoid, dtype)
    block = partial.size
    nnz = partial.nnz
    dense_bytes = block * (value_bytes + 1) * (group.size - 1) // max(group.size, 1)
    widest = int(group.allreduce_scalar(nnz, "max", np.int64)) if reduction else 0
    sparse_estimate = widest * (_index_type(block).itemsize + value_bytes)
    mine = lengths[group.rank]
    if reduction is not None and dense_bytes < sparse_estimate:
        values, present = partial.as_bitmap()
        present = group.reduce_scatter(present.view(np.uint8), lengths, "max").view(bool)
        if with_values:
            full = xp.where(partial.as_bitmap()[1], values, dense_identity(reduction, dtype))
            values = group.reduce_scatter(full.astype(dtype, copy=False), lengths, reduction)
        else:
            values = xp.ones(mine, dtype=dtype)
        result = Vector.wrap_bitmap(values, present, backend=partial.backend)
        estimate = Choice("dense", sparse_estimate, dense_bytes)
        timer.done(op, "reduce", choice=estimate, nnz=nnz, size=block)
        return result
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    chunks, sparse_total, bitmap_total = [], 0, 0
    for k in range(group.size):
        message, choice = encode(_slice(partial, int(offsets[k]), int(offsets[k + 1])), with_values)
        chunks.append(message)
        sparse_total += choice.sparse_bytes
        bitmap_total += choice.bitmap_bytes
    arrived = [
        decode(m, mine, dtype, with_values, partial.backend) for m in group.alltoallv(chunks)
    ]
    result = _combine(arrived, monoid)
    encoding = "sparse" if sparse_total <= bitmap_total else "bitmap"
    timer.done(op, "reduce", choice=Choice(encoding, sparse_total, bitmap_total), nnz=nnz,
               size=block)  # fmt: skip
    return result


def _slice(v: Vector, start: int, stop: int) -> Vector:
    """Elements ``start`` to ``stop - 1`` of ``v``, in the storage ``v`` holds."""
    if v.stored_bitmap is not None:
        values, present = v.stored_bitmap
        return Vector(stop - start, v.dtype, backend=v.backend,
                      bitmap=(values[start:stop], present[start:stop]))  # fmt: skip
    ids, values = v.as_sparse()
    lo, hi = (int(c) for c in to_numpy(v.xp.searchsorted(ids, v.xp.asarray([start, stop]))))
    return Vector(stop - start, v.dtype, backend=v.backend,
                  sparse=(ids[lo:hi] - start, values[lo:hi]), nnz=hi - lo)  # fmt: skip


def _combine(arrived: list[Vector], monoid: Monoid) -> Vector:
    """The entries from every sender, combined per index with ``monoid``."""
    xp, first = arrived[0].xp, arrived[0]
    entries = [v.to_coo(device=True) for v in arrived]
    rows = xp.concatenate(
        [xp.full(ids.size, k, dtype=np.int64) for k, (ids, _) in enumerate(entries)]
    )
    M = Matrix.from_coo(
        rows, xp.concatenate([ids for ids, _ in entries]),
        xp.concatenate([values for _, values in entries]), nrows=len(arrived),
        ncols=first.size, dtype=first.dtype, backend=first.backend,
    )  # fmt: skip
    return ops.reduce_columns(M, _monoid[monoid.name][first.dtype])


def permute(
    comm: Communicator,
    piece: Vector,
    to_rank: int,
    from_rank: int,
    size: int,
    op: str,
    with_values: bool = True,
) -> Vector:
    """Send ``piece`` to ``to_rank`` and return the piece ``from_rank`` sends here (of
    ``size`` elements): the move between the row and the column layout. Every process of
    ``comm`` takes part (one all-to-all). Without values the receiver sees ones.

    Examples
    --------
    >>> comm = hb.distributed.SelfCommunicator("cpu")
    >>> v = hb.Vector.from_coo([1], [7], size=3)
    >>> hb.distributed.permute(comm, v, 0, 0, 3, "mxv").to_coo()
    (array([1]), array([7]))
    """
    timer = Timer(comm)
    message, choice = encode(piece, with_values)
    empty = piece.xp.zeros(0, dtype=np.uint8)
    chunks = [message if k == to_rank else empty for k in range(comm.size)]
    arrived = comm.alltoallv(chunks)[from_rank]
    result = decode(arrived, size, piece.dtype, with_values, piece.backend)
    timer.done(op, "permute", choice=choice, nnz=piece.nnz, size=piece.size)
    return result
