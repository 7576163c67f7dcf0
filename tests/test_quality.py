"""House rules as tests: the layers hold, sizes stay small, the code stays ruff- and mypy-clean."""

from __future__ import annotations

import ast
import builtins
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import arena.errors

REPO = Path(__file__).resolve().parent.parent
ARCHITECTURE = REPO / "docs" / "ARCHITECTURE.md"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def test_imports_keep_the_layers_and_no_package_has_a_cycle() -> None:
    """The contracts in pyproject.toml: each layer imports only the layers below it, and the
    modules inside a package import each other without a cycle."""
    lint = shutil.which("lint-imports")
    if lint is None:
        pytest.skip("import-linter is not installed")
    result = subprocess.run([lint, "--no-cache"], cwd=REPO, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stdout + result.stderr


def _size_exceptions() -> set[str]:
    """Modules (``arena/x.py``) and functions (``arena/x.py:name``) allowed over the limits:
    the table under "Size exceptions" in docs/ARCHITECTURE.md, each with its reason."""
    text = ARCHITECTURE.read_text(encoding="utf-8").split("## Size exceptions", 1)
    rows = text[1].split("\n## ", 1)[0] if len(text) == 2 else ""
    return {line.split("|")[1].strip().strip("`") for line in rows.splitlines()
            if line.startswith("| `")}


def _oversized() -> list[str]:
    found = []
    for path in sorted((REPO / "arena").rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        source = path.read_text(encoding="utf-8")
        if source.count("\n") >= MAX_MODULE_LINES:
            found.append(name)
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length >= MAX_FUNCTION_LINES:
                    found.append(f"{name}:{node.name}")
    return found


def test_modules_and_functions_stay_small_or_say_why() -> None:
    assert sorted(set(_oversized()) - _size_exceptions()) == []


def test_every_size_exception_is_still_needed() -> None:
    assert sorted(_size_exceptions() - set(_oversized())) == []


def _module_map() -> dict[str, set[str]]:
    """The modules docs/ARCHITECTURE.md's "Modules" section names, by package."""
    text = ARCHITECTURE.read_text(encoding="utf-8").split("## Modules", 1)[1].split("\n## ", 1)[0]
    return {package: set(re.findall(r"`(\w+\.py)`", names))
            for package, names in re.findall(r"^\* \*\*(\w+)\*\*: (.*?)(?=^\* |\Z)", text,
                                              re.MULTILINE | re.DOTALL)}


def test_the_architecture_maps_every_module_and_no_other() -> None:
    """A newcomer reads docs/ARCHITECTURE.md first: its map names each module in its package
    (the base modules, arena/errors.py and arena/native.py, in the layers' table)."""
    named = _module_map()
    text = ARCHITECTURE.read_text(encoding="utf-8")
    modules = [path.relative_to(REPO / "arena") for path in (REPO / "arena").rglob("*.py")
               if path.name != "__init__.py"]
    missing = sorted(m.as_posix() for m in modules
                     if (m.name not in named.get(m.parts[0], set()) if len(m.parts) > 1
                         else f"`arena/{m.name}`" not in text))
    there = {(m.parts[0], m.name) for m in modules if len(m.parts) > 1}
    gone = sorted(f"{package}/{name}" for package, names in named.items() for name in names
                  if (package, name) not in there)
    assert (missing, gone) == ([], [])


#: Where writing to the terminal is the job: the CLI; the kit, in the bot's own process
#: (stderr is the bot's log); arena play's seat, on the console the CLI hands it.
PRESENTERS = ("arena/cli/", "arena/sdk/", "arena/play/")
_PRINTING = re.compile(r"^(print|input|sys\.(stdout|stderr|__stdout__|__stderr__)\.write)$")


def test_the_library_reports_and_only_the_presenters_print() -> None:
    """No print, no terminal writes and no CLI framework below the presenters; a module run
    with ``python -m`` may print from its ``main``."""
    found = []
    for path in sorted((REPO / "arena").rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        if name.startswith(PRESENTERS):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        script = "__main__" in ast.unparse(tree)
        mains = [node for node in tree.body
                 if isinstance(node, ast.FunctionDef) and node.name == "main" and script]
        allowed = {id(n) for main in mains for n in ast.walk(main)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _PRINTING.match(ast.unparse(node.func)) \
                    and id(node) not in allowed:
                found.append(f"{name}:{node.lineno}")
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) \
                    else [node.module or ""]
                found += [f"{name}:{node.lineno} imports {m}" for m in modules
                          if m.split(".")[0] in ("typer", "click", "rich")]
    assert found == []


def test_comments_name_no_issue_numbers() -> None:
    """An issue number in the code goes stale; the history keeps it."""
    pattern = re.compile(r"\b(issue|ticket)\s*#?\d+|#\d{2,}\b", re.IGNORECASE)
    offenders = [f"{path.relative_to(REPO)}:{number}"
                 for path in sorted((REPO / "arena").rglob("*.py"))
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if pattern.search(line)]
    assert offenders == []


def test_the_exception_tree_is_documented_whole() -> None:
    """arena/errors.py's docstring draws every error class, and an exception class defined
    anywhere else is private or named there as a signal that is not an error."""
    doc = arena.errors.__doc__ or ""
    errors = [name for name in arena.errors.__all__
              if isinstance(getattr(arena.errors, name), type)]
    assert [name for name in errors if not re.search(rf"\b{name}\b", doc)] == []
    builtin = {name for name, value in vars(builtins).items()
               if isinstance(value, type) and issubclass(value, BaseException)}
    others = [f"{path.relative_to(REPO)}:{node.name}"
              for path in sorted((REPO / "arena").rglob("*.py")) if path.name != "errors.py"
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
              and any(ast.unparse(base).split(".")[-1] in builtin | set(errors)
                      for base in node.bases)
              and not re.search(rf"``{node.name}``", doc)]
    assert others == []


def _drawn_parents() -> dict[str, str]:
    """Each class of arena/errors.py's drawn tree and the class it hangs from (the root: "")."""
    parents: dict[str, str] = {}
    path: list[str] = []
    for line in (arena.errors.__doc__ or "").splitlines():
        drawn = re.match(r"^( *(?:[│ ]   )*)(?:[├└]── )?([A-Z]\w*Error)\b", line)
        if drawn is None:
            continue
        depth = len(drawn.group(1)) // 4 - 1 + ("──" in line)
        path[depth:] = [drawn.group(2)]
        parents[drawn.group(2)] = path[depth - 1] if depth else ""
    return parents


def test_the_exception_tree_is_drawn_as_the_classes_derive() -> None:
    """The drawing is where a newcomer learns which ``except`` catches what: each class sits
    under the class it derives from, and every class of the tree is drawn."""
    errors = {name: getattr(arena.errors, name) for name in arena.errors.__all__}
    actual = {name: next((base.__name__ for base in cls.__bases__ if base.__name__ in errors),
                         "") for name, cls in errors.items()}
    assert _drawn_parents() == actual


def test_every_package_names_its_public_api() -> None:
    """Each package lists what it offers in ``__all__`` (empty where its modules are the API),
    and every name listed is there."""
    for init in sorted((REPO / "arena").rglob("__init__.py")):
        name = ".".join(init.parent.relative_to(REPO).parts)
        package = importlib.import_module(name)
        assert isinstance(getattr(package, "__all__", None), list), f"{name} has no __all__"
        assert [n for n in package.__all__ if not hasattr(package, n)] == [], name


def _declared_api(tree: ast.Module) -> set[str] | None:
    """The names a module's ``__all__`` lists (None: it has none written as a list)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                for t in node.targets):
            return set(ast.literal_eval(node.value))
    return None


def test_what_a_module_takes_from_another_is_in_its_public_api() -> None:
    """A name one module imports from another is in that module's ``__all__``: the list a
    reader trusts to say what a module offers, and what may change only with its users."""
    trees = {".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__"):
             ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted((REPO / "arena").rglob("*.py"))}
    apis = {name: _declared_api(tree) for name, tree in trees.items()}
    unlisted = [f"{user} takes {node.module}.{alias.name}"
                for user, tree in trees.items() for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module in apis
                for alias in node.names
                if f"{node.module}.{alias.name}" not in apis
                and alias.name not in (apis[node.module] or set())]
    assert unlisted == []


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_ruff_is_clean() -> None:
    result = subprocess.run(["ruff", "check", "arena", "tests", "bots", "setup.py"], cwd=REPO,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    pytest.importorskip("mypy")
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
