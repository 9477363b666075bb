"""The OSM world highway graph of the benchmarks (``scgraph-data``, the ``bench`` and ``test``
extras): every stored entry of the package's adjacency lists arrives, with its length, the
self loops and the explicit zero lengths included."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from benchmarks import graphs, run

needs_data = pytest.mark.skipif(
    graphs.unavailable(graphs.OSM_HIGHWAYS) is not None,
    reason="scgraph-data (the bench and test extras) is not installed",
)


def test_without_the_package_the_harness_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setattr(graphs.importlib.util, "find_spec", lambda name: None)
    assert "scgraph-data" in graphs.unavailable(graphs.OSM_HIGHWAYS)
    assert graphs.unavailable("kron10") is None
    with pytest.raises(SystemExit):
        run.main(["--graphs", graphs.OSM_HIGHWAYS, "--ops", "bfs", "--backend", "cpu"])


@needs_data
def test_the_loader_keeps_every_entry_self_loops_and_explicit_zeros() -> None:
    from scgraph_data.world_highways import world_highways_geograph

    adjacency = world_highways_geograph.graph  # the package's own lists: vertex -> {v: km}
    entries = {(u, v): km for u, nbrs in enumerate(adjacency) for v, km in nbrs.items()}
    self_loops = sum((u, u) in entries for u in range(len(adjacency)))
    zeros = sum(km == 0 for km in entries.values())
    assert self_loops and zeros  # what the loader must keep is there to keep

    graph = graphs.build(graphs.OSM_HIGHWAYS, "cpu")
    assert graph.n == len(adjacency) and graph.nnz == graph.weights.nnz == len(entries)
    rows, cols, km = graph.weights.to_coo()
    assert int(np.count_nonzero(rows == cols)) == self_loops
    assert int(np.count_nonzero(km == 0)) == zeros
    expected = np.array([entries[(u, v)] for u, v in zip(rows.tolist(), cols.tolist())])
    np.testing.assert_array_equal(km, expected.astype(np.float32))
    pattern_rows, pattern_cols, ones = graph.A.to_coo()
    assert np.array_equal(pattern_rows, rows) and np.array_equal(pattern_cols, cols)
    assert np.all(ones == 1)
    assert graph.degrees[graph.source] == graph.degrees.max()


@needs_data
def test_the_networkx_graph_keeps_them_too() -> None:
    from benchmarks.networkx_backend import osm_highways_graph

    G, source = osm_highways_graph()  # noqa: N806
    n, rows, cols, km = graphs.osm_highways_coo()
    assert G.number_of_nodes() == n
    entries = sum(len(nbrs) for _, nbrs in G.adjacency())  # an edge both ways, a loop once
    assert entries == rows.size
    assert nx.number_of_selfloops(G) == int(np.count_nonzero(rows == cols))
    zero = sum(1 for _, _, w in G.edges(data="weight") if w == 0)
    assert zero == int(np.count_nonzero((km == 0) & (rows <= cols)))
    assert G.degree(source) == max(d for _, d in G.degree)
