"""What an executor declares to the registry: its name, what it serves and on which backends,
and the functions that run a product on it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..ops.dispatch import MatrixProduct, Product
from ..ops.spec import OutputSpec

__all__ = ["Executor", "ProductRun"]

#: ``run(product, spec, *, may_build, stats) -> Vector``: the product written as ``spec`` says.
#: ``may_build=False`` (the policy chose this executor without paying for a layout): use a
#: layout that needs no build where there is one. ``stats``, when given, receives counts for the
#: trace (``'edges'``: the edges the executor examined).
ProductRun = Callable[..., Vector]


def _always(*_: Any) -> bool:
    return True


def _nothing_missing() -> str | None:
    return None


@dataclass(frozen=True)
class Executor:
    """One executor as the registry knows it.

    Attributes
    ----------
    name : str
        What ``executor=`` names it by.
    summary : str
        One line: what it does.
    backends : frozenset of str
        Where it runs natively (CUDA kernels, a library); elsewhere it runs its NumPy
        emulation, if it has one (``emulated``).
    run : callable
        Runs an ``mxv`` / ``vxm`` (:data:`ProductRun`).
    fits : callable
        ``fits(product) -> bool``: whether it can run this product (e.g. its blocks hold the
        operand types in shared memory); the policy considers only executors that fit.
    has_layout : callable
        ``has_layout(edge_matrix) -> bool``: whether it can run on this matrix without building
        a layout first (the policy counts the rent of a layout before building one).
    run_matrix_product : callable, optional
        ``run_matrix_product(product, spec) -> Matrix`` where it runs ``mxm``.
    fits_matrix_product : callable
        ``fits_matrix_product(product) -> bool``: whether it runs this ``mxm`` (``'auto'``
        considers only executors that fit).
    emulated : bool
        Whether it runs on the backends outside ``backends`` (as a NumPy emulation); if not,
        it is unavailable there.
    missing : callable
        ``missing() -> str | None``: what it needs that is not installed (an optional
        package), or None; it is unavailable while something is missing.
    """

    name: str
    summary: str
    backends: frozenset[str]
    run: ProductRun
    fits: Callable[[Product], bool] = _always
    has_layout: Callable[[Matrix], bool] = _always
    run_matrix_product: Callable[[MatrixProduct, OutputSpec], Matrix] | None = None
    fits_matrix_product: Callable[[MatrixProduct], bool] = _always
    emulated: bool = True
    missing: Callable[[], str | None] = _nothing_missing

    @property
    def runs_mxm(self) -> bool:
        """Whether it runs ``mxm``."""
        return self.run_matrix_product is not None

    def unavailable(self, backend: str) -> str | None:
        """Why it cannot run on ``backend`` (a backend it has no path for, a package that is
        not installed), or None where it can."""
        if backend not in self.backends and not self.emulated:
            served = ", ".join(repr(b) for b in sorted(self.backends))
            return f"it runs on the {served} backend only, not {backend!r}"
        return self.missing()
