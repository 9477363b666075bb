"""python-graphblas (SuiteSparse:GraphBLAS), loaded on first use: whether it is usable, the
semirings it computes as hyblas does, and the conversions of hyblas's containers into its
objects (a matrix's cached in the matrix's cache, a vector's made per call). Every conversion
copies: hyblas's arrays are never handed to the library, only arrays made here for it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from typing import Any

import numpy as np

from ...containers.derived import iso_value
from ...containers.matrix import Matrix
from ...containers.vector import Vector
from ...errors import BackendError, MissingDependency
from ...operators.classes import Semiring
from ..builtin import semiring_names
from ..switch import Switch

__all__ = [
    "loaded",
    "missing",
    "unavailable",
    "require",
    "offered",
    "disabled",
    "graphblas",
    "semiring_of",
    "settles",
    "matrix_of",
    "vector_of",
    "mask_of",
    "has_matrix",
    "export_vector",
    "export_matrix",
    "EXTRA",
]

#: The optional extra that installs python-graphblas.
EXTRA = "pip install 'hyblas[suitesparse]' (python-graphblas)"

_loaded: dict[str, Any] = {}  # "installed" once asked; "module" or "reason" once tried
_AUTO = Switch()

# the multiplies whose float result may be a zero of either sign depending on the order of
# operands (min / max of -0.0 and +0.0): hyblas orders them, SuiteSparse's fmin / fmax do not
_SIGNED_ZERO_OPS = frozenset({"min", "max"})


def _load() -> str | None:
    """Import python-graphblas once; the reason it is not usable, or None."""
    if "reason" not in _loaded:
        reason = None
        try:
            import graphblas as gb  # noqa: PLC0415 - optional, loaded on first use

            gb.Matrix(bool, 1, 1)  # initializes the library
            if gb.backend != "suitesparse":
                reason = f"python-graphblas runs backend {gb.backend!r}, not 'suitesparse'"
            else:
                _loaded["module"] = gb
        except Exception as exc:  # ImportError, or a library that fails to load
            reason = f"python-graphblas is not usable ({type(exc).__name__}: {exc}); {EXTRA}"
        _loaded["reason"] = reason
    return _loaded["reason"]


def loaded() -> bool:
    """Whether python-graphblas is imported (here, or by the program itself): importing it
    takes about 0.2 s, which the policy counts with the first conversion."""
    return "module" in _loaded or sys.modules.get("graphblas") is not None


def missing() -> str | None:
    """Why python-graphblas cannot be used (not installed, or, once tried, a library that
    does not load), or None. Asking does not import it."""
    if "reason" in _loaded:
        return _loaded["reason"]
    if "installed" not in _loaded:  # asked once: a find_spec reads the file system
        try:
            _loaded["installed"] = importlib.util.find_spec("graphblas") is not None
        except (ImportError, ValueError):
            _loaded["installed"] = False
    return None if _loaded["installed"] else f"python-graphblas is not installed; {EXTRA}"


def unavailable(backend: str) -> str | None:
    """Why the suitesparse executor cannot run on ``backend``, or None where it can."""
    if backend != "cpu":
        return f"it runs on the 'cpu' backend only, not {backend!r}"
    return missing()


def require(backend: str) -> None:
    """Raise unless the executor can run on ``backend``: BackendError on another backend,
    MissingDependency without python-graphblas."""
    if backend != "cpu":
        raise BackendError(f"the 'suitesparse' executor is unavailable: {unavailable(backend)}")
    reason = missing() or _load()
    if reason is not None:
        raise MissingDependency(f"the 'suitesparse' executor is unavailable: {reason}")


def offered() -> bool:
    """Whether ``executor='auto'`` may choose the executor (see :func:`disabled`)."""
    return bool(_AUTO)


def disabled() -> contextlib.AbstractContextManager[None]:
    """Inside the block ``executor='auto'`` never chooses the suitesparse executor (to time
    or test the other CPU paths); asking for it by name still runs it."""
    return _AUTO.off()


def graphblas() -> Any:
    """The ``graphblas`` module (MissingDependency where it is not usable)."""
    if "module" not in _loaded:
        require("cpu")
    return _loaded["module"]


# --- semirings ------------------------------------------------------------------------------


# hyblas's arithmetic operators on bool are the logical ones (NumPy's add / multiply / minimum /
# maximum of bools): SuiteSparse names them so
_ON_BOOL = {"plus": "lor", "times": "land", "min": "land", "max": "lor"}
# multiplies whose result cast to bool is the multiply of the operands cast to bool
_SELECTING = frozenset({"first", "second", "pair"})


def semiring_of(semiring: Semiring, op_type: np.dtype) -> tuple[Any, bool, np.dtype] | None:
    """The SuiteSparse semiring computing ``semiring`` on operands of ``op_type`` as hyblas
    does, whether float results of zero must be settled (min / max, whose tie between ``-0.0``
    and ``+0.0`` SuiteSparse leaves to the order of operands), and the type to convert the
    operands to; None where there is none: a semiring of user-defined operators, or one whose
    SuiteSparse version takes or gives other types.

    ``lor`` / ``land`` of ``first`` / ``second`` / ``pair`` on numbers run on the operands cast
    to bool (a selected value cast to bool is the selection of the values cast to bool), and
    the arithmetic semirings on bool as SuiteSparse's logical ones (``plus_times`` is
    ``lor_land``)."""
    add, mult = semiring_names(semiring)
    if add is None or mult is None:
        return None
    out_type = semiring.output_type(op_type)
    if op_type.kind == "b":
        add, mult = _ON_BOOL.get(add, add), _ON_BOOL.get(mult, mult)
    gb = graphblas()
    try:
        typed = getattr(gb.semiring, f"{add}_{mult}")[op_type]
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    in_type = np.dtype(typed.binaryop.type.np_type)
    if typed.return_type.np_type != out_type:
        return None
    if in_type != op_type and not (in_type.kind == "b" and mult in _SELECTING):
        return None
    return typed, settles(semiring, op_type), in_type


def settles(semiring: Semiring, op_type: np.dtype) -> bool:
    """Whether the product's float zeros must be settled (float min / max, as monoid or
    multiply)."""
    names = set(semiring_names(semiring))
    return semiring.output_type(op_type).kind == "f" and bool(names & _SIGNED_ZERO_OPS)


# --- containers -----------------------------------------------------------------------------


def _index(array: Any) -> Any:
    return array.astype(np.uint64)  # a new array: the library takes it


def has_matrix(matrix: Matrix, dtype: np.dtype, by_column: bool = False) -> bool:
    """Whether ``matrix`` holds its conversion for ``dtype`` (stored by row or by column)."""
    return ("suitesparse", by_column, np.dtype(dtype).str) in matrix.cache


def matrix_of(matrix: Matrix, dtype: np.dtype, *, by_column: bool = False) -> Any:
    """``matrix`` as a ``graphblas.Matrix`` of ``dtype``, cached in its cache. By row: from its
    CSR; by column: from its CSC (:func:`_arrays`), the form whose product with a partial
    vector SuiteSparse pushes (saxpy). An iso matrix (an unweighted graph's) is converted
    without its values."""
    dtype = np.dtype(dtype)
    key = ("suitesparse", by_column, dtype.str)
    cache = matrix.cache
    found = cache.get(key)
    if found is not None:
        return found
    gb = graphblas()
    indptr, indices, source_values = _arrays(matrix, by_column)
    iso = iso_value(matrix)
    if iso is not None:
        values, is_iso = np.array([iso]).astype(dtype), True
    else:
        values, is_iso = source_values.astype(dtype), False  # a copy, in the library's type
    shape = {"nrows": matrix.nrows, "ncols": matrix.ncols}
    if by_column:
        found = gb.Matrix.ss.import_csc(
            **shape,
            indptr=_index(indptr),
            row_indices=_index(indices),
            values=values,
            is_iso=is_iso,
            sorted_rows=True,
            take_ownership=True,
        )
    else:
        found = gb.Matrix.ss.import_csr(
            **shape,
            indptr=_index(indptr),
            col_indices=_index(indices),
            values=values,
            is_iso=is_iso,
            sorted_cols=True,
            take_ownership=True,
        )
    cache[key] = found
    return found


def _arrays(matrix: Matrix, by_column: bool) -> tuple[Any, Any, Any]:
    """``matrix``'s CSR arrays, or by column its CSC arrays: the CSR of its transpose where it
    is at hand, else scipy's conversion (a new copy, hyblas's arrays only read)."""
    if not by_column:
        return matrix.indptr, matrix.indices, matrix.values
    transpose = matrix.transpose_at_hand()
    if transpose is not None:
        return transpose.indptr, transpose.indices, transpose.values
    import scipy.sparse as sp  # noqa: PLC0415 - loaded on first use

    csc = sp.csr_array(
        (matrix.values, matrix.indices, matrix.indptr), shape=matrix.shape, copy=False
    ).tocsc()
    return csc.indptr, csc.indices, csc.data


def vector_of(u: Vector, dtype: np.dtype, *, bitmap: bool = False) -> Any:
    """``u`` as a ``graphblas.Vector`` of ``dtype``: its storage as it is (sparse, bitmap or
    full), or as a bitmap (``bitmap=True``)."""
    gb = graphblas()
    dtype = np.dtype(dtype)
    sparse = u.stored_sparse
    if sparse is not None and bitmap:
        values, present = u.as_bitmap()  # new arrays
        return gb.Vector.ss.import_bitmap(
            bitmap=present, values=values.astype(dtype, copy=False), take_ownership=True
        )
    if sparse is not None:
        indices, values = sparse
        return gb.Vector.ss.import_sparse(
            size=u.size,
            indices=_index(indices),
            values=values.astype(dtype),
            sorted_index=True,
            take_ownership=True,
        )
    values, present = u.stored_bitmap
    if u.known_full():
        return gb.Vector.ss.import_full(values=values.astype(dtype), take_ownership=True)
    return gb.Vector.ss.import_bitmap(
        bitmap=present.copy(), values=values.astype(dtype), take_ownership=True
    )


def mask_of(mask: Any) -> Any:
    """A hyblas mask as python-graphblas's (``v.S``, ``v.V``, complemented: ``~``); a matrix
    mask's parent converted once (cached), a vector's per call."""
    parent = mask.parent
    if isinstance(parent, Matrix):
        converted = matrix_of(parent, np.dtype(bool) if mask.structural else parent.dtype)
    else:
        converted = _vector_mask(parent, mask.structural)
    view = converted.S if mask.structural else converted.V
    return ~view if mask.complement else view


def _vector_mask(parent: Vector, structural: bool) -> Any:
    gb = graphblas()
    if not structural:
        return vector_of(parent, parent.dtype)
    sparse = parent.stored_sparse
    if sparse is not None:
        return gb.Vector.ss.import_sparse(
            size=parent.size,
            indices=_index(sparse[0]),
            values=np.ones(1, dtype=bool),
            is_iso=True,
            sorted_index=True,
            take_ownership=True,
        )
    present = parent.stored_bitmap[1]
    return gb.Vector.ss.import_bitmap(
        bitmap=present.copy(), values=np.ones(1, dtype=bool), is_iso=True, take_ownership=True
    )


def export_vector(w: Any) -> tuple[str, Any, Any, int]:
    """A ``graphblas.Vector`` (given up) as ``('sparse', ids, values, nnz)`` with ascending
    int64 ids, or ``('bitmap', values, present, nnz)``."""
    size = w.size
    exported = w.ss.export(sort=True, give_ownership=True)
    layout = exported["format"]
    values = exported["values"]
    if layout == "sparse":
        ids = exported["indices"].view(np.int64)  # below 2**63: the same bits
        if exported["is_iso"]:
            values = np.full(ids.size, values[0] if values.size else 0, dtype=values.dtype)
        return "sparse", ids, values[: ids.size], int(ids.size)
    if exported["is_iso"]:
        values = np.full(size, values[0] if values.size else 0, dtype=values.dtype)
    if layout == "full":
        return "bitmap", values, np.ones(size, dtype=bool), size
    return "bitmap", values, exported["bitmap"], int(exported["nvals"])


def export_matrix(c: Any) -> tuple[Any, Any, Any]:
    """A ``graphblas.Matrix`` (given up) as sorted CSR ``(indptr, indices, values)``, int64
    indices."""
    exported = c.ss.export("csr", sort=True, give_ownership=True)
    indptr = exported["indptr"].view(np.int64)
    nvals = int(indptr[-1])
    indices = exported["col_indices"].view(np.int64)[:nvals]
    values = exported["values"]
    if exported["is_iso"]:
        values = np.full(nvals, values[0] if values.size else 0, dtype=values.dtype)
    return indptr, indices, values[:nvals]
