"""LDBC Graphalytics: the six kernels (BFS, CDLP, LCC, PR, SSSP, WCC) on one graph given in the
Graphalytics formats, each timed and its result written as Graphalytics output.

    python -m benchmarks.graphalytics --graph DIR/example-directed --directed \\
        --properties DIR/example-directed.properties --output out/graphalytics
    python -m benchmarks.graphalytics --vertices G.v --edges G.e --undirected \\
        --bfs-source 2 --sssp-source 2 --cdlp-iterations 10 --pr-iterations 10 --repeat 3

The graph is ``--vertices FILE --edges FILE``, or ``--graph PREFIX`` for ``PREFIX.v`` and
``PREFIX.e``; its name (that of the output files) is ``--name``, else the last part of
``PREFIX``, else the vertex file's name without its suffix. The kernels' parameters are those
of the specification (source vertices as the files name them, translated to matrix indices
with :meth:`~hyblas.io.GraphalyticsGraph.index_of`); they come from the options, else from a
Graphalytics ``.properties`` file (``--properties``: the keys
``graph.<name>.{directed,algorithms,bfs.source-vertex,cdlp.max-iterations,pr.damping-factor,
pr.num-iterations,sssp.source-vertex}``). SSSP needs a weighted edge file (a third column);
it is skipped, with a note, on an unweighted one.

How each kernel runs:

* BFS: :func:`hyblas.algorithms.bfs`, unreached vertices written as ``2**63 - 1``;
* CDLP: :func:`hyblas.algorithms.cdlp` for the given number of rounds, labels as file ids;
* LCC: :func:`hyblas.algorithms.local_clustering_coefficient`;
* PR: :func:`hyblas.algorithms.pagerank` for exactly the given number of iterations, over the
  graph's structure (every weight 1: Graphalytics' PageRank ignores weights);
* SSSP: :func:`hyblas.algorithms.sssp`, unreached vertices written as ``Infinity``;
* WCC: :func:`hyblas.algorithms.connected_components` (a directed graph's weak components),
  each component labelled with its smallest file id (Graphalytics checks the partition only).

Timing: each kernel runs ``--repeat`` times (the first run fills the matrix's caches, as
loading a graph does for a platform); the table gives the median in seconds (wall clock on
the CPU; CUDA events, after a synchronisation, on the GPU: :mod:`benchmarks.timing`). Loading
(reading the files, building the matrix) is timed once, apart. With ``--output DIR`` the
results are written to ``DIR/<name>-BFS``, ``DIR/<name>-CDLP``, ... as the specification's
reference outputs are named.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import hyblas as hb
from hyblas.backend import resolve, synchronize
from hyblas.io.graphalytics import BFS_UNREACHED, GraphalyticsGraph

from .timing import time_cpu_ms, time_gpu_ms

ALGORITHMS = ("bfs", "cdlp", "lcc", "pr", "sssp", "wcc")
#: The parameter of each ``.properties`` key ``graph.<name>.<key>`` the driver reads.
PROPERTY_KEYS = {
    "directed": "directed",
    "algorithms": "algorithms",
    "bfs.source-vertex": "bfs_source",
    "cdlp.max-iterations": "cdlp_iterations",
    "pr.damping-factor": "pr_damping",
    "pr.num-iterations": "pr_iterations",
    "sssp.source-vertex": "sssp_source",
}
#: The parameter each kernel needs, and the option that gives it (PR's damping has a default).
NEEDS = {
    "bfs": ("bfs_source", "--bfs-source"),
    "cdlp": ("cdlp_iterations", "--cdlp-iterations"),
    "pr": ("pr_iterations", "--pr-iterations"),
    "sssp": ("sssp_source", "--sssp-source"),
}
#: The kernels that start from a vertex: the parameter naming it (a file id).
SOURCES = {"bfs": "bfs_source", "sssp": "sssp_source"}
DEFAULT_PR_DAMPING = 0.85


@dataclasses.dataclass
class Parameters:
    """What the kernels need; None where neither an option nor the properties file says."""

    directed: bool | None = None
    algorithms: tuple[str, ...] | None = None
    bfs_source: int | None = None
    cdlp_iterations: int | None = None
    pr_damping: float | None = None
    pr_iterations: int | None = None
    sssp_source: int | None = None


@dataclasses.dataclass
class Row:
    """One kernel's line of the table: its median seconds, or why it did not run."""

    algorithm: str
    seconds: float | None = None
    runs: int = 0
    note: str = ""


