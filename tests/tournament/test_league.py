"""A league of sample bots: new versions enter while it runs and play at once, refused ones
are told, every game is recorded once across stops and resumes, and the choices replay from
the seed and the order of the submissions."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tournament_fixtures import (
    FIXTURES,
    PassedCheck,
    bots_dir_for,
    earlier_tournament,
    runner,
    write_spec,
)

from arena.cli.main import app
from arena.referee.launch import sandbox_launcher
from arena.registry import BotSpec, resolve, submit
from arena.tournament.events import Progress, RunWarning
from arena.tournament.league_vetting import VetScope
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


def _submit(bots_dir: Path, source: Path, name: str, *, update: bool = False) -> str:
    return submit(source, name, bots_dir, check=lambda spec: PassedCheck(), update=update).version


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bots_dir_for(tmp_path, monkeypatch, "first", "last", "hashed")


def _league(tmp_path: Path, db: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {"name": "ladder", "format": "league", "bots": ["*"],
                            "games_per_match": 1, "duplicate": True, "seed": 5,
                            "budget": {"games": 16}}
    data.update(fields)
    data.pop("rounds", None)
    path = write_spec(tmp_path / f"{db.stem}.yaml", db, **data)
    text = path.read_text().replace("rounds: 3\n", "")
    path.write_text(text)
    return path


def _tables(db: Path, name: str = "ladder") -> list[tuple[int, list[str]]]:
    """Each table's number and its first seating's bots, by key."""
    conn = sqlite3.connect(str(db))
    try:
        keys = {r[0]: f"{r[1]}@{r[2]}" for r in conn.execute("SELECT id, name, version FROM bots")}
        return [(r[0], [keys[b] for b in json.loads(r[1])])
                for r in conn.execute(
                    "SELECT t.round, t.seats_json FROM tables t JOIN tournaments n ON "
                    "n.id = t.tournament_id WHERE n.name = ? AND t.table_index = 0 "
                    "ORDER BY t.round", (name,))]
    finally:
        conn.close()


def _league_meeting_newcomer(tmp_path: Path, db: Path, registry: Path, name: str,
                             warnings: list[str], tail: str = "") -> str:
    """Play a 12-game league that finds a copy of the fixture bot 'last' (``tail`` added to
    its text) named ``name`` in the registry after its first tables (a newcomer, not the
    field); its key. ``warnings`` gets the run's warnings."""
    newcomer: list[str] = []

    def report(event: object) -> None:
        if isinstance(event, Progress) and event.done >= 4 and not newcomer:
            (registry / f"{name}.py").write_text((FIXTURES / "last.py").read_text() + tail)
            newcomer.append(f"{name}@{resolve(name).version}")
        if isinstance(event, RunWarning):
            warnings.append(event.text)

    summary = run_tournament(load_spec(_league(tmp_path, db, budget={"games": 12})), 1,
                             report=report, vetter=lambda bot, scope: None)
    assert summary.state == "finished" and newcomer
    return newcomer[0]


class _SubmitAt:
    """Submits a new version of ``first`` once ``at`` games are recorded: counted in games,
    so the test does not depend on time."""

    def __init__(self, bots_dir: Path, tmp_path: Path, at: int) -> None:
        self.bots_dir, self.at, self.version = bots_dir, at, ""
        self.source = tmp_path / "first_v2.py"
        self.source.write_text((FIXTURES / "first.py").read_text() + "\n# v2\n")

    def __call__(self, event: object) -> None:
        if isinstance(event, Progress) and event.done >= self.at and not self.version:
            self.version = _submit(self.bots_dir, self.source, "first", update=True)


def test_a_new_version_enters_at_once_and_the_old_one_retires(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    submitting = _SubmitAt(registry, tmp_path, at=4)
    summary = run_tournament(load_spec(_league(tmp_path, db)), 1, report=submitting,
                             vetter=lambda bot, scope: None)
    assert summary.state == "finished" and summary.games_done == 16
    tables = _tables(db)
    new = f"first@{submitting.version}"
    # submitted after table 2's games: polled before table 3, which it plays
    assert new in tables[2][1]
    assert all(not key.startswith("first@") or key == new for _, seats in tables[2:]
               for key in seats)
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)])
    assert status.exit_code == 0
    assert f"{new}: active since table 3" in status.stdout
    assert "retired at table 3" in status.stdout


