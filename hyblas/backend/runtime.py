"""The CUDA runtime: compiling, launching and timing kernels, graphs, streams and device memory.

Only this package imports CuPy (through :func:`hyblas.backend.selection.cupy_module`); the
functions here are for code that runs on the ``'cuda'`` backend.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

from ..errors import BackendError, InvalidValue, OutOfMemory
from .kernel_bundle import LoadedModule, ModuleRequest, active_bundle
from .selection import cupy_module, loaded_cupy, synchronize, xp_for
from .warmth import cache_files

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = [
    "compile_module",
    "CompileRecord",
    "recording_compiles",
    "binary_elementwise",
    "launch",
    "PreparedLaunch",
    "max_block_threads",
    "multiprocessor_count",
    "grid_stride_blocks",
    "cuda_event_timer",
    "capture_graph",
    "launch_graph",
    "zero_async",
    "CountMailbox",
    "count_mailbox",
    "HostReadback",
    "host_readback",
    "run_behind",
    "wait_for",
    "record_event",
    "elapsed_ms",
    "profiled",
    "names_oom",
    "out_of_memory",
    "translate_oom",
    "gpu_memory_pool_bytes",
    "free_gpu_memory_pool",
    "MemoryPeak",
    "device_memory_peak",
]

_LOG = logging.getLogger("hyblas")
_state = threading.local()  # per thread: the count mailbox, the host readback, the second
# stream and its work


@dataclasses.dataclass
class CompileRecord:
    """What :func:`recording_compiles` saw: every module compiled from source, and the files
    CuPy's kernel cache gained while compiling them (relative to the cache directory)."""

    requests: list[ModuleRequest] = dataclasses.field(default_factory=list)
    cache_files: set[str] = dataclasses.field(default_factory=set)


_RECORDING: list[CompileRecord] = []  # at most one: the active recording
_BUNDLE_MISS_TOLD = False


@contextlib.contextmanager
def recording_compiles() -> Iterator[CompileRecord]:
    """Within the block every module is compiled from source (not loaded from a kernel
    bundle, not taken from this process's memory) and recorded: what a bundle is built from."""
    if _RECORDING:
        raise BackendError("recording_compiles: a recording is already active")
    record = CompileRecord()
    _RECORDING.append(record)
    _compile.cache_clear()
    try:
        yield record
    finally:
        _RECORDING.clear()
        _compile.cache_clear()


def _bundled(cp: Any, request: ModuleRequest) -> LoadedModule | None:
    """``request`` loaded from the kernel bundle's cubin for this device, or None (no bundle,
    not in it, no cubin for this architecture, or a cubin the driver refuses)."""
    bundle = active_bundle()
    if bundle is None:
        return None
    found = bundle.cubin(request, cp.cuda.Device().compute_capability)
    if found is None:
        global _BUNDLE_MISS_TOLD  # noqa: PLW0603 - once per process
        if not _BUNDLE_MISS_TOLD:
            _BUNDLE_MISS_TOLD = True
            _LOG.warning(
                "hyblas: kernel %s is not in the kernel bundle for this GPU: compiling it "
                "(seconds; later ones are logged at INFO)",
                request.name_expressions[0],
            )
        return None
    path, module = found
    try:
        raw = cp.RawModule(path=str(path), enable_cooperative_groups=request.cooperative)
        raw.compile()  # loads the cubin now, so that a refusal falls back here
    except Exception as exc:  # noqa: BLE001 - any load failure: compile instead
        _LOG.warning("hyblas: bundled kernel %s did not load (%s): compiling", path.name, exc)
        return None
    return LoadedModule(raw, module.lowered)


