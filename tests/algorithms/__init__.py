"""The graph algorithms (hyblas.algorithms) against networkx and scipy."""
