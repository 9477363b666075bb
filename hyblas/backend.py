"""Backend selection: the ONE module that imports cupy.

Two backends exist: ``'cpu'`` (NumPy / SciPy) and ``'cuda'`` (CuPy / cupyx). Every container
remembers the backend it was created on; operations on objects from different backends raise
:class:`~hyblas.errors.BackendError`. The default backend is, in order of precedence, what
:func:`set_backend` set, the environment variable ``HYBLAS_BACKEND``, then ``'cuda'`` when CuPy
imports and a GPU answers, else ``'cpu'``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import numpy as np

from .errors import BackendError, OutOfMemory

__all__ = [
    "BACKENDS",
    "backend",
    "set_backend",
    "using_backend",
    "cuda_available",
    "xp_for",
    "backend_of",
    "to_numpy",
    "to_backend",
    "compile_module",
    "device_name",
    "multiprocessor_count",
]

BACKENDS = ("cpu", "cuda")
_ENV_VAR = "HYBLAS_BACKEND"
_state = threading.local()


@functools.lru_cache(maxsize=1)
def _cupy() -> ModuleType | None:
    """CuPy if it imports and a GPU answers a tiny allocation, else None."""
    try:
        import cupy  # noqa: PLC0415 - optional dependency, imported lazily on purpose
        import cupyx.scipy.sparse  # noqa: F401, PLC0415

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        cupy.zeros(1).sum().item()
        return cupy
    except Exception:  # any failure (no module, no driver, no device) means no CUDA backend
        return None


def cuda_available() -> bool:
    """Whether the ``'cuda'`` backend is usable on this machine."""
    return _cupy() is not None


def _check_name(name: str) -> str:
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
    """
    _state.name = None if name in (None, "auto") else _check_name(name)


@contextlib.contextmanager
def using_backend(name: str) -> Iterator[str]:
    """Context manager that sets the default backend inside a ``with`` block."""
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
    cp = _cupy()
    if cp is None:
        raise BackendError("backend 'cuda' asked for, but CuPy or a usable GPU is not available")
    return cp


def is_cuda_array(obj: Any) -> bool:
    """Whether ``obj`` is a CuPy ndarray (False, cheaply, when CuPy never loaded)."""
    cp = _cupy() if "cupy" in sys.modules else None
    return cp is not None and isinstance(obj, cp.ndarray)


def backend_of(array: Any) -> str:
    """``'cuda'`` for a CuPy array, ``'cpu'`` for anything else."""
    return "cuda" if is_cuda_array(array) else "cpu"


def to_numpy(array: Any) -> np.ndarray:
    """A host NumPy copy (or view) of a NumPy or CuPy array."""
    if is_cuda_array(array):
        return array.get()
    return np.asarray(array)


def to_backend(array: Any, name: str, dtype: Any = None) -> Any:
    """``array`` as an array of backend ``name`` (copying across host/device only if needed)."""
    xp = xp_for(name)
    if name == "cpu":
        return np.asarray(to_numpy(array), dtype=dtype)
    return xp.asarray(array, dtype=dtype)


# --- sparse interop -------------------------------------------------------------------------


def is_cupyx_sparse(obj: Any) -> bool:
    """Whether ``obj`` is a cupyx.scipy.sparse matrix."""
    if "cupy" not in sys.modules or _cupy() is None:
        return False
    import cupyx.scipy.sparse as cusparse  # noqa: PLC0415

    return cusparse.issparse(obj)


def cupyx_csr(indptr: Any, indices: Any, values: Any, shape: tuple[int, int]) -> Any:
    """A cupyx CSR matrix sharing the given device arrays (int32 indices, as cuSPARSE needs)."""
    import cupyx.scipy.sparse as cusparse  # noqa: PLC0415

    return cusparse.csr_matrix((values, indices, indptr), shape=shape, copy=False)


# --- kernels --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _compile(source: str, name_expressions: tuple[str, ...], options: tuple[str, ...],
             cooperative: bool) -> Any:  # fmt: skip
    cp = xp_for("cuda")
    module = cp.RawModule(code=source, options=options, name_expressions=name_expressions,
                          enable_cooperative_groups=cooperative)  # fmt: skip
    module.compile()
    return module