@functools.cache
def _compile(
    source: str, name_expressions: tuple[str, ...], options: tuple[str, ...], cooperative: bool
) -> Any:
    cp = xp_for("cuda")
    request = ModuleRequest(source, name_expressions, options, cooperative)
    record = _RECORDING[0] if _RECORDING else None
    if record is None:
        loaded = _bundled(cp, request)
        if loaded is not None:
            return loaded
    before = cache_files(cp) if record is not None else set()
    started = time.perf_counter()
    module = cp.RawModule(
        code=source,
        options=options,
        name_expressions=name_expressions,
        enable_cooperative_groups=cooperative,
    )
    module.compile()
    # NVRTC, or a load from CuPy's on-disk cache (milliseconds): see backend.warmth
    _LOG.info("kernel %s ready in %.3f s", name_expressions[0], time.perf_counter() - started)
    if record is not None:
        record.requests.append(request)
        record.cache_files |= cache_files(cp) - before
    return module


def compile_module(
    source: str,
    name_expressions: tuple[str, ...],
    options: tuple[str, ...] = ("-std=c++17",),
    *,
    cooperative: bool = False,
) -> Any:
    """Compile CUDA C++ ``source`` with NVRTC, cached per (source, names, options), or load it
    from the kernel bundle where that holds it for this GPU (:mod:`.kernel_bundle`).

    Returns a ``cupy.RawModule`` (or the bundle's wrapper of one); fetch kernels with
    ``module.get_function(name_expression)``.
    ``cooperative`` launches its kernels cooperatively (all blocks resident at once, so that
    ``cooperative_groups::this_grid().sync()`` may be used; the grid must fit the device).
    """
    try:
        return _compile(source, tuple(name_expressions), tuple(options), cooperative)
    except Exception as exc:  # NVRTC errors carry the compiler log; keep it in the message
        raise BackendError(f"CUDA kernel compilation failed: {exc}") from exc


@functools.lru_cache(maxsize=64)
def binary_elementwise(expression: str, name: str) -> Any:
    """A CuPy element-wise kernel ``z = expression`` over ``x`` and ``y`` of one dtype ``T``
    (arrays or 0-d arrays, broadcast as ufuncs are): one launch where a composition of ufuncs
    takes several. Called as ``kernel(x, y)``; returns a new array of ``T``."""
    return xp_for("cuda").ElementwiseKernel("T x, T y", "T z", f"z = (T)({expression})", name)


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


def launch(
    kernel: Any,
    grid: tuple[int, ...],
    block: tuple[int, ...],
    args: tuple[Any, ...],
    shared_bytes: int = 0,
) -> None:
    """Launch ``kernel`` (from :func:`compile_module`) with ``shared_bytes`` of dynamic shared
    memory, first raising the kernel's limit when it asks for more than the default 48 KiB.

    A launch the driver refuses raises :class:`~hyblas.errors.BackendError` naming the kernel
    and its configuration (an error inside the kernel surfaces later, at the next wait).
    """
    _allow_shared(kernel, shared_bytes)
    try:
        kernel(grid, block, args, shared_mem=shared_bytes)
    except Exception as exc:
        _raise_launch_error(exc, kernel, grid, block, shared_bytes)
        raise


_CUDA_ERRORS = frozenset({"CUDADriverError", "CUDARuntimeError"})


def _raise_launch_error(
    exc: Exception, kernel: Any, grid: Any, block: Any, shared_bytes: int
) -> None:
    """Raise ``exc`` again as a BackendError naming the kernel, where CUDA refused the launch;
    return (to re-raise it as it is) otherwise."""
    if type(exc).__name__ not in _CUDA_ERRORS:
        return
    name = getattr(kernel, "name", None) or repr(kernel)
    raise BackendError(
        f"launching the kernel {name} failed (grid {tuple(grid)}, block {tuple(block)}, "
        f"{shared_bytes} bytes of dynamic shared memory): {exc}"
    ) from exc


_ARG_BYTES = 16  # a slot of the argument block: the widest scalar argument (complex128)


