"""Mask views: a Vector or Matrix used as the write mask of an operation.

``v.S`` (structural: allowed wherever ``v`` has an entry), ``v.V`` (value: where the entry is
present and nonzero) and ``~`` (the complement of either); passing the object itself as ``mask=``
means its value mask. What a mask allows is computed here from the parent's storage; how an
operation writes through it is :mod:`hyblas.ops.output`.
"""

from __future__ import annotations

from typing import Any

from ..device import arrays as _prim

__all__ = ["Mask"]


class Mask:
    """A view of a Vector or Matrix used as a write mask.

    Made with ``v.S`` (structural), ``v.V`` (value) and ``~`` (complement); passing the object
    itself as ``mask=`` means its value mask.

    Attributes
    ----------
    parent : Vector or Matrix
        The object whose entries decide.
    structural : bool
        Whether presence alone decides (else presence and a nonzero value).
    complement : bool
        Whether the mask allows where the parent does not.

    Notes
    -----
    The internal interface: the operations and executors ask a mask where it allows output
    through :meth:`allowed`, :meth:`allowed_at` and :meth:`keys` (not part of the user API).

    Examples
    --------
    >>> seen = hb.Vector.from_coo([0, 2], [True, False], size=4)
    >>> seen.S, ~seen.S, seen.V
    (Vector.S, ~Vector.S, Vector.V)
    """

    __slots__ = ("parent", "structural", "complement")

    def __init__(self, parent: Any, *, structural: bool, complement: bool = False):
        self.parent = parent
        self.structural = structural
        self.complement = complement

    def __invert__(self) -> Mask:
        return Mask(self.parent, structural=self.structural, complement=not self.complement)

    def __bool__(self) -> bool:
        raise TypeError("a Mask has no truth value; pass it as mask=")

    def __repr__(self) -> str:
        kind = "S" if self.structural else "V"
        return f"{'~' if self.complement else ''}{type(self.parent).__name__}.{kind}"

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the object behind the mask."""
        return tuple(self.parent.shape)

    # --- what a vector mask allows -------------------------------------------------------------

    def allowed(self) -> Any:
        """Where a vector mask lets a result through (bool array over the output positions).

        Examples
        --------
        >>> seen = hb.Vector.from_coo([0, 2], [True, False], size=4)
        >>> (~seen.S).allowed(), seen.V.allowed()
        (array([False,  True, False,  True]), array([ True, False, False, False]))
        """
        if self.structural:
            allowed = self.parent.presence()
        else:
            values, present = self.parent.as_bitmap()
            allowed = present & values.astype(bool)
        return ~allowed if self.complement else allowed

    def allowed_at(self, ids: Any) -> Any:
        """Whether a vector mask lets a result through at each of the ascending positions
        ``ids`` (reads the mask's entries there only: no array over all positions).

        Examples
        --------
        >>> seen = hb.Vector.from_coo([0, 2], [True, False], size=4)
        >>> (~seen.S).allowed_at(np.array([0, 1]))
        array([False,  True])
        """
        parent = self.parent
        xp = parent.xp
        bitmap = parent.stored_bitmap
        if bitmap is not None:
            values, present = bitmap
            allowed = present[ids]
            if not self.structural:
                allowed &= values[ids].astype(bool)
        elif parent.stored_sparse[0].size == 0:
            allowed = xp.zeros(ids.shape, dtype=bool)
        else:
            mask_ids, mask_values = parent.stored_sparse
            at, allowed = _prim.locate(xp, mask_ids, ids)
            if not self.structural:
                allowed &= mask_values[at].astype(bool)
        return ~allowed if self.complement else allowed

    # --- what a matrix mask allows -------------------------------------------------------------

    def keys(self) -> Any:
        """The ascending linear keys (``row * ncols + col``) of a matrix mask's entries that
        allow (before the complement): every entry, or those with a nonzero value.
        DimensionMismatch where such keys overflow int64 (a shape of more than 2**63
        positions).

        Examples
        --------
        >>> M = hb.Matrix.from_coo([0, 1], [1, 0], [True, True])
        >>> M.S.keys()
        array([1, 2])
        """
        parent = self.parent
        keys = _prim.csr_keys(parent.xp, parent.indptr, parent.indices, parent.nrows, parent.ncols)
        if not self.structural:
            keys = keys[parent.values.astype(bool)]
        return keys
