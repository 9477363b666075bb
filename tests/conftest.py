"""Shared test configuration: hypothesis profiles, a replayable seed, the ``backend`` fixture.

Profiles (pick with ``HYPOTHESIS_PROFILE``; else ``ci`` when ``CI`` is set, else ``dev``):

* ``dev`` -- about 30 examples per property, no deadline (quick local runs);
* ``ci``  -- 200 examples per property, no deadline, ``too_slow`` health check off;
* ``long`` -- 10,000 examples per property, as ``ci`` otherwise: the long run on the GPU
  machine (``HYPOTHESIS_PROFILE=long scripts/gpu-check --skip-bench -- tests/ops
  tests/executors -k "model or property or test_mxv or test_vxm or test_mxm"``); a failure it
  finds becomes a regular test.
* ``long-share`` -- 2,000 examples (``HYBLAS_SHARE_EXAMPLES`` to change it): one share of a
  long run split over processes, each with its own ``HYBLAS_TEST_SEED`` (five seeds make one
  property's 10,000 examples, in parallel).

``HYBLAS_TEST_SEED=<int>`` replays a run: every hypothesis test is seeded with that value
(the same as ``pytest --hypothesis-seed=<int>``) and the example database is not consulted.

Nothing here touches a GPU at import time: whether CUDA is usable is asked only when a test
that needs the ``'cuda'`` backend is about to run.

Skipped tests are not listed one by one (on a machine without a GPU they are the ~1,800
``gpu``-marked ones): the summary gives one line, grouped by reason; ``pytest -rs`` lists each.
Failures and errors are reported in full, as always.
"""

from __future__ import annotations

import os
import re
from collections import Counter

import hypothesis
import pytest
from hypothesis import HealthCheck, settings

_SEED_VAR = "HYBLAS_TEST_SEED"
_SEED = os.environ.get(_SEED_VAR, "").strip()
_SEED_VALUE = int(_SEED) if _SEED else None
_REPLAY = {"database": None} if _SEED_VALUE is not None else {}

settings.register_profile("dev", max_examples=30, deadline=None, **_REPLAY)
settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
    **_REPLAY,
)
settings.register_profile("long", settings.get_profile("ci"), max_examples=10_000)
settings.register_profile(
    "long-share",
    settings.get_profile("ci"),
    max_examples=int(os.environ.get("HYBLAS_SHARE_EXAMPLES", "2000")),
)


def _profile_name() -> str:
    chosen = os.environ.get("HYPOTHESIS_PROFILE", "").strip()
    if chosen:
        return chosen
    return "ci" if os.environ.get("CI") else "dev"


settings.load_profile(_profile_name())


def pytest_report_header(config: pytest.Config) -> str:
    seed = f"{_SEED_VAR}={_SEED_VALUE}" if _SEED_VALUE is not None else f"{_SEED_VAR} unset"
    return f"hypothesis profile: {settings.get_current_profile_name()}; {seed}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Seed every hypothesis test when ``HYBLAS_TEST_SEED`` is set (replayable runs)."""
    if _SEED_VALUE is None:
        return
    for item in items:
        function = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        if getattr(function, "is_hypothesis_test", False):
            hypothesis.seed(_SEED_VALUE)(function)


@pytest.fixture(scope="session")
def cuda_usable() -> bool:
    """Whether the 'cuda' backend works here (asked lazily, never at import time)."""
    import hyblas  # noqa: PLC0415

    return hyblas.cuda_available()


# Every test that takes ``backend`` runs once on the CPU and once on CUDA (marked ``gpu``).
# Session scope keeps hypothesis' function-scoped-fixture health check quiet: the value is a str.
@pytest.fixture(scope="session", params=["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def backend(request: pytest.FixtureRequest, cuda_usable: bool) -> str:
    if request.param == "cuda" and not cuda_usable:
        pytest.skip("backend 'cuda' needs CuPy and a usable GPU; hyblas.cuda_available() is False")
    return request.param


# Skip reasons that say the 'cuda' backend is unusable here (the gpu-marked tests, and tests that
# skip themselves without a GPU), grouped into one count
_NO_GPU = re.compile(
    r"no usable GPU|needs? CuPy and a usable GPU|CuPy or a usable GPU|needs? the 'cuda' backend"
    r"|cuda_available\(\) is False"
)
_NOT_IMPORTED = re.compile(r"could not import '([\w.]+)'")


def _skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The summary's group of a skipped test: its own reason, except the ways of saying that
    the 'cuda' backend is unusable (one group). A gpu-marked test skipped for another reason
    (a multi-GPU case on a one-GPU machine) keeps that reason."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    reason = reason.removeprefix("Skipped: ")
    missing = _NOT_IMPORTED.search(reason)
    gpu = "gpu" in getattr(report, "keywords", ())
    if _NO_GPU.search(reason) or (gpu and missing and missing[1].startswith("cupy")):
        return "need the 'cuda' backend (no usable GPU)"
    return f"need {missing[1]} (not installed)" if missing else reason


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """One line for the skipped tests, counted by reason (``-rs`` lists them one by one)."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if r.skipped]
    if skipped:
        reasons = Counter(_skip_reason(report) for report in skipped)
        counts = ", ".join(f"{count} {reason}" for reason, count in reasons.most_common())
        terminalreporter.write_line(f"{len(skipped)} skipped: {counts}")
