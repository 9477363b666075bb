"""Kernels compiled ahead (:mod:`hyblas.backend.kernel_bundle`): the bundle's files, which cubin
a device gets, how ``compile_module`` loads from it or records for it, the CuPy cache seed;
and on the GPU, that bundled kernels give the results of the JIT-compiled ones."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from hyblas.__main__ import main as hyblas_main
from hyblas.backend import cupy_module, kernel_bundle, runtime, warmth
from hyblas.backend.kernel_bundle import (
    BUNDLE_ENV,
    BundledModule,
    KernelBundle,
    LoadedModule,
    ModuleRequest,
    compile_for,
    seed_kernel_cache,
    write_bundle,
)
from hyblas.errors import BackendError

ROOT = Path(__file__).resolve().parents[2]
SOURCE = 'extern "C" __global__ void k(int *x) { x[0] = 1; }'
REQUEST = ModuleRequest(SOURCE, ("k",), ("-std=c++17",), False)


@pytest.fixture(autouse=True)
def no_bundle_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts without a bundle read or a module compiled, and leaves none behind."""
    monkeypatch.setenv(BUNDLE_ENV, "")
    kernel_bundle.active_bundle.cache_clear()
    runtime._compile.cache_clear()
    yield
    kernel_bundle.active_bundle.cache_clear()
    runtime._compile.cache_clear()


def test_the_key_is_what_decides_the_code() -> None:
    assert REQUEST.key() == ModuleRequest(SOURCE, ("k",), ("-std=c++17",), False).key()
    others = [
        ModuleRequest(SOURCE + " ", ("k",), ("-std=c++17",), False),
        ModuleRequest(SOURCE, ("k", "j"), ("-std=c++17",), False),
        ModuleRequest(SOURCE, ("k",), ("-std=c++20",), False),
    ]
    assert len({REQUEST.key(), *(o.key() for o in others)}) == 4
    # launching cooperatively does not change the code: one cubin serves both
    assert ModuleRequest(SOURCE, ("k",), ("-std=c++17",), True).key() == REQUEST.key()


@pytest.mark.parametrize(
    ("capability", "expected"),
    [("90", "b90"), ("86", "b86"), ("89", "b86"), ("82", "b80"), ("75", None), ("100", None)],
)
def test_a_device_gets_its_own_cubin_or_an_older_minor_of_its_major(
    capability: str, expected: str | None
) -> None:
    module = BundledModule({"k": "k"}, {"80": "b80", "86": "b86", "90": "b90"})
    assert module.cubin_for(capability) == expected


def fake_cubins(capabilities: tuple[str, ...]) -> dict[str, tuple[bytes, dict[str, str]]]:
    return {c: (f"cubin for {c}".encode(), {"k": "_Z1kPi"}) for c in capabilities}


def test_a_written_bundle_reads_back(tmp_path: Path) -> None:
    cached = tmp_path / "cache-file"
    cached.write_bytes(b"cupy kernel")
    bundle = write_bundle(
        tmp_path / "b",
        [(REQUEST, fake_cubins(("80", "90")))],
        {"abc_2.cubin": cached},
        cupy_version="14.2.0",
        cache_capability="90",
    )
    assert bundle == KernelBundle.read(tmp_path / "b")
    path, module = bundle.cubin(REQUEST, "90")
    assert path.read_bytes() == b"cubin for 90"
    assert module.lowered == {"k": "_Z1kPi"}
    assert bundle.cubin(REQUEST, "87")[0].read_bytes() == b"cubin for 80"
    assert bundle.cubin(REQUEST, "120") is None
    assert bundle.cubin(ModuleRequest(SOURCE, ("j",), (), False), "90") is None
    assert bundle.cache_files == ("abc_2.cubin",)
    assert (tmp_path / "b" / "cupy-cache" / "abc_2.cubin").read_bytes() == b"cupy kernel"


@pytest.mark.parametrize(
    "index", [None, "not json", "[]", json.dumps({"format": 99}), json.dumps({"format": 1})]
)
def test_what_is_not_a_bundle_is_refused(tmp_path: Path, index: str | None) -> None:
    if index is not None:
        (tmp_path / "index.json").write_text(index)
    with pytest.raises(BackendError, match="kernel bundle"):
        KernelBundle.read(tmp_path)


def test_where_the_bundle_is_looked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packaged = tmp_path / "_kernels"
    monkeypatch.setattr(kernel_bundle, "_PACKAGED", packaged)
    monkeypatch.delenv(BUNDLE_ENV)
    assert kernel_bundle.bundle_directory() is None  # a source checkout: none
    packaged.mkdir()
    (packaged / "index.json").write_text("{}")
    assert kernel_bundle.bundle_directory() == packaged
    monkeypatch.setenv(BUNDLE_ENV, str(tmp_path / "mine"))
    assert kernel_bundle.bundle_directory() == tmp_path / "mine"
    monkeypatch.setenv(BUNDLE_ENV, "")
    assert kernel_bundle.bundle_directory() is None


