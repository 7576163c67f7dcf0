"""``arena bots``: the list of registered bots, on a pipe and on a terminal."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app
from arena.sandbox import probe

BOTS = Path(__file__).resolve().parents[2] / "bots"

runner = CliRunner()


def _bots_dir(root: Path) -> Path:
    """A bots directory: a module bot named 'short' and a directory bot whose bot.yaml gives
    its own version as 1.10."""
    shutil.copy(BOTS / "greedy.py", root / "short.py")
    mine = root / "mine"
    mine.mkdir()
    shutil.copy(BOTS / "greedy.py", mine / "bot.py")
    (mine / "bot.yaml").write_text('name: mine\nmodule: bot.py\n'
                                   'metadata: {author: me, version: "1.10"}\n')
    return root


def test_the_list_shows_each_cell_as_written(tmp_path: Path) -> None:
    # an own version 1.10 was read as a number and shown 1.1
    result = runner.invoke(app, ["bots"], env={"ARENA_BOTS_DIR": str(_bots_dir(tmp_path))})
    lines = result.stdout.splitlines()
    assert result.exit_code == 0 and lines[0].split() == [
        "name", "version", "kind", "author", "own", "version", "file"]
    assert lines[2].split()[2:] == ["module", "me", "1.10", "mine"], result.stdout


def test_a_directory_bot_shows_the_author_its_class_sets(tmp_path: Path) -> None:
    """Its bot.yaml names no author, its class does (and its ready says so in a match): read
    from the class's source, never by importing it."""
    bot = tmp_path / "classy"
    bot.mkdir()
    (bot / "bot.py").write_text("from arena.sdk import Bot\n\n\nclass Classy(Bot):\n"
                                "    name = 'classy'\n    author = 'Ann Student'\n\n"
                                "    def act(self, request):\n        return 0\n\n\n"
                                "raise SystemExit('never run outside the sandbox')\n")
    (bot / "bot.yaml").write_text("name: classy\nmodule: bot.py\nversion: '3'\n")
    result = runner.invoke(app, ["bots"], env={"ARENA_BOTS_DIR": str(tmp_path)})
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[2].split()[2:] == [
        "module", "Ann", "Student", "3", "classy"], result.stdout


def _on_a_terminal(bots_dir: Path, columns: int) -> str:
    """What ``arena bots`` shows on a pseudo-terminal of ``columns`` x 24."""
    import os
    import re
    import sys

    import pexpect

    env = {**os.environ, "PYTHONPATH": str(BOTS.parent), "TERM": "xterm-256color",
           "ARENA_BOTS_DIR": str(bots_dir)}
    env.pop("COLUMNS", None)
    child = pexpect.spawn(sys.executable, ["-m", "arena.cli.main", "bots"], env=env,
                          dimensions=(24, columns), encoding="utf-8", timeout=60)
    shown = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\r", "", child.read())
    child.close()
    assert child.exitstatus == 0, shown
    return shown


def test_on_a_narrower_terminal_the_list_leaves_out_columns(tmp_path: Path) -> None:
    # a name of 40 characters, the most the registry allows, made the list 139 columns (the
    # file is the name again): at 80 each row wrapped its rest onto a second line
    longest = "a_bot_named_as_long_as_the_registry_lets"
    assert len(longest) == 40
    bots = _bots_dir(tmp_path)
    shutil.copy(BOTS / "greedy.py", bots / f"{longest}.py")
    shown = _on_a_terminal(bots, 80)
    lines = shown.splitlines()
    assert max(map(len, lines)) <= 80, shown
    assert lines[0].split() == ["name", "version", "kind", "author"]
    assert [line.split()[0] for line in lines[2:5]] == [longest, "mine", "short"]
    assert lines[2].split()[2:] == ["module", "Palaestra", "Arena"]
    assert lines[5:8] == ["Not shown, to fit the terminal: file, own version; --format json "
                          "has every", "field.", ""]
    # the directory's line wraps at a word, its path kept whole
    assert " ".join(lines[8:]) == f"Bots directory: {bots} (arena submit registers there)"
    narrow = _on_a_terminal(bots, 60)  # the name and the version, what a spec is given
    # (a path longer than a line has one of its own, whole)
    assert max(len(line) for line in narrow.splitlines() if line != str(bots)) <= 60, narrow
    assert narrow.splitlines()[0].split() == ["name", "version"]
    assert "file, own version, author, kind;" in " ".join(narrow.split())
    # a pipe gets every column, whatever the window
    piped = runner.invoke(app, ["bots"], env={"ARENA_BOTS_DIR": str(bots)}).stdout
    assert piped.splitlines()[2].split()[-1] == f"{longest}.py" and "Not shown" not in piped


