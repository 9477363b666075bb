"""Skip a test parametrized with an ``executor`` on a ``backend`` where that executor is
unavailable (the suitesparse executor on CUDA, or without python-graphblas): the registry says
why, and the skip says it too."""

from __future__ import annotations

import pytest

from hyblas.executors import registry


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        name, backend = params.get("executor"), params.get("backend")
        if not isinstance(name, str) or name not in registry.EXECUTORS or backend is None:
            continue
        reason = registry.unavailable(name, backend)
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=f"executor {name!r}: {reason}"))
