"""The NetworkX functions the hyblas backend implements, each with NetworkX's signature."""

from __future__ import annotations

from .centrality import betweenness_centrality
from .cluster import average_clustering, clustering, transitivity, triangles
from .components import (
    connected_components,
    is_connected,
    is_weakly_connected,
    node_connected_component,
    number_connected_components,
    number_weakly_connected_components,
    weakly_connected_components,
)
from .core import core_number, k_core
from .distance_measures import eccentricity
from .link_analysis import pagerank
from .shortest_paths import (
    all_pairs_dijkstra_path_length,
    all_pairs_shortest_path_length,
    ancestors,
    bellman_ford_path_length,
    bfs_layers,
    descendants,
    descendants_at_distance,
    dijkstra_path_length,
    has_path,
    single_source_bellman_ford_path_length,
    single_source_dijkstra_path_length,
    single_source_shortest_path_length,
    single_target_shortest_path_length,
)

__all__ = [
    "all_pairs_dijkstra_path_length",
    "all_pairs_shortest_path_length",
    "ancestors",
    "average_clustering",
    "bellman_ford_path_length",
    "betweenness_centrality",
    "bfs_layers",
    "clustering",
    "connected_components",
    "core_number",
    "descendants",
    "descendants_at_distance",
    "dijkstra_path_length",
    "eccentricity",
    "has_path",
    "is_connected",
    "is_weakly_connected",
    "k_core",
    "node_connected_component",
    "number_connected_components",
    "number_weakly_connected_components",
    "pagerank",
    "single_source_bellman_ford_path_length",
    "single_source_dijkstra_path_length",
    "single_source_shortest_path_length",
    "single_target_shortest_path_length",
    "transitivity",
    "triangles",
    "weakly_connected_components",
]
