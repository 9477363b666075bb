"""The reference executor's CPU products through scipy's CSR matrix-vector product, as its GPU
products go through cuSPARSE.

scipy's ``csr_matvec`` computes ``y_i = Σ_j A_ij x_j`` row by row (C++, one pass over the
entries). It serves the products whose ``⊕`` is that sum and whose ``⊗`` is that multiply, or
one side of it:

* ``plus`` monoid over integers and floats with ``times``, ``first``, ``second`` or ``pair``:
  the data are the matrix's values (``times``, and the ``first`` / ``second`` that picks the
  matrix's value) or ones (the ``first`` / ``second`` that picks the input's value, ``pair``);
  the vector is the input's values or, where the multiply ignores them, the input's presence
  as 0 / 1. Integers wrap as the reference's do (the sum of a row does not depend on the order
  of its terms); float sums may round differently (another order), and a row whose every term
  is ``-0.0`` sums to ``+0.0`` (scipy starts each row from ``+0.0``).
* ``lor`` monoid with ``land``, ``first`` or ``second``, computed in bool (a value cast to bool
  before the OR is the product cast to bool): scipy's bool product is an OR of ANDs, exactly.
* ``any_pair``, ``lor_pair``: only which outputs are present (the values are all 1).

What is present comes from the structure, not the values: with every input present, the
rows holding an entry (:func:`~hyblas.containers.derived.nonempty_rows`); otherwise a second,
structural product of the pattern (bool) with the input's presence flags. An absent input
enters the value product as 0, which contributes nothing, except that ``0 * inf`` is NaN: a
float product whose data are the matrix's values takes this path with a partial input only if
every stored value is finite (checked once per matrix).

The scipy matrices are built once per matrix and data kind over the matrix's own CSR arrays
(no copy; the values converted to the operand type where it differs, as
:func:`~hyblas.containers.derived.values_as` caches them) and cached in ``matrix.cache``.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from ...containers.derived import iso_value, nonempty_rows, values_as
from ...operators.classes import Semiring
from ..builtin import semiring_names
from ..switch import Switch

__all__ = ["plan", "applies", "passes", "spmv_scipy", "enabled", "disabled", "Plan"]

# (data, vector): what the scipy product multiplies. data: "values" (the matrix's values) or
# "ones" (its pattern); vector: "u" (the input's values) or "ones" (its presence as 0 / 1)
Plan = tuple[str, str]

_MULTS = ("times", "land", "first", "second", "pair")
_ARITHMETIC = "iuf"

_SCIPY = Switch()
_BOOL = np.dtype(bool)


def enabled() -> bool:
    """Whether the reference executor may use scipy (on by default)."""
    return bool(_SCIPY)


def disabled() -> contextlib.AbstractContextManager[None]:
    """Inside the block the reference executor runs its generic NumPy path on the CPU (to
    compare the two, or to time the generic path)."""
    return _SCIPY.off()


def plan(semiring: Semiring, op_type: np.dtype, *, flip: bool) -> Plan | str:
    """How scipy computes this product: a :data:`Plan`, ``"presence"`` (``any_pair``,
    ``lor_pair``: only which outputs are present), or ``""`` when it does not serve it. The
    product runs in the semiring's output type (bool for ``lor``: a value cast to bool before
    the OR is the product cast to bool)."""
    add, mult = semiring_names(semiring)
    out_type = semiring.output_type(op_type)
    if mult == "pair" and add in ("any", "lor"):
        return "presence"
    if mult not in _MULTS:
        return ""
    if add == "plus":
        if op_type.kind not in _ARITHMETIC or out_type != op_type or mult == "land":
            return ""
    elif add != "lor" or out_type.kind != "b" or mult == "times":
        return ""
    if mult in ("times", "land"):
        return ("values", "u")
    if mult == "pair":
        return ("ones", "ones")
    matrix_side = (mult == "first") != flip  # mxv: first is A's value; vxm: u's
    return ("values", "ones") if matrix_side else ("ones", "u")


def _all_finite(matrix: Any) -> bool:
    cache = matrix.cache
    if "scipy_all_finite" not in cache:
        values = matrix.values
        cache["scipy_all_finite"] = values.dtype.kind != "f" or bool(np.isfinite(values).all())
    return cache["scipy_all_finite"]


def applies(matrix: Any, semiring: Semiring, op_type: np.dtype, *, flip: bool, full: bool) -> bool:
    """Whether :func:`spmv_scipy` serves this product (the policy's question too)."""
    if matrix.backend != "cpu" or not _SCIPY:
        return False
    how = plan(semiring, op_type, flip=flip)
    if not how:
        return False
    if how == "presence" or full or semiring.output_type(op_type).kind != "f":
        return True
    return how[0] != "values" or _all_finite(matrix)


def passes(matrix: Any, semiring: Semiring, op_type: np.dtype, *, flip: bool, full: bool) -> int:
    """How many passes over the entries scipy makes for this product (the policy's cost): the
    value product, and the structural one for a partial input; 0 for a full input whose result
    needs none (``any_pair``, ``plus_pair``); -1 where scipy does not serve it."""
    if not applies(matrix, semiring, op_type, flip=flip, full=full):
        return -1
    how = plan(semiring, op_type, flip=flip)
    values = how != "presence" and not (full and how == ("ones", "ones"))
    return int(values) + int(not full)


def _csr(matrix: Any, data: str, dtype: np.dtype) -> Any:
    """The scipy CSR array over the matrix's arrays, with its values (as ``dtype``) or ones."""
    key = ("scipy_csr", data, dtype.str)
    cache = matrix.cache
    found = cache.get(key)
    if found is None:
        import scipy.sparse as sp  # noqa: PLC0415 - loaded on the first CPU product

        if data == "values":
            entries = values_as(matrix, dtype)
        else:
            iso = iso_value(matrix)
            if iso is not None and matrix.dtype == dtype and iso == 1:
                return _csr(matrix, "values", dtype)  # an unweighted graph's ones
            entries = np.ones(matrix.nnz, dtype=dtype)
        found = sp.csr_array(
            (entries, matrix.indices, matrix.indptr), shape=matrix.shape, copy=False
        )
        cache[key] = found
    return found


def spmv_scipy(
    matrix: Any,
    u_values: Any,
    u_present: Any,
    semiring: Semiring,
    op_type: np.dtype,
    *,
    flip: bool,
    all_present: bool,
) -> tuple[Any, Any, int | None]:
    """``t = E ⊕.⊗ u`` by scipy as the bitmap ``(values, present, count)`` (count None when
    not known without counting); only where :func:`applies`."""
    how = plan(semiring, op_type, flip=flip)
    out_type = semiring.output_type(op_type)
    if all_present:
        nonempty, count = nonempty_rows(matrix)
        present = nonempty.copy()  # the result takes it
    else:
        present = _csr(matrix, "ones", _BOOL) @ u_present
        count = None
    if how == "presence":  # any_pair, lor_pair: 1 wherever an output is present
        return np.ones(matrix.nrows, dtype=out_type), present, count
    data, vector = how
    if data == "ones" and vector == "ones" and all_present:  # plus_pair: the row lengths
        return np.diff(matrix.indptr).astype(out_type), present, count
    if vector == "u":
        x = u_values.astype(out_type, copy=False)
        if not all_present:
            x = np.where(u_present, x, out_type.type(0))
    elif all_present:
        x = np.ones(matrix.ncols, dtype=out_type)
    else:
        x = u_present.astype(out_type)
    values = _csr(matrix, data, out_type) @ x
    return values, present, count
