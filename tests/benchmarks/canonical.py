"""Settings of a canonical run on the CPU, for the tests of --canonical and its shards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks import run as harness


def cpu_canonical_settings(
    tmp_path: Path, graphs: tuple[str, ...], ops: tuple[str, ...], **changes: Any
) -> harness.Settings:
    """A canonical run of ``ops`` on ``graphs`` with the reference executor and scipy, staged
    in ``<tmp_path>/out`` with its set in ``<tmp_path>/results`` (the CPU refusal is
    ``main``'s: ``run`` itself measures such a narrowed canonical run on the CPU)."""
    settings = harness.Settings(
        graphs=graphs,
        ops=ops,
        executors=("reference",),
        peers=("scipy",),
        repeats=1,
        cpu_repeats=1,
        run_limit_s=20.0,
        backend="cpu",
        out=tmp_path / "out",
        canonical=True,
        results=tmp_path / "results",
    )
    return harness.Settings(**{**vars(settings), **changes})
