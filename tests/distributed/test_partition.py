"""The partition arithmetic, the exchange's encodings and the communicator's checks, in one
process (no launcher): what the multi-process tests build on.

A 2 x 2 grid over 10 indices (pieces of 2, 3, 2, 3)::

    pieces     0:[0,2)  1:[2,5)  2:[5,7)  3:[7,10)     piece k on rank k = (k // 2, k % 2)
    row block    0 = pieces 0, 1 = [0, 5)      1 = pieces 2, 3 = [5, 10)
    column block 0 = pieces 0, 1 = [0, 5)      1 = pieces 2, 3 = [5, 10)
    column layout: rank (i, j) holds piece j * 2 + i: ranks 0, 1, 2, 3 hold 0, 2, 1, 3
"""

from __future__ import annotations

import numpy as np
import pytest

import hyblas as hb
from hyblas import distributed as hd
from hyblas.errors import DimensionMismatch, InvalidObject, InvalidValue


@pytest.mark.parametrize(("p", "shape"), [(1, (1, 1)), (2, (2, 1)), (3, (3, 1)), (4, (2, 2)),
                                          (6, (6, 1)), (9, (3, 3)), (16, (4, 4))])  # fmt: skip
def test_grid_shape(p: int, shape: tuple[int, int]) -> None:
    grid = hd.ProcessGrid.for_size(p)
    assert (grid.rows, grid.cols) == shape
    assert sorted(grid.rank_of(*grid.coords(r)) for r in range(p)) == list(range(p))


@pytest.mark.parametrize("p", [1, 2, 3, 4, 6, 9])
def test_column_layout_is_a_permutation_and_its_inverse(p: int) -> None:
    grid = hd.ProcessGrid.for_size(p)
    held = [grid.column_piece(r) for r in range(p)]
    assert sorted(held) == list(range(p))
    assert all(grid.column_holder(grid.column_piece(r)) == r for r in range(p))
    for r in range(p):  # a column block's pieces are held by that grid column
        i, j = grid.coords(r)
        assert j * grid.rows <= grid.column_piece(r) < (j + 1) * grid.rows


@pytest.mark.parametrize("p", [1, 2, 3, 4, 9])
@pytest.mark.parametrize("n", [0, 1, 7, 10, 101])
def test_blocks_tile_the_matrix_once(p: int, n: int) -> None:
    part = hd.Partition(n, hd.ProcessGrid.for_size(p))
    grid = part.grid
    cover = np.zeros((n, n), dtype=int)
    for r in range(p):
        i, j = grid.coords(r)
        (r0, r1), (c0, c1) = part.row_block(i), part.column_block(j)
        cover[r0:r1, c0:c1] += 1
    assert (cover == 1).all()
    assert list(part.owner(np.arange(n))) == [
        k for k in range(p) for _ in range(part.piece(k)[1] - part.piece(k)[0])
    ]


def test_the_example_grid_of_the_docstring() -> None:
    part = hd.Partition(10, hd.ProcessGrid(2, 2))
    assert part.bounds.tolist() == [0, 2, 5, 7, 10]
    assert (part.row_block(1), part.column_block(0)) == ((5, 10), (0, 5))
    assert [part.grid.column_piece(r) for r in range(4)] == [0, 2, 1, 3]


def test_dense_volume_follows_the_grid() -> None:
    square = hd.Partition(1 << 20, hd.ProcessGrid(2, 2)).dense_volume(4.0)
    column = hd.Partition(1 << 20, hd.ProcessGrid(4, 1)).dense_volume(4.0)
    assert column["gather"] == 0 and column["permute"] == 0  # whole rows: nothing to gather
    assert square["gather"] > 0 and square["permute"] > 0
    assert column["reduce"] == 3 * (1 << 18) * 5


@pytest.mark.parametrize("size", [1, 9, 64, 1000])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.5, 1.0])
@pytest.mark.parametrize("with_values", [True, False])
def test_encode_decode_round_trip(size: int, density: float, with_values: bool) -> None:
    rng = np.random.default_rng(size)
    ids = np.flatnonzero(rng.random(size) < density)
    values = rng.uniform(-5, 5, ids.size)
    piece = hb.Vector.from_coo(ids, values, size=size)
    message, choice = hd.encode(piece, with_values)
    smaller = min(choice.sparse_bytes, choice.bitmap_bytes)
    assert message.size == smaller
    assert smaller == (choice.sparse_bytes if choice.encoding == "sparse" else choice.bitmap_bytes)
    got = hd.decode(message, size, np.float64, with_values, "cpu")
    assert (got.stored_sparse is not None) == (choice.encoding == "sparse")
    got_ids, got_values = got.to_coo()
    np.testing.assert_array_equal(got_ids, ids)
    np.testing.assert_array_equal(got_values, values if with_values else np.ones(ids.size))


