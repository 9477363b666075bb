"""Running a program on several processes for the tests: the MPI launcher of the ``mpich``
wheel (``pip install mpi4py mpich``, in the ``test`` extra), no MPI installed on the machine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def mpiexec() -> str:
    """``$HYBLAS_MPIEXEC`` (``scripts/multi-gpu`` sets it), else the launcher beside this
    Python (a virtual environment's), else on the PATH; skips the test where mpi4py or the
    launcher is missing."""
    pytest.importorskip("mpi4py")
    beside = Path(sys.executable).parent / "mpiexec"
    found = os.environ.get("HYBLAS_MPIEXEC") or (
        str(beside) if beside.exists() else shutil.which("mpiexec")
    )
    if found is None:
        pytest.skip("no mpiexec (pip install mpich)")
    return found


def environment() -> dict[str, str]:
    """This environment, with the tree on the path, NVLink multicast off, and Open MPI allowed
    to run as root (the GPU machines run commands as root)."""
    path = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in path if p), NCCL_NVLS_ENABLE="0")
    if os.geteuid() == 0:  # Open MPI's mpiexec (the GPU machines' image) refuses root otherwise
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def run(nprocs: int, module: str, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """``mpiexec -n nprocs python -m mpi4py -m module args...`` from the tree's root; fails the
    test with its output if it exits non-zero, or runs past ``timeout`` seconds."""
    # mpi4py's runner: an exception on one process aborts them all (none waits forever in a
    # collective the failed one never joins)
    command = [mpiexec(), "-n", str(nprocs), sys.executable, "-m", "mpi4py", "-m", module, *args]
    try:
        proc = subprocess.run(
            command, cwd=ROOT, env=environment(), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"{' '.join(command)} ran past {timeout} s\n{expired.stdout}\n{expired.stderr}")
    if proc.returncode != 0:
        pytest.fail(
            f"{' '.join(command)} exited {proc.returncode}\n{proc.stdout[-4000:]}\n"
            f"{proc.stderr[-4000:]}"
        )
    return proc
