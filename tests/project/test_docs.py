"""The API reference (``docs/api/``) covers every public name, and every public function and
method in it has a docstring with an Examples section (run as a doctest by ``python -m
pytest``, see ``conftest.py`` at the top of the tree).

The reference's names are read from its ``autosummary`` lists and ``data`` directives, so a
name added to an ``__all__`` without a page, or a page for a function without an example,
fails here before the site is built.
"""

from __future__ import annotations

import inspect
import re
import types
from pathlib import Path

import pytest

import hyblas as hb

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "api"

# the public namespaces whose __all__ the reference must cover in full
NAMESPACES = {
    "hyblas.ops": hb.ops,
    "hyblas.algorithms": hb.algorithms,
    "hyblas.io": hb.io,
    "hyblas.generators": hb.generators,
    "hyblas.plot": hb.plot,
    "hyblas.errors": hb.errors,
    "hyblas.distributed": hb.distributed,
}
# the top level's names that are not the namespaces above or the layers (modules)
TOP_LEVEL = ("Graph", "Matrix", "Vector", "backend", "set_backend", "using_backend")
TOP_LEVEL += ("cuda_available", "trace", "set_policy", "get_policy", "policy")
OPERATORS = ("Operator", "UnaryOp", "BinaryOp", "IndexUnaryOp", "Monoid", "Semiring")
OPERATORS += ("register", "lookup")


def reference_names() -> set[str]:
    """Every name the reference documents: autosummary entries and data / module directives,
    qualified with the module in force where they appear."""
    names: set[str] = set()
    for path in sorted(API.glob("*.rst")):
        module = ""
        in_summary = False
        for line in path.read_text().splitlines():
            directive = re.match(
                r"\.\. (?:py:)?(module|currentmodule|automodule|data|autodata)::\s*(\S+)", line
            )
            if directive:
                kind, name = directive.groups()
                if kind in ("module", "currentmodule", "automodule"):
                    module = name
                    names.add(name)
                else:
                    names.add(name if name.startswith(("hyblas.", "_nx")) else f"{module}.{name}")
                in_summary = False
                continue
            if line.startswith(".. autosummary::"):
                in_summary = True
                continue
            if in_summary:
                entry = line.strip()
                if line and not line.startswith(" "):
                    in_summary = False
                elif entry and not entry.startswith(":"):
                    names.add(f"{module}.{entry}")
    return names


def resolve(name: str) -> object:
    """The object a dotted name documents (``hyblas.ops.mxv``, ``hyblas.Matrix``...)."""
    parts = name.split(".")
    obj: object = __import__(parts[0])
    for part in parts[1:]:
        obj = getattr(obj, part)
    return obj


def internal_members(cls: type) -> set[str]:
    """The members a class's docstring names as its internal interface (not the user API)."""
    doc = inspect.getdoc(cls) or ""
    match = re.search(r"internal interface:(.*?)(?:\n\n|\Z)", doc, re.S)
    return set(re.findall(r":(?:meth|attr):`(\w+)`", match.group(1))) if match else set()


def documented_callables() -> list[tuple[str, object]]:
    """Every public function of the reference, and every public method of its classes except
    their internal interface (exceptions and warnings have no methods of their own)."""
    out = []
    for name in sorted(reference_names()):
        try:
            obj = resolve(name)
        except AttributeError:
            continue  # a data directive or module: checked by the build
        if isinstance(obj, types.ModuleType):
            continue
        if inspect.isclass(obj):
            if issubclass(obj, BaseException):
                continue
            hidden = internal_members(obj)
            for member, value in vars(obj).items():
                if member.startswith("_") or member in hidden or isinstance(value, property):
                    continue
                if callable(getattr(obj, member)):
                    out.append((f"{name}.{member}", getattr(obj, member)))
        elif callable(obj):
            out.append((name, obj))
    return out


def test_every_public_name_is_in_the_reference() -> None:
    documented = reference_names()
    wanted = {f"hyblas.{name}" for name in TOP_LEVEL}
    wanted |= {f"hyblas.operators.{name}" for name in OPERATORS}
    for prefix, module in NAMESPACES.items():
        wanted |= {f"{prefix}.{name}" for name in module.__all__}
    wanted |= {f"hyblas.{name}" for name in hb.__all__ if name not in documented}  # modules
    missing = sorted(
        name for name in wanted if name not in documented and not _module_named(name, documented)
    )
    assert not missing, f"public names missing from docs/api/: {missing}"


def _module_named(name: str, documented: set[str]) -> bool:
    """A top-level name that is a module (``hyblas.ops``) is covered by its module page."""
    try:
        return isinstance(resolve(name), types.ModuleType) and name in documented
    except AttributeError:
        return False


def test_the_reference_names_resolve() -> None:
    unknown = []
    for name in sorted(reference_names()):
        try:
            resolve(name)
        except AttributeError:
            unknown.append(name)
    assert not unknown, f"names in docs/api/ that do not resolve: {unknown}"


@pytest.mark.parametrize(
    ("name", "obj"), documented_callables(), ids=[n for n, _ in documented_callables()]
)
def test_every_public_function_has_an_example(name: str, obj: object) -> None:
    doc = inspect.getdoc(obj) or ""
    assert doc, f"{name} has no docstring"
    assert re.search(r"^Examples\n--------\n", doc, re.M), f"{name}: no Examples section"
    assert ">>> " in doc.split("Examples\n--------", 1)[1], f"{name}: Examples without code"
