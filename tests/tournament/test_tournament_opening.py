"""A stored tournament and a changed spec: refused, with what changed said in words; --fresh
starts anew."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from tournament_fixtures import (  # noqa: F401 - _repo_cwd: an autouse fixture
    BOTS,
    _repo_cwd,
    earlier_tournament,
    runner,
    write_spec,
)

from arena.cli.main import app
from arena.cli.run_report import TerminalReport
from arena.errors import SpecError, StoreError
from arena.registry import SAMPLE_BOTS_DIR, resolve
from arena.tournament.runner import run_tournament
from arena.tournament.spec import TournamentSpec
from arena.tournament.spec_loading import load_spec


def test_changed_spec_is_refused_and_fresh_starts_anew(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    small = {"name": "tiny", "format": "round_robin", "bots": BOTS[:2], "rounds": 1,
             "games_per_match": 1}
    spec = write_spec(tmp_path / "spec.yaml", db, **small)
    said = io.StringIO()
    first = run_tournament(load_spec(spec), 1,
                           report=TerminalReport(Console(file=said, width=300), progress=False))
    assert first.games_recorded == 1
    told = [line for line in said.getvalue().splitlines()
            if not line.startswith("warning: ")]  # the sandbox's missing layers, if any
    assert told[0] == f"New results database: {db}"
    said = io.StringIO()
    again = run_tournament(load_spec(spec), 1,
                           report=TerminalReport(Console(file=said, width=300), progress=False))
    assert again.games_recorded == 0 and again.games_before == 1
    assert "New results database" not in said.getvalue()
    changed = write_spec(tmp_path / "changed.yaml", db, **{**small, "seed": 12})
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(changed), 1)
    old_hash = load_spec(spec).spec_hash()
    new_hash = load_spec(changed).spec_hash()
    assert str(info.value) == (
        f"tournament 'tiny' exists with a different spec (hash {old_hash}, this spec "
        f"{new_hash}: seed changed); --new-edition starts tiny-2 and keeps this one for "
        "comparison, --fresh starts anew, or rename it; it is finished: arena leaderboard "
        f"tiny --db {db} shows its results")
    result = runner.invoke(app, ["run", str(changed), "--no-progress"])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {info.value}\n"
    shown = io.StringIO()
    fresh = run_tournament(load_spec(changed), 1, fresh=True,
                           report=TerminalReport(Console(file=shown, width=200), progress=False))
    assert fresh.games_recorded == 1 and fresh.games_before == 0
    told = [line for line in shown.getvalue().splitlines() if not line.startswith("warning: ")]
    assert told[0] == "--fresh: dropping the stored tournament 'tiny' (1 game recorded)"
    conn = sqlite3.connect(str(db))
    assert conn.execute("SELECT seed FROM tournaments WHERE name = 'tiny'").fetchone()[0] == 12
    assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
    conn.close()


@pytest.mark.parametrize("bots, change", [
    (["collector", "greedy", "random"],
     "the same bots in another order: the order sets the seats and the schedule"),
    (["greedy", {"bot": "collector", "options": {"depth": 3}}, "random"],
     "collector options {} -> {depth: 3}"),
    (["greedy", "collector", "heuristic"], "random@{random} left; heuristic@{heuristic} joined"),
    (["random", "greedy", {"bot": "collector", "options": {"depth": 3}}],
     "collector options {} -> {depth: 3}; the others in another order"),
    (["greedy", "collector"], "random@{random} left"),
    (["heuristic", "collector", "greedy"],
     "random@{random} left; heuristic@{heuristic} joined; the others in another order"),
])
def test_a_changed_entry_list_is_told_in_words(tmp_path: Path, bots: list[Any],
                                               change: str) -> None:
    from arena.tournament.opening import open_tournament
    from arena.tournament.store import Store

    db = tmp_path / "arena.db"
    base = {"name": "tiny", "format": "round_robin", "rounds": 1, "games_per_match": 1}
    with Store(db) as store:
        open_tournament(store, load_spec(write_spec(
            tmp_path / "a.yaml", db, bots=["greedy", "collector", "random"], **base)), False)
        with pytest.raises(StoreError) as info:
            open_tournament(store, load_spec(write_spec(tmp_path / "b.yaml", db, bots=bots,
                                                         **base)), False)
    for name in ("random", "heuristic"):
        change = change.replace(f"{{{name}}}", resolve(name).version)
    assert f"entrants changed ({change})); " in str(info.value)
    # another version or other options of the same bot in its place: --continue is offered
    offered = "options" in change and "left" not in change and "order" not in change
    assert ("; --continue goes on with the new version" in str(info.value)) == offered
    assert "--new-edition starts tiny-2 and keeps this one for comparison" in str(info.value)


def test_a_tournament_from_before_tau_defaulted_to_0_names_the_value_to_resume_with(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    small = {"name": "tiny", "format": "round_robin", "bots": BOTS[:2], "rounds": 1,
             "games_per_match": 1}
    old_tau = 25 / 3 / 100  # trueskill's own default, the arena's before
    old = write_spec(tmp_path / "old.yaml", db, **small, rating={"tau": old_tau})
    run_tournament(load_spec(old), 1)
    today = write_spec(tmp_path / "spec.yaml", db, **small)
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(today), 1)
    assert (f"rating changed (tau 0.08333 -> 0); tau now defaults to 0 (bots do not drift): "
            f"set rating.tau: {old_tau!r} in the spec to resume with the old value); "
            "--new-edition starts tiny-2") in str(info.value)
    again = write_spec(tmp_path / "again.yaml", db, **small, rating={"tau": old_tau})
    assert run_tournament(load_spec(again), 1).games_before == 1
    other = write_spec(tmp_path / "other.yaml", db, **small, rating={"tau": old_tau, "mu": 30})
    with pytest.raises(StoreError, match=r"rating changed \(beta 4.167 -> 5, mu 25 -> 30, "
                                         r"sigma 8.333 -> 10\)\); --new-edition"):
        run_tournament(load_spec(other), 1)


def test_a_name_passing_for_one_of_the_databases_earlier_bots_is_refused(
        tmp_path: Path) -> None:
    """'alice' entered by path played an earlier tournament; '\u0251lice' (a Latin alpha),
    neither registered nor at the table with it, was let into the next: arena leaderboard
    --all showed two alices."""

    from arena.tournament.opening import open_tournament
    from arena.tournament.store import Store

    db = tmp_path / "arena.db"
    earlier_tournament(db, ["alice"])
    spec = _second_entering(tmp_path, db, "\u0251lice")
    with Store(db) as store, pytest.raises(SpecError) as info:
        open_tournament(store, spec, False)
    assert str(info.value) == (
        "the name \u0251lice ('\\u0251lice') passes for alice: U+0251 LATIN SMALL LETTER ALPHA "
        "(drawn like 'a'), a bot of an earlier tournament of "
        f"{db}: a reader of the results would take one for the other; enter it under another "
        "name: {bot: REF, name: NAME}")
    with Store(db) as store:
        assert store.tournament("second") is None


def test_a_name_an_earlier_bot_of_the_database_passes_for_is_refused(tmp_path: Path) -> None:
    """The other order: '\u0251lice' played first, like no name then; 'alice' entered next
    made the two rows of arena leaderboard --all read as one bot."""

    from arena.tournament.opening import open_tournament
    from arena.tournament.store import Store

    db = tmp_path / "arena.db"
    earlier_tournament(db, ["\u0251lice", "gr\u0435edy"])
    spec = _second_entering(tmp_path, db, "alice")
    with Store(db) as store, pytest.raises(SpecError) as info:
        open_tournament(store, spec, False)
    assert str(info.value) == (
        "the name alice is taken, to the eye, by \u0251lice ('\\u0251lice'), a bot of an "
        f"earlier tournament of {db}, which passes for alice: U+0251 LATIN SMALL LETTER ALPHA "
        "(drawn like 'a'): a reader of the results would take one for the other; enter it "
        "under another name: {bot: REF, name: NAME}")
    fine = load_spec(write_spec(tmp_path / "fine.yaml", db, name="third",
                                format="round_robin", bots=["greedy", "random"], rounds=1,
                                games_per_match=1))
    with Store(db) as store:  # an older mixed name ('gr\u0435edy') does not bar greedy
        assert open_tournament(store, fine, False).name == "third"


def test_a_name_looking_like_an_earlier_bots_in_ascii_is_told_not_refused(
        tmp_path: Path) -> None:
    """'bot1' beside an earlier 'botl', 'random' beside an earlier 'Random': refused at one
    table, but across tournaments let in unsaid, and arena leaderboard --all showed rows a
    reader takes for one bot. Said in one line naming both; not refused, as a database may
    hold both already."""

    from arena.tournament.events import RunWarning

    db = tmp_path / "arena.db"
    earlier_tournament(db, ["botl", "Random"])
    bot = tmp_path / "bot1.py"
    bot.write_text((SAMPLE_BOTS_DIR / "greedy.py").read_text().replace(
        'name = "greedy"', 'name = "bot1"'))
    spec = load_spec(write_spec(tmp_path / "spec.yaml", db, name="second",
                                format="round_robin", bots=[str(bot), "random"], rounds=1,
                                games_per_match=1))
    said: list[str] = []
    summary = run_tournament(spec, 1, report=lambda event: said.append(event.text)
                             if isinstance(event, RunWarning) else None)
    assert summary.games_recorded == 1
    assert [line for line in said if "earlier" in line] == [
        f"the name {name} looks like {twin}, a bot of an earlier tournament of {db} (the same "
        "letters to the eye, or but for case): arena leaderboard --all shows both, which a "
        "reader may take for one bot" for name, twin in (("bot1", "botl"), ("random", "Random"))]


def test_a_deleted_tournaments_bots_no_longer_bar_look_alike_names(tmp_path: Path) -> None:
    """arena delete left the bots of the tournament it removed in the database, and they went
    on barring names that pass for theirs: '\u0251lice' was refused for an 'alice' no stored
    tournament held. One still holding her bars it as before."""
    from arena.tournament.opening import open_tournament
    from arena.tournament.store import Store

    db = tmp_path / "arena.db"
    earlier_tournament(db, ["alice"])
    with Store(db) as store:
        store.delete_tournament(store.require("first").id)
        assert open_tournament(store, _second_entering(tmp_path, db, "\u0251lice"),
                               False).name == "second"
    other = tmp_path / "other.db"
    earlier_tournament(other, ["alice"], name="kept")
    earlier_tournament(other, ["alice", "bob"])
    with Store(other) as store:
        store.delete_tournament(store.require("first").id)
        with pytest.raises(SpecError, match="passes for alice"):
            open_tournament(store, _second_entering(tmp_path, other, "\u0251lice"), False)


def test_fresh_may_rename_its_own_entrant_to_a_look_alike(tmp_path: Path) -> None:
    """--fresh drops the stored tournament for the new one: its bots are no earlier
    tournament's, and 'second' started again with '\u0251lice' for its own 'alice' was
    refused for her. Another tournament's 'alice' still bars the name."""
    from arena.tournament.opening import earlier_twins, open_tournament
    from arena.tournament.store import Store

    db = tmp_path / "arena.db"
    earlier_tournament(db, ["alice"], name="second")
    spec = _second_entering(tmp_path, db, "\u0251lice")
    with Store(db) as store:
        assert earlier_twins(store, spec, store.require("second").id) == []
        assert open_tournament(store, spec, True).name == "second"
    earlier_tournament(db, ["alice"], name="kept")
    with Store(db) as store:
        with pytest.raises(SpecError, match="passes for alice"):
            open_tournament(store, spec, True)


