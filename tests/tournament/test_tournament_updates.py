"""A bot its author updates (``arena submit --update``) while a tournament runs: the run
plays on with the version that entered, from the copy the update kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from tournament_fixtures import (  # noqa: F401 - _repo_cwd: an autouse fixture
    FIXTURES,
    PassedCheck,
    _repo_cwd,
    runner,
    signature,
    write_spec,
)

from arena.cli.main import app
from arena.registry import BotSpec, submit
from arena.tournament.events import Progress, RunEvent, RunWarning
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec
from arena.tournament.store import Store

BOT_SEATS = ["mine", "bots/greedy.py", "bots/collector.py", str(FIXTURES / "hashed.py")]


def _register(bots_dir: Path, source: Path, update: bool = False) -> BotSpec:
    return submit(source, "mine", bots_dir, check=lambda spec: PassedCheck(), update=update)


def test_a_bot_updated_between_rounds_plays_on_from_its_kept_copy_with_the_same_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A student's 'arena submit --update' during a class's run stopped the teacher's whole
    tournament at that bot's next table. The run plays the version that entered from the
    copy the update kept, says so once, and deals the games a run without the update deals."""
    bots_dir = tmp_path / "bots"
    monkeypatch.setenv("ARENA_BOTS_DIR", str(bots_dir))
    entered = _register(bots_dir, FIXTURES / "first.py")
    newer = tmp_path / "mine.py"
    newer.write_text((FIXTURES / "last.py").read_text())  # plays otherwise, were it run
    fields = {"format": "swiss", "rounds": 2, "games_per_match": 2, "reuse_bots": False,
              "bots": BOT_SEATS}
    calm = write_spec(tmp_path / "calm.yaml", tmp_path / "calm.db", name="cup", **fields)
    assert run_tournament(load_spec(calm), 1).state == "finished"

    events: list[RunEvent] = []

    def update_between_the_rounds(event: RunEvent) -> None:
        events.append(event)
        if isinstance(event, Progress) and event.title.endswith("round 2/2") and len(
                list(bots_dir.glob(".versions/*"))) == 0:
            _register(bots_dir, newer, update=True)

    spec = write_spec(tmp_path / "cup.yaml", tmp_path / "cup.db", name="cup", **fields)
    summary = run_tournament(load_spec(spec), 1, report=update_between_the_rounds)
    assert summary.state == "finished"
    assert (bots_dir / ".versions" / entered.key).is_dir()  # the update landed mid-run
    said = [e.text for e in events if isinstance(e, RunWarning) and "updated" in e.text]
    line = (f"mine was updated during the run (arena submit --update): {entered.key} plays on "
            f"from its kept copy; 'arena run {spec} --continue' afterwards enters the new "
            "version in the deals not begun")
    assert said == [line]
    # said again at the end, which leaves no deal to enter the new version in
    assert summary.kept_copies == [
        f"mine was updated during the run (arena submit --update): {entered.key} played on "
        "from its kept copy to the tournament's end"]
    assert signature(tmp_path / "cup.db", "cup") == signature(tmp_path / "calm.db", "cup")
    # a teacher who did not watch the run reads it in arena status
    status = runner.invoke(app, ["status", "cup", "--db", str(tmp_path / "cup.db")],
                           terminal_width=400)
    told = [text for text in status.stdout.splitlines() if "kept" in text]
    assert status.exit_code == 0 and len(told) == 1, status.output
    assert told[0].startswith(f"{entered.key} played from the copy arena submit --update "
                              "kept: mine was updated during a run (noticed 20")
    assert "--continue" not in told[0]  # finished: nothing left to enter it in


