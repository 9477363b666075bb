"""Plain-text edge lists: one ``src dst [weight]`` per line."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .. import binary as _binary
from .. import dtypes as _dt
from ..backend import resolve
from ..containers.arguments import check_dup_op
from ..containers.matrix import Matrix
from ..errors import InvalidObject, InvalidValue
from ..operators.classes import BinaryOp
from .paths import os_errors_named, readable_file, writable_file

__all__ = ["read_edge_list", "write_edge_list"]

_INT64_MAX = int(np.iinfo(np.int64).max)
_EXACT_FLOAT_IDS = 2**53  # a whole float id below this is the integer it looks like


def _fields(line: str, delimiter: str | None, comments: str | None) -> list[str]:
    """The fields of one line (none for a blank or comment line)."""
    if comments:
        line = line.split(comments, 1)[0]
    fields = [f.strip() for f in (line.split(delimiter) if delimiter else line.split())]
    return fields if fields and any(fields) else []


def _data_lines(path: str, delimiter: str | None, comments: str | None) -> list[tuple[int, list]]:
    """(1-based file line number, fields) of every data line; used only to explain errors."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        found = [(n, _fields(line, delimiter, comments)) for n, line in enumerate(handle, 1)]
    return [(number, fields) for number, fields in found if fields]


def _first_width(path: str, delimiter: str | None, comments: str | None) -> int:
    """The number of fields of the first data line (0 for a file without data)."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            fields = _fields(line, delimiter, comments)
            if fields:
                return len(fields)
    return 0


def _line_of(path: str, delimiter: str | None, comments: str | None, row: int) -> str:
    """'line N' of the ``row``-th data line, and its text."""
    number, fields = _data_lines(path, delimiter, comments)[row]
    return f"line {number} ({' '.join(fields)})"


def _field_problem(field: str, column: int, weights: np.dtype) -> str | None:
    """What is wrong with one field (None: nothing, or an id written as a whole float)."""
    try:
        value = int(field)
    except ValueError:
        try:
            number = float(field)
        except ValueError:
            return f"{field!r} is not a number"
        if column <= 2:
            whole = np.isfinite(number) and number == int(number) and number >= 0
            return None if whole else "vertex ids must be non-negative integers"
        if weights.kind in "iu":
            return f"the weight {field} is not an integer, which {weights.name} weights must be"
        return None
    if column <= 2 and value > _INT64_MAX:
        return f"the vertex id {field} is beyond int64"
    if column == 3 and weights.kind in "iu":
        info = np.iinfo(weights)
        if not info.min <= value <= info.max:
            return (
                f"the weight {field} is outside the range [{info.min}, {info.max}] of "
                f"{weights.name}"
            )
    return None


def _explain(path: str, delimiter: str | None, comments: str | None, weights: np.dtype) -> str:
    """Where and why the file does not parse (the first bad line), or '' when the only thing
    in the way is ids written as whole floats."""
    lines = _data_lines(path, delimiter, comments)
    width = len(lines[0][1]) if lines else 0
    for number, fields in lines:
        if len(fields) != width:
            return f"line {number} has {len(fields)} fields but line {lines[0][0]} has {width}"
        for column, field in enumerate(fields, start=1):
            problem = _field_problem(field, column, weights)
            if problem is not None and problem.startswith("vertex ids"):
                return f"line {number}: {problem}, got {' '.join(fields[:2])}"
            if problem is not None:
                return f"line {number}, field {column}: {problem}"
    return ""


def _load(
    path: str, delimiter: str | None, comments: str | None, width: int, weights: np.dtype
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(src, dst, weights or None): the ids as int64 and the weights as ``weights``, each
    parsed exactly from its text (an integer is never read through a float)."""
    fields = [("src", np.int64), ("dst", np.int64), ("weight", weights)][:width]
    options = {"delimiter": delimiter, "comments": comments, "ndmin": 1}
    try:
        with os_errors_named(path):
            table = np.loadtxt(path, dtype=fields, **options)
    except InvalidValue:
        raise
    except ValueError as exc:
        where = _explain(path, delimiter, comments, weights)
        if where:
            raise InvalidValue(f"{path}: malformed edge list: {where}") from exc
        # only ids written as whole floats ('3.0') are in the way: read them as floats
        float_ids = [("src", np.float64), ("dst", np.float64), *fields[2:]]
        table = _whole_float_ids(path, delimiter, comments, float_ids, options)
    src, dst = table["src"].astype(np.int64), table["dst"].astype(np.int64)
    return src, dst, (table["weight"] if width == 3 else None)


