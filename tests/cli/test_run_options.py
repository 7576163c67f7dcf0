"""``arena run`` options recorded as spec fields, a deal book, ``arena export``, ``arena
pairings``, the status of duplicate pairings, and a run leaving no lock file behind."""

from __future__ import annotations

import json
import re
import shlex
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from arena.cli.main import app
from arena.sandbox import probe
from arena.tournament.scoring import game_points

runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")
SPEC = {"name": "rr", "format": "round_robin", "bots": ["random", "greedy", "collector"],
        "players_per_game": 2, "games_per_match": 2, "seed": 123456789012345678,
        "event_date": "2026-11-29"}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One round-robin of three sample bots, its fields set on the command line."""
    where = tmp_path_factory.mktemp("run")
    (where / "rr.yaml").write_text(yaml.safe_dump({**SPEC, "results": str(where / "arena.db")}))
    (where / "book.txt").write_text("# three fixed deals\n11\n22\n\n{\"seed\": 33}\n")
    args = ["run", str(where / "rr.yaml"), "--games", "3", "--decision-ms", "500",
            "--deals", str(where / "book.txt"), "--no-progress", "--workers", "2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return {"where": where, "result": result, "db": str(where / "arena.db")}


@needs_sandbox
def test_the_run_header_names_the_fields_set_on_the_command_line(played: dict[str, Any]) -> None:
    book = played["where"] / "book.txt"
    assert played["result"].stderr.splitlines()[0] == (
        "Spec fields set on the command line, recorded with the spec: --games 3 --decision-ms "
        f"500 --deals {book} (give them again to resume)")


@needs_sandbox
def test_every_pairing_plays_the_deal_book_in_order(played: dict[str, Any]) -> None:
    out = played["where"] / "games.jsonl"
    result = runner.invoke(app, ["export", "rr", "--db", played["db"], "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr == f"Wrote 9 games of rr to {out}\n"
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(g["table"], g["game"], g["seed"]) for g in lines] == [
        (t, g, seed) for t in range(3) for g, seed in enumerate((11, 22, 33))]
    first = lines[0]
    assert list(first) == ["schema_version", "tournament", "game_id", "round", "table", "game",
                           "seed", "seats", "starting_seat", "placements", "desmos",
                           "ascension", "tiebreak", "forfeits", "points", "failures",
                           "decisions",
                           "duration_s", "record"]
    assert first["schema_version"] == 1 and first["record"]["seed"] == 11
    replayed = runner.invoke(app, ["replay", str(out)])
    assert replayed.stdout == "replayed 9 games: identical\n"
    # an export is a deal book too: its lines' seeds
    again = runner.invoke(app, ["run", str(played["where"] / "rr.yaml"), "--check",
                                "--deals", str(out), "--db", str(played["where"] / "b.db")])
    assert again.exit_code == 0, again.output
    assert ", tables of 2, 1 round, " in again.stdout.splitlines()[0]  # not "1 round(s)"


@needs_sandbox
def test_an_export_to_a_gz_file_is_gzip(played: dict[str, Any], tmp_path: Path) -> None:
    """It was the plain text under a .gz name, which zcat and pandas refuse."""
    import gzip

    plain, packed = tmp_path / "games.jsonl", tmp_path / "games.jsonl.gz"
    for out in (plain, packed):
        result = runner.invoke(app, ["export", "rr", "--db", played["db"], "-o", str(out)])
        assert result.exit_code == 0, result.output
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert runner.invoke(app, ["replay", str(packed)]).stdout == "replayed 9 games: identical\n"
    again = runner.invoke(app, ["run", str(played["where"] / "rr.yaml"), "--check",
                                "--deals", str(packed), "--db", str(tmp_path / "b.db")])
    assert again.exit_code == 0, again.output


@needs_sandbox
def test_an_export_writes_through_a_link_and_into_a_pipe(
        played: dict[str, Any], tmp_path: Path) -> None:
    import os
    import threading

    def export(to: Path) -> Any:
        return runner.invoke(app, ["export", "rr", "--db", played["db"], "-o", str(to)])

    (tmp_path / "target.jsonl").write_text("old\n")
    (tmp_path / "link.jsonl").symlink_to("target.jsonl")
    assert export(tmp_path / "link.jsonl").exit_code == 0
    assert (tmp_path / "link.jsonl").is_symlink()
    assert len((tmp_path / "target.jsonl").read_text().splitlines()) == 9
    os.mkfifo(tmp_path / "pipe")
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append((tmp_path / "pipe").read_bytes()))
    reader.start()
    assert export(tmp_path / "pipe").exit_code == 0
    reader.join()
    assert read[0].count(b"\n") == 9 and (tmp_path / "pipe").is_fifo()


@needs_sandbox
def test_a_rerun_without_the_options_is_refused_saying_which(played: dict[str, Any]) -> None:
    where = played["where"]
    result = runner.invoke(app, ["run", str(where / "rr.yaml"), "--no-progress"])
    assert result.exit_code == 1
    spec = json.loads(_stored_spec(played["db"]))
    assert spec["games_per_match"] == 3 and spec["limits"] == {"decision_ms": 500}
    assert spec["overrides"] == {"games_per_match": 3, "limits.decision_ms": 500,
                                 "deals": str(where / "book.txt")}
    assert result.stderr.splitlines()[-1] == (
        f"Error: tournament 'rr' exists with a different spec (hash {spec['spec_hash']}, this "
        f"spec {_hash_without_options(where)}: deals, games_per_match, limits changed; it was "
        f"started with --games 3 --decision-ms 500 --deals {where / 'book.txt'}: give them again "
        "to resume it); --new-edition "
        "starts rr-2 and keeps this one for comparison, --fresh starts anew, or rename it; it "
        f"is finished: arena leaderboard rr --db {played['db']} shows its results")


def _stored_spec(db: str) -> str:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("SELECT spec_json FROM tournaments").fetchone()[0])
    finally:
        conn.close()


def _hash_without_options(where: Path) -> str:
    from arena.tournament.spec_loading import load_spec

    return load_spec(where / "rr.yaml").spec_hash()


@needs_sandbox
def test_a_run_leaves_no_lock_file(played: dict[str, Any]) -> None:
    assert sorted(p.name for p in played["where"].iterdir() if ".lock" in p.name) == []


@needs_sandbox
def test_pairings_show_each_board_with_scores_before_and_the_result(
        played: dict[str, Any]) -> None:
    result = runner.invoke(app, ["pairings", "rr", "--db", played["db"]])
    assert result.exit_code == 0, result.output
    out = played["where"] / "games.jsonl"
    if not out.exists():
        runner.invoke(app, ["export", "rr", "--db", played["db"], "-o", str(out)])
    games = [json.loads(line) for line in out.read_text().splitlines()]
    points: dict[int, list[Fraction]] = {}
    seats: dict[int, list[str]] = {}
    for game in games:
        pts = points.setdefault(game["table"], [Fraction(0)] * 2)
        seats.setdefault(game["table"], [s.split("@")[0] for s in game["seats"]])
        for seat, p in enumerate(game_points(game["placements"])):
            pts[seat] += p
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "rr, round 1 of 1",
        "board    seat 1 (score before)    seat 2 (score before)    result    games",
        "-------  -----------------------  -----------------------  --------  -------"]
    for t in range(3):
        a, b = seats[t]
        shown = " - ".join(str(int(p)) if p.denominator == 1 else f"{float(p):.2f}".rstrip("0")
                           for p in points[t])
        assert lines[3 + t].split() == [str(t + 1), a, "(0)", b, "(0)", *shown.split(), "3/3"]
    assert len(lines) == 6


@needs_sandbox
def test_pairings_as_json_give_each_board_its_bots_scores_and_points(
        played: dict[str, Any]) -> None:
    result = runner.invoke(app, ["pairings", "rr", "--format", "json", "--db", played["db"]])
    assert result.exit_code == 0, result.output
    out = played["where"] / "games.jsonl"
    if not out.exists():
        runner.invoke(app, ["export", "rr", "--db", played["db"], "-o", str(out)])
    games = [json.loads(line) for line in out.read_text().splitlines()]
    expected: dict[int, dict[str, Any]] = {}
    for game in games:
        board = expected.setdefault(game["table"], {"bots": game["seats"], "points": [0.0] * 2,
                                                    "games": 0})
        board["games"] += 1
        for seat, p in enumerate(game_points(game["placements"])):
            board["points"][seat] += float(p)
    document = json.loads(result.stdout)
    assert (document["name"], document["rounds"]) == ("rr", 1)
    assert list(document)[:2] == ["name", "tournament"] and document["tournament"] == "rr"
    [only] = document["pairings"]
    assert (only["round"], only["paired"], only["byes"]) == (1, True, [])
    assert [(b["board"], b["bots"], b["before"], b["points"], b["games"], b["games_planned"],
             b["seatings"]) for b in only["boards"]] == [
        (t + 1, board["bots"], [0.0, 0.0], board["points"], board["games"], 3, 1)
        for t, board in sorted(expected.items())]


def test_pairings_refuse_a_format_they_do_not_write() -> None:
    result = runner.invoke(app, ["pairings", "rr", "--format", "csv"])
    assert result.exit_code == 2
    assert "unknown format 'csv' (choose text or json)" in result.stderr


def test_pairings_of_a_tournament_not_stored(tmp_path: Path) -> None:
    from arena.tournament.store import Store

    db = tmp_path / "arena.db"
    Store(db).close()
    result = runner.invoke(app, ["pairings", "nope", "--db", str(db)])
    assert result.exit_code == 1
    assert result.stderr == f"Error: no tournament named 'nope' in {db} (stored: none)\n"


@needs_sandbox
def test_pairings_of_a_round_past_the_last_is_refused(played: dict[str, Any]) -> None:
    result = runner.invoke(app, ["pairings", "rr", "--round", "2", "--db", played["db"]])
    assert result.exit_code == 1
    assert result.stderr == "Error: tournament 'rr' has only round 1, not 2\n"


def test_a_deal_book_with_a_bad_line_is_refused_naming_it(tmp_path: Path) -> None:
    spec = tmp_path / "rr.yaml"
    spec.write_text(yaml.safe_dump({**SPEC, "deals": "book.txt",
                                    "results": str(tmp_path / "arena.db")}))
    (tmp_path / "book.txt").write_text("11\n# fine\nseven\n")
    result = runner.invoke(app, ["run", str(spec), "--check"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {spec} is not a valid tournament spec:\n  deals: deal book "
        f"{tmp_path / 'book.txt'}, line 3: expected a seed (an integer from 0 to 2**63 - 1) "
        "or a JSON object with one, got 'seven'\n")


def test_run_help_says_how_to_stop_and_resume() -> None:
    result = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.stdout.split())
    assert ("Stop and resume: Ctrl-C (or kill) stops a run at any moment, losing at most the "
            "games in flight, and running the same command again resumes where it stopped"
            in text)


@needs_sandbox
def test_a_duplicate_pairing_is_one_pairing_in_status_and_pairings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "arena.db"
    spec = tmp_path / "sw.yaml"
    spec.write_text(yaml.safe_dump({**SPEC, "name": "sw", "format": "swiss", "rounds": 2,
                                    "games_per_match": 1, "duplicate": "rotations",
                                    "results": str(db)}))
    assert runner.invoke(app, ["run", str(spec), "--no-progress"]).exit_code == 0
    status = runner.invoke(app, ["status", "sw", "--db", str(db)]).stdout.splitlines()
    at = status.index("  round    pairings    byes  games")
    assert status[at + 2:at + 5] == [
        "      1           1       1  2/2 (100%)",
        "      2           1       1  2/2 (100%)",
        "(duplicate: a pairing plays each deal in 2 seatings, 2 games a pairing; "
        f"arena pairings sw --db {db} shows who met whom)"]
    assert "rank  bot" in status[at + 6] and status[at + 6].split()[-2:] == ["pairings", "byes"]
    lines = runner.invoke(app, ["pairings", "sw", "--round", "2", "--db", str(db)]).stdout
    shown = lines.splitlines()
    assert shown[0] == ("sw, round 2 of 2 (duplicate: each board plays its deals in 2 "
                        "seatings, counted together)")
    assert shown[3].split()[0] == "1" and shown[3].split()[-1] == "2/2"
    assert shown[4].startswith("bye: ") and len(shown) == 5
    # on a terminal the note wraps at words as one paragraph, as the lines above it do: its
    # two lines were each wrapped apart, "a pairing;" left alone on a line between them
    import arena.cli.terminal

    monkeypatch.setattr(arena.cli.terminal, "terminal_width", lambda **_: 60)
    monkeypatch.chdir(tmp_path)
    narrow = runner.invoke(app, ["status", "sw", "--db", "arena.db"]).stdout.splitlines()
    at = narrow.index("(duplicate: a pairing plays each deal in 2 seatings, 2 games")
    assert narrow[at:at + 3] == [
        "(duplicate: a pairing plays each deal in 2 seatings, 2 games",
        "  a pairing; arena pairings sw --db arena.db shows who met",
        "  whom)"]


@needs_sandbox
def test_status_and_tournaments_name_their_columns_alike(played: dict[str, Any]) -> None:
    status = runner.invoke(app, ["status", "--db", played["db"]]).stdout.splitlines()
    listed = runner.invoke(app, ["tournaments", "--db", played["db"]]).stdout.splitlines()
    assert status[0].split() == listed[0].split() == [
        "tournament", "format", "per", "table", "bots", "games", "state", "created"]


@needs_sandbox
def test_a_match_plays_the_deal_book_one_deal_in_each_seating(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("11\n22\n")
    records = tmp_path / "games.jsonl"
    result = runner.invoke(app, ["match", "random", "greedy", "--games", "6", "--duplicate",
                                 "rotations", "--deals", str(book), "--records", str(records),
                                 "--seed", "5"])
    assert result.exit_code == 0, result.output
    seeds = [json.loads(line)["seed"] for line in records.read_text().splitlines()]
    assert seeds == [11, 11, 22, 22, 11, 11]  # past the book's end, from its start again
    bad = tmp_path / "bad.txt"
    bad.write_text("x\n")
    refused = runner.invoke(app, ["match", "random", "greedy", "--deals", str(bad)])
    assert refused.exit_code == 1
    assert refused.stderr == (f"Error: deal book {bad}, line 1: expected a seed (an integer "
                              "from 0 to 2**63 - 1) or a JSON object with one, got 'x'\n")


def test_the_resume_command_repeats_the_options_that_set_spec_fields(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.tournament.status import resume_command

    monkeypatch.chdir(tmp_path)
    given = {"limits.decision_ms": 500, "deals": "/srv/my book.txt", "games_per_match": 3}
    assert resume_command("rr.yaml", None, given) == (
        "arena run rr.yaml --games 3 --decision-ms 500 --deals '/srv/my book.txt'")
    assert resume_command("rr.yaml", "other.db", {}) == "arena run rr.yaml --db other.db"


def test_a_swiss_round_not_paired_yet_says_so() -> None:
    from arena.cli.pairings_commands import render_round
    from arena.tournament.pairings import RoundPairings

    assert render_round("sw", 3, RoundPairings(3, [], [])) == [
        "sw, round 3 of 3: not paired yet (a Swiss round is paired once the one before it is "
        "finished)"]


def test_a_round_of_two_table_sizes_says_both_seatings() -> None:
    """A ladder's round holds tables of 2 (2 rotations) and of 3 (3 rotations)."""
    from arena.cli.pairings_commands import render_round
    from arena.tournament.pairings import Board, RoundPairings

    zero = Fraction(0)
    boards = [Board(1, ("a@1", "b@1"), (zero,) * 2, (Fraction(2), zero), 2, 2, 2),
              Board(2, ("a@1", "b@1", "c@1"), (zero,) * 3, (Fraction(3), zero, zero), 3, 3, 3)]
    assert render_round("mix", 1, RoundPairings(1, boards, []))[0] == (
        "mix, round 1 of 1 (duplicate: each board plays its deals in 2 or 3 seatings, counted "
        "together)")


