"""The SuiteSparse executor: ``mxv`` / ``vxm`` / ``mxm`` on SuiteSparse:GraphBLAS through
python-graphblas (the optional extra ``hyblas[suitesparse]``), on the CPU backend only.

SuiteSparse runs its own compiled, multithreaded kernels and chooses per product between
pushing from the input's entries and reducing each allowed output's row. The matrix is
converted once per operand type and cached in its cache; see :mod:`.executor` for how a
product runs and :mod:`.library` for the conversions. ``executor='auto'`` prefers it on the
CPU where it is faster than the other paths (:mod:`hyblas.executors.policy`);
:func:`disabled` keeps ``'auto'`` from choosing it.
"""

from __future__ import annotations

from ..interface import Executor
from . import executor, library
from .library import disabled

__all__ = ["EXECUTOR", "disabled"]

EXECUTOR = Executor(
    name="suitesparse",
    summary="SuiteSparse:GraphBLAS through python-graphblas (CPU only; hyblas[suitesparse])",
    backends=frozenset({"cpu"}),
    run=executor.run,
    fits=executor.fits,
    has_layout=executor.has_layout,
    run_matrix_product=executor.run_matrix_product,
    fits_matrix_product=executor.fits_matrix_product,
    emulated=False,
    missing=library.missing,
)
