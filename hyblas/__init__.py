"""hyblas: a GraphBLAS-style sparse linear-algebra engine on NVIDIA GPUs (CuPy) and the CPU.

>>> import hyblas as hb
>>> A = hb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0])
>>> u = hb.Vector.from_coo([0], [1.0], size=3)
>>> hb.ops.vxm(u, A, hb.semiring.min_plus).to_coo()
(array([1]), array([1.]))
"""

from __future__ import annotations

from . import binary, errors, indexunary, monoid, ops, semiring, unary
from .backend import backend, cuda_available, set_backend, using_backend
from .matrix import Matrix
from .ops.hybrid import get_policy, policy, set_policy
from .ops.trace import trace
from .vector import Vector

__version__ = "0.1.0"

__all__ = [
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
    "plot",
    "errors",
    "backend",
    "set_backend",
    "using_backend",
    "cuda_available",
    "trace",
    "set_policy",
    "get_policy",
    "policy",
]


def __getattr__(name: str):  # noqa: ANN202 - lazy subpackages keep `import hyblas` fast
    if name in ("algorithms", "io", "generators", "plot"):
        import importlib  # noqa: PLC0415

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'hyblas' has no attribute {name!r}")
