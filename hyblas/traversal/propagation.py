"""Low-overhead iteration: many rounds of a frontier product without a host round trip each.

:func:`propagate` runs the rounds of a traversal, ``reached = frontier ⊕.⊗ A``, until nothing
changes. On the GPU its narrow rounds run in one persistent cooperative kernel (the *device
loop*, ``kernels/frontier_loop.cu``): a grid-wide barrier between rounds instead of several
kernel launches and a host read of the frontier's size, so a grid BFS of thousands of levels
pays a barrier a level instead of a host round trip. Wide rounds, where the edge work hides the
host's overhead and a pull or dense product beats pushing every edge, go back to the host as
ordinary ``vxm`` calls on the executor the policy picks, and the loop takes over again when the
frontier narrows; except that a BFS-like round (levels, ``any`` monoid, a multiply that ignores
the frontier's value) stays in the loop as a *pull round*, each vertex not reached yet reading
its in-edges up to the first from the frontier (:func:`pulls`). On the CPU the narrow rounds
run in the device loop's NumPy emulation, one vectorized step per round over the frontier's
edges, which skips the ops' passes over all the vertices each round: on a high-diameter graph
(a grid) those passes, not the edges, would be most of the time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..backend import names_oom
from ..containers.derived import known_symmetric
from ..containers.matrix import Matrix
from ..containers.vector import Vector
from ..device import arrays as primitives
from ..errors import DimensionMismatch, DomainMismatch, InvalidObject, InvalidValue
from ..executors import registry
from ..executors import trace as _trace
from ..operators.classes import Semiring
from ..ops import checks
from ..ops.products import vxm
from ..ops.spec import same_backend
from . import device_loop, emulation
from . import graph_rounds as _sparse_rounds
from .buckets import Buckets
from .kernels import IMPROVING_MONOIDS
from .params import CPU_AUTO_PARAMS, DEFAULT_PARAMS, current_params, loop_params
from .rounds import host_bucket_round, host_round
from .walk import Entry, ReachedInto, Walked

__all__ = ["propagate", "frontier_facts", "EXECUTORS"]

EXECUTORS = ("auto", "loop", *registry.names())
_NO_LAST_ROUND = 2**62  # the device loop's last round when the rounds run until they end


@names_oom("propagate")
def propagate(
    state: Vector,
    frontier: Vector,
    A: Matrix,  # noqa: N803 - math spelling
    semiring: Semiring | str,
    *,
    levels: bool = False,
    max_rounds: int | None = None,
    executor: str = "auto",
    on_rounds: Callable[[int, int], Any] | None = None,
    delta: float | None = None,
) -> int:
    """Run rounds of ``reached = frontier ⊕.⊗ A`` until the frontier is empty.

    Round ``r = 1, 2, ...`` computes ``reached = frontier ⊕.⊗ A`` (``vxm``: ``A``'s rows are
    the sources) and then

    * ``levels=True``: ``reached`` is masked to the vertices not in ``state`` yet
      (``mask=~state.S``); those get the value ``r`` in ``state``, and ``reached`` is the
      next frontier. This is a BFS: with ``state = {source: 0}``, ``state[v]`` ends as the
      level of ``v``.
    * ``levels=False``: the vertices that ``reached`` changes, where ``state[v] ⊕ reached[v]
      != state[v]`` or ``state`` has no ``v`` yet, get ``state[v] ⊕= reached[v]``, and are the
      next frontier with their new values. This is frontier Bellman-Ford with ``min_plus``;
      the add monoid must be one that only moves values one way (min, max, lor, land, bor,
      band), so that the rounds end.

    With ``delta`` (``levels=False``, min monoid) the rounds are *bucketed*, as in
    delta-stepping: a round expands only the frontier vertices whose value is below a
    threshold that moves up in steps of ``delta``, and the others wait in the frontier
    (``hyblas.traversal.buckets`` has the exact rules). The state at the end is the same;
    there are more rounds, but on a high-diameter weighted graph far fewer edges are walked,
    because most vertices are expanded once, with their final value.

    This is the loop an algorithm would write with ``vxm`` / ``assign`` / ``ewise_*`` and a
    ``while frontier.nnz`` test (``hyblas.traversal.rounds`` writes it so), and gives the same
    result; on the GPU it runs narrow rounds without a host round trip (see the module's
    docstring) and reads ``frontier.nnz`` on the device.

    Parameters
    ----------
    state : Vector
        Updated in place. With ``levels=False`` its dtype is the semiring's output type.
    frontier : Vector
        The first round's input; updated in place to the frontier after the last round run
        (empty unless ``max_rounds`` stopped the rounds).
    A : Matrix
        Square; ``A[i, j]`` is the edge ``i -> j``.
    semiring : Semiring or str
    levels : bool
        Which of the two rounds above.
    max_rounds : int, optional
        Stop after this many rounds (default: when the frontier is empty).
    executor : str
        ``'auto'`` (default) and ``'loop'``: the device loop for narrow rounds (its NumPy emulation
        on the CPU) and ``vxm`` with ``executor='auto'`` for wide ones (see
        :class:`~hyblas.traversal.LoopParams`; on the CPU, where no parameters were set,
        ``'auto'`` runs levels rounds with ``hyblas.traversal.params.CPU_AUTO_PARAMS``: wide
        rounds are host rounds, not pulled in the emulated loop). ``'reference'``, ``'dense'``,
        ``'sparse'``, ``'pull'``: ``vxm`` on that executor every round, no device loop; except
        that on the GPU, levels rounds in the ``any`` monoid on ``'sparse'`` run as its *graph
        rounds*, the same kernels with no host round trip a round
        (``hyblas.traversal.graph_rounds``).
    on_rounds : callable, optional
        Called as ``on_rounds(rounds_done, frontier_nnz)`` whenever the host sees the
        rounds advance (after each host round, and after each stay in the device loop).
    delta : number, optional
        The bucket width of bucketed rounds (> 0, exact in the state's dtype); None (default):
        every round expands the whole frontier. Needs ``levels=False``, the min monoid, and a
        frontier of the state's dtype.

    Returns
    -------
    int
        The number of rounds run.

    Raises
    ------
    InvalidObject
        If an argument has the wrong type (``on_rounds`` not callable included).
    DimensionMismatch
        If ``A`` is not square or the vectors do not have its size.
    DomainMismatch
        If ``state``'s dtype cannot hold the rounds' values: a bool state with
        ``levels=True``, a state of another dtype than the semiring's output type with
        ``levels=False``.
    InvalidValue
        For an unknown executor, a negative ``max_rounds``, an add monoid that does not end
        the rounds with ``levels=False``, a ``delta`` that does not fit the rounds, or
        ``state`` and ``frontier`` being one Vector; with ``levels=True``, when a round
        reaches a vertex whose level (the round's number) ``state``'s dtype cannot hold (a
        round after 127 in int8): raised once the rounds get there, nothing written.

    Examples
    --------
    >>> A = hb.Matrix.from_coo([0, 1, 2], [1, 2, 3], [True, True, True], nrows=4, ncols=4)
    >>> state = hb.Vector.from_coo([0], [0], size=4)  # BFS levels from vertex 0
    >>> frontier = hb.Vector.from_coo([0], [True], size=4)
    >>> hb.ops.propagate(state, frontier, A, "any_pair", levels=True)  # the number of rounds
    4
    >>> state.to_coo()
    (array([0, 1, 2, 3]), array([0, 1, 2, 3]))
    """
    sr = checks.operator(semiring, (Semiring,), "semiring")
    _check(state, frontier, A, sr, levels, max_rounds, executor, on_rounds)
    if executor == "auto" and A.backend == "cpu" and levels and current_params() is DEFAULT_PARAMS:
        with loop_params(CPU_AUTO_PARAMS):
            return _propagate(
                state, frontier, A, sr, levels, max_rounds, executor, on_rounds, delta
            )
    return _propagate(state, frontier, A, sr, levels, max_rounds, executor, on_rounds, delta)


def _propagate(
    state: Vector,
    frontier: Vector,
    A: Matrix,  # noqa: N803
    sr: Semiring,
    levels: bool,
    max_rounds: int | None,
    executor: str,
    on_rounds: Callable[[int, int], Any] | None,
    delta: float | None,
) -> int:
    buckets = _buckets(delta, levels, sr, state, frontier)
    state_work, frontier_work = _working_copy(state), _working_copy(frontier)
    params = current_params()
    limit = params.exit_limit(A.nnz, levels)
    device = params.device_loop and executor in ("auto", "loop")
    vxm_executor = "auto" if executor in ("auto", "loop") else executor
    # levels rounds stop after the last round number the state holds (every path: the host
    # rounds, the device loop, the graph rounds), and a round after it must reach nothing
    top = _last_level(state.dtype, max_rounds) if levels else None
    last = max_rounds if top is None else top
    done, threshold = 0, None
    edges = None  # the frontier's out-edges, where the round before counted them
    while (last is None or done < last) and frontier_work.nnz:
        sparse_rounds = executor == "sparse" and _sparse_rounds_fit(A, sr, levels, frontier_work)
        fits = device and _loop_fits(A, sr, frontier_work, buckets)
        # bucketed rounds check the state's values before entering: convert it once for both
        bitmap = state_work.as_bitmap() if fits and buckets else None
        entering = _entering(A, sr, levels, frontier_work, limit, bitmap, edges) if fits else None
        edges = None
        if sparse_rounds:
            walked, frontier_work = _enter(
                state_work,
                None,
                frontier_work,
                A,
                sr,
                levels,
                done + 1,
                last,
                limit,
                executor,
                None,
                None,
                _Entering(None),
                walk=_sparse_rounds.walk,
            )
            done += walked.rounds
        elif entering is not None:
            walked, frontier_work = _enter(
                state_work,
                bitmap,
                frontier_work,
                A,
                sr,
                levels,
                done + 1,
                last,
                limit,
                executor,
                buckets,
                threshold,
                entering,
            )
            done, threshold, edges = done + walked.rounds, walked.threshold, walked.next_edges
        elif buckets is not None:
            frontier_work, threshold = host_bucket_round(
                state_work,
                frontier_work,
                A,
                sr,
                buckets=buckets,
                threshold=threshold,
                executor=vxm_executor,
            )
            done += 1
        else:
            frontier_work, edges = host_round(
                state_work,
                frontier_work,
                A,
                sr,
                levels=levels,
                round_number=done + 1,
                executor=vxm_executor,
            )
            done += 1
        if on_rounds is not None:
            on_rounds(done, frontier_work.nnz)
    if top is not None and done == top and frontier_work.nnz:
        frontier_work = _past_the_last_level(state_work, frontier_work, A, sr, vxm_executor)
        done += 1
        if on_rounds is not None:
            on_rounds(done, 0)
    state.set_storage(
        sparse=state_work.stored_sparse, bitmap=state_work.stored_bitmap, nnz=state_work.known_nnz
    )
    if frontier_work.dtype != frontier.dtype:
        frontier_work = frontier_work.dup(dtype=frontier.dtype)
    frontier.set_storage(
        sparse=frontier_work.stored_sparse,
        bitmap=frontier_work.stored_bitmap,
        nnz=frontier_work.known_nnz,
    )
    return done


def _last_level(dtype: np.dtype, max_rounds: int | None) -> int | None:
    """The last round ``levels=True`` rounds may run into a state of ``dtype``: the largest
    round number it holds exactly (an integer type's largest value; 2**24 in float32, 2**53
    in float64), where ``max_rounds`` allows more rounds than that; None where it does not
    (or where that number is beyond any count of rounds: int64, uint64)."""
    top = _dt.int_range(dtype)[1] if dtype.kind in "iu" else 2 ** (np.finfo(dtype).nmant + 1)
    if top >= _NO_LAST_ROUND or (max_rounds is not None and max_rounds <= top):
        return None
    return top


def _past_the_last_level(
    state: Vector,
    frontier: Vector,
    A: Matrix,  # noqa: N803
    sr: Semiring,
    executor: str,
) -> Vector:
    """The round after the last round number ``state`` holds: it may reach nothing (the
    traversal ends there, and the empty frontier is returned); InvalidValue if it reaches a
    vertex, whose level the state cannot hold (before anything is written)."""
    reached = vxm(frontier, A, sr, mask=~state.S, executor=executor)
    if reached.nnz:
        level = _last_level(state.dtype, None) + 1  # (a dtype with a last level)
        raise InvalidValue(
            f"propagate(levels=True): round {level} reaches more vertices ({reached.nnz}), "
            f"but a state of dtype {state.dtype.name} holds levels up to {level - 1} only; "
            "give a state of a wider dtype (or max_rounds=)"
        )
    return reached


def _working_copy(vector: Vector) -> Vector:
    """What the rounds work on: the arguments change only at the end (not at all if a round
    raises). The rounds write into bitmaps only (a state's, in place); a sparse vector's
    arrays are never written, only replaced, so a sparse argument's are shared, not copied
    (each copy costs the host tens of microseconds on the GPU)."""
    if vector.stored_bitmap is not None:
        return vector.dup()
    return Vector(
        vector.size,
        vector.dtype,
        backend=vector.backend,
        sparse=vector.stored_sparse,
        nnz=vector.known_nnz,
    )


def _check(
    state: Any,
    frontier: Any,
    A: Any,
    sr: Semiring,
    levels: bool,  # noqa: N803
    max_rounds: Any,
    executor: Any,
    on_rounds: Any,
) -> None:
    checks.container(state, (Vector,), "state")
    checks.container(frontier, (Vector,), "frontier")
    checks.container(A, (Matrix,), "A")
    if state is frontier:  # both are written at the end: one would lose the other
        raise InvalidValue(
            "propagate: state and frontier are the same Vector; both are updated in place "
            "(the frontier to the rounds' last), so give the frontier as a copy "
            "(frontier=state.dup())"
        )
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"propagate: A must be square, got {A.nrows}x{A.ncols}")
    for name, vector in (("state", state), ("frontier", frontier)):
        if vector.size != A.nrows:
            raise DimensionMismatch(
                f"propagate: {name} has size {vector.size} but A is {A.nrows}x{A.ncols}"
            )
    same_backend("propagate", state=state, frontier=frontier, A=A)
    if not isinstance(executor, str) or executor not in EXECUTORS:
        raise InvalidValue(
            f"propagate: executor must be one of {EXECUTORS}, got {_dt.short_repr(executor)}"
        )
    if on_rounds is not None and not callable(on_rounds):
        raise InvalidObject(
            f"propagate: on_rounds must be None or a callable(rounds, frontier_nnz), got "
            f"{_dt.short_repr(on_rounds)}"
        )
    if max_rounds is not None and (
        not isinstance(max_rounds, int | np.integer)
        or isinstance(max_rounds, bool)
        or max_rounds < 0
    ):
        raise InvalidValue(f"propagate: max_rounds must be None or an int >= 0, got {max_rounds!r}")
    if not isinstance(levels, bool):
        raise InvalidObject(f"propagate: levels must be a bool, got {levels!r}")
    if levels:
        if _dt.is_bool(state.dtype):
            raise DomainMismatch(
                "propagate(levels=True) writes round numbers into state; a "
                "bool state cannot hold them"
            )
        return
    if sr.monoid.name not in IMPROVING_MONOIDS:
        raise InvalidValue(
            f"propagate(levels=False) needs an add monoid that only moves values "
            f"one way ({', '.join(sorted(IMPROVING_MONOIDS))}), so that the "
            f"rounds end; {sr.name} adds with {sr.monoid.name}"
        )
    out_type = sr.output_type(sr.input_type(A.dtype, frontier.dtype))
    if state.dtype != out_type:
        raise DomainMismatch(
            f"propagate: state has dtype {state.dtype} but {sr.name} gives "
            f"{out_type} here; the state takes the rounds' results"
        )


def _buckets(
    delta: Any, levels: bool, sr: Semiring, state: Vector, frontier: Vector
) -> Buckets | None:
    if delta is None:
        return None
    if levels:
        raise InvalidValue("propagate: delta (bucketed rounds) is for levels=False rounds")
    buckets = Buckets.for_rounds(delta, sr, state.dtype)
    if frontier.dtype != state.dtype:
        raise DomainMismatch(
            f"propagate: bucketed rounds compare the frontier's values with the "
            f"state's; the frontier has dtype {frontier.dtype}, the state "
            f"{state.dtype}"
        )
    return buckets


def _sparse_rounds_fit(
    A: Matrix,
    sr: Semiring,
    levels: bool,  # noqa: N803
    frontier: Vector,
) -> bool:
    """Whether ``executor='sparse'`` rounds run as graph rounds (:mod:`.graph_rounds`), in
    one operand type as the device loop's."""
    return _sparse_rounds.fits(A, sr, levels) and _loop_fits(A, sr, frontier, None)


def _loop_fits(
    A: Matrix,
    sr: Semiring,
    frontier: Vector,  # noqa: N803
    buckets: Buckets | None,
) -> bool:
    """The device loop runs every round in one operand type: the first round's must also be
    that of the rounds after it, whose frontier holds results; bucketed rounds compare
    operands with results, so there both types are one."""
    op_type = sr.input_type(A.dtype, frontier.dtype)
    out_type = sr.output_type(op_type)
    if buckets is not None and out_type != op_type:
        return False
    return sr.input_type(A.dtype, out_type) == op_type


@dataclass
class _Entering:
    """The device loop takes the rounds, pulling wide ones over ``pull`` (None: no pulls),
    the first one among them if ``first_pulls``."""

    pull: Matrix | None
    first_pulls: bool = False


def pulls(sr: Semiring, levels: bool) -> bool:
    """Whether the device loop may pull a wide round of ``levels`` rounds in ``sr``: the first
    in-edge from the frontier then gives the product (the ``any`` monoid, and a multiply that
    ignores the frontier's value, e.g. BFS's ``any_pair``) and the reached-once stamps tell the
    frontier (the vertices the round before reached)."""
    return (
        levels
        and current_params().pull_rounds
        and sr.monoid.name == "any"
        and not sr.binaryop.reads_x
    )


def _entering(
    A: Matrix,
    sr: Semiring,
    levels: bool,
    frontier: Vector,  # noqa: N803
    limit: int,
    state: tuple[Any, Any] | None,
    edges: int | None = None,
) -> _Entering | None:
    """Whether the device loop takes the next rounds, and how (None: a host round).

    A frontier of at most ``limit`` out-edges (``edges``, counted here if None) is pushed in
    the loop, given the state's bitmap (bucketed rounds, where the loop carries a waiting
    vertex with the state's value) only if the frontier holds the state's values; a wider one
    too where the loop :func:`pulls` (over ``A.T``, computed then if need be). A narrow stay
    pulls the rounds that widen only if ``A.T`` is at hand already. A frontier of one vertex
    (and no state to check) is pushed without counting its edges: they are one row's, which
    the loop spreads over the grid if it is wide, and the count costs a host read."""
    if edges is None and not (state is None and frontier.known_nnz == 1):
        edges = frontier_facts(A, frontier)[0]
    pull = pulls(sr, levels) and A.nrows == A.ncols
    if edges is not None and edges > limit:
        if not pull:
            return None
        transpose = _pull_matrix(A, sr, compute=True)
        return _Entering(transpose, True) if _same_index_types(A, transpose) else None
    if state is not None:
        values, present = state
        ids, x = frontier.as_sparse()
        if not bool(A.xp.all(present[ids] & (values[ids] == x))):
            return None
    transpose = _pull_matrix(A, sr, compute=False) if pull else None
    return _Entering(
        transpose if transpose is not None and _same_index_types(A, transpose) else None
    )


def _pull_matrix(A: Matrix, sr: Semiring, *, compute: bool) -> Matrix | None:  # noqa: N803
    """The matrix a pull reads: ``A``'s transpose (computed if ``compute``, else only if at
    hand), or ``A`` itself where its structure is symmetric (an undirected Graph's) and the
    multiply reads neither value: the pull then needs only the pattern of ``A.T``, which is
    ``A``'s (no transpose is built: on the largest graphs there is no room for one)."""
    if known_symmetric(A) and not sr.binaryop.reads_y:
        return A
    return A.T if compute else A.transpose_at_hand()


def _same_index_types(A: Matrix, B: Matrix) -> bool:  # noqa: N803
    """The loop's kernel is specialized on ``A``'s index types; a pull reads ``B`` with them."""
    return A.indptr.dtype == B.indptr.dtype and A.indices.dtype == B.indices.dtype


def frontier_facts(A: Matrix, frontier: Vector) -> tuple[int, int]:  # noqa: N803
    """The frontier's out-edges in ``A`` (rows are sources) and the most of any one of its
    vertices. On the GPU one kernel reads the frontier as it is stored
    (:func:`.device_loop.frontier_facts`): propagate asks before every round, and each CuPy call
    costs the host tens of microseconds."""
    if A.backend == "cuda":
        return device_loop.frontier_facts(A, frontier)
    ids = frontier.as_sparse()[0]
    degrees = A.indptr[ids + 1] - A.indptr[ids]
    return int(degrees.sum()), int(degrees.max(initial=0))


def _enter(
    state: Vector,
    bitmap: tuple[Any, Any] | None,
    frontier: Vector,
    A: Matrix,
    sr: Semiring,
    levels: bool,
    first_round: int,  # noqa: N803
    max_rounds: int | None,
    limit: int,
    asked: str,
    buckets: Buckets | None,
    threshold: Any,
    entering: _Entering,
    walk: Callable[[Entry], Walked] | None = None,
) -> tuple[Walked, Vector]:
    """Run rounds from ``first_round`` in the device loop (pulling as ``entering`` says), or
    in ``walk`` (the sparse executor's graph rounds); updates ``state`` (given its bitmap if
    the caller has it) and returns what ran and the next frontier."""
    op_type = sr.input_type(A.dtype, frontier.dtype)
    if levels:  # the loop reads the state as it is stored, and only writes what it reaches
        values, present = None, state.stored_bitmap[1] if state.stored_bitmap is not None else None
        state_ids = state.stored_sparse[0] if state.stored_bitmap is None else None
    else:
        (values, present), state_ids = bitmap or state.as_bitmap(), None
    # the frontier as it is stored (a bitmap's vertices are found by the kernel); a first
    # round that pulls reads it as a bitmap
    if frontier.stored_bitmap is not None or entering.first_pulls:
        (x, frontier_present), ids = frontier.as_bitmap(), None
    else:
        (ids, x), frontier_present = frontier.stored_sparse, None
    entry = Entry(
        A=A,
        semiring=sr,
        op_type=op_type,
        levels=levels,
        values=values,
        present=present,
        ids=ids,
        x=x,
        first_round=first_round,
        last_round=max_rounds or _NO_LAST_ROUND,
        exit_edges=limit,
        buckets=buckets,
        threshold=threshold,
        state_ids=state_ids,
        first_count=frontier.nnz,
        frontier_present=frontier_present,
        pull=entering.pull,
        into_bitmap=ReachedInto(state) if levels else None,
    )
    timer = _trace.start_timer(A.backend) if _trace.tracing() else None
    if walk is not None:
        walked = walk(entry)
    elif A.backend == "cuda":
        walked = device_loop.walk(entry)
    else:
        walked = emulation.walk(entry)
    if timer is not None:
        last = first_round + walked.rounds - 1
        where = "the device loop" if walk is None else "graph rounds of the sparse executor"
        _trace.record(
            _trace.TraceRow(
                call=0,
                op="loop",
                executor="loop" if walk is None else "sparse",
                asked=asked,
                policy="",
                outputs=A.nrows,
                input_nnz=frontier.nnz,
                allowed=None,
                edges=walked.edges,
                reason=f"rounds {first_round}-{last} in {where} ({walked.rounds} rounds)",
            ),
            timer.stop(),
        )
    if levels:
        _add_reached(state, walked)
    else:  # the next round reads it as a bitmap: no count (a device sync) until the end
        state.set_storage(bitmap=(walked.values, walked.present), settle=False)
    return walked, _next_frontier(A, sr.output_type(op_type), walked, limit)


def _next_frontier(A: Matrix, dtype: np.dtype, walked: Walked, limit: int) -> Vector:  # noqa: N803
    """The frontier a stay hands back, from its queue (ids in any order). One wider than
    ``limit`` out-edges ended the stay: the next round is a host round, whose product (dense,
    pull) reads a bitmap, or a stay that pulls it, which reads it as a bitmap too; so it is
    handed over as one, scattered from the queue, whatever its density (sorting the ids for
    a sparse vector would cost more host time than the scatter the next round would do
    anyway). A narrower one (the last round asked for) is sorted."""
    xp, ids, x = A.xp, walked.ids, walked.x
    if ids.size and walked.next_edges > limit:
        bitmap = primitives.to_bitmap(xp, A.nrows, ids, x.astype(dtype, copy=False))
        return Vector(A.nrows, dtype, backend=A.backend, bitmap=bitmap, nnz=int(ids.size))
    if ids.size:  # else the rounds ran to the end: the walk's empty arrays, nothing to sort
        order = xp.argsort(ids)
        ids, x = ids[order], x[order]
    nxt = Vector(A.nrows, dtype, backend=A.backend, nnz=int(ids.size), sparse=(ids, x))
    return nxt.settle()


def _add_reached(state: Vector, walked: Walked) -> None:
    """Give ``state`` the vertices a levels stay reached, with their rounds."""
    known = int(state.stored_sparse[0].size) if state.stored_bitmap is None else state.known_nnz
    nnz = None if known is None else known + walked.reached_count
    if walked.reached is None:  # written into the bitmap _reached_into gave
        state.set_storage(bitmap=(walked.values, walked.present), nnz=nnz)
        return
    xp = state.xp
    ids, values = state.stored_sparse
    ids = xp.concatenate([ids, walked.reached])
    values = xp.concatenate([values, walked.reached_rounds.astype(state.dtype, copy=False)])
    order = xp.argsort(ids)
    state.set_storage(sparse=(ids[order], values[order]), nnz=nnz)