class PreparedLaunch:
    """A kernel launch whose argument block is built once; each :meth:`run` writes only the
    arguments that change and calls the driver.

    A CuPy launch converts every argument on every call, which for a kernel of many arguments
    is host time that grows with their number; a prepared block rewrites only the few pointers
    that change. The host time before a product's first kernel is time the GPU waits.

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

    def __init__(
        self,
        kernel: Any,
        grid: tuple[int, ...],
        block: tuple[int, ...],
        args: tuple[Any, ...],
        shared_bytes: int = 0,
        variable: tuple[int, ...] = (),
    ) -> None:
        cp = xp_for("cuda")
        if kernel.enable_cooperative_groups:
            raise BackendError("PreparedLaunch does not launch cooperative kernels")
        _allow_shared(kernel, shared_bytes)
        self._kernel = kernel  # named in a launch error
        self._function = kernel.kernel.ptr
        self._grid = _dims(grid)
        self._block = _dims(block)
        self._shared = int(shared_bytes)
        self._block_storage = np.zeros(len(args) * _ARG_BYTES // 8 + 1, dtype=np.uint64)
        base = self._block_storage.ctypes.data
        self._pointers = np.array(
            [base + _ARG_BYTES * i for i in range(len(args))], dtype=np.uint64
        )
        self._pointers_at = int(self._pointers.ctypes.data)  # ndarray.ctypes is slow to read: once
        self._keep = list(args)  # the fixed arrays stay alive as long as the launch
        self._variable = tuple(variable)
        self._scalar_views: dict[int, Any] = {}
        self._lock = threading.Lock()
        for i, value in enumerate(args):
            if isinstance(value, cp.ndarray):  # slot i's first 8 bytes are word 2 * i
                self._block_storage[2 * i] = value.data.ptr
            elif isinstance(value, np.generic):
                view = self._block_storage[2 * i : 2 * i + 2].view(np.uint8)[: value.itemsize]
                view = view.view(value.dtype)
                view[0] = value
                if i in self._variable:
                    self._scalar_views[i] = view
            else:
                raise BackendError(
                    f"PreparedLaunch: argument {i} must be a device array or a "
                    f"NumPy scalar, got {type(value).__name__}"
                )
        for i in self._variable:
            self._keep[i] = None  # a run's arrays are the caller's to keep
        # per run: the arrays' pointers go into their words, the scalars through typed views
        self._slots = memoryview(self._block_storage).cast("B").cast("Q")
        self._array_runs = tuple(
            (k, 2 * i) for k, i in enumerate(self._variable) if i not in self._scalar_views
        )
        self._scalar_runs = tuple(
            (k, self._scalar_views[i])
            for k, i in enumerate(self._variable)
            if i in self._scalar_views
        )

    def run(self, *values: Any, grid: tuple[int, ...] | None = None) -> None:
        """Launch on the current stream with ``values`` at the ``variable`` positions."""
        if len(values) != len(self._variable):
            raise BackendError(
                f"PreparedLaunch.run: {len(self._variable)} values expected, got {len(values)}"
            )
        gx, gy, gz = self._grid if grid is None else _dims(grid)
        bx, by, bz = self._block
        cp = cupy_module()
        stream = cp.cuda.get_current_stream().ptr
        slots = self._slots
        with self._lock:  # the block is shared: fill and launch as one step
            for k, word in self._array_runs:
                slots[word] = values[k].data.ptr
            for k, view in self._scalar_runs:
                view[0] = values[k]
            try:
                cp.cuda.driver.launchKernel(
                    self._function,
                    gx,
                    gy,
                    gz,
                    bx,
                    by,
                    bz,
                    self._shared,
                    stream,
                    self._pointers_at,
                    0,
                )
            except Exception as exc:
                _raise_launch_error(exc, self._kernel, (gx, gy, gz), self._block, self._shared)
                raise


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
    cp.cuda.runtime.memsetAsync(array.data.ptr, 0, array.nbytes, cp.cuda.get_current_stream().ptr)


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
                raise BackendError(
                    f"CountMailbox: the kernel did not write the count of call {want}"
                )
        return word & self._COUNT_MASK


def count_mailbox() -> CountMailbox:
    """This thread's :class:`CountMailbox` (made on first use)."""
    mailbox = getattr(_state, "count_mailbox", None)
    if mailbox is None:
        mailbox = _state.count_mailbox = CountMailbox()
    return mailbox


