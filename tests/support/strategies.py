"""Hypothesis strategies: COO triplets that feed both the NumPy model and hyblas.

Everything an operation test needs is drawn here: shapes (0 and 1 included), sparsity, dtypes,
values small enough that every sum and product is exact in float32 (small integers and halves),
and the GraphBLAS write controls (mask kind, accum, replace, an existing ``out``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

import hyblas as hb

DTYPES = tuple(np.dtype(d) for d in ("bool", "int32", "int64", "float32", "float64"))
MASK_KINDS = ("none", "value", "structural", "~value", "~structural")
# Accumulators: deterministic binary operators (GrB_ANY may pick either operand, so not here).
ACCUM_NAMES = ("plus", "times", "min", "max", "minus", "first", "second", "lor", "land")

MAX_DIM = 6

dtypes = st.sampled_from(DTYPES)
dims = st.integers(0, MAX_DIM)  # 0 and 1 are in range and hypothesis shrinks towards them


def values_of(dtype: np.dtype) -> st.SearchStrategy[Any]:
    """Small exact values of ``dtype``: bools, ints in -3..3, halves in -3..3 for floats."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        return st.integers(-3 if dtype.kind == "i" else 0, 3)
    return st.integers(-6, 6).map(lambda k: k / 2)


@dataclass(frozen=True)
class MatrixData:
    """COO triplets of a matrix (no repeated cells) with its shape and dtype."""

    nrows: int
    ncols: int
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return (self.nrows, self.ncols)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    def hyblas(self, backend: str) -> hb.Matrix:
        return hb.Matrix.from_coo(
            self.rows,
            self.cols,
            self.values,
            nrows=self.nrows,
            ncols=self.ncols,
            dtype=self.dtype,
            backend=backend,
        )


@dataclass(frozen=True)
class VectorData:
    """COO pairs of a vector (no repeated index) with its size and dtype."""

    size: int
    indices: np.ndarray
    values: np.ndarray

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    def hyblas(self, backend: str) -> hb.Vector:
        return hb.Vector.from_coo(
            self.indices, self.values, size=self.size, dtype=self.dtype, backend=backend
        )


@st.composite
def matrices(
    draw: Any, nrows: int | None = None, ncols: int | None = None, dtype: Any = None
) -> MatrixData:
    """A random sparse matrix: any shape (0 included), any density from empty to full."""
    nrows = draw(dims) if nrows is None else nrows
    ncols = draw(dims) if ncols is None else ncols
    dtype = draw(dtypes) if dtype is None else np.dtype(dtype)
    cells = [(i, j) for i in range(nrows) for j in range(ncols)]
    chosen = draw(
        st.lists(st.sampled_from(cells), unique=True, max_size=len(cells)) if cells else st.just([])
    )
    chosen.sort()
    vals = [draw(values_of(dtype)) for _ in chosen]
    return MatrixData(
        nrows,
        ncols,
        np.array([c[0] for c in chosen], dtype=np.int64),
        np.array([c[1] for c in chosen], dtype=np.int64),
        np.array(vals, dtype=dtype),
    )


@st.composite
def vectors(
    draw: Any, size: int | None = None, dtype: Any = None, max_entries: int | None = None
) -> VectorData:
    """A random sparse vector: any size (0 included), empty to full, dense enough at times to
    be stored as a bitmap; at most ``max_entries`` entries if given."""
    size = draw(dims) if size is None else size
    dtype = draw(dtypes) if dtype is None else np.dtype(dtype)
    most = size if max_entries is None else min(size, max_entries)
    idx = sorted(draw(st.sets(st.integers(0, size - 1), max_size=most)) if size else [])
    vals = [draw(values_of(dtype)) for _ in idx]
    return VectorData(size, np.array(idx, dtype=np.int64), np.array(vals, dtype=dtype))


def like(data: MatrixData | VectorData, dtype: Any = None) -> st.SearchStrategy[Any]:
    """Random content shaped like ``data`` (for masks and outputs)."""
    if isinstance(data, VectorData):
        return vectors(size=data.size, dtype=dtype)
    return matrices(nrows=data.nrows, ncols=data.ncols, dtype=dtype)


