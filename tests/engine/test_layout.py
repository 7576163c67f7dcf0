"""The engine's modules import each other in one direction (a DAG), every import at the top
of its module, and nothing of arena outside the engine, arena.errors and arena.common."""

from __future__ import annotations

import ast
from pathlib import Path

import arena.engine

ENGINE = Path(arena.engine.__file__).parent
ALLOWED = ("arena.engine", "arena.errors", "arena.common")


def _imports(tree: ast.Module, module: str) -> list[tuple[str, bool]]:
    """(imported module, at the module's top level) for every import in ``tree``."""
    top = {id(node) for node in tree.body}
    found: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module if node.level == 0 else module.rsplit(".", node.level)[0]
            names = [f"{base}.{alias.name}" for alias in node.names]
            found += [(name if name.removeprefix("arena.engine.") in _MODULES else base,
                       id(node) in top) for name in names]
    return found


_MODULES = {path.stem for path in ENGINE.glob("*.py") if path.stem != "__init__"}


def _graph() -> dict[str, list[tuple[str, bool]]]:
    return {name: _imports(ast.parse((ENGINE / f"{name}.py").read_text()),
                           f"arena.engine.{name}")
            for name in sorted(_MODULES)}


def test_every_import_is_at_the_top_of_its_module() -> None:
    hidden = [(name, imported) for name, imports in _graph().items()
              for imported, at_top in imports if not at_top]
    assert hidden == []


def test_the_engine_imports_nothing_of_arena_above_it() -> None:
    outside = [(name, imported) for name, imports in _graph().items()
               for imported, _ in imports
               if imported.startswith("arena") and not imported.startswith(ALLOWED)]
    assert outside == []


def test_the_engine_modules_form_a_dag() -> None:
    edges = {name: {imported.removeprefix("arena.engine.") for imported, _ in imports
                    if imported.removeprefix("arena.engine.") in _MODULES}
             for name, imports in _graph().items()}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join((*path, name))}"
        if name in done:
            return
        for imported in sorted(edges[name]):
            visit(imported, (*path, name))
        done.add(name)

    for name in sorted(edges):
        visit(name, ())
