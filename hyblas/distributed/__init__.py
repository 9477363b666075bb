"""Several processes, one per device: partitioned matrices and vectors, their products and
the graph algorithms over them.

A program written with this room runs unchanged on one process or on several started by an
MPI launcher (``mpiexec -n 4 python program.py``): :func:`init` gives the communicator,
:class:`DistMatrix` holds each process's block of a ``√p x √p`` (or ``p x 1``) process grid as
an ordinary :class:`~hyblas.Matrix`, :func:`vxm` / :func:`mxv` are local products plus
collectives, and :func:`bfs`, :func:`pagerank` and :func:`connected_components` return
:class:`DistVector` results, gathered on request (:meth:`DistVector.gather`).
"""

from __future__ import annotations

from ..backend import Communicator, MPICommunicator, NCCLCommunicator, SelfCommunicator, Traffic
from .bfs import bfs
from .components import connected_components
from .dense import DenseExchange, vxm_volume
from .exchange import Choice, choose, concatenate, decode, encode, gather, permute, reduce
from .frontier import Frontier, FrontierExchange, level_volume
from .grid import Partition, ProcessGrid
from .launch import init
from .matrix import DistMatrix
from .pagerank import pagerank
from .products import mxv, vxm
from .slots import SlotLayout
from .trace import ExchangeRow, ExchangeTrace, trace
from .vector import DistMask, DistVector

__all__ = [
    "init",
    "Communicator",
    "SelfCommunicator",
    "MPICommunicator",
    "NCCLCommunicator",
    "Traffic",
    "ProcessGrid",
    "Partition",
    "DistMatrix",
    "DistVector",
    "DistMask",
    "mxv",
    "vxm",
    "bfs",
    "pagerank",
    "connected_components",
    "choose",
    "Choice",
    "encode",
    "decode",
    "concatenate",
    "gather",
    "reduce",
    "permute",
    "DenseExchange",
    "vxm_volume",
    "Frontier",
    "FrontierExchange",
    "SlotLayout",
    "level_volume",
    "trace",
    "ExchangeTrace",
    "ExchangeRow",
]
