"""Matrix Market files through scipy.io.mmread / mmwrite."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..containers.matrix import Matrix
from ..errors import DomainMismatch, InvalidObject, InvalidValue

__all__ = ["read_matrix_market", "write_matrix_market"]

_BANNER = "%%matrixmarket"


def _check_path(path: Any, argument: str = "path") -> str | os.PathLike:
    if not isinstance(path, str | os.PathLike):
        raise InvalidObject(f"{argument} must be a str or os.PathLike, got {type(path).__name__}")
    return path


def _check_banner(path: str | os.PathLike) -> None:
    """Check line 1 (cheap, and scipy's own message does not name the line)."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(256).decode("ascii", errors="replace").strip()
    except IsADirectoryError as exc:
        raise InvalidValue(f"{os.fspath(path)!r} is a directory, not a Matrix Market file") from exc
    if not first.lower().startswith(_BANNER):
        raise InvalidValue(
            f"{os.fspath(path)}: line 1 must start with '%%MatrixMarket', got {first[:60]!r}"
        )
    fields = first.split()
    if len(fields) != 5:
        raise InvalidValue(
            f"{os.fspath(path)}: line 1 must read '%%MatrixMarket matrix "
            f"<format> <field> <symmetry>', got {first[:80]!r}"
        )
    if fields[3].lower() == "complex":
        raise DomainMismatch(
            f"{os.fspath(path)}: line 1 declares field 'complex'; hyblas stores no complex values"
        )


def read_matrix_market(
    path: str | os.PathLike, *, dtype: Any = None, backend: str | None = None
) -> Matrix:
    """Read a Matrix Market file (``.mtx``) into a Matrix.

    Symmetric, skew-symmetric and Hermitian files are expanded to both triangles. Pattern files
    (no values) give ``True`` entries (bool), or ones of ``dtype``. Dense ``array`` files give
    a matrix with every element stored.

    Parameters
    ----------
    path : str or os.PathLike
    dtype : dtype, optional
        Default: float64 for ``real``, int64 for ``integer``, bool for ``pattern``.
    backend : {'cpu', 'cuda'}, optional

    Returns
    -------
    Matrix

    Raises
    ------
    InvalidValue
        If the file is not well-formed Matrix Market (the message says what is wrong).
    DomainMismatch
        For a complex file, or a ``dtype`` hyblas does not store.
    InvalidObject
        If ``path`` is not a path.
    """
    import scipy.io  # noqa: PLC0415 - scipy is only needed for file interop
    import scipy.sparse as sp  # noqa: PLC0415

    _check_path(path)
    _check_banner(path)
    target = None if dtype is None else _dt.lookup(dtype)
    try:
        _rows, _cols, _entries, fmt, field, _symmetry = scipy.io.mminfo(path)
        data = scipy.io.mmread(path)
    except (ValueError, IndexError, TypeError, OverflowError) as exc:
        raise InvalidValue(f"{os.fspath(path)}: malformed Matrix Market file: {exc}") from exc
    if field == "pattern":
        target = target if target is not None else np.dtype(bool)
    elif target is None:
        target = np.dtype(np.int64) if field == "integer" else np.dtype(np.float64)
    if not sp.issparse(data):  # 'array' format: every element is an entry
        return Matrix.from_dense(np.asarray(data).astype(target), backend=backend)
    coo = sp.coo_array(data)
    return Matrix.from_coo(
        coo.row,
        coo.col,
        coo.data.astype(target),
        nrows=coo.shape[0],
        ncols=coo.shape[1],
        dtype=target,
        backend=backend,
    )


def write_matrix_market(
    path: str | os.PathLike,
    A: Matrix,
    *,
    comment: str = "",  # noqa: N803
) -> None:
    """Write ``A`` as a Matrix Market coordinate file.

    A bool matrix is written as a ``pattern`` file; a symmetric matrix is detected and only
    its lower triangle written (scipy's rule), which :func:`read_matrix_market` expands back.

    Parameters
    ----------
    path : str or os.PathLike
    A : Matrix
    comment : str
        Written as ``%`` comment lines after the banner.
    """
    import scipy.io  # noqa: PLC0415

    _check_path(path)
    if not isinstance(A, Matrix):
        raise InvalidObject(f"A must be a Matrix, got {type(A).__name__}")
    csr = A.to_scipy()
    if A.dtype == np.dtype(bool):
        scipy.io.mmwrite(path, csr.astype(np.int8).tocoo(), comment=comment, field="pattern")
    elif A.dtype.kind in "iu":
        scipy.io.mmwrite(path, csr.astype(np.int64).tocoo(), comment=comment, field="integer")
    else:
        scipy.io.mmwrite(path, csr.tocoo(), comment=comment, field="real", precision=17)
