"""A bot updated after its tournament began: the refusal names the ways on; --continue enters
the new version for the deals not begun (the old games stay rated under the old version);
--new-edition starts NAME-2 beside the stored tournament."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tournament_fixtures import REPO, PassedCheck, bots_dir_for, runner, write_spec

from arena.cli.main import app
from arena.errors import StoreError
from arena.registry import resolve, submit
from arena.tournament.editions import stored_bot
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec
from arena.tournament.store import Store, stored_metadata

SAMPLES = REPO / "bots"
FIRST = Path(__file__).resolve().parent / "bots" / "first.py"


def _submit(bots_dir: Path, source: Path, *, update: bool = False) -> str:
    return submit(source, "mine", bots_dir, check=lambda spec: PassedCheck(),
                  update=update).version


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bots_dir_for(tmp_path, monkeypatch)


def _spec(tmp_path: Path, db: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {"name": "cup", "format": "round_robin",
                            "bots": ["mine", str(SAMPLES / "greedy.py"),
                                     str(SAMPLES / "collector.py")],
                            "rounds": 2, "games_per_match": 1}
    data.update(fields)
    return write_spec(tmp_path / "cup.yaml", db, **data)


def _forget_round(db: Path, round_no: int) -> None:
    """The store as a run interrupted before ``round_no`` left it."""
    conn = sqlite3.connect(str(db))
    with conn:
        conn.execute("DELETE FROM records WHERE game_id IN (SELECT id FROM games WHERE "
                     "round >= ?)", (round_no,))
        conn.execute("DELETE FROM games WHERE round >= ?", (round_no,))
        conn.execute("UPDATE tournaments SET state = 'interrupted'")
    conn.close()


def _games_by_version(db: Path, name: str) -> dict[str, int]:
    conn = sqlite3.connect(str(db))
    try:
        keys = {r[0]: f"{r[1]}@{r[2]}" for r in conn.execute("SELECT id, name, version FROM bots")}
        counts: dict[str, int] = {}
        for (seats,) in conn.execute(
                "SELECT g.seats_json FROM games g JOIN tournaments t ON t.id = g.tournament_id "
                "WHERE t.name = ?", (name,)):
            for bot in json.loads(seats):
                counts[keys[bot]] = counts.get(keys[bot], 0) + 1
        return counts
    finally:
        conn.close()


def _update(tmp_path: Path, bots_dir: Path) -> str:
    changed = tmp_path / "mine_v2.py"
    changed.write_text(FIRST.read_text() + "\n# faster\n")
    return _submit(bots_dir, changed, update=True)


def test_the_refusal_names_continue_and_new_edition(tmp_path: Path, registry: Path) -> None:
    """An entrant's version that nothing keeps any more (its kept copy deleted by hand): the
    resumed run cannot play it, and says how to go on."""
    db = tmp_path / "arena.db"
    old = _submit(registry, FIRST)
    spec = _spec(tmp_path, db)
    run_tournament(load_spec(spec), 1)
    _forget_round(db, 2)  # a deal is left for the new version
    new = _update(tmp_path, registry)
    shutil.rmtree(registry / ".versions" / f"mine@{old}")
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(spec), 1)
    stored = sqlite3.connect(str(db)).execute("SELECT spec_hash FROM tournaments").fetchone()[0]
    assert str(info.value) == (
        f"tournament 'cup' exists with a different spec (hash {stored}, this spec "
        f"{load_spec(spec).spec_hash()}: entrants changed (mine@{old} -> mine@{new})); "
        "--continue goes on with the new version (the games played stay rated under the old "
        "one), --new-edition starts cup-2 and keeps this one for comparison, --fresh starts "
        "anew")
    result = runner.invoke(app, ["run", str(spec), "--no-progress", "--no-trial"])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {info.value}\n"
    both = runner.invoke(app, ["run", str(spec), "--fresh", "--continue"])
    assert both.exit_code == 2
    assert "give one of --fresh, --continue, not several" in both.stderr


def test_a_finished_tournament_offers_a_new_edition_not_continue(
        tmp_path: Path, registry: Path) -> None:
    """Every deal is played: --continue would enter the new version for none of them (and
    leave it on the leaderboard without a game), so the refusal leads to a new edition."""
    db = tmp_path / "arena.db"
    old = _submit(registry, FIRST)
    spec = _spec(tmp_path, db)
    run_tournament(load_spec(spec), 1)
    new = _update(tmp_path, registry)
    stored = sqlite3.connect(str(db)).execute("SELECT spec_hash FROM tournaments").fetchone()[0]
    changed = (f"entrants changed (mine@{old} -> mine@{new}; to go on with the version it "
               f"started with, enter it as mine@{old})")
    ways = ("--new-edition starts cup-2 with the new version and keeps this one for "
            "comparison, --fresh starts anew")
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(spec), 1)
    assert str(info.value) == (
        f"tournament 'cup' is finished, and this spec differs (hash {stored}, this spec "
        f"{load_spec(spec).spec_hash()}: {changed}); {ways}; arena leaderboard cup --db "
        "arena.db shows its results")
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(spec), 1, carry_on=True)
    assert str(info.value) == (
        "--continue enters a new version for the deals not begun, and tournament 'cup' is "
        f"finished (this spec {load_spec(spec).spec_hash()}: {changed}); {ways}")
    assert f"mine@{new}" not in _games_by_version(db, "cup")
    second = run_tournament(load_spec(spec), 1, new_edition=True)
    assert (second.name, second.games_recorded) == ("cup-2", 6)


def test_continue_enters_the_new_version_for_the_deals_not_begun(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "arena.db"
    old = _submit(registry, FIRST)
    spec = _spec(tmp_path, db)
    first = run_tournament(load_spec(spec), 1)
    assert first.games_recorded == 6  # 3 pairs, 2 cycles
    _forget_round(db, 2)
    new = _update(tmp_path, registry)
    went_on = run_tournament(load_spec(spec), 1, carry_on=True)
    assert (went_on.games_before, went_on.games_recorded) == (3, 3)
    counts = _games_by_version(db, "cup")
    assert counts[f"mine@{old}"] == 2 and counts[f"mine@{new}"] == 2
    # the next plain run resumes the continued tournament
    again = run_tournament(load_spec(spec), 1)
    assert (again.games_before, again.games_recorded, again.state) == (6, 0, "finished")
    board = runner.invoke(app, ["leaderboard", "cup", "--db", str(db), "-f", "csv"])
    assert board.exit_code == 0
    assert f"mine,{old}" in board.stdout and f"mine,{new}" in board.stdout


def test_a_deal_begun_is_finished_by_the_version_that_began_it(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "arena.db"
    old = _submit(registry, FIRST)
    spec = _spec(tmp_path, db, rounds=1, games_per_match=2)
    run_tournament(load_spec(spec), 1)
    conn = sqlite3.connect(str(db))
    with conn:  # each table's second game is lost: every deal has begun
        conn.execute("DELETE FROM records WHERE game_id LIKE '%/g1'")
        conn.execute("DELETE FROM games WHERE game_index = 1")
    conn.close()
    new = _update(tmp_path, registry)
    went_on = run_tournament(load_spec(spec), 1, carry_on=True)
    assert went_on.games_recorded == 3
    counts = _games_by_version(db, "cup")
    assert counts[f"mine@{old}"] == 4 and f"mine@{new}" not in counts
    assert resolve(f"mine@{old}").version == old  # found among the kept versions


def test_continue_refuses_other_changes(tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "arena.db"
    _submit(registry, FIRST)
    spec = _spec(tmp_path, db)
    run_tournament(load_spec(spec), 1)
    other = _spec(tmp_path, db, games_per_match=2)
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(other), 1, carry_on=True)
    assert str(info.value).startswith(
        "--continue enters new versions of the same bots, and tournament 'cup' changed more")
    assert str(info.value).endswith(
        "games_per_match changed); --new-edition starts cup-2 and keeps this one for "
        "comparison, --fresh starts anew")


def test_continue_refuses_another_bot_in_an_entrants_place(tmp_path: Path,
                                                        registry: Path) -> None:
    """Another bot listed where one stood is no new version of it: its games and points
    are not the other's to take over."""
    db = tmp_path / "arena.db"
    _submit(registry, FIRST)
    spec = _spec(tmp_path, db)
    run_tournament(load_spec(spec), 1)
    _forget_round(db, 2)
    other = _spec(tmp_path, db, bots=["mine", str(SAMPLES / "greedy.py"),
                                      str(SAMPLES / "random.py")])
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(other), 1, carry_on=True)
    stored = sqlite3.connect(str(db)).execute("SELECT spec_hash FROM tournaments").fetchone()[0]
    left, joined = (resolve(str(SAMPLES / f"{bot}.py")).key for bot in ("collector", "random"))
    assert str(info.value) == (
        f"--continue enters new versions of the same bots, and tournament 'cup' changed more "
        f"(hash {stored}, this spec {load_spec(other).spec_hash()}: entrants changed ({left} "
        f"left; {joined} joined)); --new-edition starts cup-2 and keeps this one for "
        "comparison, --fresh starts anew")
    assert not [key for key in _games_by_version(db, "cup") if key.startswith("random@")]


