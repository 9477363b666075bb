"""Bad input to the executors' settings (issue 42): names given as something other than a str
(an array would answer ``in`` / ``==`` element-wise), parameter sets of the wrong kind, and the
trace's arguments. Each raises its named error and changes no setting."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import hyblas as hb
from hyblas.errors import BackendError, IndexOutOfBounds, InvalidObject, InvalidValue
from hyblas.executors import policy as hybrid
from hyblas.executors.dense.params import DenseParams, dense_params
from hyblas.executors.dense.params import current_params as dense_current
from hyblas.executors.sparse.params import sparse_params
from hyblas.traversal.params import current_params as loop_current
from hyblas.traversal.params import loop_params

NOT_NAMES = [np.array(["cpu", "cuda"]), np.array(["cpu"]), ["cpu"], 3, b"cpu"]


@pytest.mark.parametrize("name", NOT_NAMES, ids=repr)
def test_backend_named_by_something_not_a_str(name: Any) -> None:
    before = hb.backend()
    with pytest.raises(InvalidObject, match="a backend is named by a str"):
        hb.set_backend(name)
    with pytest.raises(InvalidObject, match="a backend is named by a str"):
        with hb.using_backend(name):
            pass
    with pytest.raises(InvalidObject, match="a backend is named by a str"):
        hb.Vector.new(np.int64, 3, backend=name)
    assert hb.backend() == before
    with pytest.raises(BackendError, match="backend must be one of"):
        hb.set_backend("tpu")
    hb.set_backend("auto")  # 'auto' and None still go back to the default
    hb.set_backend(None)
    assert hb.backend() == before


@pytest.mark.parametrize("name", [*NOT_NAMES, None, np.array(["beamer", "density"])], ids=repr)
def test_policy_named_by_something_not_a_str(name: Any) -> None:
    before = hybrid.get_policy()
    with pytest.raises(InvalidObject, match="policy must be a str"):
        hb.set_policy(name)
    with pytest.raises(InvalidObject, match="policy must be a str"):
        with hb.policy(name):
            pass
    assert hybrid.get_policy() == before
    with pytest.raises(InvalidValue, match="policy must be one of"):
        hb.set_policy("fastest")


def test_parameter_sets_of_the_wrong_kind() -> None:
    before = (dense_current(), loop_current())
    for reorder in (np.array(["auto", "none"]), np.array(["auto"]), None, 3):
        with pytest.raises(InvalidValue, match="DenseParams.reorder must be one of"):
            DenseParams(reorder=reorder)
    for stack, wrong in ((dense_params, np.array([1, 2])), (sparse_params, 3)):
        with pytest.raises(InvalidObject, match="params must be a"):
            with stack(wrong):
                pass
    with pytest.raises(InvalidObject, match="params must be a LoopParams"):
        with loop_params(DenseParams()):
            pass
    with pytest.raises(InvalidValue, match="LoopParams has no field bogus; its fields are"):
        with loop_params(bogus=1):
            pass
    assert (dense_current(), loop_current()) == before
    with loop_params(exit_edges=0) as chosen:  # a known field still changes the set
        assert loop_current() is chosen and chosen.exit_edges == 0


def _trace(products: int) -> Any:
    A = hb.Matrix.from_coo([0, 1], [1, 2], [1.0, 1.0], nrows=3, ncols=3, backend="cpu")  # noqa: N806
    u = hb.Vector.from_coo([0], [1.0], size=3, backend="cpu")
    with hb.trace() as t:
        for _ in range(products):
            hb.ops.vxm(u, A, "plus_times", executor="reference")
    return t


@pytest.mark.parametrize("max_rows", ["a", -1, 2.0, True, None, np.array([3])], ids=repr)
def test_trace_table_max_rows(max_rows: Any) -> None:
    t = _trace(3)
    with pytest.raises(InvalidValue, match="max_rows must be an int >= 0"):
        t.table(max_rows=max_rows)
    assert len(t) == 3


def test_trace_table_cut() -> None:
    """More rows than ``max_rows``: the first and last ``max_rows // 2``, ``...`` between."""
    t = _trace(5)
    calls = {
        m: [line.split()[0] for line in t.table(max_rows=m).splitlines()[1:-1]] for m in range(7)
    }
    assert calls[0] == calls[1] == ["..."]
    assert calls[2] == calls[3] == ["0", "...", "4"]
    assert calls[4] == ["0", "1", "...", "3", "4"]
    assert calls[5] == calls[6] == ["0", "1", "2", "3", "4"]


def test_trace_rows_by_index() -> None:
    t = _trace(2)
    assert t[0].call == 0 and t[-1].call == 1 and t[np.int64(1)].call == 1
    assert [r.call for r in t[0:2]] == [0, 1]
    for index in (2, -3):
        with pytest.raises(IndexOutOfBounds, match="outside a trace of 2 rows"):
            t[index]
    for index in ("a", 1.0, True, None):
        with pytest.raises(InvalidObject, match="indexed by an int or a slice"):
            t[index]


def test_names_given_as_numpy_strings_are_names(backend: str) -> None:
    """A NumPy string (a str subclass, as read from an array) names a backend, an executor,
    a policy and a reorder like the str it is."""
    name = np.str_(backend)
    v = hb.Vector.from_coo([0, 2], [1.0, 2.0], size=3, backend=name)
    assert v.backend == backend
    with hb.using_backend(name):
        A = hb.Matrix.from_coo([0, 1], [1, 2], [1.0, 1.0], nrows=3, ncols=3)
        got = hb.ops.mxv(A, v, "plus_times", executor=np.str_("dense"))
        assert got.isequal(hb.ops.mxv(A, v, "plus_times", executor="reference"))
    previous = hybrid.get_policy()
    with hb.policy(np.str_(previous)):
        assert hybrid.get_policy() == previous
    assert DenseParams(reorder=np.str_("both")).reorder == "both"