class HostReadback:
    """A few device words copied into pinned host memory on the current stream, for the host
    to read once the copy is done, not once the whole stream is.

    ``array.get()`` waits for every kernel queued before it returns; a call that reads its
    counts and then queues more work (filling a result from them) leaves the GPU idle while
    the host builds that work. Started right after the kernel that writes the counts, the
    copy lets the host queue the work that does not depend on them first, and then wait for
    the copy only. One per thread (:func:`host_readback`): a start waits for nothing, so each
    :meth:`start` must be followed by its :meth:`wait` before the next start.
    """

    def __init__(self) -> None:
        cp = xp_for("cuda")
        self._memory: Any = None
        self._view = np.zeros(0, dtype=np.uint64)
        self._count = 0
        self._copied = cp.cuda.Event(disable_timing=True)

    def start(self, array: Any) -> None:
        """Queue the copy of ``array`` (a contiguous device array, read as 64-bit words)."""
        cp = xp_for("cuda")
        if not array.flags.c_contiguous or array.nbytes % 8:
            raise InvalidValue(
                f"HostReadback: copies a contiguous array of 64-bit words, got {array.nbytes} "
                f"bytes{'' if array.flags.c_contiguous else ', not contiguous'}"
            )
        words = array.nbytes // 8
        if words > self._view.size:
            self._memory = cp.cuda.alloc_pinned_memory(8 * words)
            self._view = np.frombuffer(self._memory, dtype=np.uint64, count=words)
        self._count = words
        stream = cp.cuda.get_current_stream()
        if words:
            array.data.copy_to_host_async(self._view.ctypes.data, 8 * words, stream)
        self._copied.record(stream)

    def wait(self) -> list[int]:
        """The words of the last :meth:`start`, once they are copied (a failed kernel before
        the copy raises its error here, as a stream synchronisation would)."""
        self._copied.synchronize()
        return [int(word) for word in self._view[: self._count]]


def host_readback() -> HostReadback:
    """This thread's :class:`HostReadback` (made on first use)."""
    readback = getattr(_state, "host_readback", None)
    if readback is None:
        readback = _state.host_readback = HostReadback()
    return readback


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
    in_flight = [
        (event, kept) for event, kept in _state.__dict__.get("behind_work", ()) if not event.done
    ]
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
    """Turn an out-of-memory error inside the block into :class:`~hyblas.errors.OutOfMemory`
    naming ``what`` was being built: CuPy's (with the device memory free), NumPy's
    ``MemoryError`` (with the bytes asked for and the host memory available) and NumPy's
    ``ValueError`` for an array whose size in bytes does not even fit a 64-bit integer.

    A class, not a generator: entering costs a fraction of a generator's host time, on every
    product; the error is looked at only when one leaves the block.
    """

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, traceback: Any) -> bool:
        if exc is None:
            return False
        translated = out_of_memory(exc, self.what)
        if translated is None:
            return False
        raise translated from exc


def out_of_memory(exc: BaseException, what: str) -> OutOfMemory | None:
    """``exc`` as an :class:`~hyblas.errors.OutOfMemory` naming ``what``, where it is an
    allocation that failed (see :class:`translate_oom`); None otherwise (an OutOfMemory that
    an inner block raised included: it names what it was building already)."""
    if isinstance(exc, OutOfMemory):
        return None
    if type(exc).__name__ == "OutOfMemoryError":  # CuPy's (a MemoryError too)
        return OutOfMemory(getattr(exc, "_size", None), _device_free(), what)
    if isinstance(exc, MemoryError) and _raised_in_cupy(exc):
        # a failed device allocation inside Thrust (CuPy's sorts) comes back as a plain
        # MemoryError ("std::bad_alloc"): the device ran out, not the host
        return OutOfMemory(None, _device_free(), what)
    if isinstance(exc, MemoryError):  # NumPy's _ArrayMemoryError knows the bytes
        return OutOfMemory(getattr(exc, "_total_size", None), _host_free(), what)
    if type(exc) is ValueError and str(exc).startswith(_TOO_BIG):
        return OutOfMemory(None, _host_free(), f"{what} (an array of more than 2**63 bytes)")
    return None


