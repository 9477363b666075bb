"""Doctests: the Examples sections of hyblas's docstrings run on the CPU backend.

``python -m pytest`` collects them from ``hyblas/`` (``--doctest-modules``, see
``[tool.pytest.ini_options]`` in pyproject.toml). Each runs inside ``hb.using_backend("cpu")``
with ``np`` and ``hb`` in its namespace and matplotlib on its Agg backend, so they run the same
on a machine with a GPU, stay small and deterministic, and print NumPy arrays as NumPy 2 does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np
import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(autouse=True)
def _doctest_on_the_cpu(request: pytest.FixtureRequest) -> Iterator[None]:
    if not isinstance(request.node, pytest.DoctestItem):
        yield
        return
    import hyblas as hb  # noqa: PLC0415 - only for doctests

    namespace = request.getfixturevalue("doctest_namespace")
    namespace.update(np=np, hb=hb)
    # an example that registers an operator leaves the namespaces as it found them
    registered = {kind: dict(table) for kind, table in hb.operators.NAMESPACES.items()}
    try:
        with hb.using_backend("cpu"):
            yield
    finally:
        for kind, table in hb.operators.NAMESPACES.items():
            table.clear()
            table.update(registered[kind])