def test_a_refused_version_says_why(tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    submitting = _SubmitAt(registry, tmp_path, at=2)

    def vetter(bot: BotSpec, scope: VetScope) -> str | None:
        return "failed the compliance check: hello: no reply" if bot.key.endswith(
            submitting.version) and submitting.version else None

    warnings: list[str] = []

    def report(event: object) -> None:
        submitting(event)
        if isinstance(event, RunWarning):
            warnings.append(event.text)

    run_tournament(load_spec(_league(tmp_path, db, budget={"games": 8})), 1,
                   report=report, vetter=vetter)
    assert all(f"first@{submitting.version}" not in seats for _, seats in _tables(db))
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)])
    assert (f"first@{submitting.version}: refused at table 2: failed the compliance check: "
            "hello: no reply") in status.stdout
    # the organiser watching the run is told too, once, as a refused look-alike is
    assert [w for w in warnings if "refused" in w] == [
        f"first@{submitting.version} is refused: failed the compliance check: hello: no "
        "reply"]


def test_choices_replay_from_the_seed_and_the_submissions(
        tmp_path: Path, registry: Path) -> None:
    runs = []
    for db in (tmp_path / "a.db", tmp_path / "b.db"):
        submitting = _SubmitAt(registry, tmp_path, at=6)
        run_tournament(load_spec(_league(tmp_path, db)), 1, report=submitting,
                       vetter=lambda bot, scope: None)
        runs.append(_tables(db))
        # back to the first version for the second league
        _submit(registry, FIXTURES / "first.py", "first", update=True)
    assert runs[0] == runs[1]


