"""``arena game FILE --failures``: every distinct reason a bot failed in a records file's games
(``arena match --records``, ``arena status NAME --records``), as ``arena status NAME
--failures`` tells a stored tournament's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()

SLOW = "no answer within 1000 ms"
RAISED = "exited mid-game (exit code 1)"


def _record(players: list[str], *failures: tuple[int, str, str],
            game: int = 0) -> dict[str, Any]:
    """A record's fields that --failures reads: the players, the game's id and the referee's
    failures."""
    return {"players": players, "referee": {"match_id": "cup/r1/t0", "game_index": game,
                                            "failures": [
        {"seat": seat, "bot": f"{players[seat]}@0123456789ab", "type": kind, "detail": detail}
        for seat, kind, detail in failures]}}


def _records(tmp_path: Path, *records: dict[str, Any], torn: bool = False) -> Path:
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records)
                    + ('{"players": ["a' if torn else ""))
    return path


def test_every_distinct_reason_with_how_often_and_the_first_record_and_seat(
        tmp_path: Path) -> None:
    path = _records(tmp_path, _record(["ann", "bob"]),
                    _record(["bob", "ann"], (1, "timeout", SLOW), (0, "crash", RAISED), game=1),
                    _record(["ann", "bob"], (0, "timeout", SLOW), game=2), torn=True)
    result = runner.invoke(app, ["game", str(path), "--failures"])
    assert (result.exit_code, result.stdout) == (0, "\n".join([
        f"failures in {path}: crash 1, timeout 2",
        f"ann timeout 2 times (first record 2, cup/r1/t0/g1, seat 1): {SLOW}",
        f"bob crash once (first record 2, cup/r1/t0/g1, seat 0): {RAISED}",
        "record 4 skipped: not JSON",
        f"open one: arena game {path} -n 2 --seat 1",
    ]) + "\n")


def test_the_command_to_open_one_quotes_a_path_for_the_shell(tmp_path: Path) -> None:
    folder = tmp_path / "my games"
    folder.mkdir()
    path = _records(folder, _record(["ann", "bob"], (0, "crash", RAISED)))
    result = runner.invoke(app, ["game", str(path), "--failures"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == f"open one: arena game '{path}' -n 1 --seat 0"


def test_a_file_without_failures_says_so(tmp_path: Path) -> None:
    path = _records(tmp_path, _record(["ann", "bob"]), {"players": ["ann", "bob"]})
    result = runner.invoke(app, ["game", str(path), "--failures"])
    assert (result.exit_code, result.stdout) == (0, f"no bot failures in {path} (2 game "
                                                    "records)\n")


def test_failures_goes_with_a_records_file_and_no_one_game_option(tmp_path: Path) -> None:
    path = _records(tmp_path, _record(["ann", "bob"]))
    stored = runner.invoke(app, ["game", "cup/r1/t0/g0", "--failures"])
    assert stored.exit_code == 2 and "arena status NAME --failures" in _said(stored.output)
    seated = runner.invoke(app, ["game", str(path), "--failures", "--seat", "1"])
    assert seated.exit_code == 2 and "--format json show one game" in _said(seated.output)


def test_failures_refuses_a_number_even_the_first(tmp_path: Path) -> None:
    """--failures with -n 3 listed the whole file's failures, the number silently ignored."""
    path = _records(tmp_path, _record(["ann", "bob"]), _record(["bob", "ann"]),
                    _record(["ann", "bob"]))
    for number in ("3", "1"):
        numbered = runner.invoke(app, ["game", str(path), "-n", number, "--failures"])
        assert numbered.exit_code == 2 and (
            "--failures lists the whole file's; --number, --seat, --html, --rerun and "
            "--format json show one game") in _said(numbered.output)


def _said(output: str) -> str:
    """A usage error's one line, under which only the hint to the command's help comes."""
    told, hint = output.splitlines()
    assert told.startswith("Error: ") and hint == "Try 'arena game --help'.", output
    return told


