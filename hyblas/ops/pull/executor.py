"""Run a product by pulling: each output the mask allows reduces its own row of the edge matrix.

The rows the mask rules out are never read: the allowed outputs are listed first (the entries
of a structural mask directly, a compaction of the allowed positions otherwise), and only they
are walked. For monoids where one contribution can make a row final (``lor`` and ``land``,
``min`` / ``max`` at the end of their domain, ``any``) the walk of a row stops there: the
direction-optimizing BFS's bottom-up step. CUDA kernels on the GPU, the NumPy emulation of the
same walk on the CPU.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...backend import compile_module, launch, translate_oom
from ...semiring.operators import BinaryOp, Semiring
from ...vector import Vector
from .. import mask as _mask
from ..kernels import BLOCK_KERNEL_THREADS, HEAVY_ROW, cast_values, placeholder
from ..kernels import heavy_rows as _heavy_rows
from . import emulation
from . import kernels as _k

__all__ = ["spmv", "pull", "allowed_rows"]

ROWS_KERNEL_THREADS = 256


def spmv(
    edges: Any, u: Any, semiring: Semiring, *, flip: bool, mask: Any, accum: BinaryOp | None,
    replace: bool, out: Any, backend: str, stats: dict[str, int] | None = None,
) -> Any:  # fmt: skip
    """``w<mask> accum= E ⊕.⊗ u``, walking only the rows of the edge matrix ``edges`` that
    ``mask`` allows. ``flip`` multiplies ``u_j ⊗ E_ij`` (``vxm`` passes ``Aᵀ``). With
    ``stats``, ``stats['edges']`` receives the number of edges examined."""
    mask = _mask.as_mask(mask)
    u_values, u_present = u._as_bitmap()
    rows, allowed = allowed_rows(mask, edges._xp)
    values, present, examined = pull(edges, u_values, None if u.nnz == u.size else u_present,
                                     semiring, flip=flip, rows=rows, allowed=allowed,
                                     count=stats is not None)  # fmt: skip
    if stats is not None:
        stats["edges"] = examined
    if out is None and accum is None:  # only allowed outputs were computed
        return Vector._from_bitmap(values, present, backend=backend)
    return _mask.write_vector(out, values, present, mask=mask, accum=accum, replace=replace,
                              backend=backend)  # fmt: skip


def allowed_rows(mask: Any, xp: Any) -> tuple[Any, Any]:
    """``(rows, allowed)`` for the outputs ``mask`` allows: ``allowed`` is the bool array over
    all outputs; ``rows`` their sorted int64 ids when the mask lists them already (a
    structural mask of a sparse vector), else None (the walk tests ``allowed`` per output).
    Both None without a mask: every row is walked."""
    if mask is None:
        return None, None
    parent = mask.parent
    if mask.structural and not mask.complement and parent.format == "sparse":
        rows = parent._as_sparse()[0].astype(np.int64, copy=False)
        allowed = xp.zeros(parent.size, dtype=bool)
        allowed[rows] = True
        return rows, allowed
    return None, _mask.vector_allowed(mask)


def pull(edges: Any, u_values: Any, u_present: Any | None, semiring: Semiring, *, flip: bool,
         rows: Any | None, allowed: Any | None, count: bool = False
         ) -> tuple[Any, Any, int | None]:  # fmt: skip
    """The bitmap ``(values, present)`` of the product over the outputs ``rows`` lists, or
    else those ``allowed`` allows (every output when both are None), and, with ``count`` (or
    on the CPU), the number of edges examined. ``u_present`` None means every input is
    present."""
    op_type = semiring.input_type(edges.dtype, u_values.dtype)
    x = u_values.astype(op_type, copy=False)
    if edges.backend == "cpu":
        if rows is None and allowed is not None:
            rows = np.flatnonzero(allowed)
        return emulation.pull(edges, rows, x, u_present, semiring, op_type, flip=flip)
    return _pull_cuda(edges, x, u_present, semiring, op_type, flip=flip, rows=rows,
                      allowed=allowed, count=count)  # fmt: skip


@functools.lru_cache(maxsize=256)
def _kernels(semiring: Semiring, op_type: np.dtype, ids: np.dtype,
             flags: tuple[Any, ...]) -> tuple[Any, Any]:  # fmt: skip
    """(rows kernel, block kernel) for one specialization (cached)."""
    flip, all_present, rows, count = flags
    names = (_k.rows_name(ids, flip, all_present, rows, count),
             _k.block_name(ids, flip, all_present, count))  # fmt: skip
    module = compile_module(_k.specialize(semiring, op_type), names)
    return module.get_function(names[0]), module.get_function(names[1])


def _pull_cuda(edges: Any, x: Any, x_present: Any | None, semiring: Semiring,
               op_type: np.dtype, *, flip: bool, rows: Any | None, allowed: Any | None,
               count: bool) -> tuple[Any, Any, int | None]:  # fmt: skip
    xp = edges._xp
    out_type = semiring.output_type(op_type)
    n = edges.nrows
    values = xp.zeros(n, dtype=out_type)
    present = xp.zeros(n, dtype=bool)
    examined = xp.zeros(1, dtype=np.uint64)
    mode = "listed" if rows is not None else "every" if allowed is None else "allowed"
    walkers = int(rows.size) if rows is not None else n
    if walkers == 0 or edges.nnz == 0:
        return values, present, 0 if count else None
    heavy = _heavy_rows(edges)
    all_present = x_present is None
    walk, block = _kernels(semiring, op_type, edges._indptr.dtype,
                           (flip, all_present, mode, count))  # fmt: skip
    a = cast_values(edges, op_type)
    unused = placeholder(xp, np.bool_)
    flags = unused if all_present else x_present.astype(bool, copy=False)
    listed = rows if rows is not None else placeholder(xp, np.int64)
    allowed_flags = unused if allowed is None else allowed
    operands = (edges._indptr, edges._indices, a, x, flags, values, present, examined)
    with translate_oom("pull SpMV"):
        blocks = -(-walkers // ROWS_KERNEL_THREADS)
        launch(walk, (blocks,), (ROWS_KERNEL_THREADS,),
               (np.int64(walkers), listed, allowed_flags, np.int64(_k.THREAD_EDGES),
                np.int64(HEAVY_ROW), *operands))  # fmt: skip
        if heavy.size:
            launch(block, (int(heavy.size),), (BLOCK_KERNEL_THREADS,),
                   (np.int64(heavy.size), heavy, allowed_flags,
                    np.int32(allowed is not None), *operands))  # fmt: skip
    return values, present, int(examined[0]) if count else None
