"""Backend selection: which array library a container's arrays live in.

Two backends exist: ``'cpu'`` (NumPy / SciPy) and ``'cuda'`` (CuPy / cupyx). Every container
remembers the backend it was created on; operations on objects from different backends raise
:class:`~hyblas.errors.BackendError`. The default backend is, in order of precedence, what
:func:`set_backend` set, the environment variable ``HYBLAS_BACKEND``, then ``'cuda'`` when CuPy
imports and a GPU answers, else ``'cpu'``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import platform
import re
import sys
import threading
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np

from ..dtypes import short_repr
from ..errors import BackendError, InvalidObject
from .warmth import announce_first_use

__all__ = [
    "BACKENDS",
    "backend",
    "set_backend",
    "using_backend",
    "resolve",
    "cuda_available",
    "cupy_module",
    "loaded_cupy",
    "xp_for",
    "is_cuda_array",
    "backend_of",
    "to_numpy",
    "host_copy",
    "to_backend",
    "is_cupyx_sparse",
    "cupyx_csr",
    "device_name",
    "synchronize",
]

BACKENDS = ("cpu", "cuda")
_ENV_VAR = "HYBLAS_BACKEND"
_state = threading.local()
_LOG = logging.getLogger("hyblas")
# Before CuPy 14.1 a sort whose Thrust workspace could not be allocated returned wrong results
# instead of raising (cupy#9894, fixed by #9899): the graph builds and layouts sort.
SAFE_CUPY = (14, 1)


def cupy_too_old(version: str) -> bool:
    """Whether CuPy ``version`` (its major.minor) is older than :data:`SAFE_CUPY`."""
    found = re.match(r"(\d+)\.(\d+)", version)
    return found is not None and (int(found[1]), int(found[2])) < SAFE_CUPY


@functools.lru_cache(maxsize=1)
def cupy_module() -> ModuleType | None:
    """CuPy if it imports and a GPU answers a tiny allocation, else None (the first time it
    answers, a machine without a kernel warmup gets the first-use notice: :mod:`.warmth`)."""
    try:
        import cupy  # noqa: PLC0415 - optional dependency, imported lazily on purpose
        import cupyx.scipy.sparse  # noqa: F401, PLC0415

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        cupy.zeros(1).sum().item()
    except Exception:  # any failure (no module, no driver, no device) means no CUDA backend
        return None
    if cupy_too_old(cupy.__version__):
        _LOG.warning(
            "hyblas: CuPy %s is older than %d.%d: a sort that runs out of device memory may "
            "return wrong results instead of raising (cupy#9894); upgrade CuPy",
            cupy.__version__,
            *SAFE_CUPY,
        )
    announce_first_use(cupy)
    return cupy


def loaded_cupy() -> ModuleType | None:
    """CuPy where a usable one is already imported, else None (never imports CuPy: cheap on
    a machine that has not touched the GPU)."""
    return cupy_module() if "cupy" in sys.modules else None


def cuda_available() -> bool:
    """Whether the ``'cuda'`` backend is usable on this machine.

    Examples
    --------
    >>> hb.cuda_available() in (True, False)
    True
    """
    return cupy_module() is not None


def _check_name(name: str, *, auto: bool = False) -> str:
    """``name`` if it names a usable backend (or is ``'auto'``, where ``auto``)."""
    if not isinstance(name, str):  # an array would answer `in` / `==` element-wise
        raise InvalidObject(
            f"a backend is named by a str, one of {BACKENDS}, got {type(name).__name__} "
            f"{short_repr(name)}"
        )
    if auto and name == "auto":
        return name
    if name not in BACKENDS:
        raise BackendError(f"backend must be one of {BACKENDS}, got {name!r}")
    if name == "cuda" and not cuda_available():
        raise BackendError("backend 'cuda' asked for, but CuPy or a usable GPU is not available")
    return name


def backend() -> str:
    """The current default backend, ``'cuda'`` or ``'cpu'``.

    Returns
    -------
    str
        What :func:`set_backend` chose, else ``$HYBLAS_BACKEND``, else ``'cuda'`` when a GPU is
        usable, else ``'cpu'``.

    Examples
    --------
    >>> hb.backend() in ("cpu", "cuda")
    True
    >>> with hb.using_backend("cpu"):
    ...     print(hb.backend())
    cpu
    """
    chosen = getattr(_state, "name", None)
    if chosen is not None:
        return chosen
    env = os.environ.get(_ENV_VAR, "").strip().lower()
    if env and env != "auto":
        return _check_name(env)
    return "cuda" if cuda_available() else "cpu"


def set_backend(name: str | None) -> None:
    """Set the default backend for objects created from now on in this thread.

    Parameters
    ----------
    name : {'cpu', 'cuda', 'auto', None}
        ``'auto'`` or ``None`` go back to the environment variable / auto-detection.

    Raises
    ------
    BackendError
        For an unknown name, or ``'cuda'`` where no GPU is usable.
    InvalidObject
        If ``name`` is neither a str nor None.

    Examples
    --------
    >>> previous = hb.backend()
    >>> hb.set_backend("cpu")
    >>> hb.Vector.new("float64", 3).backend
    'cpu'
    >>> hb.set_backend(previous)
    """
    _state.name = None if name is None or _check_name(name, auto=True) == "auto" else name


@contextlib.contextmanager
def using_backend(name: str) -> Iterator[str]:
    """Context manager that sets the default backend inside a ``with`` block.

    Examples
    --------
    >>> with hb.using_backend("cpu"):
    ...     v = hb.Vector.from_coo([0], [1.0], size=2)
    >>> v.backend
    'cpu'
    """
    previous = getattr(_state, "name", None)
    set_backend(name)
    try:
        yield backend()
    finally:
        _state.name = previous


def resolve(name: str | None) -> str:
    """The backend named, or the default one when ``name`` is None."""
    return backend() if name is None else _check_name(name)


def xp_for(name: str) -> ModuleType:
    """The array module of a backend: numpy for ``'cpu'``, cupy for ``'cuda'``."""
    if name == "cpu":
        return np
    cp = cupy_module()
    if cp is None:
        raise BackendError("backend 'cuda' asked for, but CuPy or a usable GPU is not available")
    return cp


def is_cuda_array(obj: Any) -> bool:
    """Whether ``obj`` is a CuPy ndarray (False, cheaply, when CuPy never loaded)."""
    cp = loaded_cupy()
    return cp is not None and isinstance(obj, cp.ndarray)


def backend_of(array: Any) -> str:
    """``'cuda'`` for a CuPy array, ``'cpu'`` for anything else."""
    return "cuda" if is_cuda_array(array) else "cpu"


def array_module(array: Any) -> ModuleType:
    """The array module ``array`` belongs to: cupy for a CuPy array, numpy for anything else.

    Examples
    --------
    >>> from hyblas.backend import array_module
    >>> array_module(np.zeros(2)).__name__
    'numpy'
    """
    return xp_for(backend_of(array))


def to_numpy(array: Any) -> np.ndarray:
    """A host NumPy copy (or view) of a NumPy or CuPy array."""
    if is_cuda_array(array):
        return array.get()
    return np.asarray(array)


def host_copy(array: Any) -> np.ndarray:
    """A host NumPy copy of a NumPy or CuPy array that shares no memory with it (what a
    conversion hands a caller, who may write into it)."""
    if is_cuda_array(array):
        return array.get()
    return np.array(array, copy=True)


# Host data of at most this many bytes goes to the GPU as one asynchronous copy from a fresh
# (pageable) host copy of it: CUDA stages such a copy before the call returns, without waiting
# for the work queued on the stream.
SMALL_COPY_BYTES = 1 << 16


def to_backend(array: Any, name: str, dtype: Any = None) -> Any:
    """``array`` as an array of backend ``name`` (copying across host/device only if needed).

    A few host values (at most ``SMALL_COPY_BYTES``) go to the GPU as one asynchronous copy
    into a new array: CuPy's own conversion costs the host several times as much, and a
    search's source vector is two such arrays."""
    xp = xp_for(name)
    if name == "cpu":
        return np.asarray(to_numpy(array), dtype=dtype)
    if not is_cuda_array(array):
        host = np.asarray(array, dtype=dtype)
        if host.nbytes <= SMALL_COPY_BYTES and not host.dtype.hasobject:
            return _copied_small(xp, host)
        return xp.asarray(host)
    return xp.asarray(array, dtype=dtype)


