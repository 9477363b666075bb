"""Run a product on the dense layout: CUDA kernels on the GPU, the NumPy emulation on the CPU.

Phase 1 (heavy and light kernels) writes one partial result per slot; phase 2 reduces each row
panel's slots and, on the GPU, applies mask / accumulation / replace in the same pass, writing
every output position once into new arrays that are then swapped into ``out`` (so nothing is
changed if anything raised before). Where the layout renumbered the outputs, phase 2 writes its
results in internal order instead and an unpermute pass reads each output's result at its
internal position and does that write. On the CPU the emulated phase 2 hands its result to
:func:`hyblas.ops.output.write_vector`, whose semantics the fused write reproduces.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import dtypes as _dt
from ...backend import PreparedLaunch, compile_module, max_block_threads, translate_oom
from ...containers.derived import nonempty_rows
from ...containers.matrix import Matrix
from ...containers.vector import Vector
from ...device.codegen import placeholder
from ...errors import InvalidValue
from ...operators.classes import BinaryOp, Semiring
from ...ops.dispatch import Product
from ...ops.output import accum_type, narrower, write_vector
from ...ops.spec import OutputSpec
from . import emulation
from . import kernels as _k
from .layout import DenseLayout, layout_key, layout_of
from .params import DenseParams, current_params

__all__ = ["run", "fits", "has_layout", "shared_bytes", "heavy_groups", "SHARED_LIMIT"]

SHARED_LIMIT = 227 * 1024  # the H100's opt-in maximum of dynamic shared memory per block


def _align8(n: int) -> int:
    return (n + 7) & ~7


def shared_bytes(
    height: int, width: int, op_type: np.dtype, out_type: np.dtype, flags: bool = True
) -> int:
    """Dynamic shared memory of a kernel block: mirrors ``hyblas_carve`` in dense_spmv.cu
    (``flags``: the found / present flags, which only partly present inputs and phase 2 use)."""
    at = _align8(height * _k.word_bytes(out_type))
    at = at + width * np.dtype(op_type).itemsize
    if not flags:
        return at
    at = _align8(_align8(at) + height * 4)
    return at + width


def run(
    product: Product,
    spec: OutputSpec,
    *,
    may_build: bool = True,
    stats: dict[str, int] | None = None,
) -> Vector:
    """``w<mask> accum= E ⊕.⊗ u`` on the dense layout of the product's edge matrix ``E``,
    written as ``spec`` says (``may_build`` and ``stats`` are not used: the layout is built
    when missing, and every stored entry is walked)."""
    edges, u, semiring, flip = product.edges, product.u, product.semiring, product.flip
    op_type = semiring.input_type(edges.dtype, u.dtype)
    layout = layout_of(edges, current_params())
    u_values, u_present = u.as_bitmap()
    all_present = u.nnz == u.size
    x = u_values.astype(op_type, copy=False)
    present = None if all_present else u_present
    if layout.column_order is not None:  # the columns with entries, in internal order
        x = x[layout.column_order]
        present = None if present is None else present[layout.column_order]
    if edges.backend == "cpu":
        partial, partial_present = emulation.phase1(
            layout, x, present, semiring, op_type, flip=flip
        )
        values, here = emulation.phase2(layout, partial, partial_present, semiring)
        return write_vector(spec, values, here)
    return _run_cuda(layout, edges, x, present, semiring, op_type, flip=flip, spec=spec)


def fits(product: Product, params: DenseParams | None = None) -> bool:
    """Whether a block of ``params`` (default: the current set) holds a panel's inputs and
    outputs for this product's operand and result types in shared memory."""
    params = params or current_params()
    op_type = product.semiring.input_type(product.edges.dtype, product.u.dtype)
    needed = shared_bytes(
        params.row_panel, params.column_panel, op_type, product.semiring.output_type(op_type)
    )
    return needed <= SHARED_LIMIT


def has_layout(edges: Matrix, params: DenseParams | None = None) -> bool:
    """Whether ``edges`` has its dense layout for ``params`` (default: the current set)."""
    return layout_key(params or current_params()) in edges.cache


