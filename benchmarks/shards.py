"""A canonical run split over processes, one per GPU of a host: the (graph, op) groups each
shard measures, and the merge of the finished shards into one canonical document.

The full run takes longer than one sitting at a GPU; on a host of ``N`` GPUs of one kind,
``N`` processes (``python -m benchmarks.run --canonical --shard K/N``, each seeing its own
GPU) measure every ``N``-th group of the run's order (graphs outer, ops inner, so each shard
gets a share of every graph), each staged as its own file
``<out>/canonical-<kind>.shard-K-of-N.json`` and resumable as a whole run is. Once every shard
is done, ``python -m benchmarks.run --merge-shards`` joins them into
``<out>/canonical-<kind>.json``, written as the canonical set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Shard", "groups", "shard_files", "merge"]

_NAME = re.compile(r"^canonical-(?P<kind>.+)\.shard-(?P<index>\d+)-of-(?P<count>\d+)\.json$")
#: Settings that may differ between the shards of one run.
_OWN = ("shard", "out", "results")


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
    order). SystemExit if a shard is missing or unfinished, or if they do not come from one
    run: the same device, commit and settings apart from the shard. Rows, finished groups
    and graphs follow the run's order; a graph's entry (its size, build time and memory pool)
    is the first shard's that built it; ``parts`` lists every shard's sittings."""
    if not docs:
        raise SystemExit("no shards to merge")
    count = len(docs)
    first = docs[0]
    settings = {k: v for k, v in first["settings"].items() if k not in _OWN}
    for index, doc in enumerate(docs):
        if doc.get("shard") != [index, count]:
            raise SystemExit(f"shard {index} of {count} is missing (found {doc.get('shard')})")
        mine = {k: v for k, v in doc["settings"].items() if k not in _OWN}
        differ = [k for k in ("device", "commit") if doc.get(k) != first.get(k)]
        differ += [k for k in settings if mine.get(k) != settings[k]]
        if differ:
            raise SystemExit(
                f"shard {index} of {count} is not of shard 0's run: its {', '.join(differ)} differ"
            )
        wanted = groups(settings["graphs"], settings["ops"], Shard(index, count))
        done = {tuple(g) for g in doc.get("done", [])}
        if not set(wanted) <= done:
            raise SystemExit(
                f"shard {index} of {count} is not finished ({len(done)} of {len(wanted)} groups): "
                f"continue it with --canonical --shard {index}/{count} --resume"
            )
    order = {group: i for i, group in enumerate(groups(settings["graphs"], settings["ops"]))}
    rows = sorted(
        (row for doc in docs for row in doc["rows"]), key=lambda r: order[r["graph"], r["op"]]
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
        "settings": {**first["settings"], "shard": None},
        "unavailable_peers": list(unavailable.values()),
        "done": [list(group) for group in order],
        "parts": [
            {**part, "shard": index} for index, doc in enumerate(docs) for part in doc["parts"]
        ],
        "shards": count,
    }
    merged.pop("shard", None)
    return merged
