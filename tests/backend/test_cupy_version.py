"""The CuPy versions whose sorts can lose data under memory pressure are recognised (a GPU
process with one logs a warning when it first takes the device)."""

from __future__ import annotations

import pytest

from hyblas.backend.selection import SAFE_CUPY, cupy_too_old


@pytest.mark.parametrize(
    ("version", "too_old"),
    [
        ("13.6.0", True),
        ("14.0.0", True),
        ("14.0.1", True),
        ("14.0.0rc1", True),
        ("14.1.0", False),
        ("14.2.0", False),
        ("15.0.0a1", False),
        ("unknown", False),  # nothing to judge by: no warning
    ],
)
def test_cupy_before_the_thrust_fix_is_too_old(version: str, too_old: bool) -> None:
    assert SAFE_CUPY == (14, 1)
    assert cupy_too_old(version) is too_old
