"""The console script's set-up: the arena's log records read like the CLI's own warnings;
``arena --version``."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
import typer.main
from typer.testing import CliRunner

import arena
from arena.cli.main import COMMAND_MODULES, app, configure_logging, registered


def test_arena_warnings_are_printed_as_warning_lines(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    logger = logging.getLogger("arena")
    saved = (list(logger.handlers), logger.level, logger.propagate)
    logger.handlers.clear()
    try:
        configure_logging()
        configure_logging()  # once only, however often called
        logging.getLogger("arena.sandbox.probe").warning("sandbox layer %s is not active", "x")
        logging.getLogger("arena.sandbox.probe").info("not shown")
        assert capsys.readouterr().err == "warning: sandbox layer x is not active\n"
    finally:
        logger.handlers[:] = saved[0]
        logger.setLevel(saved[1])
        logger.propagate = saved[2]


def test_version_prints_the_arena_version_and_exits_0() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"arena {arena.__version__}\n"


def test_version_comes_before_any_command() -> None:
    """Eager: it answers even when a command follows, and runs none."""
    result = CliRunner().invoke(app, ["--version", "bots"])
    assert result.exit_code == 0
    assert result.stdout == f"arena {arena.__version__}\n"


def test_help_lists_the_everyday_commands_first_and_the_developer_tools_apart() -> None:
    result = CliRunner().invoke(app, ["--help"], terminal_width=120)
    assert result.exit_code == 0
    panels: dict[str, list[str]] = {}
    panel = ""
    for line in result.stdout.splitlines():
        if line.startswith("╭─ "):
            panel = line[3:].split(" ─", 1)[0]
            panels[panel] = []
        elif line.startswith("│ ") and line[2:3].isalpha() and panel != "Options":
            panels[panel].append(line[2:].split()[0])
    assert panels == {
        "Options": [],
        "Commands": ["run", "leaderboard", "status", "submit", "check-bot", "match", "play",
                     "bots", "doctor", "tournaments", "pairings", "h2h", "results", "game",
                     "export", "report", "serve", "delete", "env", "league"],
        "Developer tools": ["desmos", "simulate", "replay", "rules", "bench"],
    }


@pytest.mark.parametrize("module", sorted(COMMAND_MODULES))
def test_each_command_module_registers_the_commands_it_is_listed_with(module: str) -> None:
    """A command is looked up in the module listed with it, so the list must be right."""
    group = typer.main.get_group(registered((module,)))
    assert sorted(group.commands) == sorted(COMMAND_MODULES[module])


def test_a_command_imports_only_its_own_module_and_the_help_is_the_same() -> None:
    """`arena run` does not import the other commands' modules; its help, and the root's,
    read as when every module is imported first."""
    script = "\n".join([
        "import sys",
        "from typer.testing import CliRunner",
        "from arena.cli.main import COMMAND_MODULES, app",
        "run = CliRunner().invoke(app, ['run', '--help'], terminal_width=100).output",
        "print(sorted(m for m in COMMAND_MODULES if m in sys.modules))",
        "import importlib",
        "for module in COMMAND_MODULES: importlib.import_module(module)",
        "again = CliRunner().invoke(app, ['run', '--help'], terminal_width=100).output",
        "print(run == again and 'Usage: arena run' in run)",
    ])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["['arena.cli.tournament_commands']", "True"]
    root = CliRunner().invoke(app, ["--help"], terminal_width=100).output
    eager = typer.main.get_group(registered(tuple(COMMAND_MODULES)))
    listed = [line[2:].split()[0] for line in root.splitlines()
              if line.startswith("│ ") and line[2:3].isalpha()]
    assert sorted(listed) == sorted(eager.commands)
