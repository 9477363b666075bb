"""Propagation rounds as the traversal tests run and compare them."""

from __future__ import annotations

from typing import Any

import numpy as np

import hyblas as hb
from tests.support.graph_strategies import edge_pairs


def run_rounds(
    state: hb.Vector,
    frontier: hb.Vector,
    A: hb.Matrix,
    sr: Any,  # noqa: N803
    **kwargs: Any,
) -> tuple[hb.Vector, hb.Vector, int]:
    """``propagate`` on copies of ``state`` and ``frontier``: both after the rounds, and how
    many rounds ran."""
    state, frontier = state.dup(), frontier.dup()
    rounds = hb.ops.propagate(state, frontier, A, sr, **kwargs)
    return state, frontier, rounds


def assert_same_rounds(
    got: tuple[hb.Vector, hb.Vector, int], want: tuple[hb.Vector, hb.Vector, int]
) -> None:
    """The same number of rounds, and state and frontier equal, dtypes included."""
    assert got[2] == want[2], ("rounds", got[2], want[2])
    for g, w in zip(got[:2], want[:2]):
        assert g.isequal(w, check_dtype=True), (g, w)


def drawn_graph(data: Any, n: int, most: int, dtype: Any, backend: str) -> hb.Matrix:
    """Up to ``most`` random edges (value 1) among ``n`` vertices (a few hundred at most)."""
    edges = data.draw(edge_pairs(n, most))
    rows, cols = (np.array(side, dtype=np.int64) for side in zip(*edges)) if edges else ([], [])
    return hb.Matrix.from_coo(
        rows, cols, np.ones(len(edges), dtype=dtype), nrows=n, ncols=n, dtype=dtype, backend=backend
    )
