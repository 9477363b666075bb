"""A canonical run split over processes (``--canonical --shard K/N``) and the merge of its
shards (``--merge-shards``): each shard measures its own (graph, op) groups, and the merged set
holds every group once, in the run's order; a missing, unfinished or foreign shard is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hyblas as hb
from benchmarks import run as harness
from benchmarks import shards
from benchmarks.shards import Shard

from .canonical import cpu_canonical_settings

OPS = ("bfs", "cc", "tc")


def _settings(tmp_path: Path, shard: Shard | None) -> harness.Settings:
    return cpu_canonical_settings(tmp_path, ("grid64", "kron10"), OPS, shard=shard)


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two shards of one run, staged (not merged) in ``<tmp>/out``."""
    tmp = tmp_path_factory.mktemp("shards")
    for index in (0, 1):
        assert harness.run(_settings(tmp, Shard(index, 2))) == 0
    return tmp


def _copy(staged: Path, tmp_path: Path) -> Path:
    (tmp_path / "out").mkdir()
    for path in (staged / "out").glob("canonical-cpu.shard-*.json"):
        (tmp_path / "out" / path.name).write_text(path.read_text())
    return tmp_path


def test_shards_take_every_nth_group_of_the_runs_order() -> None:
    every = shards.groups(("a", "b"), ("x", "y", "z"))
    assert every == [("a", "x"), ("a", "y"), ("a", "z"), ("b", "x"), ("b", "y"), ("b", "z")]
    parts = [shards.groups(("a", "b"), ("x", "y", "z"), Shard(k, 4)) for k in range(4)]
    assert sorted(g for part in parts for g in part) == sorted(every)
    assert parts[1] == [("a", "y"), ("b", "z")]
    assert Shard.parse(" 3/4 ") == Shard(3, 4)
    for bad in ("4/4", "1/0", "-1/2", "1-2", "a/b"):
        with pytest.raises(ValueError):
            Shard.parse(bad)


def test_each_shard_measures_its_groups_only_and_writes_no_set(staged: Path) -> None:
    assert not (staged / "results").exists()
    seen = []
    for index in (0, 1):
        doc = json.loads((staged / "out" / f"canonical-cpu.shard-{index}-of-2.json").read_text())
        mine = shards.groups(("grid64", "kron10"), OPS, Shard(index, 2))
        assert doc["shard"] == [index, 2] and doc["canonical"]
        assert [tuple(g) for g in doc["done"]] == mine
        assert {(r["graph"], r["op"]) for r in doc["rows"]} == set(mine)
        seen += mine
    assert sorted(seen) == sorted(shards.groups(("grid64", "kron10"), OPS))


def test_the_merged_set_holds_every_group_once_in_the_runs_order(
    staged: Path, tmp_path: Path
) -> None:
    root = _copy(staged, tmp_path)
    written = harness.merge_shards(root / "out", root / "results")
    assert {p.name for p in written} == {"cpu.json", "cpu.md", "cpu.png"}
    doc = json.loads((root / "results" / "cpu.json").read_text())
    order = shards.groups(("grid64", "kron10"), OPS)
    assert [tuple(g) for g in doc["done"]] == order
    groups_in_rows = [(r["graph"], r["op"]) for r in doc["rows"]]
    assert sorted(set(groups_in_rows), key=order.index) == order
    assert groups_in_rows == sorted(groups_in_rows, key=order.index)
    for group in order:  # each group's rows come from one shard: hyblas and the peer, once
        assert sorted(r["impl"] for r in doc["rows"] if (r["graph"], r["op"]) == group) == [
            "hyblas:reference",
            "scipy",
        ]
    assert doc["shards"] == 2 and "shard" not in doc and doc["settings"]["shard"] is None
    assert [p["shard"] for p in doc["parts"]] == [0, 1]
    assert [g["graph"] for g in doc["graphs"]] == ["grid64", "kron10"]
    assert doc["canonical"] and not doc["full"]  # narrowed settings: not the full run


def test_a_missing_unfinished_or_foreign_shard_is_refused(staged: Path, tmp_path: Path) -> None:
    root = _copy(staged, tmp_path)
    out, results = root / "out", root / "results"
    second = out / "canonical-cpu.shard-1-of-2.json"
    doc = json.loads(second.read_text())

    second.unlink()
    with pytest.raises(SystemExit, match="shard.s. 1 of 2"):
        harness.merge_shards(out, results)

    second.write_text(json.dumps({**doc, "done": doc["done"][:-1]}))
    with pytest.raises(SystemExit, match="not finished.*--shard 1/2 --resume"):
        harness.merge_shards(out, results)

    second.write_text(json.dumps({**doc, "commit": "another"}))
    with pytest.raises(SystemExit, match="commit"):
        harness.merge_shards(out, results)

    other = {**doc["settings"], "repeats": 9}
    second.write_text(json.dumps({**doc, "settings": other}))
    with pytest.raises(SystemExit, match="repeats"):
        harness.merge_shards(out, results)

    (out / "canonical-cpu.shard-0-of-3.json").write_text("{}")
    with pytest.raises(SystemExit, match="split"):
        harness.merge_shards(out, results)
    assert not results.exists()