def _whole_float_ids(
    path: str, delimiter: str | None, comments: str | None, fields: list, options: dict
) -> np.ndarray:
    """The table with the ids read as floats, each whole and small enough to be exact."""
    try:
        table = np.loadtxt(path, dtype=fields, **options)
    except ValueError as exc:
        raise InvalidValue(f"{path}: malformed edge list: {exc}") from exc
    for end in ("src", "dst"):
        big = np.flatnonzero(table[end] >= _EXACT_FLOAT_IDS)
        if big.size:
            where = _line_of(path, delimiter, comments, int(big[0]))
            raise InvalidValue(
                f"{path}: {where}: the vertex id {table[end][big[0]]:.17g} is a float too "
                "large to be exact; write ids as integers"
            )
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
        Default float64. Integer weights are read exactly (never through a float); each must
        be an integer in the range of ``dtype``.
    symmetric : bool
        Also store every edge reversed (an undirected graph). An edge given in both directions
        then occurs twice; ``dup_op`` (default ``binary.any`` here) combines the two.
    dup_op : BinaryOp, optional
        Combines repeated edges; without it (and without ``symmetric``) repeats raise. It must
        take and give ``dtype`` (checked before the file is read).
    backend : {'cpu', 'cuda'}, optional

    Returns
    -------
    Matrix
        ``nrows x nrows``.

    Raises
    ------
    InvalidValue
        For a malformed line (the message names the line and field), ids that are negative or
        not integers, a wrong number of columns, repeated edges without ``dup_op``, a weight
        ``dtype`` cannot hold (not an integer of an integer ``dtype``, outside its range, or a
        finite value overflowing a float one), or a ``path`` that names no readable file.
    IndexOutOfBounds
        If an id is ``>= nrows``.
    InvalidObject, DomainMismatch
        For a ``dup_op`` that is not a BinaryOp, or does not take and give ``dtype``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "edges.txt"
    ...     _ = path.write_text("# src dst weight\\n0 1 2.5\\n1 2 1.0\\n")
    ...     A = hb.io.read_edge_list(path)
    >>> A.shape, A.to_coo()
    ((3, 3), (array([0, 1]), array([1, 2]), array([2.5, 1. ])))
    """
    name = readable_file(path)
    for argument, text in (("delimiter", delimiter), ("comments", comments)):
        if text is not None and (not isinstance(text, str) or not text):
            raise InvalidObject(f"{argument} must be a non-empty str or None, got {text!r}")
    if weighted is not None and not isinstance(weighted, bool | np.bool_):
        raise InvalidObject(f"weighted must be a bool or None, got {weighted!r}")
    target = _dt.lookup(dtype) if dtype is not None else np.dtype(np.float64)
    check_dup_op(dup_op, target)  # before the file is read
    resolved = resolve(backend)
    src, dst, values = load_edges(name, delimiter, comments, weighted, target)
    if nrows is None:
        nrows = int(max(src.max(), dst.max())) + 1 if src.size else 0
    if symmetric:
        off = src != dst
        src, dst = np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]])
        values = np.concatenate([values, values[off]])
        if dup_op is None:
            dup_op = _binary["any"]
    return Matrix.from_coo(
        src, dst, values, nrows=nrows, ncols=nrows, dtype=target, dup_op=dup_op, backend=resolved
    )


def _weights_as(
    path: str,
    delimiter: str | None,
    comments: str | None,
    weights: np.ndarray | None,
    target: np.dtype,
    count: int,
) -> np.ndarray:
    """The weights as ``target`` (ones without weights); InvalidValue naming the line of a
    finite weight that overflows a float ``target``."""
    if weights is None:
        return np.ones(count, dtype=target)
    with np.errstate(over="ignore"):  # an overflow is reported below, with its line
        values = weights.astype(target)
    if target.kind == "f":
        overflow = np.flatnonzero(np.isinf(values) & np.isfinite(weights))
        if overflow.size:
            where = _line_of(path, delimiter, comments, int(overflow[0]))
            raise InvalidValue(
                f"{path}: {where}: the weight {float(weights[overflow[0]])!r} overflows "
                f"{target.name}"
            )
    return values


def write_edge_list(
    path: str | os.PathLike,
    A: Matrix,  # noqa: N803
    *,
    weighted: bool | None = None,
    delimiter: str = " ",
) -> None:
    """Write the entries of ``A`` as ``src dst [weight]`` lines, in row-major order.

    Integers are written exactly (every integer type); floats with 17 significant digits.

    Parameters
    ----------
    path : str or os.PathLike
    A : Matrix
    weighted : bool, optional
        Write the values as a third column. Default: yes, unless ``A`` is bool and stores only
        True (a stored False is written as a 0 weight, so that reading it back with
        ``dtype=bool`` keeps it).
    delimiter : str

    Raises
    ------
    InvalidObject
        If ``path`` is not a path, ``A`` not a Matrix, or ``weighted`` / ``delimiter`` of the
        wrong type.
    InvalidValue
        If no file may be written at ``path`` (a missing directory, a file where a directory
        should be, a directory, no write permission), checked before anything is written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> A = hb.Matrix.from_coo([0, 1], [1, 2], [2.5, 1.0])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "edges.txt"
    ...     hb.io.write_edge_list(path, A)
    ...     print(path.read_text(), end="")
    0 1 2.5
    1 2 1
    """
    name = writable_file(path)
    if not isinstance(A, Matrix):
        raise InvalidObject(f"A must be a Matrix, got {type(A).__name__}")
    if weighted is not None and not isinstance(weighted, bool | np.bool_):
        raise InvalidObject(f"weighted must be a bool or None, got {weighted!r}")
    if not isinstance(delimiter, str) or not delimiter:
        raise InvalidObject(f"delimiter must be a non-empty str, got {delimiter!r}")
    rows, cols, values = A.to_coo()
    if weighted is None:
        weighted = A.dtype != np.dtype(bool) or not bool(values.all())
    lines = np.char.add(np.char.add(rows.astype(str), delimiter), cols.astype(str))
    if weighted:
        if A.dtype.kind == "f":  # repr-exact floats
            text = np.char.mod("%.17g", values.astype(np.float64))
        else:  # integers as they are (bool as 0 / 1)
            text = values.astype(np.int8 if A.dtype.kind == "b" else A.dtype).astype(str)
        lines = np.char.add(np.char.add(lines, delimiter), text)
    with os_errors_named(name):
        np.savetxt(name, lines, fmt="%s")


def load_edges(
    name: str, delimiter: str | None, comments: str | None, weighted: bool | None, target: np.dtype
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(src, dst, values)`` of the edge list at ``name`` (a checked path): the ids as
    non-negative int64, the values as ``target`` (ones without a weight column), each parsed
    exactly; InvalidValue naming the line of anything malformed."""
    with os_errors_named(name):
        columns = _first_width(name, delimiter, comments)
    if weighted is None:
        weighted = columns == 3
    expected = 3 if weighted else 2
    if columns not in (0, expected):
        what = "src dst weight" if weighted else "src dst"
        raise InvalidValue(
            f"{name}: line 1 of the data has {columns} fields but "
            f"{'weighted' if weighted else 'unweighted'} edges need {expected} ({what})"
        )
    parsed = target if target.kind in "iu" else np.dtype(np.float64)
    if columns:
        src, dst, weights = _load(name, delimiter, comments, expected, parsed)
    else:
        src = dst = np.zeros(0, dtype=np.int64)
        weights = np.zeros(0, dtype=parsed) if weighted else None
    bad = np.flatnonzero((src < 0) | (dst < 0))
    if bad.size:
        row = int(bad[0])
        number = _data_lines(name, delimiter, comments)[row][0]
        raise InvalidValue(
            f"{name}: line {number}: vertex ids must be non-negative integers, "
            f"got {src[row]} {dst[row]}"
        )
    values = _weights_as(name, delimiter, comments, weights, target, src.size)
    return src, dst, values
