"""On the CPU, ``executor='auto'`` runs the loop's NumPy emulation with
``CPU_AUTO_PARAMS`` (wide rounds are host rounds, not pulled in the loop) unless the caller set
parameters; ``executor='loop'`` keeps the device loop's own; the levels are the same."""

from __future__ import annotations

import numpy as np
import pytest

import hyblas as hb
from hyblas.traversal import current_params, emulation, loop_params
from hyblas.traversal.params import CPU_AUTO_PARAMS, DEFAULT_PARAMS


def _hub_graph() -> tuple[hb.Matrix, int]:
    A = hb.generators.kronecker(12, 16, seed=1, backend="cpu")  # noqa: N806
    return A, int(np.argmax(np.diff(A.indptr)))


@pytest.mark.parametrize(
    ("executor", "setting", "expected"),
    [
        ("auto", None, CPU_AUTO_PARAMS),
        ("loop", None, DEFAULT_PARAMS),
        ("auto", {"exit_edges": 1 << 20}, None),  # the caller's set, whatever it holds
    ],
)
def test_the_parameters_the_emulated_loop_runs_with(
    executor: str, setting: dict | None, expected: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    A, source = _hub_graph()  # noqa: N806
    seen = []
    real = emulation.walk
    monkeypatch.setattr(
        emulation, "walk", lambda entry: seen.append(current_params()) or real(entry)
    )
    want = hb.algorithms.bfs(A, source, executor="reference").to_dense(fill_value=-1)
    if setting is None:
        got = hb.algorithms.bfs(A, source, executor=executor)
    else:
        with loop_params(**setting) as params:
            got = hb.algorithms.bfs(A, source, executor=executor)
        expected = params
    assert seen, "the loop took no rounds"
    assert all(p == expected for p in seen)
    np.testing.assert_array_equal(got.to_dense(fill_value=-1), want)


def test_cpu_auto_sends_the_hubs_wide_rounds_to_the_host() -> None:
    A, source = _hub_graph()  # noqa: N806
    with hb.trace() as auto:
        hb.algorithms.bfs(A, source)
    with hb.trace() as loop:
        hb.algorithms.bfs(A, source, executor="loop")
    assert {row.op for row in auto.rows} >= {"vxm"}  # host rounds
    assert {row.op for row in loop.rows} == {"loop"}  # pulled in the loop