def test_a_shard_resumes_its_own_groups(staged: Path, tmp_path: Path) -> None:
    root = _copy(staged, tmp_path)
    path = root / "out" / "canonical-cpu.shard-1-of-2.json"
    doc = json.loads(path.read_text())
    kept = [tuple(g) for g in doc["done"][:1]]
    cut = {**doc, "done": [list(g) for g in kept], "graphs": []}
    cut["rows"] = [r for r in doc["rows"] if (r["graph"], r["op"]) in kept]
    path.write_text(json.dumps(cut))
    assert harness.run(_settings(root, Shard(1, 2)), resume=True) == 0
    again = json.loads(path.read_text())
    assert [tuple(g) for g in again["done"]] == shards.groups(
        ("grid64", "kron10"), OPS, Shard(1, 2)
    )
    assert [r for r in again["rows"] if (r["graph"], r["op"]) in kept] == cut["rows"]
    assert len(again["parts"]) == 2
    with pytest.raises(SystemExit, match="shard"):  # another shard's file is not this one's
        harness.resumable(path, _settings(root, Shard(0, 2)), again["device"])


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--shard", "0/2"], "--shard splits a --canonical run"),
        (["--merge-shards", "--canonical"], "--merge-shards takes only"),
        (["--merge-shards", "--shard", "0/2"], "--merge-shards takes only"),
        (["--canonical", "--shard", "4/4"], "need 0 <= K < N"),
        (["--canonical", "--claims", "c"], "--claims shares the groups among the shards"),
        (["--merge-shards", "--claims", "c"], "--merge-shards takes only"),
    ],
)
def test_shard_options_are_refused_out_of_place(argv: list[str], says: str, capsys) -> None:
    with pytest.raises(SystemExit):
        harness.main(argv)
    assert says in capsys.readouterr().err


def test_each_shard_compiles_its_share_of_the_warmup_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before a canonical run on the GPU measures anything it runs hyblas's warmup steps:
    every ``count``-th one from the shard's index, so the shards of one host run each step
    once between them; a run in one process runs them all."""
    ran: list[int] = []
    steps = [hb.warmup.WarmupStep(f"step {i}", lambda i=i: ran.append(i)) for i in range(10)]
    monkeypatch.setattr(hb.warmup, "steps", lambda: iter(steps))
    for index in range(4):
        assert harness.compile_ahead(Shard(index, 4)) >= 0.0
    assert ran == [0, 4, 8, 1, 5, 9, 2, 6, 3, 7]
    ran.clear()
    harness.compile_ahead(None)
    assert ran == list(range(10))


def test_a_claim_goes_to_the_first_asker_only(tmp_path: Path) -> None:
    claims = shards.Claims(tmp_path / "claims")
    assert claims.take("kron10", "spmv:min_plus")
    assert not claims.take("kron10", "spmv:min_plus")
    assert claims.take("kron10", "spmv:plus_times")  # ':' does not merge two ops' claims
    assert not shards.Claims(tmp_path / "claims").take("kron10", "spmv:plus_times")
    assert shards.Claims(tmp_path / "other").take("kron10", "spmv:min_plus")


def _claimed(directory: Path, groups: list[tuple[str, str]]) -> Path:
    claims = shards.Claims(directory)
    for group in groups:
        assert claims.take(*group)
    return directory


def test_shards_with_claims_measure_the_groups_each_claims(tmp_path: Path) -> None:
    """Each shard measures the groups it claims, in the run's order; a graph none of whose
    groups it gets is not built; the merge takes every group from the shard that did it."""
    ops = ("cc", "tc")  # the cheap ones: what is tested is who measures what
    every = shards.groups(("grid64", "kron10"), ops)
    theirs = [every[1], every[2], every[3]]  # all of kron10's: shard 0 never builds it
    ours = [group for group in every if group not in theirs]
    first = _claimed(tmp_path / "first", theirs)
    settings = cpu_canonical_settings(tmp_path, ("grid64", "kron10"), ops, shard=Shard(0, 2))
    assert harness.run(harness.Settings(**{**vars(settings), "claims": first})) == 0
    doc = json.loads((tmp_path / "out" / "canonical-cpu.shard-0-of-2.json").read_text())
    assert [tuple(g) for g in doc["done"]] == ours
    assert {(r["graph"], r["op"]) for r in doc["rows"]} == set(ours)
    assert [g["graph"] for g in doc["graphs"]] == ["grid64"]
    assert doc["settings"]["claims"] == str(first)
    second = _claimed(tmp_path / "second", ours)
    settings = harness.Settings(**{**vars(settings), "shard": Shard(1, 2)})
    assert harness.run(harness.Settings(**{**vars(settings), "claims": second})) == 0
    doc = json.loads((tmp_path / "out" / "canonical-cpu.shard-1-of-2.json").read_text())
    assert [tuple(g) for g in doc["done"]] == theirs
    merged = json.loads(
        Path(harness.merge_shards(tmp_path / "out", tmp_path / "results")[0]).read_text()
    )
    assert [tuple(g) for g in merged["done"]] == every
    assert sorted({(r["graph"], r["op"]) for r in merged["rows"]}) == sorted(every)
    assert len(merged["rows"]) == 2 * len(every)  # hyblas:reference and scipy, once each
    assert merged["settings"]["claims"] is None and merged["settings"]["shard"] is None


def test_a_resumed_shard_with_claims_skips_what_the_others_did(
    staged: Path, tmp_path: Path
) -> None:
    """A sitting that resumes with claims measures only the groups no shard has staged as
    done: the others' groups are skipped even where this shard would have had them."""
    root = _copy(staged, tmp_path)
    first = root / "out" / "canonical-cpu.shard-0-of-2.json"
    doc = json.loads(first.read_text())
    dropped = tuple(doc["done"][-1])
    cut = {**doc, "done": doc["done"][:-1]}
    cut["rows"] = [r for r in doc["rows"] if (r["graph"], r["op"]) != dropped]
    first.write_text(json.dumps(cut))
    settings = harness.Settings(
        **{**vars(_settings(root, Shard(0, 2))), "claims": root / "sitting-2"}
    )
    assert harness.run(settings, resume=True) == 0
    again = json.loads(first.read_text())
    assert [tuple(g) for g in again["done"]] == [tuple(g) for g in doc["done"]]
    assert [r for r in again["rows"] if (r["graph"], r["op"]) != dropped] == cut["rows"]
    assert len(list((root / "sitting-2").iterdir())) == 1  # one claim: the dropped group's
    claims = shards.Claims(root / "sitting-2")
    assert not claims.take(*dropped)
    assert all(
        claims.take(*group)
        for group in shards.groups(("grid64", "kron10"), OPS)
        if group != dropped
    )
    assert [g["graph"] for g in again["graphs"]] == sorted({g["graph"] for g in again["graphs"]})
    harness.merge_shards(root / "out", root / "results")

    second = root / "out" / "canonical-cpu.shard-1-of-2.json"
    second.write_text(json.dumps({**json.loads(second.read_text()), "commit": "another"}))
    with pytest.raises(SystemExit, match="another run: its commit"):
        harness.run(settings, resume=True)


