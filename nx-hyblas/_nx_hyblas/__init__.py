"""What networkx learns about the hyblas backend at ``import networkx``: the functions it
implements, their extra parameters, and its settings. Imports neither hyblas nor CuPy (this runs
at every ``import networkx``)."""

from __future__ import annotations

import gc
from typing import Any

# The objects frozen (``gc.freeze()``) when this module was imported, that is at ``import
# networkx``, before a process freezes any of its own: the interpreter's. CPython 3.12 keeps its
# immortal objects (its static types' MRO tuples) in the permanent generation from start-up on
# and moves them back there at every full collection; other versions start with none.
FROZEN_AT_IMPORT: int = gc.get_freeze_count()

# the functions the backend implements, each with what it adds to networkx's documentation
FUNCTIONS: dict[str, str] = {
    "single_source_shortest_path_length": "A BFS of masked products (device loop on the GPU).",
    "single_target_shortest_path_length": "A BFS over the transpose.",
    "all_pairs_shortest_path_length": "Multi-source BFS, a batch of sources per product.",
    "descendants": "A BFS.",
    "ancestors": "A BFS over the transpose.",
    "descendants_at_distance": "A BFS.",
    "has_path": "A BFS.",
    "bfs_layers": "A BFS from every source at once; each layer in ascending node order.",
    "single_source_dijkstra_path_length": "Delta-stepping / Bellman-Ford rounds of min.plus.",
    "dijkstra_path_length": "Delta-stepping / Bellman-Ford rounds of min.plus.",
    "all_pairs_dijkstra_path_length": "One single-source search per source.",
    "single_source_bellman_ford_path_length": "Bellman-Ford rounds of min.plus.",
    "bellman_ford_path_length": "Bellman-Ford rounds of min.plus.",
    "eccentricity": (
        "A multi-source BFS per batch of nodes; with a weight, one single-source search per node."
    ),
    "connected_components": "Union-find with Afforest's sampling (GPU kernels).",
    "number_connected_components": "Union-find (Afforest).",
    "is_connected": "Union-find (Afforest).",
    "node_connected_component": "A BFS.",
    "weakly_connected_components": "Union-find (Afforest), edges either way.",
    "number_weakly_connected_components": "Union-find (Afforest), edges either way.",
    "is_weakly_connected": "Union-find (Afforest), edges either way.",
    "core_number": "Parallel peeling, one masked product a round.",
    "k_core": "The core numbers by parallel peeling; the subgraph copied as networkx does.",
    "pagerank": "Power iteration of plus.times products.",
    "betweenness_centrality": "Brandes' algorithm, a batch of sources per product.",
    "triangles": "A masked product C<S> = S plus.pair S.",
    "transitivity": "A masked product C<S> = S plus.pair S.",
    "clustering": "The local clustering coefficient (a masked product).",
    "average_clustering": "The local clustering coefficient (a masked product).",
}

# extra keyword arguments every function takes (networkx passes them through)
EXTRA_PARAMETERS: dict[str, str] = {
    "executor : str, optional": (
        "hyblas's executor for the products: 'auto' (default), 'reference', 'dense', "
        "'sparse', 'pull' (see hyblas's docs/executors.md)."
    ),
    "dtype : dtype, optional": (
        "The value type the graph's weights are converted to (default: the backend's dtype "
        "setting, float64)."
    ),
}

DEFAULT_CONFIG: dict[str, Any] = {
    "device": "auto",  # 'auto': hyblas's default backend (the GPU if any); 'cuda' / 'cpu'
    "min_edges": 2**14,  # should_run: smaller graphs stay on networkx (conversion would dominate)
    "dtype": "float64",
}


def get_info() -> dict[str, Any]:
    """The backend's description for ``networkx.utils.backends.backend_info``.

    Examples
    --------
    >>> from _nx_hyblas import get_info
    >>> info = get_info()
    >>> info["backend_name"], info["default_config"]["device"]
    ('hyblas', 'auto')
    >>> "pagerank" in info["functions"]
    True
    """
    return {
        "backend_name": "hyblas",
        "project": "hyblas",
        "package": "nx_hyblas",
        "short_summary": "GraphBLAS-style sparse linear algebra on NVIDIA GPUs and the CPU.",
        "default_config": dict(DEFAULT_CONFIG),
        "functions": {
            name: {"additional_docs": docs, "additional_parameters": dict(EXTRA_PARAMETERS)}
            for name, docs in FUNCTIONS.items()
        },
    }
