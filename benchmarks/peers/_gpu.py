"""CuPy access for the GPU peers: imported lazily, so the peers import without CuPy."""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import Unavailable


@functools.lru_cache(maxsize=1)
def _probe() -> tuple[tuple[ModuleType, ModuleType, ModuleType] | None, str | None]:
    try:
        import cupy  # noqa: PLC0415 - optional, GPU machine only
        import cupyx  # noqa: PLC0415
        import cupyx.scipy.sparse as cupyx_sparse  # noqa: PLC0415
    except Exception as exc:  # ImportError, or a CUDA library that fails to load
        return None, f"CuPy is not importable: {type(exc).__name__}: {exc}"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None, "CuPy sees no CUDA device"
        cupy.zeros(1).sum().item()
    except Exception as exc:  # no driver, no device
        return None, f"no usable CUDA device: {type(exc).__name__}: {exc}"
    return (cupy, cupyx, cupyx_sparse), None


def unavailable_reason() -> str | None:
    """None when CuPy and a GPU are usable, else why not."""
    return _probe()[1]


def modules() -> tuple[ModuleType, ModuleType, ModuleType]:
    """``(cupy, cupyx, cupyx.scipy.sparse)``, or :class:`Unavailable`."""
    found, reason = _probe()
    if found is None:
        raise Unavailable(reason)
    return found


def host_csr(matrix: Any, dtype: Any = None) -> sp.csr_matrix:
    """A scipy ``csr_matrix`` (the class cupyx converts from), sorted, of ``dtype``."""
    out = sp.csr_matrix(matrix, dtype=dtype)
    out.sort_indices()
    return out


def asnumpy(array: Any) -> np.ndarray:
    """A NumPy copy of a CuPy or NumPy array (untimed conversions only)."""
    if isinstance(array, np.ndarray):
        return array
    get = getattr(array, "get", None)
    return np.asarray(get() if callable(get) else array)
