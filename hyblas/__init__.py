"""hyblas: a GraphBLAS-style sparse linear-algebra engine on NVIDIA GPUs (CuPy) and the CPU.

>>> import hyblas as hb
>>> A = hb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0])
>>> u = hb.Vector.from_coo([0], [1.0], size=3)
>>> hb.ops.vxm(u, A, hb.semiring.min_plus).to_coo()
(array([1]), array([2.]))

The package is built in layers, each importing only those below it (``docs/architecture.md``):
backend, operators, device, containers, ops, executors, traversal, algorithms / io /
generators, viz. This module assembles them: it imports every layer and hands out the public
names.
"""

from __future__ import annotations

import sys

from . import (
    algorithms,
    binary,
    containers,
    device,
    distributed,
    dtypes,
    errors,
    executors,
    generators,
    graph,
    indexunary,
    io,
    monoid,
    operators,
    ops,
    semiring,
    traversal,
    unary,
    viz,
    warmup,
)
from .backend import backend, cuda_available, set_backend, using_backend
from .containers import Matrix, Vector
from .executors.policy import get_policy, policy, set_policy
from .executors.trace import trace
from .graph import Graph
from .viz import plot

__version__ = "0.1.0"

__all__ = [
    "Graph",
    "Matrix",
    "Vector",
    "semiring",
    "monoid",
    "binary",
    "unary",
    "indexunary",
    "ops",
    "algorithms",
    "io",
    "generators",
    "graph",
    "plot",
    "errors",
    "backend",
    "set_backend",
    "using_backend",
    "cuda_available",
    "warmup",
    "trace",
    "set_policy",
    "get_policy",
    "policy",
    # the layers (docs/architecture.md)
    "operators",
    "device",
    "containers",
    "executors",
    "traversal",
    "distributed",
    "viz",
    "dtypes",
]

# hyblas.ops.propagate runs on the traversal layer above the operations.
ops.propagate = traversal.propagate

# Where public names lived before the layers of docs/architecture.md: the modules stay
# importable under their former paths, so that code written against them keeps working.
FORMER_PATHS = {
    "ops.dense": executors.dense,
    "ops.sparse": executors.sparse,
    "ops.pull": executors.pull,
    "ops.hybrid": executors.policy,
    "ops.trace": executors.trace,
    "ops.loop": traversal,
    "plot": viz.plot,
}
for _path, _module in FORMER_PATHS.items():
    sys.modules[f"{__name__}.{_path}"] = _module
    _parent, _, _name = f"{__name__}.{_path}".rpartition(".")
    setattr(sys.modules[_parent], _name, _module)
del _path, _module, _parent, _name
