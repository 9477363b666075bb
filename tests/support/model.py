"""A plain, obviously-correct dense model of the GraphBLAS operations (small sizes only).

A vector is ``Vec(values, present)`` -- two 1-D NumPy arrays -- and a matrix ``Mat(values,
present)`` with 2-D arrays. Nothing here reads hyblas internals: from hyblas' operator objects
only their NumPy callables (``op.numpy``) and dtype rules (``input_type``, ``output_type``,
``identity``) are used. Loops are written out on purpose; clarity over speed.

The ``any`` monoid may return any of the values it reduces (GraphBLAS leaves the choice open),
so a reduction with it records the candidate values in ``cands`` and the comparison accepts any
of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Vec:
    values: np.ndarray
    present: np.ndarray
    cands: dict = field(default_factory=dict)  # index -> set of allowed values (any monoid)

    @classmethod
    def from_coo(cls, size: int, indices: Any, values: Any, dtype: Any) -> Vec:
        v = np.zeros(size, dtype=dtype)
        p = np.zeros(size, dtype=bool)
        for i, x in zip(indices, values):
            v[i], p[i] = x, True
        return cls(v, p)

    @classmethod
    def of(cls, data: Any) -> Vec:
        """From a ``strategies.VectorData``."""
        return cls.from_coo(data.size, data.indices, data.values, data.dtype)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    @property
    def shape(self) -> tuple[int]:
        return self.values.shape


@dataclass
class Mat:
    values: np.ndarray
    present: np.ndarray
    cands: dict = field(default_factory=dict)  # (i, j) -> set of allowed values

    @classmethod
    def from_coo(cls, nrows: int, ncols: int, rows: Any, cols: Any, values: Any, dtype: Any) -> Mat:
        v = np.zeros((nrows, ncols), dtype=dtype)
        p = np.zeros((nrows, ncols), dtype=bool)
        for i, j, x in zip(rows, cols, values):
            v[i, j], p[i, j] = x, True
        return cls(v, p)

    @classmethod
    def of(cls, data: Any) -> Mat:
        """From a ``strategies.MatrixData``."""
        return cls.from_coo(data.nrows, data.ncols, data.rows, data.cols, data.values, data.dtype)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape


def of(data: Any) -> Vec | Mat:
    return Vec.of(data) if hasattr(data, "indices") else Mat.of(data)


# --- scalar helpers -------------------------------------------------------------------------------


def call2(op: Any, x: Any, y: Any, dtype: Any, out_dtype: Any) -> Any:
    """``op(x, y)`` on one pair: both cast to ``dtype``, the result cast to ``out_dtype``."""
    with np.errstate(all="ignore"):
        r = op.numpy(np.array([x]).astype(dtype), np.array([y]).astype(dtype))
        return np.asarray(r).astype(out_dtype)[0]


def reduce_terms(monoid: Any, terms: list, dtype: Any) -> tuple[Any, set | None]:
    """Fold ``terms`` left to right with the monoid; (value as ``dtype``, candidates or None).

    The terms are first cast into the monoid's own domain (``lor`` works on bool, so the
    single term 3 reduces to True), folded there, and the result cast to ``dtype``.
    """
    dtype = np.dtype(dtype)
    domain = monoid.input_type(dtype)
    cast = [np.array([t]).astype(domain)[0] for t in terms]
    acc = cast[0]
    for t in cast[1:]:
        acc = call2(monoid.binaryop, acc, t, domain, domain)
    value = np.array([acc]).astype(dtype)[0]
    if monoid.name == "any":
        return value, {np.array([t]).astype(dtype).item() for t in cast}
    return value, None


def semiring_types(semiring: Any, *dtypes: Any) -> tuple[np.dtype, np.dtype]:
    op_t = semiring.input_type(*dtypes)
    return op_t, semiring.output_type(op_t)


# --- products -------------------------------------------------------------------------------------


def mxv(A: Mat, u: Vec, semiring: Any) -> Vec:  # noqa: N803
    """``t_i = add_j mult(A_ij, u_j)`` over j where both are present."""
    op_t, out_t = semiring_types(semiring, A.dtype, u.dtype)
    m, n = A.shape
    t = Vec(np.zeros(m, dtype=out_t), np.zeros(m, dtype=bool))
    for i in range(m):
        terms = [
            call2(semiring.binaryop, A.values[i, j], u.values[j], op_t, out_t)
            for j in range(n)
            if A.present[i, j] and u.present[j]
        ]
        if terms:
            t.values[i], c = reduce_terms(semiring.monoid, terms, out_t)
            t.present[i] = True
            if c is not None:
                t.cands[i] = c
    return t


def vxm(u: Vec, A: Mat, semiring: Any) -> Vec:  # noqa: N803
    """``t_j = add_i mult(u_i, A_ij)`` -- note the operand order of ``mult``."""
    op_t, out_t = semiring_types(semiring, u.dtype, A.dtype)
    m, n = A.shape
    t = Vec(np.zeros(n, dtype=out_t), np.zeros(n, dtype=bool))
    for j in range(n):
        terms = [
            call2(semiring.binaryop, u.values[i], A.values[i, j], op_t, out_t)
            for i in range(m)
            if A.present[i, j] and u.present[i]
        ]
        if terms:
            t.values[j], c = reduce_terms(semiring.monoid, terms, out_t)
            t.present[j] = True
            if c is not None:
                t.cands[j] = c
    return t


def mxm(A: Mat, B: Mat, semiring: Any) -> Mat:  # noqa: N803
    """``C_ij = add_k mult(A_ik, B_kj)``."""
    op_t, out_t = semiring_types(semiring, A.dtype, B.dtype)
    m, k = A.shape
    n = B.shape[1]
    c = Mat(np.zeros((m, n), dtype=out_t), np.zeros((m, n), dtype=bool))
    for i in range(m):
        for j in range(n):
            terms = [
                call2(semiring.binaryop, A.values[i, p], B.values[p, j], op_t, out_t)
                for p in range(k)
                if A.present[i, p] and B.present[p, j]
            ]
            if terms:
                c.values[i, j], cands = reduce_terms(semiring.monoid, terms, out_t)
                c.present[i, j] = True
                if cands is not None:
                    c.cands[(i, j)] = cands
    return c


# --- element-wise ---------------------------------------------------------------------------------


def _like(x: Vec | Mat, values: np.ndarray, present: np.ndarray) -> Vec | Mat:
    return type(x)(values, present)


def ewise_add(x: Vec | Mat, y: Vec | Mat, op: Any) -> Vec | Mat:
    """Union: ``op(x, y)`` where both are present, the lone value (cast) where one is."""
    op_t = op.input_type(x.dtype, y.dtype)
    out_t = op.output_type(op_t)
    values = np.zeros(x.shape, dtype=out_t)
    present = x.present | y.present
    for pos in np.ndindex(*x.shape):
        if x.present[pos] and y.present[pos]:
            values[pos] = call2(op, x.values[pos], y.values[pos], op_t, out_t)
        elif x.present[pos]:
            values[pos] = np.array([x.values[pos]]).astype(out_t)[0]
        elif y.present[pos]:
            values[pos] = np.array([y.values[pos]]).astype(out_t)[0]
    return _like(x, values, present)


def ewise_mult(x: Vec | Mat, y: Vec | Mat, op: Any) -> Vec | Mat:
    """Intersection: ``op(x, y)`` where both are present."""
    op_t = op.input_type(x.dtype, y.dtype)
    out_t = op.output_type(op_t)
    values = np.zeros(x.shape, dtype=out_t)
    present = x.present & y.present
    for pos in np.ndindex(*x.shape):
        if present[pos]:
            values[pos] = call2(op, x.values[pos], y.values[pos], op_t, out_t)
    return _like(x, values, present)


def apply_unary(x: Vec | Mat, op: Any) -> Vec | Mat:
    op_t = op.input_type(x.dtype)
    out_t = op.output_type(op_t)
    values = np.zeros(x.shape, dtype=out_t)
    for pos in np.ndindex(*x.shape):
        if x.present[pos]:
            with np.errstate(all="ignore"):
                r = op.numpy(np.array([x.values[pos]]).astype(op_t))
            values[pos] = np.asarray(r).astype(out_t)[0]
    return _like(x, values, x.present.copy())


def scalar_dtype(x_dtype: Any, scalar: Any) -> np.dtype:
    """The dtype a bound scalar counts as: a Python scalar is weak (NEP 50), a NumPy one not."""
    if isinstance(scalar, bool | int | float):
        return np.result_type(x_dtype, scalar)
    return np.asarray(scalar).dtype


def apply_binary(x: Vec | Mat, op: Any, *, left: Any = None, right: Any = None) -> Vec | Mat:
    """``op(left, x)`` or ``op(x, right)`` on every entry; a Python scalar is weak (NEP 50:
    int32 with 1 stays int32), a NumPy scalar keeps its dtype."""
    scalar = left if left is not None else right
    op_t = op.input_type(x.dtype, scalar_dtype(x.dtype, scalar))
    out_t = op.output_type(op_t)
    values = np.zeros(x.shape, dtype=out_t)
    for pos in np.ndindex(*x.shape):
        if x.present[pos]:
            a, b = (scalar, x.values[pos]) if left is not None else (x.values[pos], scalar)
            values[pos] = call2(op, a, b, op_t, out_t)
    return _like(x, values, x.present.copy())


# select: my own table of the index-unary tests (value, row, col, thunk) -> keep
SELECT_TESTS = {
    "tril": lambda x, i, j, k: j <= i + k,
    "triu": lambda x, i, j, k: j >= i + k,
    "diag": lambda x, i, j, k: j == i + k,
    "offdiag": lambda x, i, j, k: j != i + k,
    "rowle": lambda x, i, j, k: i <= k,
    "rowgt": lambda x, i, j, k: i > k,
    "colle": lambda x, i, j, k: j <= k,
    "colgt": lambda x, i, j, k: j > k,
    "valueeq": lambda x, i, j, k: x == k,
    "valuene": lambda x, i, j, k: x != k,
    "valuelt": lambda x, i, j, k: x < k,
    "valuele": lambda x, i, j, k: x <= k,
    "valuegt": lambda x, i, j, k: x > k,
    "valuege": lambda x, i, j, k: x >= k,
}


def select(x: Vec | Mat, name: str, thunk: Any) -> Vec | Mat:
    test = SELECT_TESTS[name]
    present = np.zeros(x.shape, dtype=bool)
    for pos in np.ndindex(*x.shape):
        i, j = (pos[0], 0) if len(pos) == 1 else pos
        present[pos] = bool(x.present[pos] and test(x.values[pos], i, j, thunk))
    values = np.where(present, x.values, np.zeros_like(x.values))
    return _like(x, values, present)


# --- reductions -----------------------------------------------------------------------------------


def _monoid_types(monoid: Any, dtype: Any) -> tuple[np.dtype, np.dtype]:
    op_t = monoid.input_type(dtype)
    return op_t, monoid.binaryop.output_type(op_t)


def reduce_rows(A: Mat, monoid: Any) -> Vec:  # noqa: N803
    op_t, out_t = _monoid_types(monoid, A.dtype)
    m, n = A.shape
    w = Vec(np.zeros(m, dtype=out_t), np.zeros(m, dtype=bool))
    for i in range(m):
        terms = [np.array([A.values[i, j]]).astype(op_t)[0] for j in range(n) if A.present[i, j]]
        if terms:
            w.values[i], c = reduce_terms(monoid, terms, out_t)
            w.present[i] = True
            if c is not None:
                w.cands[i] = c
    return w


def reduce_columns(A: Mat, monoid: Any) -> Vec:  # noqa: N803
    return reduce_rows(transpose(A), monoid)


def reduce_scalar(x: Vec | Mat, monoid: Any) -> tuple[Any, set | None]:
    """(value, candidates-or-None); the identity when ``x`` has no entries."""
    op_t, out_t = _monoid_types(monoid, x.dtype)
    terms = [
        np.array([x.values[pos]]).astype(op_t)[0] for pos in np.ndindex(*x.shape) if x.present[pos]
    ]
    if not terms:
        return monoid.identity(out_t), None
    return reduce_terms(monoid, terms, out_t)


def inner(u: Vec, v: Vec, semiring: Any) -> tuple[Any, set | None]:
    """(value, candidates-or-None) of ``add_i mult(u_i, v_i)`` over i where both are present;
    the identity where none is."""
    op_t, out_t = semiring_types(semiring, u.dtype, v.dtype)
    terms = [
        call2(semiring.binaryop, u.values[i], v.values[i], op_t, out_t)
        for i in range(u.values.size)
        if u.present[i] and v.present[i]
    ]
    if not terms:
        return semiring.monoid.identity(out_t), None
    return reduce_terms(semiring.monoid, terms, out_t)


# --- structure ------------------------------------------------------------------------------------


def transpose(A: Mat) -> Mat:  # noqa: N803
    return Mat(A.values.T.copy(), A.present.T.copy(), {(j, i): c for (i, j), c in A.cands.items()})


def extract_vector(u: Vec, idx: np.ndarray) -> Vec:
    return Vec(u.values[idx].copy(), u.present[idx].copy())


def extract_matrix(A: Mat, rows: np.ndarray, cols: np.ndarray) -> Mat:  # noqa: N803
    return Mat(A.values[np.ix_(rows, cols)].copy(), A.present[np.ix_(rows, cols)].copy())


def assign_region(w: Vec | Mat, region: tuple, value: Vec | Mat | Any, accum: Any) -> Vec | Mat:
    """``Z`` of GrB_assign before the mask: ``w`` with the region overwritten by ``value``.

    ``region`` is a tuple of position arrays (one per dimension; for a matrix the region is
    their cross product). Without ``accum``, region positions where ``value`` has no entry
    lose their entry; with it, ``accum(w, value)`` where both, either one where one is.
    """
    z = type(w)(w.values.copy(), w.present.copy())
    region_shape = tuple(len(r) for r in region)
    if isinstance(value, Vec | Mat):
        val_values = value.values.reshape(region_shape)
        val_present = value.present.reshape(region_shape)
    else:  # a scalar fills the whole region
        val_values = np.full(region_shape, value, dtype=np.asarray(value).dtype)
        val_present = np.ones(region_shape, dtype=bool)
    for local in np.ndindex(*region_shape):
        pos = tuple(int(r[k]) for r, k in zip(region, local))
        has_w, has_t = w.present[pos], val_present[local]
        if accum is not None and has_w and has_t:
            op_t = accum.input_type(w.dtype, val_values.dtype)
            z.values[pos] = call2(accum, w.values[pos], val_values[local], op_t, w.dtype)
        elif has_t:
            z.values[pos] = np.array([val_values[local]]).astype(w.dtype)[0]
            z.present[pos] = True
        elif accum is None:  # no value here: the entry is deleted
            z.present[pos] = False
    return z


# --- the write-back (GraphBLAS C API 2.0, section "masks and accumulation") -----------------------


def mask_allows(mask: Vec | Mat | None, kind: str, shape: tuple) -> np.ndarray:
    """Where the mask lets the result through: value = present and != 0, structural = present."""
    if kind == "none":
        return np.ones(shape, dtype=bool)
    structural = kind.endswith("structural")
    allowed = mask.present.copy() if structural else mask.present & (mask.values != 0)
    return ~allowed if kind.startswith("~") else allowed


def write(
    w: Vec | Mat | None,
    t: Vec | Mat,
    *,
    mask: Any = None,
    mask_kind: str = "none",
    accum: Any = None,
    replace: bool = False,
) -> Vec | Mat:
    """The output after ``w<mask, replace> accum= t``; ``w`` None means a new object."""
    allowed = mask_allows(mask, mask_kind, t.shape)
    if w is None:  # a fresh output: just the result where the mask allows it
        present = t.present & allowed
        cands = {k: c for k, c in t.cands.items() if present[k]}
        return type(t)(np.where(present, t.values, np.zeros_like(t.values)), present, cands)
    # 1. Z = T, or Z = w ∪ T with accum(w, t) where both exist
    z_values = np.zeros(w.shape, dtype=w.dtype)
    z_present = np.zeros(w.shape, dtype=bool)
    z_cands = {}
    for pos in np.ndindex(*w.shape):
        has_w, has_t = w.present[pos], t.present[pos]
        if accum is not None and has_w and has_t:
            op_t = accum.input_type(w.dtype, t.dtype)
            z_values[pos] = call2(accum, w.values[pos], t.values[pos], op_t, w.dtype)
            z_present[pos] = True
        elif has_t:
            z_values[pos] = np.array([t.values[pos]]).astype(w.dtype)[0]
            z_present[pos] = True
            key = pos[0] if len(pos) == 1 else pos
            if key in t.cands:
                z_cands[key] = {np.array([c]).astype(w.dtype).item() for c in t.cands[key]}
        elif accum is not None and has_w:
            z_values[pos] = w.values[pos]
            z_present[pos] = True
    # 2. where the mask allows, w = Z; elsewhere w keeps its entry unless replace
    values = np.zeros(w.shape, dtype=w.dtype)
    present = np.zeros(w.shape, dtype=bool)
    cands = {}
    for pos in np.ndindex(*w.shape):
        key = pos[0] if len(pos) == 1 else pos
        if allowed[pos]:
            values[pos], present[pos] = z_values[pos], z_present[pos]
            if key in z_cands and present[pos]:
                cands[key] = z_cands[key]
        elif not replace and w.present[pos]:
            values[pos], present[pos] = w.values[pos], True
    return type(w)(values, present, cands)
