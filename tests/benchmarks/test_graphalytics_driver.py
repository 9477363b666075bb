"""The Graphalytics driver (``python -m benchmarks.graphalytics``) end to end: the files it
writes for the LDBC example graphs against the specification's reference outputs (BFS and CDLP
exact, WCC as a partition, PR and SSSP within 1e-4 relative, LCC within 1e-6), the same run
from a ``.properties`` file, and its argument checks."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from benchmarks import graphalytics as driver

DATA = Path(__file__).resolve().parents[1] / "data" / "graphalytics"
EXAMPLE = DATA / "example"
KERNELS = ("BFS", "CDLP", "LCC", "PR", "SSSP", "WCC")
#: The parameters of the LDBC validation tests for the example graphs.
EXAMPLES = {
    "example-directed": {"directed": True, "bfs": 1, "sssp": 1, "cdlp": 2, "pr": 2},
    "example-undirected": {"directed": False, "bfs": 2, "sssp": 2, "cdlp": 2, "pr": 2},
}


def _read(path: Path) -> dict[int, str]:
    pairs = [line.split() for line in path.read_text().splitlines() if line.strip()]
    assert all(len(pair) == 2 for pair in pairs), path
    found = {int(vertex): value for vertex, value in pairs}
    assert len(found) == len(pairs), f"{path}: a vertex listed twice"
    return found


def _partition(labels: dict[int, str]) -> set[frozenset[int]]:
    groups: dict[str, set[int]] = {}
    for vertex, label in labels.items():
        groups.setdefault(label, set()).add(vertex)
    return {frozenset(group) for group in groups.values()}


def assert_matches(kernel: str, got_path: Path, expected_path: Path) -> None:
    """The driver's output ``got_path`` agrees with the reference ``expected_path``."""
    got, expected = _read(got_path), _read(expected_path)
    assert got.keys() == expected.keys(), f"{got_path.name}: other vertices"
    if kernel == "WCC":
        assert _partition(got) == _partition(expected), got_path.name
        return
    for vertex, want in expected.items():
        where = f"{got_path.name}, vertex {vertex}: expected {want}, got {got[vertex]}"
        if kernel in ("BFS", "CDLP"):
            assert int(got[vertex]) == int(want), where
        elif kernel == "LCC":
            assert math.isclose(float(got[vertex]), float(want), rel_tol=0, abs_tol=1e-6), where
        else:  # PR, SSSP; float() reads 'Infinity' and 'infinity', and inf is close to inf
            assert math.isclose(float(got[vertex]), float(want), rel_tol=1e-4), where


def _options(name: str) -> list[str]:
    p = EXAMPLES[name]
    return [
        "--directed" if p["directed"] else "--undirected",
        *("--bfs-source", str(p["bfs"]), "--sssp-source", str(p["sssp"])),
        *("--cdlp-iterations", str(p["cdlp"]), "--pr-iterations", str(p["pr"])),
        *("--pr-damping", "0.85"),
    ]


