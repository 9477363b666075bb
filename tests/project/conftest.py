"""The project checks' hooks: the kernel compile check's builds start when collection ends
(:func:`tests.support.kernel_builds.start_early`) and stop when the session does."""

from __future__ import annotations

import pytest

from tests.support import kernel_builds


def pytest_collection_finish(session: pytest.Session) -> None:
    kernel_builds.start_early(session)


def pytest_sessionfinish(session: pytest.Session) -> None:
    kernel_builds.close_early(session)