def test_stopped_and_resumed_every_game_once(tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    first = run_tournament(load_spec(_league(tmp_path, db, budget={"games": 6})), 1,
                           vetter=lambda bot, scope: None)
    assert first.games_done == 6
    conn = sqlite3.connect(str(db))
    with conn:  # a kill in the middle of table 3: its second seating's game is lost
        conn.execute("DELETE FROM records WHERE game_id = 'ladder/r3/t1/g0'")
        conn.execute("DELETE FROM games WHERE id = 'ladder/r3/t1/g0'")
    conn.close()
    more = run_tournament(load_spec(_league(tmp_path, db, budget={"games": 12})), 1,
                          vetter=lambda bot, scope: None)
    assert (more.games_before, more.games_done) == (5, 12)
    assert more.games_planned == 12  # the raised budget is the league's new end
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout.splitlines()
    assert status[1].startswith("state finished; games 12 (budget 12 spent)")
    conn = sqlite3.connect(str(db))
    ids = [r[0] for r in conn.execute("SELECT id FROM games")]
    conn.close()
    assert len(ids) == len(set(ids)) == 12
    assert [n for n, _ in _tables(db)] == list(range(1, 7))


def test_the_leaderboard_shows_the_newest_versions_and_recomputes_from_results(
        tmp_path: Path, registry: Path) -> None:
    import json

    import trueskill

    from arena.rating.board_view import leaderboard_text
    from arena.rating.trueskill_rating import rate_tournament

    db = tmp_path / "a.db"
    submitting = _SubmitAt(registry, tmp_path, at=4)
    run_tournament(load_spec(_league(tmp_path, db)), 1, report=submitting,
                   vetter=lambda bot, scope: None)
    old = next(k for _, seats in _tables(db) for k in seats
               if k.startswith("first@") and not k.endswith(submitting.version))
    shown = runner.invoke(app, ["leaderboard", "ladder", "--db", str(db), "--wide"])
    assert shown.exit_code == 0
    assert f"new (older: {old.split('@')[1]})" in shown.stdout
    newest = runner.invoke(app, ["leaderboard", "ladder", "--db", str(db), "-f", "csv"])
    assert f"first,{submitting.version}" in newest.stdout
    assert f"first,{old.split('@')[1]}" not in newest.stdout
    assert shown.stdout.endswith("new: a new version of a bot is rated from scratch; older "
                                 "versions keep their own ratings.\n1 older version not shown "
                                 "(retired from the league, ratings kept); --all-versions shows "
                                 "them.\n")
    assert shown.stdout == leaderboard_text(db, "ladder", wide=True) + "\n"
    from arena.rating.board_view import fitted_table
    from arena.rating.leaderboard import build_leaderboard

    narrow, left_out = fitted_table(build_leaderboard(db, "ladder"), width=80)
    assert "sigma" in narrow.splitlines()[0]  # a league keeps how sure each rating is
    assert left_out and "sigma" not in left_out
    every = runner.invoke(app, ["leaderboard", "ladder", "--db", str(db), "--all-versions",
                                "-f", "csv"])
    assert f"first,{old.split('@')[1]}" in every.stdout
    assert f"first,{submitting.version}" in every.stdout
    watched = runner.invoke(app, ["leaderboard", "ladder", "--db", str(db), "--watch",
                                  "--every", "0.1", "--refreshes", "2"])
    assert watched.exit_code == 0
    assert watched.stdout == 2 * (leaderboard_text(db, "ladder") + "\n\n")
    # every rating, the retired version's too, from the exported games alone
    doc = json.loads(runner.invoke(app, ["results", "ladder", "--db", str(db)]).stdout)
    env = trueskill.TrueSkill(**doc["rating"])
    ratings: dict[str, trueskill.Rating] = {}
    for game in doc["games"]:
        groups = [(ratings.get(bot, env.create_rating()),) for bot in game["seats"]]
        for bot, (new,) in zip(game["seats"], env.rate(groups, ranks=game["placements"]),
                               strict=True):
            ratings[bot] = new
    stored = rate_tournament(db, "ladder")
    assert {k: (r.mu, r.sigma) for k, r in ratings.items()} == {
        k: (r.mu, r.sigma) for k, r in stored.items()}
    assert old in ratings


def test_status_of_a_league_stopped_with_its_budget_spent_says_to_raise_it(
        tmp_path: Path, registry: Path) -> None:
    # stopped as its last table reached the budget: a run of the spec as it is plays
    # nothing, so status told to "run the spec again to resume" to no effect
    db = tmp_path / "a.db"
    spec = _league(tmp_path, db, budget={"games": 4})
    asked: list[str] = []

    def stop_at_the_budget(event: object) -> None:
        if isinstance(event, Progress) and event.done >= 3 and not asked:
            asked.append(runner.invoke(app, ["league", "stop", "ladder", "--db", str(db)]).stdout)

    summary = run_tournament(load_spec(spec), 1, report=stop_at_the_budget,
                             vetter=lambda bot, scope: None)
    assert (summary.state, summary.games_done) == ("stopped", 4)
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert ("state stopped (as asked, its budget of 4 games spent: raise 'budget' in its spec "
            "and run it again to go on, docs/LEAGUE.md); games 4 (budget 4 spent)\n") in status
    assert status.endswith("\n\ngo on with: raise 'budget' in a.yaml, then arena run a.yaml "
                           "--db a.db\n")
    # as JSON too: no resume that plays nothing, but the step the text gives
    data = json.loads(runner.invoke(app, ["status", "ladder", "--db", str(db), "-f",
                                          "json"]).stdout)
    assert (data["resume"], data["go_on"], data["stop"]) == (
        None, "raise 'budget' in a.yaml, then arena run a.yaml --db a.db", None)
    again = run_tournament(load_spec(spec), 1, vetter=lambda bot, scope: None)
    assert again.games_done == again.games_before == 4  # as it is, the spec plays nothing


def test_stop_asks_a_running_league_and_refuses_otherwise(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    spec = _league(tmp_path, db, budget=None)
    asked: list[str] = []

    def stop_after_four(event: object) -> None:
        if isinstance(event, Progress) and event.done >= 4 and not asked:
            result = runner.invoke(app, ["league", "stop", "ladder", "--db", str(db)])
            asked.append(result.stdout)

    summary = run_tournament(load_spec(spec), 1, report=stop_after_four,
                             vetter=lambda bot, scope: None)
    assert asked[0].startswith("asked league 'ladder' to stop once the table under way is "
                               "played (pid ")
    assert (summary.state, summary.games_done) == ("stopped", 4)
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    # no budget: no end to count the games to
    assert "state stopped (as asked; run the spec again to resume); games 4\ncreated " in status
    idle = runner.invoke(app, ["league", "stop", "ladder", "--db", str(db)])
    assert idle.exit_code == 1
    assert idle.stderr == "Error: league 'ladder' is not running (arena run SPEC resumes it)\n"
    resumed = run_tournament(load_spec(_league(tmp_path, db, budget={"games": 8})), 1,
                             vetter=lambda bot, scope: None)
    assert (resumed.games_before, resumed.games_done, resumed.state) == (4, 8, "finished")


def test_killed_at_any_moment_a_league_loses_nothing_and_plays_nothing_twice(
        tmp_path: Path, registry: Path) -> None:
    from store_polling import kill_after_games
    from tournament_fixtures import arena_run, signature

    reference = tmp_path / "reference.db"
    run_tournament(load_spec(_league(tmp_path, reference, budget={"games": 14})), 1)
    db = tmp_path / "killed.db"
    spec = _league(tmp_path, db, budget={"games": 14})
    for at_least in (3, 9):  # killed inside a deal (odd counts), resumed, killed again
        process = arena_run(spec, "--workers", "1")
        kill_after_games(process, db, "ladder", at_least, timeout=120)
        assert at_least <= len(signature(db, "ladder")["games"]) < 14
    process = arena_run(spec, "--workers", "1")
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert "ladder: 14 games recorded (budget 14 spent; " in out
    assert signature(db, "ladder") == signature(reference, "ladder")


def test_a_bots_files_edited_in_place_are_a_new_version_that_is_vetted(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    edited: list[str] = []
    vetted: list[str] = []

    def edit_at_four(event: object) -> None:
        if isinstance(event, Progress) and event.done >= 4 and not edited:
            target = registry / "first.py"
            target.write_text(target.read_text() + "\n# edited in place\n")
            edited.append("yes")

    def vetter(bot: BotSpec, scope: VetScope) -> str | None:
        vetted.append(bot.key)
        return None

    run_tournament(load_spec(_league(tmp_path, db, budget={"games": 10})), 1,
                   report=edit_at_four, vetter=vetter)
    [new] = vetted
    tables = _tables(db)
    assert new.startswith("first@") and new in tables[2][1]
    assert all(new not in seats for _, seats in tables[:2])


class _ChangeAt:
    """Changes a registered bot's files in place once ``at`` games are recorded (an edit
    with ``text``, or their removal with None)."""

    def __init__(self, path: Path, at: int, text: str | None) -> None:
        self.path, self.at, self.text, self.done = path, at, text, False

    def __call__(self, event: object) -> None:
        if isinstance(event, Progress) and event.done >= self.at and not self.done:
            if self.text is None:
                self.path.unlink()
            else:
                self.path.write_text(self.path.read_text() + self.text)
            self.done = True


@pytest.mark.parametrize("change", ["refused edit", "removal"])
def test_a_version_whose_files_went_leaves_and_no_other_code_plays_under_its_name(
        tmp_path: Path, registry: Path, change: str) -> None:
    db = tmp_path / "a.db"
    first = f"first@{_submit(registry, FIXTURES / 'first.py', 'first')}"
    edit = _ChangeAt(registry / "first.py", 4, None if change == "removal" else "\n# edit\n")
    warnings: list[str] = []

    def report(event: object) -> None:
        edit(event)
        if isinstance(event, RunWarning):
            warnings.append(event.text)

    summary = run_tournament(load_spec(_league(tmp_path, db, budget={"games": 12})), 1,
                             report=report,
                             vetter=lambda bot, scope: "refused" if edit.done else None)
    assert summary.state == "finished" and summary.games_done == 12
    tables = _tables(db)
    assert any(first in seats for _, seats in tables[:2])
    assert all(not key.startswith("first@") for _, seats in tables[2:] for key in seats)
    conn = sqlite3.connect(str(db))
    failures = [r[0] for r in conn.execute("SELECT failures_json FROM games")]
    conn.close()
    assert all(f == "[]" for f in failures)  # no forfeit: nothing launched that is not there
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert (f"{first}: entered at table 1, retired: its files changed or went away by table 3 "
            "(no kept copy of this version)") in status
    assert [w for w in warnings if "leaves the league" in w] == [
        f"{first} leaves the league: its files changed or went away by table 3 (no kept copy "
        "of this version)"]


def test_an_update_after_the_poll_plays_the_chosen_table_from_the_kept_copy(
        tmp_path: Path, registry: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """'arena submit --update' while a league ran stopped it: landing after a poll, before the
    table chosen there was seated (most of a league's time, its tables being short), it found
    the version's files replaced and said 'so it was not seated', though submit had kept them."""
    from arena.tournament.league import League

    db = tmp_path / "a.db"
    first = f"first@{_submit(registry, FIXTURES / 'first.py', 'first')}"
    source = tmp_path / "first_v2.py"
    source.write_text((FIXTURES / "first.py").read_text() + "\n# v2\n")
    choose = League.choose
    updated: list[tuple[int, str]] = []  # (the table played from the kept copy, new version)

    def update_once_its_table_is_chosen(league: League, first_table: int) -> list[Any]:
        tables = choose(league, first_table)
        seats_first = any(league.by_id[b].name == "first" for t in tables for b in t.seats
                          if b in league.by_id)
        if seats_first and not updated and league.store.count_games(league.row.id) >= 4:
            updated.append((tables[0].round,
                            _submit(registry, source, "first", update=True)))
        return tables

    monkeypatch.setattr(League, "choose", update_once_its_table_is_chosen)
    summary = run_tournament(load_spec(_league(tmp_path, db, budget={"games": 12})), 1,
                             vetter=lambda bot, scope: None)
    assert summary.state == "finished" and summary.games_done == 12
    tables = dict(_tables(db))
    (number, version), = updated
    assert first in tables[number]  # chosen before the update: played from the kept copy
    later = [seats for n, seats in tables.items() if n > number]
    assert any(f"first@{version}" in seats for seats in later)
    assert all(first not in seats for seats in later)
    conn = sqlite3.connect(str(db))
    failures = [r[0] for r in conn.execute("SELECT failures_json FROM games")]
    conn.close()
    assert all(f == "[]" for f in failures)


@pytest.mark.parametrize("league", [True, False])
def test_a_bot_crashing_after_an_update_mid_table_restarts_from_the_kept_copy_in_a_league(
        tmp_path: Path, registry: Path, league: bool) -> None:
    """'arena submit --update' landing while a league's table plays, then its bot crashing:
    the restart looked at the bots directory's files, the new version's, and stopped the
    league though the update had kept the old ones. It runs the kept copy (the new files,
    which cannot start, never run) and tells the run so; a table without kept copies still
    stops, saying so."""
    import datetime as dt

    from arena.tournament.tasks import (
        DoneMessage,
        ErrorMessage,
        GameMessage,
        KeptCopyMessage,
        TableTask,
    )
    from arena.tournament.worker import play_table

    _submit(registry, FIXTURES.parent.parent / "fixtures" / "bots" / "end_crasher.py",
            "end_crasher")
    crasher = resolve("end_crasher")
    source = tmp_path / "end_crasher_v2.py"
    source.write_text("raise RuntimeError('the new version ran')\n\n\n"
                      "class EndCrasher:\n    name = 'end_crasher'\n")
    task = TableTask(tournament="t", round=1, table=0, bots=(crasher, resolve("first")),
                     bot_ids=(1, 2), games=3, seed=7, limits={},
                     event_date=dt.date(2026, 1, 1), kept_copies=league)
    messages: list[object] = []

    def update_after_the_first_game(message: object) -> None:
        messages.append(message)
        if isinstance(message, GameMessage) and message.row["game_index"] == 0:
            _submit(registry, source, "end_crasher", update=True)  # it crashes after it

    play_table(task, update_after_the_first_game)
    games = [m for m in messages if isinstance(m, GameMessage)]
    if not league:
        error = messages[-1]
        assert len(games) == 1 and isinstance(error, ErrorMessage)
        assert "changed since it entered, so it was not restarted: arena submit --update " \
               "replaced them" in error.message
        return
    assert isinstance(messages[-1], DoneMessage) and len(games) == 3
    assert messages[-1].bot_starts > 3  # restarted: both bots' first starts, then its own
    assert all("new version" not in json.dumps(g.row["failures"]) for g in games)
    told = {m.kept for m in messages if isinstance(m, KeptCopyMessage)}
    assert told == {f"end_crasher@{crasher.files_version}"}


@pytest.mark.parametrize("league", [True, False])
def test_a_launch_finding_no_files_at_the_bots_path_runs_the_kept_copy_in_a_league(
        tmp_path: Path, registry: Path, league: bool) -> None:
    """A launch (or a crashed bot's restart) finding nothing at the bot's path (the moment an
    'arena submit --update' without an exchange of paths leaves between renaming the old files
    aside and the new ones in) failed to copy them and forfeited the bot as though it could
    not start. A league runs the copy the update kept; a plain tournament stops, saying why."""
    from arena.errors import FilesChangedError
    from arena.referee.launch import TransportConnection, sandbox_launcher
    from arena.sandbox import Limits

    first = resolve("first")
    source = tmp_path / "first.py"
    source.write_text((FIXTURES / "first.py").read_text() + "\n# v2\n")
    _submit(registry, source, "first", update=True)
    first.path.unlink()  # the update's gap: neither version's files at the path
    start = sandbox_launcher(bot=first, kept_copies=league)
    if not league:
        with pytest.raises(FilesChangedError, match=r"changed since it entered, so it was not "
                                                    r"started: arena submit --update replaced"):
            start(first.command, first.path, Limits())
        return
    connection = start(first.command, first.path, Limits())
    assert isinstance(connection, TransportConnection)
    connection.kill()


def test_a_resume_finishes_its_table_though_an_earlier_versions_files_went(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    edit = _ChangeAt(registry / "first.py", 4, None)
    run_tournament(load_spec(_league(tmp_path, db, budget={"games": 10})), 1,
                   report=edit, vetter=lambda bot, scope: None)
    last = max(n for n, _ in _tables(db))
    conn = sqlite3.connect(str(db))
    with conn:  # a kill in the middle of the last table: its second seating's game is lost
        conn.execute(f"DELETE FROM records WHERE game_id = 'ladder/r{last}/t1/g0'")
        conn.execute(f"DELETE FROM games WHERE id = 'ladder/r{last}/t1/g0'")
    conn.close()
    more = run_tournament(load_spec(_league(tmp_path, db, budget={"games": 10})), 1,
                          vetter=lambda bot, scope: None)
    assert (more.games_before, more.games_done) == (9, 10)
    conn = sqlite3.connect(str(db))
    ids = {r[0] for r in conn.execute("SELECT id FROM games")}
    conn.close()
    assert f"ladder/r{last}/t1/g0" in ids and len(ids) == 10


def test_a_resumed_league_starts_only_its_active_versions_before_its_games(
        tmp_path: Path, registry: Path) -> None:
    """A version the league refused is not started again by the resume's trial (which would
    warn that its games will be forfeits: it plays none)."""
    db = tmp_path / "a.db"
    broken: list[str] = []

    def submit_broken(event: object) -> None:
        if isinstance(event, Progress) and event.done >= 2 and not broken:
            broken.append(_submit(registry, FIXTURES / "no_start.py", "broken"))

    run_tournament(load_spec(_league(tmp_path, db, budget={"games": 6})), 1,
                   report=submit_broken, vetter=lambda bot, scope: "refused" if bot.name == "broken"
                   else None)
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert f"broken@{broken[0]}: refused at table 2: refused" in status
    conn = sqlite3.connect(str(db))
    with conn:  # stopped, as arena league stop leaves it (a finished run has no trial)
        conn.execute("UPDATE tournaments SET state = 'stopped'")
    conn.close()
    warnings: list[str] = []
    more = run_tournament(load_spec(_league(tmp_path, db, budget={"games": 10})), 1,
                          report=lambda e: warnings.append(e.text)
                          if isinstance(e, RunWarning) else None)
    assert more.games_done == 10
    assert [w for w in warnings if "broken" in w] == []


def test_a_new_version_is_vetted_under_the_leagues_limits(tmp_path: Path) -> None:
    """A bot that answers in 0.5 s passes the compliance check at the default limit (1 s a
    decision) but would time out at every decision of a league giving 0.2 s: refused."""
    from arena.registry import spec_from_path
    from arena.tournament.league import vet

    slow = tmp_path / "slow.py"
    slow.write_text((FIXTURES / "first.py").read_text().replace(
        "        return 0", "        import time\n\n        time.sleep(0.5)\n        return 0"))
    bot = spec_from_path(slow)
    refusal = vet(bot, VetScope(sandbox_launcher()), {"decision_ms": 200, "time_bank_ms": 0})
    assert refusal is not None and refusal.startswith("failed the compliance check: ")
    assert "timeout" in refusal and "no answer within 200 ms" in refusal


def test_a_vets_refusal_says_nothing_of_the_files_beside_a_single_file_bot(
        tmp_path: Path) -> None:
    """The refusal is stored and shown (arena status, the site): from a shared directory of
    entries, whether a rival's file lies beside the bot is not its author's to learn."""
    from arena.registry import spec_from_path
    from arena.tournament.league import vet

    students = tmp_path / "students"
    students.mkdir()
    spy = students / "spy.py"
    spy.write_text((FIXTURES / "first.py").read_text().replace(
        "        return 0", "        return len(open('rival_book.json').read()) * 0"))
    absent = vet(spec_from_path(spy), VetScope(sandbox_launcher()), {})
    (students / "rival_book.json").write_text("{}")
    present = vet(spec_from_path(spy), VetScope(sandbox_launcher()), {})
    assert present is not None and "No such file or directory: 'rival_book.json'" in present
    assert present == absent and "lies beside" not in present


def test_a_full_disk_stops_the_league_with_one_line_and_loses_nothing(
        tmp_path: Path, registry: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.errors import StoreError
    from arena.tournament.store import Store

    db = tmp_path / "a.db"
    spec = _league(tmp_path, db, budget={"games": 10})
    record = Store.record_games
    kept: list[int] = []  # the games stored when the disk filled

    def filling(self: Store, tournament_id: int,
                games: list[tuple[dict[str, Any], bytes]]) -> list[bool]:
        done = self.count_games(tournament_id)
        if not kept and done + len(games) > 5:  # the disk fills in the middle of a deal
            kept.append(done)
            pages = self.conn.execute("PRAGMA page_count").fetchone()[0]
            self.conn.execute(f"PRAGMA max_page_count = {pages}")
        return record(self, tournament_id, [(row, data + bytes(8192)) for row, data in games])

    monkeypatch.setattr(Store, "record_games", filling)
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(spec), 1, vetter=lambda bot, scope: None)
    assert str(info.value) == (f"cannot write to {db}: database or disk is full; nothing "
                               "half-written is kept: free some space and try again (a run "
                               "resumes where it stopped)")
    conn = sqlite3.connect(str(db))
    assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == kept[0]
    assert conn.execute("SELECT COUNT(*) FROM records").fetchone()[0] == kept[0]
    conn.close()
    monkeypatch.setattr(Store, "record_games", record)
    resumed = run_tournament(load_spec(spec), 1, vetter=lambda bot, scope: None)
    assert (resumed.games_before, resumed.games_done) == (kept[0], 10)


def test_arena_submit_into_a_running_league_then_arena_league_stop(
        tmp_path: Path, registry: Path) -> None:
    """The whole path with real processes: the league runs, a bot is submitted with the CLI
    (checked), the league vets it and it plays; then ``arena league stop``."""
    import time

    from store_polling import wait_for_games
    from tournament_fixtures import arena_run

    db = tmp_path / "live.db"
    spec = _league(tmp_path, db, budget=None)
    process = arena_run(spec, "--workers", "1")
    try:
        assert wait_for_games(db, "ladder", 2, timeout=120) >= 2
        source = tmp_path / "newcomer.py"
        source.write_text((FIXTURES / "last.py").read_text().replace('"last"', '"newcomer"'))
        submitted = runner.invoke(app, ["submit", str(source)])
        assert submitted.exit_code == 0, submitted.output
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any(
                key.startswith("newcomer@") for _, seats in _tables(db) for key in seats):
            time.sleep(0.2)
        stop = runner.invoke(app, ["league", "stop", "ladder", "--db", str(db)])
        assert stop.exit_code == 0, stop.output
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert "state stopped" in out
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)])
    assert "newcomer@" in status.stdout and ": active since table " in status.stdout
    assert any(key.startswith("newcomer@") for _, seats in _tables(db) for key in seats)


def test_fresh_forgets_the_leagues_entries(tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    submitting = _SubmitAt(registry, tmp_path, at=2)
    run_tournament(load_spec(_league(tmp_path, db, budget={"games": 6})), 1,
                   report=submitting, vetter=lambda bot, scope: None)
    before = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert "retired at table" in before
    run_tournament(load_spec(_league(tmp_path, db, budget={"games": 2})), 1, fresh=True,
                   vetter=lambda bot, scope: None)
    after = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert "retired" not in after
    assert after.count(": active since table 1") == 3


def test_tables_chosen_together_do_not_depend_on_the_workers(
        tmp_path: Path, registry: Path) -> None:
    greedy = str(Path(__file__).resolve().parents[2] / "bots" / "greedy.py")
    runs = []
    for workers, db in ((1, tmp_path / "a.db"), (2, tmp_path / "b.db")):
        summary = run_tournament(load_spec(_league(
            tmp_path, db, bots=["*", greedy], tables_at_once=2, budget={"games": 12})),
            workers, vetter=lambda bot, scope: None)
        assert summary.games_done == 12
        runs.append(_tables(db))
    assert runs[0] == runs[1]
    by_number = dict(runs[0])
    for first in range(1, 7, 2):  # a batch of two tables: four different bots
        assert len(set(by_number[first]) | set(by_number[first + 1])) == 4


def test_a_batch_cut_short_is_finished_before_the_next(tmp_path: Path, registry: Path) -> None:
    greedy = str(Path(__file__).resolve().parents[2] / "bots" / "greedy.py")
    reference, db = tmp_path / "ref.db", tmp_path / "cut.db"

    def league(path: Path, games: int) -> Any:
        return load_spec(_league(tmp_path, path, bots=["*", greedy], tables_at_once=2,
                                 budget={"games": games}))

    run_tournament(league(reference, 16), 1, vetter=lambda bot, scope: None)
    run_tournament(league(db, 8), 1, vetter=lambda bot, scope: None)
    conn = sqlite3.connect(str(db))
    with conn:  # killed inside the second batch: a game of each of its tables lost
        for game in ("ladder/r3/t1/g0", "ladder/r4/t0/g0"):
            conn.execute("DELETE FROM records WHERE game_id = ?", (game,))
            conn.execute("DELETE FROM games WHERE id = ?", (game,))
    conn.close()
    resumed = run_tournament(league(db, 16), 2, vetter=lambda bot, scope: None)
    assert (resumed.games_before, resumed.games_done) == (6, 16)
    assert _tables(db) == _tables(reference)


def test_a_look_alike_of_an_entrants_name_is_refused_and_said_once(
        tmp_path: Path, registry: Path) -> None:
    """A name differing from an entrant's only in case (or in letters drawn alike) is not
    entered: the league keeps the entrant, records the newcomer as refused with the reason
    (``arena status``) and says it once among the run's warnings."""
    db = tmp_path / "a.db"
    first = f"first@{_submit(registry, FIXTURES / 'first.py', 'first')}"
    warnings: list[str] = []
    # arena submit refuses it: put there by other means
    twin = _league_meeting_newcomer(tmp_path, db, registry, "First", warnings,
                                    "\n# another author's\n")
    tables = _tables(db)
    assert all(twin not in seats for _, seats in tables)
    assert any(first in seats for _, seats in tables[2:])  # the entrant plays on
    reason = (f"the name First looks like first, the name of {first} (the same letters to "
              "the eye, or but for case); submit it under another name")
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert f"{twin}: refused at table 3: {reason}" in status
    assert f"{first}: active since table 1" in status
    assert [w for w in warnings if "First" in w] == [f"{twin} is refused: {reason}"]


def test_a_stop_nobody_may_ask_for_is_one_line(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Another user, or a read-only mount, may not create the stop file beside the
    database: ``arena league stop`` ended in a PermissionError traceback."""
    import datetime as dt

    from arena.tournament.league_store import stop_path
    from arena.tournament.store import Store

    db = tmp_path / "a.db"
    with Store(db) as store:
        store.create_tournament(
            name="ladder", spec_hash="x", spec_json={}, format="league", players_per_game=2,
            seed=1, event_date=dt.date(2026, 12, 2), rounds=1, games_planned=0,
            spec_path=None, bots=[])

        def refused(path: Path, *args: Any, **kwargs: Any) -> None:
            raise PermissionError(13, "Permission denied", str(path))

        with store.lock("ladder"), monkeypatch.context() as patched:  # a run holds it
            patched.setattr(Path, "touch", refused)
            result = runner.invoke(app, ["league", "stop", "ladder", "--db", str(db)])
    assert result.exit_code == 1
    assert result.stderr == (f"Error: cannot ask league 'ladder' to stop: cannot create "
                             f"{stop_path(db, 'ladder')}: Permission denied (stop it with "
                             "Ctrl-C or kill where it runs)\n")


def test_a_newcomer_passing_for_a_bot_of_an_earlier_tournament_is_refused(
        tmp_path: Path, registry: Path) -> None:
    """'alice' entered by path played an earlier tournament of the database; '\u0251lice' (a
    Latin alpha) submitted while the league ran was entered, as no registered name nor
    entrant looked like it: arena leaderboard --all showed two alices. Refused as arena run
    refuses it."""
    db = tmp_path / "a.db"
    earlier_tournament(db, ["alice"])
    twin = _league_meeting_newcomer(tmp_path, db, registry, "\u0251lice", [])
    assert all(twin not in seats for _, seats in _tables(db))
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert (f"{twin}: refused at table 3: the name \u0251lice ('\\u0251lice') passes for "
            "alice: U+0251 LATIN SMALL LETTER ALPHA (drawn like 'a'), a bot of an earlier "
            f"tournament of {db}: a reader of the results would take one for the other; "
            "submit it under another name") in " ".join(status.split())


def test_a_newcomer_whose_name_breaks_the_rule_of_names_is_refused(
        tmp_path: Path, registry: Path) -> None:
    """A bot put in the bots directory by hand ('Mon bot.py', no submit to refuse its name)
    entered the running league under a name no submit, spec entry or match takes."""
    db = tmp_path / "a.db"
    newcomer = _league_meeting_newcomer(tmp_path, db, registry, "Mon bot", [])
    assert all(newcomer not in seats for _, seats in _tables(db))
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert (f"{newcomer}: refused at table 3: bot name 'Mon bot' is not allowed: use 1-40 "
            "letters, digits, '_', '-' or '.', starting with a letter or digit; submit it "
            "under another name") in " ".join(status.split())


def test_a_newcomer_looking_like_a_bot_of_an_earlier_tournament_in_ascii_is_told(
        tmp_path: Path, registry: Path) -> None:
    """'bot1' submitted while the league ran, after an earlier tournament's 'botl': entered
    (a database may hold both from before), and said once among the run's warnings."""
    db = tmp_path / "a.db"
    earlier_tournament(db, ["botl"])
    warnings: list[str] = []
    newcomer = _league_meeting_newcomer(tmp_path, db, registry, "bot1", warnings)
    assert any(newcomer in seats for _, seats in _tables(db))
    assert [w for w in warnings if "botl" in w] == [
        f"{newcomer} enters: the name bot1 looks like botl, a bot of an earlier tournament "
        f"of {db} (the same letters to the eye, or but for case): arena leaderboard --all "
        "shows both, which a reader may take for one bot"]


def test_a_finished_league_keeps_its_drawn_seed_secret(tmp_path: Path, registry: Path) -> None:
    """A league whose budget is spent is finished, yet run again with a larger budget it goes
    on from the same seed while new versions of its bots may enter: whoever read the seed
    could compute every later deal and submit a bot that knows them. So status, results and
    the site never show a league's drawn seed."""
    db = tmp_path / "s.db"
    spec = _league(tmp_path, db, budget={"games": 4})
    spec.write_text(spec.read_text().replace("seed: 5\n", ""))
    assert run_tournament(load_spec(spec), 1, vetter=lambda bot, scope: None).state == "finished"
    conn = sqlite3.connect(db)
    try:
        seed = conn.execute("SELECT seed FROM tournaments").fetchone()[0]
    finally:
        conn.close()
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)])
    assert "seed drawn, secret while the league may go on" in status.stdout
    assert str(seed) not in status.stdout
    results = runner.invoke(app, ["results", "ladder", "--db", str(db), "--format", "json"])
    assert json.loads(results.stdout)["tournament"]["seed"] is None
    site = tmp_path / "site"
    assert runner.invoke(app, ["report", "ladder", "-o", str(site), "--db", str(db)]).exit_code == 0
    index = (site / "index.html").read_text()
    assert str(seed) not in index and "drawn, secret while the league may go on" in index
