"""Plain-text edge lists: one ``src dst [weight]`` per line."""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

from .. import binary as _binary
from .. import dtypes as _dt
from ..backend import resolve
from ..containers.matrix import Matrix
from ..errors import InvalidObject, InvalidValue
from ..operators.classes import BinaryOp
from .matrixmarket import _check_path

__all__ = ["read_edge_list", "write_edge_list"]


def _data_lines(path: Any, delimiter: str | None, comments: str | None) -> list[tuple[int, list]]:
    """(1-based file line number, fields) of every data line; used only to explain errors."""
    found = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if comments:
                line = line.split(comments, 1)[0]
            fields = line.split(delimiter) if delimiter else line.split()
            fields = [f.strip() for f in fields]
            if fields and any(fields):
                found.append((number, fields))
    return found


def _explain(path: Any, delimiter: str | None, comments: str | None) -> str:
    """Where and why the file does not parse as a numeric table (the first bad line)."""
    lines = _data_lines(path, delimiter, comments)
    width = len(lines[0][1]) if lines else 0
    for number, fields in lines:
        if len(fields) != width:
            return f"line {number} has {len(fields)} fields but line {lines[0][0]} has {width}"
        for column, field in enumerate(fields, start=1):
            try:
                float(field)
            except ValueError:
                return f"line {number}, field {column}: {field!r} is not a number"
    return "unreadable"


def _load(path: Any, delimiter: str | None, comments: str | None) -> np.ndarray:
    """The numeric table of the file (rows = lines), as float64 of shape (lines, columns)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
            table = np.loadtxt(
                path, delimiter=delimiter, comments=comments, dtype=np.float64, ndmin=2
            )
    except ValueError as exc:
        where = _explain(path, delimiter, comments)
        raise InvalidValue(f"{os.fspath(path)}: malformed edge list: {where}") from exc
    return table


def read_edge_list(
    path: str | os.PathLike,
    *,
    delimiter: str | None = None,
    comments: str | None = "#",
    weighted: bool | None = None,
    nrows: int | None = None,
    dtype: Any = None,
    symmetric: bool = False,
    dup_op: BinaryOp | None = None,
    backend: str | None = None,
) -> Matrix:
    """Read a text edge list into a square adjacency matrix (rows = sources).

    Each non-comment line holds ``src dst`` or ``src dst weight``; vertex ids are
    non-negative integers.

    Parameters
    ----------
    path : str or os.PathLike
    delimiter : str, optional
        Default: any whitespace.
    comments : str, optional
        Lines (and line ends) starting with this are ignored.
    weighted : bool, optional
        Whether a third column holds weights. Default: weighted if the file has three columns.
        Unweighted edges get the value 1.
    nrows : int, optional
        Number of vertices. Default: one past the largest id.
    dtype : dtype, optional
        Default float64.
    symmetric : bool
        Also store every edge reversed (an undirected graph). An edge given in both directions
        then occurs twice; ``dup_op`` (default ``binary.any`` here) combines the two.
    dup_op : BinaryOp, optional
        Combines repeated edges; without it (and without ``symmetric``) repeats raise.
    backend : {'cpu', 'cuda'}, optional

    Returns
    -------
    Matrix
        ``nrows x nrows``.

    Raises
    ------
    InvalidValue
        For a malformed line (the message names the row and column), ids that are negative or
        not integers, a wrong number of columns, or repeated edges without ``dup_op``.
    IndexOutOfBounds
        If an id is ``>= nrows``.
    """
    _check_path(path)
    name = resolve(backend)
    target = _dt.lookup(dtype) if dtype is not None else np.dtype(np.float64)
    table = _load(path, delimiter, comments)
    if table.size == 0:  # no data lines
        table = np.zeros((0, 3 if weighted else 2))
    columns = table.shape[1]
    if weighted is None:
        weighted = columns == 3
    expected = 3 if weighted else 2
    if columns != expected:
        what = "src dst weight" if weighted else "src dst"
        raise InvalidValue(
            f"{os.fspath(path)}: line 1 of the data has {columns} fields but "
            f"{'weighted' if weighted else 'unweighted'} edges need {expected} "
            f"({what})"
        )
    ids = table[:, :2]
    bad = np.flatnonzero(((ids < 0) | (ids != np.floor(ids))).any(axis=1))
    if bad.size:
        row = int(bad[0])
        number = _data_lines(path, delimiter, comments)[row][0]
        raise InvalidValue(
            f"{os.fspath(path)}: line {number}: vertex ids must be non-negative "
            f"integers, got {table[row, 0]:g} {table[row, 1]:g}"
        )
    src = ids[:, 0].astype(np.int64)
    dst = ids[:, 1].astype(np.int64)
    values = table[:, 2].astype(target) if weighted else np.ones(src.size, dtype=target)
    if nrows is None:
        nrows = int(max(src.max(), dst.max())) + 1 if src.size else 0
    if symmetric:
        off = src != dst
        src, dst = np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]])
        values = np.concatenate([values, values[off]])
        if dup_op is None:
            dup_op = _binary["any"]
    return Matrix.from_coo(
        src, dst, values, nrows=nrows, ncols=nrows, dtype=target, dup_op=dup_op, backend=name
    )


def write_edge_list(
    path: str | os.PathLike,
    A: Matrix,  # noqa: N803
    *,
    weighted: bool | None = None,
    delimiter: str = " ",
) -> None:
    """Write the entries of ``A`` as ``src dst [weight]`` lines, in row-major order.

    Parameters
    ----------
    path : str or os.PathLike
    A : Matrix
    weighted : bool, optional
        Write the values as a third column. Default: yes, unless ``A`` is bool.
    delimiter : str
    """
    _check_path(path)
    if not isinstance(A, Matrix):
        raise InvalidObject(f"A must be a Matrix, got {type(A).__name__}")
    rows, cols, values = A.to_coo()
    if weighted is None:
        weighted = A.dtype != np.dtype(bool)
    if not weighted:
        np.savetxt(path, np.column_stack([rows, cols]), fmt="%d", delimiter=delimiter)
        return
    if A.dtype.kind == "f":
        # repr-exact floats; ids written as integers
        lines = np.char.add(
            np.char.add(rows.astype(str), delimiter),
            np.char.add(
                np.char.add(cols.astype(str), delimiter),
                np.char.mod("%.17g", values.astype(np.float64)),
            ),
        )
        np.savetxt(path, lines, fmt="%s")
    else:
        table = np.column_stack([rows, cols, values.astype(np.int64)])
        np.savetxt(path, table, fmt="%d", delimiter=delimiter)
