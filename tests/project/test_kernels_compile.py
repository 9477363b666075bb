"""Every CUDA kernel file, specialized for every built-in semiring and dtype, compiles for sm_90.

Runs without a GPU: only the CUDA compiler (nvcc) is needed; skipped where it is absent.

How: each kernel family (one ``builtin_specializations()``: a kernel file, or the device loop's
four) becomes one translation unit holding every specialization, each in its own namespace with
its kernel templates instantiated (their addresses taken, as NVRTC's name expressions do) and
its macros undefined after it. Each unit is built by two nvcc calls, device code only (NVRTC
builds no host code either); the calls of all families run at once, one per core, and a line
is printed as each ends (through the terminal reporter, whatever ``-s`` says).

1. Every specialization: ``nvcc -arch=lto_90 -dlto --ltoir``, the device-side C++ front end
   and NVVM's lowering to (unoptimized) NVVM IR.
2. A sample: one specialization per kernel and value type (the label's last word; the
   semiring changes from one type to the next): ``nvcc -arch=sm_90 -cubin`` at the default
   optimization, the whole way to machine code, as NVRTC builds a kernel at first use; the
   cubin must hold the code of every kernel the sampled specializations name.

What it proves: the source of every built-in specialization of every kernel file, with every
kernel template instance the executors name, is accepted by the device compiler's front end
(syntax, types, overloads, template instantiation, the __host__ / __device__ calling rules) and
lowered to NVVM IR; and every kernel compiles to sm_90 machine code on every value type:
PTX generation, the optimizer and ptxas (the inline PTX, static shared memory sized by the
value type, sm_90's limits) pass there.

What it does not prove: that each of the other specializations gets through PTX generation,
the optimizer and ptxas. An error that only appears there, for one semiring on a type that the
sample builds with another, shows on the GPU machine, where NVRTC compiles each specialization
at first use and the gpu-marked tests run them; so does anything NVRTC (same front end, its own
built-in headers) and nvcc disagree on, and whether any kernel computes the right result.

Cost: about 80 s of CPU time in all (nvcc's own, printed at the end), so about 45 s on an idle
2-core machine, and up to 2.5 GB of memory for each of the three largest units (two at a time).
The previous check, every specialization built to an sm_90 object, took about 10 minutes there;
every specialization to PTX, even at -O0, costs 2 to 4 times the CPU time of NVVM IR, over the
2 minutes this check may take.
"""

from __future__ import annotations

import bisect
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import nullcontext, suppress
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from hyblas import dtypes as hb_dtypes
from hyblas.device import ewise, fill, indexed, inner, scatter, segments
from hyblas.executors.dense import kernels as dense_kernels
from hyblas.executors.pull import kernels as pull_kernels
from hyblas.executors.reference import kernels, masked_dot
from hyblas.executors.sparse import kernels as sparse_kernels
from hyblas.traversal import afforest
from hyblas.traversal import kernels as loop_kernels

NVCC = shutil.which("nvcc")
WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
TIMEOUT_S = 900

pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc (the CUDA compiler) is not installed")

Specialization = tuple[str, str, list[str]]  # (label, source, kernel name expressions)

FAMILIES: dict[str, Callable[[], Iterable[Specialization]]] = {
    "reference": kernels.builtin_specializations,
    "masked_dot": masked_dot.builtin_specializations,
    "segment_reduce": segments.builtin_specializations,
    "ewise_bitmap": ewise.builtin_specializations,
    "inner_bitmap": inner.builtin_specializations,
    "scatter_bitmap": scatter.builtin_specializations,
    "fill_bitmap": fill.builtin_specializations,
    "indexed": indexed.builtin_specializations,
    "indexed_accum": indexed.accum_specializations,
    "dense": dense_kernels.builtin_specializations,
    "sparse": sparse_kernels.builtin_specializations,
    "pull": pull_kernels.builtin_specializations,
    "loop": loop_kernels.builtin_specializations,
    "union_find": afforest.builtin_specializations,
}


