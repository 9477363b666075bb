"""cuSPARSE through cupyx: ``A @ x`` on a ``cupyx.scipy.sparse.csr_matrix`` (float32).

The only op is ``spmv:plus_times``; cuSPARSE has no other semiring.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import PeerGraph
from ._gpu import asnumpy, host_csr, modules, unavailable_reason

NAME = "cusparse"
DEVICE = "gpu"


def available() -> str | None:
    return unavailable_reason()


def _spmv_plus_times(graph: PeerGraph) -> Callable[[], Any]:
    cp, _, cupyx_sparse = modules()
    A = cupyx_sparse.csr_matrix(host_csr(graph.csr, np.float32))  # noqa: N806
    x = cp.asarray(graph.x, dtype=cp.float32)

    def run() -> Any:
        return A @ x

    return run


OPS: dict[str, Callable[[PeerGraph], Callable[[], Any]]] = {
    "spmv:plus_times": _spmv_plus_times,
}


def to_numpy(op: str, result: Any) -> np.ndarray:
    if op not in OPS:
        raise KeyError(f"{NAME}: no op {op!r}")
    return asnumpy(result).astype(np.float32, copy=False)