def heavy_groups(
    params: DenseParams,
    op_type: np.dtype,
    out_type: np.dtype,
    all_present: bool,
    block_threads: int = 1024,
) -> int:
    """Groups per heavy thread block: ``params.block_groups``, or fewer where the kernel's
    blocks may not have ``block_threads`` threads (its registers) or where the groups'
    accumulators and the panel would not fit in shared memory (at least one group must)."""
    width, height = params.column_panel, params.row_panel
    flags = not all_present
    most = max(1, min(params.block_groups, block_threads // params.heavy_threads))
    for groups in range(most, 0, -1):
        if shared_bytes(height * groups, width, op_type, out_type, flags=flags) <= SHARED_LIMIT:
            return groups
    needed = shared_bytes(height, width, op_type, out_type, flags=flags)
    raise InvalidValue(
        f"dense executor: panels of {width} inputs x {height} outputs need "
        f"{needed} bytes of shared memory for {np.dtype(op_type).name} operands; "
        f"the limit is {SHARED_LIMIT}"
    )


@dataclass(frozen=True)
class _Kernels:
    """One specialization's kernels and the most threads a block of each phase-1 kernel may
    have (their registers)."""

    heavy: Any
    light: Any
    phase1: Any  # heavy and light in one launch
    reduce: Any
    chunks: Any
    split_init: Any
    unpermute: Any  # None where the layout is not permuted
    heavy_most: int
    light_most: int
    phase1_most: int


@functools.lru_cache(maxsize=256)
def _kernels(
    semiring: Semiring,
    op_type: np.dtype,
    out_dtype: np.dtype,
    mask_dtype: np.dtype | None,
    accum: BinaryOp | None,
    flags: tuple[Any, ...],
) -> _Kernels:
    """The kernels of one specialization (cached: building the source and looking its module up
    cost about as much host time as a small product). ``permuted`` names the type of the
    layout's ``row_position`` (None: not permuted, and no unpermute kernel); the reduce of a
    permuted layout leaves the output write to it."""
    flip, all_present, iso, permuted, *write = flags
    names = [
        _k.heavy_name(flip, all_present, iso),
        _k.light_name(flip, all_present, iso),
        _k.phase1_name(flip, all_present, iso),
        _k.reduce_name(
            all_present,
            permuted is not None,
            *(write if permuted is None else [False] * len(write)),
        ),
        _k.chunks_name(all_present),
        _k.SPLIT_INIT,
    ]
    if permuted is not None:
        names.append(_k.unpermute_name(*write, row_index=permuted))
    source = _k.specialize(
        semiring, op_type, out_dtype=out_dtype, mask_dtype=mask_dtype, accum=accum
    )
    module = compile_module(source, tuple(names))
    heavy, light, phase1, reduce, chunks, split_init, *unpermute = (
        module.get_function(name) for name in names
    )
    return _Kernels(
        heavy,
        light,
        phase1,
        reduce,
        chunks,
        split_init,
        unpermute[0] if unpermute else None,
        max_block_threads(heavy),
        max_block_threads(light),
        max_block_threads(phase1),
    )


def _prepare(
    xp: Any,
    kernel: Any,
    grid: tuple[int],
    block: tuple[int],
    shared: int,
    static: tuple[Any, ...],
    arrays: int,
) -> PreparedLaunch:
    """One kernel's launch: its grid, block, shared bytes and leading arguments (the
    layout's); a product passes its own ``arrays``, every kernel's last arguments, to
    ``run``."""
    examples = (placeholder(xp, np.bool_),) * arrays
    return PreparedLaunch(
        kernel,
        grid,
        block,
        static + examples,
        shared,
        variable=tuple(range(len(static), len(static) + arrays)),
    )


@dataclass(frozen=True)
class _Plan:
    """Everything about a product on one layout and specialization except its arrays, made
    once and kept on the layout: working it out per product costs as much host time as a small
    product takes on the GPU, which the GPU spends idle."""

    phase1: tuple[PreparedLaunch, ...]  # heavy and light in one launch, or each in its own
    split_init: PreparedLaunch | None
    chunks: PreparedLaunch | None
    reduce: PreparedLaunch | None
    unpermute: PreparedLaunch | None
    split_count: int
    word: type
    # one-element arrays for the arguments a specialization neither reads nor writes
    dummy_b: Any
    dummy_out: Any  # of the output's dtype
    dummy_z: Any  # of the result type
    dummy_split: tuple[Any, Any]  # accumulator words and found flags


def _plan(
    layout: DenseLayout,
    xp: Any,
    semiring: Semiring,
    op_type: np.dtype,
    out_dtype: np.dtype,
    mask_dtype: np.dtype | None,
    accum: BinaryOp | None,
    flags: tuple[Any, ...],
) -> _Plan:
    """The plan of a product on ``layout`` (cached on it) for ``flags`` (as :func:`_kernels`
    takes them)."""
    key = (semiring, op_type, out_dtype, mask_dtype, accum, flags)
    plan = layout.plans.get(key)
    if plan is None:
        plan = layout.plans[key] = _make_plan(
            layout, xp, semiring, op_type, out_dtype, mask_dtype, accum, flags
        )
    return plan


def _make_plan(
    layout: DenseLayout,
    xp: Any,
    semiring: Semiring,
    op_type: np.dtype,
    out_dtype: np.dtype,
    mask_dtype: np.dtype | None,
    accum: BinaryOp | None,
    flags: tuple[Any, ...],
) -> _Plan:
    kernels = _kernels(semiring, op_type, out_dtype, mask_dtype, accum, flags)
    all_present, iso = flags[1], flags[2]
    out_type = semiring.output_type(op_type)
    params = layout.params
    width, height = params.column_panel, params.row_panel
    if layout.heavy_units and params.heavy_threads > kernels.heavy_most:  # the tile is fixed
        raise InvalidValue(
            f"dense executor: heavy_threads={params.heavy_threads} is more "
            f"than the {kernels.heavy_most} threads a block of the heavy kernel "
            f"may have for {semiring.name} on {np.dtype(op_type).name} (its "
            f"registers)"
        )
    groups = heavy_groups(params, op_type, out_type, all_present, kernels.heavy_most)
    # the input as gathered into internal order (the columns with entries) or as given
    inputs = layout.ncols if layout.column_order is None else int(layout.column_order.size)
    iso_value = np.dtype(op_type).type(layout.iso_value if iso else 0)
    dummy_t = placeholder(xp, op_type)
    word = np.uint64 if _k.word_bytes(out_type) == 8 else np.uint32
    heavy_static = (
        np.int32(width),
        np.int32(height),
        np.int32(params.heavy_threads),
        np.int64(inputs),
        layout.team_begin,
        layout.team_end,
        layout.heavy_panel,
        layout.heavy_steps,
        layout.heavy_offset,
        layout.heavy_slot_base,
        layout.heavy_slot_count,
        layout.heavy_table,
        dummy_t if iso else layout.weights_as("heavy_weights", op_type),
        iso_value,
        layout.slot_dst,
    )
    light_static = (
        layout.light_panel,
        layout.light_begin,
        layout.light_end,
        layout.light_src,
        dummy_t if iso else layout.weights_as("light_weights", op_type),
        layout.light_slot,
    )
    heavy_block = groups * params.heavy_threads
    light_block = min(params.light_threads, kernels.light_most)
    heavy_shared = shared_bytes(height * groups, width, op_type, out_type, flags=not all_present)
    light_shared = shared_bytes(0, width, op_type, out_type, flags=not all_present)
    # every launch of phase 1 then takes x, its flags, partial, its flags
    if (
        params.phase1_launches == 1
        and layout.heavy_units
        and layout.light_units
        and heavy_block == light_block <= kernels.phase1_most
    ):
        phase1 = (
            _prepare(
                xp,
                kernels.phase1,
                (layout.heavy_teams + layout.light_units,),
                (heavy_block,),
                max(heavy_shared, light_shared),
                (*heavy_static, *light_static, layout.phase1_work(xp)),
                4,
            ),
        )
    else:
        phase1 = ()
        if layout.heavy_units:
            phase1 += (
                _prepare(
                    xp,
                    kernels.heavy,
                    (layout.heavy_teams,),
                    (heavy_block,),
                    heavy_shared,
                    heavy_static,
                    4,
                ),
            )
        if layout.light_units:
            phase1 += (
                _prepare(
                    xp,
                    kernels.light,
                    (layout.light_units,),
                    (light_block,),
                    light_shared,
                    (np.int32(width), np.int64(inputs), *light_static, iso_value),
                    4,
                ),
            )
    plan_split = plan_chunks = plan_reduce = plan_unpermute = None
    reduce_bytes = shared_bytes(height, 0, op_type, out_type)
    split_count = layout.split_panels * height
    if layout.chunks:
        plan_split = _prepare(
            xp,
            kernels.split_init,
            (min(-(-split_count // 512), 4096),),
            (512,),
            0,
            (np.int64(split_count),),
            2,
        )  # then words and flags
        plan_chunks = _prepare(
            xp,
            kernels.chunks,
            (layout.chunks,),
            (params.reduce_threads,),
            reduce_bytes,
            (
                np.int32(height),
                layout.chunk_split,
                layout.chunk_begin,
                layout.chunk_end,
                layout.slot_dst,
            ),
            4,
        )  # then partial, its flags, split words and flags
    if layout.row_panels:
        # then partial, its flags, split words / flags, the six write arrays, internal results
        plan_reduce = _prepare(
            xp,
            kernels.reduce,
            (layout.row_panels,),
            (params.reduce_threads,),
            reduce_bytes,
            (
                np.int32(height),
                np.int64(layout.nrows),
                layout.slot_ptr,
                layout.slot_dst,
                layout.panel_split,
            ),
            12,
        )
        if kernels.unpermute is not None:
            threads = params.reduce_threads
            blocks = min(-(-layout.nrows // (threads * _k.UNPERMUTE_ROWS)), 65535)
            plan_unpermute = _prepare(
                xp,
                kernels.unpermute,
                (blocks,),
                (threads,),
                0,
                (np.int64(layout.nrows), np.int64(layout.live_rows), layout.row_position),
                8,
            )  # then the internal results, the six write arrays
    return _Plan(
        phase1,
        plan_split,
        plan_chunks,
        plan_reduce,
        plan_unpermute,
        split_count,
        word,
        placeholder(xp, np.bool_),
        placeholder(xp, out_dtype),
        placeholder(xp, out_type),
        (placeholder(xp, word), placeholder(xp, np.uint32)),
    )


def _run_cuda(
    layout: DenseLayout,
    edges: Matrix,
    x: Any,
    present: Any,
    semiring: Semiring,
    op_type: np.dtype,
    *,
    flip: bool,
    spec: OutputSpec,
) -> Vector:
    xp = edges.xp
    out_type = semiring.output_type(op_type)
    mask, accum, out, replace = spec.mask, spec.accum, spec.out, spec.replace
    out_dtype = out_type if out is None else out.dtype
    if out is not None:
        _dt.check_cast(out_type, out.dtype)
        if narrower(out_type, out.dtype):  # the values cast into out are checked: not fused
            bare = OutputSpec(spec.backend)
            result = _run_cuda(layout, edges, x, present, semiring, op_type, flip=flip, spec=bare)
            return write_vector(spec, *result.as_bitmap())
        if accum is not None:
            accum_type(accum, out.dtype, out_type, out.dtype)
    all_present = present is None
    mask_values = mask_present = None
    if mask is not None:
        mask_values, mask_present = mask.parent.as_bitmap()
    row_position = layout.row_position
    permuted = None if row_position is None else _dt.cuda_name(row_position.dtype)
    plan = _plan(
        layout,
        xp,
        semiring,
        op_type,
        out_dtype,
        None if mask is None else mask_values.dtype,
        accum,
        (
            flip,
            all_present,
            layout.iso_value is not None,
            permuted,
            mask is not None,
            mask is not None and mask.structural,
            mask is not None and mask.complement,
            out is not None,
            accum is not None and out is not None,
            replace and out is not None,
        ),
    )
    dummy_b = plan.dummy_b
    u_present = dummy_b if all_present else present
    with translate_oom("dense SpMV"):
        partial = xp.empty(max(layout.slots, 1), dtype=out_type)
        # a full input leaves every slot present: its flags are neither written nor read
        partial_present = dummy_b if all_present else xp.empty(max(layout.slots, 1), dtype=bool)
        for launch in plan.phase1:
            launch.run(x, u_present, partial, partial_present)
        split_acc, split_found = plan.dummy_split
        if plan.chunks is not None:
            split_acc = xp.empty(plan.split_count, dtype=plan.word)
            split_found = xp.empty(plan.split_count, dtype=np.uint32)
            plan.split_init.run(split_acc, split_found)
            plan.chunks.run(partial, partial_present, split_acc, split_found)
        new_values = xp.empty(layout.nrows, dtype=out_dtype)
        new_present = xp.empty(layout.nrows, dtype=bool)
        if plan.reduce is not None:
            old_values, old_present = (
                out.as_bitmap() if out is not None else (plan.dummy_out, dummy_b)
            )
            write = (
                mask_values if mask is not None else dummy_b,
                mask_present if mask is not None else dummy_b,
                old_values,
                old_present,
                new_values,
                new_present,
            )
            inner_values, inner_present = plan.dummy_z, dummy_b
            if plan.unpermute is not None:  # results in internal order first
                inner_values = xp.empty(layout.nrows, dtype=out_type)
                inner_present = xp.empty(layout.nrows, dtype=bool)
            plan.reduce.run(
                partial,
                partial_present,
                split_acc,
                split_found,
                *write,
                inner_values,
                inner_present,
            )
            if plan.unpermute is not None:
                plan.unpermute.run(inner_values, inner_present, *write)
    nnz = None
    if all_present and mask is None and (out is None or accum is None):
        nnz = nonempty_rows(edges)[1]  # every row with an entry, and nothing else
    elif mask is None and accum is not None and out is not None and out.known_full():
        nnz = layout.nrows  # accumulated into a full output: it stays full
    # otherwise the bitmap is kept as the kernel wrote it, counted when the count is asked
    # for: counting now would make the host wait for the kernels (a device sync) where the
    # next step, e.g. an improving round's update, reads the bitmap and needs no count
    bitmap = (new_values, new_present)
    result = (
        out
        if out is not None
        else Vector(layout.nrows, out_dtype, backend=spec.backend, bitmap=bitmap)
    )
    result.set_storage(bitmap=bitmap, nnz=nnz, settle=nnz is not None)
    return result
