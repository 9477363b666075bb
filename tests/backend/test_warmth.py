"""The warmup marker and the first-use notice (:mod:`hyblas.backend.warmth`), and the warmup's
work (:mod:`hyblas.warmup`)."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import hyblas as hb
from hyblas import warmup
from hyblas.backend import cupy_module, warmth


def fake_cupy(cache: Path, capability: str = "90", version: str = "14.0.0") -> SimpleNamespace:
    """The parts of CuPy the marker reads: the cache directory, the device, the version."""
    compiler = SimpleNamespace(get_cache_dir=lambda: str(cache))
    device = SimpleNamespace(compute_capability=capability)
    return SimpleNamespace(
        __version__=version, cuda=SimpleNamespace(compiler=compiler, Device=lambda: device)
    )


@pytest.fixture
def fresh_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warmth, "_ANNOUNCED", False)


def test_a_cold_machine_is_told_once(
    tmp_path: Path, fresh_notice: None, caplog: pytest.LogCaptureFixture
) -> None:
    cp = fake_cupy(tmp_path)
    assert not warmth.is_warm(cp)
    with caplog.at_level(logging.WARNING, logger="hyblas"):
        warmth.announce_first_use(cp)
        warmth.announce_first_use(cp)
    notices = [r for r in caplog.records if "python -m hyblas warmup" in r.getMessage()]
    assert len(notices) == 1
    assert str(tmp_path) in notices[0].getMessage()


def test_a_warm_machine_is_not_told(
    tmp_path: Path, fresh_notice: None, caplog: pytest.LogCaptureFixture
) -> None:
    cp = fake_cupy(tmp_path / "cache")
    marker = warmth.mark_warm(cp)
    assert marker.parent == tmp_path / "cache" and marker.exists()
    assert warmth.is_warm(cp)
    with caplog.at_level(logging.WARNING, logger="hyblas"):
        warmth.announce_first_use(cp)
    assert not caplog.records


def test_another_device_or_cupy_needs_its_own_warmup(tmp_path: Path) -> None:
    warmth.mark_warm(fake_cupy(tmp_path))
    assert warmth.is_warm(fake_cupy(tmp_path))
    assert not warmth.is_warm(fake_cupy(tmp_path, capability="100"))
    assert not warmth.is_warm(fake_cupy(tmp_path, version="15.0.0"))


def test_the_marker_names_the_kernel_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cp = fake_cupy(tmp_path)
    before = warmth.warm_marker(cp).name
    assert warmth._kernel_digest() in before
    monkeypatch.setattr(warmth, "_kernel_digest", lambda: "0123456789abcdef")
    assert warmth.warm_marker(cp).name != before  # changed kernels: cold again


def test_warmup_steps_cover_the_algorithms_and_executors() -> None:
    names = [step.name for step in warmup.steps(products=True)]
    assert len(names) == len(set(names))
    for algorithm in ("bfs", "pagerank", "connected_components", "sssp float64", "cdlp"):
        assert algorithm in names
    for executor in ("reference", "dense", "sparse", "pull"):
        assert f"plus_times float32 {executor}" in names
        assert f"any_pair bool {executor}" in names
    assert [s.name for s in warmup.steps(products=False)] == [
        n for n in names if n.split()[-1] not in ("reference", "dense", "sparse", "pull")
    ]


def test_warmup_steps_run(backend: str) -> None:
    """Every step runs (on the CPU: the work is valid; on the GPU: nothing fails to compile)."""
    with hb.using_backend(backend):
        for step in warmup.steps(products=True):
            step.run()


def test_warmup_needs_a_gpu() -> None:
    if hb.cuda_available():
        pytest.skip("a GPU is usable here: the warmup runs (test_warmup_marks_the_machine)")
    with pytest.raises(hb.errors.BackendError, match="no usable GPU"):
        warmup.warmup()


@pytest.mark.gpu
def test_warmup_marks_the_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if not hb.cuda_available():
        pytest.skip("CuPy or a usable GPU is not available")
    lines: list[str] = []
    report = warmup.warmup(products=False, progress=lines.append)
    assert len(lines) == len(report.seconds) == sum(1 for _ in warmup.steps(products=False))
    assert all(s >= 0 for s in report.seconds.values())
    assert Path(report.marker).exists()
    assert warmth.is_warm(cupy_module())
    assert np.isfinite(sum(report.seconds.values()))
