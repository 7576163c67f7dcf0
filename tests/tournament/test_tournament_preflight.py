"""The trial start of every entry before a tournament plays, and ``arena run --check``."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml
from tournament_fixtures import (  # noqa: F401 - _repo_cwd: an autouse fixture
    BOTS,
    FIXTURES,
    LIMITS,
    REPO,
    _repo_cwd,
    runner,
    write_spec,
)

from arena.cli.main import app
from arena.registry import resolve
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


def test_check_starts_every_entry_and_plays_nothing(tmp_path: Path) -> None:
    db = tmp_path / "check.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="check",
                      bots=["greedy", str(FIXTURES / "first.py"),
                            str(FIXTURES / "no_start.py")])
    result = runner.invoke(app, ["run", str(spec), "--check"])
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"Spec from {spec}: swiss 'check', 3 entries, tables of 2, "
                               "3 rounds, ")
    assert lines[1].startswith("warning: seed 11 is short")  # fixture bots are no samples
    assert lines[2] == f"Results: {db}, not created yet"
    assert lines[4].startswith("  ok    greedy@") and lines[5].startswith("  ok    first@")
    assert lines[6].startswith("  FAIL  no_start@") and lines[6].endswith(
        ": exited before answering 'hello' (exit code 2); ImportError: No module named 'numpy' "
        "(deliberately) (at no_start.py line 3, in <module>)")
    assert lines[7] == ("1 of 3 entries does not start, so arena run refuses the new "
                        "tournament: fix it or take it out of the spec, or --no-trial plays "
                        "anyway, each of its games a forfeit.")
    assert not db.exists(), "--check plays and stores nothing"
    good = write_spec(tmp_path / "good.yaml", db, name="check", bots=BOTS[:2], seed=2**62)
    result = runner.invoke(app, ["run", str(good), "--check"])
    assert result.exit_code == 0 and result.stdout.splitlines()[-1] == (
        "All 2 entries start: ready to run."), result.output
    run_tournament(load_spec(good), 1, trial=False)
    result = runner.invoke(app, ["run", str(good), "--check"])
    assert result.exit_code == 0 and result.stdout.splitlines()[-1] == (
        "All 2 entries start; the stored tournament is finished: arena run has nothing left "
        "to play (--fresh plays it anew)."), result.output
    changed = write_spec(tmp_path / "good.yaml", db, name="check", bots=BOTS[:2], seed=2**62,
                         games_per_match=1)
    result = runner.invoke(app, ["run", str(changed), "--check"])
    lines = result.stdout.splitlines()
    assert result.exit_code == 1 and lines[1].startswith(
        f"Results: {db}, holds 'check': ") and ", with another spec (hash " in lines[1]
    assert lines[-1] == ("All 2 entries start, but arena run refuses the stored tournament's "
                         "other spec (--new-edition starts another edition beside it, --fresh "
                         "starts anew).")


def test_check_of_a_drawn_seed_says_whether_it_is_drawn_yet(tmp_path: Path) -> None:
    """Once the tournament is stored its seed is drawn and kept: --check no longer says a
    seed will be drawn (which read as if a resume would deal other games)."""
    db = tmp_path / "drawn.db"
    spec = tmp_path / "drawn.yaml"
    spec.write_text(yaml.safe_dump({"name": "drawn", "format": "round_robin", "bots": BOTS[:2],
                                    "games_per_match": 1, "limits": LIMITS,
                                    "results": str(db)}))
    first = runner.invoke(app, ["run", str(spec), "--check"]).stdout.splitlines()[0]
    assert first.endswith("games planned; seed drawn when it starts")
    run_tournament(load_spec(spec), 1, trial=False)
    result = runner.invoke(app, ["run", str(spec), "--check"])
    assert result.stdout.splitlines()[0].endswith(
        "games planned; seed drawn at its start, kept with the results"), result.output


def test_check_names_the_house_rules_the_games_will_follow(tmp_path: Path) -> None:
    from arena.tournament.preflight import check_lines

    db = tmp_path / "rules.db"
    spec = write_spec(tmp_path / "rules.yaml", db, name="rules", bots=BOTS[:2],
                      rules={"kinds": "family", "trap_windows": "turn_and_play"})
    first = check_lines(load_spec(spec), db, [])[0][0]
    assert first.endswith("; seed given; house rules: kinds=family, trap_windows=turn_and_play")
    plain = write_spec(tmp_path / "plain.yaml", db, name="plain", bots=BOTS[:2])
    assert check_lines(load_spec(plain), db, [])[0][0].endswith("; seed given")


def test_check_says_how_a_field_that_does_not_divide_sits(tmp_path: Path) -> None:
    """5 entries at Swiss tables of 3 sit 3 + 2: "tables of 3" alone would promise tables
    of 3 only (11 at tables of 5 sit at none of 5)."""
    from arena.tournament.preflight import check_lines

    db = tmp_path / "split.db"
    odd = write_spec(tmp_path / "odd.yaml", db, name="odd", players_per_game=3)
    assert ", 5 entries, tables of 3 (sitting 3 + 2 each round), 3 rounds, " in check_lines(
        load_spec(odd), db, [])[0][0]
    even = write_spec(tmp_path / "even.yaml", db, name="even", players_per_game=5)
    assert ", 5 entries, tables of 5, 3 rounds, " in check_lines(load_spec(even), db, [])[0][0]


def test_arena_db_names_the_database_a_run_writes(tmp_path: Path) -> None:
    """As it names the one the reading commands read; --db still comes first."""
    spec = write_spec(tmp_path / "spec.yaml", tmp_path / "spec.db", name="env", bots=BOTS[:2],
                      seed=2**62)
    result = runner.invoke(app, ["run", str(spec), "--check"],
                           env={"ARENA_DB": str(tmp_path / "env.db")})
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1] == f"Results: {tmp_path / 'env.db'}, not created yet"
    result = runner.invoke(app, ["run", str(spec), "--check", "--db", str(tmp_path / "x.db")],
                           env={"ARENA_DB": str(tmp_path / "env.db")})
    assert result.stdout.splitlines()[1] == f"Results: {tmp_path / 'x.db'}, not created yet"


def test_an_entry_that_does_not_start_is_named_before_the_games(tmp_path: Path) -> None:
    """A new tournament is refused before anything is stored (--no-trial plays it, the entry
    forfeiting); a resumed one goes on with a warning (its games so far are kept)."""
    from arena.tournament.preflight import run_trial

    db = tmp_path / "warn.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="warn", rounds=1, games_per_match=1,
                      format="round_robin", bots=["greedy", str(FIXTURES / "first.py"),
                                                  str(FIXTURES / "no_start.py")])
    result = runner.invoke(app, ["run", str(spec), "--no-progress"])
    assert result.exit_code == 1 and not db.exists()
    error = result.output.splitlines()[-1]
    assert error.startswith("Error: 1 of 3 entries do not start (a trial run before the "
                            "games): no_start@")
    assert error.endswith("Fix them or take them out of the spec; --no-trial plays anyway, "
                          "each of their games a forfeit")
    summary = run_tournament(load_spec(spec), 1, trial=False)
    assert summary.state == "finished" and summary.games_recorded == 3
    loaded = load_spec(spec)
    [warning] = run_trial(loaded, loaded.entrants, 2, resuming=True)
    assert warning.startswith("no_start@") and warning.endswith(
        "each of its games from here on will be a forfeit")


def test_slow_starters_are_tried_a_few_at_a_time_and_again_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight bots that take most of their start-up time each would all miss it if started
    at once on two cores: the trial starts as many at once as the run's workers, and an
    entry that missed its time is tried again alone before it counts as not starting."""
    from arena.tournament import preflight

    batches: list[int] = []
    tries: dict[str, int] = {}

    def start_together(bots: list[Any], limits: Any, launcher: Any) -> list[str | None]:
        batches.append(len(bots))
        out: list[str | None] = []
        for bot in bots:
            tries[bot.name] = tries.get(bot.name, 0) + 1
            late = len(bots) > 1 and bot.name == "b3"  # slow when crowded, fine alone
            out.append("no 'ready' within 2500 ms" if late else None)
        return out

    monkeypatch.setattr(preflight, "_start_together", start_together)
    greedy = resolve(REPO / "bots" / "greedy.py")
    bots = [dataclasses.replace(greedy, name=f"b{i}", version=f"v{i}") for i in range(8)]
    trials = preflight.trial_starts(bots, {}, parallel=3, launcher=lambda *a: None)
    assert batches == [3, 3, 2, 1] and tries["b3"] == 2
    assert [t.failure for t in trials] == [None] * 8


