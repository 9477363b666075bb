"""A vector's values and presence gathered or scattered by a list of positions: what
``extract`` (a gather, ``u[I]``) and ``assign`` (a scatter, ``w[I] = u`` or ``w[I] ⊙= u``)
with an index list do to a vector (GrB_extract, GrB_assign).

On the GPU each is one kernel pass that also checks the list (``kernels/indexed.cu``,
``kernels/indexed_accum.cu``), and one read of a status word afterwards: no host copy of
the positions, no separate pass for the bounds. On the CPU, NumPy's fancy indexing after
the same checks.

Repeated positions: a plain scatter refuses them (GrB_assign leaves their result undefined);
a scatter combined by a monoid folds every value listed for a position into it, in any order
(the monoid's operator is associative and commutative), as SuiteSparse:GraphBLAS does.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import compile_module, grid_stride_blocks, launch, translate_oom
from ..errors import IndexOutOfBounds, InvalidValue
from ..operators import BUILTIN_NAMES, NAMESPACES
from ..operators.classes import Monoid
from .arrays import combine_by_key, quiet_placeholders
from .codegen import kernel_text
from .words import atomic_combine, word_spelling

__all__ = [
    "gather",
    "scatter",
    "scatter_combine",
    "kernel_combines",
    "builtin_specializations",
    "accum_specializations",
    "GATHER",
    "SCATTER",
    "SCATTER_ACCUM",
]

_KERNELS = Path(__file__).parent / "kernels"
GATHER = "hyblas_gather"
SCATTER = "hyblas_scatter"
SCATTER_ACCUM = "hyblas_scatter_accum"
THREADS = 256
_WORDS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}
_OUTSIDE, _REPEATED = 1, 2


def _specialize(itemsize: int) -> str:
    return string.Template(kernel_text(_KERNELS / "indexed.cu")).substitute(W=_WORDS[itemsize])


def _specialize_accum(monoid: Monoid, dtype: np.dtype) -> str:
    word, to_word, from_word = word_spelling(dtype)
    return string.Template(kernel_text(_KERNELS / "indexed_accum.cu")).substitute(
        Z=_dt.cuda_name(dtype),
        WORD=word,
        ADD=monoid.binaryop.cuda,
        TO_WORD=to_word,
        FROM_WORD=from_word,
        ATOMIC=atomic_combine(monoid.name, monoid.atomic, dtype),
    )


@functools.lru_cache(maxsize=8)
def _bits_module(itemsize: int) -> Any:
    return compile_module(_specialize(itemsize), (GATHER, SCATTER))


@functools.lru_cache(maxsize=64)
def _accum_kernel(monoid: Monoid, dtype: np.dtype) -> Any:
    module = compile_module(_specialize_accum(monoid, dtype), (SCATTER_ACCUM,))
    return module.get_function(SCATTER_ACCUM)


def kernel_combines(monoid: Monoid, dtype: Any) -> bool:
    """Whether the GPU's one-kernel scatter folds ``monoid`` on ``dtype`` values: 4- and
    8-byte integers the monoid takes and gives as they are (the others sort the positions
    and fold by segments)."""
    dt = np.dtype(dtype)
    op = monoid.binaryop
    return (
        dt.kind in "iu"
        and dt.itemsize in (4, 8)
        and dt in monoid.types
        and monoid.cast_inputs_to in (None, dt)
        and op.input_type(dt, dt) == dt
        and op.output_type(dt) == dt
    )


def _outside(xp: Any, ids: Any, extent: int, argument: str) -> IndexOutOfBounds:
    low, high = int(ids.min()), int(ids.max())
    bad = low if low < 0 else high
    return IndexOutOfBounds(f"{argument} holds index {bad}, outside [0, {extent})")


def _check_bounds(xp: Any, ids: Any, extent: int, argument: str) -> None:
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= extent):
        raise _outside(xp, ids, extent, argument)


def _repeated(what: str, argument: str) -> InvalidValue:
    return InvalidValue(f"{what}: {argument} holds repeated indices")


def _launch(xp: Any, kernel: Any, ids: Any, extent: int, arrays: tuple[Any, ...]) -> Any:
    """Launch one of the kernels over the ``ids`` (int64) with its ``arrays``; returns its
    status word (not read yet)."""
    count = int(ids.size)
    status = xp.zeros(1, dtype=np.uint32)
    launch(
        kernel,
        (grid_stride_blocks(count, THREADS),),
        (THREADS,),
        (np.int64(count), ids, np.int64(extent), *arrays, status),
    )
    return status


def _copy_bits(
    xp: Any,
    name: str,
    ids: Any,
    extent: int,
    source: tuple[Any, Any],
    target: tuple[Any, Any],
    *extra: Any,
) -> Any:
    """Launch the gather or the scatter kernel ``name``, copying the values' bits (as
    unsigned words of their size) and presence from ``source`` to ``target``."""
    (values, present), (out, out_present) = source, target
    word = np.dtype(f"u{values.dtype.itemsize}")
    arrays = (xp.ascontiguousarray(values).view(word), present, out.view(word), out_present)
    kernel = _bits_module(values.dtype.itemsize).get_function(name)
    return _launch(xp, kernel, ids, extent, (*arrays, *extra))


def _raise_for(status: Any, xp: Any, ids: Any, extent: int, argument: str, what: str) -> None:
    """Read the kernel's status word (the one host read) and raise what it reports."""
    found = int(status[0])
    if found & _OUTSIDE:
        raise _outside(xp, ids, extent, argument)
    if found & _REPEATED:
        raise _repeated(what, argument)


