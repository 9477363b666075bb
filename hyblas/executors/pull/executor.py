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
from ...containers.derived import heavy_rows, values_as
from ...containers.mask import Mask
from ...containers.vector import Vector
from ...device.codegen import placeholder
from ...device.segments import HEAVY_ROW
from ...operators.classes import Semiring
from ...ops.dispatch import Product
from ...ops.output import write_vector
from ...ops.spec import OutputSpec
from ..reference.kernels import BLOCK_KERNEL_THREADS
from . import emulation
from . import kernels as _k

__all__ = ["run", "pull", "allowed_rows"]

ROWS_KERNEL_THREADS = 256


def run(
    product: Product,
    spec: OutputSpec,
    *,
    may_build: bool = True,
    stats: dict[str, int] | None = None,
) -> Vector:
    """``w<mask> accum= E ⊕.⊗ u``, walking only the rows of the product's edge matrix ``E``
    that ``spec``'s mask allows, written as ``spec`` says. With ``stats``,
    ``stats['edges']`` receives the number of edges examined (``may_build`` is not used: the
    pull needs no layout)."""
    edges, u, mask = product.edges, product.u, spec.mask
    u_values, u_present = u.as_bitmap()
    rows, allowed = allowed_rows(mask, edges.xp)
    values, present, examined = pull(
        edges,
        u_values,
        None if u.nnz == u.size else u_present,
        product.semiring,
        flip=product.flip,
        rows=rows,
        allowed=allowed,
        count=stats is not None,
    )
    if stats is not None:
        stats["edges"] = examined
    if spec.out is None and spec.accum is None:  # only allowed outputs were computed
        return Vector.wrap_bitmap(values, present, backend=spec.backend)
    return write_vector(spec, values, present)


def allowed_rows(mask: Mask | None, xp: Any) -> tuple[Any, Any]:
    """``(rows, allowed)`` for the outputs ``mask`` allows: ``allowed`` is the bool array over
    all outputs; ``rows`` their sorted int64 ids when the mask lists them already (a
    structural mask of a sparse vector), else None (the walk tests ``allowed`` per output).
    Both None without a mask: every row is walked."""
    if mask is None:
        return None, None
    parent = mask.parent
    if mask.structural and not mask.complement and parent.format == "sparse":
        rows = parent.as_sparse()[0].astype(np.int64, copy=False)
        allowed = xp.zeros(parent.size, dtype=bool)
        allowed[rows] = True
        return rows, allowed
    return None, mask.allowed()


def pull(
    edges: Any,
    u_values: Any,
    u_present: Any | None,
    semiring: Semiring,
    *,
    flip: bool,
    rows: Any | None,
    allowed: Any | None,
    count: bool = False,
) -> tuple[Any, Any, int | None]:
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
    return _pull_cuda(
        edges, x, u_present, semiring, op_type, flip=flip, rows=rows, allowed=allowed, count=count
    )


@functools.lru_cache(maxsize=256)
def _kernels(
    semiring: Semiring, op_type: np.dtype, ids: np.dtype, flags: tuple[Any, ...]
) -> tuple[Any, Any]:
    """(rows kernel, block kernel) for one specialization (cached)."""
    flip, all_present, rows, count = flags
    names = (
        _k.rows_name(ids, flip, all_present, rows, count),
        _k.block_name(ids, flip, all_present, count),
    )
    module = compile_module(_k.specialize(semiring, op_type), names)
    return module.get_function(names[0]), module.get_function(names[1])


def _pull_cuda(
    edges: Any,
    x: Any,
    x_present: Any | None,
    semiring: Semiring,
    op_type: np.dtype,
    *,
    flip: bool,
    rows: Any | None,
    allowed: Any | None,
    count: bool,
) -> tuple[Any, Any, int | None]:
    xp = edges.xp
    out_type = semiring.output_type(op_type)
    n = edges.nrows
    values = xp.zeros(n, dtype=out_type)
    present = xp.zeros(n, dtype=bool)
    examined = xp.zeros(1, dtype=np.uint64)
    mode = "listed" if rows is not None else "every" if allowed is None else "allowed"
    walkers = int(rows.size) if rows is not None else n
    if walkers == 0 or edges.nnz == 0:
        return values, present, 0 if count else None
    heavy = heavy_rows(edges)
    all_present = x_present is None
    walk, block = _kernels(semiring, op_type, edges.indptr.dtype, (flip, all_present, mode, count))
    a = values_as(edges, op_type)
    unused = placeholder(xp, np.bool_)
    flags = unused if all_present else x_present.astype(bool, copy=False)
    listed = rows if rows is not None else placeholder(xp, np.int64)
    allowed_flags = unused if allowed is None else allowed
    operands = (edges.indptr, edges.indices, a, x, flags, values, present, examined)
    with translate_oom("pull SpMV"):
        blocks = -(-walkers // ROWS_KERNEL_THREADS)
        launch(
            walk,
            (blocks,),
            (ROWS_KERNEL_THREADS,),
            (
                np.int64(walkers),
                listed,
                allowed_flags,
                np.int64(_k.THREAD_EDGES),
                np.int64(HEAVY_ROW),
                *operands,
            ),
        )
        if heavy.size:
            launch(
                block,
                (int(heavy.size),),
                (BLOCK_KERNEL_THREADS,),
                (
                    np.int64(heavy.size),
                    heavy,
                    allowed_flags,
                    np.int32(allowed is not None),
                    *operands,
                ),
            )
    return values, present, int(examined[0]) if count else None
