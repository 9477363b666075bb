"""The command line: ``python -m hyblas demo`` / ``info`` / ``--help`` run and read well."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import hyblas as hb

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(
        os.environ,
        PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
        HYBLAS_BACKEND="cpu",
    )
    return subprocess.run(
        [sys.executable, "-m", "hyblas", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_demo_scale_8() -> None:
    proc = _run("demo", "--scale", "8")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "BFS" in out and "PageRank" in out
    assert "vertices" in out and "256" in out
    assert "TEPS" in out and "iterations" in out and "top vertices" in out


def test_demo_options() -> None:
    proc = _run("demo", "--scale", "5", "--edge-factor", "4", "--seed", "3", "--backend", "cpu")
    assert proc.returncode == 0, proc.stderr
    assert "scale 5, edge factor 4, seed 3" in proc.stdout


@pytest.mark.parametrize("args", [("info",), ("--help",), ("demo", "--help"), ("warmup", "--help")])
def test_info_and_help(args: tuple[str, ...]) -> None:
    proc = _run(*args)
    assert proc.returncode == 0, proc.stderr
    if args == ("info",):
        assert "0.1.0" in proc.stdout and "backend" in proc.stdout and "device" in proc.stdout
    else:
        assert "usage: hyblas" in proc.stdout


def test_bad_usage_fails() -> None:
    assert _run().returncode != 0
    assert _run("demo", "--scale", "x").returncode != 0
    bad = _run("demo", "--scale", "40")
    assert bad.returncode == 1 and "scale" in bad.stderr


def test_warmup_without_a_gpu_says_so() -> None:
    if hb.cuda_available():
        pytest.skip("a GPU is usable here: the warmup would run (tests/backend/test_warmth.py)")
    proc = _run("warmup")
    assert proc.returncode == 1 and "no usable GPU" in proc.stderr