def test_a_round_of_five_seats_has_a_line_a_seat_on_a_narrower_terminal() -> None:
    """Five seats of 'seat N (score before)' made a board's line 130 columns: at 80 every
    line wrapped twice, and the title wrapped mid-word."""
    from arena.cli.pairings_commands import render_round
    from arena.tournament.pairings import Board, RoundPairings

    bots = ("heuristic@1", "collector@1", "greedy@1", "random2@1", "random@1")
    before = tuple(Fraction(n, 4) for n in (15, 9, 11, 1, 4))
    points = tuple(Fraction(n, 4) for n in (14, 13, 9, 3, 1))
    view = RoundPairings(2, [Board(1, bots, before, points, 4, 4, 2)],
                         [("ismcts@1", Fraction(5), Fraction(1))])
    wide = render_round("swiss5", 2, view)  # a pipe's: as always
    assert wide[1].split()[:3] == ["board", "seat", "1"] and len(wide[1]) > 80
    lines = render_round("swiss5", 2, view, 80)
    assert "\n".join(lines).splitlines() == [
        "swiss5, round 2 of 2 (duplicate: each board plays its deals in 2 seatings,",
        "counted together)",
        "board    seat    bot        score before    points    games",
        "-------  ------  ---------  --------------  --------  -------",
        "1        1       heuristic  3.75            3.5       4/4",
        "         2       collector  2.25            3.25",
        "         3       greedy     2.75            2.25",
        "         4       random2    0.25            0.75",
        "         5       random     1               0.25",
        "bye: ismcts (5), +1"]
    # a board that fits keeps its line, under a title wrapped at words
    two = RoundPairings(1, [Board(1, bots[:2], before[:2], points[:2], 4, 4, 2)], [])
    assert render_round("swiss5", 1, two, 80)[1] == render_round("swiss5", 1, two)[1]


