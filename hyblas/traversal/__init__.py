"""Traversals: many rounds of a frontier product without a host round trip each.

:func:`propagate` runs the rounds of a BFS-like (levels) or Bellman-Ford-like (improving)
traversal until the frontier is empty: on the GPU its narrow rounds run in the device loop
(:mod:`.device_loop`, one persistent cooperative kernel), on the CPU in that loop's NumPy
emulation (:mod:`.emulation`); wide rounds are host rounds of ``vxm`` (:mod:`.rounds`);
levels rounds on the sparse executor run as its graph rounds (:mod:`.graph_rounds`);
delta-stepping buckets are :mod:`.buckets`. :func:`union_find` labels connected components by
union-find kernels over the CSR rows (:mod:`.afforest`, Afforest's sampling).
"""

from __future__ import annotations

from .afforest import DEFAULT_UNION_FIND, UnionFindParams, union_find
from .params import DEFAULT_PARAMS, LoopParams, current_params, loop_params
from .propagation import EXECUTORS, frontier_facts, propagate

__all__ = [
    "propagate",
    "frontier_facts",
    "EXECUTORS",
    "LoopParams",
    "DEFAULT_PARAMS",
    "loop_params",
    "current_params",
    "union_find",
    "UnionFindParams",
    "DEFAULT_UNION_FIND",
]
