"""The machinery of the kernel compile check (``tests/project/test_kernels_compile.py``, whose
docstring says what it builds and proves): the kernel families, their translation units, the nvcc
builds and :class:`Builds`, which runs them all in parallel.

In a session that runs its tests in one process, :func:`start_early` (called when collection
ends, by ``tests/project/conftest.py``) starts the builds on every core but one, so that they run
while the other tests do, and the compile tests, near the end of the run, find them done; an
xdist worker, or a session whose early builds were not started, starts them at the first
compile test, on every core.
"""

from __future__ import annotations

import bisect
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import nullcontext, suppress
from dataclasses import dataclass, field
from pathlib import Path

import pytest

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

NAMESPACE = "hyblas_check_"
DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.MULTILINE)


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


def translation_unit(specializations: list[Specialization]) -> Unit:
    includes: dict[str, None] = {}  # headers go before the namespaces, once each
    parts, labels = [], []
    for label, source, names in specializations:
        taken = ", ".join(f"(const void*)&{name}" for name in names)
        lines = source.splitlines()
        includes.update(dict.fromkeys(line for line in lines if line.startswith("#include")))
        body = "\n".join(line for line in lines if not line.startswith("#include"))
        # the next part sees no macro of this one: each is preprocessed as if it were alone
        undefs = "".join(f"#undef {name}\n" for name in dict.fromkeys(DEFINE.findall(body)))
        parts.append(
            f"namespace {NAMESPACE}{label} {{\n{body}\n"
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


def stop_build(process: subprocess.Popen) -> None:
    """Kill an nvcc this module started, with the compilers it runs (its own process group)."""
    if process.returncode is None:  # not reaped yet: the group is still ours
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def run_nvcc(path: Path, build: Build, processes: list[subprocess.Popen]) -> tuple:
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
        start_new_session=True,  # its own process group: stop_build kills cicc / ptxas too
    )
    processes.append(process)
    timer = threading.Timer(TIMEOUT_S, stop_build, (process,))
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


def compile_unit(
    family: str, specializations: list[Specialization], build: Build, directory: Path
) -> Result:
    """Build ``specializations`` as one unit in one nvcc call (the tests below use it alone)."""
    unit = translation_unit(specializations)
    path = directory / f"{family}_{build.stage.replace(' ', '_')}.cu"
    path.write_text(unit.text)
    return Result(family, build, specializations, unit, *run_nvcc(path, build, []))


def namespaces_in(text: str) -> list[str]:
    """The specialization labels named by the mangled names in ``text``."""
    found = []
    for match in re.finditer(rf"(\d+)({NAMESPACE}\w+)", text):
        found.append(match[2][: int(match[1])].removeprefix(NAMESPACE))
    return found


def function_at(ptx: Path, line: int) -> str:
    """The name of the PTX function (kernel or device function) that holds ``line``."""
    names = re.findall(
        r"^\.(?:visible |weak )?\.(?:entry|func) .*?(\w+)\(",
        "\n".join(ptx.read_text().splitlines()[:line]),
        re.MULTILINE,
    )
    return names[-1] if names else ""


def blamed(result: Result) -> list[str]:
    """The specializations a failed build's log points at: by the line of the unit the front
    end names, by a mangled name, or by the function of the PTX line ptxas names."""
    lines = re.findall(r"\.cu\((\d+)\): (?:catastrophic )?error", result.log)
    labels = [result.unit.label_at(int(line)) or "(the shared includes)" for line in lines]
    for ptx, line in re.findall(r"ptxas (\S+\.ptx), line (\d+);", result.log):
        if Path(ptx).is_file():
            labels += namespaces_in(function_at(Path(ptx), int(line)))
    return list(dict.fromkeys(labels + namespaces_in(result.log)))


def kernels_in_cubin(path: Path) -> Counter:
    """How many kernels (entry functions) of each specialization's namespace ``path`` holds."""
    entries = set(re.findall(rb"\.nv\.info\.(_Z\w+)", path.read_bytes()))
    return Counter(label for name in entries for label in namespaces_in(name.decode()))


