"""The sparse executor's CUDA kernels, specialized per semiring, operand, index and mask type.

``sparse_push.cu`` is written against ``string.Template`` placeholders (listed at its top);
:func:`specialize` fills them. The work array holds 4- or 8-byte accumulator words
(:mod:`hyblas.device.words`).
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .... import dtypes as _dt
from ....device.words import accumulator_substitutions
from ....operators import BUILTIN_NAMES, NAMESPACES
from ....operators.classes import Semiring

__all__ = [
    "specialize",
    "push_name",
    "spread_name",
    "claims_name",
    "FINISH",
    "FINISH_CALL",
    "FINISH_HIGH",
    "FILL",
    "REFILL",
    "ADVANCE",
    "builtin_specializations",
]

_SOURCE = Path(__file__).with_name("sparse_push.cu")
FINISH = "hyblas_sparse_finish"
FINISH_CALL = "hyblas_sparse_finish_call"
FINISH_HIGH = "hyblas_sparse_finish_high"
FILL = "hyblas_sparse_fill"
REFILL = "hyblas_sparse_refill"
ADVANCE = "hyblas_sparse_advance"


@functools.cache
def _text() -> str:
    return _SOURCE.read_text()


def specialize(
    semiring: Semiring,
    op_type: np.dtype,
    *,
    index_dtype: np.dtype,
    mask_dtype: np.dtype | None = None,
) -> str:
    """``sparse_push.cu`` for ``semiring`` on ``op_type`` over a layout of ``index_dtype`` ids,
    reading a mask of ``mask_dtype`` values (optional)."""
    return string.Template(_text()).substitute(
        **accumulator_substitutions(semiring, op_type),
        ANY="1" if semiring.monoid.name == "any" else "0",
        I=_dt.cuda_name(np.dtype(index_dtype)),
        M=_dt.cuda_name(np.dtype(mask_dtype) if mask_dtype is not None else np.dtype(bool)),
    )


def _flags(*values: bool) -> str:
    return ", ".join("true" if v else "false" for v in values)


def push_name(flip: bool, iso: bool, has_mask: bool, structural: bool, complement: bool) -> str:
    return f"hyblas_sparse_push<{_flags(flip, iso, has_mask, structural, complement)}>"


def spread_name(flip: bool, iso: bool, has_mask: bool, structural: bool, complement: bool) -> str:
    return f"hyblas_sparse_spread<{_flags(flip, iso, has_mask, structural, complement)}>"


def claims_name(has_mask: bool, structural: bool, complement: bool) -> str:
    """The kernel that sets up an ``any`` call's flags and claim bits from the mask."""
    return f"hyblas_sparse_claims<{_flags(has_mask, structural, complement)}>"


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel names)`` for every built-in semiring and dtype (compile test).

    Each specialization instantiates the push and spread kernels (flipped, weighted, with a
    complemented value mask: every semiring- and type-dependent line), the claims kernel with
    that mask, the three finish kernels, the fill and refill kernels and the rounds' advance
    kernel; one more, plus_times with int64 ids and an int8 mask, instantiates the other flags.
    """
    names = [
        push_name(True, False, True, False, True),
        spread_name(True, False, True, False, True),
        claims_name(True, False, True),
        FINISH,
        FINISH_CALL,
        FINISH_HIGH,
        FILL,
        REFILL,
        ADVANCE,
    ]
    int32 = np.dtype(np.int32)
    for semiring_name in sorted(BUILTIN_NAMES["semiring"]):
        semiring = NAMESPACES["semiring"][semiring_name]
        for op_type in sorted(semiring.types, key=lambda d: d.name):
            yield (
                f"sparse_{semiring_name}_{op_type.name}",
                specialize(semiring, op_type, index_dtype=int32),
                names,
            )
    plus_times = NAMESPACES["semiring"]["plus_times"]
    source = specialize(
        plus_times,
        np.dtype(np.float32),
        index_dtype=np.dtype(np.int64),
        mask_dtype=np.dtype(np.int8),
    )
    yield (
        "sparse_plus_times_int64_ids",
        source,
        [
            push_name(False, True, False, False, False),
            push_name(False, False, True, True, False),
            spread_name(False, True, False, False, False),
            claims_name(False, False, False),
            claims_name(True, True, False),
            FINISH,
            FILL,
        ],
    )
