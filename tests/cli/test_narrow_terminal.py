"""Commands whose output is prose, on a terminal of 40 columns: lines wrap at words."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from arena.sandbox import probe

REPO = Path(__file__).resolve().parents[2]


def _run(args: list[str], columns: int | None) -> str:
    """What ``arena ARGS`` prints on a pseudo-terminal ``columns`` wide (None: to a pipe)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "TERM": "xterm-256color"}
    env.pop("COLUMNS", None)
    command = [sys.executable, "-m", "arena.cli.main", *args]
    if columns is None:
        return subprocess.run(command, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=120).stdout
    child = pexpect.spawn(command[0], command[1:], env=env, dimensions=(24, columns),
                          encoding="utf-8", timeout=120)
    shown = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\r", "", child.read())
    child.close()
    return shown


@pytest.mark.parametrize("args", [
    ["rules"], ["doctor"], ["env", "list"], ["desmos", "God-1", "God-2", "Crown", "Fate-1",
                                             "Beast-2"],
    ["desmos", "--compare", "God-1 God-2 Crown Fate-1 Beast-2",
     "God-3 God-4 Agari-1 Agari-2 Beast-3"],
], ids=["rules", "doctor", "env-list", "desmos", "desmos-compare"])
def test_prose_wraps_at_words_at_40_columns(args: list[str]) -> None:
    # the terminal broke every long line wherever 40 columns ran out ("opt|ionally",
    # "rlimit|s", "68.1 Mi|B", "Beast|-2")
    shown = _run(args, 40)
    # every word whole, none lost (a terminal shows standard error among the lines)
    def words(text: str) -> list[str]:  # the bot kit's copy is made again each run
        return sorted(re.sub(r"arena-kit-[\w-]+", "arena-kit", text).split())

    assert words(shown) == words(_run(args, None))
    assert all(len(line) <= 40 for line in shown.splitlines()
               if " " in line.strip()), shown  # a word longer than a line has its own


def test_a_game_told_at_40_columns_wraps_at_words_under_its_indent(tmp_path: Path) -> None:
    # the terminal broke its lines anywhere ("God-1\n, Umbrae-3", "Messenger'\ns Trade")
    records = tmp_path / "games.jsonl"
    _run(["simulate", "--games", "1", "--seed", "3", "--records", str(records)], None)
    shown = _run(["game", str(records)], 40)
    assert sorted(shown.split()) == sorted(_run(["game", str(records)], None).split())
    lines = shown.splitlines()
    assert all(len(line) <= 40 for line in lines if " " in line.strip()), shown
    dealt = next(i for i, line in enumerate(lines) if " is dealt " in line)
    assert lines[dealt].startswith("  ") and lines[dealt + 1].startswith("    "), shown


@pytest.mark.parametrize("which", ["--effects", "--house"])
def test_the_rules_tables_become_blocks_on_a_terminal_too_narrow_for_them(which: str) -> None:
    # their rows broke into lines of a few letters each ("Messenger'", "s", "Trade")
    from arena.engine.houserules import RULE_HELP
    from arena.engine.rules_text import effect_rows

    shown = _run(["rules", which], 40)
    assert all(len(line) <= 40 for line in shown.splitlines()), shown
    flowing = " ".join(shown.split())
    texts = ([text for *_, text in effect_rows()] if which == "--effects"
             else [reading for readings in RULE_HELP.values() for reading in readings.values()])
    assert all(" ".join(text.split()) in flowing for text in texts), shown
    asked = _run(["rules", which, "--format", "github"], 40)  # another format: as asked
    assert asked.splitlines()[0].startswith("| ")


def test_simulate_fits_its_tables_to_the_terminal() -> None:
    # its table of card effects was 114 columns with four seats: at 80 every row broke in two
    args = ["simulate", "--games", "10", "--seed", "1", "--players", "4"]
    for columns in (80, 40):
        shown = _run(args, columns)
        assert max(map(len, shown.splitlines())) <= columns, shown
        flowing = " ".join(shown.split())
        assert "Not shown, to fit the terminal: seat 0, seat 1, seat 2, seat 3" in flowing
    piped = _run(args, None)  # a pipe: every column, as always
    assert "Not shown" not in piped and max(map(len, piped.splitlines())) > 80


@pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")
def test_a_match_at_40_columns_keeps_its_places_and_wins_and_says_what_it_left_out() -> None:
    # its games' table (86 columns) broke each row at 80, and at 40 its bots' table too
    args = ["match", str(REPO / "bots" / "greedy.py"), str(REPO / "bots" / "random.py"),
            "--games", "2", "--seed", "1"]
    shown = _run(args, 40)
    lines = shown.splitlines()
    assert max(map(len, lines)) <= 40, shown
    assert ["game", "places", "(greedy,", "random)"] in [line.split() for line in lines]
    assert ["bot", "wins", "mean", "place"] in [line.split() for line in lines]
    flowing = " ".join(shown.split())
    assert "Not shown, to fit the terminal: tiebreak, desmos, starts" in flowing
    assert "Not shown, to fit the terminal: version, max ms" in flowing
    assert "Not shown" not in _run(args, None)  # a pipe: every column


@pytest.mark.parametrize(("args", "left_out"), [
    (["bench", "swiss", "-n", "4", "-n", "9", "-p", "2", "-r", "1", "--before-max", "4"],
     "cost after vs before, ratings+standings, speed-up, before"),
    (["bench", "leaderboard", "-g", "20", "-p", "2", "--bots", "4", "--repeat", "1"],
     "site (history), site (no history), store history, speed-up, board (history)"),
], ids=["swiss", "leaderboard"])
def test_a_bench_table_leaves_out_columns_to_fit_40_columns_and_names_them(
        args: list[str], left_out: str) -> None:
    # its rows ran on past the terminal's edge, each drawn over two or three lines
    shown = _run(args, 40)
    lines = shown.splitlines()
    assert all(len(line) <= 40 for line in lines), shown
    assert f"Not shown, to fit the terminal: {left_out};" in " ".join(shown.split())
    header = next(line for line in lines if "players" in line).split()
    piped = _run(args, None)
    assert "Not shown" not in piped  # a pipe has every column
    assert next(line for line in piped.splitlines() if "players" in line).split()[:3] == (
        header[:3])


def test_help_at_40_columns_keeps_every_option_name_whole_and_fits() -> None:
    # typer's panels cut option names and words to fit ("--wor…", "--bots-d…")
    import typer

    from arena.cli.main import app

    run = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    names = [name for param in run.params if param.param_type_name == "option"
             for name in (*param.opts, *param.secondary_opts)]
    shown = _run(["run", "--help"], 40)
    assert "…" not in shown
    assert all(len(line) <= 40 for line in shown.splitlines()), shown
    assert all(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", shown) for name in names), (
        shown)
    piped = _run(["run", "--help"], None)  # a pipe: typer's panels, as always
    assert shown.count("Example: arena run") == piped.count("Example: arena run") > 0
    root = _run(["--help"], 40)  # the commands under their panels' headings, as the panels
    assert "Commands:" in root and "Developer tools:" in root, root


@pytest.mark.parametrize("args", [[], ["env"]], ids=["root", "env"])
def test_a_group_run_without_a_command_at_40_columns_shows_its_help(args: list[str]) -> None:
    # the plain help was made and never printed: nothing at all was shown
    shown = _run(args, 40)
    assert "Usage:" in shown and "Commands:" in shown, shown
    assert all(len(line) <= 40 for line in shown.splitlines()), shown


@pytest.mark.parametrize("args", [["--help"], ["play", "--help"]], ids=["root", "play"])
def test_help_at_40_columns_breaks_no_word_at_its_hyphens(args: list[str]) -> None:
    # click's wrapping broke words at their hyphens ("in-" "process", "play-" "SEED.jsonl")
    shown = _run(args, 40).split()
    hyphened = [word for word in _run(args, None).split() if re.fullmatch(r"\w+(-\w+)+\W*", word)]
    assert hyphened and all(word in shown for word in hyphened), hyphened