def problems(result: Result) -> list[str]:
    """What is wrong with a build: its failure, with the specializations blamed, or a missing
    output; a cubin missing the code of a kernel its specializations name."""
    head = f"{result.family}, {result.build.what} ({len(result.specializations)} specializations)"
    if result.returncode != 0:
        named = ", ".join(blamed(result)) or "(none named in the log)"
        return [f"{head}: nvcc exited {result.returncode}; blamed: {named}\n{result.log[:6000]}"]
    if not result.output.is_file() or result.output.stat().st_size == 0:
        return [f"{head}: nvcc wrote no {result.output.name}"]
    if result.build is not MACHINE_CODE:
        return []
    held = kernels_in_cubin(result.output)
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
    """Starts the two builds of every selected family, longest first, ``workers`` at a time
    (one per core by default), and prints a line as each ends; from the first wait for a
    result on, one per core (the waiting test leaves its core to them)."""

    # CPU time per byte of source, relative (measured): a line costs ~20 times more in a cubin
    _COST = {"ir": 1.0, "machine code": 20.0}

    def __init__(
        self, config: pytest.Config, families: list[str], directory: Path, workers: int = WORKERS
    ) -> None:
        self._config = config
        self._processes: list[subprocess.Popen] = []
        self.specializations = {name: list(FAMILIES[name]()) for name in families}
        jobs = []
        for name, specs in self.specializations.items():
            for build, chosen in ((IR, specs), (MACHINE_CODE, sample(specs))):
                unit = translation_unit(chosen)
                path = directory / f"{name}_{build.stage.replace(' ', '_')}.cu"
                path.write_text(unit.text)
                cost = len(unit.text) * self._COST[build.stage]
                jobs.append((cost, name, build, chosen, unit, path))
        jobs.sort(key=lambda job: -job[0])
        self._say(
            f"nvcc: {len(self.specializations)} kernel families, "
            f"{sum(map(len, self.specializations.values()))} specializations, "
            f"{len(jobs)} calls, {workers} at a time"
            + (f" ({WORKERS} once a test waits for them)" if workers < WORKERS else "")
        )
        self._started = time.perf_counter()
        self._pool = ThreadPoolExecutor(max_workers=max(workers, WORKERS))
        self._running = threading.Semaphore(workers)  # builds allowed at once
        self._widen = max(0, WORKERS - workers)  # permits added at the first wait
        self._closed = False
        self._futures: dict[Future, tuple] = {}
        self._by_family: dict[str, list[Future]] = {name: [] for name in families}
        for _, name, build, chosen, unit, path in jobs:
            future = self._pool.submit(self._run, path, build)
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

    def _run(self, path: Path, build: Build) -> tuple:
        with self._running:
            if self._closed:  # waited for a permit while the session ended
                return -1, "(not run: the builds were stopped)", 0.0, 0.0, 0.0, path
            return run_nvcc(path, build, self._processes)

    def results(self, family: str) -> list[Result]:
        """Wait for ``family``'s builds, printing every build that ends meanwhile."""
        if self._widen:
            self._running.release(self._widen)
            self._widen = 0
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
        self._closed = True
        self._running.release(len(self._futures))  # the builds waiting for one end at once
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in self._processes:  # those still running: a test failed or was stopped
            stop_build(process)


def family(name: str) -> Callable:
    """Marks a test as the check of kernel family ``name`` (so its builds start up front)."""

    def mark(test: Callable) -> Callable:
        test.family = name
        return test

    return mark


def check(builds: Builds, name: str) -> None:
    """Wait for ``name``'s builds and assert that none of them has a problem."""
    found = [problem for result in builds.results(name) for problem in problems(result)]
    assert not found, "\n\n".join(found)


def families_of(items: Iterable[pytest.Item]) -> list[str]:
    """The kernel families whose compile tests (marked by :func:`family`) are among ``items``
    (a doctest is an item without a function)."""
    return [
        item.function.family for item in items if hasattr(getattr(item, "function", None), "family")
    ]


# The builds started when collection ended, and the folder of their sources and outputs
EARLY_BUILDS = pytest.StashKey[Builds]()
EARLY_FOLDER = pytest.StashKey[Path]()


def start_early(session: pytest.Session) -> None:
    """Start the builds of the compile tests ``session`` collected, on every core but one,
    where the session runs its tests in this process (not an xdist worker, whose module
    fixture starts its own) and will run them (not ``--collect-only``); nothing without nvcc
    or such tests."""
    config = session.config
    if NVCC is None or hasattr(config, "workerinput") or config.option.collectonly:
        return
    selected = families_of(session.items)
    if not selected:
        return
    folder = Path(tempfile.mkdtemp(prefix="hyblas-kernels-"))
    config.stash[EARLY_FOLDER] = folder
    config.stash[EARLY_BUILDS] = Builds(config, selected, folder, workers=max(1, WORKERS - 1))


def early_builds(config: pytest.Config, families: list[str]) -> Builds | None:
    """The builds :func:`start_early` started, if they are those of ``families``."""
    started = config.stash.get(EARLY_BUILDS, None)
    if started is None or list(started.specializations) != families:
        return None
    return started


def close_early(session: pytest.Session) -> None:
    """Stop what :func:`start_early` started and still runs, and remove its folder."""
    started = session.config.stash.get(EARLY_BUILDS, None)
    if started is not None:
        started.close()
    folder = session.config.stash.get(EARLY_FOLDER, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
