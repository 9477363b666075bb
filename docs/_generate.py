"""Pages of the documentation site written at build time (``docs/conf.py`` calls these): the
benchmark results from ``benchmarks/results/`` and the tables of built-in operators. They go to
``docs/generated/`` (not in git), so the site always shows what the code and the result files say.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import hyblas as hb
from benchmarks import report


def _write(path: Path, text: str) -> None:
    """Write ``text`` only if it changed (Sphinx rebuilds a page whose file is newer)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def benchmark_results(results: Path, out: Path) -> Path:
    """``out/benchmark-results.md``: each canonical set's headline table, chart and full table.

    A set is ``<kind>.json`` (every row) with the ``<kind>.png`` chart beside it; the tables are
    made from the JSON with :mod:`benchmarks.report`, as the results README is.
    """
    docs = report.canonical_docs(results)
    lines = [
        "# Benchmark results",
        "",
        "The canonical result sets in `benchmarks/results/`: one per GPU kind, from the last full",
        "run of the benchmark harness on that kind (`python -m benchmarks.run --canonical`). This",
        "page is generated from them at every build of the site; {doc}`/benchmarks` says what is",
        "measured and how.",
        "",
    ]
    if not docs:
        lines += [
            "```{note}",
            "No canonical result set has been recorded yet, so there are no numbers to show. The",
            "first `python -m benchmarks.run --canonical` on a GPU writes `<kind>.json`,",
            "`<kind>.md` and `<kind>.png` to `benchmarks/results/`, and this page shows them.",
            "```",
            "",
        ]
    else:
        lines += [report.README_LEGEND.strip(), ""]
    for kind, doc in docs.items():
        copy = f"{doc['copy_TBps']:.2f} TB/s" if doc.get("copy_TBps") else "n/a"
        lines += [
            f"## {kind}: {doc['device']}",
            "",
            f"Run of {doc['date']} at commit `{str(doc['commit'])[:10]}`; device-to-device copy "
            f"{copy}.",
            "",
        ]
        if not doc.get("full"):
            lines += ["**Not a full run**: some graphs, ops, executors or peers are missing.", ""]
        lines += [*report.headline_table(doc), ""]
        chart = results / f"{kind}.png"
        if chart.exists():
            out.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(chart, out / f"{kind}.png")
            lines += [f"![{kind}: time of each implementation over hyblas's]({kind}.png)", ""]
        lines += [f"### Every row ({kind})", "", report.markdown_table(doc), ""]
    path = out / "benchmark-results.md"
    _write(path, "\n".join(lines))
    return path


def operator_tables(out: Path) -> Path:
    """``out/operators.md``: the built-in operators of each namespace, with their one-line docs."""
    lines = [
        "# Built-in operators",
        "",
        "Every operator registered when hyblas is imported, by namespace: "
        '`hb.semiring.min_plus`, or by its name, `hb.semiring["min_plus"]` (operations also '
        "take the name string). Generated from the registry at every build.",
        "",
    ]
    columns = {
        "semiring": ("add monoid", "multiply", lambda op: (op.monoid.name, op.binaryop.name)),
        "monoid": ("operator", "value types", lambda op: (op.binaryop.name, _types(op))),
        "binary": ("CUDA expression", "value types", lambda op: (op.cuda, _types(op))),
        "unary": ("CUDA expression", "value types", lambda op: (op.cuda, _types(op))),
        "indexunary": ("CUDA expression", "value types", lambda op: (op.cuda, _types(op))),
    }
    for kind, table in hb.operators.NAMESPACES.items():
        first, second, cells = columns[kind]
        lines += [
            f"## `hyblas.{kind}`",
            "",
            f"| name | {first} | {second} |",
            "| --- | --- | --- |",
        ]
        for name, op in table.items():
            a, b = (_cell(c) for c in cells(op))
            lines.append(f"| `{name}` | {a} | {b} |")
        lines.append("")
    path = out / "operators.md"
    _write(path, "\n".join(lines))
    return path


def _types(op: hb.operators.Operator) -> str:
    types = getattr(op, "types", None)
    return ", ".join(sorted(str(t) for t in types)) if types else "all"


def _cell(value: object) -> str:
    text = str(value).replace("|", "&#124;").replace("\n", " ")
    return f"`{text}`" if text and "`" not in text else text


def notebooks(source: Path, out: Path) -> None:
    """Copy the notebooks (and their figures) into the site's source: rendered with the outputs
    stored in them, never executed here."""
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("*.ipynb")):
        target = out / path.name
        if not target.exists() or target.read_bytes() != path.read_bytes():
            shutil.copyfile(path, target)
    if (source / "figures").is_dir():
        shutil.copytree(source / "figures", out / "figures", dirs_exist_ok=True)


def networkx_functions(out: Path) -> Path:
    """``out/networkx-functions.md``: the NetworkX functions nx-hyblas implements, and how."""
    from _nx_hyblas import FUNCTIONS  # noqa: PLC0415 - nx-hyblas is on the path of the build

    lines = ["| NetworkX function | on hyblas |", "| --- | --- |"]
    lines += [f"| `{name}` | {how} |" for name, how in sorted(FUNCTIONS.items())]
    path = out / "networkx-functions.md"
    _write(path, "\n".join(lines) + "\n")
    return path
