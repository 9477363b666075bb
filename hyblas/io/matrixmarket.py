"""Matrix Market files through scipy.io.mmread / mmwrite."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..containers.arguments import cast_values
from ..containers.matrix import Matrix
from ..errors import DomainMismatch, InvalidObject, InvalidValue
from .paths import os_errors_named, readable_file, writable_file

__all__ = ["read_matrix_market", "write_matrix_market"]

_BANNER = "%%matrixmarket"


def _check_banner(path: str) -> None:
    """Check line 1 (cheap, and scipy's own message does not name the line)."""
    with os_errors_named(path), open(path, "rb") as handle:
        first = handle.readline(256).decode("ascii", errors="replace").strip()
    if not first.lower().startswith(_BANNER):
        raise InvalidValue(f"{path}: line 1 must start with '%%MatrixMarket', got {first[:60]!r}")
    fields = first.split()
    if len(fields) != 5:
        raise InvalidValue(
            f"{path}: line 1 must read '%%MatrixMarket matrix "
            f"<format> <field> <symmetry>', got {first[:80]!r}"
        )
    if fields[3].lower() == "complex":
        raise DomainMismatch(
            f"{path}: line 1 declares field 'complex'; hyblas stores no complex values"
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
        If the file is not well-formed Matrix Market (the message says what is wrong), holds
        a value ``dtype`` cannot hold (e.g. 1.5 read as an integer type), or ``path`` names
        no readable file (a missing directory or file, a file where a directory should be, a
        directory, no read permission).
    DomainMismatch
        For a complex file, or a ``dtype`` hyblas does not store.
    InvalidObject
        If ``path`` is not a path.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> text = "%%MatrixMarket matrix coordinate real general\\n2 2 2\\n1 2 1.5\\n2 1 -1\\n"
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "A.mtx"
    ...     _ = path.write_text(text)
    ...     A = hb.io.read_matrix_market(path)
    >>> A.to_coo()  # Matrix Market counts from 1, hyblas from 0
    (array([0, 1]), array([1, 0]), array([ 1.5, -1. ]))
    """
    import scipy.io  # noqa: PLC0415 - scipy is only needed for file interop
    import scipy.sparse as sp  # noqa: PLC0415

    name = readable_file(path)
    target = None if dtype is None else _dt.lookup(dtype)
    _check_banner(name)
    try:
        with os_errors_named(name):
            _rows, _cols, _entries, fmt, field, _symmetry = scipy.io.mminfo(name)
            data = scipy.io.mmread(name)
    except (ValueError, IndexError, TypeError, OverflowError) as exc:
        if isinstance(exc, InvalidValue):
            raise
        raise InvalidValue(f"{name}: malformed Matrix Market file: {exc}") from exc
    if field == "pattern":
        target = target if target is not None else np.dtype(bool)
    elif target is None:
        target = np.dtype(np.int64) if field == "integer" else np.dtype(np.float64)
    what = f"{name}: the values"
    if not sp.issparse(data):  # 'array' format: every element is an entry
        dense = np.asarray(data)
        dense = cast_values(np, dense.ravel(), target, what).reshape(dense.shape)
        return Matrix.from_dense(dense, backend=backend)
    coo = sp.coo_array(data)
    return Matrix.from_coo(
        coo.row,
        coo.col,
        cast_values(np, coo.data, target, what),
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
    """Write ``A`` as a Matrix Market coordinate file, every stored entry (explicit zeros
    and False included) read back by :func:`read_matrix_market`.

    The file is ``symmetric`` (its lower triangle written, expanded back when read) only when
    ``A`` stores the same entries at ``(i, j)`` and ``(j, i)`` with the same values, bit for
    bit; else ``general``. (scipy's own test compares values alone, taking a stored zero for
    an absent entry, and dropped entries.) A bool matrix all of whose entries are True is a
    ``pattern`` file; one that stores a False an ``integer`` file of 0 and 1 (read it back
    with ``dtype=bool``).

    Parameters
    ----------
    path : str or os.PathLike
    A : Matrix
    comment : str
        Written as ``%`` comment lines after the banner.

    Raises
    ------
    InvalidObject
        If ``path`` is not a path, ``A`` not a Matrix or ``comment`` not a str.
    InvalidValue
        If no file may be written at ``path`` (a missing directory, a file where a directory
        should be, a directory, no write permission), checked before anything is written; or
        for uint64 values above the int64 range (Matrix Market integers are read as int64).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> A = hb.Matrix.from_coo([0, 1], [1, 0], [1.5, -1.0])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "A.mtx"
    ...     hb.io.write_matrix_market(path, A)
    ...     print(hb.io.read_matrix_market(path).isequal(A))
    True
    """
    import scipy.io  # noqa: PLC0415

    name = writable_file(path)
    if not isinstance(A, Matrix):
        raise InvalidObject(f"A must be a Matrix, got {type(A).__name__}")
    if not isinstance(comment, str):
        raise InvalidObject(f"comment must be a str, got {type(comment).__name__}")
    csr = A.to_scipy()
    options: dict[str, Any] = {"comment": comment, "symmetry": _symmetry(csr)}
    if A.dtype == np.dtype(bool):
        csr, options["field"] = csr.astype(np.int8), "pattern" if csr.data.all() else "integer"
    elif A.dtype.kind in "iu":
        cast_values(np, csr.data, np.dtype(np.int64), "A's values (written as int64)")
        csr, options["field"] = csr.astype(np.int64), "integer"
    else:
        options.update(field="real", precision=17)
    with os_errors_named(name):
        scipy.io.mmwrite(name, csr.tocoo(), **options)
    if not os.path.isfile(name):  # scipy's writer may fail without a word
        raise InvalidValue(f"path {name!r}: the Matrix Market file was not written")


def _symmetry(csr: Any) -> str:
    """'symmetric' if the canonical CSR matrix ``csr`` stores the same entries as its
    transpose, with the same values bit for bit (a stored zero is no absent entry, -0.0 no
    0.0); else 'general'."""
    if csr.shape[0] != csr.shape[1]:
        return "general"
    transpose = csr.T.tocsr()  # canonical too: sorted, no duplicates, zeros kept
    transpose.sort_indices()
    same = (
        np.array_equal(csr.indptr, transpose.indptr)
        and np.array_equal(csr.indices, transpose.indices)
        and csr.data.tobytes() == transpose.data.tobytes()
    )
    return "symmetric" if same else "general"