def test_fresh_keeps_the_stored_tournament_when_its_new_start_is_refused(
        tmp_path: Path) -> None:
    """--fresh dropped the stored tournament, then refused the new one for an entrant whose
    name passes for an earlier tournament's bot: neither was left."""
    from arena.tournament.opening import open_tournament
    from arena.tournament.store import Store

    db = tmp_path / "arena.db"
    earlier_tournament(db, ["alice"])
    small = {"name": "second", "format": "round_robin", "rounds": 1, "games_per_match": 1}
    with Store(db) as store:
        open_tournament(store, load_spec(write_spec(tmp_path / "a.yaml", db,
                                                    bots=["greedy", "random"], **small)), False)
    again = _second_entering(tmp_path, db, "\u0251lice")
    with Store(db) as store, pytest.raises(SpecError, match="passes for alice"):
        open_tournament(store, again, True)
    with Store(db) as store:
        assert store.tournament("second") is not None


def test_a_name_passing_for_an_earlier_bot_is_refused_before_any_bot_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusal came after the trial start of every entry, and after the database was
    opened to write: it comes first, the database read only and left as it was."""
    from arena.tournament import runner as runner_module

    db = tmp_path / "arena.db"
    earlier_tournament(db, ["alice"])
    spec = _second_entering(tmp_path, db, "\u0251lice")
    started: list[object] = []
    monkeypatch.setattr(runner_module, "run_trial", lambda *args, **kwargs: started.append(
        args) or [])
    before = db.read_bytes()
    with pytest.raises(SpecError, match="passes for alice"):
        run_tournament(spec, 1)
    assert started == [] and db.read_bytes() == before


def test_run_check_lists_a_name_passing_for_an_earlier_bot(tmp_path: Path) -> None:
    """arena run --check said "ready to run" of a spec arena run then refused: an entrant
    passing for an earlier tournament's bot."""
    from arena.tournament.preflight import check_lines

    db = tmp_path / "arena.db"
    earlier_tournament(db, ["alice"])
    spec = _second_entering(tmp_path, db, "\u0251lice")
    lines, ready = check_lines(spec, db, [])
    assert not ready
    assert [line for line in lines if line.startswith("Refused name: ")] == [
        "Refused name: the name \u0251lice ('\\u0251lice') passes for alice: U+0251 LATIN SMALL "
        "LETTER ALPHA (drawn like 'a'), a bot of an earlier tournament of "
        f"{db}: a reader of the results would take one for the other; enter it under another "
        "name: {bot: REF, name: NAME}"]


