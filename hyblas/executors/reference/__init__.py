"""The reference executor: the portable path, correct for every semiring, dtype and mask; the
oracle the fast executors are tested against, and the one ``mxm`` runs on.

On the CPU the sum-of-products semirings (plus_times, plus_first / second / pair on numbers,
lor_land and the like on bool, any_pair) go through scipy's CSR product
(:mod:`.scipy_spmv`) and every other product through vectorized NumPy; on the GPU plus_times
over floats with a full input goes through cuSPARSE and every other product through the CSR
kernels of :mod:`.kernels`.
"""

from __future__ import annotations

from ..interface import Executor
from . import executor

__all__ = ["EXECUTOR"]

EXECUTOR = Executor(
    name="reference",
    summary="the portable path: cuSPARSE or generic CSR kernels on the GPU, scipy or NumPy on "
    "the CPU",
    backends=frozenset({"cpu", "cuda"}),
    run=executor.run,
    run_matrix_product=executor.run_matrix_product,
)
