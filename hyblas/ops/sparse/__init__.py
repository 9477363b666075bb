"""The sparse-frontier executor (MultiGraphS): a binned push SpMSpV from the active inputs.

``mxv`` / ``vxm`` with ``executor='sparse'`` run here: CUDA kernels on the GPU, a NumPy
emulation of the same walk on the CPU. See :mod:`.layout` for the layout, :mod:`.executor` for
the run, :mod:`.params` for the parameter set.
"""

from .params import DEFAULT_PARAMS, SparseParams, current_params, sparse_params

__all__ = ["DEFAULT_PARAMS", "SparseParams", "current_params", "sparse_params"]