def compile_module(
    source: str, name_expressions: tuple[str, ...], options: tuple[str, ...] = ("-std=c++17",),
    *, cooperative: bool = False,
) -> Any:
    """Compile CUDA C++ ``source`` with NVRTC, cached per (source, names, options).

    Returns a ``cupy.RawModule``; fetch kernels with ``module.get_function(name_expression)``.
    ``cooperative`` launches its kernels cooperatively (all blocks resident at once, so that
    ``cooperative_groups::this_grid().sync()`` may be used; the grid must fit the device).
    """
    try:
        return _compile(source, tuple(name_expressions), tuple(options), cooperative)
    except Exception as exc:  # NVRTC errors carry the compiler log; keep it in the message
        raise BackendError(f"CUDA kernel compilation failed: {exc}") from exc


_DEFAULT_SHARED_LIMIT = 48 * 1024


def _allow_shared(kernel: Any, shared_bytes: int) -> None:
    """Raise ``kernel``'s dynamic shared memory limit to ``shared_bytes`` where it is above the
    default 48 KiB."""
    if shared_bytes > _DEFAULT_SHARED_LIMIT:
        # the limit is read from the driver only the first time: each read is a driver call,
        # host time on every product (the entry keeps the kernel, so its id stays its own)
        raised = _RAISED_SHARED.get(id(kernel))
        if raised is None or raised[0] is not kernel:
            raised = _RAISED_SHARED[id(kernel)] = (kernel, kernel.max_dynamic_shared_size_bytes)
        if raised[1] < shared_bytes:
            kernel.max_dynamic_shared_size_bytes = shared_bytes
            _RAISED_SHARED[id(kernel)] = (kernel, shared_bytes)


def launch(kernel: Any, grid: tuple[int, ...], block: tuple[int, ...], args: tuple[Any, ...],
           shared_bytes: int = 0) -> None:  # fmt: skip
    """Launch ``kernel`` (from :func:`compile_module`) with ``shared_bytes`` of dynamic shared
    memory, first raising the kernel's limit when it asks for more than the default 48 KiB."""
    _allow_shared(kernel, shared_bytes)
    kernel(grid, block, args, shared_mem=shared_bytes)


_ARG_BYTES = 16  # a slot of the argument block: the widest scalar argument (complex128)