# --------------------------------------------------------------------------------------------
# Translation units and the two builds
# --------------------------------------------------------------------------------------------

_NAMESPACE = "hyblas_check_"
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.MULTILINE)


@dataclass
class Unit:
    """A translation unit: the text, and the line where each specialization's part begins."""

    text: str
    starts: list[int]
    labels: list[str]

    def label_at(self, line: int) -> str | None:
        """The specialization whose part holds ``line`` (None: the shared includes)."""
        index = bisect.bisect_right(self.starts, line) - 1
        return self.labels[index] if index >= 0 else None


def _translation_unit(specializations: list[Specialization]) -> Unit:
    includes: dict[str, None] = {}  # headers go before the namespaces, once each
    parts, labels = [], []
    for label, source, names in specializations:
        taken = ", ".join(f"(const void*)&{name}" for name in names)
        lines = source.splitlines()
        includes.update(dict.fromkeys(line for line in lines if line.startswith("#include")))
        body = "\n".join(line for line in lines if not line.startswith("#include"))
        # the next part sees no macro of this one: each is preprocessed as if it were alone
        undefs = "".join(f"#undef {name}\n" for name in dict.fromkeys(_DEFINE.findall(body)))
        parts.append(
            f"namespace {_NAMESPACE}{label} {{\n{body}\n"
            f"const void* instantiate[] = {{{taken}}};\n}}\n{undefs}"
        )
        labels.append(label)
    head = "".join(f"{line}\n" for line in includes)
    starts, line = [], head.count("\n") + 1
    for part in parts:
        starts.append(line)
        line += part.count("\n")
    return Unit(head + "".join(parts), starts, labels)


@dataclass(frozen=True)
class Build:
    """One nvcc call: ``what`` names it in the progress lines and in failures."""

    stage: str  # "ir" or "machine code"
    options: tuple[str, ...]
    suffix: str
    what: str


IR = Build("ir", ("-arch=lto_90", "-dlto", "--ltoir"), ".ltoir", "front end + NVVM IR")
MACHINE_CODE = Build("machine code", ("-arch=sm_90", "-cubin"), ".cubin", "sm_90 cubin")


@dataclass
class Result:
    family: str
    build: Build
    specializations: list[Specialization] = field(repr=False)
    unit: Unit = field(repr=False)
    returncode: int
    log: str
    seconds: float
    cpu_seconds: float  # nvcc's and its compilers' user + system time
    peak_gb: float  # the largest resident set among them (ru_maxrss)
    output: Path

    def line(self) -> str:
        state = "ok" if self.returncode == 0 else f"FAILED (exit {self.returncode})"
        # below 1 GB the figure is mostly this process's own, counted from the fork
        memory = f", {self.peak_gb:.1f} GB" if self.peak_gb >= 1 else ""
        return (
            f"nvcc {self.family}: {len(self.specializations)} specializations -> "
            f"{self.build.what}: {self.seconds:.1f} s ({self.cpu_seconds:.1f} s of CPU{memory}), "
            f"{state}"
        )


def _stop(process: subprocess.Popen) -> None:
    """Kill an nvcc this module started, with the compilers it runs (its own process group)."""
    if process.returncode is None:  # not reaped yet: the group is still ours
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def _run_nvcc(path: Path, build: Build, processes: list[subprocess.Popen]) -> tuple:
    output = path.with_suffix(build.suffix)
    command = [NVCC, *build.options, "-std=c++17", str(path), "-o", str(output)]
    if build is MACHINE_CODE:  # keep the PTX: a ptxas error names a line of it
        keep = path.with_name(f"{path.stem}_kept")
        keep.mkdir(exist_ok=True)
        command += ["-keep", "-keep-dir", str(keep)]
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: _stop kills cicc / ptxas too
    )
    processes.append(process)
    timer = threading.Timer(TIMEOUT_S, _stop, (process,))
    timer.start()
    try:
        log = process.stdout.read()
        # wait4: the time and memory of nvcc and the compilers it ran (wall time depends on load)
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        timer.cancel()
        process.stdout.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode == -signal.SIGKILL:
        log += f"\n(killed: past {TIMEOUT_S} s, or the tests were interrupted)"
    seconds, cpu = time.perf_counter() - start, usage.ru_utime + usage.ru_stime
    return process.returncode, log, seconds, cpu, usage.ru_maxrss / 2**20, output


