"""Accumulator words shared by the fast executors' kernels, and the atomics that combine into them.

Results are accumulated in a 4- or 8-byte word (narrower types are widened), in shared or
global memory. :func:`atomic_combine` picks the native atomic for an add monoid where CUDA has
one for that word, and a compare-and-swap loop otherwise. The statements use the kernel
source's ``hyblas_word``, ``hyblas_z``, ``hyblas_add``, ``hyblas_to_word`` and
``hyblas_from_word`` and combine ``v`` into ``*slot``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from .codegen import cuda_literal

__all__ = [
    "word_bytes",
    "word_holds_value",
    "word_spelling",
    "atomic_combine",
    "accumulator_substitutions",
]

_CAS = (
    "hyblas_word old = *slot, assumed;"
    " do { assumed = old;"
    " const hyblas_word next = hyblas_to_word(hyblas_add(hyblas_from_word(assumed), v));"
    " if (next == assumed) break;"
    " old = atomicCAS(slot, assumed, next); } while (old != assumed);"
)


def word_bytes(dtype: np.dtype) -> int:
    """Bytes of the accumulator word for result type ``dtype``."""
    return 8 if np.dtype(dtype).itemsize == 8 else 4


def word_holds_value(dtype: np.dtype) -> bool:
    """Whether the word of result type ``dtype`` holds the value bit for bit (4- and 8-byte
    types: an array of words is then an array of values, viewed as ``dtype``)."""
    return np.dtype(dtype).itemsize == word_bytes(dtype)


def word_spelling(dtype: np.dtype) -> tuple[str, str, str]:
    """(word type, to-word statement in v, from-word statement in w)."""
    dt = np.dtype(dtype)
    if dt == np.float32:
        return "unsigned int", "return __float_as_uint(v);", "return __uint_as_float(w);"
    if dt == np.float64:
        return (
            "unsigned long long",
            "return (unsigned long long)__double_as_longlong(v);",
            "return __longlong_as_double((long long)w);",
        )
    if dt.itemsize == 8:
        return "unsigned long long", "return (unsigned long long)v;", "return (hyblas_z)w;"
    if dt.itemsize == 4:
        return "unsigned int", "return (unsigned int)v;", "return (hyblas_z)w;"
    # bool and 1-2 byte integers are widened (sign- or zero-extended) to a 32-bit word
    return "unsigned int", "return (unsigned int)(int)v;", "return (hyblas_z)(int)w;"


def atomic_combine(monoid_name: str, atomic: str | None, dtype: np.dtype) -> str:
    """The statement combining ``v`` into the shared word ``*slot``."""
    dt = np.dtype(dtype)
    word = "unsigned long long" if word_bytes(dt) == 8 else "unsigned int"
    if monoid_name == "any":  # any contribution is a valid result
        return "atomicExch(slot, hyblas_to_word(v));"
    if atomic in ("or", "and", "xor") and dt.kind in "biu":
        # bitwise ops commute with sign / zero extension, so widened words combine exactly
        name = {"or": "atomicOr", "and": "atomicAnd", "xor": "atomicXor"}[atomic]
        return f"{name}(slot, hyblas_to_word(v));"
    if atomic == "add":
        if dt == np.float32:
            return "atomicAdd((float*)slot, v);"
        if dt == np.float64:
            return "atomicAdd((double*)slot, v);"
        if dt.kind in "iu" and dt.itemsize >= 4:
            return f"atomicAdd(slot, ({word})v);"  # two's complement: the same bits
    if atomic in ("min", "max") and dt.kind in "iu" and dt.itemsize >= 4:
        name = "atomicMin" if atomic == "min" else "atomicMax"
        signed = {4: "int", 8: "long long"}[dt.itemsize] if dt.kind == "i" else word
        return f"{name}(({signed}*)slot, ({signed})v);"
    if atomic in ("min", "max") and dt in (np.float32, np.float64):
        return _float_min_max(atomic, dt)
    return _CAS


def _float_min_max(atomic: str, dt: np.dtype) -> str:
    """fmin / fmax with integer atomics: IEEE floats without the sign bit order like their bits
    as signed integers, and those with it in reverse, as unsigned integers. A NaN leaves the word
    as it is, as the compare-and-swap loop of ``fmin`` / ``fmax`` would (the word starts at the
    identity, never NaN)."""
    signed, unsigned, bits = (
        ("int", "unsigned int", "__float_as_int")
        if dt == np.float32
        else ("long long", "unsigned long long", "__double_as_longlong")
    )
    positive, negative = (
        ("atomicMin", "atomicMax") if atomic == "min" else ("atomicMax", "atomicMin")
    )
    return (
        f"if (v == v) {{ if (!signbit(v)) {positive}(({signed}*)slot, {bits}(v));"
        f" else {negative}(({unsigned}*)slot, ({unsigned}){bits}(v)); }}"
    )


def accumulator_substitutions(semiring: Any, op_type: np.dtype) -> dict[str, str]:
    """The template fields every accumulating kernel takes from ``semiring`` on ``op_type``:
    ``T`` / ``Z`` (operand / result type), ``MULT`` / ``ADD``, ``IDENTITY``, ``WORD`` /
    ``TO_WORD`` / ``FROM_WORD`` and ``ATOMIC``."""
    op_type = np.dtype(op_type)
    out_type = semiring.output_type(op_type)
    word, to_word, from_word = word_spelling(out_type)
    monoid = semiring.monoid
    return {
        "T": _dt.cuda_name(op_type),
        "Z": _dt.cuda_name(out_type),
        "MULT": semiring.binaryop.cuda,
        "ADD": monoid.binaryop.cuda,
        "IDENTITY": cuda_literal(monoid.identity(out_type), out_type),
        "WORD": word,
        "TO_WORD": to_word,
        "FROM_WORD": from_word,
        "ATOMIC": atomic_combine(monoid.name, monoid.atomic, out_type),
    }
