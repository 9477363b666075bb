"""How a product runs: the executor asked for, or the policy's choice for ``executor='auto'``,
with a row in every open trace. Installed into :mod:`hyblas.ops.dispatch` at import, so that
the operations hand their checked products here without importing the executors."""

from __future__ import annotations

import warnings

from ..backend import translate_oom
from ..containers.derived import column_counts, drop_value_copies
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..errors import ExecutorFallback, OutOfMemory
from ..ops import dispatch
from ..ops.dispatch import MatrixProduct, Product
from ..ops.spec import OutputSpec
from . import policy, registry, trace

__all__ = ["ProductRunner", "install"]


class ProductRunner:
    """The :class:`~hyblas.ops.dispatch.Runner` over the registry."""

    @property
    def names(self) -> tuple[str, ...]:
        """The registered executors, in the order they were registered."""
        return registry.names()

    def knows(self, name: str) -> bool:
        """Whether ``name`` is a registered executor."""
        return name in registry.EXECUTORS

    def product(self, product: Product, spec: OutputSpec, executor: str) -> Vector:
        """Run ``product`` on ``executor`` (``'auto'``: the policy's choice; a chosen executor
        builds no layout its savings have not paid for) and write it as ``spec`` says.

        An allocation that fails (the policy's, the executor's) raises
        :class:`~hyblas.errors.OutOfMemory`."""
        with translate_oom(f"{product.op} (executor={executor!r})"):
            return self._product(product, spec, executor)

    def _product(self, product: Product, spec: OutputSpec, executor: str) -> Vector:
        if executor != "auto":
            registry.require(executor, spec.backend)
            return self._run(product, spec, executor, None)
        choice = policy.choose(product, spec.mask)
        building = policy.builds_layout(product.edges, choice.executor)
        if building:
            # the matrix's products move to a layout of their own: the value copies the
            # executors without one cached go first, so that they and the build's temporaries
            # are never held at once (on the largest graphs that would not fit)
            drop_value_copies(product.edges)
        try:
            return self._run(product, spec, executor, choice)
        except (MemoryError, OutOfMemory):  # CuPy's OutOfMemoryError is a MemoryError
            if not building or choice.executor == "reference":
                raise
        # the layout did not fit (its temporaries are freed by now): the products of this
        # matrix run without it; an executor that raises leaves the output unchanged
        policy.no_room_for(product.edges, choice.executor)
        return self._run(product, spec, executor, policy.choose(product, spec.mask))

    def _run(
        self, product: Product, spec: OutputSpec, executor: str, choice: policy.Choice | None
    ) -> Vector:
        name = choice.executor if choice is not None else executor
        run = registry.get(name).run
        if not trace.tracing():
            return run(product, spec, may_build=choice is None)
        stats: dict[str, int] = {}
        timer = trace.start_timer(spec.backend)
        result = run(product, spec, may_build=choice is None, stats=stats)
        timing = timer.stop()
        edges, u = product.edges, product.u
        row = trace.TraceRow(
            call=0,
            op=product.op,
            executor=name,
            asked=executor,
            policy="",
            outputs=edges.nrows,
            input_nnz=u.nnz,
            allowed=None,
            edges=stats.get("edges", _edges_touched(name, edges, u)),
            reason="asked for",
        )
        if choice is not None:
            row.policy, row.reason = choice.policy, choice.reason
            row.estimates_us, row.sampling_ms = dict(choice.estimates_us), choice.deciding_ms
            row.allowed = choice.allowed
        if spec.mask is not None and row.allowed is None:
            row.allowed = int(spec.mask.allowed().sum())
        trace.record(row, timing)
        return result

    def matrix_product(self, product: MatrixProduct, spec: OutputSpec, executor: str) -> Matrix:
        """Run ``product`` on ``executor`` if it runs ``mxm`` (``'auto'``: the policy's choice,
        :func:`.policy.choose_matrix_product`), else (with an
        :class:`~hyblas.errors.ExecutorFallback` warning) on the first registered executor
        that does. An executor unavailable on the backend raises
        (:func:`.registry.require`)."""
        if executor == "auto":
            chosen = registry.get(policy.choose_matrix_product(product))
        else:
            registry.require(executor, spec.backend)
            chosen = registry.get(executor)
        if not chosen.runs_mxm:
            first = next(e for e in registry.EXECUTORS.values() if e.runs_mxm)
            warnings.warn(
                f"mxm: the {executor!r} executor does not run mxm; the "
                f"{first.name!r} executor ran it",
                ExecutorFallback,
                stacklevel=4,
            )
            chosen = first
        with translate_oom(f"mxm (executor={chosen.name!r})"):
            return chosen.run_matrix_product(product, spec)


def _edges_touched(name: str, edges: Matrix, u: Vector) -> int:
    """Edges an executor touched (for the trace): the frontier's out-edges for the push,
    every stored entry for the dense and reference walks."""
    if name != "sparse":
        return edges.nnz
    active = u.as_sparse()[0]
    return int(column_counts(edges)[active].sum()) if active.size else 0


def install() -> None:
    """Make the operations' products run here."""
    dispatch.install(ProductRunner())