# --- parameters -----------------------------------------------------------------------------


def read_properties(path: str | Path) -> dict[str, dict[str, str]]:
    """The graph parameters of a Graphalytics ``.properties`` file, by graph name.

    Parameters
    ----------
    path : str or Path
        A Java-style properties file: ``key = value`` (or ``key: value``) lines, ``#`` and
        ``!`` comment lines.

    Returns
    -------
    dict
        ``{name: {key: value}}`` for every key ``graph.<name>.<key>`` whose ``<key>`` is one of
        :data:`PROPERTY_KEYS` (``<name>`` is whatever lies between, dots included); other
        keys are left out.
    """
    graphs: dict[str, dict[str, str]] = {}
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        cut = min((i for i in (line.find("="), line.find(":")) if i >= 0), default=-1)
        if cut < 0:
            continue
        key, value = line[:cut].strip(), line[cut + 1 :].strip()
        if not key.startswith("graph."):
            continue
        for suffix in PROPERTY_KEYS:
            if key.endswith("." + suffix) and len(key) > len("graph.") + len(suffix) + 1:
                name = key[len("graph.") : -len(suffix) - 1]
                graphs.setdefault(name, {})[suffix] = value
                break
    return graphs


def parameters_from_properties(path: str | Path, name: str) -> Parameters:
    """The :class:`Parameters` a properties file gives the graph ``name`` (or its only graph).

    Raises
    ------
    ValueError
        If the file describes no graph by that name (and not exactly one graph), or a value
        does not parse.
    """
    graphs = read_properties(path)
    if name in graphs:
        found = graphs[name]
    elif len(graphs) == 1:
        (found,) = graphs.values()
    else:
        raise ValueError(
            f"{path}: no parameters for graph {name!r} (it describes {sorted(graphs) or 'none'})"
        )
    params = Parameters()
    for key, value in found.items():
        field = PROPERTY_KEYS[key]
        try:
            if field == "directed":
                if value.lower() not in ("true", "false"):
                    raise ValueError(f"expected true or false, got {value!r}")
                params.directed = value.lower() == "true"
            elif field == "algorithms":
                params.algorithms = algorithm_list(value)
            elif field == "pr_damping":
                params.pr_damping = float(value)
            else:
                setattr(params, field, int(value))
        except ValueError as exc:
            raise ValueError(f"{path}: graph.<name>.{key}: {exc}") from exc
    return params


def algorithm_list(text: str) -> tuple[str, ...]:
    """``'bfs, PR,wcc'`` as ``('bfs', 'pr', 'wcc')``; ValueError naming an unknown one."""
    names = tuple(part.strip().lower() for part in text.split(",") if part.strip())
    unknown = [name for name in names if name not in ALGORITHMS]
    if unknown:
        raise ValueError(
            f"unknown algorithm(s) {', '.join(unknown)}; known: {', '.join(ALGORITHMS)}"
        )
    return names