def test_a_resumed_shard_with_claims_finishes_the_group_it_began(
    staged: Path, tmp_path: Path
) -> None:
    """The group a shard was measuring when its sitting stopped stays its own: it claims it
    first and keeps its finished rows; a group begun but done by another shard since (in
    its file) is dropped."""
    root = _copy(staged, tmp_path)
    path = root / "out" / "canonical-cpu.shard-0-of-2.json"
    doc = json.loads(path.read_text())
    begun = tuple(doc["done"][-1])
    first = next(r for r in doc["rows"] if (r["graph"], r["op"]) == begun)
    theirs = json.loads((root / "out" / "canonical-cpu.shard-1-of-2.json").read_text())
    stale = [r for r in theirs["rows"] if (r["graph"], r["op"]) == tuple(theirs["done"][0])]
    cut = {**doc, "done": doc["done"][:-1]}
    cut["rows"] = [r for r in doc["rows"] if (r["graph"], r["op"]) != begun] + [first] + stale
    path.write_text(json.dumps(cut))
    claims = root / "sitting-2"
    settings = harness.Settings(**{**vars(_settings(root, Shard(0, 2))), "claims": claims})
    assert harness.run(settings, resume=True) == 0
    again = json.loads(path.read_text())
    assert [tuple(g) for g in again["done"]] == [tuple(g) for g in doc["done"]]
    mine = [r for r in again["rows"] if (r["graph"], r["op"]) == begun]
    assert mine[0] == first and len(mine) == 2 and "median_ms" in mine[1]
    assert not any(r in again["rows"] for r in stale)
    assert not shards.Claims(claims).take(*begun)
    harness.merge_shards(root / "out", root / "results")


def test_a_group_done_twice_or_by_no_shard_of_a_claims_run_is_refused(
    staged: Path, tmp_path: Path
) -> None:
    root = _copy(staged, tmp_path)
    out, results = root / "out", root / "results"
    paths = [out / f"canonical-cpu.shard-{k}-of-2.json" for k in (0, 1)]
    docs = [json.loads(path.read_text()) for path in paths]
    paths[1].write_text(json.dumps({**docs[1], "done": docs[1]["done"] + docs[0]["done"][:1]}))
    graph, op = docs[0]["done"][0]
    with pytest.raises(SystemExit, match=f"{graph} {op} is done by shards 0 and 1"):
        harness.merge_shards(out, results)
    for path, doc in zip(paths, docs, strict=True):
        path.write_text(json.dumps({**doc, "settings": {**doc["settings"], "claims": "/c"}}))
    paths[1].write_text(json.dumps({**json.loads(paths[1].read_text()), "done": []}))
    graph, op = docs[1]["done"][0]
    with pytest.raises(SystemExit, match=f"not finished: {graph} {op}, .*done by no shard"):
        harness.merge_shards(out, results)
    assert not results.exists()
