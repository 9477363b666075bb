"""The layers of ``docs/architecture.md``, read from the code's own imports.

Every module of ``hyblas`` belongs to one room (its folder, or a file of its own); the rooms are
stacked in layers, and a module imports only from a lower layer or from its own room. So the
import graph has no circle that spans two rooms, the containers know nothing of the
operations, the executors or the views, and nothing imports the views but the package's top.
An import inside a function is not a way around this: every hyblas import sits at the top of
its module. Only the backend imports CuPy.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "hyblas"

# bottom to top; a room may import only from rooms of a lower layer (and from itself)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),
    ("dtypes",),
    ("backend",),
    ("operators",),
    ("device",),
    ("containers",),
    ("ops",),
    ("executors",),
    ("traversal",),
    ("io", "generators"),
    ("graph",),
    ("algorithms",),
    ("distributed",),  # several processes: partitioned containers, products, algorithms
    ("viz",),
    ("warmup",),  # compiling the common kernels ahead (hyblas.warmup, python -m hyblas warmup)
    ("__init__",),  # the package's top: assembles every layer
    ("__main__",),  # the command line
)
RANK = {room: rank for rank, rooms in enumerate(LAYERS) for room in rooms}
# the thin operator namespaces (hyblas.semiring ...) are the operators' room
NAMESPACES = ("semiring", "monoid", "binary", "unary", "indexunary")


@dataclass(frozen=True)
class Import:
    """One import statement of a hyblas module."""

    module: str  # the importing module, e.g. 'hyblas.ops.products'
    target: str  # what it imports, resolved, e.g. 'hyblas.containers.matrix'
    line: int
    top_level: bool  # at the top of the module (not inside a function or class)
    type_only: bool  # under ``if TYPE_CHECKING:``


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path) -> list[Import]:
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, top_level: bool, type_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                visit(child, top_level, True)
                continue
            nested = top_level and not isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
            )
            if isinstance(child, ast.Import):
                for alias in child.names:
                    found.append(Import(module, alias.name, child.lineno, top_level, type_only))
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - child.level + 1]
                    origin = ".".join(base + ([child.module] if child.module else []))
                else:
                    origin = child.module or ""
                for alias in child.names:
                    # "from x import y": y may be a submodule of x
                    candidate = f"{origin}.{alias.name}"
                    exists = _exists(candidate)
                    found.append(
                        Import(
                            module,
                            candidate if exists else origin,
                            child.lineno,
                            top_level,
                            type_only,
                        )
                    )
            visit(child, nested, type_only)

    visit(ast.parse(path.read_text(), str(path)), True, False)
    return found


def _exists(module: str) -> bool:
    if not module.startswith("hyblas"):
        return False
    path = PACKAGE.parent.joinpath(*module.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _room(module: str) -> str:
    """``hyblas.ops.products`` -> ``ops``; ``hyblas`` -> ``__init__``."""
    parts = module.split(".")
    room = parts[1] if len(parts) > 1 else "__init__"
    return "operators" if room in NAMESPACES else room


MODULES = sorted(PACKAGE.rglob("*.py"))
IMPORTS = [imp for path in MODULES for imp in _imports(path)]
HYBLAS_IMPORTS = [imp for imp in IMPORTS if imp.target.split(".")[0] == "hyblas"]


def test_every_module_belongs_to_a_layer() -> None:
    rooms = {_room(_module_name(path)) for path in MODULES}
    assert rooms <= set(RANK), f"rooms without a layer: {sorted(rooms - set(RANK))}"
    assert len(HYBLAS_IMPORTS) > 200, "the import reader found too few imports"


def test_imports_point_down() -> None:
    upward = [
        f"{imp.module}:{imp.line} imports {imp.target} "
        f"({_room(imp.module)} is layer {RANK[_room(imp.module)]}, "
        f"{_room(imp.target)} layer {RANK[_room(imp.target)]})"
        for imp in HYBLAS_IMPORTS
        if _room(imp.target) != _room(imp.module)
        and RANK[_room(imp.target)] >= RANK[_room(imp.module)]
    ]
    assert not upward, "imports that do not point down:\n" + "\n".join(upward)


def test_containers_import_neither_operations_executors_nor_views() -> None:
    forbidden = {"ops", "executors", "traversal", "algorithms", "viz"}
    found = [
        f"{imp.module}:{imp.line} imports {imp.target}"
        for imp in HYBLAS_IMPORTS
        if _room(imp.module) == "containers" and _room(imp.target) in forbidden
    ]
    assert not found, "\n".join(found)


def test_only_the_package_top_imports_the_views() -> None:
    found = [
        f"{imp.module}:{imp.line} imports {imp.target}"
        for imp in HYBLAS_IMPORTS
        if _room(imp.target) == "viz" and _room(imp.module) not in ("viz", "__init__", "__main__")
    ]
    assert not found, "\n".join(found)


def test_no_hyblas_import_inside_a_function() -> None:
    """Every import of a hyblas module sits at the top of its module: none dodges a circle."""
    hidden = [
        f"{imp.module}:{imp.line} imports {imp.target} inside a function"
        for imp in HYBLAS_IMPORTS
        if not imp.top_level
    ]
    assert not hidden, "\n".join(hidden)


def test_only_the_backend_imports_cupy() -> None:
    found = [
        f"{imp.module}:{imp.line} imports {imp.target}"
        for imp in IMPORTS
        if imp.target.split(".")[0] in ("cupy", "cupyx") and _room(imp.module) != "backend"
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("room", ["containers", "ops", "executors", "traversal"])
def test_the_reader_sees_each_room_import_the_one_below(room: str) -> None:
    """The checks above would pass on a reader that saw nothing: each of these rooms does
    import the room right below it."""
    below = {
        "containers": "device",
        "ops": "containers",
        "executors": "ops",
        "traversal": "executors",
    }[room]
    assert any(_room(imp.module) == room and _room(imp.target) == below for imp in HYBLAS_IMPORTS)
