"""Markdown table and PNG chart of a benchmark result document (see benchmarks.run), and the
README of the canonical result sets.

    python -m benchmarks.report --readme           # regenerate benchmarks/results/README.md
    python -m benchmarks.report --readme --check   # exit 1 if the README is not up to date
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .meta import RESULTS_DIR, device_kind

#: The footnote of a table with a row timed before hyblas's steady state (marked ‡).
UNSETTLED_NOTE = (
    "\n‡ timed before hyblas's steady state: when the settling runs ended, its caches still "
    "grew or a layout `auto` builds was still paying for itself"
)


def _mark(row: dict[str, Any]) -> str:
    """`` ‡`` for a row timed before hyblas's steady state (``unsettled``), else nothing."""
    return " ‡" if row.get("unsettled") else ""


def _baseline(rows: list[dict[str, Any]], graph: str, op: str) -> dict[str, Any] | None:
    """The fastest hyblas row of (graph, op): what every implementation is compared with."""
    timed = [
        r
        for r in rows
        if r["graph"] == graph
        and r["op"] == op
        and "median_ms" in r
        and r["impl"].startswith("hyblas:")
    ]
    return min(timed, key=lambda r: r["median_ms"]) if timed else None


def _groups(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    seen: dict[tuple[str, str], None] = {}
    for r in rows:
        seen.setdefault((r["graph"], r["op"]), None)
    return list(seen)


def markdown_table(doc: dict[str, Any]) -> str:
    copy = f"{doc['copy_TBps']:.2f} TB/s" if doc.get("copy_TBps") else "n/a (CPU run)"
    lines = [
        f"**{doc['device']}**, {doc['date']}, commit `{str(doc['commit'])[:10]}`, "
        f"copy bandwidth {copy}",
        "",
        "| graph | n | nnz | build s | peak GPU pool GB |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for g in doc.get("graphs", []):
        lines.append(
            f"| {g['graph']} | {g['n']:,} | {g['nnz']:,} | {g['build_s']:.1f} | "
            f"{g.get('peak_gpu_pool_GB', 0):.1f} |"
        )
    lines += [
        "",
        "| graph | op | impl | median ms | × fastest hyblas | GTEPS | levels | floor ms | "
        "% of floor | peak GB | × CSR |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for graph, op in _groups(doc["rows"]):
        base = _baseline(doc["rows"], graph, op)
        for r in (r for r in doc["rows"] if r["graph"] == graph and r["op"] == op):
            if "median_ms" not in r:
                why = r.get("error") or r.get("skipped")
                lines.append(f"| {graph} | {op} | {r['impl']} | — | | | | | {why} | | |")
                continue
            ratio = f"{r['median_ms'] / base['median_ms']:.2f}" if base else ""
            gteps = f"{r['gteps']:.3f}" if r.get("gteps") else ""
            floor = f"{r['floor_ms']:.3f}" if r.get("floor_ms") else ""
            frac = f"{100 * r['floor_fraction']:.0f}" if r.get("floor_fraction") else ""
            peak = f"{r['peak_gpu_GB']:.2f}" if "peak_gpu_GB" in r else ""
            over = f"{r['peak_over_csr']:.2f}" if "peak_over_csr" in r else ""
            lines.append(
                f"| {graph} | {op} | {r['impl']} | {r['median_ms']:.3f}{_mark(r)} | {ratio} | "
                f"{gteps} | {r.get('levels', '')} | {floor} | {frac} | {peak} | {over} |"
            )
    if any(r.get("unsettled") for r in doc["rows"]):
        lines.append(UNSETTLED_NOTE)
    for p in doc.get("unavailable_peers", []):
        lines.append(f"\n{p['impl']}: not run ({p['skipped']})")
    return "\n".join(lines) + "\n"


def bar_chart(doc: dict[str, Any], path: Path) -> Path | None:
    """Horizontal bars: each implementation's time over the fastest hyblas executor's, log
    scale, one group per (graph, op). Returns None when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    labels, ratios, impls = [], [], []
    for graph, op in _groups(doc["rows"]):
        base = _baseline(doc["rows"], graph, op)
        if base is None:
            continue
        for r in doc["rows"]:
            if r["graph"] == graph and r["op"] == op and "median_ms" in r:
                labels.append(f"{graph} {op} — {r['impl']}")
                ratios.append(r["median_ms"] / base["median_ms"])
                impls.append(r["impl"])
    if not ratios:
        return None
    palette = {name: f"C{i}" for i, name in enumerate(dict.fromkeys(impls))}
    fig, ax = plt.subplots(figsize=(9, 0.22 * len(labels) + 1.2))
    ax.barh(range(len(labels)), ratios, color=[palette[i] for i in impls])
    ax.set_yticks(range(len(labels)), labels, fontsize=6)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("time / fastest hyblas executor (log scale; < 1: faster than hyblas)")
    ax.set_title(f"{doc['device']} {doc['date']} ({str(doc['commit'])[:10]})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# --- the README of the canonical sets -------------------------------------------------------

#: The operations of the README's headline table, in its order.
HEADLINE_OPS = ("spmv:plus_times", "pagerank20", "bfs", "bfs16", "sssp", "cc")
README_HEAD = """# Benchmark results

<!-- generated by `python -m benchmarks.report --readme` from the JSON files here; do not edit -->

This folder holds one canonical result set per GPU kind, from the last full run of the
benchmark harness on that kind (`python -m benchmarks.run --canonical`), which the next full
run on that kind replaces (git keeps the history): `<kind>.json` (every row),
`<kind>.md` (the full table) and `<kind>.png` (the chart), and this README, generated from the
JSON files. Nothing else: experiments put their numbers in commit messages.
See [docs/benchmarks.md](../../docs/benchmarks.md) for what is measured and how.
"""
README_EMPTY = """
## No canonical result set yet

No full harness run has been recorded here yet, so there are no numbers to show: the first
`python -m benchmarks.run --canonical` on a GPU writes `<kind>.json`, `<kind>.md` and
`<kind>.png` here and regenerates this page from them.
"""
README_LEGEND = """
Times in milliseconds, median of the timed runs after a warm-up run checked against the
reference. *fastest hyblas*: the fastest of the hyblas executors run (the one named). A peer's
cell: its time (hyblas:auto's time ÷ the peer's; below 1: hyblas:auto is faster). Blank: the
peer has no such operation; *> N s*: one run exceeded the run limit; *OOM*: out of memory;
*n/a*: the peer could not run it; *error*: its result differed from the reference.
"""
README_TAIL = """
## Regenerate

```bash
python -m benchmarks.run --canonical     # on the GPU: the full run, replaces <kind>.json/.md/.png
python -m benchmarks.report --readme     # this README, from every <kind>.json here
```
"""


def _ms(value: float) -> str:
    """Three significant figures or more: 0.104, 1.92, 57.8, 2714."""
    for bound, digits in ((1.0, 3), (10.0, 2), (100.0, 1)):
        if value < bound:
            return f"{value:.{digits}f}"
    return f"{value:.0f}"


def _ratio(value: float) -> str:
    """Two decimals, or two significant figures below 0.1: 0.30×, 1.12×, 0.0021×."""
    return f"{value:.2f}×" if value >= 0.1 else f"{value:.2g}×"


def _untimed(row: dict[str, Any]) -> str:
    if "error" in row:
        return "error"
    why = str(row.get("skipped", ""))
    if "lower_bound_ms" in row:
        return f"> {row['lower_bound_ms'] / 1e3:.0f} s"
    if why.startswith("out of memory"):
        return "OOM"
    if why.startswith("timed runs exceed"):
        return "> limit"
    return "n/a"


def _order(doc: dict[str, Any], key: str, setting: str) -> list[str]:
    """The settings' order of graphs / impls, then any others in the order of the rows."""
    seen = dict.fromkeys(doc.get("settings", {}).get(setting, []))
    seen.update(dict.fromkeys(r[key] for r in doc["rows"]))
    return list(seen)


def _time_cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return ""
    return _ms(row["median_ms"]) + _mark(row) if "median_ms" in row else _untimed(row)


def _fastest_cell(rows: dict[str, dict[str, Any]], graph: str, op: str) -> str:
    """The fastest hyblas executor's time and name, or why no hyblas executor was timed."""
    best = _baseline(list(rows.values()), graph, op)
    if best is not None:
        return f"{_ms(best['median_ms'])}{_mark(best)} ({best['impl'].removeprefix('hyblas:')})"
    return next((_untimed(r) for name, r in rows.items() if name.startswith("hyblas:")), "")


def headline_table(doc: dict[str, Any]) -> list[str]:
    """One line per (headline op, graph): hyblas:auto, the fastest hyblas executor, each peer
    of the run with the ratio hyblas:auto / peer."""
    measured = {r["impl"] for r in doc["rows"]}
    peers = [p for p in _order(doc, "impl", "peers") if p in measured and ":" not in p]
    graphs = _order(doc, "graph", "graphs")
    lines = [
        "| op | graph | hyblas:auto | fastest hyblas | " + " | ".join(peers) + " |",
        "| --- | --- | ---: | ---: |" + " ---: |" * len(peers),
    ]
    for op in HEADLINE_OPS:
        for graph in graphs:
            rows = {r["impl"]: r for r in doc["rows"] if r["graph"] == graph and r["op"] == op}
            if not rows:
                continue
            auto_ms = rows.get("hyblas:auto", {}).get("median_ms")
            cells = [op, graph, _time_cell(rows.get("hyblas:auto")), _fastest_cell(rows, graph, op)]
            for peer in peers:
                cell = _time_cell(rows.get(peer))
                if auto_ms and "median_ms" in rows.get(peer, {}):
                    cell += f" ({_ratio(auto_ms / rows[peer]['median_ms'])})"
                cells.append(cell)
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def readme_section(kind: str, doc: dict[str, Any]) -> str:
    """The README's part for one canonical set: where it comes from, then its headline table."""
    settings = doc.get("settings", {})
    copy = f"{doc['copy_TBps']:.2f} TB/s" if doc.get("copy_TBps") else "n/a"
    graphs = ", ".join(
        f"{g['graph']} (n {g['n']:,}, nnz {g['nnz']:,})" for g in doc.get("graphs", [])
    )
    lines = [
        f"## {kind}: {doc['device']}",
        "",
        f"Run of {doc['date']} at commit `{str(doc['commit'])[:10]}`; device-to-device copy "
        f"{copy}; GPU: CUDA events, median of {settings.get('repeats', '?')}; CPU peers: wall "
        f"clock, median of {settings.get('cpu_repeats', '?')}; run limit "
        f"{settings.get('run_limit_s', '?')} s. "
        f"Every row: [{kind}.md]({kind}.md), [{kind}.json]({kind}.json); "
        f"chart: [{kind}.png]({kind}.png).",
        "",
    ]
    if device_kind(doc["device"]) != kind:
        lines += [f"**Misnamed**: this is a {device_kind(doc['device'])} run.", ""]
    if not doc.get("full"):
        lines += ["**Not a full run**: some graphs, ops, executors or peers are missing.", ""]
    errors = sum(1 for r in doc["rows"] if "error" in r)
    if errors:
        failed = "1 row" if errors == 1 else f"{errors} rows"
        lines += [f"**{failed} failed** (an error: see {kind}.md).", ""]
    if graphs:
        lines += [f"Graphs: {graphs}.", ""]
    lines += headline_table(doc)
    if any(r.get("unsettled") for r in doc["rows"]):
        lines.append(UNSETTLED_NOTE)
    for p in doc.get("unavailable_peers", []):
        lines.append(f"\n{p['impl']}: not run ({p['skipped']})")
    return "\n".join(lines) + "\n"


def canonical_docs(folder: Path = RESULTS_DIR) -> dict[str, dict[str, Any]]:
    """Every canonical set's document in ``folder``, by kind (the JSON file's stem), sorted."""
    return {path.stem: json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))}


def readme(docs: dict[str, dict[str, Any]]) -> str:
    """The results README for the canonical documents ``docs`` (kind -> document)."""
    parts = [README_HEAD]
    if docs:
        parts += [README_LEGEND] + [
            "\n" + readme_section(kind, docs[kind]) for kind in sorted(docs)
        ]
    else:
        parts.append(README_EMPTY)
    parts.append(README_TAIL)
    return "".join(parts)


def write_readme(folder: Path = RESULTS_DIR) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "README.md"
    path.write_text(readme(canonical_docs(folder)))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--readme", action="store_true", help="regenerate README.md of the canonical sets"
    )
    parser.add_argument(
        "--check", action="store_true", help="with --readme: only check that it is up to date"
    )
    parser.add_argument("--results", type=Path, default=RESULTS_DIR, help="the results folder")
    args = parser.parse_args(argv)
    if not args.readme:
        parser.error("nothing to do: --readme")
    if args.check:
        path = args.results / "README.md"
        current = path.read_text() if path.exists() else ""
        if current != readme(canonical_docs(args.results)):
            print(f"{path} is out of date: python -m benchmarks.report --readme", file=sys.stderr)
            return 1
        return 0
    print(f"wrote {write_readme(args.results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
