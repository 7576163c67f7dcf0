"""``arena play``: its usage errors, and a whole game with the keyboard's lines from a pipe."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.sandbox import probe

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"
runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")


def _run(*args: str, stdin: str = ""):
    return runner.invoke(app, ["play", *args], input=stdin,
                         env={"ARENA_BOTS_DIR": str(BOTS)})


def test_help_carries_an_example() -> None:
    result = _run("--help")
    assert result.exit_code == 0 and "Example: arena play bots/greedy.py" in result.stdout


def test_help_says_a_throw_is_drawn_by_lot_when_the_clock_runs_out() -> None:
    """A throw has no first option to fall back on: the clock draws one by lot (RULES.md E34)."""
    result = _run("--help")
    assert result.exit_code == 0
    assert "drawn by lot" in " ".join(result.stdout.replace("│", " ").split())


@pytest.mark.parametrize(("args", "error"), [
    (["random", "random", "random", "random", "random"],
     "a table seats 2 to 5 players: give 1 to 4 bots, not 5"),
    (["random", "--seat", "2"], "a table of 2 has seats 0-1"),
    (["random", "--records", "/nonexistent/games.jsonl"],
     "directory /nonexistent does not exist"),
    # a trailing slash names a directory: not a file named like it
    (["random", "--records", "/nonexistent/", "--seed", "3"],
     "directory /nonexistent does not exist"),
    # the narration would tell the person's moves and the bot's under one name
    (["random", "--name", "random"],
     "Invalid value for '--name': 'random' is the name of a bot at this table; choose "
     "another name"),
    (["random", "random", "--name", "random#2"], "'random#2' is the name of a bot"),
    # the bots read every name in each message, whose length docs/PROTOCOL.md bounds
    (["random", "--name", "x" * 65],
     "Invalid value for '--name': a name of at most 64 characters, as a bot's (this one has "
     "65)"),
    (["random", "--read-page", "yesterday"],
     "Invalid value for '--read-page': expected an ISO date such as 2026-11-30, got "
     "'yesterday'"),
    (["random", "--event-date", "tomorrow"],
     "Invalid value for '--event-date': must be a date (YYYY-MM-DD), not 'tomorrow'"),
])
def test_usage_errors(args: list[str], error: str) -> None:
    result = _run(*args)
    assert result.exit_code == 2
    assert error in " ".join(result.stderr.replace("│", " ").split())


def test_too_many_bots_names_the_argument_as_match_does() -> None:
    """The same mistake is told alike by ``arena play`` and ``arena match``: the argument is
    'BOTS', as click names it when it is missing."""
    result = _run(*["random"] * 5)
    assert result.exit_code == 2
    assert result.stderr == ("Error: Invalid value for 'BOTS': a table seats 2 to 5 players: "
                             "give 1 to 4 bots, not 5\nTry 'arena play --help'.\n")


@pytest.mark.parametrize(("args", "error"), [
    (["nobody"], "Error: unknown bot 'nobody' (registered: collector, greedy, heuristic, "
                 "ismcts, learned, random)\n"),
    (["random", "--rule", "kinds=nope"],
     "Error: house rule kinds must be one of type, family, not 'nope'\n"),
])
def test_errors_are_one_line(args: list[str], error: str) -> None:
    result = _run(*args)
    assert result.exit_code == 1 and result.stderr == error


@needs_sandbox
def test_a_game_from_a_pipe_with_records_in_a_directory(tmp_path: Path) -> None:
    result = _run("random", "--seed", "6", "--games", "1", "--pace", "0", "--name", "ann",
                  "--records", str(tmp_path), stdin="\n" * 200)
    assert result.exit_code == 0, result.output
    records = tmp_path / "play-6.jsonl"
    record = json.loads(records.read_text())
    assert record["players"][0] == "ann" and record["referee"]["seats"][0] == "person:ann"
    # the score once, above the menu: the closing lines used to say it again
    # (a piped line is not echoed: the last prompt's line goes on with the seed)
    last = result.stdout.splitlines()[-3:]
    assert last[0] == f"After 1 game: {', '.join(_wins(record))}"
    assert result.stdout.count("After 1 game: ") == 1
    assert last[1].endswith("(Enter = quit): Seed 6")
    assert last[2] == (f"Wrote 1 game record to {records} (arena game {records} -n 1 shows "
                       "the first)")


@needs_sandbox
def test_a_drawn_seed_is_not_the_name_of_the_records_file_written_as_games_end(
        tmp_path: Path) -> None:
    # play-SEED.jsonl named the drawn seed while the series went on: whoever looked in the
    # directory could compute every later game's deal from it
    result = _run("random", "--games", "1", "--pace", "0", "--records", str(tmp_path),
                  stdin="\n" * 200)
    assert result.exit_code == 0, result.output
    seed = re.search(r"Seed (\d+) \(--seed", result.stdout)
    assert seed is not None, result.stdout
    (records,) = tmp_path.iterdir()
    assert records.name.startswith("play-") and records.suffix == ".jsonl"
    assert seed[1] not in records.name
    assert f"Wrote 1 game record to {records} " in result.stdout


@needs_sandbox
def test_the_event_date_decides_whether_your_reading_counts_and_is_named_to_replay(
        tmp_path: Path) -> None:
    """Ruling 13 reads the players' last_read_page against the day the game counts as played:
    a page read after that day does not count, so who starts depends on --event-date."""
    starts = []
    for day in ("2029-12-31", "2030-01-01"):
        records = tmp_path / f"{day}.jsonl"
        # seed 2's lot, when no reading counts, gives seat 0 the start
        result = _run("random", "--seat", "1", "--seed", "2", "--games", "1", "--pace", "0",
                      "--read-page", "2030-01-01", "--event-date", day, "--records",
                      str(records), stdin="\n" * 300)
        assert result.exit_code == 0, result.output
        record = json.loads(records.read_text())
        assert record["config"]["event_date"] == day
        starts.append(record["starting_seat"])
    assert starts == [0, 1]  # on the day of the reading, the reader starts
    # a drawn seed's replay line names the day, which the seed alone does not deal again
    result = _run("random", "--games", "1", "--pace", "0", "--event-date", "2030-01-01",
                  stdin="\n" * 300)
    assert result.exit_code == 0, result.output
    seed = int(result.stdout.split("Seed ")[-1].split()[0])
    assert (f"Seed {seed} (--seed {seed} --event-date 2030-01-01 deals the same first game)"
            in " ".join(result.stdout.split()))


@needs_sandbox
def test_leaving_during_a_game_ends_with_the_score(tmp_path: Path) -> None:
    first = tmp_path / "first.jsonl"
    result = _run("random", "--seed", "6", "--games", "1", "--pace", "0", "--records",
                  str(first), stdin="\n" * 200)
    answers = sum(1 for c in json.loads(first.read_text())["choices"] if c[0] == 0)
    # the first game's answers, Enter for again, two answers of the second game, the end
    result = _run("random", "--seed", "6", "--pace", "0", stdin="\n" * (answers + 3))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    # the score after the game, and again at the end: the game left came after it
    assert [line for line in lines if line.startswith("After 1 game: ")] == [lines[-2]] * 2
    assert lines[-3].endswith("You left the table.") and lines[-1] == "Seed 6"


def _wins(record: dict) -> list[str]:
    places = record["result"]["placements"]
    return [f"{name} {int(place == 1)} win{'' if place == 1 else 's'}"
            for name, place in zip(record["players"], places, strict=True)]


@needs_sandbox
def test_the_end_of_input_leaves_the_table_at_once() -> None:
    result = _run("random", "--seed", "1", "--pace", "0")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-2:] == ["You left the table.", "No game finished."]


@needs_sandbox
def test_leaving_the_first_game_tells_the_drawn_seed_that_deals_it_again() -> None:
    """A person who left game 1 (to start it over, or to report what they saw) was told no
    seed, and a drawn one is found nowhere else."""
    import re

    result = _run("random", "--pace", "0", "--event-date", "2026-12-04")
    assert result.exit_code == 0, result.output
    *_, left, none, seed = result.stdout.splitlines()
    assert (left, none) == ("You left the table.", "No game finished.")
    assert re.fullmatch(r"Seed (\d+) \(--seed \1 --event-date 2026-12-04 deals the same first "
                        r"game\)", seed), seed


@needs_sandbox
def test_a_bot_that_does_not_start_ends_the_table_before_a_game(tmp_path: Path) -> None:
    """A person is not made to play a whole game against a bot that never started."""
    bot = tmp_path / "badimport.py"
    bot.write_text("import torch_that_is_not_here\nfrom arena.sdk import Bot\n\n\n"
                   "class B(Bot):\n    def act(self, request):\n        return 0\n")
    result = _run(str(bot), str(BOTS / "random.py"), "--seed", "1", stdin="\n" * 50)
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "Error: badimport did not start: exited before answering 'hello' (exit code 2); "
        "ModuleNotFoundError: No module named 'torch_that_is_not_here' (at badimport.py "
        "line 1, in <module>)")
    assert result.stderr.count("\n") == 1 and "Round 1" not in result.stdout
