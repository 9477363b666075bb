"""A canonical run split over processes, one per GPU of a host: the (graph, op) groups each
shard measures, and the merge of the finished shards into one canonical document.

The full run takes longer than one sitting at a GPU; on a host of ``N`` GPUs of one kind,
``N`` processes (``python -m benchmarks.run --canonical --shard K/N``, each seeing its own
GPU) measure every ``N``-th group of the run's order (graphs outer, ops inner, so each shard
gets a share of every graph), each staged as its own file
``<out>/canonical-<kind>.shard-K-of-N.json`` and resumable as a whole run is. With a claims
directory shared by one sitting's shards (:class:`Claims`), the shards instead take the groups
in the run's order as each gets free: a group is measured by the shard that claims it first,
so a shard that drew cheap groups does not sit idle while another works through expensive
ones. Once every shard is done, ``python -m benchmarks.run --merge-shards`` joins them into
``<out>/canonical-<kind>.json``, written as the canonical set.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Shard", "Claims", "groups", "done_by_others", "shard_files", "merge"]

_NAME = re.compile(r"^canonical-(?P<kind>.+)\.shard-(?P<index>\d+)-of-(?P<count>\d+)\.json$")
#: Settings that may differ between the shards of one run.
_OWN = ("shard", "out", "results", "claims")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (0-based)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not (self.count >= 1 and 0 <= self.index < self.count):
            raise ValueError(f"shard {self.index} of {self.count}: need 0 <= K < N")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"K/N"`` -> ``Shard(K, N)``; ValueError for anything else."""
        match = re.fullmatch(r"(\d+)/(\d+)", text.strip())
        if match is None:
            raise ValueError(f"--shard takes K/N (as 0/4), got {text!r}")
        return cls(int(match[1]), int(match[2]))

    def stem(self, kind: str) -> str:
        """The staged file's name without ``.json``."""
        return f"canonical-{kind}.shard-{self.index}-of-{self.count}"