def shaped(
    shape: tuple[int, ...], dtype: Any = None, max_entries: int | None = None
) -> st.SearchStrategy[Any]:
    """Random content of a given shape: a vector for ``(n,)`` (at most ``max_entries``
    entries if given, or any number: both are drawn), a matrix for ``(m, n)``."""
    if len(shape) == 1:
        if max_entries is not None:
            return vectors(size=shape[0], dtype=dtype, max_entries=max_entries) | vectors(
                size=shape[0], dtype=dtype
            )
        return vectors(size=shape[0], dtype=dtype)
    return matrices(nrows=shape[0], ncols=shape[1], dtype=dtype)


@dataclass(frozen=True)
class WriteControls:
    """How an operation writes: ``mask`` (kind + content), ``accum`` name, ``replace``, ``out``."""

    mask_kind: str
    mask: Any  # MatrixData / VectorData, or None when mask_kind == 'none'
    mask_spelling: str  # 'object' (pass v) or 'view' (pass v.V) -- both mean the value mask
    accum: str | None
    replace: bool
    out: Any  # MatrixData / VectorData, or None: the operation makes a new object

    def hyblas_mask(self, backend: str) -> Any:
        """The hyblas ``mask=`` argument these controls describe."""
        if self.mask_kind == "none":
            return None
        m = self.mask.hyblas(backend)
        value = m if self.mask_spelling == "object" else m.V
        return {"value": value, "structural": m.S, "~value": ~value, "~structural": ~m.S}[
            self.mask_kind
        ]

    def hyblas_accum(self) -> Any:
        return None if self.accum is None else hb.binary[self.accum]


def accum_names_for(dtype: Any) -> list[str]:
    """The accumulators that serve ``dtype`` (e.g. no ``minus`` on bool)."""
    dt = np.dtype(dtype)
    return [
        n
        for n in ACCUM_NAMES
        if hb.binary[n].cast_inputs_to is not None or dt in hb.binary[n].types
    ]


@st.composite
def write_controls(
    draw: Any,
    shape: tuple[int, ...],
    out_dtype: Any,
    *,
    accum: bool = True,
    need_out: bool = False,
    max_entries: int | None = None,
) -> WriteControls:
    """Mask, accum, replace and an existing ``out`` for a result of ``shape``.

    ``out_dtype`` is the dtype of the existing output when one is drawn; the accumulator is
    drawn among those serving it. ``accum=False`` never draws an accumulator. With
    ``max_entries``, vector masks and outputs are also drawn with that many entries at most.
    """
    kind = draw(st.sampled_from(MASK_KINDS))
    mask = None if kind == "none" else draw(shaped(shape, max_entries=max_entries))
    spelling = draw(st.sampled_from(("object", "view")))
    has_out = need_out or draw(st.booleans())
    out = draw(shaped(shape, dtype=out_dtype, max_entries=max_entries)) if has_out else None
    acc = None
    if accum and has_out:
        acc = draw(st.none() | st.sampled_from(accum_names_for(out_dtype)))
    return WriteControls(kind, mask, spelling, acc, draw(st.booleans()), out)


# --- index choices for extract / assign --------------------------------------------------------


@st.composite
def index_choice(draw: Any, extent: int, *, unique: bool = False, allow_int: bool = False) -> Any:
    """None (all), a slice, an int array (repeats allowed unless ``unique``), or an int."""
    kinds = ["none", "slice", "array"] + (["int"] if allow_int and extent else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(0, extent - 1))
    if kind == "slice":
        start = draw(st.none() | st.integers(-extent - 1, extent + 1))
        stop = draw(st.none() | st.integers(-extent - 1, extent + 1))
        step = draw(st.none() | st.sampled_from([1, 2, -1, -2]))
        return slice(start, stop, step)
    if extent == 0:
        return np.zeros(0, dtype=np.int64)
    if unique:
        picked = draw(st.lists(st.integers(0, extent - 1), unique=True, max_size=extent))
    else:
        picked = draw(st.lists(st.integers(0, extent - 1), max_size=extent + 2))
    return np.array(picked, dtype=np.int64)


def positions(index: Any, extent: int) -> np.ndarray:
    """The positions an index choice selects (as the model reads it)."""
    if index is None:
        return np.arange(extent, dtype=np.int64)
    if isinstance(index, slice):
        return np.arange(extent, dtype=np.int64)[index]
    if isinstance(index, int | np.integer):
        return np.array([index], dtype=np.int64)
    return np.asarray(index, dtype=np.int64)