def test_status_tells_a_stopped_tournament_s_kept_copy_and_how_to_enter_the_new_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's line on a bot updated mid-run scrolled past, and arena status said nothing
    of it: a tournament stopped since tells the kept copy, and '--continue', one line."""
    bots_dir = tmp_path / "bots"
    monkeypatch.setenv("ARENA_BOTS_DIR", str(bots_dir))
    entered = _register(bots_dir, FIXTURES / "first.py")
    newer = tmp_path / "mine.py"
    newer.write_text((FIXTURES / "last.py").read_text())

    def update_then_stop_once_told(event: RunEvent) -> None:
        if isinstance(event, Progress) and event.title.endswith("round 2/2") and not any(
                bots_dir.glob(".versions/*")):
            _register(bots_dir, newer, update=True)
        if isinstance(event, RunWarning) and "updated" in event.text:
            raise KeyboardInterrupt

    spec = write_spec(tmp_path / "cup.yaml", tmp_path / "cup.db", name="cup", format="swiss",
                      rounds=2, games_per_match=2, reuse_bots=False, bots=BOT_SEATS)
    with pytest.raises(KeyboardInterrupt):
        run_tournament(load_spec(spec), 1, report=update_then_stop_once_told)
    status = runner.invoke(app, ["status", "cup", "--db", str(tmp_path / "cup.db")],
                           terminal_width=400)
    told = [text for text in status.stdout.splitlines() if "kept" in text]
    assert status.exit_code == 0 and len(told) == 1, status.output
    assert told[0].startswith(f"{entered.key} plays from the copy arena submit --update kept: "
                              "mine was updated during a run (noticed 20")
    assert told[0].endswith(f"; 'arena run {spec} --continue --db {tmp_path / 'cup.db'}' "
                            "enters the new version in the deals not begun")
    # deleted with its tournament: a later one given its id would tell it as its own
    deleted = runner.invoke(app, ["delete", "cup", "--db", str(tmp_path / "cup.db"), "--yes"])
    assert deleted.exit_code == 0, deleted.output
    with Store(tmp_path / "cup.db", create=False, read_only=True) as store:
        assert store.conn.execute("SELECT COUNT(*) FROM kept_copies").fetchone()[0] == 0


def test_a_run_stopped_after_an_update_resumes_with_the_version_that_entered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C after a student's update, then 'arena run SPEC' again: the spec's name now
    resolves to the new version, and the resumed run was refused as a changed spec. It plays
    on from the kept copy, says so, and deals the games a run without the update deals."""
    bots_dir = tmp_path / "bots"
    monkeypatch.setenv("ARENA_BOTS_DIR", str(bots_dir))
    entered = _register(bots_dir, FIXTURES / "first.py")
    newer = tmp_path / "mine.py"
    newer.write_text((FIXTURES / "last.py").read_text())
    fields = {"format": "swiss", "rounds": 2, "games_per_match": 2, "bots": BOT_SEATS}
    calm = write_spec(tmp_path / "calm.yaml", tmp_path / "calm.db", name="cup", **fields)
    assert run_tournament(load_spec(calm), 1).state == "finished"

    def update_then_stop(event: RunEvent) -> None:
        if isinstance(event, Progress) and event.title.endswith("round 2/2"):
            _register(bots_dir, newer, update=True)
            raise KeyboardInterrupt

    spec = write_spec(tmp_path / "cup.yaml", tmp_path / "cup.db", name="cup", **fields)
    with pytest.raises(KeyboardInterrupt):
        run_tournament(load_spec(spec), 1, report=update_then_stop)
    # the update landed before this run: "during the run" would be untrue
    line = (f"mine was updated since the tournament began, before this run (arena submit "
            f"--update): {entered.key} plays on "
            f"from its kept copy; 'arena run {spec} --continue' afterwards enters the new "
            "version in the deals not begun")
    # the check starts the version the run would play, and says so as the run would
    checked = runner.invoke(app, ["run", str(spec), "--check", "--workers", "1"],
                            terminal_width=400)
    assert checked.exit_code == 0, checked.output
    assert [text for text in checked.stdout.splitlines() if "updated" in text] == [
        f"warning: {line}"]
    assert f"  ok    {entered.key}" in checked.stdout.splitlines()
    resumed = runner.invoke(app, ["run", str(spec), "--workers", "1", "--no-progress"],
                            terminal_width=400)
    assert resumed.exit_code == 0, resumed.output
    assert [text for text in resumed.stderr.splitlines() if "updated" in text] == [
        f"warning: {line}"]
    closing = resumed.stdout.splitlines()
    summary = next(i for i, text in enumerate(closing) if " games recorded (" in text)
    assert closing[summary + 1] == (
        "mine was updated since the tournament began, before this run (arena submit "
        f"--update): {entered.key} played on from its kept copy to the tournament's end")
    assert "state finished" in closing[summary]
    assert signature(tmp_path / "cup.db", "cup") == signature(tmp_path / "calm.db", "cup")
    status = runner.invoke(app, ["status", "cup", "--db", str(tmp_path / "cup.db")],
                           terminal_width=400)
    assert [text.split(" (noticed")[0] for text in status.stdout.splitlines()
            if "kept" in text] == [f"{entered.key} played from the copy arena submit --update "
                                   "kept: mine was updated before a run resumed the tournament"]