def test_under_56_columns_the_list_leaves_out_the_version_then_cuts_names(
        tmp_path: Path) -> None:
    # the name (40 characters) and the version, left at 54 columns, wrapped below that
    longest = "a_bot_named_as_long_as_the_registry_lets"
    bots = _bots_dir(tmp_path)
    shutil.copy(BOTS / "greedy.py", bots / f"{longest}.py")
    for columns in (50, 40, 30):
        shown = _on_a_terminal(bots, columns)
        lines = shown.splitlines()
        assert max(len(line) for line in lines if line != str(bots)) <= columns, shown
        assert lines[0].split() == ["name"]
        names = [line.strip() for line in lines[2:5]]
        if columns >= len(longest):
            assert names == [longest, "mine", "short"]
        else:  # cut, with an ellipsis, to the terminal's width
            assert names[0] == longest[:columns - 1] + "…" and names[1:] == ["mine", "short"]
        assert "author, kind, version; --format json has every field." in " ".join(shown.split())


def test_a_registered_bot_that_cannot_be_read_is_named_not_left_out(tmp_path: Path) -> None:
    # a bot.yaml edited wrong made its bot vanish from the list without a word
    bots_dir = _bots_dir(tmp_path)
    broken = bots_dir / "broken"
    broken.mkdir()
    (broken / "bot.py").write_text("")
    (broken / "bot.yaml").write_text("name: broken\nmodule: [bot.py]\n")
    result = runner.invoke(app, ["bots"], env={"ARENA_BOTS_DIR": str(bots_dir),
                                               "COLUMNS": "200"})
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.stdout.splitlines()[2:4]] == ["mine", "short"]
    assert result.stdout.splitlines()[4] == (
        f"Not listed: broken: {broken / 'bot.yaml'}: 'module' must name a Python file of "
        "the bot's directory, got ['bot.py']")
    as_json = runner.invoke(app, ["bots", "--json"], env={"ARENA_BOTS_DIR": str(bots_dir)})
    assert as_json.stderr.startswith("Not listed: broken: ")


def test_a_bot_asking_for_a_python_this_host_lacks_is_said_to_be_unable_to_run(
        tmp_path: Path) -> None:
    # it was marked '*', "not installed yet", though no install could ever make it run here
    bots_dir = _bots_dir(tmp_path)
    shutil.copytree(bots_dir / "mine", bots_dir / "future")
    (bots_dir / "future" / "bot.yaml").write_text('name: future\nmodule: bot.py\n'
                                                  'python: "3.99"\n')
    env = {"ARENA_BOTS_DIR": str(bots_dir), "COLUMNS": "200",
           "ARENA_ENV_CACHE": str(tmp_path / "envs")}
    result = runner.invoke(app, ["bots"], env=env)
    lines = result.stdout.splitlines()
    assert result.exit_code == 0 and lines[2].split()[1].endswith("!"), result.stdout
    assert "*" not in result.stdout
    assert lines[5] == (f"! future needs Python 3.99, not on this machine (bots run with "
                        f"Python {probe().python_version} here): it cannot play here")
    as_json = runner.invoke(app, ["bots", "--json"], env=env)
    found = {bot["name"]: bot for bot in json.loads(as_json.stdout)}
    assert found["future"]["cannot_run"] == lines[5][len("! future "):-len(": it cannot "
                                                                          "play here")]
    assert "cannot_run" not in found["mine"]


def test_a_name_passing_for_another_is_shown_with_its_code_points(tmp_path: Path) -> None:
    # a file of the bots directory named with a Cyrillic e sat beside greedy, the same to
    # the eye
    bots_dir = _bots_dir(tmp_path)
    shutil.copy(BOTS / "random.py", bots_dir / "sh\u043ert.py")  # Cyrillic o
    result = runner.invoke(app, ["bots"], env={"ARENA_BOTS_DIR": str(bots_dir),
                                               "COLUMNS": "200"})
    names = [line.split("  ")[0].strip() for line in result.stdout.splitlines()[2:5]]
    assert names == ["mine", "short", "sh\u043ert ('sh\\u043ert')"], result.stdout
