"""House rules as tests: the code stays ruff- and mypy-clean, and the engine stays a leaf."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_ENGINE = ("arena.protocol", "arena.sandbox", "arena.referee", "arena.sdk",
                       "arena.tournament", "arena.rating", "arena.cli", "arena.registry")


def test_engine_imports_nothing_from_the_other_layers() -> None:
    offenders = []
    for path in sorted((REPO / "arena" / "engine").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {name}" for name in names
                          if name.startswith(FORBIDDEN_IN_ENGINE)]
    assert offenders == []


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
