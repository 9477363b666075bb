"""Bad input to the executors' settings (issue 42): names given as something other than a str
(an array would answer ``in`` / ``==`` element-wise), parameter sets of the wrong kind. Each
raises its named error and changes no setting."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import hyblas as hb
from hyblas.errors import BackendError, InvalidObject, InvalidValue
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
