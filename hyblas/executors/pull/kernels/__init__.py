"""The pull executor's CUDA kernels, specialized per semiring and operand type.

``pull.cu`` is appended to the reference executor's ``csr_spmv.cu`` specialization (it reuses
its multiply, add, combine and warp-reduce helpers) and adds the early-exit condition
``${STOP}``.

Rows of at most ``THREAD_EDGES`` edges are walked by one thread each, ``THREAD_STEP`` edges a
step; longer ones by a warp (32 a step), rows of more than ``HEAVY_ROW`` by a block.
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ....device.codegen import cuda_literal
from ....operators import BUILTIN_NAMES, NAMESPACES
from ....operators.classes import Semiring
from ...reference.kernels import INDEX_TYPES, specialize_spmv

__all__ = [
    "specialize",
    "rows_name",
    "block_name",
    "stop_condition",
    "builtin_specializations",
    "THREAD_EDGES",
    "THREAD_STEP",
    "ROWS_MODES",
]

_SOURCE = Path(__file__).with_name("pull.cu")

THREAD_EDGES = 32
THREAD_STEP = 4
# Which outputs the rows kernel walks (HYBLAS_PULL_EVERY / _LISTED / _ALLOWED in pull.cu).
ROWS_MODES = {"every": 0, "listed": 1, "allowed": 2}


def stop_condition(semiring: Semiring, out_type: np.dtype) -> str:
    """The CUDA condition in ``(acc, found)`` after which no further edge can change a row."""
    monoid = semiring.monoid
    if monoid.name == "any":  # any contribution is a valid result
        return "found"
    terminal = monoid.terminal(out_type)
    if terminal is None:
        return "false"
    return f"found && acc == (hyblas_z)({cuda_literal(terminal, out_type)})"


def specialize(semiring: Semiring, op_type: np.dtype) -> str:
    """The CSR helpers plus the pull kernels for ``semiring`` on operands of ``op_type``."""
    out_type = semiring.output_type(op_type)
    pull = string.Template(_SOURCE.read_text()).substitute(
        STOP=stop_condition(semiring, out_type),
        IDENTITY=cuda_literal(semiring.monoid.identity(out_type), out_type),
        THREAD_STEP=THREAD_STEP,
    )
    return specialize_spmv(semiring, op_type) + "\n" + pull


def _flags(*values: bool) -> str:
    return ", ".join("true" if v else "false" for v in values)


def rows_name(index_dtype: np.dtype, flip: bool, all_present: bool, rows: str, count: bool) -> str:
    """The rows kernel's name; ``rows`` is a key of :data:`ROWS_MODES`."""
    index = INDEX_TYPES[np.dtype(index_dtype)]
    return (
        f"hyblas_pull_rows<{index}, {_flags(flip, all_present)}, {ROWS_MODES[rows]}, "
        f"{_flags(count)}>"
    )


def block_name(index_dtype: np.dtype, flip: bool, all_present: bool, count: bool) -> str:
    index = INDEX_TYPES[np.dtype(index_dtype)]
    return f"hyblas_pull_block<{index}, {_flags(flip, all_present, count)}>"


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel name expressions)`` for every built-in semiring and dtype
    (compiled by the CI compile test with ``nvcc -arch=sm_90``); every flag combination for
    lor_land and plus_times, two instances for the others."""
    every = [
        rows_name(i, f, p, mode, c)
        for i in INDEX_TYPES
        for f in (False, True)
        for p in (False, True)
        for mode in ROWS_MODES
        for c in (False, True)
    ]
    every += [
        block_name(i, f, p, c)
        for i in INDEX_TYPES
        for f in (False, True)
        for p in (False, True)
        for c in (False, True)
    ]
    some = [
        rows_name(np.int32, True, False, "allowed", False),
        block_name(np.int64, False, True, True),
    ]
    for semiring_name in sorted(BUILTIN_NAMES["semiring"]):
        semiring = NAMESPACES["semiring"][semiring_name]
        for op_type in sorted(semiring.types, key=lambda d: d.name):
            names = every if semiring_name in ("lor_land", "plus_times") else some
            yield f"{semiring_name}_{op_type.name}", specialize(semiring, op_type), names
