"""Where a result comes from: the git commit of the measured tree, the kind of device, and
the folder of the canonical result sets."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

#: One canonical set per GPU kind (``<kind>.json`` / ``.md`` / ``.png``) and the README
#: generated from them; nothing else (docs/benchmarks.md).
RESULTS_DIR = Path(__file__).resolve().parent / "results"

#: Brand words in device names that say nothing about the chip.
_BRANDS = {"nvidia", "tesla", "geforce", "quadro"}
#: Form factors that change the memory system of the same chip: part of the kind.
_VARIANTS = ("pcie", "nvl")


def in_results(path: Path) -> bool:
    """Whether ``path`` lies in the canonical results folder (where no experiment writes)."""
    return path.resolve().is_relative_to(RESULTS_DIR)


def experiment_out(path: str | None, name: str) -> Path:
    """Where an experiment module writes its JSON: ``path``, else ``$OUT/<name>.json``
    (``./out`` without ``OUT``); its folder made. SystemExit for a path in benchmarks/results:
    experiments put their numbers in commit messages."""
    out = Path(path) if path else Path(os.environ.get("OUT") or "out") / f"{name}.json"
    if in_results(out):
        raise SystemExit(f"{out} lies in {RESULTS_DIR}, which holds only the canonical sets")
    out.parent.mkdir(parents=True, exist_ok=True)
    return out


def commit_id() -> str:
    """``HYBLAS_COMMIT`` if set, else HEAD, with ``+dirty`` where tracked files differ from it
    (the GPU machine's copy of the tree carries a .git that may be older than its files: its
    HEAD alone would name a commit the measured code is not)."""
    if os.environ.get("HYBLAS_COMMIT"):
        return os.environ["HYBLAS_COMMIT"]
    try:
        head = _git("rev-parse", "HEAD")
        changed = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if changed else "")


def _git(*args: str) -> str:
    root = Path(__file__).resolve().parents[1]
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()


def device_kind(device: str) -> str:
    """The short name of a device's kind, used for its canonical result files.

    The first word with a digit after the brand words, lower case (with the word before it
    when the model is a bare number, as in "RTX 4090"), plus a form factor that changes the
    memory system (PCIe, NVL); memory size and the SXM form factor are left out::

        "NVIDIA H100 80GB HBM3" -> "h100"        "NVIDIA H200" -> "h200"
        "NVIDIA H100 PCIe" -> "h100-pcie"         "NVIDIA A100-SXM4-80GB" -> "a100"
        "NVIDIA GeForce RTX 4090" -> "rtx4090"    "CPU (x86_64, 16 cores)" -> "cpu"
    """
    if device.startswith("CPU"):
        return "cpu"
    words = [w for w in re.split(r"[\s\-_/]+", device) if w and w.lower() not in _BRANDS]
    for i, word in enumerate(words):
        if any(c.isdigit() for c in word):
            model = word.lower()
            if model.isdigit() and i > 0:
                model = words[i - 1].lower() + model
            lower = [w.lower() for w in words]
            return "-".join([model, *(v for v in _VARIANTS if v in lower)])
    return re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-") or "unknown"
