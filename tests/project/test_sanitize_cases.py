"""``scripts/sanitize``'s cases hold on the CPU: every case runs on the executors' NumPy
emulations and passes its checks, so the workloads handed to compute-sanitizer on the GPU
machine are known to be right before a device is asked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "sanitize"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300
    )


def test_every_sanitizer_case_passes_on_the_cpu() -> None:
    listed = _run("--executor", "all", "--list")
    assert listed.returncode == 0, listed.stderr
    cases = listed.stdout.split()
    assert {"primitives:segments", "primitives:bitmaps", "dense:one-launch"} <= set(cases)
    done = _run("--executor", "all", "--backend", "cpu")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == f"sanitize: {len(cases)} cases passed, 0 failed"
    assert done.stdout.count("\nok ") + done.stdout.startswith("ok ") == len(cases)