def _properties(name: str, path: Path, **changes: object) -> Path:
    p = {**EXAMPLES[name], **changes}
    lines = [
        "# the LDBC example graph's parameters",
        f"graph.{name}.vertex-file = {name}.v",
        f"graph.{name}.directed = {'true' if p['directed'] else 'false'}",
        f"graph.{name}.edge-properties.names = weight",
        f"graph.{name}.algorithms = bfs, cdlp, lcc, pr, sssp, wcc",
        f"graph.{name}.bfs.source-vertex = {p['bfs']}",
        f"graph.{name}.cdlp.max-iterations = {p['cdlp']}",
        f"graph.{name}.pr.damping-factor = 0.85",
        f"graph.{name}.pr.num-iterations = {p['pr']}",
        f"graph.{name}.sssp.source-vertex : {p['sssp']}",
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_outputs_match_the_reference(
    name: str, backend: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    status = driver.main(
        [
            *("--graph", str(EXAMPLE / name), *_options(name)),
            *("--output", str(tmp_path), "--backend", backend, "--repeat", "2"),
        ]
    )
    assert status == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{name}-{k}" for k in KERNELS]
    for kernel in KERNELS:
        assert_matches(kernel, tmp_path / f"{name}-{kernel}", EXAMPLE / f"{name}-{kernel}")
    printed = capsys.readouterr().out
    for kernel in KERNELS:
        assert any(line.split()[:1] == [kernel] for line in printed.splitlines()), printed


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_properties_file_gives_the_same_parameters(name: str, tmp_path: Path) -> None:
    properties = _properties(name, tmp_path / f"{name}.properties")
    p = EXAMPLES[name]
    assert driver.parameters_from_properties(properties, name) == driver.Parameters(
        directed=p["directed"],
        algorithms=driver.ALGORITHMS,
        bfs_source=p["bfs"],
        cdlp_iterations=p["cdlp"],
        pr_damping=0.85,
        pr_iterations=p["pr"],
        sssp_source=p["sssp"],
    )
    out = tmp_path / "out"
    vertices, edges = EXAMPLE / f"{name}.v", EXAMPLE / f"{name}.e"
    argv = ["--vertices", str(vertices), "--edges", str(edges), "--properties", str(properties)]
    assert driver.main([*argv, "--output", str(out), "--backend", "cpu"]) == 0
    for kernel in KERNELS:
        assert_matches(kernel, out / f"{name}-{kernel}", EXAMPLE / f"{name}-{kernel}")


def test_an_option_beats_the_properties_file(tmp_path: Path) -> None:
    name = "example-directed"
    properties = _properties(name, tmp_path / "graphs.properties", bfs=5, directed=False)
    argv = ["--graph", str(EXAMPLE / name), "--properties", str(properties)]
    argv += ["--directed", "--bfs-source", "1", "--algorithms", "bfs,wcc"]
    assert driver.main([*argv, "--output", str(tmp_path / "out"), "--backend", "cpu"]) == 0
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == [f"{name}-BFS", f"{name}-WCC"]
    assert_matches("BFS", tmp_path / "out" / f"{name}-BFS", EXAMPLE / f"{name}-BFS")


def test_a_dotted_graph_name_and_the_only_graph_of_a_file(tmp_path: Path) -> None:
    path = tmp_path / "g.properties"
    path.write_text(
        "! a comment\ngraph.road.usa.bfs.source-vertex = 7\ngraph.road.usa.directed=false\n"
        "graph.road.usa.meta.vertices = 10\nsomething.else = 1\n"
    )
    assert driver.read_properties(path) == {
        "road.usa": {"bfs.source-vertex": "7", "directed": "false"}
    }
    params = driver.parameters_from_properties(path, "another-name")  # the file's only graph
    assert (params.bfs_source, params.directed, params.algorithms) == (7, False, None)
    path.write_text(path.read_text() + "graph.other.directed = true\n")
    with pytest.raises(ValueError, match="no parameters for graph 'another-name'"):
        driver.parameters_from_properties(path, "another-name")


def test_sssp_is_skipped_on_an_unweighted_edge_file(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    name = "example-undirected"
    lines = (EXAMPLE / f"{name}.e").read_text().splitlines()
    (tmp_path / f"{name}.e").write_text("".join(" ".join(e.split()[:2]) + "\n" for e in lines))
    (tmp_path / f"{name}.v").write_text((EXAMPLE / f"{name}.v").read_text())
    out = tmp_path / "out"
    argv = ["--graph", str(tmp_path / name), *_options(name), "--output", str(out)]
    assert driver.main([*argv, "--backend", "cpu"]) == 0
    (row,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("SSSP")]
    assert "skipped" in row
    assert not (out / f"{name}-SSSP").exists()
    for kernel in ("BFS", "CDLP", "LCC", "PR", "WCC"):  # none of them reads the weights
        assert_matches(kernel, out / f"{name}-{kernel}", EXAMPLE / f"{name}-{kernel}")


@pytest.mark.parametrize("kind", ["dir", "undir"])
def test_the_sssp_validation_graphs(kind: str, tmp_path: Path) -> None:
    folder = DATA / "validation" / "sssp"
    directed = "--directed" if kind == "dir" else "--undirected"
    argv = ["--graph", str(folder / f"{kind}-input"), directed, "--sssp-source", "1"]
    assert driver.main([*argv, "--algorithms", "sssp", "--output", str(tmp_path)]) == 0
    assert_matches("SSSP", tmp_path / f"{kind}-input-SSSP", folder / f"{kind}-output")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "give --directed or --undirected"),
        (["--directed", "--algorithms", "bfs"], "bfs needs --bfs-source"),
        (["--directed", "--algorithms", "bfs,tc"], "unknown algorithm"),
        (["--directed", "--algorithms", "bfs", "--bfs-source", "99"], "no vertex 99"),
        (["--directed", "--algorithms", "wcc", "--repeat", "0"], "--repeat must be"),
        (["--directed", "--algorithms", "pr", "--pr-iterations", "-1"], "at least 0"),
    ],
)
def test_argument_errors_exit_with_status_2(
    extra: list[str], message: str, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as exited:
        driver.main(["--graph", str(EXAMPLE / "example-directed"), "--backend", "cpu", *extra])
    assert exited.value.code == 2
    assert message in capsys.readouterr().err
