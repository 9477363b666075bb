"""The backend interface networkx loads (entry point ``networkx.backends``): the conversions,
``can_run`` / ``should_run``, the test hooks, and every function the backend implements."""

from __future__ import annotations

import atexit
import functools
import inspect
import os
from collections import Counter
from typing import Any

import networkx as nx
import numpy as np
from _nx_hyblas import FUNCTIONS

from . import algorithms
from .common import config, device
from .graph import HyblasGraph, from_networkx

__all__ = ["BackendInterface", "backend_interface"]


class BackendInterface:
    """What networkx calls: ``convert_from_nx``, ``convert_to_nx``, ``can_run``,
    ``should_run``, ``on_start_tests``, and the functions, each an attribute of its name."""

    @staticmethod
    def convert_from_nx(
        G: Any,
        edge_attrs: dict[str, Any] | None = None,
        node_attrs: dict[str, Any] | None = None,
        preserve_edge_attrs: bool = False,
        preserve_node_attrs: bool = False,
        preserve_graph_attrs: bool = False,
        name: str | None = None,
        graph_name: str | None = None,
    ) -> HyblasGraph:
        if isinstance(G, HyblasGraph):
            return G
        # every attribute of every edge (what networkx asks for a function that returns part
        # of the graph, k_core): the conversion keeps G itself, and converts an attribute a
        # later call reads from it on first use (can_run refuses a weight function first)
        return from_networkx(
            G,
            None if preserve_edge_attrs else edge_attrs,
            backend=device(),
            dtype=np.dtype(config().dtype),
            preserve_graph_attrs=preserve_graph_attrs,
            preserve_node_attrs=preserve_node_attrs,
            keep_source=bool(preserve_edge_attrs),
        )

    @staticmethod
    def convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
        if isinstance(obj, HyblasGraph):
            return obj.to_networkx()
        return obj

    @staticmethod
    def can_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        """False, or the reason, for a call the backend does not take: a weight given as a
        function, parameters only networkx implements."""
        bound = _arguments(name, args, kwargs)
        if callable(bound.get("weight")):
            return "a weight function: networkx's own"
        if name == "pagerank" and any(
            bound.get(p) is not None for p in ("personalization", "nstart", "dangling")
        ):
            return "personalization, nstart and dangling are networkx's own"
        if name == "betweenness_centrality" and (
            bound.get("weight") is not None or bound.get("endpoints")
        ):
            return "weighted betweenness and endpoints are networkx's own"
        if name in ("clustering", "average_clustering") and bound.get("weight") is not None:
            return "weighted clustering is networkx's own"
        if name == "eccentricity" and bound.get("sp") is not None:
            return "with the path lengths given, eccentricity has nothing for hyblas to compute"
        if name == "k_core" and bound.get("core_number") is not None:
            return "with the core numbers given, k_core has nothing for hyblas to compute"
        return True

    @staticmethod
    def should_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        """Small graphs stay on networkx (``nx.config.backends.hyblas.min_edges``): their
        conversion would cost more than the function."""
        threshold = config().min_edges
        for value in (*args, *kwargs.values()):
            if isinstance(value, nx.Graph) and not _has_edges(value, threshold):
                return f"fewer than min_edges={threshold} edges: networkx is faster there"
        return True

    @staticmethod
    def on_start_tests(items: list) -> None:
        """Mark networkx's tests whose difference from networkx is deliberate (none yet)."""
        return None


def _has_edges(G: nx.Graph, threshold: int) -> bool:
    """Whether ``G`` has at least ``threshold`` edges, its adjacency counted only as far as
    that needs (``G.number_of_edges()`` reads every node's degree: a pass over the graph at
    every call). A node's neighbours are at most its edges (a multigraph's, its self loop's);
    an undirected edge is in two nodes' neighbours."""
    if threshold <= 0:
        return True
    needed = threshold if G.is_directed() else 2 * threshold
    seen = 0
    for neighbours in G._adj.values():
        seen += len(neighbours)
        if seen >= needed:
            return True
    return G.number_of_edges() >= threshold  # a small graph: counted exactly


@functools.cache
def _signature(name: str) -> inspect.Signature:
    return inspect.signature(getattr(algorithms, name))


def _arguments(name: str, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The call's arguments by parameter name (networkx's signature of ``name``)."""
    try:
        bound = _signature(name).bind_partial(*args, **kwargs)
    except TypeError:
        return dict(kwargs)
    return dict(bound.arguments)


def _counted(name: str, function: Any, counts: Counter) -> Any:
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        counts[name] += 1
        return function(*args, **kwargs)

    return call


def _write_counts(path: str, counts: Counter) -> None:
    with open(path, "a", encoding="utf-8") as out:  # one line per function and process
        out.writelines(f"{name} {count}\n" for name, count in sorted(counts.items()))


# NX_HYBLAS_CALL_COUNTS=FILE: count the calls each function of the backend takes, appended to
# FILE at exit (scripts/networkx-suite: the proof that NetworkX's tests ran on hyblas)
_COUNTS_FILE = os.environ.get("NX_HYBLAS_CALL_COUNTS")
_counts: Counter = Counter()
for _name in FUNCTIONS:
    _function = getattr(algorithms, _name)
    if _COUNTS_FILE:
        _function = _counted(_name, _function, _counts)
    setattr(BackendInterface, _name, staticmethod(_function))
if _COUNTS_FILE:
    atexit.register(_write_counts, _COUNTS_FILE, _counts)

backend_interface = BackendInterface()