def gather(
    xp: Any, values: Any, present: Any, ids: Any, *, argument: str = "indices"
) -> tuple[Any, Any]:
    """``(values[ids], present[ids])`` as new arrays: a bitmap vector's entries at the int64
    positions ``ids`` (repeats allowed).

    Raises
    ------
    IndexOutOfBounds
        If a position lies outside ``[0, values.size)``.
    """
    extent = int(values.size)
    if xp is np:
        _check_bounds(xp, ids, extent, argument)
        return values[ids], present[ids]
    count = int(ids.size)
    ids = xp.ascontiguousarray(ids, dtype=np.int64)
    with translate_oom(f"gathering {count} entries"):
        out = xp.empty(count, dtype=values.dtype)
        out_present = xp.empty(count, dtype=bool)
        if count == 0:
            return out, out_present
        status = _copy_bits(xp, GATHER, ids, extent, (values, present), (out, out_present))
    _raise_for(status, xp, ids, extent, argument, "extract")
    return out, out_present


def scatter(
    xp: Any,
    values: Any,
    present: Any,
    ids: Any,
    x: Any,
    x_present: Any,
    *,
    argument: str = "indices",
    what: str = "assign",
) -> tuple[Any, Any]:
    """New bitmap arrays: ``values`` / ``present`` with ``x[k]`` / ``x_present[k]`` written
    at ``ids[k]`` for every ``k`` (``x`` of ``values``' dtype).

    Raises
    ------
    IndexOutOfBounds
        If a position lies outside ``[0, values.size)``.
    InvalidValue
        If a position is listed twice (``what`` names the operation in the message).
    """
    extent = int(values.size)
    if xp is np:
        _check_bounds(xp, ids, extent, argument)
        if ids.size > 1 and np.unique(ids).size != ids.size:
            raise _repeated(what, argument)
        z, z_present = values.copy(), present.copy()
        z[ids], z_present[ids] = x, x_present
        return z, z_present
    count = int(ids.size)
    ids = xp.ascontiguousarray(ids, dtype=np.int64)
    with translate_oom(f"scattering {count} entries into {extent} positions"):
        z, z_present = values.copy(), present.copy()
        if count == 0:
            return z, z_present
        claims = xp.zeros(extent, dtype=np.uint32)
        status = _copy_bits(xp, SCATTER, ids, extent, (x, x_present), (z, z_present), claims)
    _raise_for(status, xp, ids, extent, argument, what)
    return z, z_present


def scatter_combine(
    xp: Any,
    values: Any,
    present: Any,
    ids: Any,
    x: Any,
    x_present: Any,
    monoid: Monoid,
    *,
    argument: str = "indices",
) -> tuple[Any, Any]:
    """New bitmap arrays: ``values`` / ``present`` with every present ``x[k]`` combined into
    position ``ids[k]`` by ``monoid`` (into the old value where there is one; repeated
    positions fold all of theirs). ``x`` and ``values`` of one dtype, which ``monoid`` takes
    and gives.

    Raises
    ------
    IndexOutOfBounds
        If a position lies outside ``[0, values.size)``.
    """
    extent = int(values.size)
    dtype = values.dtype
    if xp is not np and kernel_combines(monoid, dtype):
        return _scatter_combine_kernel(xp, values, present, ids, x, x_present, monoid, argument)
    _check_bounds(xp, ids, extent, argument)
    op = monoid.binaryop
    with translate_oom(f"combining {int(ids.size)} entries into {extent} positions"):
        keys, folded = combine_by_key(xp, ids[x_present], x[x_present], op)
        z, z_present = values.copy(), present.copy()
        had = z_present[keys]
        with quiet_placeholders():
            both = op.numpy(z[keys], folded).astype(dtype, copy=False)
        z[keys] = xp.where(had, both, folded)
        z_present[keys] = True
    return z, z_present


def _scatter_combine_kernel(
    xp: Any,
    values: Any,
    present: Any,
    ids: Any,
    x: Any,
    x_present: Any,
    monoid: Monoid,
    argument: str,
) -> tuple[Any, Any]:
    extent, count = int(values.size), int(ids.size)
    ids = xp.ascontiguousarray(ids, dtype=np.int64)
    dtype = values.dtype
    with translate_oom(f"combining {count} entries into {extent} positions"):
        # the identity where there is no entry: the first value folded in is kept as it is
        z = xp.where(present, values, dtype.type(monoid.identity(dtype)))
        z_present = present.copy()
        if count == 0:
            return z, z_present
        status = _launch(
            xp,
            _accum_kernel(monoid, dtype),
            ids,
            extent,
            (xp.ascontiguousarray(x), x_present, z.view(f"u{dtype.itemsize}"), z_present),
        )
    _raise_for(status, xp, ids, extent, argument, "assign")
    return z, z_present


def builtin_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel names)`` for the compile check (``indexed.cu``): the gather
    and the scatter for every value size."""
    for itemsize in _WORDS:
        yield f"indexed_{itemsize}", _specialize(itemsize), [GATHER, SCATTER]


def accum_specializations() -> Iterator[tuple[str, str, list[str]]]:
    """``(label, source, kernel names)`` for the compile check (``indexed_accum.cu``): the
    combining scatter for every built-in monoid and type it serves."""
    for name in sorted(BUILTIN_NAMES["monoid"]):
        monoid = NAMESPACES["monoid"][name]
        for dtype in sorted(monoid.types, key=lambda d: d.name):
            if kernel_combines(monoid, dtype):
                source = _specialize_accum(monoid, dtype)
                yield f"indexed_accum_{name}_{dtype.name}", source, [SCATTER_ACCUM]
