"""One formatter and one linter configuration (``[tool.ruff]`` in pyproject.toml) hold for the
whole tree: the code does not fight its formatter, and ``# fmt: skip`` marks only tables."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ruff", reason="ruff comes with the 'test' extra")

ROOT = Path(__file__).resolve().parents[2]
TREE = [
    "hyblas",
    "tests",
    "benchmarks",
    "scripts",
    "nx-hyblas",
    "docs/conf.py",
    "docs/_generate.py",
]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *TREE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_tree_is_formatted() -> None:
    done = _ruff("format", "--check")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_linter_passes() -> None:
    done = _ruff("check")
    assert done.returncode == 0, done.stdout + done.stderr
