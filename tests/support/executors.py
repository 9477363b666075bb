"""What the executor tests draw and build: parameter sets scaled down to hypothesis-sized
matrices, sparse frontiers, and matrices shaped to reach each executor's hard cases."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

import hyblas as hb
from hyblas.executors.dense import DenseParams
from hyblas.executors.dense.params import REORDERS
from hyblas.executors.sparse import SparseParams
from tests.support import strategies as S

# --- parameter sets -----------------------------------------------------------------------------


@st.composite
def small_dense_params(draw: Any) -> DenseParams:
    """A dense parameter set scaled down to hypothesis-sized matrices: empty panels, heavy and
    light blocks, split heavy blocks, runs that cross tile columns, shapes that are not
    multiples of the panels."""
    return DenseParams(
        column_panel=draw(st.integers(1, 9)),
        row_panel=draw(st.integers(1, 9)),
        heavy_threshold=draw(st.integers(1, 12)),
        heavy_unit_edges=draw(st.integers(1, 20)),
        heavy_team_edges=draw(st.integers(1, 40)),
        heavy_groups=draw(st.integers(1, 3)),  # one runs unless heavy_threads is 32k
        light_unit_edges=draw(st.integers(1, 20)),
        reduce_chunk_slots=draw(st.integers(1, 12)),
        heavy_threads=draw(st.sampled_from([1, 2, 3, 8, 32, 64])),
        light_threads=draw(st.sampled_from([1, 5, 32])),
        reduce_threads=draw(st.sampled_from([1, 7, 32])),
        phase1_launches=draw(st.sampled_from([1, 2])),
        reorder=draw(st.sampled_from(REORDERS)),
    )


@st.composite
def small_sparse_params(draw: Any) -> SparseParams:
    """A sparse parameter set scaled down to hypothesis-sized matrices: high and low in-degree
    outputs, several segments, gathered inputs, blocks that do and do not walk segments."""
    bounds = sorted(draw(st.sets(st.integers(1, 8), min_size=1, max_size=5)), reverse=True)
    return SparseParams(
        group_bounds=tuple(bounds),
        shared_groups=draw(st.integers(0, len(bounds))),
        segment=draw(st.integers(1, 9)),
        segment_min_edges=draw(st.integers(0, 30)),
        reach=draw(st.integers(1, 40)),
        spread_blocks=draw(st.integers(1, 5)),
    )


def sparse_frontier(data: st.DataObject, size: int, dtype: np.dtype) -> S.VectorData:
    """A sparse input: at most half the positions, often far fewer."""
    u = data.draw(S.vectors(size=size, dtype=dtype))
    keep = data.draw(st.integers(0, max(size // 2, 1)))
    return S.VectorData(size, u.indices[:keep], u.values[:keep])


# --- shaped matrices ----------------------------------------------------------------------------

#: What :func:`panel_matrix` builds: empty panels, one huge row, one huge column, a power law.
PANEL_KINDS = ("huge_row", "huge_column", "empty_panels", "power_law")


def panel_matrix(kind: str, rng: np.random.Generator, dtype: str) -> hb.Matrix:
    """203 x 203 (not a multiple of any panel width the tests use), shaped against the dense
    executor's panels."""
    n = 203
    if kind == "huge_row":
        rows, cols = np.zeros(n, dtype=np.int64), np.arange(n)
    elif kind == "huge_column":
        rows, cols = np.arange(n), np.full(n, 7)
    elif kind == "empty_panels":  # entries only in the first and last panels
        rows = rng.integers(0, 20, 300)
        cols = np.concatenate([rng.integers(0, 10, 150), rng.integers(n - 10, n, 150)])
    else:  # power law: a few hubs, many light entries
        rows = np.minimum(rng.zipf(1.6, 2000) - 1, n - 1)
        cols = rng.integers(0, n, 2000)
    keys = np.unique(rows * n + cols)
    values = rng.integers(1, 5, keys.size).astype(dtype)
    return hb.Matrix.from_coo(keys // n, keys % n, values, nrows=n, ncols=n)


#: What :func:`degree_matrix` builds: one input of huge degree, inputs of every degree, a power
#: law of in-degrees.
DEGREE_KINDS = ("huge_input", "every_stage", "power_law")


def degree_matrix(kind: str, rng: np.random.Generator, dtype: str) -> hb.Matrix:
    """1500 x 1500, shaped against the sparse executor's stages. Columns are the inputs of
    ``mxv``: their lengths decide the stages."""
    n = 1500
    if kind == "huge_input":  # input 3 reaches 1400 outputs, 40 more have 1-3 edges, the rest 0
        rows = np.concatenate([np.arange(1400), rng.integers(0, n, 80)])
        cols = np.concatenate([np.full(1400, 3), rng.integers(100, 140, 80)])
    elif kind == "every_stage":  # degrees 0..700: block, warp and virtual-warp parts
        degrees = rng.integers(0, 700, 200) * (rng.random(200) < 0.7)
        cols = np.repeat(np.arange(200) * 7, degrees)
        rows = np.concatenate([rng.choice(n, d, replace=False) for d in degrees])
    else:  # power law in-degree: hub outputs that fill the high groups and several segments
        rows = np.minimum(rng.zipf(1.5, 30000) - 1, n - 1)
        cols = rng.integers(0, n, 30000)
    keys = np.unique(rows * n + cols)
    values = rng.integers(1, 5, keys.size).astype(dtype)
    return hb.Matrix.from_coo(keys // n, keys % n, values, nrows=n, ncols=n)


#: The dense parameter sets the shaped matrices run under, by test id.
DENSE_SHAPED_PARAMS = {
    "tiles": DenseParams(
        column_panel=16,
        row_panel=16,
        heavy_threshold=8,
        heavy_unit_edges=40,
        light_unit_edges=24,
        heavy_threads=32,
        light_threads=32,
        reduce_threads=32,
    ),
    "tall_both": DenseParams(
        column_panel=50,
        row_panel=7,
        heavy_threshold=3,
        heavy_unit_edges=1000,
        light_unit_edges=1000,
        heavy_threads=4,
        reorder="both",
    ),
    "unit": DenseParams(
        column_panel=1,
        row_panel=1,
        heavy_threshold=2,
        heavy_unit_edges=2,
        light_unit_edges=1,
        heavy_threads=1,
        light_threads=1,
        reduce_threads=1,
        reorder="none",
    ),
    "groups": DenseParams(
        column_panel=16,
        row_panel=16,
        heavy_threshold=8,
        heavy_unit_edges=12,
        heavy_team_edges=20,
        heavy_groups=3,
        light_unit_edges=24,
        heavy_threads=32,
        reorder="both",
    ),
}

#: The sparse parameter sets the shaped matrices run under, by test id.
SPARSE_SHAPED_PARAMS = {
    "defaults": SparseParams(),
    "small": SparseParams(
        group_bounds=(64, 16, 4),
        shared_groups=2,
        segment=37,
        segment_min_edges=0,
        reach=300,
        spread_blocks=3,
    ),
    "unit": SparseParams(
        group_bounds=(8,), shared_groups=1, segment=1, segment_min_edges=1, reach=1, spread_blocks=1
    ),
    "wide": SparseParams(
        group_bounds=(2048, 1024, 512, 256, 128, 4),
        shared_groups=6,
        segment=500,
        segment_min_edges=100,
        reach=10**9,
    ),
}


# --- compared with the reference ----------------------------------------------------------------


def shaped_inputs(
    A: hb.Matrix,  # noqa: N803
    rng: np.random.Generator,
    shares: tuple[float | str, ...],
) -> list[hb.Vector]:
    """Inputs of ``A u`` (and ``u A``, ``A`` square) of values 1 to 3, one a share of the
    positions present (``'full'``: a full vector)."""
    inputs = []
    for share in shares:
        if share == "full":
            inputs.append(hb.Vector.from_dense(rng.integers(1, 4, A.ncols).astype(A.dtype)))
        else:
            keep = np.flatnonzero(rng.random(A.ncols) < share)
            values = rng.integers(1, 4, keep.size).astype(A.dtype)
            inputs.append(hb.Vector.from_coo(keep, values, size=A.ncols))
    return inputs


def assert_products_equal_reference(
    A: hb.Matrix,  # noqa: N803
    inputs: list[hb.Vector],
    name: str,
    executor: str,
    masks: tuple[Any, ...] = (None,),
) -> None:
    """``A u`` and ``u A`` on ``executor``, for every input and mask, equal the reference's:
    the same positions, values to ``rtol=1e-12``."""
    for u in inputs:
        for op, args in ((hb.ops.mxv, (A, u)), (hb.ops.vxm, (u, A))):
            for mask in masks:
                got = op(*args, name, mask=mask, executor=executor)
                want = op(*args, name, mask=mask, executor="reference")
                assert got.to_coo()[0].tolist() == want.to_coo()[0].tolist(), (op, mask)
                np.testing.assert_allclose(got.to_coo()[1], want.to_coo()[1], rtol=1e-12)