def names_oom(what: str) -> Callable[[_F], _F]:
    """Decorate a public entry point: an allocation that fails anywhere inside it, and that no
    inner :class:`translate_oom` block named, raises :class:`~hyblas.errors.OutOfMemory` naming
    ``what`` (a ``try`` costs no host time until something is raised)."""

    def decorate(function: _F) -> _F:
        @functools.wraps(function)
        def named(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except (MemoryError, ValueError) as exc:
                translated = out_of_memory(exc, what)
                if translated is None:
                    raise
                raise translated from exc

        return named  # type: ignore[return-value]

    return decorate


_TOO_BIG = ("array is too big", "Maximum allowed size exceeded", "Maximum allowed dimension")


def _raised_in_cupy(exc: BaseException) -> bool:
    """Whether ``exc`` was raised inside CuPy's code (a frame of a file in a ``cupy`` folder,
    its Cython modules' included)."""
    tb = exc.__traceback__
    while tb is not None:
        if "cupy" in tb.tb_frame.f_code.co_filename.replace("\\", "/").split("/"):
            return True
        tb = tb.tb_next
    return False


def _device_free() -> int | None:
    """Bytes of device memory free now (None without CuPy)."""
    cp = loaded_cupy()
    return int(cp.cuda.runtime.memGetInfo()[0]) if cp is not None else None


def _host_free() -> int | None:
    """Bytes of host memory available now (None where the system does not say)."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def gpu_memory_pool_bytes() -> int:
    """Bytes held by CuPy's default device memory pool (0 without CuPy).

    The pool keeps freed blocks for reuse, so between two :func:`free_gpu_memory_pool` calls
    this is the high-water mark of device memory allocated through CuPy.
    """
    cp = loaded_cupy()
    return int(cp.get_default_memory_pool().total_bytes()) if cp is not None else 0


@dataclasses.dataclass
class MemoryPeak:
    """Device memory in use through CuPy's default pool: at the start of a block
    (``start_bytes``) and its highest point inside it (``peak_bytes``)."""

    start_bytes: int = 0
    peak_bytes: int = 0

    @property
    def above_start(self) -> int:
        """The most the block held at once beyond what was in use when it began."""
        return max(self.peak_bytes - self.start_bytes, 0)


@contextlib.contextmanager
def device_memory_peak() -> Iterator[MemoryPeak]:
    """Track the peak of device memory in use (CuPy's default pool, this thread's
    allocations) while the block runs; zeros without CuPy.

    A CuPy memory hook reads the pool's bytes in use after every allocation: the pool's own
    total keeps freed blocks and, split as they are, cannot be emptied back to what is in
    use, so it is no high-water mark of one block's needs.
    """
    cp = loaded_cupy()
    if cp is None:
        yield MemoryPeak()
        return
    pool = cp.get_default_memory_pool()
    peak = MemoryPeak(int(pool.used_bytes()), int(pool.used_bytes()))

    class _PeakHook(cp.cuda.MemoryHook):
        name = "hyblas-device-memory-peak"

        def malloc_postprocess(self, **kwargs: Any) -> None:  # noqa: ARG002 - CuPy's keywords
            peak.peak_bytes = max(peak.peak_bytes, int(pool.used_bytes()))

    with _PeakHook():
        yield peak


def free_gpu_memory_pool() -> None:
    """Return every unused block of CuPy's memory pools to the device (no-op without CuPy)."""
    cp = loaded_cupy()
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()
        cp.get_default_pinned_memory_pool().free_all_blocks()