def test_a_records_files_text_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    """A records file from someone else: an escape sequence in a player's name, a failure's
    type or detail or a game's id would retitle the window, clear the screen or overwrite the
    line; each shows in its visible form, as arena status NAME --failures shows a bot's."""
    record = _record(["ann\x1b]0;pwned\x07", "bob"], (0, "crash\x1b[2J", "boom\x1b[31m\rfake"))
    record["referee"]["match_id"] = "cup\x9b2J"
    record["referee"]["failures"].append({"bot": "eve\u202e", "type": "timeout", "detail": "x"})
    result = runner.invoke(app, ["game", str(_records(tmp_path, record)), "--failures"],
                           color=True)
    assert result.exit_code == 0
    assert not [c for c in result.stdout if c != "\n" and (ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0
                                                           or c == "\u202e")]
    assert "ann\\x1b]0;pwned\\x07 crash\\x1b[2J once (first record 1, cup\\x9b2J/g0, seat 0): " \
           "boom\\x1b[31m\\x0dfake" in result.stdout
    assert "eve\\u202e timeout once" in result.stdout


def test_a_record_nested_deeper_than_the_stack_is_no_json(tmp_path: Path) -> None:
    """JSON nested deeper than Python's stack ended arena game and arena replay in a
    RecursionError traceback; --failures skips it as it skips a torn line."""
    nested = "[" * 100_000 + "]" * 100_000 + "\n"
    path = _records(tmp_path, _record(["ann", "bob"], (0, "timeout", SLOW)))
    path.write_text(path.read_text() + nested)
    listed = runner.invoke(app, ["game", str(path), "--failures"])
    assert listed.exit_code == 0 and "record 2 skipped: not JSON" in listed.stdout
    first = tmp_path / "first.jsonl"
    first.write_text(nested)
    for args in (["game", str(first)], ["replay", str(first)], ["game", str(path), "-n", "2"]):
        refused = runner.invoke(app, args)
        assert refused.exit_code == 1, args
        assert "is not JSON" in refused.stderr, args


def _peak_reading(path: Path) -> tuple[int, list[str]]:
    """The most memory ``records_failures`` of ``path`` held at once, and its lines."""
    import tracemalloc

    from arena.referee.game_report import records_failures

    tracemalloc.start()
    try:
        lines = records_failures(path)
        return tracemalloc.get_traced_memory()[1], lines
    finally:
        tracemalloc.stop()


def _many_records(path: Path, games: int) -> Path:
    """``games`` records, each with a bot's timeout of one reason (a long detail, as a bot's
    log quoted makes one), every tenth line torn."""
    detail = f"{SLOW}; the bot's log says: {'x' * 400}"
    with path.open("w") as out:
        for game in range(games):
            record = _record(["ann", "bob"], (game % 2, "timeout", detail), game=game)
            out.write(json.dumps(record)[:20] + "\n" if game % 10 == 9
                      else json.dumps(record) + "\n")
    return path


def test_failures_reads_a_records_file_in_memory_that_does_not_grow_with_it(
        tmp_path: Path) -> None:
    """Every failure was held until the end: a records file of gigabytes needed as much
    memory. Ten times the records now take about the same memory, not ten times."""
    small, small_lines = _peak_reading(_many_records(tmp_path / "small.jsonl", 400))
    large, large_lines = _peak_reading(_many_records(tmp_path / "large.jsonl", 4000))
    assert large < 2 * small, (small, large)
    # ann sits first in the even games, bob in the odd ones, whose every fifth is torn
    assert large_lines[0] == f"failures in {tmp_path / 'large.jsonl'}: timeout {2000 + 1600}"
    assert large_lines[1].startswith("ann timeout 2000 times (first record 1, cup/r1/t0/g0")
    assert large_lines[2].startswith("bob timeout 1600 times (first record 2, cup/r1/t0/g1")
    assert large_lines[3] == ("records 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 and 390 more "
                              "skipped: not JSON"), large_lines
    assert len(small_lines) == len(large_lines)