def _compile(
    family: str, specializations: list[Specialization], build: Build, directory: Path
) -> Result:
    """Build ``specializations`` as one unit in one nvcc call (the tests below use it alone)."""
    unit = _translation_unit(specializations)
    path = directory / f"{family}_{build.stage.replace(' ', '_')}.cu"
    path.write_text(unit.text)
    return Result(family, build, specializations, unit, *_run_nvcc(path, build, []))


def _namespaces_in(text: str) -> list[str]:
    """The specialization labels named by the mangled names in ``text``."""
    found = []
    for match in re.finditer(rf"(\d+)({_NAMESPACE}\w+)", text):
        found.append(match[2][: int(match[1])].removeprefix(_NAMESPACE))
    return found


def _function_at(ptx: Path, line: int) -> str:
    """The name of the PTX function (kernel or device function) that holds ``line``."""
    names = re.findall(
        r"^\.(?:visible |weak )?\.(?:entry|func) .*?(\w+)\(",
        "\n".join(ptx.read_text().splitlines()[:line]),
        re.MULTILINE,
    )
    return names[-1] if names else ""


def _blamed(result: Result) -> list[str]:
    """The specializations a failed build's log points at: by the line of the unit the front
    end names, by a mangled name, or by the function of the PTX line ptxas names."""
    lines = re.findall(r"\.cu\((\d+)\): (?:catastrophic )?error", result.log)
    labels = [result.unit.label_at(int(line)) or "(the shared includes)" for line in lines]
    for ptx, line in re.findall(r"ptxas (\S+\.ptx), line (\d+);", result.log):
        if Path(ptx).is_file():
            labels += _namespaces_in(_function_at(Path(ptx), int(line)))
    return list(dict.fromkeys(labels + _namespaces_in(result.log)))


def _kernels_in_cubin(path: Path) -> Counter:
    """How many kernels (entry functions) of each specialization's namespace ``path`` holds."""
    entries = set(re.findall(rb"\.nv\.info\.(_Z\w+)", path.read_bytes()))
    return Counter(label for name in entries for label in _namespaces_in(name.decode()))


def _problems(result: Result) -> list[str]:
    """What is wrong with a build: its failure, with the specializations blamed, or a missing
    output; a cubin missing the code of a kernel its specializations name."""
    head = f"{result.family}, {result.build.what} ({len(result.specializations)} specializations)"
    if result.returncode != 0:
        blamed = ", ".join(_blamed(result)) or "(none named in the log)"
        return [f"{head}: nvcc exited {result.returncode}; blamed: {blamed}\n{result.log[:6000]}"]
    if not result.output.is_file() or result.output.stat().st_size == 0:
        return [f"{head}: nvcc wrote no {result.output.name}"]
    if result.build is not MACHINE_CODE:
        return []
    held = _kernels_in_cubin(result.output)
    return [
        f"{head}: the cubin holds {held[label]} kernel(s) of {label}, "
        f"fewer than the {len(set(names))} it names"
        for label, _, names in result.specializations
        if held[label] < len(set(names))
    ]


# --------------------------------------------------------------------------------------------
# The sample built to machine code
# --------------------------------------------------------------------------------------------


