"""``arena bots prune``: the versions ``submit --update`` kept, whose bot is no longer
registered."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml
from typer.testing import CliRunner

from arena.cli.main import app
from arena.registry import BotSpec, kept_versions, resolve, submit
from arena.tournament.store import Store, TableRow, stored_bot_id

SAMPLES = Path(__file__).resolve().parents[2] / "bots"

runner = CliRunner()


def _passing(spec: BotSpec) -> Any:
    return SimpleNamespace(ok=True, failures=lambda: [])


def _updated_twice(root: Path, name: str, bots: Path) -> list[str]:
    """Register ``name`` three times over (two versions kept); the kept versions."""
    for author in ("ann", "bob", "cy"):
        source = root / f"{name}-{author}"
        source.mkdir()
        shutil.copy(SAMPLES / "random.py", source / "bot.py")
        (source / "bot.yaml").write_text(f"name: {name}\nmodule: bot.py\nauthor: {author}\n")
        submit(source, bots_dir=bots, check=_passing, update=True)
    return list(kept_versions(name, bots))


def _forget(bots: Path, name: str) -> None:
    """A hand's edit: the entry and the files of ``name`` gone, its kept versions left."""
    file = bots / "registry.yaml"
    entries = yaml.safe_load(file.read_text())
    del entries["bots"][name]
    file.write_text(yaml.safe_dump(entries))
    shutil.rmtree(bots / name)


def _running(db: Path, bot: BotSpec) -> None:
    with Store(db) as store:
        store.create_tournament(
            name="swiss", spec_hash="abc", spec_json={}, format="swiss", players_per_game=2,
            seed=1, event_date=dt.date(2026, 11, 29), rounds=1, games_planned=2,
            spec_path="spec.yaml", bots=[(bot.name, bot.version, str(bot.path), {})])


