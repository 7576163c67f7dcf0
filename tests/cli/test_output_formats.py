"""One way to ask a command for JSON: ``--format json``, as the rating commands take it; the
commands that took ``--json`` take both, and print the same."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_status_failures import _stored
from typer.testing import CliRunner

from arena.cli.main import app
from arena.sandbox import probe

BOTS = Path(__file__).resolve().parents[2] / "bots"

runner = CliRunner()

needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")


def _env(tmp_path: Path) -> dict[str, str]:
    """A bots directory of one bot and an empty environment cache of its own."""
    bots = tmp_path / "bots"
    bots.mkdir(exist_ok=True)
    shutil.copy(BOTS / "greedy.py", bots / "mine.py")
    return {"ARENA_BOTS_DIR": str(bots), "ARENA_ENV_CACHE": str(tmp_path / "envs"),
            "COLUMNS": "200"}


@pytest.mark.parametrize("command", [["bots"], ["env", "list"], ["doctor"]])
def test_format_json_prints_what_json_prints(command: list[str], tmp_path: Path) -> None:
    env = _env(tmp_path)
    formatted = runner.invoke(app, [*command, "--format", "json"], env=env)
    flagged = runner.invoke(app, [*command, "--json"], env=env)
    short = runner.invoke(app, [*command, "-f", "json"], env=env)
    assert formatted.exit_code == flagged.exit_code == short.exit_code
    assert formatted.stdout == flagged.stdout == short.stdout
    json.loads(formatted.stdout)


@pytest.mark.parametrize("command", [["bots"], ["env", "list"], ["doctor"]])
def test_format_table_is_the_default(command: list[str], tmp_path: Path) -> None:
    env = _env(tmp_path)
    table = runner.invoke(app, [*command, "--format", "table"], env=env)
    plain = runner.invoke(app, command, env=env)
    assert table.exit_code == plain.exit_code and table.stdout == plain.stdout
    with pytest.raises(json.JSONDecodeError):
        json.loads(table.stdout)


@pytest.mark.parametrize(("command", "named"), [
    (["bots"], "bots"), (["env", "list"], "env list"), (["doctor"], "doctor"),
    (["check-bot", "random"], "check-bot"), (["match", "random", "random"], "match")])
def test_an_unknown_format_is_one_usage_line(command: list[str], named: str,
                                             tmp_path: Path) -> None:
    result = runner.invoke(app, [*command, "--format", "yaml"], env=_env(tmp_path))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == ("Error: Invalid value for '--format' / '-f': unknown format "
                             "'yaml' (choose table or json)\n"
                             f"Try 'arena {named} --help'.\n")


def test_json_and_format_table_together_are_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["bots", "--json", "--format", "table"], env=_env(tmp_path))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("Error: Invalid value for '--format' / '-f': --json asks for json, "
                             "--format table for a table: give one\n"
                             "Try 'arena bots --help'.\n")


def test_the_help_names_format_not_the_old_flag(tmp_path: Path) -> None:
    shown = runner.invoke(app, ["bots", "--help"], env={"COLUMNS": "200"}).stdout
    assert "--format" in shown and "table|json" in shown and "--json is the same" in shown
    assert "--json " not in shown.replace("--json is the same", "")


@needs_sandbox
@pytest.mark.parametrize("command", [
    ["check-bot", "mine", "--games", "1"],
    ["match", "mine", "mine", "--games", "1", "--seed", "3"]])
def test_a_played_command_gives_the_same_json_both_ways(command: list[str],
                                                       tmp_path: Path) -> None:
    env = _env(tmp_path)
    formatted = runner.invoke(app, [*command, "--format", "json"], env=env)
    flagged = runner.invoke(app, [*command, "--json"], env=env)
    assert formatted.exit_code == flagged.exit_code == 0, formatted.output
    # timings differ from one run to the next; the fields do not
    assert json.loads(formatted.stdout).keys() == json.loads(flagged.stdout).keys()


@pytest.mark.parametrize("command", [["leaderboard", "t"], ["h2h", "t"], ["tournaments"],
                                     ["pairings", "t"]])
def test_format_table_is_each_reading_commands_text_for_people(command: list[str],
                                                               tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _stored(db)
    args = [*command, "--db", str(db)]
    plain = runner.invoke(app, args, env={"COLUMNS": "200"})
    table = runner.invoke(app, [*args, "--format", "table"], env={"COLUMNS": "200"})
    assert plain.exit_code == table.exit_code == 0, table.output
    assert table.stdout == plain.stdout


def test_format_table_tells_a_game_as_text(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    made = runner.invoke(app, ["simulate", "-p", "2", "-g", "1", "-s", "3", "--records",
                               str(records)])
    assert made.exit_code == 0, made.output
    plain = runner.invoke(app, ["game", str(records)])
    table = runner.invoke(app, ["game", str(records), "-f", "table"])
    assert plain.exit_code == table.exit_code == 0, table.output
    assert table.stdout == plain.stdout


def test_an_unknown_table_format_names_table_among_the_choices(tmp_path: Path) -> None:
    result = runner.invoke(app, ["leaderboard", "--db", str(tmp_path / "a.db"), "-f", "yaml"])
    told, hint = result.stderr.splitlines()
    assert result.exit_code == 2 and result.stdout == ""
    assert told.startswith("Error: Invalid value for '--format' / '-f': unknown format 'yaml' "
                           "(choose table, json, csv or a tabulate format: asciidoc, ")
    assert hint == "Try 'arena leaderboard --help'."


@pytest.mark.parametrize("fmt", ["json", "markdown", "github"])
def test_the_rules_in_brief_refuse_a_format_they_would_not_keep(fmt: str) -> None:
    # a script asking the rules for json got the prose, exit 0
    result = runner.invoke(app, ["rules", "--format", fmt])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("Error: Invalid value for '--format' / '-f': the rules in brief "
                             "are text; --format goes with --effects or --house\n"
                             "Try 'arena rules --help'.\n")
    assert runner.invoke(app, ["rules", "--effects", "-f", fmt]).exit_code == 0


def test_a_desmos_in_json() -> None:
    result = runner.invoke(app, ["desmos", "God-1", "God-2", "Crown", "Fate-3", "Beast-1",
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "cards": ["God-1", "God-2", "Crown", "Fate-3", "Beast-1"], "category": "Triplet",
        "tie_key": [5, 5, 4, 2, 1]}


def test_two_desmos_compared_in_json() -> None:
    first, second = "God-1 God-2 Agari-1 Agari-2 Fate-1", "Umbrae-1 Umbrae-2 Arcoi-1 Arcoi-2 God-3"
    result = runner.invoke(app, ["desmos", "--compare", second, first, "-f", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [hand["tie_key"] for hand in data["hands"]] == [[3, 3, 3, 3, 5], [5, 5, 3, 3, 2]]
    assert data["winner"] == 2
    assert data["verdict"] == ("Hand 2 wins: same category, tie key 5 5 3 3 2 beats "
                               "3 3 3 3 5")
    tie = runner.invoke(app, ["desmos", "--compare", first, first, "-f", "json"])
    assert json.loads(tie.stdout)["winner"] is None


def test_the_census_in_json_counts_every_hand() -> None:
    result = runner.invoke(app, ["desmos", "--census", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data) == ["total", "categories"] and data["total"] == 2_349_060
    assert sum(row["hands"] for row in data["categories"]) == data["total"]
    assert [row["category"] for row in data["categories"]][:2] == ["The Ascension", "Quartet"]


def test_a_replay_in_json(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    made = runner.invoke(app, ["simulate", "-p", "2", "-g", "2", "-s", "3", "--records",
                               str(records)])
    assert made.exit_code == 0, made.output
    result = runner.invoke(app, ["replay", str(records), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"replayed": 2, "identical": True}


@needs_sandbox
def test_submit_in_json(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    source = tmp_path / "mybot.py"
    shutil.copy(BOTS / "greedy.py", source)
    env = {"ARENA_BOTS_DIR": str(bots)}
    first = runner.invoke(app, ["submit", str(source), "--name", "mybot", "--format", "json"],
                          env=env)
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert list(data) == ["registered", "name", "version", "path", "already", "check"]
    assert (data["registered"], data["name"], data["already"], data["check"]["ok"]) == (
        True, "mybot", False, True)
    assert data["path"] == str(bots / "mybot.py") and data["check"]["bot"] == "mybot"
    again = json.loads(runner.invoke(app, ["submit", str(source), "--name", "mybot", "-f", "json"],
                                     env=env).stdout)
    assert again == {**data, "already": True, "check": None}


@needs_sandbox
def test_a_submit_the_check_refuses_gives_its_checklist_in_json(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    failing = BOTS.parent / "tests" / "fixtures" / "bots" / "out_of_range.py"
    result = runner.invoke(app, ["submit", str(failing), "--format", "json"],
                           env={"ARENA_BOTS_DIR": str(bots)})
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert (list(data), data["registered"], data["check"]["ok"]) == (
        ["registered", "check"], False, False)
    assert result.stderr.startswith(f"Error: {failing} failed the compliance check: ")
    assert not any(bots.iterdir())


def test_a_benchs_unknown_format_reads_as_every_commands() -> None:
    result = runner.invoke(app, ["bench", "engine", "--format", "yaml"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("Error: Invalid value for '--format' / '-f': unknown format "
                             "'yaml' (choose table or json)\nTry 'arena bench engine --help'.\n")


@pytest.mark.parametrize("command", [["status"], ["submit"], ["desmos"], ["replay"]])
def test_a_command_that_never_took_json_does_not_offer_it(command: list[str]) -> None:
    shown = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"}).stdout
    # the words as written, wherever a help's layout breaks its lines or boxes them
    words = "".join(shown.replace("│", " ").split())
    assert "table|json" in words and "--json" not in words
    assert runner.invoke(app, [*command, "--json"]).exit_code == 2


def _spec(tmp_path: Path) -> Path:
    spec = tmp_path / "tiny.yaml"
    spec.write_text("name: tiny\nformat: swiss\nplayers_per_game: 4\nrounds: 2\n"
                    "games_per_match: 1\nseed: 5\nevent_date: '2026-11-29'\n"
                    f"results: {tmp_path / 'tiny.db'}\n"
                    "bots: [greedy, random, collector, heuristic, ismcts]\n")
    return spec


def test_run_check_in_json(tmp_path: Path) -> None:
    args = ["run", str(_spec(tmp_path)), "--check", "--no-trial"]
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    # five bots at tables of four sit at one table of five, as the text says
    text = runner.invoke(app, args).stdout.splitlines()
    assert "tables of 4 (sitting 5 each round), 2 rounds, 2 games planned" in text[0]
    assert json.loads(result.stdout) == {
        "name": "tiny", "format": "swiss", "entries": 5, "table_sizes": [4],
        "sitting": "5", "rounds": 2, "games_planned": 2, "budget_games": None,
        "seed_given": True, "rules": {},
        "results": str(tmp_path / "tiny.db"), "stored": "not created yet", "warnings": [],
        "refused_names": [], "trials": None, "ready": True,
        "verdict": "Entries not started (--no-trial): ready to run."}


def test_run_takes_a_format_only_with_check(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", str(_spec(tmp_path)), "-f", "json"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("Error: Invalid value for '--format' / '-f': --format goes with "
                             "--check (a run shows its progress)\nTry 'arena run --help'.\n")
    assert not (tmp_path / "tiny.db").exists()
    # a usage mistake before the spec is read: a spec with no file is not named
    missing = runner.invoke(app, ["run", str(tmp_path / "none.yaml"), "-f", "table"])
    assert missing.exit_code == 2 and missing.stderr.startswith(
        "Error: Invalid value for '--format' / '-f': --format goes with --check")
