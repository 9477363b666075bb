"""Levels rounds on the sparse executor with no host round trip a round (GPU only).

:func:`hyblas.ops.propagate` with ``levels=True`` and ``executor='sparse'`` in the ``any``
monoid (BFS's ``any_pair``) runs here on the GPU. Every round is the sparse executor's push
and spreading kernels over its layout, as one ``vxm(frontier, A, mask=~state.S)`` call would
run them, with two differences that take the host out of the rounds:

- **The claims stay set.** An ``any`` call first sets the presence bit of every output the
  mask blocks (``sparse_push.cu``'s header), and then claims an output with its first edge.
  Round after round, the outputs claimed are the ones reached, which are exactly what the next
  round's ``~state.S`` adds: the bits are set up once, from the state, and left as they are.
- **One queue.** A round's outputs are listed after its inputs, and a one-thread kernel
  (``hyblas_sparse_advance``) makes them the next round's inputs, whose values the push reads
  from the work words the claims wrote. The push kernel's grid is fixed
  (``SparseParams.spread_blocks``), each block taking groups of inputs one after another.

So the kernels of ``SparseParams.graph_rounds`` rounds are captured once into a CUDA graph,
cached with the work arrays it points to. The graph is launched again and again, and the host
reads the rounds' state once a launch. The rounds after the last one do nothing. Each
vertex's round comes from the bounds the advance kernel keeps. On the CPU, and for every other
``propagate`` on ``executor='sparse'``, the rounds are host rounds (one ``vxm`` each, the
sparse executor's NumPy emulation on the CPU).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backend import capture_graph, elapsed_ms, launch, launch_graph, record_event, translate_oom
from ..containers.matrix import Matrix
from ..device import arrays as _prim
from ..device.codegen import placeholder
from ..executors.sparse import executor as _ex
from ..executors.sparse.executor import SparseKernels, Workspace
from ..executors.sparse.layout import SparseLayout, layout_of
from ..executors.sparse.params import THREADS, SparseParams, current_params
from ..operators.classes import Semiring
from .walk import Entry, Walked

__all__ = ["fits", "walk", "launch_timing", "STATE_WORDS"]

# the rounds' state (HYBLAS_R_* in sparse_push.cu): list end, gathered, lo, hi, round, done,
# last round, edges walked; then the bounds, 2 * graph_rounds slots (the first round is launched
# on its own before the first graph: up to graph_rounds + 1 rounds between two reads)
LIST_END, LO, HI, ROUND, DONE, LAST, EDGES, STATE_WORDS = 0, 2, 3, 4, 5, 6, 7, 8

_timed: list[dict[str, Any]] | None = None  # one dict a launch, inside launch_timing()


@contextlib.contextmanager
def launch_timing() -> Iterator[list[dict[str, Any]]]:
    """Time the launches of the rounds run inside the block (for benchmarks).

    Yields a list that, when the block ends, holds one dict per launch of the rounds' graph:
    ``first_round`` and ``rounds``, the rounds it ran (the first launch also runs the first
    round, launched on its own before it), ``gpu_ms`` (CUDA events around the launch: the
    rounds' kernels, and the empty rounds after the last) and ``wall_ms`` (host time from the
    launch to the rounds' state read back, the one host synchronisation of a launch).
    """
    global _timed
    launches: list[dict[str, Any]] = []
    _timed = launches
    try:
        yield launches
    finally:
        _timed = None
        for row in launches:
            start, stop = row.pop("events")
            row["gpu_ms"] = elapsed_ms(start, stop)


def fits(A: Matrix, semiring: Semiring, levels: bool) -> bool:  # noqa: N803
    """Whether :func:`walk` takes these rounds: levels rounds in the ``any`` monoid on the GPU,
    with ``graph_rounds`` on (the caller also checks that every round multiplies in one
    operand type, as for the device loop: a round's results are the next one's operands)."""
    return (
        A.backend == "cuda"
        and levels
        and semiring.monoid.name == "any"
        and current_params().graph_rounds > 0
    )


@dataclass
class _Held:
    """What a rounds graph points to, cached on the layout with it: the work arrays of
    ``any`` calls, the queue (the first frontier, then every round's outputs), the rounds'
    state words and the gathered inputs."""

    kernels: SparseKernels
    workspace: Workspace
    queue: Any
    state: Any
    gathered: Any
    gathered_cap: int
    graph: Any = None


def walk(entry: Entry) -> Walked:
    """Run ``entry``'s levels rounds on the sparse executor until a round reaches nothing or
    the last round is done (``entry.exit_edges`` and ``entry.pull`` are not used: every round
    pushes every edge of its frontier)."""
    A, sr = entry.A, entry.semiring  # noqa: N806
    xp = A.xp
    params = current_params()
    layout = layout_of(A.T, params)  # vxm's edge matrix
    n = layout.nrows
    op_type = np.dtype(entry.op_type)
    ids, x = _first_frontier(entry)
    first = int(ids.size)
    kernels = _ex.kernels_for(
        sr,
        op_type,
        layout.push_dst.dtype,
        np.dtype(bool),
        (True, layout.iso_value is not None, True, True, True),
    )
    module, claims = kernels.module, kernels.claims
    with translate_oom("sparse rounds"):
        workspace = _ex.workspace_for(layout, xp, module, sr, sr.output_type(op_type))
        held = _held(layout, xp, params, sr, op_type, kernels, workspace)
        presence, claim_bits, blocked = workspace.presence, workspace.claims, workspace.blocked
        workspace.clean = False  # until the rounds are done
        # the claims of mask=~state.S, left set for every round
        state_present = (
            entry.present if entry.present is not None else _presence(xp, n, entry.state_ids)
        )
        launch(
            claims,
            (_ex.blocks(n),),
            (THREADS,),
            (
                np.int64(n),
                np.int64(layout.high_count),
                layout.output_order,
                placeholder(xp, np.bool_),
                state_present,
                presence,
                claim_bits,
                blocked,
            ),
        )
        held.queue[:first] = ids.astype(held.queue.dtype, copy=False)
        start = np.zeros(held.state.size, dtype=np.uint64)
        start[[LIST_END, HI, ROUND, LAST]] = first, first, entry.first_round, entry.last_round
        held.state.set(start)
        slots = held.state.size - STATE_WORDS
        bounds: list[int] = []  # where each round's outputs end in the queue
        row = _timing_row(entry.first_round)
        _launch_round(xp, layout, params, held, x.astype(op_type, copy=False), _ex.ROUND_XS)
        while True:
            if held.graph is None:
                xs = placeholder(xp, op_type)  # not read: the values are in the work words
                held.graph = capture_graph(
                    lambda: [
                        _launch_round(xp, layout, params, held, xs, _ex.ROUND_WS)  # noqa: B023
                        for _ in range(params.graph_rounds)
                    ]
                )
            launch_graph(held.graph)
            if row is not None:
                row["events"].append(record_event())
            words = [int(w) for w in held.state.get()]  # the launch's one host synchronisation
            ran = words[ROUND] if words[DONE] else words[ROUND] - 1
            _end_timing_row(row, ran)
            bounds += [
                words[STATE_WORDS + r % slots]
                for r in range(entry.first_round + len(bounds), ran + 1)
            ]
            if words[DONE]:
                break
            row = _timing_row(ran + 1)
        walked = _walked(entry, layout, held, words, bounds, first, sr.output_type(op_type))
        workspace.clean = True
    return walked


def _first_frontier(entry: Entry) -> tuple[Any, Any]:
    """The first round's inputs (int64 ids) and their values."""
    if entry.ids is not None:
        return entry.ids, entry.x
    ids = entry.A.xp.flatnonzero(entry.frontier_present)
    return ids, entry.x[ids]


def _presence(xp: Any, n: int, state_ids: Any) -> Any:
    present = xp.zeros(n, dtype=bool)
    present[state_ids] = True
    return present


def _held(
    layout: SparseLayout,
    xp: Any,
    params: SparseParams,
    sr: Semiring,
    op_type: np.dtype,
    kernels: SparseKernels,
    workspace: Workspace,
) -> _Held:
    """The cached arrays and graph of these rounds (made if need be), per semiring, operand
    type and parameter set: the graph points to them, to the ``any`` workspace and to the
    layout's arrays."""
    cache = layout.__dict__.setdefault("_rounds", {})
    key = (sr, np.dtype(op_type).str, params)
    held = cache.get(key)
    if held is not None and held.workspace is workspace and held.kernels is kernels:
        return held
    degrees = layout.push_indptr[1:] - layout.push_indptr[:-1]
    gathered_cap = max(1, int(xp.count_nonzero(degrees > params.reach)))
    held = cache[key] = _Held(
        kernels=kernels,
        workspace=workspace,
        # each output is listed once at most, after the first frontier (no repeats)
        queue=xp.empty(2 * max(layout.nrows, 1), dtype=layout.push_dst.dtype),
        state=xp.zeros(STATE_WORDS + 2 * params.graph_rounds, dtype=np.uint64),
        gathered=xp.empty(2 * gathered_cap, dtype=np.int64),
        gathered_cap=gathered_cap,
    )
    return held


def _launch_round(
    xp: Any, layout: SparseLayout, params: SparseParams, held: _Held, xs: Any, mode: np.int32
) -> None:
    """Launch (or, inside a capture, record) one round: its push, spreading and advance
    kernels. ``xs``: the first round's input values (``ROUND_XS``), else unread."""
    push_kernel, spread_kernel, advance = (
        held.kernels.push,
        held.kernels.spread,
        held.kernels.advance,
    )
    ws, presence, claim_bits = held.workspace.words, held.workspace.presence, held.workspace.claims
    op_type = np.dtype(xs.dtype)
    iso = layout.iso_value is not None
    weights = placeholder(xp, op_type) if iso else layout.weights_as(op_type)
    iso_value = op_type.type(layout.iso_value if iso else 0)
    no_active, no_mask = placeholder(xp, np.int64), placeholder(xp, np.bool_)
    edges = (
        layout.push_indptr,
        layout.push_split,
        layout.push_dst,
        weights,
        iso_value,
        layout.output_order,
    )
    walk_out = (
        ws,
        presence,
        claim_bits,
        held.workspace.high_words,
        held.queue,
        held.state,
        held.gathered,
        np.int64(held.gathered_cap),
        held.queue,
        mode,
    )
    launch(
        push_kernel,
        (params.spread_blocks,),
        (THREADS,),
        (
            np.int64(0),
            no_active,
            xs,
            *edges,
            np.int64(layout.high_count),
            np.int32(params.segment),
            np.int64(params.reach),
            np.int64(params.segment_min_edges),
            no_mask,
            no_mask,
            *walk_out,
        ),
    )
    launch(
        spread_kernel,
        (params.spread_blocks,),
        (THREADS,),
        (no_active, xs, *edges, no_mask, no_mask, *walk_out),
    )
    launch(advance, (1,), (1,), (held.state, np.int64(held.state.size - STATE_WORDS)))


def _timing_row(first_round: int) -> dict[str, Any] | None:
    if _timed is None:
        return None
    row = {"first_round": first_round, "started": time.perf_counter(), "events": [record_event()]}
    _timed.append(row)
    return row


def _end_timing_row(row: dict[str, Any] | None, ran: int) -> None:
    if row is not None:
        row["rounds"] = ran - row["first_round"] + 1
        row["wall_ms"] = (time.perf_counter() - row.pop("started")) * 1e3


def _walked(
    entry: Entry,
    layout: SparseLayout,
    held: _Held,
    words: list[int],
    bounds: list[int],
    first: int,
    out_type: np.dtype,
) -> Walked:
    """What the rounds give back: the vertices reached (the queue after the first frontier),
    each with its round, and the frontier the last round left (empty unless the last round
    allowed stopped them)."""
    xp = entry.A.xp
    end = bounds[-1]
    lo, hi = words[LO], words[HI]
    ids = held.queue[lo:hi].astype(np.int64)
    x = xp.empty(hi - lo, dtype=out_type)
    if hi > lo:  # the finish kernel reads the values out (an `any` workspace is not reset)
        launch(
            held.kernels.finish,
            (_ex.blocks(hi - lo),),
            (THREADS,),
            (
                np.int64(hi - lo),
                held.queue[lo:hi],
                held.workspace.words,
                held.workspace.presence,
                x,
            ),
        )
    common = dict(ids=ids, x=x, rounds=len(bounds), edges=words[EDGES])
    count = end - first
    reached = held.queue[first:end].astype(np.int64)
    # round of each: the queue holds each round's outputs after the round before's
    rounds = _prim.expand(xp, xp.asarray(np.diff(bounds, prepend=first))) + entry.first_round
    bitmap = entry.into_bitmap(count) if entry.into_bitmap is not None else None
    if bitmap is not None:
        values, present = bitmap
        values[reached] = rounds.astype(values.dtype, copy=False)
        present[reached] = True
        return Walked(values=values, present=present, reached_count=count, **common)
    return Walked(reached=reached, reached_rounds=rounds, reached_count=count, **common)
