"""Shared by the tournament tests: the bots and specs they run, a real ``arena run`` process,
its children, and what must not depend on how a tournament was played."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "bots"
BOTS = ["greedy", "collector", str(FIXTURES / "hashed.py"), str(FIXTURES / "last.py"),
        str(FIXTURES / "first.py")]
LIMITS = {"decision_ms": 3000, "time_bank_ms": 30000, "startup_ms": 30000}
runner = CliRunner()


def write_spec(path: Path, db: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {
        "name": "swiss-e2e", "format": "swiss", "bots": BOTS, "players_per_game": 2,
        "rounds": 3, "games_per_match": 3, "seed": 11, "event_date": "2026-11-29",
        "limits": LIMITS, "results": str(db),
    }
    data.update(fields)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def league_spec(tmp_path: Path, db: Path, games: int, **fields: Any) -> Path:
    """``tmp_path/ladder.yaml``: a league named ladder of every registered bot (``*``), one
    duplicate game a table, seed 5, a budget of ``games`` games; ``fields`` change any."""
    data: dict[str, Any] = {"name": "ladder", "format": "league", "bots": ["*"],
                            "games_per_match": 1, "duplicate": True, "seed": 5,
                            "budget": {"games": games}}
    data.update(fields)
    path = write_spec(tmp_path / "ladder.yaml", db, **data)
    path.write_text(path.read_text().replace("rounds: 3\n", ""))
    return path


def earlier_tournament(db: Path, names: list[str], name: str = "first") -> None:
    """A tournament ``name`` stored before the one under test, its bots named ``names``."""
    import datetime as dt

    from arena.tournament.store import Store

    with Store(db) as store:
        store.create_tournament(
            name=name, spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=1, spec_path=None,
            bots=[(bot, f"{i + 1:x}a2b3c4d5e6f", f"/{i}", {}) for i, bot in enumerate(names)])


def two_bots_games(db: Path, games: list[tuple[list[int], list[dict[str, Any]],
                                                dict[str, str]]]) -> None:
    """A round robin 't' of bots a and b (``a@v1``, ``b@v1``) whose table 0 stored ``games``:
    each its placements, failures and forfeits, the rest alike."""
    import datetime as dt

    from arena.tournament.game_records import compress_record
    from arena.tournament.store import Store

    with Store(db) as store:
        row = store.create_tournament(
            name="t", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=len(games), spec_path=None,
            bots=[("a", "v1", "bots/a.py", {}), ("b", "v1", "bots/b.py", {})])
        for index, (placements, failures, forfeits) in enumerate(games):
            store.record_game(row.id, {
                "id": f"t/r1/t0/g{index}", "round": 1, "table_index": 0, "game_index": index,
                "seed": 5, "seats": [1, 2], "starting_seat": 0, "placements": placements,
                "desmos": ["Pair", "Pair"], "ascension": False, "tiebreak": "",
                "failures": failures, "forfeits": forfeits, "decisions": 31,
                "duration_s": 0.01, "latency": [{}, {}]}, compress_record({}))


def signature(db: Path, name: str) -> dict[str, Any]:
    """Everything that must not depend on workers or interruptions (ids mapped to keys)."""
    conn = sqlite3.connect(str(db))
    try:
        keys = {r[0]: f"{r[1]}@{r[2]}" for r in conn.execute("SELECT id, name, version FROM bots")}
        tid = conn.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()[0]
        games = [
            (r[0], [keys[b] for b in json.loads(r[1])], json.loads(r[2]), r[3], r[4], r[5],
             json.loads(r[6]))
            for r in conn.execute(
                "SELECT id, seats_json, placements_json, starting_seat, seed, decisions, "
                "desmos_json FROM games WHERE tournament_id = ? "
                "ORDER BY round, table_index, game_index", (tid,))]
        tables = [(r[0], r[1], [keys[b] for b in json.loads(r[2])], r[3]) for r in conn.execute(
            "SELECT round, table_index, seats_json, seed FROM tables WHERE tournament_id = ? "
            "ORDER BY round, table_index", (tid,))]
        byes = [(r[0], keys[r[1]]) for r in conn.execute(
            "SELECT round, bot_id FROM byes WHERE tournament_id = ? ORDER BY round, bot_id",
            (tid,))]
        records = conn.execute("SELECT COUNT(*) FROM records WHERE tournament_id = ?",
                               (tid,)).fetchone()[0]
        distinct = conn.execute("SELECT COUNT(DISTINCT id) FROM games WHERE tournament_id = ?",
                                (tid,)).fetchone()[0]
    finally:
        conn.close()
    assert records == len(games) == distinct
    return {"games": games, "tables": tables, "byes": byes}


def _terminal_sigint() -> None:
    """SIGINT as in a terminal, whatever the test run inherited: a job started in the
    background (``cmd &`` in a script, as CI runners may) ignores it, and a Python started
    that way keeps ignoring it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def arena_run(spec: Path, *extra: str) -> subprocess.Popen[str]:
    """A real ``arena run`` process (``python -m arena.cli.main``) in its own session."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "run", str(spec), "--no-progress", *extra],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=_terminal_sigint)


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.update(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_gone(pids: set[int], timeout: float = 30.0) -> set[int]:
    deadline = time.monotonic() + timeout
    left = set(pids)
    while left and time.monotonic() < deadline:
        left = {p for p in left if alive(p)}
        time.sleep(0.1)
    return left


@pytest.fixture(autouse=True)
def _repo_cwd() -> Any:
    """Run from the checkout, whose bots/ the specs name (import it into a test module)."""
    old = Path.cwd()
    os.chdir(REPO)
    yield None
    os.chdir(old)


class PassedCheck:
    """A compliance report that passes: the tests register bots without running them."""

    ok = True

    def failures(self) -> list[str]:
        return []


def bots_dir_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *names: str) -> Path:
    """A bots directory every command uses (``ARENA_BOTS_DIR``, the working directory beside
    it) with the fixture bots ``names`` registered under their names."""
    from arena.registry import submit

    bots_dir = tmp_path / "bots"
    bots_dir.mkdir()
    monkeypatch.setenv("ARENA_BOTS_DIR", str(bots_dir))
    monkeypatch.chdir(tmp_path)
    for name in names:
        submit(FIXTURES / f"{name}.py", name, bots_dir, check=lambda spec: PassedCheck())
    return bots_dir