def test_prune_removes_the_kept_versions_of_a_bot_no_longer_registered(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    gone = _updated_twice(tmp_path, "gone", bots)
    kept = _updated_twice(tmp_path, "kept", bots)
    _forget(bots, "gone")
    env = {"ARENA_BOTS_DIR": str(bots), "COLUMNS": "300"}
    db = tmp_path / "none.db"
    dry = runner.invoke(app, ["bots", "prune", "--dry-run", "--db", str(db)], env=env)
    assert dry.exit_code == 0, dry.output
    versions = bots / ".versions"
    assert dry.stdout == "".join(f"would remove gone@{v} ({versions / f'gone@{v}'})\n"
                                 for v in gone) + (
        f"Would remove 2 kept versions whose bot is no longer registered in {versions}; "
        f"stored tournaments counted: none in {db} (no such file).\n")
    assert sorted(p.name for p in versions.iterdir()) == sorted(
        [f"gone@{v}" for v in gone] + [f"kept@{v}" for v in kept])
    done = runner.invoke(app, ["bots", "prune", "--db", str(db)], env=env)
    assert done.stdout.startswith(f"removed gone@{gone[0]} "), done.output
    assert sorted(p.name for p in versions.iterdir()) == [f"kept@{v}" for v in kept]
    again = runner.invoke(app, ["bots", "prune", "--db", str(db)], env=env)
    assert again.stdout == (f"No kept version to remove: each is a registered bot's or a "
                            f"stored tournament's in {versions}; stored tournaments counted: "
                            f"none in {db} (no such file).\n")


def test_a_kept_version_a_tournament_may_still_start_is_left(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    gone = _updated_twice(tmp_path, "gone", bots)
    db = tmp_path / "arena.db"
    _running(db, resolve(f"gone@{gone[1]}", bots))
    _forget(bots, "gone")
    env = {"ARENA_BOTS_DIR": str(bots), "ARENA_DB": str(db), "COLUMNS": "300"}
    done = runner.invoke(app, ["bots", "prune"], env=env)
    assert done.exit_code == 0, done.output
    versions = bots / ".versions"
    assert done.stdout == (
        f"kept gone@{gone[1]}: tournament 'swiss' in {db} may still start it (not finished, "
        f"or a league)\nremoved gone@{gone[0]} ({versions / f'gone@{gone[0]}'})\n"
        f"Removed 1 kept version whose bot is no longer registered in {versions}; stored "
        f"tournaments counted: those of {db}.\n")
    assert [p.name for p in versions.iterdir()] == [f"gone@{gone[1]}"]
    assert resolve(f"gone@{gone[1]}", bots).version == gone[1]  # the tournament resumes


def test_a_database_that_cannot_be_read_prunes_nothing(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    _updated_twice(tmp_path, "gone", bots)
    _forget(bots, "gone")
    db = tmp_path / "arena.db"
    db.write_text("not a database")
    done = runner.invoke(app, ["bots", "prune", "--db", str(db)],
                         env={"ARENA_BOTS_DIR": str(bots)})
    assert done.exit_code == 1 and done.stderr.startswith("Error: ")
    assert done.stderr.endswith("; nothing was pruned (its tournaments may need a kept "
                                "version)\n"), done.stderr
    assert len(list((bots / ".versions").iterdir())) == 2


def test_a_finished_tournament_keeps_no_version(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    gone = _updated_twice(tmp_path, "gone", bots)
    db = tmp_path / "arena.db"
    _running(db, resolve(f"gone@{gone[1]}", bots))
    with Store(db) as store:
        row = store.tournament("swiss")
        assert row is not None
        store.set_state(row.id, "finished")
    _forget(bots, "gone")
    done = runner.invoke(app, ["bots", "prune", "--db", str(db)],
                         env={"ARENA_BOTS_DIR": str(bots), "COLUMNS": "300"})
    assert done.exit_code == 0 and done.stdout.splitlines()[-1] == (
        f"Removed 2 kept versions whose bot is no longer registered in {bots / '.versions'}; "
        f"stored tournaments counted: those of {db}.")
    assert list((bots / ".versions").iterdir()) == []


def test_a_versions_directory_that_is_a_link_prunes_nothing(tmp_path: Path) -> None:
    """A bots directory unpacked or written by another may hold '.versions' as a link to
    anywhere: what lies there is not the bots directory's to remove."""
    bots, elsewhere = tmp_path / "bots", tmp_path / "elsewhere"
    (elsewhere / "notes@2026").mkdir(parents=True)
    (elsewhere / "notes@2026" / "todo.txt").write_text("keep me")
    bots.mkdir()
    (bots / ".versions").symlink_to(elsewhere)
    done = runner.invoke(app, ["bots", "prune", "--db", str(tmp_path / "none.db")],
                         env={"ARENA_BOTS_DIR": str(bots), "COLUMNS": "300"})
    assert done.exit_code == 1 and done.stderr.startswith("Error: "), done.output
    assert f"{bots / '.versions'} is a symbolic link" in done.stderr
    assert (elsewhere / "notes@2026" / "todo.txt").read_text() == "keep me"


def test_a_version_a_tournament_entered_under_another_name_is_left(tmp_path: Path) -> None:
    """An entry {bot: gone, name: mine} stores the version under 'mine', at the path the bot
    was registered at then: the version it began with is still that tournament's."""
    bots = tmp_path / "bots"
    gone = _updated_twice(tmp_path, "gone", bots)
    db = tmp_path / "arena.db"
    began = resolve(f"gone@{gone[1]}", bots)
    with Store(db) as store:
        store.create_tournament(
            name="swiss", spec_hash="abc", spec_json={}, format="swiss", players_per_game=2,
            seed=1, event_date=dt.date(2026, 11, 29), rounds=1, games_planned=2,
            spec_path="spec.yaml", bots=[("mine", began.version, str(bots / "gone"), {})])
    _forget(bots, "gone")
    done = runner.invoke(app, ["bots", "prune", "--db", str(db)],
                         env={"ARENA_BOTS_DIR": str(bots), "COLUMNS": "300"})
    assert done.exit_code == 0, done.output
    assert [p.name for p in (bots / ".versions").iterdir()] == [f"gone@{gone[1]}"]


def test_prune_as_json_lists_what_it_removes_and_keeps(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    gone = _updated_twice(tmp_path, "gone", bots)
    db, none = tmp_path / "arena.db", tmp_path / "none.db"
    _running(db, resolve(f"gone@{gone[1]}", bots))
    _forget(bots, "gone")
    versions = bots / ".versions"
    expected = {
        "versions_dir": str(versions), "dry_run": True,
        "removed": [{"bot": f"gone@{gone[0]}", "path": str(versions / f"gone@{gone[0]}")}],
        "kept": [{"bot": f"gone@{gone[1]}", "path": str(versions / f"gone@{gone[1]}"),
                  "tournament": "swiss", "db": str(db)}],
        "databases": [{"path": str(db), "exists": True}, {"path": str(none), "exists": False}]}
    args = ["bots", "prune", "--db", str(db), "--db", str(none), "--format", "json"]
    dry = runner.invoke(app, [*args, "--dry-run"], env={"ARENA_BOTS_DIR": str(bots)})
    assert dry.exit_code == 0, dry.output
    assert dry.stdout == json.dumps(expected, indent=2) + "\n"
    assert len(list(versions.iterdir())) == 2
    done = runner.invoke(app, args, env={"ARENA_BOTS_DIR": str(bots)})
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) == {**expected, "dry_run": False}
    assert [p.name for p in versions.iterdir()] == [f"gone@{gone[1]}"]
    again = runner.invoke(app, args, env={"ARENA_BOTS_DIR": str(bots)})
    assert json.loads(again.stdout)["removed"] == []


def test_a_finished_league_and_a_deal_an_earlier_version_began_keep_their_versions(
        tmp_path: Path) -> None:
    """A league runs on after it finishes (a new budget); an entry's earlier version finishes
    the deal it began before --continue entered the new one: either starts its version
    again."""
    bots = tmp_path / "bots"
    gone = [resolve(f"gone@{v}", bots) for v in _updated_twice(tmp_path, "gone", bots)]
    db = tmp_path / "arena.db"
    with Store(db) as store:
        def made(name: str, format: str, bot: BotSpec) -> int:
            return store.create_tournament(
                name=name, spec_hash="abc", spec_json={}, format=format, players_per_game=2,
                seed=1, event_date=dt.date(2026, 11, 29), rounds=1, games_planned=2,
                spec_path=None, bots=[(bot.name, bot.version, str(bot.path), {})]).id

        store.set_state(made("ladder", "league", gone[1]), "finished")
        cup = made("cup", "swiss", resolve("greedy"))
        earlier = stored_bot_id(store.conn, "gone", gone[0].version, str(gone[0].path), {})
        store.add_tables(cup, [TableRow(1, 0, (earlier, store.entrant_ids(cup)[0]), 5, 0, 2)])
    _forget(bots, "gone")
    done = runner.invoke(app, ["bots", "prune", "--db", str(db)],
                         env={"ARENA_BOTS_DIR": str(bots), "COLUMNS": "300"})
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in (bots / ".versions").iterdir()) == sorted(
        f"gone@{bot.version}" for bot in gone)