def test_concatenate_keeps_sparse_pieces_sparse_and_places_bitmap_ones() -> None:
    narrow = [hb.Vector.from_coo([5], [1.0], size=100), hb.Vector.from_coo([], [], size=50)]
    joined = hd.concatenate(narrow)
    assert joined.stored_sparse is not None and joined.to_coo()[0].tolist() == [5]
    wide = hb.Vector.from_dense(np.arange(4.0))
    mixed = hd.concatenate([narrow[0], wide])
    assert mixed.stored_bitmap is not None
    assert mixed.to_coo()[0].tolist() == [5, 100, 101, 102, 103]
    assert mixed.nnz == 5


def test_choose_switches_at_the_crossover() -> None:
    # pattern only, 8192 elements: a bitmap is 1024 bytes, an index 4 bytes
    assert hd.choose(255, 8192, 0).encoding == "sparse"
    assert hd.choose(257, 8192, 0).encoding == "bitmap"
    # with 8-byte values, a bitmap carries every element's value: sparse far longer
    assert hd.choose(5000, 8192, 8).encoding == "sparse"
    assert hd.choose(6000, 8192, 8).encoding == "bitmap"


def test_reduce_merges_with_the_monoid_on_one_process() -> None:
    comm = hd.SelfCommunicator("cpu")
    partial = hb.Vector.from_coo([1, 4], [3, 2], size=6, dtype=np.int64)
    for monoid in (hb.monoid.plus, hb.monoid.min, hb.monoid.times):
        got = hd.reduce(comm, partial, [6], monoid, True, "vxm")
        assert got.isequal(partial)


def test_communicator_checks() -> None:
    comm = hd.SelfCommunicator("cpu")
    with pytest.raises(InvalidValue, match="reduction"):
        comm.allreduce(np.ones(2), "mean")
    with pytest.raises(DimensionMismatch):
        comm.allgather(np.ones((2, 2)))
    with pytest.raises(InvalidObject):
        comm.allgather([1, 2])
    with pytest.raises(DimensionMismatch):
        comm.reduce_scatter(np.ones(3), [2])
    with pytest.raises(DimensionMismatch):
        comm.alltoallv([np.ones(1), np.ones(1)])
    with pytest.raises(InvalidValue):
        comm.broadcast(np.ones(1), root=1)
    with pytest.raises(InvalidValue):
        hd.SelfCommunicator("tpu")
    assert comm.allreduce(np.array([True, False]), "max").tolist() == [True, False]
    assert comm.traffic.calls == 1 and comm.traffic.bytes_sent == 0


def test_containers_refuse_what_does_not_fit() -> None:
    comm = hd.init("cpu")
    with pytest.raises(InvalidObject):
        hd.DistMatrix.from_matrix("comm", hb.generators.grid_2d(2, 2))  # type: ignore[arg-type]
    with pytest.raises(InvalidValue, match="needs 4 processes"):
        hd.DistVector.new(comm, 3, float, grid=hd.ProcessGrid(2, 2))
    with pytest.raises(InvalidValue):
        hd.DistVector.new(comm, -1, float)
    A = hd.DistMatrix.from_edges(comm, [0], [1], nrows=2, ncols=3)
    with pytest.raises(DimensionMismatch):
        hd.vxm(hd.DistVector.new(comm, 3, float), A, "plus_times")
    with pytest.raises(InvalidObject):
        hd.mxv(A, hb.Vector.new(float, 3), "plus_times")  # type: ignore[arg-type]
    with pytest.raises(DimensionMismatch):
        hd.bfs(A, 0)
    with pytest.raises(InvalidValue):
        hd.pagerank(hd.DistMatrix.from_edges(comm, [0], [1], nrows=2), iterations=-1)
    with pytest.raises(InvalidValue):
        hd.pagerank(hd.DistMatrix.from_edges(comm, [0], [1], nrows=2), dtype=np.int32)


