"""``arena submit`` given what a careless user gives it: one line saying what is wrong, and
nothing registered."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

SAMPLES = Path(__file__).resolve().parents[2] / "bots"

runner = CliRunner()


@pytest.mark.parametrize(("written", "said"), [
    ("123", "but YAML reads an unquoted 123 as a number: quote it (name: \"123\")"),
    ("1.10", "but YAML reads an unquoted 1.1 as a number: quote it (name: \"1.1\")"),
    ("yes", "but YAML reads an unquoted yes, no, on, off, true or false as true: quote it"),
    ("2026-01-01", "but YAML reads an unquoted 2026-01-01 as a date: quote it (name: "
                   "\"2026-01-01\")"),
    ("[a, b]", "got a list"),
])
def test_a_name_yaml_reads_as_no_string_is_said_to_be_so(tmp_path: Path, written: str,
                                                         said: str) -> None:
    # 'name: 123' was refused as "'name' is required (a string)": it was there
    bot = tmp_path / "bot"
    bot.mkdir()
    shutil.copy(SAMPLES / "random.py", bot / "bot.py")
    (bot / "bot.yaml").write_text(f"name: {written}\nmodule: bot.py\n")
    bots = tmp_path / "bots"
    result = runner.invoke(app, ["submit", str(bot)], env={"ARENA_BOTS_DIR": str(bots)})
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == f"Error: {bot / 'bot.yaml'}: 'name' must be a string, {said}\n"
    assert not bots.exists()


@pytest.mark.parametrize(("args", "said"), [
    (["submit", ""], "nothing to submit: the path is empty"),
    (["check-bot", ""], "no bot given: the name or path is empty"),
    (["match", "", "random", "--games", "1"], "no bot given: the name or path is empty"),
])
def test_an_empty_bot_argument_is_refused_not_taken_for_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], said: str) -> None:
    # 'arena submit "$BOT"' with BOT unset submitted the working directory (Path('') is '.')
    bot = tmp_path / "here"
    bot.mkdir()
    shutil.copy(SAMPLES / "random.py", bot / "bot.py")
    monkeypatch.chdir(bot)
    bots = tmp_path / "bots"
    result = runner.invoke(app, args, env={"ARENA_BOTS_DIR": str(bots)})
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"Error: {said}\n")
    assert not bots.exists()


def test_a_bots_directory_that_is_a_file_is_said_to_be_one_before_any_check(
        tmp_path: Path) -> None:
    # submit ran the whole check, then said 'cannot register into ...: File exists'; the
    # list said 'No bots registered in ...'
    bots = tmp_path / "bots"
    bots.write_text("not a directory")
    said = (f"Error: the bots directory {bots} is a file, not a directory (docs/BOTS.md: "
            "$ARENA_BOTS_DIR, else ./bots, else $ARENA_HOME/bots or your data directory)\n")
    env = {"ARENA_BOTS_DIR": str(bots)}
    for args in (["submit", str(SAMPLES / "random.py"), "--name", "mine"], ["bots"],
                 ["bots", "prune"]):
        result = runner.invoke(app, args, env=env)
        assert (result.exit_code, result.stdout, result.stderr) == (1, "", said), args
    assert bots.read_text() == "not a directory"


def test_a_module_the_bot_directory_does_not_hold_is_named_with_those_it_holds(
        tmp_path: Path) -> None:
    # it was "'module' must name a Python file of the bot's directory, got 'bot.py'"
    bot = tmp_path / "bot"
    bot.mkdir()
    shutil.copy(SAMPLES / "random.py", bot / "main.py")
    (bot / "bot.yaml").write_text("name: mine\nmodule: bot.py\n")
    result = runner.invoke(app, ["submit", str(bot)],
                           env={"ARENA_BOTS_DIR": str(tmp_path / "bots")})
    assert (result.exit_code, result.stderr) == (1, (
        f"Error: {bot / 'bot.yaml'}: 'module' names bot.py, which the bot's directory does not "
        "hold (its Python files: main.py)\n"))


def test_a_bot_yaml_that_is_a_directory_is_said_to_be_one(tmp_path: Path) -> None:
    # it was "... is no bot directory: it has neither bot.yaml nor bot.py"
    bot = tmp_path / "bot"
    (bot / "bot.yaml").mkdir(parents=True)
    result = runner.invoke(app, ["submit", str(bot)],
                           env={"ARENA_BOTS_DIR": str(tmp_path / "bots")})
    assert (result.exit_code, result.stderr) == (1, (
        f"Error: {bot / 'bot.yaml'} is a directory: a bot's bot.yaml is a file "
        "(docs/BOTS.md)\n"))


@pytest.mark.parametrize(("program", "why"), [
    ("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'venv'\" >&2\nexit 1\n",
     "cannot make a virtual environment (ModuleNotFoundError: No module named 'venv'; on "
     "Debian its python3.98-venv package adds the venv module)"),
    ("\x7fELF garbage", "does not run (Exec format error)"),
])
def test_a_python_that_is_there_but_cannot_run_bots_is_said_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, program: str, why: str) -> None:
    # one without venv (Debian's python3.X without python3.X-venv) was 'there is no
    # /usr/bin/python3.X', though it was there; one that does not run was a traceback
    from arena.registry import interpreters
    from arena.sandbox import probe

    fake = tmp_path / "python3.98"
    fake.write_text(program)
    fake.chmod(0o755)
    monkeypatch.setattr(interpreters, "PYTHON_DIRS", (str(tmp_path),))
    interpreters._other_python.cache_clear()
    bot = tmp_path / "bot"
    bot.mkdir()
    shutil.copy(SAMPLES / "random.py", bot / "bot.py")
    (bot / "bot.yaml").write_text('name: old\nmodule: bot.py\npython: "3.98"\n')
    bots = tmp_path / "bots"
    result = runner.invoke(app, ["submit", str(bot)], env={"ARENA_BOTS_DIR": str(bots)})
    listed = interpreters.missing_python("3.98")
    interpreters._other_python.cache_clear()
    report = probe()
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", (
        f"Error: old: bot.yaml asks for Python 3.98, which this host lacks: the sandbox runs "
        f"bots with Python {report.python_version} ({report.python}) and {fake} {why}\n"))
    assert listed == f"needs Python 3.98, which cannot run bots here: {fake} {why}"
    assert not bots.exists()




def test_an_update_over_a_registered_bot_that_cannot_be_read_says_whose_files_are_broken(
        tmp_path: Path) -> None:
    # the registered copy's own error came out as if the submitted bot were broken
    from types import SimpleNamespace

    from arena.registry import submit

    bots = tmp_path / "bots"
    bot = tmp_path / "bot"
    bot.mkdir()
    shutil.copy(SAMPLES / "random.py", bot / "bot.py")
    (bot / "bot.yaml").write_text("name: mine\nmodule: bot.py\n")
    submit(bot, bots_dir=bots, check=lambda spec: SimpleNamespace(ok=True, failures=list))
    copy = bots / "mine" / "bot.yaml"
    copy.chmod(0o644)
    copy.write_text("name: mine\nmodule: [bot.py]\n")  # a hand's edit in the bots directory
    (bot / "bot.py").write_text((bot / "bot.py").read_text() + "# v2\n")
    result = runner.invoke(app, ["submit", str(bot), "--update"],
                           env={"ARENA_BOTS_DIR": str(bots)})
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", (
        f"Error: the registered bot 'mine' cannot be read ({copy}: 'module' must name a Python "
        "file of the bot's directory, got ['bot.py']): 'arena bots remove mine' drops it (its "
        "results stay), then submit again\n"))
    assert copy.read_text() == "name: mine\nmodule: [bot.py]\n"