def has_weights(edge_file: str | Path) -> bool:
    """Whether the first data line of ``edge_file`` has a weight (three fields), as
    :func:`hyblas.io.read_graphalytics` decides."""
    with open(edge_file, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            fields = line.split("#", 1)[0].split()
            if fields:
                return len(fields) == 3
    return False


# --- kernels --------------------------------------------------------------------------------


def kernel(
    algorithm: str, data: GraphalyticsGraph, graph: hb.Graph, params: Parameters
) -> Callable[[], hb.Vector]:
    """The run of ``algorithm`` on the graph, as the table times it (setup done here)."""
    A = graph.A
    if algorithm == "bfs":
        source = data.index_of(params.bfs_source)
        return lambda: hb.algorithms.bfs(A, source)
    if algorithm == "sssp":
        source = data.index_of(params.sssp_source)
        return lambda: hb.algorithms.sssp(A, source)
    if algorithm == "pr":
        structure = hb.ops.apply(A, hb.unary["one"][np.float64])
        damping, iterations = params.pr_damping, params.pr_iterations
        return lambda: hb.algorithms.pagerank(structure, damping, iterations=iterations)
    if algorithm == "cdlp":
        rounds = params.cdlp_iterations
        return lambda: hb.algorithms.cdlp(graph, rounds)
    if algorithm == "lcc":
        return lambda: hb.algorithms.local_clustering_coefficient(graph)
    if algorithm == "wcc":
        return lambda: hb.algorithms.connected_components(A)
    raise ValueError(f"unknown algorithm {algorithm!r}")


def write_output(path: Path, algorithm: str, data: GraphalyticsGraph, result: hb.Vector) -> None:
    """``result`` as the Graphalytics output of ``algorithm``: labels (CDLP, WCC) as file ids,
    unreached vertices as the specification writes them (BFS, SSSP)."""
    missing: Any = {"bfs": BFS_UNREACHED, "sssp": float("inf")}.get(algorithm)
    if algorithm in ("cdlp", "wcc"):
        vertices, labels = result.to_coo()
        result = hb.Vector.from_coo(
            vertices, data.vertex_ids[labels], size=result.size, dtype=np.int64, backend="cpu"
        )
    hb.io.write_graphalytics_output(path, data.vertex_ids, result, missing=missing)


def timed(run: Callable[[], hb.Vector], backend: str, repeats: int) -> tuple[hb.Vector, float]:
    """The last result of ``repeats`` runs of ``run`` and their median time in seconds."""
    last: list[hb.Vector] = []

    def once() -> None:
        last[:] = [run()]

    if backend == "cuda":
        ms = time_gpu_ms(once, warmup=0, repeats=repeats)
    else:
        ms = time_cpu_ms(once, warmup=0, repeats=repeats)
    return last[0], ms / 1e3


def table(rows: list[Row]) -> str:
    """The rows as printed: algorithm, median seconds, runs, and a note where one was skipped."""
    lines = [f"{'algorithm':<10} {'seconds':>12} {'runs':>5}"]
    for row in rows:
        label = row.algorithm.upper()
        if row.seconds is None:
            lines.append(f"{label:<10} {'-':>12} {row.runs:>5}  {row.note}")
        else:
            lines.append(f"{label:<10} {row.seconds:>12.6f} {row.runs:>5}")
    return "\n".join(lines)


# --- command line ---------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.graphalytics",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--vertices", type=Path, metavar="FILE", help="the vertex file (one id a line)"
    )
    parser.add_argument(
        "--edges", type=Path, metavar="FILE", help="the edge file (src dst [weight] a line)"
    )
    parser.add_argument(
        "--graph", metavar="PREFIX", help="PREFIX: --vertices PREFIX.v --edges PREFIX.e"
    )
    parser.add_argument("--name", help="the graph's name (output files, properties)")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument(
        "--directed",
        dest="directed",
        action="store_true",
        default=None,
        help="this or --undirected, unless the properties file says",
    )
    kind.add_argument(
        "--undirected",
        dest="directed",
        action="store_false",
        help="each edge listed once, stored both ways",
    )
    parser.add_argument(
        "--properties", type=Path, metavar="FILE", help="a Graphalytics .properties file"
    )
    parser.add_argument(
        "--bfs-source", type=int, metavar="ID", help="BFS source vertex (a file id)"
    )
    parser.add_argument(
        "--sssp-source", type=int, metavar="ID", help="SSSP source vertex (a file id)"
    )
    parser.add_argument("--cdlp-iterations", type=int, metavar="N", help="CDLP rounds")
    parser.add_argument(
        "--pr-damping",
        type=float,
        metavar="D",
        help=f"PageRank damping (default {DEFAULT_PR_DAMPING})",
    )
    parser.add_argument("--pr-iterations", type=int, metavar="N", help="PageRank iterations")
    parser.add_argument(
        "--algorithms",
        metavar="LIST",
        help=f"comma-separated, of {','.join(ALGORITHMS)} (default: the properties "
        "file's list, else all six)",
    )
    parser.add_argument("--output", type=Path, metavar="DIR", help="write DIR/<name>-BFS etc. here")
    parser.add_argument("--backend", choices=("cpu", "cuda"), help="default: hyblas's")
    parser.add_argument(
        "--repeat", type=int, default=1, metavar="N", help="runs of each kernel (median)"
    )
    return parser


