"""The console script's set-up: the arena's log records read like the CLI's own warnings;
``arena --version``."""

from __future__ import annotations

import logging
import os

import pytest
import typer
from typer.testing import CliRunner

import arena
from arena.cli.main import app, configure_logging


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


def _commands(group: object, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and group under ``group`` (a group has ``commands``), as the words that
    name it."""
    found: list[tuple[str, ...]] = []
    for name, command in getattr(group, "commands", {}).items():
        found.append((*path, name))
        found.extend(_commands(command, (*path, name)))
    return found


def test_every_command_and_group_has_an_example_in_its_help() -> None:
    """The README promises it: ``arena env --help`` and ``arena league --help`` had none."""
    commands = _commands(typer.main.get_command(app))
    assert ("env",) in commands and ("league", "stop") in commands
    for words in commands:
        result = CliRunner().invoke(app, [*words, "--help"], terminal_width=200)
        text = " ".join(result.stdout.replace("│", " ").split())
        assert result.exit_code == 0 and f"Example: arena {' '.join(words)}" in text, words


def _rows_per_command(help_text: str) -> dict[str, int]:
    """The lines each command of a help's command panels takes."""
    rows: dict[str, int] = {}
    panel, name = "", ""
    for line in help_text.splitlines():
        if line.startswith("╭─ "):
            panel = line[3:].split(" ─", 1)[0]
        elif line.startswith("│ ") and panel != "Options":
            if line[2:3].isalpha():
                name = line[2:].split()[0]
                rows[name] = 0
            rows[name] += 1
    return rows


@pytest.mark.parametrize("words", [(), ("bots",), ("env",), ("league",), ("bench",)],
                         ids=["arena", "bots", "env", "league", "bench"])
def test_each_command_of_a_help_list_takes_a_line_or_two_at_80_columns(
        words: tuple[str, ...]) -> None:
    # the list showed each command's whole first paragraph: up to twelve lines each
    result = CliRunner().invoke(app, [*words, "--help"], terminal_width=80,
                                env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert max(map(len, result.stdout.splitlines())) == 80, result.stdout
    rows = _rows_per_command(result.stdout)
    group = typer.main.get_command(app)
    for word in words:
        group = group.commands[word]  # type: ignore[attr-defined]
    assert sorted(rows) == sorted(group.commands)  # type: ignore[attr-defined]
    assert all(1 <= count <= 2 for count in rows.values()), rows


def _arena(*args: str, stdout: int) -> tuple[int, str]:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "arena.cli.main", *args], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    return done.returncode, done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_output_to_a_full_device_is_one_error_line() -> None:
    with open("/dev/full", "w") as full:
        assert _arena("rules", stdout=full.fileno()) == (
            1, "Error: cannot write the output: No space left on device\n")
    assert _arena("simulate", "-g", "2", "--records", "/dev/full", stdout=-3) == (
        1, "Error: cannot write records to /dev/full: No space left on device\n")


def test_output_to_a_reader_that_left_ends_quietly() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # as `| head` does once it has read enough
    try:
        assert _arena("rules", "--effects", stdout=write_end) == (141, "")
    finally:
        os.close(write_end)


def test_a_broken_pipe_that_is_not_the_output_is_not_hidden(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.cli import engine_commands

    def broken(*_: object) -> str:
        raise BrokenPipeError(32, "Broken pipe")  # as a write to a dead bot's pipe would

    monkeypatch.setattr(engine_commands, "rules_summary", broken)
    result = CliRunner().invoke(app, ["rules"])
    assert (result.exit_code, result.stderr) == (
        1, "Error: Broken pipe: a pipe the arena wrote to was closed\n")


def test_running_out_of_memory_is_one_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.cli import engine_commands

    def too_big(*_: object) -> str:
        raise MemoryError  # as reading a records file's several-GB line would

    monkeypatch.setattr(engine_commands, "rules_summary", too_big)
    result = CliRunner().invoke(app, ["rules"])
    assert (result.exit_code, result.stderr) == (
        1, "Error: out of memory: the input is larger than this machine's memory allows\n")


def test_an_error_quoting_a_control_character_shows_it_escaped() -> None:
    """A file's name typed or pasted with an escape sequence would clear the terminal."""
    result = CliRunner().invoke(app, ["run", "/nonexistent/a\x1b[2Jb.yaml"])
    assert result.exit_code == 1
    assert result.output == "Error: no tournament spec at /nonexistent/a\\x1b[2Jb.yaml\n"
