"""The dense executor's CUDA kernels, specialized per semiring, operand type and output write.

``dense_spmv.cu`` is written against ``string.Template`` placeholders (listed at its top);
:func:`specialize` fills them from a semiring, the accumulator and the output and mask types.
The shared-memory accumulator is a 4- or 8-byte word (:mod:`hyblas.device.words`).
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .... import dtypes as _dt
from ....device.words import accumulator_substitutions, atomic_combine, word_bytes
from ....operators import BUILTIN_NAMES, NAMESPACES
from ....operators.classes import BinaryOp, Semiring

__all__ = [
    "specialize",
    "heavy_name",
    "light_name",
    "phase1_name",
    "reduce_name",
    "unpermute_name",
    "chunks_name",
    "SPLIT_INIT",
    "UNPERMUTE_ROWS",
    "word_bytes",
    "atomic_combine",
    "builtin_specializations",
]

SPLIT_INIT = "hyblas_dense_split_init"
UNPERMUTE_ROWS = 4  # rows per thread of the unpermute pass: HYBLAS_UNPERMUTE_BATCH

_SOURCE = Path(__file__).with_name("dense_spmv.cu")


@functools.cache
def _text() -> str:
    return _SOURCE.read_text()


def specialize(
    semiring: Semiring,
    op_type: np.dtype,
    *,
    out_dtype: np.dtype | None = None,
    mask_dtype: np.dtype | None = None,
    accum: BinaryOp | None = None,
) -> str:
    """``dense_spmv.cu`` for ``semiring`` on ``op_type``, writing ``out_dtype`` through a mask of
    ``mask_dtype`` values with ``accum`` (each optional)."""
    op_type = np.dtype(op_type)
    out_type = semiring.output_type(op_type)
    out_dtype = np.dtype(out_dtype) if out_dtype is not None else out_type
    if accum is not None:
        acc_type = accum.input_type(out_dtype, out_type)
        accum_expr = accum.cuda
    else:
        acc_type, accum_expr = out_type, "(x)"
    return string.Template(_text()).substitute(
        **accumulator_substitutions(semiring, op_type),
        O=_dt.cuda_name(out_dtype),
        M=_dt.cuda_name(np.dtype(mask_dtype) if mask_dtype is not None else np.dtype(bool)),
        ACC_T=_dt.cuda_name(acc_type),
        ACCUM=accum_expr,
    )


def _flag(value: bool) -> str:
    return "true" if value else "false"


def heavy_name(flip: bool, all_present: bool, iso: bool) -> str:
    return f"hyblas_dense_heavy<{_flag(flip)}, {_flag(all_present)}, {_flag(iso)}>"


def light_name(flip: bool, all_present: bool, iso: bool) -> str:
    return f"hyblas_dense_light<{_flag(flip)}, {_flag(all_present)}, {_flag(iso)}>"


def phase1_name(flip: bool, all_present: bool, iso: bool) -> str:
    """The heavy and light walks in one launch (the plan takes it where their blocks match)."""
    return f"hyblas_dense_phase1<{_flag(flip)}, {_flag(all_present)}, {_flag(iso)}>"


def chunks_name(all_present: bool) -> str:
    return f"hyblas_dense_reduce_chunks<{_flag(all_present)}>"


def reduce_name(
    all_present: bool,
    permuted: bool,
    has_mask: bool,
    structural: bool,
    complement: bool,
    has_out: bool,
    accum: bool,
    replace: bool,
) -> str:
    flags = ", ".join(
        _flag(f)
        for f in (all_present, permuted, has_mask, structural, complement, has_out, accum, replace)
    )
    return f"hyblas_dense_reduce<{flags}>"


def unpermute_name(
    has_mask: bool,
    structural: bool,
    complement: bool,
    has_out: bool,
    accum: bool,
    replace: bool,
    row_index: str = "int",
) -> str:
    flags = ", ".join(_flag(f) for f in (has_mask, structural, complement, has_out, accum, replace))
    return f"hyblas_dense_unpermute<{flags}, {row_index}>"


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel names)`` for every built-in semiring and dtype (compile test).

    Each specialization instantiates both phase-1 kernels and their one-launch form, both
    chunked phase-2a variants with the split-panel initialisation, three phase-2 variants (one
    for a permuted layout) and two of the permuted layout's unpermute pass; plus_times
    additionally with a value mask of another type and a ``plus`` accumulator.
    """
    names = [
        heavy_name(False, False, False),
        heavy_name(True, True, True),
        light_name(False, False, False),
        light_name(True, True, True),
        phase1_name(False, False, False),
        phase1_name(True, True, True),
        reduce_name(True, False, False, False, False, False, False, False),
        reduce_name(False, False, True, True, True, True, False, True),
        reduce_name(True, True, False, False, False, False, False, False),
        unpermute_name(False, False, False, False, False, False),
        unpermute_name(True, True, True, True, False, True, "long long"),
        chunks_name(True),
        chunks_name(False),
        SPLIT_INIT,
    ]
    for semiring_name in sorted(BUILTIN_NAMES["semiring"]):
        semiring = NAMESPACES["semiring"][semiring_name]
        for op_type in sorted(semiring.types, key=lambda d: d.name):
            yield f"dense_{semiring_name}_{op_type.name}", specialize(semiring, op_type), names
    plus_times = NAMESPACES["semiring"]["plus_times"]
    plus = NAMESPACES["binary"]["plus"]
    source = specialize(
        plus_times,
        np.dtype(np.float32),
        out_dtype=np.dtype(np.float64),
        mask_dtype=np.dtype(np.int8),
        accum=plus,
    )
    yield (
        "dense_plus_times_accum",
        source,
        [
            reduce_name(False, False, True, False, False, True, True, False),
            unpermute_name(True, False, False, True, True, False),
        ],
    )