@dataclass(frozen=True)
class Claims:
    """One sitting's claims on (graph, op) groups, shared by the shards it runs on one host:
    a claim is a file in ``directory``, created exclusively, so of the shards asking for one
    group exactly one gets it. A fresh directory for each sitting: a claim outlives the
    shard that made it, so a group claimed by a stopped shard is not taken again in that
    directory (its shard's ``--resume`` in the next sitting offers it again)."""

    directory: Path

    def take(self, graph: str, op: str) -> bool:
        """Claim ``(graph, op)``: True for the first asker, False for every later one."""
        self.directory.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.@-]", "_", f"{graph}@{op}")
        try:
            os.close(os.open(self.directory / name, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True


def groups(
    graphs: tuple[str, ...] | list[str],
    ops: tuple[str, ...] | list[str],
    shard: Shard | None = None,
) -> list[tuple[str, str]]:
    """The run's (graph, op) groups in order, or those of ``shard``: every ``count``-th one
    from position ``index``."""
    every = [(graph, op) for graph in graphs for op in ops]
    if shard is None:
        return every
    return every[shard.index :: shard.count]


def done_by_others(out: Path, shard: Shard, mine: dict[str, Any]) -> set[tuple[str, str]]:
    """The groups that the other shards of ``shard``'s split have staged as done in ``out``,
    where ``mine`` is this shard's staged document (a sitting with claims that resumes skips
    them); SystemExit where such a shard's file is of another run: another device, commit
    or settings (apart from each shard's own)."""
    done: set[tuple[str, str]] = set()
    for index in range(shard.count):
        path = out / f"{Shard(index, shard.count).stem(mine['kind'])}.json"
        if index == shard.index or not path.exists():
            continue
        doc = json.loads(path.read_text())
        if differ := _differences(doc, mine):
            raise SystemExit(f"{path} is of another run: its {', '.join(differ)} differ")
        done |= {(graph, op) for graph, op in doc.get("done", [])}
    return done


def _differences(doc: dict[str, Any], first: dict[str, Any]) -> list[str]:
    """What makes ``doc`` a document of another run than ``first``'s: device, commit and
    settings apart from each shard's own."""
    differ = [k for k in ("device", "commit") if doc.get(k) != first.get(k)]
    settings = {k: v for k, v in first["settings"].items() if k not in _OWN}
    mine = {k: v for k, v in doc["settings"].items() if k not in _OWN}
    return differ + [k for k in settings if mine.get(k) != settings[k]]


def shard_files(out: Path) -> dict[str, list[Path]]:
    """The staged shard files in ``out``: ``{kind: [path of shard 0, 1, ... N-1]}``;
    SystemExit where one kind's files come from runs split differently or a shard is not
    staged."""
    found: dict[str, dict[int, Path]] = {}
    counts: dict[str, set[int]] = {}
    for path in sorted(out.glob("canonical-*.shard-*-of-*.json")):
        match = _NAME.match(path.name)
        if match is None:
            continue
        found.setdefault(match["kind"], {})[int(match["index"])] = path
        counts.setdefault(match["kind"], set()).add(int(match["count"]))
    ordered: dict[str, list[Path]] = {}
    for kind, seen in counts.items():
        if len(seen) > 1:
            raise SystemExit(
                f"{out}: shards of {kind} from runs split {sorted(seen)} ways; keep one run's"
            )
        (count,) = seen
        missing = sorted(set(range(count)) - set(found[kind]))
        if missing:
            raise SystemExit(
                f"{out}: shard(s) {', '.join(map(str, missing))} of {count} ({kind}) not staged"
            )
        ordered[kind] = [found[kind][index] for index in range(count)]
    return ordered


def merge(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """One canonical document from the staged documents of shards ``0 .. N-1`` (in that
    order). SystemExit if a shard is missing, if a group is done by no shard or by two, or if
    they do not come from one run: the same device, commit and settings apart from each
    shard's own. Rows (each shard's of the groups it finished), finished groups and graphs
    follow the run's order; a graph's entry (its size, build time and memory pool) is the
    first shard's that built it; ``parts`` lists every shard's sittings."""
    if not docs:
        raise SystemExit("no shards to merge")
    count = len(docs)
    first = docs[0]
    settings = first["settings"]
    by: dict[tuple[str, str], int] = {}
    for index, doc in enumerate(docs):
        if doc.get("shard") != [index, count]:
            raise SystemExit(f"shard {index} of {count} is missing (found {doc.get('shard')})")
        if differ := _differences(doc, first):
            raise SystemExit(
                f"shard {index} of {count} is not of shard 0's run: its {', '.join(differ)} differ"
            )
        for graph, op in doc.get("done", []):
            if (graph, op) in by:
                raise SystemExit(
                    f"{graph} {op} is done by shards {by[graph, op]} and {index} of {count}"
                )
            by[graph, op] = index
    every = groups(settings["graphs"], settings["ops"])
    if missing := [group for group in every if group not in by]:
        named = ", ".join(f"{graph} {op}" for graph, op in missing[:3])
        named += f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        if settings.get("claims") is None:  # each shard has its own groups: name the first's
            index = every.index(missing[0]) % count
            how = f"continue it with --canonical --shard {index}/{count} --resume"
            raise SystemExit(f"shard {index} of {count} is not finished ({named} not done): {how}")
        raise SystemExit(
            f"not finished: {named} done by no shard; continue the shards with --canonical "
            f"--shard K/{count} --resume --claims <a fresh directory>"
        )
    order = {group: i for i, group in enumerate(every)}
    rows = sorted(
        (
            row
            for index, doc in enumerate(docs)
            for row in doc["rows"]
            if by.get((row["graph"], row["op"])) == index
        ),
        key=lambda r: order[r["graph"], r["op"]],
    )
    graph_order = {name: i for i, name in enumerate(settings["graphs"])}
    built: dict[str, dict[str, Any]] = {}
    for doc in docs:
        for info in doc.get("graphs", []):
            built.setdefault(info["graph"], info)
    unavailable: dict[str, dict[str, Any]] = {}
    for doc in docs:
        for peer in doc.get("unavailable_peers", []):
            unavailable.setdefault(peer["impl"], peer)
    merged = {
        **first,
        "date": max(doc["date"] for doc in docs),
        "full": all(doc["full"] for doc in docs),
        "rows": rows,
        "graphs": sorted(built.values(), key=lambda g: graph_order.get(g["graph"], len(order))),
        "settings": {**first["settings"], "shard": None, "claims": None},
        "unavailable_peers": list(unavailable.values()),
        "done": [list(group) for group in order],
        "parts": [
            {**part, "shard": index} for index, doc in enumerate(docs) for part in doc["parts"]
        ],
        "shards": count,
    }
    merged.pop("shard", None)
    return merged