def test_a_new_edition_keeps_the_old_one_and_is_resumed_by_name(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "arena.db"
    old = _submit(registry, FIRST)
    spec = _spec(tmp_path, db)
    run_tournament(load_spec(spec), 1)
    new = _update(tmp_path, registry)
    second = run_tournament(load_spec(spec), 1, new_edition=True)
    assert (second.name, second.games_recorded) == ("cup-2", 6)
    assert _games_by_version(db, "cup")[f"mine@{old}"] == 4
    assert _games_by_version(db, "cup-2")[f"mine@{new}"] == 4
    again = run_tournament(load_spec(spec), 1)  # the latest edition, resumed
    assert (again.name, again.games_recorded) == ("cup-2", 0)
    same = run_tournament(load_spec(spec), 1, new_edition=True)  # nothing changed: no -3
    assert same.name == "cup-2"
    listed = runner.invoke(app, ["tournaments", "--db", str(db)])
    assert "cup-2" in listed.stdout and "cup " in listed.stdout


def test_a_new_edition_skips_a_name_another_tournament_holds(tmp_path: Path,
                                                          registry: Path) -> None:
    """A tournament named cup-2 by a spec of its own is no edition of cup: the new edition
    is cup-3, and cup-2 keeps its games."""
    db = tmp_path / "arena.db"
    _submit(registry, FIRST)
    run_tournament(load_spec(_spec(tmp_path, db, name="cup-2", games_per_match=2)), 1)
    spec = _spec(tmp_path, db)
    run_tournament(load_spec(spec), 1)
    _update(tmp_path, registry)
    edition = run_tournament(load_spec(spec), 1, new_edition=True)
    assert (edition.name, edition.games_recorded) == ("cup-3", 6)
    assert sum(_games_by_version(db, "cup-2").values()) == 24


def test_a_spec_put_back_as_it_was_resumes_its_own_edition(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "arena.db"
    _submit(registry, FIRST)
    run_tournament(load_spec(_spec(tmp_path, db)), 1)
    changed = _spec(tmp_path, db, games_per_match=2)
    assert run_tournament(load_spec(changed), 1, new_edition=True).name == "cup-2"
    _forget_round(db, 2)  # both editions lose their second cycle
    first = _spec(tmp_path, db)  # the spec as it was for cup
    again = run_tournament(load_spec(first), 1)
    assert (again.name, again.games_recorded) == ("cup", 3)
    same = run_tournament(load_spec(first), 1, new_edition=True)  # it has an edition: no -3
    assert (same.name, same.games_recorded) == ("cup", 0)
    latest = run_tournament(load_spec(_spec(tmp_path, db, games_per_match=2)), 1)
    assert (latest.name, latest.games_recorded) == ("cup-2", 6)


def test_a_continued_swiss_entry_keeps_its_points(tmp_path: Path, registry: Path) -> None:
    from arena.tournament.standings import swiss_standings
    from arena.tournament.store import Store

    db = tmp_path / "arena.db"
    old = _submit(registry, FIRST)
    spec = _spec(tmp_path, db, name="open", format="swiss", rounds=2,
                 bots=["mine", str(SAMPLES / "greedy.py"), str(SAMPLES / "collector.py"),
                       str(SAMPLES / "random.py")])
    run_tournament(load_spec(spec), 1)
    conn = sqlite3.connect(str(db))
    with conn:  # interrupted before round 2 was paired
        conn.execute("DELETE FROM records WHERE game_id LIKE 'open/r2/%'")
        conn.execute("DELETE FROM games WHERE round = 2")
        conn.execute("DELETE FROM tables WHERE round = 2")
        conn.execute("DELETE FROM byes WHERE round = 2")
    conn.close()
    with Store(db) as store:
        row = store.tournament("open")
        assert row is not None
        before = {s.entrant: s.score for s in swiss_standings(store, row)}
    new = _update(tmp_path, registry)
    went_on = run_tournament(load_spec(spec), 1, carry_on=True)
    assert went_on.games_done == 4 and went_on.state == "finished"
    counts = _games_by_version(db, "open")
    assert counts[f"mine@{old}"] == 1 and counts[f"mine@{new}"] == 1
    with Store(db) as store:
        row = store.tournament("open")
        assert row is not None
        standings = swiss_standings(store, row, before_round=2)
    assert {s.entrant: s.score for s in standings} == before  # round 1 counts for the entry


def test_arena_run_new_edition_and_continue_from_the_command_line(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "arena.db"
    _submit(registry, FIRST)
    spec = _spec(tmp_path, db)
    run_tournament(load_spec(spec), 1)
    _update(tmp_path, registry)
    result = runner.invoke(app, ["run", str(spec), "--new-edition", "--no-progress",
                                 "--no-trial"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("cup-2: 6/6 games recorded (6 this run, ")
    # the new edition's leaderboard, rated while the workers wound down, the run over
    assert "\nLeaderboard: cup-2 (" in result.stdout
    assert "finished), 6 games rated;" in result.stdout
    assert runner.invoke(app, ["status", "cup-2", "--db", str(db)]).exit_code == 0
    _forget_round(db, 2)  # both editions lose their second cycle
    again = runner.invoke(app, ["run", str(spec), "--continue", "--no-progress", "--no-trial"])
    assert again.exit_code == 0, again.output
    assert again.stdout.startswith("cup-2: 6/6 games recorded (3 this run, ")


def test_an_entry_keeps_its_score_and_pairings_under_its_earlier_version(
        tmp_path: Path, registry: Path) -> None:
    """arena pairings shows the entry's score before a round beside the version that sat at
    its table, an older one too, and arena status counts the entry's pairings under both."""
    db = tmp_path / "arena.db"
    _submit(registry, FIRST)
    spec = _spec(tmp_path, db, name="open", format="swiss", rounds=3,
                 bots=[str(SAMPLES / f"{name}.py") for name in
                       ("greedy", "collector", "random", "heuristic")] + ["mine"])
    run_tournament(load_spec(spec), 1)
    conn = sqlite3.connect(str(db))
    with conn:  # interrupted before round 3 was paired
        conn.execute("DELETE FROM records WHERE game_id LIKE 'open/r3/%'")
        for table in ("games", "tables", "byes"):
            conn.execute(f"DELETE FROM {table} WHERE round = 3")  # noqa: S608 - our names
    conn.close()
    _update(tmp_path, registry)
    run_tournament(load_spec(spec), 1, carry_on=True)
    pairings = runner.invoke(app, ["pairings", "open", "--db", str(db)]).stdout
    assert "bye: mine (0), +1" in pairings  # the last entry sits out round 1
    second = pairings.split("open, round 2 of 3")[1].split("open, round 3 of 3")[0]
    assert "mine (1) " in second  # its round-2 version, with the bye's point
    status = runner.invoke(app, ["status", "open", "--db", str(db)]).stdout
    [row] = [line.split() for line in status.splitlines()
             if line.split()[1:2] and line.split()[1].startswith("mine@")]
    assert row[-2:] == ["2", "1"]  # paired in rounds 2 and 3, a bye in round 1


def test_continue_with_a_deal_book_warns_of_deals_already_played(
        tmp_path: Path, registry: Path) -> None:
    """A book of one deal comes round again: the new version, submitted after the games
    were shown, would be dealt the hands its author may have watched, without a word."""
    db = tmp_path / "arena.db"
    _submit(registry, FIRST)
    (tmp_path / "book.txt").write_text("736402193847561029\n")
    spec = _spec(tmp_path, db, deals="book.txt")
    run_tournament(load_spec(spec), 1)
    _forget_round(db, 2)
    _update(tmp_path, registry)
    went_on = run_tournament(load_spec(spec), 1, carry_on=True)
    assert went_on.games_recorded == 3
    assert went_on.warnings.count(
        "--continue enters new versions of mine, submitted after games of 'cup' were shown, "
        "and its deal book deals them 1 deal already played (every table of a round is dealt "
        "the same deals, and the book comes round again): their authors may have seen those "
        "hands and draws (arena game, the site). To compare them fairly, play them in a new "
        f"edition with a new book: arena run {spec} --new-edition --deals NEW_BOOK") == 1


@pytest.mark.parametrize("seed", [11, None])
def test_continue_with_a_written_seed_warns_that_it_decides_the_deals(
        tmp_path: Path, registry: Path, seed: int | None) -> None:
    db = tmp_path / "arena.db"
    _submit(registry, FIRST)
    spec = _spec(tmp_path, db, seed=seed)
    run_tournament(load_spec(spec), 1, insecure=True)
    _forget_round(db, 2)
    _update(tmp_path, registry)
    went_on = run_tournament(load_spec(spec), 1, carry_on=True, insecure=True)
    warned = [text for text in went_on.warnings if text.startswith("--continue")]
    assert warned == ([] if seed is None else [
        "--continue enters new versions of mine, submitted after 'cup' began: its seed, "
        "written in the spec and shown by arena status, decides every deal they will play, "
        "which their authors may have computed. To compare them fairly, play them in a new "
        "edition with 'seed' left out of the spec (a secret one is drawn): arena run "
        f"{spec} --new-edition"])


def test_fresh_keeps_an_edition_an_edition(tmp_path: Path, registry: Path) -> None:
    """--fresh on cup-2 made a tournament named cup-2 that was no edition of cup: the next
    run of the same spec was compared with cup and refused, and, cup deleted, started a new
    cup playing cup-2's very deals."""
    db = tmp_path / "arena.db"
    _submit(registry, FIRST)
    run_tournament(load_spec(_spec(tmp_path, db)), 1)
    changed = _spec(tmp_path, db, games_per_match=2)
    assert run_tournament(load_spec(changed), 1, new_edition=True).name == "cup-2"
    again = run_tournament(load_spec(_spec(tmp_path, db, games_per_match=3)), 1, fresh=True)
    assert (again.name, again.games_recorded) == ("cup-2", 18)
    changed = _spec(tmp_path, db, games_per_match=3)
    resumed = run_tournament(load_spec(changed), 1)
    assert (resumed.name, resumed.games_recorded) == ("cup-2", 0)
    runner.invoke(app, ["delete", "cup", "--db", str(db), "--yes"])
    assert run_tournament(load_spec(changed), 1).name == "cup-2"


def test_once_the_first_edition_is_deleted_a_changed_spec_is_compared_with_the_second(
        tmp_path: Path, registry: Path) -> None:
    # cup-2 is still an edition of cup: the refusal names it and the next edition, never the
    # tournament deleted (a command naming cup would find nothing)
    db = tmp_path / "arena.db"
    _submit(registry, FIRST)
    run_tournament(load_spec(_spec(tmp_path, db)), 1)
    run_tournament(load_spec(_spec(tmp_path, db, games_per_match=2)), 1, new_edition=True)
    assert runner.invoke(app, ["delete", "cup", "--db", str(db), "--yes"]).exit_code == 0
    result = runner.invoke(app, ["run", str(_spec(tmp_path, db, games_per_match=3)),
                                 "--no-progress", "--no-trial"])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: tournament 'cup-2' exists with a different spec")
    assert "--new-edition starts cup-3 and keeps this one for comparison" in result.stderr
    assert "arena leaderboard cup-2 --db" in result.stderr
    assert "'cup'" not in result.stderr and "leaderboard cup " not in result.stderr


def test_an_earlier_version_finishing_its_deal_keeps_its_options(tmp_path: Path,
                                                                 registry: Path) -> None:
    """The version an entry held before --continue, entered with options, finishes the deal
    it began with them: without, it would play as another entrant under its key."""
    _submit(registry, FIRST)
    entered = resolve("mine").with_options({"depth": 3})
    with Store(tmp_path / "arena.db") as store:
        row = store.create_tournament(
            name="cup", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=1, spec_path=None, bots=[(
                entered.name, entered.version, str(entered.path),
                stored_metadata(entered.metadata, entered.options))])
        held = stored_bot(store, store.entrant_ids(row.id)[0])
    assert (held.key, held.options) == (entered.key, {"depth": 3})