def sample(specializations: list[Specialization]) -> list[Specialization]:
    """One specialization per kernel and value type: grouped by the kernels they name
    (template names, without arguments) and the label's last word (the value type, or the
    special case's name); in each group of a kernel's k-th type, the member at k / (number
    of types) of the way, so the semiring changes from one type to the next."""
    groups: dict[tuple[tuple[str, ...], str], list[Specialization]] = {}
    for spec in specializations:
        label, _, names = spec
        kernel = tuple(sorted({name.split("<", 1)[0] for name in names}))
        groups.setdefault((kernel, label.rsplit("_", 1)[-1]), []).append(spec)
    types = Counter(kernel for kernel, _ in groups)
    seen: Counter = Counter()
    chosen = []
    for (kernel, _), members in groups.items():
        chosen.append(members[seen[kernel] * len(members) // types[kernel]])
        seen[kernel] += 1
    return chosen


# --------------------------------------------------------------------------------------------
# All families at once, in parallel; each test waits for its own
# --------------------------------------------------------------------------------------------


class Builds:
    """Starts the two builds of every selected family, longest first, on one worker per core,
    and prints a line as each ends."""

    # CPU time per byte of source, relative (measured): a line costs ~20 times more in a cubin
    _COST = {"ir": 1.0, "machine code": 20.0}

    def __init__(self, config: pytest.Config, families: list[str], directory: Path) -> None:
        self._config = config
        self._processes: list[subprocess.Popen] = []
        self.specializations = {name: list(FAMILIES[name]()) for name in families}
        jobs = []
        for name, specs in self.specializations.items():
            for build, chosen in ((IR, specs), (MACHINE_CODE, sample(specs))):
                unit = _translation_unit(chosen)
                path = directory / f"{name}_{build.stage.replace(' ', '_')}.cu"
                path.write_text(unit.text)
                cost = len(unit.text) * self._COST[build.stage]
                jobs.append((cost, name, build, chosen, unit, path))
        jobs.sort(key=lambda job: -job[0])
        self._say(
            f"nvcc: {len(self.specializations)} kernel families, "
            f"{sum(map(len, self.specializations.values()))} specializations, "
            f"{len(jobs)} calls on {WORKERS} workers"
        )
        self._started = time.perf_counter()
        self._pool = ThreadPoolExecutor(max_workers=WORKERS)
        self._futures: dict[Future, tuple] = {}
        self._by_family: dict[str, list[Future]] = {name: [] for name in families}
        for _, name, build, chosen, unit, path in jobs:
            future = self._pool.submit(_run_nvcc, path, build, self._processes)
            self._futures[future] = (name, build, chosen, unit)
            self._by_family[name].append(future)
        self._results: dict[Future, Result] = {}

    def _say(self, line: str) -> None:
        """A line on the terminal now, captured output or not."""
        plugins = self._config.pluginmanager
        capture = plugins.getplugin("capturemanager")
        reporter = plugins.getplugin("terminalreporter")
        with capture.global_and_fixture_disabled() if capture else nullcontext():
            if reporter is not None:
                reporter.ensure_newline()
                reporter.write_line(line)
            else:
                print(line, file=sys.stderr, flush=True)

    def _collect(self, done: Iterable[Future]) -> None:
        for future in done:
            if future in self._results:
                continue
            result = Result(*self._futures[future], *future.result())
            self._results[future] = result
            self._say(result.line())

    def results(self, family: str) -> list[Result]:
        """Wait for ``family``'s builds, printing every build that ends meanwhile."""
        mine = self._by_family[family]
        while any(f not in self._results for f in mine):
            pending = [f for f in self._futures if f not in self._results]
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            self._collect(done)
        if all(f in self._results for f in self._futures) and self._started:
            cpu = sum(result.cpu_seconds for result in self._results.values())
            self._say(
                f"nvcc: all {len(self._results)} builds done in "
                f"{time.perf_counter() - self._started:.1f} s ({cpu:.1f} s of CPU)"
            )
            self._started = 0.0
        return [self._results[f] for f in mine]

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in self._processes:  # those still running: a test failed or was stopped
            _stop(process)


@pytest.fixture(scope="module")
def builds(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    here = request.module.__name__
    selected = [
        item.function.family
        for item in request.session.items
        # getattr: a doctest (of hyblas/) is an item without a module or function
        if getattr(getattr(item, "module", None), "__name__", None) == here
        and hasattr(item.function, "family")
    ]
    started = Builds(request.config, selected, tmp_path_factory.mktemp("kernels"))
    yield started
    started.close()


def family(name: str) -> Callable:
    """Marks a test as the check of kernel family ``name`` (so its builds start up front)."""

    def mark(test: Callable) -> Callable:
        test.family = name
        return test

    return mark


def _check(builds: Builds, name: str) -> None:
    problems = [problem for result in builds.results(name) for problem in _problems(result)]
    assert not problems, "\n\n".join(problems)


def _expected_count() -> int:
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    return sum(len(NAMESPACES["semiring"][n].types) for n in BUILTIN_NAMES["semiring"])


# --------------------------------------------------------------------------------------------
# One test per kernel family: its specializations are all there, and they compile
# --------------------------------------------------------------------------------------------


@family("reference")
def test_every_builtin_specialization_compiles_for_sm90(builds: Builds) -> None:
    specializations = builds.specializations["reference"]
    # every built-in semiring appears, with each dtype it serves
    assert len(specializations) == _expected_count()
    _check(builds, "reference")


@family("segment_reduce")
def test_every_segment_reduce_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The segmented reduction's group and block kernels, for every built-in monoid's operator
    and the duplicate rules first / second, on every dtype each serves."""
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    specializations = builds.specializations["segment_reduce"]
    ops = [NAMESPACES["monoid"][n].binaryop for n in BUILTIN_NAMES["monoid"]]
    ops += [NAMESPACES["binary"][n] for n in ("first", "second")]
    # and plus over a matrix's float32 values summed in float64
    assert len(specializations) == sum(len(op.types) for op in ops) + 1
    _check(builds, "segment_reduce")


@family("ewise_bitmap")
def test_every_ewise_bitmap_specialization_compiles_for_sm90(builds: Builds) -> None:
    """Element-wise add / multiply of two bitmaps, for every built-in binary operator on every
    dtype it serves, plus mixed float32 / float64 operands."""
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    specializations = builds.specializations["ewise_bitmap"]
    ops = [NAMESPACES["binary"][n] for n in BUILTIN_NAMES["binary"]]
    assert len(specializations) == sum(len(op.types) for op in ops) + 1
    _check(builds, "ewise_bitmap")


@family("inner_bitmap")
def test_every_inner_bitmap_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The inner product of two bitmaps, for every built-in semiring on every dtype it serves,
    plus mixed float32 / float64 operands."""
    from hyblas.operators import BUILTIN_NAMES, NAMESPACES

    specializations = builds.specializations["inner_bitmap"]
    semirings = [NAMESPACES["semiring"][n] for n in BUILTIN_NAMES["semiring"]]
    assert len(specializations) == sum(len(sr.types) for sr in semirings) + 1
    _check(builds, "inner_bitmap")


@family("masked_dot")
def test_every_masked_dot_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The masked dot-product SpGEMM's thread and warp kernels, for every built-in semiring on
    every dtype it serves, with int32 and int64 indices."""
    specializations = builds.specializations["masked_dot"]
    assert len(specializations) == _expected_count()
    _check(builds, "masked_dot")


@family("scatter_bitmap")
def test_every_scatter_bitmap_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The sparse-to-bitmap scatter, for every value size of the built-in dtypes."""
    specializations = builds.specializations["scatter_bitmap"]
    sizes = {hb_dtypes.lookup(dt).itemsize for dt in hb_dtypes.DTYPES}
    assert {int(label.rsplit("_", 1)[1]) for label, _, _ in specializations} == sizes
    _check(builds, "scatter_bitmap")


@family("indexed")
def test_every_indexed_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The gather and the scatter by an index list, for every value size of the built-in
    dtypes."""
    specializations = builds.specializations["indexed"]
    sizes = {hb_dtypes.lookup(dt).itemsize for dt in hb_dtypes.DTYPES}
    assert {int(label.rsplit("_", 1)[1]) for label, _, _ in specializations} == sizes
    _check(builds, "indexed")


@family("indexed_accum")
def test_every_indexed_accum_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The scatter folded by a monoid, for every built-in monoid on every 4- and 8-byte
    integer type it takes and gives as it is (min on int64: FastSV's stochastic hooking)."""
    specializations = builds.specializations["indexed_accum"]
    labels = {label for label, _, _ in specializations}
    assert {"indexed_accum_min_int64", "indexed_accum_plus_uint32"} <= labels
    assert not any(label.endswith(("float64", "int8", "bool")) for label in labels)
    _check(builds, "indexed_accum")


@family("union_find")
def test_the_union_find_kernels_compile_for_sm90(builds: Builds) -> None:
    """Connected components' union-find kernels (sampling, compression, the full pass by
    threads and by blocks) for both parent types and the three CSR index layouts."""
    specializations = builds.specializations["union_find"]
    assert [label for label, _, _ in specializations] == ["union_find_int32", "union_find_int64"]
    assert all(len(names) == 10 for _, _, names in specializations)
    _check(builds, "union_find")


@family("fill_bitmap")
def test_the_fill_bitmap_kernel_compiles_for_sm90(builds: Builds) -> None:
    """The full-bitmap fill: one kernel for every value type (it writes a byte pattern)."""
    specializations = builds.specializations["fill_bitmap"]
    assert [names for _, _, names in specializations] == [[fill.NAME]]
    _check(builds, "fill_bitmap")


@family("dense")
def test_every_dense_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The dense executor's three kernels, for every built-in semiring and dtype, plus the
    fused write with a foreign mask type, another output type and an accumulator."""
    specializations = builds.specializations["dense"]
    assert len(specializations) == _expected_count() + 1
    _check(builds, "dense")


@family("sparse")
def test_every_sparse_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The sparse executor's push, spread, finish and fill kernels, for every built-in semiring
    and dtype, plus int64 ids with a foreign mask type."""
    specializations = builds.specializations["sparse"]
    assert len(specializations) == _expected_count() + 1
    _check(builds, "sparse")


@family("pull")
def test_every_pull_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The pull executor's warp and block kernels (with their early-exit condition), for every
    built-in semiring and dtype."""
    specializations = builds.specializations["pull"]
    assert len(specializations) == _expected_count()
    _check(builds, "pull")


@family("loop")
def test_every_loop_specialization_compiles_for_sm90(builds: Builds) -> None:
    """The device loop's persistent kernel (levels for every built-in semiring and dtype, the
    improving variant where the add monoid allows it), with both CSR index layouts; and its
    entry test's facts kernel for both indptr types, and the kernel that writes a stay's levels
    into the state for every state type (all but bool), and the improving rounds' bitmap
    update: min / max on every type, lor / land on bool, bor / band on the integers."""
    specializations = builds.specializations["loop"]
    states = len(hb_dtypes.DTYPES) - 1
    integers = sum(dt.kind in "iu" for dt in hb_dtypes.DTYPES)
    improves = 2 * len(hb_dtypes.DTYPES) + 2 + 2 * integers
    # + int32 indptr, facts, reached levels, improve
    assert len(specializations) == _expected_count() + 1 + 2 + states + improves
    _check(builds, "loop")


# --------------------------------------------------------------------------------------------
# The check itself: what it samples, and that it can fail
# --------------------------------------------------------------------------------------------


def test_the_sample_has_every_kernel_on_every_value_type() -> None:
    """The device loop's family (four kernel files, several kernels): its sample builds each
    kernel on every value type it serves, a few dozen of its 576 specializations, and the
    semiring changes from one type to the next."""
    specializations = list(loop_kernels.builtin_specializations())
    chosen = sample(specializations)

    def kernel_types(specs: list[Specialization]) -> set[tuple[str, str]]:
        return {
            (name.split("<", 1)[0], label.rsplit("_", 1)[-1])
            for label, _, names in specs
            for name in names
        }

    assert kernel_types(chosen) == kernel_types(specializations)
    assert len(chosen) < len(specializations) / 10
    loops = [label for label, _, names in chosen if names[0] == loop_kernels.loop_name(True)]
    semirings = {label.removeprefix("loop_").rsplit("_", 1)[0] for label in loops}
    assert len(semirings) >= len(hb_dtypes.DTYPES) - 1


def _broken_spmv(expression: str) -> Specialization:
    from hyblas.operators import NAMESPACES
    from hyblas.operators.classes import BinaryOp, Semiring

    broken = BinaryOp("broken", expression, lambda x, y: x + y)
    semiring = Semiring("plus_broken", NAMESPACES["monoid"]["plus"], broken)
    source = kernels.specialize_spmv(semiring, np.dtype(np.float32))
    names = [kernels.spmv_name("warp", np.dtype(np.int32), False, False)]
    return "broken", source, names


def test_a_broken_expression_fails_to_compile(tmp_path: Path) -> None:
    """The check above can fail: a semiring whose CUDA expression is not C is rejected, and
    the failure names it, among the family's other specializations."""
    family_specs = list(kernels.builtin_specializations())[:3]
    specializations = [family_specs[0], _broken_spmv("((x) +* (y))"), *family_specs[1:]]
    result = _compile("reference", specializations, IR, tmp_path)
    assert result.returncode != 0
    assert _blamed(result) == ["broken"]
    assert "broken" in _problems(result)[0]


# Sources each well-formed C++ on its own, wrong for the device, and the stage that rejects it
_WRONG = {
    # an error only in the instance: the check takes each named instance's address
    "a template instance": (
        "template <typename I> __global__ void hyblas_k(I* p) { p[0] = I::missing; }",
        ["hyblas_k<int>"],
        IR,
    ),
    "a host function called from a kernel": (
        "int hyblas_host() { return 1; }\n"
        "__global__ void hyblas_k(int* p) { p[0] = hyblas_host(); }",
        ["hyblas_k"],
        IR,
    ),
    "inline PTX that is not PTX": (
        '__global__ void hyblas_k(int* p) { asm volatile("bar.sink %0;" : : "r"(1)); }',
        ["hyblas_k"],
        MACHINE_CODE,
    ),
    "more static shared memory than sm_90 has": (
        "__global__ void hyblas_k(double* p) {\n"
        "    __shared__ double s[8192];\n"
        "    s[threadIdx.x] = p[threadIdx.x]; __syncthreads(); p[0] = s[p[1] > 0];\n}",
        ["hyblas_k"],
        MACHINE_CODE,
    ),
}


@pytest.mark.parametrize("wrong", list(_WRONG))
def test_a_wrong_kernel_fails_where_the_docstring_says(wrong: str, tmp_path: Path) -> None:
    """Each kind of error is caught by the stage the module docstring credits with it, and the
    failure names the specialization to blame."""
    source, names, stage = _WRONG[wrong]
    specializations = [("wrong", source, names)]
    result = _compile("wrong", specializations, stage, tmp_path)
    assert result.returncode != 0, result.log
    assert _blamed(result) == ["wrong"], result.log
    if stage is MACHINE_CODE:  # the front end and NVVM accept it: only the sample shows it
        assert _compile("wrong", specializations, IR, tmp_path).returncode == 0
