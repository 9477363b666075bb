"""The public names: what ``import hyblas`` hands out, and the module paths code written before
the layers of docs/architecture.md imported, which stay importable as the modules they are
now."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import hyblas as hb

OPERATIONS = (
    "mxv",
    "vxm",
    "mxm",
    "ewise_add",
    "ewise_mult",
    "apply",
    "select",
    "reduce_rows",
    "reduce_columns",
    "reduce_scalar",
    "inner",
    "extract",
    "assign",
    "transpose",
    "propagate",
    "Mask",
    "EXECUTORS",
)

FORMER = {
    "hyblas.ops.dense": "hyblas.executors.dense",
    "hyblas.ops.sparse": "hyblas.executors.sparse",
    "hyblas.ops.pull": "hyblas.executors.pull",
    "hyblas.ops.hybrid": "hyblas.executors.policy",
    "hyblas.ops.trace": "hyblas.executors.trace",
    "hyblas.ops.loop": "hyblas.traversal",
    "hyblas.plot": "hyblas.viz.plot",
}


def test_every_name_in_all_resolves() -> None:
    for name in hb.__all__:
        assert getattr(hb, name) is not None, name
    for name in hb.ops.__all__:
        assert getattr(hb.ops, name) is not None, name
    assert set(OPERATIONS) <= set(hb.ops.__all__)
    for name in hb.algorithms.__all__:
        assert callable(getattr(hb.algorithms, name)), name


def test_the_executors_are_the_registered_ones() -> None:
    assert tuple(hb.ops.EXECUTORS) == ("auto", *hb.executors.registry.names())
    assert {"reference", "dense", "sparse", "pull"} <= set(hb.ops.EXECUTORS)
    assert "loop" in hb.ops.loop.EXECUTORS


@pytest.mark.parametrize(("former", "now"), sorted(FORMER.items()))
def test_former_module_paths_import_as_the_modules_they_are_now(former: str, now: str) -> None:
    assert importlib.import_module(former) is importlib.import_module(now)
    parent, _, name = former.rpartition(".")
    assert getattr(importlib.import_module(parent), name) is importlib.import_module(now)


def test_parameters_and_policies_keep_their_former_spellings() -> None:
    assert hb.ops.dense.DenseParams is hb.executors.dense.DenseParams
    assert hb.ops.sparse.sparse_params is hb.executors.sparse.sparse_params
    assert hb.ops.loop.loop_params is hb.traversal.loop_params
    assert hb.ops.loop.LoopParams is hb.traversal.LoopParams
    assert hb.ops.hybrid.POLICIES == ("sampling", "beamer", "density")
    assert hb.ops.propagate is hb.traversal.propagate
    assert hb.semiring.min_plus is hb.semiring["min_plus"]
    with hb.ops.dense.dense_params(column_panel=64) as params:
        assert hb.executors.dense.current_params() is params


def test_former_paths_import_in_a_fresh_process() -> None:
    """``from hyblas.ops.dense import DenseParams`` as the first import of a program."""
    code = (
        "from hyblas.ops.dense import DenseParams, dense_params\n"
        "from hyblas.ops.loop import loop_params\n"
        "from hyblas.ops.sparse import SparseParams\n"
        "import hyblas.ops.trace, hyblas.plot\n"
        "assert DenseParams.__module__ == 'hyblas.executors.dense.params'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
