"""``arena game``: one game from a records file or the results database, for people or as
JSON, whole or as one seat saw it; exact errors for what cannot be shown. ``arena delete``:
one stored tournament removed, after asking, never under a running one's feet; ``arena run
--fresh`` asks the same way before it drops one."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.engine.narration import sees
from arena.engine.record import RECORD_FORMAT
from arena.referee.game_report import report_game, seat_view
from arena.sandbox import probe
from arena.tournament.store import Store

runner = CliRunner()


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("game") / "games.jsonl"
    result = runner.invoke(app, ["simulate", "-p", "3", "-g", "3", "-s", "9",
                                 "--records", str(path)])
    assert result.exit_code == 0, result.output
    return path


def _record(path: Path, number: int) -> dict:
    return json.loads(path.read_text().splitlines()[number - 1])


def test_a_record_of_a_file_is_told_in_full(records: Path) -> None:
    result = runner.invoke(app, ["game", str(records), "--number", "2"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [f"Game 2 of {records}",
                                          *report_game(_record(records, 2))]


def test_gzip_records_are_read_too(records: Path, tmp_path: Path) -> None:
    packed = tmp_path / "games.jsonl.gz"
    packed.write_bytes(gzip.compress(records.read_bytes()))
    result = runner.invoke(app, ["game", str(packed), "-n", "3", "--seat", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1:] == report_game(_record(records, 3), 1)


def test_a_line_holding_a_unicode_line_separator_is_one_record(records: Path,
                                                               tmp_path: Path) -> None:
    """An export writes U+2028 unescaped (a bot's log); it was taken for a line end."""
    record = {**_record(records, 2), "referee": {"logs": {"1": "a\u2028b\x85c"}}}
    odd = tmp_path / "odd.jsonl"
    odd.write_text(2 * (json.dumps(record, ensure_ascii=False) + "\n"), encoding="utf-8")
    result = runner.invoke(app, ["game", str(odd), "-n", "2", "-f", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == record


def test_a_record_is_read_from_a_pipe(records: Path, tmp_path: Path) -> None:
    """A pipe (/dev/stdin, <(zcat ...)) was taken for a game id: '--number picks a record of
    a records file; ... is a stored game'."""
    import threading

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    writer = threading.Thread(target=lambda: pipe.write_bytes(records.read_bytes()))
    writer.start()
    result = runner.invoke(app, ["game", str(pipe), "-n", "3", "-f", "json"])
    writer.join(timeout=10)
    if writer.is_alive():  # the pipe was never opened: free the writer
        pipe.read_bytes()
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == _record(records, 3)


def test_json_with_a_seat_holds_only_that_seats_feed(records: Path) -> None:
    result = runner.invoke(app, ["game", str(records), "--seat", "2", "--format", "json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    whole = _record(records, 1)
    assert shown == seat_view(whole, 2)
    assert shown["events"] == [e for e in whole["events"] if sees(e["to"], 2)]
    assert "seed" not in shown and "seed" not in shown["config"]


@pytest.mark.parametrize("args, message", [
    (["-n", "4"], "Error: {file} holds 3 game records; there is no record 4\n"),
])
def test_a_record_past_the_end_is_refused(records: Path, args: list[str],
                                          message: str) -> None:
    result = runner.invoke(app, ["game", str(records), *args])
    assert result.exit_code == 1
    assert result.output == message.format(file=records)


def test_a_seat_outside_the_game_is_refused(records: Path) -> None:
    result = runner.invoke(app, ["game", str(records), "--seat", "3"])
    assert result.exit_code == 1
    assert result.output == f"Error: Game 1 of {records} has seats 0-2; there is no seat 3\n"


def test_unknown_format_is_a_usage_error(records: Path) -> None:
    result = runner.invoke(app, ["game", str(records), "--format", "pgn"])
    assert result.exit_code == 2
    assert "unknown format 'pgn' (choose text or json)" in result.output


@pytest.mark.parametrize("ref, message", [
    ("missing.jsonl", "Error: no such file: missing.jsonl\n"),
    ("{odd}", "Error: record 1 of {odd} is not a game record\n"),
    ("swiss", "Error: swiss is neither a records file nor a game id (a game id looks like "
              "swiss/r1/t0/g3: arena status NAME names the failing games)\n"),
])
def test_what_is_neither_file_nor_game_is_refused(tmp_path: Path, ref: str,
                                                  message: str) -> None:
    odd = tmp_path / "odd.json"
    odd.write_text('{"players": "ab"}')
    ref = ref.format(odd=odd)
    result = runner.invoke(app, ["game", ref, "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 1
    assert result.output == message.format(odd=odd)


@pytest.mark.parametrize("edit", ["result", "choice", "format"])
def test_a_record_that_does_not_replay_is_told_with_a_warning(records: Path, tmp_path: Path,
                                                               edit: str) -> None:
    """replay and --html refuse an edited or damaged record; the text view told it as if it
    were a game the engine played, without a word."""
    record = _record(records, 2)
    if edit == "result":
        record["result"]["placements"] = list(reversed(record["result"]["placements"]))
    elif edit == "choice":
        record["choices"][0][1] = "swap"
    else:
        record["format"] = "palaestra-record/2"
    path = tmp_path / "edited.jsonl"
    path.write_text(json.dumps(record) + "\n")
    refused = runner.invoke(app, ["replay", str(path)])
    assert refused.exit_code == 1
    for args in ([], ["--seat", "1"], ["--format", "json"]):
        shown = runner.invoke(app, ["game", str(path), *args])
        assert shown.exit_code == 0
        [warning] = shown.stderr.splitlines()
        why = refused.stderr.strip().removeprefix("Error: game 1: ")
        assert warning == (
            # nothing is wrong with it: its rules are older, said plainly in one line
            f"warning: Game 1 of {path} was played under the rules of palaestra-record/2; "
            f"this arena plays {RECORD_FORMAT} (RULES.md says what changed), so it is shown "
            "as recorded" if edit == "format" else
            f"warning: Game 1 of {path} does not replay ({why}); shown as recorded (arena "
            "replay checks a file of records)")
        told = shown.stdout if args != ["--format", "json"] else ""
        assert not told or told.splitlines()[1:] == report_game(record, 1 if args else None)
    assert runner.invoke(app, ["game", str(records), "-n", "2"]).stderr == ""


def test_stored_games_are_looked_up_by_id(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    result = runner.invoke(app, ["game", "cup/r1/t0/g0", "--db", str(db)])
    assert result.exit_code == 1
    assert result.output == (f"Error: no results database at {db} (run a tournament first, "
                             "e.g. arena run tournaments/swiss.yaml)\n")
    Store(db).close()
    result = runner.invoke(app, ["game", "cup/r1/t0/g0", "--db", str(db)])
    assert result.output == f"Error: no tournament named 'cup' in {db} (stored: none)\n"


def test_a_torn_records_file_still_shows_its_whole_records(records: Path,
                                                           tmp_path: Path) -> None:
    """A match killed while writing leaves a torn last line: the records before it show."""
    torn = tmp_path / "torn.jsonl"
    lines = records.read_text().splitlines()
    torn.write_text("\n".join([*lines[:2], lines[2][:100]]) + "\n")
    shown = runner.invoke(app, ["game", str(torn), "-n", "2"])
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines()[1:] == report_game(_record(records, 2))
    bad = runner.invoke(app, ["game", str(torn), "-n", "3"])
    assert (bad.exit_code, bad.output) == (1, f"Error: record 3 of {torn} is not JSON\n")


def test_a_number_with_a_stored_game_and_a_directory_are_refused(tmp_path: Path) -> None:
    for number in ("2", "1"):  # the first too: a stored game has no records to pick from
        numbered = runner.invoke(app, ["game", "cup/r1/t0/g0", "-n", number])
        assert numbered.exit_code == 2 and "--number picks a record of a records file" in (
            numbered.output)
    folder = runner.invoke(app, ["game", str(tmp_path)])
    assert folder.exit_code == 1
    assert folder.output.startswith(f"Error: {tmp_path} is neither a records file nor a game id")


def test_no_logs_applies_to_json_too(tmp_path: Path) -> None:
    record = _record_from_simulation(tmp_path)
    record["referee"] = {"seats": ["a@1", "b@2"], "failures": [], "logs": {"0": "secret\n"}}
    path = tmp_path / "one.json"
    path.write_text(json.dumps(record))
    shown = json.loads(runner.invoke(app, ["game", str(path), "-f", "json", "--no-logs"]).output)
    assert shown["referee"]["logs"] == {} and shown["referee"]["seats"] == ["a@1", "b@2"]
    kept = json.loads(runner.invoke(app, ["game", str(path), "-f", "json"]).output)
    assert kept["referee"]["logs"] == {"0": "secret\n"}


def _record_from_simulation(tmp_path: Path) -> dict:
    out = tmp_path / "sim.jsonl"
    assert runner.invoke(app, ["simulate", "-p", "2", "-g", "1", "-s", "4", "--records",
                               str(out)]).exit_code == 0
    return json.loads(out.read_text().splitlines()[0])


_SANDBOXED_LOG = ('Traceback (most recent call last):\n'
                  '  File "/bot/act5.py", line 7, in act\n'
                  '  File "/tmp/arena-box-77-x1/bot/lib/help.py", line 3, in helper\n'
                  "FileNotFoundError: [Errno 2] No such file or directory: '/bot/w.npy'\n")


def test_a_log_names_the_bot_files_as_its_author_knows_them(records: Path,
                                                            tmp_path: Path) -> None:
    """The sandbox runs a copy of the bot at /bot (or in its box): the record keeps what the
    bot wrote, the telling names its files under the bot's directory (known for a stored
    game, as the bot was entered), else relative to it."""
    record = {**_record(records, 1), "referee": {
        "seats": ["act5@v1", "b@v1", "c@v1"], "logs": {"0": _SANDBOXED_LOG},
        "failures": [{"seat": 0, "type": "crash", "detail": "exited mid-game (exit code 1); "
                      "FileNotFoundError: ... '/bot/w.npy' (at lib/help.py line 3, in helper)"}]}}
    odd = tmp_path / "games.jsonl"
    odd.write_text(json.dumps(record) + "\n")
    shown = runner.invoke(app, ["game", str(odd), "--seat", "0"])
    assert shown.exit_code == 0, shown.output
    out = shown.output.splitlines()
    at = out.index("Log of seat 0 (act5@v1):")
    assert out[at + 1:at + 5] == [
        "  | Traceback (most recent call last):",
        '  |   File "act5.py", line 7, in act',
        '  |   File "lib/help.py", line 3, in helper',
        "  | FileNotFoundError: [Errno 2] No such file or directory: 'w.npy'"]
    assert "  seat 0 act5@v1: crash: exited mid-game (exit code 1); FileNotFoundError: ... "\
           "'w.npy' (at lib/help.py line 3, in helper)" in out
    as_stored = runner.invoke(app, ["game", str(odd), "-f", "json"])
    assert json.loads(as_stored.output)["referee"]["logs"]["0"] == _SANDBOXED_LOG

    db = _stored_game(tmp_path / "arena.db", record, "/home/ann/act5")
    stored = runner.invoke(app, ["game", "t/r1/t0/g0", "--seat", "0", "--db", str(db)])
    assert stored.exit_code == 0, stored.output
    assert '  |   File "/home/ann/act5/act5.py", line 7, in act' in stored.output.splitlines()
    assert '  |   File "/home/ann/act5/lib/help.py", line 3, in helper' in \
        stored.output.splitlines()


def _stored_game(db: Path, record: dict, act5: str) -> Path:
    """A results database holding ``record`` as game t/r1/t0/g0, bot act5 entered from the
    path ``act5``."""
    import datetime as dt

    from arena.tournament.game_records import compress_record

    with Store(db) as store:
        row = store.create_tournament(
            name="t", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=3, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=1, spec_path=None,
            bots=[("act5", "v1", act5, {}), ("b", "v1", "bots/b.py", {}),
                  ("c", "v1", "bots/c.py", {})])
        store.record_game(row.id, {
            "id": "t/r1/t0/g0", "round": 1, "table_index": 0, "game_index": 0, "seed": 5,
            "seats": [1, 2, 3], "starting_seat": 0, "placements": [3, 1, 2],
            "desmos": ["Pair", "Pair", "Pair"], "ascension": False, "tiebreak": "",
            "failures": [], "forfeits": {}, "decisions": 31, "duration_s": 0.01,
            "latency": [{}, {}, {}]}, compress_record(record))
    return db


def test_a_bot_directory_with_a_dot_in_its_name_is_its_files_home(records: Path,
                                                                   tmp_path: Path) -> None:
    """A bot directory is told from a module by what it is, not by a dot in its name: the
    log of the bot entered as /home/ann/act5.v2 named /home/ann/act5.py, a file it never had."""
    record = {**_record(records, 1), "referee": {
        "seats": ["act5@v1", "b@v1", "c@v1"], "logs": {"0": _SANDBOXED_LOG}, "failures": []}}
    db = _stored_game(tmp_path / "arena.db", record, "/home/ann/act5.v2")
    stored = runner.invoke(app, ["game", "t/r1/t0/g0", "--seat", "0", "--db", str(db)])
    assert stored.exit_code == 0, stored.output
    assert '  |   File "/home/ann/act5.v2/act5.py", line 7, in act' in stored.output.splitlines()
    mine = tmp_path / "mine.v3"
    mine.mkdir()  # one on this machine is looked at: a directory named like a module too
    (mine / "bot.py").mkdir()
    db = _stored_game(tmp_path / "other.db", record, str(mine / "bot.py"))
    stored = runner.invoke(app, ["game", "t/r1/t0/g0", "--seat", "0", "--db", str(db)])
    assert f'  |   File "{mine}/bot.py/act5.py", line 7, in act' in stored.output.splitlines()


def _two_tournaments(db: Path) -> None:
    import datetime as dt

    from arena.tournament.game_records import compress_record

    with Store(db) as store:
        for name in ("trial", "final"):
            row = store.create_tournament(
                name=name, spec_hash="abc", spec_json={}, format="round_robin",
                players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
                games_planned=1, spec_path=None,
                bots=[("a", "v1", "bots/a.py", {}), ("b", "v1", "bots/b.py", {})])
            store.record_game(row.id, {
                "id": f"{name}/r1/t0/g0", "round": 1, "table_index": 0, "game_index": 0,
                "seed": 5, "seats": [1, 2], "starting_seat": 0, "placements": [2, 1],
                "desmos": ["Pair", "Triplet"], "ascension": False, "tiebreak": "",
                "failures": [], "forfeits": {}, "decisions": 31, "duration_s": 0.01,
                "latency": [{}, {}]}, compress_record({}))


@pytest.mark.parametrize(("ref", "says"), [
    ("trail/r1/t0/g0", "no tournament named 'trail' in {db} (did you mean 'trial'?) (stored: "
                       "trial, final, empty)"),
    ("trial/1/0/0", "trial/1/0/0 is not a game id: one looks like trial/r1/t0/g3 (round from "
                    "1, table and game from 0; arena status trial names the failing games)"),
    ("trial/r2/t0/g0", "no game trial/r2/t0/g0 in {db}: trial has games in round r1"),
    ("trial/r1/t3/g0", "no game trial/r1/t3/g0 in {db}: round 1 of trial has table t0"),
    ("trial/r1/t0/g5", "no game trial/r1/t0/g5 in {db}: trial/r1/t0 has game g0"),
    ("empty/r1/t0/g0", "no game empty/r1/t0/g0 in {db}: empty has no games yet"),
])
def test_a_game_id_that_finds_no_game_says_where_the_games_are(tmp_path: Path, ref: str,
                                                                says: str) -> None:
    """A typed id that missed (a typo, a round not played) was 'no record of game ...', or
    'no tournament ...' with no names: the newcomer had to guess again."""
    import datetime as dt

    db = tmp_path / "arena.db"
    _two_tournaments(db)
    with Store(db) as store:
        store.create_tournament(
            name="empty", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=1, spec_path=None,
            bots=[("a", "v1", "bots/a.py", {}), ("b", "v1", "bots/b.py", {})])
    result = runner.invoke(app, ["game", ref, "--db", str(db)])
    assert (result.exit_code, result.output) == (1, f"Error: {says.format(db=db)}\n")


def test_delete_asks_then_removes_one_tournament(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _two_tournaments(db)
    result = runner.invoke(app, ["delete", "trial", "--db", str(db)], input="n\n")
    assert result.exit_code == 1
    assert result.output == (f"Delete tournament 'trial' (1 game, stopped) from {db}? [y/N]: "
                             "n\nNothing deleted.\n")
    # input that ends before an answer (a script's closed stdin): one error line
    result = runner.invoke(app, ["delete", "trial", "--db", str(db)], input="")
    assert result.exit_code == 1
    assert result.output.endswith(
        "? [y/N]: \nError: nothing deleted: no answer (--yes deletes without asking)\n")
    result = runner.invoke(app, ["delete", "trial", "--db", str(db)], input="y\n")
    assert result.exit_code == 0, result.output
    assert result.output.endswith(f"Deleted tournament 'trial' (1 game, stopped) from {db}.\n")
    with Store(db, create=False) as store:
        assert store.tournament_names() == ["final"]
        assert store.count_games(store.require("final").id) == 1
        assert store.conn.execute("SELECT COUNT(*) FROM records").fetchone()[0] == 1
    result = runner.invoke(app, ["delete", "trial", "--db", str(db), "--yes"])
    assert result.exit_code == 1
    # 'final' is no misspelling of 'trial': not offered
    assert result.output == f"Error: no tournament named 'trial' in {db} (stored: final)\n"


def test_fresh_asks_before_dropping_a_tournament_with_games(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _two_tournaments(db)
    spec = tmp_path / "trial.yaml"
    spec.write_text(f"name: trial\nformat: round_robin\nbots: [random, greedy]\n"
                    f"players_per_game: 2\ngames_per_match: 1\nseed: 7\nresults: {db}\n")
    question = f"--fresh: drop tournament 'trial' (1 game, stopped) from {db} and start anew?"
    result = runner.invoke(app, ["run", str(spec), "--fresh", "--no-trial"], input="n\n")
    assert result.exit_code == 1
    assert result.output == f"{question} [y/N]: n\nNothing dropped.\n"
    # input that ends before an answer (a script's closed stdin): one error line
    result = runner.invoke(app, ["run", str(spec), "--fresh", "--no-trial"], input="")
    assert result.exit_code == 1
    assert result.output == (f"{question} [y/N]: \nError: nothing dropped: no answer (--yes "
                             "drops it without asking)\n")
    with Store(db, create=False) as store:
        assert store.tournament_names() == ["trial", "final"]
        assert store.count_games(store.require("trial").id) == 1


@pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")
def test_fresh_with_yes_drops_without_asking(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _two_tournaments(db)
    spec = tmp_path / "trial.yaml"
    spec.write_text(f"name: trial\nformat: round_robin\nbots: [random, greedy]\n"
                    f"players_per_game: 2\ngames_per_match: 1\nseed: 7\nresults: {db}\n")
    result = runner.invoke(app, ["run", str(spec), "--fresh", "--yes", "--no-trial",
                                 "--no-progress", "--workers", "1"], input="")
    assert result.exit_code == 0, result.output
    assert "?" not in result.output.splitlines()[0]
    assert "--fresh: dropping the stored tournament 'trial' (1 game recorded)" in result.output


def test_delete_is_refused_while_the_tournament_runs(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _two_tournaments(db)
    with Store(db) as running, running.lock("final"):
        result = runner.invoke(app, ["delete", "final", "--db", str(db), "-y"])
    assert result.exit_code == 1
    assert result.output == ("Error: tournament 'final' is being run by another process "
                             f"(pid {os.getpid()}); wait for it or stop it first\n")
    with Store(db, create=False) as store:
        assert store.tournament_names() == ["trial", "final"]


def test_a_records_files_text_reaches_the_terminal_escaped(records: Path,
                                                           tmp_path: Path) -> None:
    """A records file from someone else: an escape sequence in its game's id or in a choice
    the replay quotes reached the terminal raw in arena game's title and warning, --html's
    warning and arena replay's error; each shows in its visible form."""
    record = _record(records, 2)
    record["referee"] = {"match_id": "cup\x1b]0;pwned\x07", "game_index": 0}
    record["choices"][0][1] = "swap\x1b[2J"
    path = tmp_path / "hostile.jsonl"
    path.write_text(json.dumps(record) + "\n")
    for args in (["replay", str(path)], ["game", str(path)],
                 ["game", str(path), "--html", str(tmp_path / "page.html")]):
        shown = runner.invoke(app, args, color=True)
        said = shown.stdout + shown.stderr
        assert shown.exit_code == (1 if args[0] == "replay" else 0)
        assert "\x1b" not in said and "\x07" not in said
        assert "--html" in args or "swap\\x1b[2J" in shown.stderr
        assert args[0] == "replay" or "cup\\x1b]0;pwned\\x07/g0" in shown.stderr


@pytest.mark.parametrize(("finished", "hint"), [
    (True, "tournament 'trial' of {db} is finished, its games kept: arena leaderboard trial "
           "--db {db} shows its results"),
    (False, "tournament 'trial' of {db} (1 game, stopped) cannot be resumed without those "
            "bots: arena status trial --db {db} shows it"),
])
def test_a_spec_whose_bot_was_removed_points_to_its_stored_tournament(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, finished: bool, hint: str) -> None:
    """Running a finished tournament's spec again shows its results; once one of its bots
    was removed the spec is refused, and the refusal alone left the organiser without them."""
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "arena.db"
    _two_tournaments(db)
    if finished:
        with Store(db) as store:
            store.set_state(store.require("trial").id, "finished")
    spec = tmp_path / "trial.yaml"
    spec.write_text("name: trial\nformat: round_robin\nbots: [random, mine-a]\n"
                    f"seed: 7\nresults: {db}\n")
    result = runner.invoke(app, ["run", str(spec), "--no-trial"])
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        1, hint.format(db="arena.db"))
    elsewhere = runner.invoke(app, ["run", str(spec), "--no-trial", "--db",
                                    str(tmp_path / "other.db")])
    assert elsewhere.output.splitlines()[-1].startswith("  bots[1]: unknown bot 'mine-a'")


@pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")
def test_a_run_of_a_finished_tournament_says_nothing_was_played(tmp_path: Path) -> None:
    """The same command again after the end (a newcomer's natural second run) plays nothing,
    and says so with the way to play it again, not only '0 this run'."""
    spec = tmp_path / "trial.yaml"
    spec.write_text(f"name: trial\nformat: round_robin\nbots: [random, greedy]\n"
                    f"players_per_game: 2\ngames_per_match: 1\nseed: 7\n"
                    f"results: {tmp_path / 'arena.db'}\n")
    args = ["run", str(spec), "--no-trial", "--no-progress", "--workers", "1"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "Nothing played" not in first.output
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    assert again.stdout.splitlines()[-1] == ("Nothing played: the tournament was finished "
                                             "already (--fresh plays it anew; "
                                             "docs/TOURNAMENTS.md).")