def graph_files(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[Path, Path, str]:
    """The vertex file, the edge file and the graph's name the arguments give."""
    if args.graph is not None and (args.vertices is not None or args.edges is not None):
        parser.error("give --graph PREFIX or --vertices and --edges, not both")
    if args.graph is not None:
        return Path(args.graph + ".v"), Path(args.graph + ".e"), args.name or Path(args.graph).name
    if args.vertices is None or args.edges is None:
        parser.error("give --graph PREFIX, or --vertices FILE and --edges FILE")
    return args.vertices, args.edges, args.name or args.vertices.stem


def parameters(parser: argparse.ArgumentParser, args: argparse.Namespace, name: str) -> Parameters:
    """The kernels' parameters: the options, else the properties file's, else the defaults;
    checked (each kernel asked for has its parameters, in range)."""
    try:
        params = (
            parameters_from_properties(args.properties, name) if args.properties else Parameters()
        )
        if args.algorithms is not None:
            params.algorithms = algorithm_list(args.algorithms)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    for field in dataclasses.fields(Parameters):
        given = getattr(args, field.name, None)
        if given is not None and field.name != "algorithms":
            setattr(params, field.name, given)  # an option beats the properties file
    if params.directed is None:
        parser.error("give --directed or --undirected (or a properties file that says)")
    if params.algorithms is None:
        params.algorithms = ALGORITHMS
    if params.pr_damping is None:
        params.pr_damping = DEFAULT_PR_DAMPING
    for algorithm in params.algorithms:
        if algorithm in NEEDS and getattr(params, NEEDS[algorithm][0]) is None:
            parser.error(f"{algorithm} needs {NEEDS[algorithm][1]} (or a properties file)")
    for field, option in (
        ("cdlp_iterations", "--cdlp-iterations"),
        ("pr_iterations", "--pr-iterations"),
    ):
        if (getattr(params, field) or 0) < 0:
            parser.error(f"{option} must be at least 0, got {getattr(params, field)}")
    if not 0.0 <= params.pr_damping <= 1.0:
        parser.error(f"--pr-damping must lie in [0, 1], got {params.pr_damping}")
    return params


def main(argv: list[str] | None = None) -> int:
    """Run the driver (``python -m benchmarks.graphalytics --help``).

    Returns
    -------
    int
        0; argument errors (a missing parameter, a source vertex the graph lacks, an unreadable
        file) exit through :meth:`argparse.ArgumentParser.error` with status 2.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    vertices, edges, name = graph_files(parser, args)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    params = parameters(parser, args, name)
    backend = resolve(args.backend)
    with hb.using_backend(backend):
        start = time.perf_counter()
        try:
            data = hb.io.read_graphalytics(
                vertices, edges, directed=params.directed, backend=backend
            )
            graph = hb.Graph(data.matrix, kind="directed" if params.directed else "undirected")
            synchronize()
            load_s = time.perf_counter() - start
            weighted = has_weights(edges)
            for algorithm, source in SOURCES.items():
                if algorithm in params.algorithms:
                    data.index_of(getattr(params, source))  # before any kernel runs
        except (OSError, hb.errors.InvalidValue) as exc:
            parser.error(str(exc))
        print(
            f"{name}: {data.vertex_ids.size} vertices, {data.matrix.nnz} stored edges "
            f"({'directed' if params.directed else 'undirected, stored both ways'}, "
            f"{'weighted' if weighted else 'unweighted'}), backend {backend}, "
            f"loaded in {load_s:.3f} s"
        )
        if args.output is not None:
            args.output.mkdir(parents=True, exist_ok=True)
        rows = []
        for algorithm in params.algorithms:
            if algorithm == "sssp" and not weighted:
                rows.append(Row(algorithm, note="skipped: the edge file has no weights"))
                continue
            result, seconds = timed(kernel(algorithm, data, graph, params), backend, args.repeat)
            rows.append(Row(algorithm, seconds, args.repeat))
            if args.output is not None:
                write_output(args.output / f"{name}-{algorithm.upper()}", algorithm, data, result)
    print(table(rows))
    if args.output is not None:
        print(f"results written to {args.output}/{name}-<ALGORITHM>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
