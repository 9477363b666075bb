"""Semirings: ``hyblas.semiring.min_plus``, ``hyblas.semiring["min_plus"]``.

The operator classes live in :mod:`hyblas.operators`, the built-ins in
:mod:`hyblas.operators.catalogue`. Add your own with :func:`register_new`.
"""

from __future__ import annotations

from .operators import namespace
from .operators.classes import BinaryOp, Monoid, Semiring
from .operators.registry import named, register


def register_new(name: str, monoid: Monoid | str, binaryop: BinaryOp | str) -> Semiring:
    """Register a semiring ``(monoid, binaryop)`` under ``name``; it behaves like a built-in.

    Parameters
    ----------
    name : str
    monoid : Monoid or str
        The add monoid (or its name in ``hyblas.monoid``).
    binaryop : BinaryOp or str
        The multiply (or its name in ``hyblas.binary``).

    Raises
    ------
    InvalidValue
        If ``name`` is taken or not an identifier, a name given for ``monoid`` / ``binaryop``
        is not registered (the message suggests close names), or no dtype fits both.
    InvalidObject
        If ``monoid`` is not a Monoid or ``binaryop`` not a BinaryOp.

    Examples
    --------
    >>> max_min = hb.semiring.register_new("max_min_doc", "max", "min")  # widest path
    >>> A = hb.Matrix.from_coo([0, 0, 1], [1, 2, 2], [5.0, 1.0, 3.0], nrows=3, ncols=3)
    >>> u = hb.Vector.from_coo([0], [np.inf], size=3)
    >>> hb.ops.vxm(hb.ops.vxm(u, A, max_min), A, max_min).to_coo()  # bottleneck of 0 -> 1 -> 2
    (array([2]), array([3.]))
    """
    add = named("monoid", monoid, "monoid")
    mult = named("binary", binaryop, "binaryop")
    return register(Semiring(name, add, mult))


namespace.install(__name__, "semiring")
