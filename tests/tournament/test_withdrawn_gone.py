"""A Swiss under way whose withdrawn bot's files are gone (deleted, as a cheat's are): the
bot is taken from what the tournament stored, never started again, and the event goes on,
game for game as a run that had the withdrawal from the start. A bot gone but not
withdrawn is refused as before, and told how to withdraw it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from tournament_fixtures import FIXTURES, runner, signature, write_spec

from arena.cli.main import app
from arena.tournament.events import Progress
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec

#: Five entrants at tables of 2, one of them a file of its own (``cheat.py``, the bot
#: named ``last``) that the organiser deletes.
FIELD = ["greedy", "collector", "heuristic", "random", "cheat.py"]


def _spec(tmp_path: Path, name: str = "class", **fields: Any) -> Path:
    data: dict[str, Any] = {"name": name, "bots": FIELD, "rounds": 2, "games_per_match": 1}
    data.update(fields)
    return write_spec(tmp_path / f"{name}.yaml", tmp_path / "arena.db", **data)


def _played(spec: Path) -> None:
    run_tournament(load_spec(spec), 1, trial=False)


def _stopped_after(spec: Path, games: int) -> None:
    """Run ``spec`` and stop it as Ctrl-C does once ``games`` games are recorded."""
    def stop(event: object) -> None:
        if isinstance(event, Progress) and event.done >= games:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_tournament(load_spec(spec), 1, trial=False, report=stop)


def _cheat(tmp_path: Path) -> Path:
    """The bot the organiser deletes, next to the specs."""
    return Path(shutil.copy(FIXTURES / "last.py", tmp_path / "cheat.py"))


def _run(spec: Path, *extra: str) -> Any:
    return runner.invoke(app, ["run", str(spec), "--no-progress", "--workers", "1", *extra])


def test_a_withdrawn_bot_whose_files_are_gone_is_taken_from_the_store(tmp_path: Path) -> None:
    cheat = _cheat(tmp_path)
    _played(_spec(tmp_path))
    cheat.unlink()
    spec = _spec(tmp_path, rounds=3, withdrawn={"last": 3})
    check = runner.invoke(app, ["run", str(spec), "--check", "--workers", "1"])
    assert check.exit_code == 0, check.output
    assert ("  --    last@abd2709cee4c: not started: withdrawn from round 3, its files gone (its "
            "games stay stored)\n") in check.output
    assert "The 4 active entries start (1 other above not started): ready to run." in check.output
    result = _run(spec)  # with the trial start: the bot is not started
    assert result.exit_code == 0, result.output
    assert "class: 6/6 games recorded (2 this run" in result.output
    db = tmp_path / "arena.db"
    assert "last@abd2709cee4c" not in {key for game in signature(db, "class")["games"][4:]
                                       for key in game[1]}
    # the same games as a run that had the withdrawal from the start
    there = tmp_path / "kept"
    there.mkdir()
    _cheat(there)
    straight = _spec(tmp_path, "straight", rounds=3, withdrawn={"last": 3},
                     bots=[*FIELD[:4], str(there / "cheat.py")])
    _played(straight)
    strip = {name: [(g[0].removeprefix(name), *g[1:]) for g in signature(db, name)["games"]]
             for name in ("class", "straight")}
    assert strip["class"] == strip["straight"]
    for command in (["status", "class"], ["leaderboard", "class"]):
        shown = runner.invoke(app, [*command, "--db", str(db)])
        assert shown.exit_code == 0, shown.output
        assert ("Withdrawn: last from round 3 (its games count; not paired from that round "
                "on)") in shown.output
    site = runner.invoke(app, ["report", "class", "--db", str(db), "-o", str(tmp_path / "site")])
    assert site.exit_code == 0, site.output
    assert "last" in (tmp_path / "site" / "index.html").read_text()
    again = _run(spec)  # resumed once more: nothing to play, nothing refused
    assert again.exit_code == 0, again.output
    exported = runner.invoke(app, ["export", "class", "--db", str(db), "-o",
                                   str(tmp_path / "class.jsonl")])
    assert exported.exit_code == 0, exported.output
    game_id, seats = next((g[0], g[1]) for g in signature(db, "class")["games"]
                          if "last@abd2709cee4c" in g[1])
    shown = runner.invoke(app, ["game", game_id, "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    rerun = runner.invoke(app, ["game", game_id, "--db", str(db), "--seat",
                                str(seats.index("last@abd2709cee4c")), "--rerun", str(cheat)])
    assert (rerun.exit_code, rerun.stderr) == (1, f"Error: bot module {cheat} not found\n")


def test_a_gone_bot_stands_in_only_for_the_entry_it_was_written_as(tmp_path: Path) -> None:
    """A spec naming another file where the gone bot stood (a typo, a bot never entered) is
    not taken for the stored bot: the stored entrant was written otherwise."""
    cheat = _cheat(tmp_path)
    _played(_spec(tmp_path))
    cheat.unlink()
    spec = _spec(tmp_path, rounds=3, withdrawn={"last": 3}, bots=[*FIELD[:4], "cheats.py"])
    result = _run(spec)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {spec} is not a valid tournament spec:\n"
                                    "  bots[4]: no bot at cheats.py"), result.stderr


def test_a_gone_bot_not_withdrawn_is_told_how_to_withdraw_it(tmp_path: Path) -> None:
    cheat = _cheat(tmp_path)
    spec = _spec(tmp_path, rounds=3)
    _stopped_after(spec, 4)  # rounds 1-2 played, round 3 not paired
    cheat.unlink()
    result = _run(spec)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {spec} is not a valid tournament spec:\n"
        "  bots[4]: no bot at cheat.py\n"
        f"tournament 'class' of {tmp_path / 'arena.db'} (4 games, interrupted) goes on "
        "without last once the spec withdraws it ('withdrawn: {last: 3}'): its games stay; "
        f"arena status class --db {tmp_path / 'arena.db'} shows it\n")
    withdrawn = _spec(tmp_path, rounds=3, withdrawn={"last": 3})
    assert _run(withdrawn).exit_code == 0


def test_a_gone_bot_that_would_still_play_is_refused_in_one_line(tmp_path: Path) -> None:
    cheat = _cheat(tmp_path)
    _played(_spec(tmp_path))
    cheat.unlink()
    later = _spec(tmp_path, rounds=4, withdrawn={"last": 4})
    result = _run(later)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: last's files are gone ({cheat}), and it is withdrawn from round 4, so round 3 "
        "would pair it: withdraw it from round 3 ('withdrawn: {last: 3}')\n")
    db = tmp_path / "arena.db"
    added = _run(_spec(tmp_path, rounds=3))  # rounds added to the finished Swiss
    assert added.stderr.endswith(
        f"tournament 'class' of {db} (4 games, finished) goes on without last once the spec "
        f"withdraws it ('withdrawn: {{last: 3}}'): its games stay; arena status class --db {db} "
        "shows it\n")
    same = _run(_spec(tmp_path))  # nothing to go on with: its results are shown
    assert same.stderr.endswith(f"tournament 'class' of {db} is finished, its games kept: "
                                f"arena leaderboard class --db {db} shows its results\n")
    anew = _run(_spec(tmp_path, rounds=3, withdrawn={"last": 3}), "--fresh", "--yes")
    assert anew.exit_code == 1
    assert "  bots[4]: no bot at cheat.py\n" in anew.stderr  # a new start would play it


def test_a_gone_bot_with_a_table_left_before_its_withdrawal_is_refused(tmp_path: Path) -> None:
    cheat = _cheat(tmp_path)
    spec = _spec(tmp_path, rounds=3)
    _stopped_after(spec, 3)  # round 2 paired, last's table of it not played
    cheat.unlink()
    result = _run(_spec(tmp_path, rounds=3, withdrawn={"last": 3}))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: last's files are gone ({cheat}), and its tables of round 2, paired before its "
        "withdrawal from round 3, are not finished: put its files back to finish them\n")


def test_a_bot_unregistered_by_arena_bots_remove_goes_as_a_deleted_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    submitted = runner.invoke(app, ["submit", str(_cheat(tmp_path)), "--name", "mine"])
    assert submitted.exit_code == 0, submitted.output
    bots = [*FIELD[:4], "mine"]
    _played(_spec(tmp_path, bots=bots))
    removed = runner.invoke(app, ["bots", "remove", "mine"])
    assert removed.exit_code == 0, removed.output
    result = _run(_spec(tmp_path, bots=bots, rounds=3, withdrawn={"mine": 3}))
    assert result.exit_code == 0, result.output
    assert "class: 6/6 games recorded (2 this run" in result.output