def test_a_named_bundle_that_is_not_one_raises_and_a_damaged_packaged_one_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(BUNDLE_ENV, str(tmp_path))
    with pytest.raises(BackendError):
        kernel_bundle.active_bundle()
    kernel_bundle.active_bundle.cache_clear()
    (tmp_path / "index.json").write_text("{}")
    monkeypatch.setattr(kernel_bundle, "_PACKAGED", tmp_path)
    monkeypatch.delenv(BUNDLE_ENV)
    with caplog.at_level(logging.WARNING, logger="hyblas"):
        assert kernel_bundle.active_bundle() is None
    assert "unreadable" in caplog.text


class FakeRawModule:
    """``cupy.RawModule``: from code (compiling writes a file into the fake cache) or a path."""

    loaded: list[str] = []
    compiled: list[str] = []

    def __init__(self, *, code: str | None = None, path: str | None = None, **kw: Any) -> None:
        self.code, self.path, self.kw = code, path, kw

    def compile(self) -> None:
        if self.path is not None:
            FakeRawModule.loaded.append(Path(self.path).read_text())
        else:
            FakeRawModule.compiled.append(self.code)
            cache = Path(os.environ["CUPY_CACHE_DIR"])
            (cache / f"hyblas{len(FakeRawModule.compiled)}.cubin").write_text(self.code)

    def get_function(self, name: str) -> tuple[str, str | None]:
        return name, self.path


