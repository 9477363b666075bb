"""The bytes a matrix's cache holds: every array reachable from it, each counted once."""

from __future__ import annotations

import types
import weakref
from collections.abc import Iterable
from typing import Any

__all__ = ["held_bytes"]

_LEAVES = (str, bytes, int, float, complex, bool, type(None), type, types.ModuleType)
_CALLABLES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def _is_array(obj: Any) -> bool:
    """A NumPy or CuPy array (or scalar): anything with a dtype, a shape and a byte count."""
    return all(hasattr(obj, name) for name in ("nbytes", "dtype", "shape"))


def _library_bytes(obj: Any) -> int | None:
    """The bytes of a python-graphblas object (the suitesparse executor's copy of a matrix:
    SuiteSparse's memory, not arrays), or None for anything else."""
    if not type(obj).__module__.startswith("graphblas"):
        return None
    return int(getattr(getattr(obj, "ss", None), "nbytes", 0) or 0)


def _children(obj: Any) -> Iterable[Any]:
    if isinstance(obj, dict):
        return obj.values()
    if isinstance(obj, list | tuple | set | frozenset):
        return obj
    found = list(vars(obj).values()) if hasattr(obj, "__dict__") else []
    for klass in type(obj).__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if hasattr(obj, slot):
                found.append(getattr(obj, slot))
    return found


def held_bytes(root: Any, *, exclude: Iterable[Any] = ()) -> int:
    """Bytes of the arrays reachable from ``root`` through containers and object attributes,
    each array counted once; the objects in ``exclude`` (the owner and its own arrays) are
    neither counted nor walked into, and weak references are not followed."""
    seen = {id(obj) for obj in exclude}
    total = 0
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _LEAVES + _CALLABLES + (weakref.ref,)):
            continue
        seen.add(id(obj))
        library = _library_bytes(obj)
        if library is not None:
            total += library
            continue
        if _is_array(obj):
            total += int(obj.nbytes)
            continue
        stack.extend(_children(obj))
    return total
