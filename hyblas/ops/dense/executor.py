"""Run a product on the dense layout: CUDA kernels on the GPU, the NumPy emulation on the CPU.

Phase 1 (heavy and light kernels) writes one partial result per slot; phase 2 reduces each row
panel's slots and, on the GPU, applies mask / accumulation / replace in the same pass, writing
every output position once into new arrays that are then swapped into ``out`` (so nothing is
changed if anything raised before). On the CPU the emulated phase 2 hands its result to
:func:`hyblas.ops.mask.write_vector`, whose semantics the fused write reproduces.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes as _dt
from ...backend import compile_module, launch, translate_oom
from ...errors import InvalidValue
from ...semiring.operators import BinaryOp, Semiring
from .. import mask as _mask
from . import emulation
from . import kernels as _k
from .layout import DenseLayout, layout_of
from .params import current_params

__all__ = ["spmv", "shared_bytes", "SHARED_LIMIT"]

SHARED_LIMIT = 227 * 1024  # the H100's opt-in maximum of dynamic shared memory per block


def _align8(n: int) -> int:
    return (n + 7) & ~7


def shared_bytes(height: int, width: int, op_type: np.dtype, out_type: np.dtype) -> int:
    """Dynamic shared memory of a kernel block: mirrors ``hyblas_carve`` in dense_spmv.cu."""
    at = _align8(height * _k.word_bytes(out_type))
    at = _align8(at + width * np.dtype(op_type).itemsize)
    at = _align8(at + height * 4)
    return at + width


def spmv(
    edges: Any, u: Any, semiring: Semiring, *, flip: bool, mask: Any, accum: BinaryOp | None,
    replace: bool, out: Any, backend: str,
) -> Any:  # fmt: skip
    """``w<mask> accum= E ⊕.⊗ u`` on the dense layout of the edge matrix ``edges``.

    ``flip`` multiplies ``u_j ⊗ E_ij`` (``vxm`` passes ``Aᵀ`` as ``edges``).
    """
    op_type = semiring.input_type(edges.dtype, u.dtype)
    layout = layout_of(edges, current_params())
    u_values, u_present = u._as_bitmap()
    all_present = u.nnz == u.size
    x = u_values.astype(op_type, copy=False)
    present = None if all_present else u_present
    if layout.column_order is not None:
        x = x[layout.column_order]
        present = None if present is None else present[layout.column_order]
    if edges.backend == "cpu":
        partial, partial_present = emulation.phase1(layout, x, present, semiring, op_type,
                                                    flip=flip)  # fmt: skip
        values, here = emulation.phase2(layout, partial, partial_present, semiring)
        return _mask.write_vector(out, values, here, mask=mask, accum=accum, replace=replace,
                                  backend=backend)  # fmt: skip
    return _run_cuda(layout, edges, x, present, semiring, op_type, flip=flip, mask=mask,
                     accum=accum, replace=replace, out=out, backend=backend)  # fmt: skip


def _run_cuda(layout: DenseLayout, edges: Any, x: Any, present: Any, semiring: Semiring,
              op_type: np.dtype, *, flip: bool, mask: Any, accum: BinaryOp | None,
              replace: bool, out: Any, backend: str) -> Any:  # fmt: skip
    from ...vector import Vector  # noqa: PLC0415 - the containers import this package

    xp = edges._xp
    out_type = semiring.output_type(op_type)
    mask = _mask.as_mask(mask)
    accum = _mask.check_accum(accum)
    out_dtype = out_type if out is None else out.dtype
    if out is not None:
        _dt.check_cast(out_type, out.dtype)
        if accum is not None:
            _mask.accum_type(accum, out.dtype, out_type, out.dtype)
    params = layout.params
    width, height = params.column_panel, params.row_panel
    phase1_bytes = shared_bytes(height, width, op_type, out_type)
    if phase1_bytes > SHARED_LIMIT:
        raise InvalidValue(f"dense executor: panels of {width} inputs x {height} outputs need "
                           f"{phase1_bytes} bytes of shared memory for {op_type.name} operands; "
                           f"the limit is {SHARED_LIMIT}")  # fmt: skip
    all_present = present is None
    iso = layout.iso_value is not None
    mask_values = mask_present = None
    if mask is not None:
        mask_values, mask_present = mask.parent._as_bitmap()
    source = _k.specialize(semiring, op_type, out_dtype=out_dtype,
                           mask_dtype=None if mask is None else mask_values.dtype,
                           accum=accum)  # fmt: skip
    row_index = "long long"
    names = (
        _k.heavy_name(flip, all_present, iso),
        _k.light_name(flip, all_present, iso),
        _k.reduce_name(all_present, layout.row_order is not None, mask is not None,
                       mask is not None and mask.structural,
                       mask is not None and mask.complement, out is not None,
                       accum is not None and out is not None, replace and out is not None,
                       row_index),
    )  # fmt: skip
    module = compile_module(source, names)
    heavy, light, reduce = (module.get_function(name) for name in names)
    iso_value = np.dtype(op_type).type(layout.iso_value if iso else 0)
    dummy_t = xp.zeros(1, dtype=op_type)
    dummy_b = xp.zeros(1, dtype=bool)
    u_present = dummy_b if all_present else present
    with translate_oom("dense SpMV"):
        partial = xp.empty(max(layout.slots, 1), dtype=out_type)
        partial_present = xp.empty(max(layout.slots, 1), dtype=bool)
        if layout.heavy_units:
            weights = dummy_t if iso else layout.weights_as("heavy_weights", op_type)
            launch(heavy, (layout.heavy_teams,), (params.heavy_threads,), (
                np.int32(width), np.int32(height), np.int64(layout.ncols), layout.team_begin,
                layout.team_end, layout.heavy_panel,
                layout.heavy_steps, layout.heavy_offset, layout.heavy_slot_base,
                layout.heavy_slot_count, layout.heavy_table, weights, iso_value,
                layout.slot_dst, x, u_present, partial, partial_present,
            ), phase1_bytes)  # fmt: skip
        if layout.light_units:
            weights = dummy_t if iso else layout.weights_as("light_weights", op_type)
            light_bytes = shared_bytes(0, width, op_type, out_type)
            launch(light, (layout.light_units,), (params.light_threads,), (
                np.int32(width), np.int64(layout.ncols), layout.light_panel, layout.light_begin,
                layout.light_end, layout.light_src, weights, iso_value, layout.light_slot, x,
                u_present, partial, partial_present,
            ), light_bytes)  # fmt: skip
        new_values = xp.empty(layout.nrows, dtype=out_dtype)
        new_present = xp.empty(layout.nrows, dtype=bool)
        if layout.row_panels:
            old_values, old_present = (out._as_bitmap() if out is not None else
                                       (xp.zeros(1, dtype=out_dtype), dummy_b))  # fmt: skip
            row_order = layout.row_order if layout.row_order is not None else \
                xp.zeros(1, dtype=np.int64)  # fmt: skip
            reduce_bytes = shared_bytes(height, 0, op_type, out_type)
            launch(reduce, (layout.row_panels,), (params.reduce_threads,), (
                np.int32(height), np.int64(layout.nrows), layout.slot_ptr, layout.slot_dst,
                partial, partial_present, row_order,
                mask_values if mask is not None else dummy_b,
                mask_present if mask is not None else dummy_b,
                old_values, old_present, new_values, new_present,
            ), reduce_bytes)  # fmt: skip
    if out is None:
        return Vector._from_bitmap(new_values, new_present, backend=backend)
    out._set_content(bitmap=(new_values, new_present))
    return out
