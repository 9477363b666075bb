"""Bad input to ``propagate`` and its bucketed rounds (issue 42): named errors with the state,
the frontier and ``A`` unchanged, and bucket widths beyond the state's type working as one
bucket."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pytest

import hyblas as hb
from hyblas.errors import InvalidObject, InvalidValue
from hyblas.traversal.buckets import Buckets
from hyblas.traversal.params import loop_params
from tests.support.checks import raises_unchanged


def _rounds(backend: str, dtype: Any = np.int64) -> tuple[hb.Vector, hb.Vector, hb.Matrix]:
    """min_plus rounds from vertex 0 over 0 -> 1 -> 2 -> 3 (weights 1, 2, 3) and 0 -> 3 (9)."""
    A = hb.Matrix.from_coo(  # noqa: N806
        [0, 1, 2, 0], [1, 2, 3, 3], np.array([1, 2, 3, 9], dtype=dtype), nrows=4, ncols=4
    ).to_backend(backend)
    state = hb.Vector.from_coo([0], [0], size=4, dtype=dtype, backend=backend)
    return state, state.dup(), A


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"on_rounds": "print"}, InvalidObject, "on_rounds must be None or a callable"),
        ({"on_rounds": 3}, InvalidObject, "on_rounds must be None or a callable"),
        ({"executor": np.array(["auto"])}, InvalidValue, "executor must be one of"),
        ({"executor": None}, InvalidValue, "executor must be one of"),
        ({"executor": "fastest"}, InvalidValue, "executor must be one of"),
        ({"max_rounds": -1}, InvalidValue, "max_rounds must be None or an int >= 0"),
        ({"max_rounds": 2.0}, InvalidValue, "max_rounds must be None or an int >= 0"),
        ({"max_rounds": True}, InvalidValue, "max_rounds must be None or an int >= 0"),
        ({"levels": np.array([True])}, InvalidObject, "levels must be a bool"),
        ({"delta": np.nan}, InvalidValue, "delta must be > 0"),
        ({"delta": 0}, InvalidValue, "delta must be > 0"),
        ({"delta": -(2**70)}, InvalidValue, "delta must be > 0"),
        ({"delta": 2.5}, InvalidValue, "exact in int64"),
        ({"delta": "1"}, InvalidValue, "delta must be a number"),
        ({"delta": np.array([1])}, InvalidValue, "delta must be a number"),
        ({"semiring": "min_pluss"}, InvalidValue, "did you mean min_plus"),
        ({"semiring": hb.monoid.min}, InvalidObject, "semiring must be a Semiring"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_propagate_arguments(backend: str, kwargs: dict, exc: type, match: str) -> None:
    state, frontier, A = _rounds(backend)  # noqa: N806
    call = {"semiring": "min_plus", **kwargs}
    semiring = call.pop("semiring")
    raises_unchanged(
        exc,
        match,
        partial(hb.ops.propagate, state, frontier, A, semiring, **call),
        state,
        frontier,
        A,
    )


@pytest.mark.parametrize("delta", [2**70, np.uint64(2**64 - 1), np.inf, 1e300, 2**63 - 1])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.float32])
def test_propagate_delta_beyond_the_state_type(backend: str, delta: Any, dtype: Any) -> None:
    state, frontier, A = _rounds(backend, dtype)  # noqa: N806
    hb.ops.propagate(state, frontier, A, "min_plus", delta=delta)
    assert state.to_coo()[1].tolist() == [0, 1, 3, 6]
    assert frontier.nnz == 0


def test_buckets_of_every_width() -> None:
    sr = hb.semiring.min_plus
    top = np.iinfo(np.int64).max
    widest = Buckets.for_rounds(2**70, sr, np.int64)
    assert widest.delta == top and widest.top == top
    assert widest.next_threshold(np.int64(5), None) == top  # every value in the first bucket
    assert widest.next_threshold(np.int64(0), None) == top
    assert Buckets.for_rounds(np.inf, sr, np.float32).delta == np.inf
    assert Buckets.for_rounds(2**1100, sr, np.float64).delta == np.inf
    assert Buckets.for_rounds(3.0, sr, np.uint8).delta == 3
    with pytest.raises(InvalidValue, match="is 0 in float32"):
        Buckets.for_rounds(1e-50, sr, np.float32)
    with pytest.raises(InvalidValue, match="min monoid"):
        Buckets.for_rounds(1, hb.semiring.plus_times, np.int64)


@pytest.mark.parametrize("levels", [False, True])
@pytest.mark.parametrize("executor", ["auto", "loop", "reference", "sparse"])
def test_propagate_state_that_is_the_frontier(backend: str, levels: bool, executor: str) -> None:
    """Both are written at the end (the frontier emptied): one object cannot be both."""
    state, _, A = _rounds(backend)  # noqa: N806
    semiring = "any_pair" if levels else "min_plus"
    raises_unchanged(
        InvalidValue,
        "state and frontier are the same Vector",
        partial(hb.ops.propagate, state, state, A, semiring, levels=levels, executor=executor),
        state,
        A,
    )
    frontier = state.dup()  # what the message asks for
    hb.ops.propagate(state, frontier, A, semiring, levels=levels, executor=executor)
    assert state.to_coo()[1].tolist() == ([0, 1, 2, 1] if levels else [0, 1, 3, 6])
    assert frontier.nnz == 0


def _path(backend: str, n: int) -> hb.Matrix:
    """0 -> 1 -> ... -> n - 1: a BFS from 0 gives vertex v the level v."""
    r = np.arange(n - 1)
    return hb.Matrix.from_coo(r, r + 1, 1.0, nrows=n, ncols=n, backend=backend)


EVERY_PATH = [  # (executor, device loop): the loop (its emulation here), host rounds on each
    ("auto", True),
    ("loop", True),
    ("auto", False),
    ("reference", True),
    ("dense", True),
    ("sparse", True),
    ("pull", True),
]


@pytest.mark.parametrize(("executor", "device_loop"), EVERY_PATH)
@pytest.mark.parametrize(("dtype", "last"), [(np.int8, 127), (np.uint8, 255)])
def test_propagate_levels_beyond_the_state_dtype(
    backend: str, executor: str, device_loop: bool, dtype: Any, last: int
) -> None:
    """A round whose number the state cannot hold and that reaches a vertex: InvalidValue,
    state and frontier unchanged (it wrapped: level 128 was -128 in int8); levels up to the
    last it holds, and a last round that reaches nothing, are fine."""
    A = _path(backend, last + 3)  # noqa: N806
    state = hb.Vector.from_coo([0], [0], size=A.nrows, dtype=dtype, backend=backend)
    frontier = hb.Vector.from_coo([0], [True], size=A.nrows, backend=backend)
    call = partial(hb.ops.propagate, state, frontier, A, "any_pair", levels=True, executor=executor)
    with loop_params(device_loop=device_loop):
        raises_unchanged(
            InvalidValue,
            f"round {last + 1} reaches more vertices .* dtype {np.dtype(dtype).name} holds "
            f"levels up to {last} only",
            call,
            state,
            frontier,
            A,
        )
        assert call(max_rounds=last) == last  # the rounds it holds: run, then stopped
        assert state.to_coo()[1].tolist() == list(range(last + 1))
        # a path of last + 1 vertices: the last level fits, and the round after reaches nothing
        A = _path(backend, last + 1)  # noqa: N806
        state = hb.Vector.from_coo([0], [0], size=A.nrows, dtype=dtype, backend=backend)
        frontier = hb.Vector.from_coo([0], [True], size=A.nrows, backend=backend)
        rounds = []
        done = hb.ops.propagate(
            state,
            frontier,
            A,
            "any_pair",
            levels=True,
            executor=executor,
            on_rounds=lambda r, nnz: rounds.append((r, nnz)),
        )
    assert done == last + 1 and rounds[-1] == (last + 1, 0) and frontier.nnz == 0
    assert state.to_coo()[1].tolist() == list(range(last + 1))
