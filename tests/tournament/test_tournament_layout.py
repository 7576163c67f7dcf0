"""The tournament package's docstring lists every module in an order its imports keep: each
module imports only modules listed before it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import arena.tournament

PACKAGE = Path(arena.tournament.__file__).parent


def _listed() -> list[str]:
    """The modules in the order the package's docstring names them."""
    doc = arena.tournament.__doc__ or ""
    return list(dict.fromkeys(re.findall(r":mod:`~arena\.tournament\.(\w+)`", doc)))


def _imported(name: str) -> set[str]:
    """The modules of the package that ``name`` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {module.removeprefix("arena.tournament.") for module in found
            if module.startswith("arena.tournament.")} & _modules() - {name}


def _modules() -> set[str]:
    return {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}


def test_the_docstring_names_every_module_once() -> None:
    assert sorted(_listed()) == sorted(_modules())


def test_each_module_imports_only_those_listed_before_it() -> None:
    order = _listed()
    later = {name: set(order[at:]) for at, name in enumerate(order)}
    assert {name: sorted(_imported(name) & later[name]) for name in order
            if _imported(name) & later[name]} == {}