def test_a_field_where_fewer_than_two_entries_start_is_refused_before_storing(
        tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    broken = tmp_path / "broken.py"
    broken.write_text((FIXTURES / "no_start.py").read_text())
    spec = write_spec(tmp_path / "spec.yaml", db, name="none",
                      bots=[str(FIXTURES / "first.py"), str(FIXTURES / "no_start.py"),
                            str(broken)])
    result = runner.invoke(app, ["run", str(spec), "--no-progress"])
    assert result.exit_code == 1
    assert result.output.splitlines()[-1].startswith(
        "Error: no game can be played: 1 of 3 entries start in a trial run; no_start@")
    assert not db.exists(), "refused before anything is stored"
    check = runner.invoke(app, ["run", str(spec), "--check"])  # says what to do, as the run
    assert check.exit_code == 1 and check.stdout.splitlines()[-1] == (
        "2 of 3 entries do not start: no game can be played (arena run needs two entries that "
        "start): fix them or take them out of the spec.")


def test_check_reads_the_edition_a_run_plays(tmp_path: Path) -> None:
    """A spec of a later edition (cup-2) was checked against the first (cup): --check said
    arena run would refuse a spec that arena run resumes."""
    from arena.tournament.preflight import check_lines

    db = tmp_path / "arena.db"
    small = {"name": "cup", "format": "round_robin", "bots": BOTS[:2], "rounds": 1,
             "games_per_match": 1}
    run_tournament(load_spec(write_spec(tmp_path / "first.yaml", db, **small)), 1)
    second = write_spec(tmp_path / "second.yaml", db, **{**small, "games_per_match": 2})
    assert run_tournament(load_spec(second), 1, new_edition=True).name == "cup-2"
    lines, ready = check_lines(load_spec(second), db, [])
    assert ready
    assert f"Results: {db}, holds 'cup-2': 2/2 games, finished" in lines
    assert lines[-1] == ("All 0 entries start; the stored tournament is finished: arena run "
                         "has nothing left to play (--fresh plays it anew).")


@pytest.mark.parametrize("flag, anew", [
    ("--new-edition", "--new-edition starts 'cup-2' beside it"),
    ("--fresh", "--fresh drops it and starts anew")])
def test_check_judges_a_changed_spec_as_the_run_it_is_given_for(tmp_path: Path, flag: str,
                                                                 anew: str) -> None:
    """An organiser checking 'arena run cup.yaml --new-edition' before playing it was told
    that arena run refuses the stored tournament's other spec, exit 1: --check ignored the
    flag that says what to do with it."""
    db = tmp_path / "arena.db"
    small = {"name": "cup", "format": "round_robin", "bots": BOTS[:2], "rounds": 1,
             "games_per_match": 1}
    run_tournament(load_spec(write_spec(tmp_path / "first.yaml", db, **small)), 1)
    second = write_spec(tmp_path / "second.yaml", db, **{**small, "games_per_match": 2})
    result = runner.invoke(app, ["run", str(second), "--check", "--no-trial", flag])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[-3:] == [
        f"Results: {db}, holds 'cup': 1/1 games, finished, with another spec (hash "
        f"{load_spec(tmp_path / 'first.yaml').spec_hash()}, this spec "
        f"{load_spec(second).spec_hash()}); {anew}",
        "Trial start of every entry: skipped (--no-trial)",
        "Entries not started (--no-trial): ready to run."]
    plain = runner.invoke(app, ["run", str(second), "--check", "--no-trial"])
    assert plain.exit_code == 1
    assert plain.stdout.splitlines()[-1].endswith("arena run refuses the stored tournament's "
                                                  "other spec (--new-edition starts another "
                                                  "edition beside it, --fresh starts anew).")


def test_check_warns_of_more_swiss_rounds_than_new_opponents(tmp_path: Path) -> None:
    """A class of four played a Swiss of five rounds at tables of two: every pair had met by
    round 3, and rounds 4 and 5 were rematches that --check did not foretell."""
    warning = ("warning: 5 Swiss rounds of 4 entrants: a round seats 2 of their 6 pairs "
               "together, so after round 3 the pairing seats bots that have met already "
               "(format: round_robin seats every pair evenly)")
    db = tmp_path / "class.db"
    spec = write_spec(tmp_path / "class.yaml", db, name="class", rounds=5, games_per_match=1,
                      bots=BOTS[:4])
    check = runner.invoke(app, ["run", str(spec), "--check", "--no-trial"])
    assert check.exit_code == 0, check.output
    assert warning in check.stdout.splitlines()
    enough = write_spec(tmp_path / "enough.yaml", db, name="class", rounds=3,
                        games_per_match=1, bots=BOTS[:4])
    assert "Swiss rounds" not in runner.invoke(app, ["run", str(enough), "--check",
                                                     "--no-trial"]).stdout
    # five at tables of four sit at one table of five: every round seats them all, plainly
    crowded = write_spec(tmp_path / "crowded.yaml", db, name="class", rounds=3,
                         games_per_match=1, players_per_game=4, bots=BOTS[:5])
    crowded_check = runner.invoke(app, ["run", str(crowded), "--check", "--no-trial"])
    assert "sitting 5 each round" in crowded_check.stdout
    assert "Swiss rounds" not in crowded_check.stdout


def test_check_warns_of_two_entries_that_are_one_program_under_two_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two students handing in one file: submit tells the second, but a teacher checking the
    class's spec did not hear of it before the games. --check says it as submit does; a
    changed copy is its own program."""
    import shutil

    from tournament_fixtures import PassedCheck

    from arena.registry import submit

    bots_dir = tmp_path / "bots"
    monkeypatch.setenv("ARENA_BOTS_DIR", str(bots_dir))
    for student in ("kim", "lou", "max"):
        shutil.copy(REPO / "bots" / "collector.py", tmp_path / f"{student}.py")
    (tmp_path / "max.py").write_text((tmp_path / "max.py").read_text() + "# mine\n")
    for student in ("kim", "lou", "max"):
        submit(tmp_path / f"{student}.py", student, bots_dir, check=lambda spec: PassedCheck())
    spec = write_spec(tmp_path / "spec.yaml", tmp_path / "twins.db", name="twins",
                      bots=["kim", "max", "lou", "bots/greedy.py"])
    result = runner.invoke(app, ["run", str(spec), "--check", "--no-trial"])
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stdout.splitlines() if "byte for byte" in line]
    assert warned == ["warning: lou's files are the same, byte for byte, as kim's: one program "
                      "entered under two names (a copy handed in twice?)"]


def test_check_of_a_resumed_tournament_says_it_goes_on_past_an_entry_that_does_not_start(
        tmp_path: Path) -> None:
    """A stored tournament resumes with a warning per entry that does not start (the run's
    own rule, docs/TOURNAMENTS.md "Trial start"): --check says so and exits 0, where it used
    to exit 1 as if the run were refused. A spec that changed is refused for that first,
    before any bot starts: its check's verdict says the spec, not the entry."""
    from arena.tournament.opening import open_tournament
    from arena.tournament.store import Store

    db = tmp_path / "resumed.db"
    bots = ["greedy", str(FIXTURES / "first.py"), str(FIXTURES / "no_start.py")]
    spec = write_spec(tmp_path / "spec.yaml", db, name="resumed", rounds=1,
                      games_per_match=1, format="round_robin", bots=bots)
    with Store(db) as store:  # stored, no game played yet: as a run stopped early left it
        open_tournament(store, load_spec(spec), fresh=False)
    result = runner.invoke(app, ["run", str(spec), "--check"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[-2].startswith("  FAIL  no_start@")
    assert lines[-1] == ("1 of 3 entries does not start: arena run resumes the stored "
                         "tournament all the same, with a warning, each of its games from here "
                         "on a forfeit.")
    summary = run_tournament(load_spec(spec), 1)  # as the check said: on, with the warning
    assert summary.state == "finished" and summary.games_recorded == 3
    assert [w for w in summary.warnings if w.startswith("no_start@")]
    changed = write_spec(tmp_path / "spec.yaml", db, name="resumed", rounds=1,
                         games_per_match=2, format="round_robin", bots=bots)
    result = runner.invoke(app, ["run", str(changed), "--check"])
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[-1] == (
        "1 of 3 entries does not start, but arena run refuses the stored tournament's other "
        "spec (--new-edition starts another edition beside it, --fresh starts anew).")


def test_a_plan_of_more_games_than_a_day_plays_is_warned_of(tmp_path: Path) -> None:
    """A round-robin of 1000 rounds of 10000 games a match was checked as '30,000,000 games
    planned' and run without a word of the months it would take."""
    from arena.tournament.events import RunWarning

    warning = ("30,000,000 games planned take more than 1.7 days even at 200 games/s, faster "
               "than the sample bots play on one machine; fewer rounds or a smaller "
               "games_per_match end sooner")
    db = tmp_path / "huge.db"
    huge = write_spec(tmp_path / "huge.yaml", db, name="huge", format="round_robin",
                      bots=BOTS[:3], rounds=1000, games_per_match=10000)
    check = runner.invoke(app, ["run", str(huge), "--check", "--no-trial"])
    assert check.exit_code == 0, check.output
    assert f"warning: {warning}" in check.stdout.splitlines()

    class Warned(Exception):
        pass

    def stop_at_the_warning(event: object) -> None:
        if isinstance(event, RunWarning) and event.text == warning:
            raise Warned  # the run's start says it; its games are not this test's
    with pytest.raises(Warned):
        run_tournament(load_spec(huge), 1, trial=False, report=stop_at_the_warning)

    day = write_spec(tmp_path / "day.yaml", db, name="day", format="round_robin",
                     bots=BOTS[:3], rounds=1000, games_per_match=1000)
    assert "games/s" not in runner.invoke(app, ["run", str(day), "--check",
                                                "--no-trial"]).stdout