@needs_sandbox
def test_at_40_columns_pairings_leave_out_columns_a_line_a_seat(played: dict[str, Any]) -> None:
    # a line a seat was still 61 columns (58 and more at any width): each broke in two
    import os
    import re
    import sys

    import pexpect

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "TERM": "xterm-256color"}
    env.pop("COLUMNS", None)
    child = pexpect.spawn(sys.executable, ["-m", "arena.cli.main", "pairings", "rr", "--db",
                                           played["db"]], env=env, dimensions=(24, 40),
                          encoding="utf-8", timeout=60)
    shown = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\r", "", child.read())
    child.close()
    assert child.exitstatus == 0, shown
    lines = shown.splitlines()
    assert max(map(len, lines)) <= 40, shown
    assert lines[1].split() == ["board", "seat", "bot", "points"], shown
    assert "Not shown, to fit the terminal: games, score before;" in " ".join(shown.split())


def test_check_with_no_trial_prints_the_plan_and_starts_no_bot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--no-trial`` is explicit: ``--check`` ran the trial all the same."""
    import arena.tournament.preflight as preflight

    def no_start(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a bot was started")

    monkeypatch.setattr(preflight, "trial_starts", no_start)
    spec = tmp_path / "rr.yaml"
    spec.write_text(yaml.safe_dump({**SPEC, "results": str(tmp_path / "arena.db")}))
    result = runner.invoke(app, ["run", str(spec), "--check", "--no-trial"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-2:] == [
        "Trial start of every entry: skipped (--no-trial)",
        "Entries not started (--no-trial): ready to run."]


@needs_sandbox
def test_a_drawn_seeds_hint_names_every_option_that_decides_the_games(tmp_path: Path) -> None:
    """The hint under a drawn seed is all a replay of the same bots needs: its command
    plays the same games, the deal book's included."""
    book = tmp_path / "book.txt"
    book.write_text("11\n22\n")

    def played(records: Path, *flags: str) -> tuple[str, list[dict[str, Any]]]:
        result = runner.invoke(app, ["match", "random", "greedy", *flags,
                                     "--records", str(records)])
        assert result.exit_code == 0, result.output
        games = [json.loads(line) for line in records.read_text().splitlines()]
        return result.stdout.splitlines()[1], [
            {key: value for key, value in game.items() if key != "referee"} for game in games]

    line, first = played(tmp_path / "first.jsonl", "--games", "2", "--duplicate",
                         "rotations", "--deals", str(book))
    hint = re.fullmatch(r"Seed (\d+) \(drawn for this match; (.*) plays the same games\)", line)
    assert hint is not None, line
    seed, day = hint.group(1), first[0]["config"]["event_date"]
    assert hint.group(2) == (f"--seed {seed} --event-date {day} --games 2 --duplicate "
                             f"rotations --deals {shlex.quote(str(book))}")
    assert played(tmp_path / "again.jsonl", *shlex.split(hint.group(2)))[1] == first


def test_the_run_help_says_a_swiss_takes_changes_under_way() -> None:
    """The help said only that a changed spec is refused, where a Swiss under way takes
    added rounds, withdrawals and late entrants: an organiser reading it would start a new
    edition for a withdrawal."""
    result = runner.invoke(app, ["run", "--help"], terminal_width=400)
    assert "A Swiss takes added rounds, withdrawn: and joined: bots from a round not yet " \
        "paired, and goes on (docs/TOURNAMENTS.md, Changing a Swiss under way)." in \
        " ".join(result.stdout.replace("│", " ").split())
