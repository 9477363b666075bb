"""Device primitives: vectorized array building blocks that run alike on NumPy and CuPy
(:mod:`.arrays`: sorting, merging and converting keys, CSR conversions, bitmaps; :mod:`.reductions`)
and the CUDA kernels of the ones the GPU does in one pass (:mod:`.fill`, :mod:`.scatter`,
:mod:`.segments`, :mod:`.ewise`, :mod:`.inner`), with what kernel sources share
(:mod:`.codegen`, :mod:`.words`)."""

from __future__ import annotations

from . import arrays, codegen, ewise, fill, inner, reductions, scatter, segments, words

__all__ = [
    "arrays",
    "codegen",
    "ewise",
    "fill",
    "inner",
    "reductions",
    "scatter",
    "segments",
    "words",
]
