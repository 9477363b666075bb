"""Markdown table and PNG chart of a benchmark result document (see benchmarks.run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


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
        "% of floor |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for graph, op in _groups(doc["rows"]):
        base = _baseline(doc["rows"], graph, op)
        for r in (r for r in doc["rows"] if r["graph"] == graph and r["op"] == op):
            if "median_ms" not in r:
                why = r.get("error") or r.get("skipped")
                lines.append(f"| {graph} | {op} | {r['impl']} | — | | | | | {why} |")
                continue
            ratio = f"{r['median_ms'] / base['median_ms']:.2f}" if base else ""
            gteps = f"{r['gteps']:.3f}" if r.get("gteps") else ""
            floor = f"{r['floor_ms']:.3f}" if r.get("floor_ms") else ""
            frac = f"{100 * r['floor_fraction']:.0f}" if r.get("floor_fraction") else ""
            lines.append(
                f"| {graph} | {op} | {r['impl']} | {r['median_ms']:.3f} | {ratio} | "
                f"{gteps} | {r.get('levels', '')} | {floor} | {frac} |"
            )
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