class PreparedLaunch:
    """A kernel launch whose argument block is built once; each :meth:`run` writes only the
    arguments that change and calls the driver.

    A CuPy launch converts every argument on every call: 12.4 us of host time for a kernel of
    25 arguments on the H100 machine's host, against 6.5 us for a prepared block with four
    pointers rewritten (a first version of this class, 2026-11-25). The host time before a
    product's first kernel is time the GPU waits.

    Parameters
    ----------
    kernel
        From :func:`compile_module` (not a cooperative one).
    grid, block : tuple of int
        Up to three dimensions each; ``run(grid=...)`` may change the grid.
    args : tuple
        Every argument in order: device arrays (passed as pointers) and NumPy scalars (passed
        by value, in their own type). The positions in ``variable`` hold examples: ``run``
        passes their values, of the same kinds (an array; a scalar of the same type).
    shared_bytes : int
        Dynamic shared memory per block.
    variable : tuple of int
        Positions in ``args`` that each run passes, in this order.
    """

    def __init__(self, kernel: Any, grid: tuple[int, ...], block: tuple[int, ...],
                 args: tuple[Any, ...], shared_bytes: int = 0,
                 variable: tuple[int, ...] = ()) -> None:  # fmt: skip
        cp = xp_for("cuda")
        if kernel.enable_cooperative_groups:
            raise BackendError("PreparedLaunch does not launch cooperative kernels")
        _allow_shared(kernel, shared_bytes)
        self._function = kernel.kernel.ptr
        self._grid = _dims(grid)
        self._block = _dims(block)
        self._shared = int(shared_bytes)
        self._block_storage = np.zeros(len(args) * _ARG_BYTES // 8 + 1, dtype=np.uint64)
        base = self._block_storage.ctypes.data
        self._pointers = np.array([base + _ARG_BYTES * i for i in range(len(args))],
                                  dtype=np.uint64)  # fmt: skip
        self._pointers_at = int(self._pointers.ctypes.data)  # ndarray.ctypes costs a microsecond
        self._keep = list(args)  # the fixed arrays stay alive as long as the launch
        self._variable = tuple(variable)
        self._scalar_views: dict[int, Any] = {}
        self._lock = threading.Lock()
        for i, value in enumerate(args):
            if isinstance(value, cp.ndarray):  # slot i's first 8 bytes are word 2 * i
                self._block_storage[2 * i] = value.data.ptr
            elif isinstance(value, np.generic):
                view = self._block_storage[2 * i:2 * i + 2].view(np.uint8)[:value.itemsize]
                view = view.view(value.dtype)
                view[0] = value
                if i in self._variable:
                    self._scalar_views[i] = view
            else:
                raise BackendError(f"PreparedLaunch: argument {i} must be a device array or a "
                                   f"NumPy scalar, got {type(value).__name__}")  # fmt: skip
        for i in self._variable:
            self._keep[i] = None  # a run's arrays are the caller's to keep
        # per run: the arrays' pointers go into their words, the scalars through typed views
        self._slots = memoryview(self._block_storage).cast("B").cast("Q")
        self._array_runs = tuple((k, 2 * i) for k, i in enumerate(self._variable)
                                 if i not in self._scalar_views)  # fmt: skip
        self._scalar_runs = tuple((k, self._scalar_views[i]) for k, i in enumerate(self._variable)
                                  if i in self._scalar_views)  # fmt: skip

    def run(self, *values: Any, grid: tuple[int, ...] | None = None) -> None:
        """Launch on the current stream with ``values`` at the ``variable`` positions."""
        if len(values) != len(self._variable):
            raise BackendError(f"PreparedLaunch.run: {len(self._variable)} values expected, got "
                               f"{len(values)}")  # fmt: skip
        gx, gy, gz = self._grid if grid is None else _dims(grid)
        bx, by, bz = self._block
        cp = _cupy()
        stream = cp.cuda.get_current_stream().ptr
        slots = self._slots
        with self._lock:  # the block is shared: fill and launch as one step
            for k, word in self._array_runs:
                slots[word] = values[k].data.ptr
            for k, view in self._scalar_runs:
                view[0] = values[k]
            cp.cuda.driver.launchKernel(self._function, gx, gy, gz, bx, by, bz, self._shared,
                                        stream, self._pointers_at, 0)  # fmt: skip


def _dims(dims: tuple[int, ...]) -> tuple[int, int, int]:
    padded = (*(int(d) for d in dims), 1, 1)
    return padded[0], padded[1], padded[2]


_RAISED_SHARED: dict[int, tuple[Any, int]] = {}  # id(kernel) -> (kernel, its dynamic limit)


def max_block_threads(kernel: Any) -> int:
    """The most threads a block of ``kernel`` (from :func:`compile_module`) may have: below 1024
    where its registers per thread would not fit a block of 1024 threads on the device."""
    return int(kernel.max_threads_per_block)


def multiprocessor_count() -> int:
    """Streaming multiprocessors of the current CUDA device."""
    return _multiprocessor_count(xp_for("cuda").cuda.runtime.getDevice())


def grid_stride_blocks(count: int, threads: int, per_multiprocessor: int = 8) -> int:
    """Blocks of ``threads`` for a grid-stride loop over ``count`` items: one item a thread,
    but at most ``per_multiprocessor`` blocks per SM (each thread then takes several)."""
    return max(1, min(-(-count // threads), per_multiprocessor * multiprocessor_count()))


@functools.cache
def _multiprocessor_count(device_id: int) -> int:
    # asked once per device: Device().attributes reads every attribute, each time
    props = xp_for("cuda").cuda.runtime.getDeviceProperties(device_id)
    return int(props["multiProcessorCount"])


def device_name() -> str:
    """A readable name of the compute device of the default backend."""
    if backend() == "cuda":
        cp = xp_for("cuda")
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    import platform  # noqa: PLC0415

    return f"CPU ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)"


def synchronize() -> None:
    """Wait for queued GPU work (no-op on the CPU)."""
    if "cupy" in sys.modules and _cupy() is not None:
        _cupy().cuda.get_current_stream().synchronize()


def cuda_event_timer() -> Any:
    """A pair-of-events timer for the current CUDA stream: ``start()``, ``stop() -> ms``."""
    cp = xp_for("cuda")

    class _Timer:
        def __init__(self) -> None:
            self._start = cp.cuda.Event()
            self._stop = cp.cuda.Event()

        def start(self) -> None:
            self._start.record()

        def stop(self) -> float:
            self._stop.record()
            self._stop.synchronize()
            return cp.cuda.get_elapsed_time(self._start, self._stop)

    return _Timer()


def capture_graph(record: Callable[[], Any]) -> Any:
    """A CUDA graph of the GPU work that ``record`` queues, captured on a side stream (the work
    is recorded, not run). The arrays it touches must outlive the graph, and ``record`` must
    neither allocate nor synchronise."""
    cp = xp_for("cuda")
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        try:
            record()
        finally:
            graph = stream.end_capture()
    return graph


def launch_graph(graph: Any) -> None:
    """Launch a graph from :func:`capture_graph` on the current stream."""
    graph.launch(stream=xp_for("cuda").cuda.get_current_stream())


def zero_async(array: Any) -> None:
    """Set a contiguous device array's bytes to 0 on the current stream (a memset: host time of
    a driver call, where ``array.fill(0)`` launches a kernel)."""
    cp = xp_for("cuda")
    cp.cuda.runtime.memsetAsync(array.data.ptr, 0, array.nbytes,
                                cp.cuda.get_current_stream().ptr)  # fmt: skip


class CountMailbox:
    """A pinned host word that a kernel writes a count into, for the host to read without a
    copy or a stream synchronisation (pinned memory is mapped: the device writes it at the
    address the host reads).

    A product whose host work after its count (building the result) waits for the whole
    stream spends that work with the GPU idle at the end of the call; with the count written
    by the first thread of its last kernel, the host builds the result while that kernel runs.
    The kernel writes ``tag << COUNT_BITS | count``; :meth:`wait` knows its call's count by the
    tag, so a write of an abandoned earlier call is never taken for it. One per thread
    (:func:`count_mailbox`).
    """

    COUNT_BITS = 40  # counts below 2**40; tags cycle through 1 .. 2**24 - 1
    _COUNT_MASK = (1 << COUNT_BITS) - 1
    _TAGS = 1 << 24
    SPIN_SECONDS = 0.002  # then a stream synchronisation (which raises a failed kernel's error)

    def __init__(self) -> None:
        cp = xp_for("cuda")
        self._memory = cp.cuda.alloc_pinned_memory(8)
        self._view = np.frombuffer(self._memory, dtype=np.uint64, count=1)
        self._view[0] = 0
        self.address = np.uint64(self._view.ctypes.data)  # the device's pointer too (UVA)
        self._tag = 0

    def next_tag(self) -> np.uint64:
        """The tag of the next call's count (pass it to the kernel that writes it)."""
        self._tag = self._tag % (self._TAGS - 1) + 1
        return np.uint64(self._tag)

    def wait(self, tag: np.uint64) -> int:
        """The count written with ``tag``: spun for while the GPU works, then, if it has not
        come, after a synchronisation of the current stream."""
        want = int(tag)
        view = self._view
        bits = self.COUNT_BITS
        deadline = time.perf_counter() + self.SPIN_SECONDS
        word = int(view[0])
        while word >> bits != want and time.perf_counter() <= deadline:
            word = int(view[0])
        if word >> bits != want:
            xp_for("cuda").cuda.get_current_stream().synchronize()
            word = int(view[0])
            if word >> bits != want:
                raise BackendError(f"CountMailbox: the kernel did not write the count of call "
                                   f"{want}")  # fmt: skip
        return word & self._COUNT_MASK


def count_mailbox() -> CountMailbox:
    """This thread's :class:`CountMailbox` (made on first use)."""
    mailbox = getattr(_state, "count_mailbox", None)
    if mailbox is None:
        mailbox = _state.count_mailbox = CountMailbox()
    return mailbox


def run_behind(launch: Callable[[], None], keep: Any) -> Any:
    """Queue the GPU work ``launch()`` queues on this thread's second stream, behind the current
    stream's work so far, and return an event for a later call to wait for (:func:`wait_for`).

    For work a later call needs, not this one (refilling a work array that a result took
    over): on the current stream it would delay this call's end; behind it, it overlaps the
    host's time before the next call's kernels. ``keep`` (what the work writes) stays
    referenced until the work is done: memory freed sooner could go to a new array of the
    current stream while the second stream still writes it.
    """
    cp = xp_for("cuda")
    current = cp.cuda.get_current_stream()
    streams = _state.__dict__.setdefault("behind_streams", {})
    device = cp.cuda.runtime.getDevice()
    if device not in streams:  # the stream, and an event to mark where it waits (re-recorded:
        # a wait takes the event as it was recorded last)
        streams[device] = (cp.cuda.Stream(non_blocking=True), cp.cuda.Event(disable_timing=True))
    behind, ready = streams[device]
    ready.record(current)
    behind.wait_event(ready)
    with behind:
        launch()
    done = cp.cuda.Event(disable_timing=True)
    done.record(behind)
    in_flight = [(event, kept) for event, kept in _state.__dict__.get("behind_work", ())
                 if not event.done]  # fmt: skip
    in_flight.append((done, keep))
    _state.behind_work = in_flight
    return done


def wait_for(event: Any) -> None:
    """Make the current stream's later work wait for ``event`` (from :func:`run_behind`)."""
    xp_for("cuda").cuda.get_current_stream().wait_event(event)


def record_event() -> Any:
    """A CUDA event recorded now on the current stream (for timing without a sync)."""
    event = xp_for("cuda").cuda.Event()
    event.record()
    return event


def elapsed_ms(start: Any, stop: Any) -> float:
    """Milliseconds between two recorded events (waits for ``stop``)."""
    stop.synchronize()
    return xp_for("cuda").cuda.get_elapsed_time(start, stop)


@contextlib.contextmanager
def profiled() -> Iterator[None]:
    """Bracket a block with ``cudaProfilerStart`` / ``cudaProfilerStop`` (synchronised), so a
    profiler run with ``--profile-from-start off`` sees only its kernels."""
    profiler = xp_for("cuda").cuda.profiler
    synchronize()
    profiler.start()
    try:
        yield
    finally:
        synchronize()
        profiler.stop()


class translate_oom:  # noqa: N801 - used as a function: ``with translate_oom("..."):``
    """Turn a CuPy out-of-memory error inside the block into
    :class:`~hyblas.errors.OutOfMemory` (a class, not a generator: entering costs a fraction
    of a generator's host time, on every product)."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, traceback: Any) -> bool:
        if exc is None or kind.__name__ != "OutOfMemoryError":
            return False
        cp = xp_for("cuda")
        free, _total = cp.cuda.runtime.memGetInfo()
        requested = getattr(exc, "_size", None)
        raise OutOfMemory(requested, free, self.what) from exc


def gpu_memory_pool_bytes() -> int:
    """Bytes held by CuPy's default device memory pool (0 without CuPy).

    The pool keeps freed blocks for reuse, so between two :func:`free_gpu_memory_pool` calls
    this is the high-water mark of device memory allocated through CuPy.
    """
    cp = _cupy() if "cupy" in sys.modules else None
    return int(cp.get_default_memory_pool().total_bytes()) if cp is not None else 0


def free_gpu_memory_pool() -> None:
    """Return every unused block of CuPy's memory pools to the device (no-op without CuPy)."""
    cp = _cupy() if "cupy" in sys.modules else None
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()
        cp.get_default_pinned_memory_pool().free_all_blocks()
