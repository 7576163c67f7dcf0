"""``arena simulate | replay | rules | bench engine``: outputs, exact errors, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.engine.cards import NOTATION
from arena.engine.rules_text import effect_table_markdown

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, list(args))


# ---------------------------------------------------------------------------- simulate
@pytest.mark.parametrize("players", ["1", "6"])
def test_simulate_refuses_bad_player_counts(players: str) -> None:
    result = _run("simulate", "--players", players, "--games", "3")
    assert result.exit_code == 1
    assert result.output == f"Error: Palaestra is played by 2 to 5 players, not {players}\n"


def test_simulate_refuses_zero_games() -> None:
    result = _run("simulate", "--games", "0")
    assert result.exit_code == 1
    assert result.output == "Error: a simulation needs at least 1 game, not 0\n"


def test_simulate_json_parses_and_adds_up() -> None:
    result = _run("simulate", "-p", "3", "-g", "12", "-s", "4", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["players"] == 3 and data["games"] == 12 and data["seed"] == 4
    assert sum(data["wins_by_seat"]) == pytest.approx(12)
    assert sum(data["categories_at_showdown"].values()) == 3 * data["showdowns"]
    assert set(data["effects"]) == set(NOTATION) - {"Palaestron"}


def test_simulate_table_and_records(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    result = _run("simulate", "-p", "2", "-g", "6", "-s", "1", "--records", str(path))
    assert result.exit_code == 0, result.output
    for needle in ("games/s", "decisions/s", "win rate", "category at showdown", "Zeus"):
        assert needle in result.output
    assert len(path.read_text().splitlines()) == 6


def test_simulate_unwritable_records_path(tmp_path: Path) -> None:
    target = tmp_path / "no-such-dir" / "games.jsonl"
    result = _run("simulate", "-g", "1", "--records", str(target))
    assert result.exit_code == 1
    assert result.output == (f"Error: cannot write records to {target}: "
                             "No such file or directory\n")


# ---------------------------------------------------------------------------- replay
@pytest.fixture
def records(tmp_path: Path) -> Path:
    path = tmp_path / "games.jsonl"
    assert _run("simulate", "-p", "4", "-g", "3", "-s", "9", "--records", str(path)
                ).exit_code == 0
    return path


def test_replay_identical(records: Path) -> None:
    result = _run("replay", str(records))
    assert result.exit_code == 0, result.output
    assert result.output == "replayed 3 games: identical\n"


def test_replay_a_single_json_record(records: Path, tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps(json.loads(records.read_text().splitlines()[0]), indent=2))
    result = _run("replay", str(one))
    assert result.exit_code == 0, result.output
    assert result.output == "replayed 1 game: identical\n"


def _peak_of_replay(path: Path) -> int:
    import tracemalloc

    tracemalloc.start()
    try:
        result = _run("replay", str(path))
        assert result.exit_code == 0, result.output
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_replay_holds_one_record_at_a_time(tmp_path: Path) -> None:
    """A big export replayed in memory whole took 280 MB for 3,000 games; a record at a time,
    forty games need about what one does."""
    many = tmp_path / "many.jsonl"
    assert _run("simulate", "-p", "5", "-g", "40", "-s", "3", "--records", str(many)) \
        .exit_code == 0
    one = tmp_path / "one.jsonl"
    one.write_text(many.read_text().split("\n")[0] + "\n")
    _peak_of_replay(one)  # the first replay imports and caches what every replay needs
    assert _peak_of_replay(many) < 3 * _peak_of_replay(one)


def test_replay_reads_gzip_from_a_pipe(records: Path, tmp_path: Path) -> None:
    import gzip
    import os
    import threading

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    writer = threading.Thread(target=lambda: pipe.write_bytes(gzip.compress(
        records.read_bytes())))
    writer.start()
    result = _run("replay", str(pipe))
    writer.join()
    assert (result.exit_code, result.output) == (0, "replayed 3 games: identical\n")


def test_replay_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    result = _run("replay", str(missing))
    assert result.exit_code == 1
    assert result.output == f"Error: no such file: {missing}\n"


def test_replay_non_json_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("these are not game records\n")
    result = _run("replay", str(path))
    assert result.exit_code == 1
    assert result.output == (f"Error: {path} line 1 is not JSON (Expecting value, column 1): "
                             "expected one game record per line\n")


def test_replay_tampered_result(records: Path) -> None:
    lines = records.read_text().splitlines()
    record = json.loads(lines[1])
    true_result = dict(record["result"])
    record["result"]["placements"] = list(reversed(record["result"]["placements"]))
    if record["result"] == true_result:  # pragma: no cover - a palindrome of placements
        record["result"]["tiebreak"] = "lot"
    forged = dict(record["result"])
    lines[1] = json.dumps(record)
    records.write_text("\n".join(lines) + "\n")
    result = _run("replay", str(records))
    assert result.exit_code == 1
    assert result.output == (f"Error: game 2: the replayed result {true_result} differs from "
                             f"the recorded {forged}\n")


def test_replay_tampered_choice(records: Path) -> None:
    lines = records.read_text().splitlines()
    record = json.loads(lines[2])
    record["choices"][3][2] = 77
    lines[2] = json.dumps(record)
    records.write_text("\n".join(lines) + "\n")
    result = _run("replay", str(records))
    assert result.exit_code == 1
    assert result.output == "Error: game 3: choice 3: option 77 is not legal here\n"


def test_replay_names_the_field_a_record_lacks(tmp_path: Path) -> None:
    """It said only \"not a game record: 'config'\"."""
    path = tmp_path / "other.jsonl"
    path.write_text('{"hello": "world"}\n')
    result = _run("replay", str(path))
    assert (result.exit_code, result.output) == (
        1, "Error: game 1: not a game record: it has no 'config' field\n")


