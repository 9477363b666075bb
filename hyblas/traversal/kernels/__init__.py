"""The device loop's CUDA kernel, specialized per semiring, operand type and CSR index types.

``frontier_loop.cu`` is written against ``string.Template`` placeholders (listed at its top);
:func:`specialize` fills them. The state and the round's results live in 4- or 8-byte
accumulator words (:mod:`hyblas.device.words`).
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ... import dtypes as _dt
from ...device.words import accumulator_substitutions
from ...operators import BUILTIN_NAMES, NAMESPACES
from ...operators.classes import BinaryOp, Semiring

__all__ = [
    "specialize",
    "specialize_facts",
    "specialize_reached",
    "specialize_improve",
    "improve_types",
    "loop_name",
    "FACTS_NAME",
    "REACHED_NAME",
    "IMPROVE_NAME",
    "builtin_specializations",
    "IMPROVING_MONOIDS",
]

_SOURCE = Path(__file__).with_name("frontier_loop.cu")
_FACTS_SOURCE = Path(__file__).with_name("frontier_facts.cu")
_REACHED_SOURCE = Path(__file__).with_name("reached_levels.cu")
_IMPROVE_SOURCE = Path(__file__).with_name("improve_bitmap.cu")
FACTS_NAME = "hyblas_frontier_facts"
REACHED_NAME = "hyblas_reached_levels"
IMPROVE_NAME = "hyblas_improve_bitmap"

# Monoids with x ⊕ x == x that only ever move a value one way: a vertex improves finitely
# often, so propagate(levels=False) ends (the others only with levels=True).
IMPROVING_MONOIDS = frozenset({"min", "max", "lor", "land", "bor", "band"})


@functools.cache
def _text(path: Path = _SOURCE) -> str:
    return path.read_text()


def specialize_facts(indptr_dtype: np.dtype) -> str:
    """``frontier_facts.cu`` (a frontier's out-edges and widest vertex) for a CSR indptr type."""
    return string.Template(_text(_FACTS_SOURCE)).substitute(P=_dt.cuda_name(np.dtype(indptr_dtype)))


def specialize_reached(state_dtype: np.dtype) -> str:
    """``reached_levels.cu`` (a levels stay's rounds into the state's bitmap) for a state type."""
    return string.Template(_text(_REACHED_SOURCE)).substitute(
        V=_dt.cuda_name(np.dtype(state_dtype))
    )


@functools.cache
def improve_types(add: BinaryOp) -> tuple[np.dtype, ...]:
    """The value types ``improve_bitmap.cu`` serves for ``add``: those it combines in and
    gives back (state, products and improved entries all of one type)."""
    return tuple(
        dt
        for dt in _dt.DTYPES
        if dt in add.types and add.input_type(dt, dt) == dt and add.output_type(dt) == dt
    )


def specialize_improve(add: BinaryOp, dtype: np.dtype) -> str:
    """``improve_bitmap.cu`` (an improving round's state update over bitmaps) for the add
    monoid's operator on values of ``dtype`` (one of :func:`improve_types`)."""
    return string.Template(_text(_IMPROVE_SOURCE)).substitute(
        Z=_dt.cuda_name(np.dtype(dtype)), ADD=add.cuda
    )


def specialize(
    semiring: Semiring,
    op_type: np.dtype,
    *,
    indptr_dtype: np.dtype,
    index_dtype: np.dtype,
    blocks_per_sm: int,
) -> str:
    """``frontier_loop.cu`` for ``semiring`` on ``op_type`` over a CSR of the given index types,
    with launch bounds for ``blocks_per_sm`` resident blocks of each multiprocessor."""
    return string.Template(_text()).substitute(
        **accumulator_substitutions(semiring, op_type),
        ANY="1" if semiring.monoid.name == "any" else "0",
        P=_dt.cuda_name(np.dtype(indptr_dtype)),
        I=_dt.cuda_name(np.dtype(index_dtype)),
        BLOCKS_PER_SM=str(int(blocks_per_sm)),
    )


def loop_name(levels: bool) -> str:
    return f"hyblas_frontier_loop<{'true' if levels else 'false'}>"


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel names)`` for every built-in semiring and dtype (compile test):
    the levels kernel for all, the improving kernel where the add monoid allows it; int64
    indptr with int32 indices, and one more with int32 / int64; then the facts kernel for
    both indptr types, the reached-levels kernel for every state type (all but bool), and the
    improving rounds' bitmap update for every improving monoid and type it serves."""
    int32, int64 = np.dtype(np.int32), np.dtype(np.int64)
    for semiring_name in sorted(BUILTIN_NAMES["semiring"]):
        semiring = NAMESPACES["semiring"][semiring_name]
        names = [loop_name(True)]
        if semiring.monoid.name in IMPROVING_MONOIDS:
            names.append(loop_name(False))
        for op_type in sorted(semiring.types, key=lambda d: d.name):
            source = specialize(
                semiring, op_type, indptr_dtype=int64, index_dtype=int32, blocks_per_sm=4
            )
            yield f"loop_{semiring_name}_{op_type.name}", source, names
    min_plus = NAMESPACES["semiring"]["min_plus"]
    source = specialize(
        min_plus, np.dtype(np.float32), indptr_dtype=int32, index_dtype=int64, blocks_per_sm=2
    )
    yield "loop_min_plus_int32_indptr", source, [loop_name(True), loop_name(False)]
    for indptr in (int32, int64):
        yield f"loop_facts_{indptr.name}", specialize_facts(indptr), [FACTS_NAME]
    for state_dtype in _dt.DTYPES:
        if not _dt.is_bool(state_dtype):
            source = specialize_reached(state_dtype)
            yield f"loop_reached_{state_dtype.name}", source, [REACHED_NAME]
    for monoid_name in sorted(IMPROVING_MONOIDS):
        add = NAMESPACES["monoid"][monoid_name].binaryop
        for dtype in improve_types(add):
            yield (
                f"loop_improve_{monoid_name}_{dtype.name}",
                specialize_improve(add, dtype),
                [IMPROVE_NAME],
            )
