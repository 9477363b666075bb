"""What people look at: the Jupyter views (:mod:`.display`), plots (:mod:`.plot`) and the
algorithms' progress bars (:mod:`.progress`).

Nothing below imports this package: at import it gives Matrix, Vector, the operators and Trace
their ``_repr_html_`` (and Trace its ``plot``), and installs the progress bars.
"""

from __future__ import annotations

from typing import Any

from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..executors.trace import Trace
from ..operators.classes import Operator
from . import display, plot, progress

__all__ = ["display", "plot", "progress", "attach"]


def _matrix_html(self: Matrix) -> str:
    """Jupyter's view: shape, nnz, dtype, backend, memory and a spy picture."""
    return display.matrix_html(self)


def _vector_html(self: Vector) -> str:
    """Jupyter's view: size, nnz, dtype, backend, storage, memory and the first entries."""
    return display.vector_html(self)


def _operator_html(self: Operator) -> str:
    """Jupyter's view: name, parts, dtypes served (and identities, for monoids/semirings)."""
    return display.operator_html(self)


def _trace_html(self: Trace) -> str:
    """Jupyter's view: calls and time per executor, and the first products."""
    return display.trace_html(self)


def _trace_plot(self: Trace, ax: Any = None) -> Any:
    """Frontier size and executor per product (MultiGraph's Table 2 as a picture); see
    :func:`hyblas.plot.trace`.

    Examples
    --------
    >>> A = hb.generators.grid_2d(4, 4)
    >>> with hb.trace() as t:
    ...     levels = hb.algorithms.bfs(A, 0)
    >>> ax = t.plot()  # matplotlib: one point per product, coloured by executor
    >>> ax.get_xlabel()
    'product (call order)'
    """
    return plot.trace(self, ax=ax)


def attach() -> None:
    """Attach the views and plots, and install the progress bars."""
    Matrix._repr_html_ = _matrix_html
    Vector._repr_html_ = _vector_html
    Operator._repr_html_ = _operator_html
    Trace._repr_html_ = _trace_html
    Trace.plot = _trace_plot
    progress.install()


attach()