def _second_entering(tmp_path: Path, db: Path, name: str) -> TournamentSpec:
    """A one-game tournament 'second' of greedy and a copy of random named ``name``."""
    bot = tmp_path / "named.py"
    bot.write_text((SAMPLE_BOTS_DIR / "random.py").read_text().replace(
        'name = "random"', f'name = "{name}"'))
    return load_spec(write_spec(tmp_path / "second.yaml", db, name="second",
                                format="round_robin", bots=["greedy", str(bot)], rounds=1,
                                games_per_match=1))


def test_a_tournament_stored_before_the_rule_of_names_shows_and_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot entered by path kept any name its files gave it ('Mon bot'); the rule of names
    refuses it now, in a new tournament only: one stored before shows and resumes."""
    from arena.tournament import opening
    from arena.tournament.store import Store

    bot = tmp_path / "mon.py"
    bot.write_text((SAMPLE_BOTS_DIR / "random.py").read_text().replace(
        'name = "random"', 'name = "Mon bot"'))
    db = tmp_path / "arena.db"
    small = {"format": "round_robin", "bots": ["greedy", str(bot)], "rounds": 1,
             "games_per_match": 2}
    spec = write_spec(tmp_path / "old.yaml", db, name="old", **small)
    with monkeypatch.context() as before:  # an arena from before the rule
        before.setattr(opening, "_refuse_bad_names", lambda spec: None)
        with Store(db) as store:
            opening.open_tournament(store, load_spec(spec), False)
    resumed = runner.invoke(app, ["run", str(spec), "--no-trial", "--no-progress"])
    assert resumed.exit_code == 0, resumed.output
    board = runner.invoke(app, ["leaderboard", "old", "--db", str(db), "--format", "csv"])
    assert board.exit_code == 0, board.output
    assert "Mon bot" in board.stdout and "greedy" in board.stdout
    new = write_spec(tmp_path / "new.yaml", db, name="new", **small)
    refused = runner.invoke(app, ["run", str(new), "--no-trial", "--no-progress"])
    assert refused.exit_code == 1
    assert refused.stderr.startswith("Error: bots[1]: bot name 'Mon bot' is not allowed: ")
    # started anew it is a new tournament: refused before the stored one is dropped
    with pytest.raises(SpecError, match="^bots\\[1\\]: bot name 'Mon bot' is not allowed"):
        run_tournament(load_spec(spec), 1, fresh=True)
    with Store(db) as store:
        kept = store.require("old")
        assert store.count_games(kept.id) == 2


def test_a_changed_spec_is_refused_before_the_trial_starts_any_bot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A student's resubmission changed an entrant of a stopped tournament: the rerun is
    refused at once, not after starting every entry (seconds for a class of forty, with
    warnings that read as if its games were to come)."""
    from arena.tournament import runner as runner_module
    from arena.tournament.opening import open_tournament
    from arena.tournament.store import Store

    db = tmp_path / "arena.db"
    base = {"name": "tiny", "format": "round_robin", "rounds": 1, "games_per_match": 1}
    with Store(db) as store:
        open_tournament(store, load_spec(write_spec(
            tmp_path / "a.yaml", db, bots=["greedy", "collector", "random"], **base)), False)
    trials: list[object] = []
    monkeypatch.setattr(runner_module, "run_trial", lambda *args, **kw: trials.append(args) or [])
    changed = load_spec(write_spec(tmp_path / "b.yaml", db,
                                   bots=["greedy", "collector", "heuristic"], **base))
    with pytest.raises(StoreError, match="exists with a different spec"):
        run_tournament(changed, 1)
    assert trials == []
