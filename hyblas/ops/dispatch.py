"""The seam between the operations and the executors.

The operations check their arguments, build the product they ask for (:class:`Product`,
:class:`MatrixProduct`) and its :class:`~.spec.OutputSpec`, and hand both on with the
``executor=`` name. Who runs them is installed here at import by :mod:`hyblas.executors`,
whose registry holds the executors (what each serves, on which backend), the policy that picks
one for ``executor='auto'`` and the trace. The operations never import the executors: the
layers point one way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..dtypes import short_repr
from ..errors import HyblasError, InvalidValue
from ..operators.classes import Semiring
from .spec import OutputSpec

__all__ = [
    "Product",
    "MatrixProduct",
    "Runner",
    "install",
    "run_product",
    "run_matrix_product",
    "check_executor",
    "EXECUTORS",
]


@dataclass(slots=True)  # not frozen: see OutputSpec
class Product:
    """One matrix-vector product as an executor runs it: ``w = E ⊕.⊗ u``, where the rows of the
    edge matrix ``E`` are the outputs (``A`` for ``mxv``, ``Aᵀ`` for ``vxm``).

    Attributes
    ----------
    op : {'mxv', 'vxm'}
        What the caller asked for; ``'vxm'`` multiplies ``u_j ⊗ E_ij`` (``flip``).
    edges : Matrix
    u : Vector
        Size ``edges.ncols``.
    semiring : Semiring
    """

    op: str
    edges: Matrix
    u: Vector
    semiring: Semiring

    @property
    def flip(self) -> bool:
        """Whether the input is the multiply's left operand (``vxm``)."""
        return self.op == "vxm"


@dataclass(slots=True)
class MatrixProduct:
    """``C = A ⊕.⊗ B``."""

    A: Matrix  # noqa: N815 - math spelling
    B: Matrix  # noqa: N815
    semiring: Semiring


class Runner(Protocol):
    """What :mod:`hyblas.executors` installs: the executors by name and how a product runs."""

    names: tuple[str, ...]
    """The executors registered (``'auto'`` excluded), in the order they were registered."""

    def knows(self, name: str) -> bool:
        """Whether ``name`` is a registered executor."""

    def product(self, product: Product, spec: OutputSpec, executor: str) -> Vector:
        """Run ``product`` on ``executor`` (``'auto'``: the policy's choice) and write it as
        ``spec`` says."""

    def matrix_product(self, product: MatrixProduct, spec: OutputSpec, executor: str) -> Matrix:
        """Run ``product`` and write it as ``spec`` says."""


_installed: list[Runner] = []


def install(runner: Runner) -> None:
    """Make ``runner`` run the products (called by :mod:`hyblas.executors` at import)."""
    _installed[:] = [runner]


def _runner() -> Runner:
    if not _installed:
        raise HyblasError(
            "no executors are installed: import hyblas (hyblas.executors installs them)"
        )
    return _installed[0]


class _ExecutorNames(Sequence[str]):
    """The names ``executor=`` takes: ``'auto'`` and every registered executor (read when
    asked, so that it always lists what is registered)."""

    def _names(self) -> tuple[str, ...]:
        return ("auto", *_runner().names)

    def __getitem__(self, index: Any) -> Any:
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name == "auto" or _runner().knows(name))

    def __repr__(self) -> str:
        return repr(self._names())


EXECUTORS: Sequence[str] = _ExecutorNames()


def check_executor(executor: Any) -> None:
    """InvalidValue unless ``executor`` names a registered executor or ``'auto'``."""
    if not isinstance(executor, str) or (executor != "auto" and not _runner().knows(executor)):
        raise InvalidValue(
            f"executor must be one of {tuple(EXECUTORS)}, got {short_repr(executor)}"
        )


def run_product(product: Product, spec: OutputSpec, executor: str) -> Vector:
    """Hand a checked matrix-vector product to the installed runner."""
    return _runner().product(product, spec, executor)


def run_matrix_product(product: MatrixProduct, spec: OutputSpec, executor: str) -> Matrix:
    """Hand a checked matrix-matrix product to the installed runner."""
    return _runner().matrix_product(product, spec, executor)