def _copied_small(xp: Any, host: np.ndarray) -> Any:
    """A new device array holding ``host``, copied on the current stream. The copy reads a
    fresh C-ordered host copy, which is pageable memory: CUDA has read it when this returns
    (memory the caller gave might be pinned, and a copy from pinned memory reads it later)."""
    staged = np.array(host, order="C", copy=True)
    out = xp.empty(staged.shape, dtype=staged.dtype)
    if staged.nbytes:
        out.data.copy_from_host_async(staged.ctypes.data, staged.nbytes)
    return out


# --- sparse interop -------------------------------------------------------------------------


def is_cupyx_sparse(obj: Any) -> bool:
    """Whether ``obj`` is a cupyx.scipy.sparse matrix."""
    if "cupy" not in sys.modules or cupy_module() is None:
        return False
    import cupyx.scipy.sparse as cusparse  # noqa: PLC0415

    return cusparse.issparse(obj)


def cupyx_csr(indptr: Any, indices: Any, values: Any, shape: tuple[int, int]) -> Any:
    """A cupyx CSR matrix sharing the given device arrays (int32 indices, as cuSPARSE needs)."""
    import cupyx.scipy.sparse as cusparse  # noqa: PLC0415

    return cusparse.csr_matrix((values, indices, indptr), shape=shape, copy=False)


# --- kernels --------------------------------------------------------------------------------


def device_name() -> str:
    """A readable name of the compute device of the default backend."""
    if backend() == "cuda":
        cp = xp_for("cuda")
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    return f"CPU ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)"


def synchronize() -> None:
    """Wait for queued GPU work (no-op on the CPU)."""
    cp = loaded_cupy()
    if cp is not None:
        cp.cuda.get_current_stream().synchronize()
