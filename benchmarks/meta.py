"""Where a result comes from: the git commit of the measured tree."""

from __future__ import annotations

import os
import subprocess


def commit_id() -> str:
    """``HYBLAS_COMMIT`` if set (the GPU machine's copy of the tree has no .git), else HEAD."""
    if os.environ.get("HYBLAS_COMMIT"):
        return os.environ["HYBLAS_COMMIT"]
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