@pytest.mark.parametrize(("n", "p"), [(10, 4), (3, 4), (17, 2), (64, 1)])
def test_slot_layout_puts_each_piece_in_a_slot_and_back(n: int, p: int) -> None:
    part = hd.Partition(n, hd.ProcessGrid.for_size(p))
    layout = hd.SlotLayout.of(part)
    assert layout.slot % 8 == 0 and layout.slot >= max(layout.lengths.tolist() + [1])
    values = np.arange(1, n + 1, dtype=np.uint8)
    flat = layout.slots(values, 0, p)
    assert flat.size == p * layout.slot
    for k in range(p):  # piece k's elements at the start of slot k, zeros after them
        start, stop = part.piece(k)
        slot = flat[k * layout.slot : (k + 1) * layout.slot]
        assert slot[: stop - start].tolist() == values[start:stop].tolist()
        assert not slot[stop - start :].any()
    assert layout.block(flat, 0, p).tolist() == values.tolist()
    if p > 1:  # a block of consecutive pieces, as a grid row or column holds them
        start, _ = part.piece(1)
        _, stop = part.piece(p - 1)
        assert layout.block(flat, 1, p - 1).tolist() == values[start:stop].tolist()


def test_bfs_level_volume_counts_the_reduce_the_counts_and_the_bits() -> None:
    # 2 x 1 grid, slots of 2**19: one slot of presence bytes, 16 bytes of counts, one slot of bits
    part = hd.Partition(1 << 20, hd.ProcessGrid(2, 1))
    assert hd.level_volume(part) == (1 << 19) + 16 + (1 << 16)
    one = hd.Partition(1 << 20, hd.ProcessGrid(1, 1))
    assert hd.level_volume(one) == 0.0


def test_alltoallv_of_known_counts_checks_them() -> None:
    comm = hd.SelfCommunicator("cpu")
    assert comm.alltoallv([np.arange(3)], counts=[3])[0].tolist() == [0, 1, 2]
    with pytest.raises(DimensionMismatch, match="one count per process"):
        comm.alltoallv([np.arange(3)], counts=[2])
    with pytest.raises(DimensionMismatch):
        comm.alltoallv([np.arange(3)], counts=[3, 0])


def test_dense_exchange_needs_a_monoid_a_collective_computes() -> None:
    comm = hd.init("cpu")
    A = hd.DistMatrix.from_edges(comm, [0, 1], [1, 2], [True, True], nrows=3)
    with pytest.raises(InvalidValue, match="lxor"):
        hd.DenseExchange(A, hb.semiring.lxor_land, bool)
    product = hd.DenseExchange(A, hb.semiring.lor_land, bool)
    assert product.vxm(np.array([True, False, True])).tolist() == [False, True, False]


def test_dense_exchange_takes_square_matrices_and_the_two_layouts() -> None:
    comm = hd.init("cpu")
    wide = hd.DistMatrix.from_edges(comm, [0], [3], nrows=3, ncols=5)
    with pytest.raises(DimensionMismatch, match="DenseExchange"):
        hd.DenseExchange(wide, "plus_times", np.float64)
    A = hd.DistMatrix.from_edges(comm, [0, 0], [1, 2], [1.0, 4.0], nrows=3)
    product = hd.DenseExchange(A, "plus_times", np.float64)
    x = np.array([1.0, 2.0, 3.0])
    assert product.vxm(x, result="column").tolist() == [0.0, 1.0, 4.0]
    assert product.mxv(x, given="column").tolist() == [14.0, 0.0, 0.0]
    with pytest.raises(InvalidValue, match="'row' or 'column'"):
        product.vxm(x, result="diagonal")
    with pytest.raises(InvalidValue, match="'row' or 'column'"):
        product.mxv(x, given="rows")


def test_one_process_runs_the_same_program() -> None:
    comm = hd.init("cpu")
    assert isinstance(comm, hd.SelfCommunicator)
    A = hb.generators.erdos_renyi(50, 120, seed=4)
    D = hd.DistMatrix.from_matrix(comm, A)
    assert hd.bfs(D, 3).gather().isequal(hb.algorithms.bfs(A, 3))
    assert hd.connected_components(D).gather().isequal(hb.algorithms.connected_components(A))
    with hd.trace() as t:
        ranks = hd.pagerank(D, iterations=3).gather()
    assert ranks.isclose(hb.algorithms.pagerank(A, iterations=3))
    steps = t.summary()
    assert {"gather", "local", "reduce"} <= set(steps)
    assert "permute" not in steps  # one process holds its own pieces
    assert all(row.bytes == 0 for row in t.rows)
    assert t.table().count("\n") == len(t.rows)


def test_a_gathered_result_is_a_copy_on_one_process() -> None:
    comm = hd.init("cpu")
    x = hd.DistVector.from_scalar(comm, 1.0, 3)
    whole = x.gather()
    hb.ops.assign(whole, 5.0, None)
    assert x.local.to_dense().tolist() == [1.0, 1.0, 1.0]