@pytest.fixture
def fake_cuda(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("CUPY_CACHE_DIR", str(cache))
    FakeRawModule.loaded, FakeRawModule.compiled = [], []
    cp = SimpleNamespace(
        __version__="14.2.0",
        RawModule=FakeRawModule,
        cuda=SimpleNamespace(
            Device=lambda: SimpleNamespace(compute_capability="90"),
            compiler=SimpleNamespace(get_cache_dir=lambda: str(cache)),
        ),
    )
    monkeypatch.setattr(runtime, "xp_for", lambda backend: cp)
    return cp


def bundle_of(directory: Path, request: ModuleRequest) -> None:
    write_bundle(directory, [(request, fake_cubins(("90",)))], {}, cupy_version="x",
                 cache_capability="90")  # fmt: skip


def test_compile_module_loads_a_bundled_module_and_compiles_the_rest(
    tmp_path: Path,
    fake_cuda: SimpleNamespace,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bundle_of(tmp_path / "b", REQUEST)
    monkeypatch.setenv(BUNDLE_ENV, str(tmp_path / "b"))
    monkeypatch.setattr(runtime, "_BUNDLE_MISS_TOLD", False)
    module = runtime.compile_module(SOURCE, ("k",))
    assert isinstance(module, LoadedModule)
    assert module.get_function("k") == ("_Z1kPi", str(tmp_path / "b" / module.module.path))
    assert FakeRawModule.loaded == ["cubin for 90"] and FakeRawModule.compiled == []
    with caplog.at_level(logging.WARNING, logger="hyblas"):
        other = runtime.compile_module(SOURCE + " ", ("k",))
        runtime.compile_module(SOURCE + "  ", ("k",))
    assert not isinstance(other, LoadedModule)
    assert FakeRawModule.compiled == [SOURCE + " ", SOURCE + "  "]
    assert caplog.text.count("not in the kernel bundle") == 1  # told once


def test_recording_compiles_from_source_and_notes_the_cache_files(
    tmp_path: Path, fake_cuda: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle_of(tmp_path / "b", REQUEST)
    monkeypatch.setenv(BUNDLE_ENV, str(tmp_path / "b"))
    runtime.compile_module(SOURCE, ("k",))  # loaded from the bundle, remembered
    cache = Path(os.environ["CUPY_CACHE_DIR"])
    (cache / "cupy-own.cubin").write_text("an element-wise kernel")
    with runtime.recording_compiles() as record:
        runtime.compile_module(SOURCE, ("k",))
        runtime.compile_module(SOURCE, ("k",))  # once per process, recording or not
        with pytest.raises(BackendError):
            with runtime.recording_compiles():
                pass
    assert record.requests == [REQUEST]
    assert FakeRawModule.compiled == [SOURCE]
    assert record.cache_files == {"hyblas1.cubin"}


def test_compile_for_uses_cupys_own_options(tmp_path: Path) -> None:
    calls = []

    def compile_using_nvrtc(source: str, options: tuple[str, ...], **kw: Any) -> tuple:
        calls.append((source, options, kw))
        return b"cubin", {"k": "_Z1k", "unasked": "x"}

    cp = SimpleNamespace(
        __version__="14.2.0",
        _core=SimpleNamespace(
            core=SimpleNamespace(assemble_cupy_compiler_options=lambda o: o + ("-I/cupy",))
        ),
        cuda=SimpleNamespace(compiler=SimpleNamespace(compile_using_nvrtc=compile_using_nvrtc)),
    )
    assert compile_for(cp, REQUEST, "100") == (b"cubin", {"k": "_Z1k"})
    [(source, options, kw)] = calls
    assert source == SOURCE
    assert options == ("-std=c++17", "-I/cupy", "-ftz=true")  # as cupy.RawModule compiles
    assert kw["arch"] == "100" and kw["name_expressions"] == ["k"]


def test_the_cupy_cache_is_seeded_only_for_its_cupy_and_device(tmp_path: Path) -> None:
    source = tmp_path / "f"
    source.write_bytes(b"new")
    bundle = write_bundle(
        tmp_path / "b", [], {"a.cubin": source, "b.cubin": source},
        cupy_version="14.2.0", cache_capability="90",
    )  # fmt: skip
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "a.cubin").write_bytes(b"mine")

    def cp(version: str, capability: str) -> SimpleNamespace:
        device = SimpleNamespace(compute_capability=capability)
        return SimpleNamespace(__version__=version, cuda=SimpleNamespace(Device=lambda: device))

    assert seed_kernel_cache(bundle, cp("14.1.0", "90"), cache) == 0
    assert seed_kernel_cache(bundle, cp("14.2.0", "80"), cache) == 0
    assert not (cache / "b.cubin").exists()
    assert seed_kernel_cache(bundle, cp("14.2.0", "90"), cache) == 1
    assert (cache / "a.cubin").read_bytes() == b"mine"  # never over the user's file
    assert (cache / "b.cubin").read_bytes() == b"new"
    assert sorted(p.name for p in cache.iterdir()) == ["a.cubin", "b.cubin"]


def test_the_first_use_seeds_the_cache_and_a_seeded_marker_counts_as_warm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    cache = tmp_path / "cache"
    device = SimpleNamespace(compute_capability="90")
    cp = SimpleNamespace(
        __version__="14.2.0",
        cuda=SimpleNamespace(
            Device=lambda: device, compiler=SimpleNamespace(get_cache_dir=lambda: str(cache))
        ),
    )
    marker = tmp_path / "marker"
    marker.write_text("warm")
    write_bundle(tmp_path / "b", [], {warmth.warm_marker(cp).name: marker},
                 cupy_version="14.2.0", cache_capability="90")  # fmt: skip
    monkeypatch.setenv(BUNDLE_ENV, str(tmp_path / "b"))
    monkeypatch.setattr(warmth, "_ANNOUNCED", False)
    with caplog.at_level(logging.WARNING, logger="hyblas"):
        warmth.announce_first_use(cp)
    assert warmth.is_warm(cp)
    assert "no kernel warmup" not in caplog.text


# --- on the GPU: the bundled cubins against NVRTC's JIT ---------------------------------------


def worker(mode: str, directory: Path, **env: str) -> dict[str, Any]:
    """``tests/backend/bundle_worker.py`` in a fresh process (nothing compiled or cached)."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.backend.bundle_worker", mode, str(directory)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.gpu
def test_bundled_kernels_give_the_results_of_jit_compiled_ones(tmp_path: Path) -> None:
    if cupy_module() is None:
        pytest.skip("no usable GPU")
    jit = worker("jit", tmp_path, CUPY_CACHE_DIR=str(tmp_path / "cache-jit"))
    bundled = worker(
        "bundled",
        tmp_path,
        CUPY_CACHE_DIR=str(tmp_path / "cache-bundled"),
        **{BUNDLE_ENV: str(tmp_path / "bundle")},
    )
    assert jit["modules"] > 5  # the work compiled hyblas modules, and all went into the bundle
    assert bundled["loaded"] == jit["modules"]  # each loaded from its cubin ...
    assert bundled["compiled"] == 0  # ... and none compiled
    with np.load(tmp_path / "jit.npz") as a, np.load(tmp_path / "bundled.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        for name in a.files:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_the_bundle_command_needs_a_gpu_and_leaves_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if cupy_module() is not None:
        pytest.skip("on a GPU the command builds a bundle (the gpu test above covers that)")
    monkeypatch.setenv("CUPY_CACHE_DIR", "/mine")
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    assert hyblas_main(["warmup", "--bundle", str(tmp_path / "b")]) == 1
    assert "no usable GPU" in capsys.readouterr().err
    assert os.environ["CUPY_CACHE_DIR"] == "/mine"
    assert os.environ[BUNDLE_ENV] == ""  # as the fixture set it
    assert not (tmp_path / "b").exists()


def test_a_bundle_is_written_over_a_bundle_but_not_over_other_files(tmp_path: Path) -> None:
    def write(request: ModuleRequest) -> KernelBundle:
        return write_bundle(tmp_path / "b", [(request, fake_cubins(("90",)))], {},
                            cupy_version="x", cache_capability="90")  # fmt: skip

    write(REQUEST)
    (tmp_path / "b" / "README").write_text("the packager's note")
    other = ModuleRequest(SOURCE, ("k",), ("-O3",), False)
    bundle = write(other)
    assert set(bundle.modules) == {other.key()}
    assert [p.name for p in (tmp_path / "b" / "modules").iterdir()] == [
        f"{other.key()}.sm_90.cubin"
    ]  # the old module's cubin is gone with it
    assert (tmp_path / "b" / "README").read_text() == "the packager's note"
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "thesis.tex").write_text("years of work")
    with pytest.raises(BackendError, match="not empty"):
        write_bundle(tmp_path / "c", [], {}, cupy_version="x", cache_capability="90")
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["thesis.tex"]
