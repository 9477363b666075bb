"""What every function of the backend shares: the backend's settings, per-call options, and
results turned back into NetworkX's objects (node keys, Python numbers)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np
from _nx_hyblas import FROZEN_AT_IMPORT

import hyblas as hb

from .graph import HyblasGraph


def config() -> Any:
    """``nx.config.backends.hyblas``."""
    return nx.config.backends.hyblas


def device() -> str:
    """The hyblas backend the settings ask for ('auto': hyblas's default backend, the GPU
    when there is one unless ``HYBLAS_BACKEND`` or :func:`hyblas.set_backend` say otherwise)."""
    wanted = config().device
    if wanted == "auto":
        return hb.backend()
    if wanted not in ("cuda", "cpu"):
        raise ValueError(
            f"nx.config.backends.hyblas.device must be 'auto', 'cuda' or 'cpu', got {wanted!r}"
        )
    return wanted


def networkx_before(major: int, minor: int) -> bool:
    """Whether the installed networkx is older than ``major.minor`` (where results changed)."""
    installed = tuple(int(part) for part in nx.__version__.split(".")[:2])
    return installed < (major, minor)


def options(kwargs: dict[str, Any]) -> tuple[str, Any]:
    """``(executor, dtype)`` of a call's extra keyword arguments (the only ones allowed)."""
    unknown = set(kwargs) - {"executor", "dtype"}
    if unknown:
        raise TypeError(f"unexpected keyword arguments {sorted(unknown)} for the hyblas backend")
    return kwargs.get("executor", "auto"), kwargs.get("dtype")


def by_node(G: HyblasGraph, result: hb.Vector) -> dict[Any, Any]:
    """The entries of ``result`` as ``{node: Python number}``, in vertex order."""
    ids, values = result.to_coo()
    return dict(zip(nodes_of(G, ids), values.tolist(), strict=True))


def nodes_of(G: HyblasGraph, ids: np.ndarray) -> list[Any]:
    """The nodes of vertex ``ids``, as a list."""
    if G.vertices_are_nodes:
        return ids.tolist()
    nodes = G.nodes
    return [nodes[k] for k in ids.tolist()]


def sorted_by_value(found: dict[Any, Any]) -> dict[Any, Any]:
    """``found`` ordered by value (stable: vertex order among equals), as a search finds
    them level by level."""
    return dict(sorted(found.items(), key=lambda item: item[1]))


@contextlib.contextmanager
def many_small_objects() -> Iterator[None]:
    """A block that makes many small containers that cannot form reference cycles (a set per
    component), kept by the caller.

    Python's cyclic garbage collector is held off while it runs (a burst of allocations would
    set it off again and again), and its objects are not left in the young generation either:
    the first allocation after the collector is enabled again would traverse every one of
    them (a set per isolated vertex of a large graph), and a later collection of the middle
    generation again. Unless the process has frozen objects of its own (``gc.freeze()`` at
    a server's start-up: unfreezing them is not this block's to do, and they stay as they
    are, the sets then paying those traversals), the block ends with ``gc.freeze()`` then
    ``gc.unfreeze()``, which moves every tracked object, the block's and the process's young
    ones, to the oldest generation without traversing them (the process's young objects are
    then examined at the next full collection, as long-lived ones are). The objects the
    interpreter itself keeps frozen (CPython 3.12's immortal ones, counted at ``import
    networkx``: ``_nx_hyblas.FROZEN_AT_IMPORT``) are not the process's: they go to the oldest
    generation too, and the next full collection puts them back. The collector's setting is
    restored. Nothing of the caller's runs inside.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() <= FROZEN_AT_IMPORT:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