def test_replay_not_a_record(tmp_path: Path) -> None:
    path = tmp_path / "list.jsonl"
    path.write_text("[1, 2]\n")
    result = _run("replay", str(path))
    assert result.exit_code == 1
    assert result.output == "Error: game 1: not a game record: a JSON int, not an object\n"


# ---------------------------------------------------------------------------- rules
def test_rules_effect_table_has_every_face() -> None:
    result = _run("rules", "--effects")
    assert result.exit_code == 0, result.output
    for face in set(NOTATION):
        assert face in result.output


def test_rules_markdown_prints_the_effect_table_of_the_code() -> None:
    # RULES.md's copy of the table is checked in tests/engine/test_simulate.py
    result = _run("rules", "--effects", "--format", "markdown")
    assert result.exit_code == 0
    assert result.output == effect_table_markdown() + "\n"


def test_rules_json_and_summary() -> None:
    data = json.loads(_run("rules", "--effects", "--format", "json").output)
    assert [row["card"] for row in data] == list(dict.fromkeys(NOTATION))
    summary = _run("rules").output
    assert "Quartet" in summary and "arena rules --effects" in summary


# ---------------------------------------------------------------------------- help
@pytest.mark.parametrize("command, example", [
    (["simulate"], "Example: arena simulate --players 4 --games 1000 --seed 7"),
    (["replay"], "Example: arena replay games.jsonl"),
    (["rules"], "Example: arena rules --effects"),
    (["bench", "engine"], "Example: arena bench engine"),
    (["bench"], "Example: arena bench engine"),
])
def test_help_carries_an_example(command: list[str], example: str) -> None:
    result = _run(*command, "--help")
    assert result.exit_code == 0
    assert example in " ".join(result.output.replace("│", " ").split())


# ---------------------------------------------------------------------------- bench
def test_bench_engine_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.bench.engine.census", lambda: None)  # keep the test quick
    result = _run("bench", "engine", "-p", "2", "-g", "2", "-r", "1", "--hands", "100",
                  "--census-repeat", "1", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    units = [row["unit"] for row in data["rows"]]
    assert units == ["seconds", "seconds", "hands/s", "evaluations/s", "decisions/s", "games/s"]


def test_bench_engine_refuses_bad_players() -> None:
    result = _run("bench", "engine", "-p", "7")
    assert result.exit_code == 1
    assert result.output == "Error: Palaestra is played by 2 to 5 players, not 7\n"


def test_bench_ismcts_finds_the_sample_bots_from_anywhere(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Its default is the arena's own bots/, not ./bots; a wrong --bots is one line."""
    monkeypatch.chdir(tmp_path)
    result = _run("bench", "ismcts", "--positions", "1", "--iterations", "3", "-f", "json")
    assert result.exit_code == 0, result.output
    result = _run("bench", "ismcts", "--bots", str(tmp_path))
    assert result.exit_code == 1
    assert result.output == (f"Error: no ismcts.py in {tmp_path} (--bots names the directory "
                             "of ismcts.py and heuristic.py)\n")


def test_replay_reads_gzip_records(tmp_path: Path) -> None:
    import gzip

    plain = tmp_path / "games.jsonl"
    assert _run("simulate", "-p", "2", "-g", "4", "-s", "3", "--records",
                str(plain)).exit_code == 0
    packed = tmp_path / "games.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    result = _run("replay", str(packed))
    assert result.exit_code == 0, result.output
    assert result.output == "replayed 4 games: identical\n"
    torn = tmp_path / "torn.jsonl.gz"
    torn.write_bytes(packed.read_bytes()[:40])
    result = _run("replay", str(torn))
    assert result.exit_code == 1
    assert result.output == (f"Error: cannot read {torn}: Compressed file ended before the "
                             "end-of-stream marker was reached\n")


@pytest.mark.parametrize("args", [("simulate", "-p", "2", "-g", "5"), ("rules", "--house")])
def test_format_markdown_prints_markdown_tables(args: tuple[str, ...]) -> None:
    # "markdown" printed the terminal's table, which a Markdown page shows as one paragraph
    result = _run(*args, "--format", "markdown")
    assert result.exit_code == 0, result.output
    table = result.output.split("\n\n")[0].splitlines()
    assert table[1].startswith("|--") and all(line.startswith("| ") for line in table[2:])
    assert all(line.endswith(" |") for line in table if not line.startswith("|--"))
