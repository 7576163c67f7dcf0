"""A Swiss under way changed by its organiser: a bot withdrawn, a late entrant, rounds added.
The rounds paired stay as played, the later ones are paired from the standings, and the
result is the tournament the changed spec plays from the start, game for game."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tournament_fixtures import FIXTURES, REPO, runner, signature, write_spec

from arena.cli.main import app
from arena.errors import SpecError
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec

SAMPLES = REPO / "bots"
#: Five entrants at tables of 2: a bye every round, so a withdrawal or a late entrant
#: changes who gets it.
FIELD = ["greedy", "collector", "heuristic", "random", {"bot": "greedy", "name": "twin"}]


def _spec(tmp_path: Path, name: str = "class", **fields: Any) -> Path:
    data: dict[str, Any] = {"name": name, "bots": FIELD, "rounds": 2, "games_per_match": 1}
    data.update(fields)
    return write_spec(tmp_path / f"{name}.yaml", tmp_path / "arena.db", **data)


def _played(tmp_path: Path, spec: Path) -> None:
    run_tournament(load_spec(spec), 1, trial=False)


def _refused(spec: Path) -> str:
    """What ``arena run SPEC`` says on standard error as it refuses the spec (exit 1)."""
    result = runner.invoke(app, ["run", str(spec), "--no-progress", "--no-trial"])
    assert result.exit_code == 1, result.output
    return result.stderr


def _same_games(db: Path, a: str, b: str) -> bool:
    """The two tournaments played the same tables, byes and games (ids less their names)."""
    def strip(sig: dict[str, Any], name: str) -> dict[str, Any]:
        return {**sig, "games": [(g[0].removeprefix(name), *g[1:]) for g in sig["games"]]}
    return strip(signature(db, a), a) == strip(signature(db, b), b)


def _round_bots(db: Path, name: str, round_no: int) -> set[str]:
    """The bots seated or given a bye in round ``round_no``."""
    conn = sqlite3.connect(str(db))
    try:
        names = dict(conn.execute("SELECT id, name FROM bots").fetchall())
        tid = conn.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()[0]
        seated = {names[b] for (seats,) in conn.execute(
            "SELECT seats_json FROM tables WHERE tournament_id = ? AND round = ?",
            (tid, round_no)) for b in json.loads(seats)}
        byes = {names[b] for (b,) in conn.execute(
            "SELECT bot_id FROM byes WHERE tournament_id = ? AND round = ?", (tid, round_no))}
    finally:
        conn.close()
    return seated | byes


def test_a_withdrawn_bot_keeps_its_games_and_is_not_paired_after(tmp_path: Path) -> None:
    _played(tmp_path, _spec(tmp_path))
    before = signature(tmp_path / "arena.db", "class")["games"]
    _played(tmp_path, _spec(tmp_path, rounds=3, withdrawn={"collector": 3}))
    db = tmp_path / "arena.db"
    assert signature(db, "class")["games"][:len(before)] == before
    assert "collector" in _round_bots(db, "class", 2)
    assert _round_bots(db, "class", 3) == {"greedy", "heuristic", "random", "twin"}
    _played(tmp_path, _spec(tmp_path, "straight", rounds=3, withdrawn={"collector": 3}))
    assert _same_games(db, "class", "straight")
    status = runner.invoke(app, ["status", "class", "--db", str(db)])
    assert status.exit_code == 0, status.output
    assert ("Withdrawn: collector from round 3 (its games count; not paired from that round "
            "on)\n") in status.output
    data = json.loads(runner.invoke(app, ["status", "class", "--db", str(db), "-f",
                                          "json"]).output)
    fields = {row["bot"].split("@")[0]: row["field"] for row in data["standings"]}
    assert fields["collector"] == "withdrawn from round 3"
    assert fields["greedy"] == ""
    board = runner.invoke(app, ["leaderboard", "class", "--db", str(db)])
    assert "Withdrawn: collector from round 3" in board.output
    rows = json.loads(runner.invoke(app, ["leaderboard", "class", "--db", str(db), "-f",
                                          "json"]).output)["bots"]
    assert {row["bot"]: row["note"] for row in rows}["collector"] == "withdrawn from round 3"
    assert "field_status" not in rows[0]  # the json's keys are the ones documented


def test_a_late_entrant_is_paired_from_its_round_and_scores_nothing_before(
        tmp_path: Path) -> None:
    _played(tmp_path, _spec(tmp_path))
    late = [*FIELD, {"bot": "random", "name": "late"}]
    _played(tmp_path, _spec(tmp_path, bots=late, rounds=3, joined={"late": 3}))
    db = tmp_path / "arena.db"
    assert "late" not in _round_bots(db, "class", 2)
    assert "late" in _round_bots(db, "class", 3)
    pairings = runner.invoke(app, ["pairings", "class", "--round", "3", "--db", str(db)])
    assert "late (0)" in pairings.output  # nothing for rounds 1 and 2


def test_a_late_entrant_plays_as_in_a_run_that_had_it_from_the_start(tmp_path: Path) -> None:
    _played(tmp_path, _spec(tmp_path, bots=FIELD[:4]))
    _played(tmp_path, _spec(tmp_path, rounds=3, joined={"twin": 3}))
    db = tmp_path / "arena.db"
    assert _round_bots(db, "class", 2) == {"greedy", "collector", "heuristic", "random"}
    assert "twin" in _round_bots(db, "class", 3)
    _played(tmp_path, _spec(tmp_path, "straight", rounds=3, joined={"twin": 3}))
    assert _same_games(db, "class", "straight")
    status = runner.invoke(app, ["status", "class", "--db", str(db)])
    assert "Joined late: twin in round 3 (no points for the rounds before)\n" in status.output
    # twin, 0 and the last ranked, took the bye; a bot of its score group takes it now
    pairings = runner.invoke(app, ["pairings", "class", "--round", "3", "--db", str(db)])
    bye = re.search(r"^bye: (\S+) \(0\), \+1$", pairings.output, re.M)
    assert bye is not None and bye[1] != "twin", pairings.output


def test_added_rounds_play_as_an_uninterrupted_run(tmp_path: Path) -> None:
    _played(tmp_path, _spec(tmp_path))
    check = runner.invoke(app, ["run", str(_spec(tmp_path, rounds=4)), "--check",
                                "--no-trial"])
    assert check.exit_code == 0, check.output
    assert ("holds 'class': 4/4 games, finished; this spec changes it: rounds 2 -> 4 "
            "(rounds 1-2 stay as played); a run goes on\n") in check.output
    result = runner.invoke(app, ["run", str(_spec(tmp_path, rounds=4)), "--no-progress",
                                 "--no-trial", "--workers", "1"])
    assert result.exit_code == 0, result.output
    _played(tmp_path, _spec(tmp_path, "straight", rounds=4))
    assert _same_games(tmp_path / "arena.db", "class", "straight")


def test_a_change_to_a_paired_round_is_refused_in_one_line(tmp_path: Path) -> None:
    _played(tmp_path, _spec(tmp_path))
    spec = _spec(tmp_path, rounds=3, withdrawn={"collector": 2})
    assert _refused(spec) == (
        "Error: tournament 'class' has paired rounds 1-2, which stay as played, and this "
        "spec changes round 2's field (collector would not be in it): withdraw a bot, or "
        "enter a late one with 'joined', from round 3 on\n")
    check = runner.invoke(app, ["run", str(spec), "--check", "--no-trial"])
    assert check.exit_code == 1
    assert "and arena run refuses this spec: tournament 'class' has paired" in check.output
    assert _refused(_spec(tmp_path, rounds=1)) == (
        "Error: tournament 'class' has paired 2 rounds, which stay as played: 'rounds' may be "
        "lowered to 2, not 1\n")


def test_a_new_entrant_without_its_round_is_refused(tmp_path: Path) -> None:
    _played(tmp_path, _spec(tmp_path, bots=FIELD[:4]))
    assert _refused(_spec(tmp_path, rounds=3)) == (
        "Error: tournament 'class' has paired rounds 1-2, which stay as played, and this "
        "spec changes round 1's field (twin would be in it): withdraw a bot, or enter a "
        "late one with 'joined', from round 3 on\n")


@pytest.mark.parametrize(("fields", "line"), [
    ({"withdrawn": {"colector": 2}},
     "withdrawn.colector: not an entrant (entrants: greedy, collector, heuristic, random, twin)"),
    ({"withdrawn": {"collector": 1}},
     "withdrawn.collector: must be a round from 2 to 2 (the first round it is not paired "
     "in), got 1"),
    ({"joined": {"twin": 3}},
     "joined.twin: must be a round from 2 to 2 (the first round it is paired in), got 3"),
    ({"rounds": 3, "joined": {"twin": 3}, "withdrawn": {"twin": 2}},
     "withdrawn.twin: from round 2, but it joins in round 3: it would never play"),
    ({"rounds": 3, "bots": FIELD[:3], "withdrawn": {"greedy": 2, "collector": 3}},
     "withdrawn: round 3 would pair 1 bot(s), too few to fill a table of 2"),
    ({"format": "round_robin", "withdrawn": {"collector": 2}},
     "withdrawn: only used by format swiss, not round_robin"),
])
def test_a_malformed_change_is_one_error_line(tmp_path: Path, fields: dict[str, Any],
                                               line: str) -> None:
    spec = _spec(tmp_path, **fields)
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    assert str(info.value) == f"{spec} is not a valid tournament spec:\n  {line}"
    result = runner.invoke(app, ["run", str(spec), "--no-progress"])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {spec} is not a valid tournament spec:\n  {line}\n"


def test_rounds_added_to_a_finished_swiss_warn_of_its_shown_seed(tmp_path: Path) -> None:
    """A drawn seed is shown once the tournament finishes, and it deals the new rounds."""
    _played(tmp_path, _spec(tmp_path, seed=None))
    result = runner.invoke(app, ["run", str(_spec(tmp_path, seed=None, rounds=3)),
                                 "--no-progress", "--no-trial", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert ("warning: tournament 'class' was finished, so arena status and arena results show "
            "its seed, which deals the rounds added too: an author who read it could know "
            "their deals (a new edition draws a new seed: --new-edition)") in " ".join(
                result.stderr.split())


def test_rounds_raised_on_the_command_line_are_asked_for_again(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    _played(tmp_path, spec)
    raised = runner.invoke(app, ["run", str(spec), "--rounds", "3", "--no-progress",
                                 "--no-trial", "--workers", "1"])
    assert raised.exit_code == 0, raised.output
    assert _refused(spec) == (
        "Error: tournament 'class' has paired 3 rounds, which stay as played: 'rounds' may be "
        "lowered to 3, not 2; it was run with --rounds 3: give it again, or write rounds: 3 "
        "in the spec\n")


def test_a_late_entrants_name_is_held_to_the_rule_of_new_tournaments(tmp_path: Path) -> None:
    _played(tmp_path, _spec(tmp_path))
    late = [*FIELD, {"bot": "random", "name": "registry"}]
    spec = _spec(tmp_path, bots=late, rounds=3, joined={"registry": 3})
    assert _refused(spec) == (
        "Error: bots[5]: bot name 'registry' is reserved (the bots directory's registry.yaml); "
        "enter it under another name: {bot: REF, name: NAME}\n")


def test_a_changed_field_resumed_before_its_round_was_paired_pairs_it_alike(
        tmp_path: Path) -> None:
    """Interrupted after the change was taken and before its round was paired: the resumed
    run pairs that round as the uninterrupted one did."""
    _played(tmp_path, _spec(tmp_path, bots=FIELD[:4]))
    changed = _spec(tmp_path, rounds=4, withdrawn={"collector": 3}, joined={"twin": 4})
    db = tmp_path / "arena.db"
    _played(tmp_path, changed)
    whole = signature(db, "class")
    conn = sqlite3.connect(str(db))
    with conn:
        conn.execute("DELETE FROM records WHERE game_id IN (SELECT id FROM games WHERE "
                     "round >= 3)")
        for table in ("games", "tables", "byes"):
            conn.execute(f"DELETE FROM {table} WHERE round >= 3")  # noqa: S608 (names above)
        conn.execute("UPDATE tournaments SET state = 'interrupted', finished_at = NULL")
    conn.close()
    _played(tmp_path, changed)
    assert signature(db, "class") == whole


def test_check_names_the_changes_of_the_field_in_the_plan(tmp_path: Path) -> None:
    spec = _spec(tmp_path, rounds=3, withdrawn={"collector": 3}, joined={"twin": 2})
    check = runner.invoke(app, ["run", str(spec), "--check", "--no-trial"])
    assert check.exit_code == 0, check.output
    # 4 bots in round 1 (twin joins in 2), 5 in round 2, 4 in round 3: 2 games a round
    assert check.output.splitlines()[0] == (
        f"Spec from {spec}: swiss 'class', 5 entries, tables of 2, 3 rounds, 6 games planned; "
        "seed given; collector withdrawn from round 3; twin joins in round 2")


def test_a_late_entry_written_after_games_were_shown_is_warned_of_a_known_seed(
        tmp_path: Path) -> None:
    """Its author may have seen the games, and the spec's seed, shown by arena status, deals
    every round it plays."""
    _played(tmp_path, _spec(tmp_path))
    late = [*FIELD, {"bot": str(FIXTURES / "first.py"), "name": "dana"}]
    spec = _spec(tmp_path, bots=late, rounds=3, joined={"dana": 3})
    result = runner.invoke(app, ["run", str(spec), "--no-progress", "--no-trial",
                                 "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert ("warning: the spec's 'joined' enters dana, submitted after 'class' began: "
            "its seed, written in the spec and shown by arena status, decides every deal they "
            "will play") in " ".join(result.stderr.split())
