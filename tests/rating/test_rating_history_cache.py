"""The stored rating history as a cache: reused where it holds, bit for bit the same ratings as
rating every game afresh, and never reused under other settings or rules."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest
import trueskill
from hypothesis import given, settings
from hypothesis import strategies as st
from rating_store_builder import BOT_NAMES, GameSpec, StoreBuilder, build_store
from typer.testing import CliRunner

from arena.cli.main import app
from arena.rating import rate_tournament
from arena.rating.board_view import leaderboard_json
from arena.rating.games import BotVersion, StoredGame, connect, find_tournament, load_games
from arena.rating.h2h import build_h2h, h2h_json
from arena.rating.leaderboard import build_leaderboard
from arena.rating.trueskill_rating import (
    RatingMemo,
    RatingRun,
    RatingSettings,
    rate_games,
    rate_tournament_run,
    steps_of,
)
from arena.tournament.store import Store
from arena.web.data import load_tournament
from arena.web.server import make_server


def exact(run: RatingRun) -> tuple[object, ...]:
    """Everything a rating run says, as exact values (pi and tau, not just mu and sigma)."""
    return (
        [(key, r.pi, r.tau) for key, r in run.ratings.items()],
        [(s.game_id, s.bot.key, s.before.pi, s.before.tau, s.after.pi, s.after.tau)
         for s in run.history],
    )


BOTS = [BotVersion(name, "v1", i + 1) for i, name in enumerate(BOT_NAMES)]


def games_of(raw: list[tuple[list[int], list[int]]]) -> list[StoredGame]:
    """Games in rating order: one table a round, seats and placements as drawn."""
    return [StoredGame(id=f"t/r{n}/t0/g0", tournament_id=1, tournament="t", round=n,
                       table_index=0, game_index=0, seed=n,
                       seats=tuple(BOTS[i] for i in seats), placements=tuple(places))
            for n, (seats, places) in enumerate(raw)]


_GAME = st.integers(2, 4).flatmap(lambda k: st.tuples(
    st.lists(st.integers(0, len(BOTS) - 1), min_size=k, max_size=k),
    st.lists(st.integers(1, k), min_size=k, max_size=k)))


@settings(max_examples=60, deadline=None)
@given(raw=st.lists(_GAME, min_size=1, max_size=30), stored_seed=st.integers(0, 2**32))
def test_any_stored_part_gives_the_ratings_of_rating_every_game_afresh(
        raw: list[tuple[list[int], list[int]]], stored_seed: int) -> None:
    """Tables finish in any order: the history stored at some moment covers any subset of the
    games (self-play, ties and byes included); rating all of them then equals a fresh run."""
    games = games_of(raw)
    rng = random.Random(stored_seed)
    then = [g for g in games if rng.random() < 0.6]
    fresh = rate_games(games, entrants=BOTS)
    reused = rate_games(games, entrants=BOTS, known=steps_of(rate_games(then, entrants=BOTS)))
    assert exact(reused) == exact(fresh)
    assert reused.computed <= fresh.computed


@settings(max_examples=40, deadline=None)
@given(raw=st.lists(_GAME, min_size=1, max_size=30), cut=st.integers(0, 30))
def test_a_stored_prefix_is_taken_whole_and_only_the_rest_is_rated(
        raw: list[tuple[list[int], list[int]]], cut: int) -> None:
    games = games_of(raw)
    head = rate_games(games[:cut], entrants=BOTS)
    run = rate_games(games, entrants=BOTS, known=steps_of(head))
    assert run.computed == rate_games(games, entrants=BOTS).computed - head.computed
    assert exact(run) == exact(rate_games(games, entrants=BOTS))


def test_a_stored_step_whose_bots_rated_differently_before_is_rated_afresh() -> None:
    """A game recorded late at an earlier place of the order moves its bots' ratings: their
    later stored steps no longer hold; the other bots' still do."""
    a, b, c, d, e = BOTS[:5]

    def played(rnd: int, seats: tuple[BotVersion, ...], places: tuple[int, ...]) -> StoredGame:
        return StoredGame(f"t/r{rnd}/t0/g0", 1, "t", rnd, 0, 0, rnd, seats, places)

    late = played(0, (a, b), (1, 2))
    on_time = [played(1, (c, d), (1, 2)), played(2, (a, c), (2, 1)), played(3, (d, e), (1, 1)),
               played(4, (b, e), (2, 1))]
    run = rate_games([late, *on_time], known=steps_of(rate_games(on_time)))
    assert exact(run) == exact(rate_games([late, *on_time]))
    assert run.computed == 3  # the late game, a-c (a moved) and b-e (b moved); c-d, d-e kept


def _store(tmp_path: Path, **kwargs: object) -> Path:
    path = tmp_path / "a.db"
    build_store(path, players=3, rounds=6, **kwargs).close()  # type: ignore[arg-type]
    return path


def test_a_written_history_is_reused_whole(tmp_path: Path) -> None:
    path = _store(tmp_path, games_order_seed=5)
    written = rate_tournament_run(path, "cup")
    again = rate_tournament_run(path, "cup", write=False)
    assert written.computed > 0 and again.computed == 0
    assert exact(again) == exact(written)
    with connect(path) as conn:
        info = find_tournament(conn, "cup", path)
        fresh = rate_games(load_games(conn, info.id), RatingSettings())
    assert exact(again)[1] == exact(fresh)[1]


def test_a_history_under_other_settings_or_rules_is_not_reused(tmp_path: Path) -> None:
    path = _store(tmp_path)
    rate_tournament(path, "cup")
    with sqlite3.connect(path) as conn:
        spec = json.loads(conn.execute("SELECT spec_json FROM tournaments").fetchone()[0])
        spec["rating"] = {"mu": 30.0}
        conn.execute("UPDATE tournaments SET spec_json = ?", (json.dumps(spec),))
    other = rate_tournament_run(path, "cup", write=False)
    assert other.computed == len({s.game_id for s in other.history}) > 0
    assert other.settings.mu == 30.0
    rate_tournament(path, "cup")  # stamped with the new settings now
    assert rate_tournament_run(path, "cup", write=False).computed == 0
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE rating_stamps SET rules = 'arena rules 0, trueskill 0.1'")
    assert rate_tournament_run(path, "cup", write=False).computed == other.computed


def test_a_database_from_before_the_cache_is_rated_then_upgraded(tmp_path: Path) -> None:
    path = _store(tmp_path)
    fresh = rate_tournament_run(path, "cup", write=False)
    with sqlite3.connect(path) as conn:  # the tables as an earlier version wrote them
        conn.executescript(
            "DROP TABLE rating_history; DROP TABLE rating_stamps; "
            "CREATE TABLE rating_history(tournament_id INTEGER, game_id TEXT, bot_id INTEGER, "
            "mu_before REAL, sigma_before REAL, mu_after REAL, sigma_after REAL, "
            "PRIMARY KEY (tournament_id, game_id, bot_id)); "
            "INSERT INTO rating_history VALUES (1, 'cup/r0/t0/g0', 1, 25, 8.3, 26, 8.0);")
    board = build_leaderboard(path, "cup")
    assert {r.key: (r.mu, r.sigma) for r in board.rows} == {
        k: (float(r.mu), float(r.sigma)) for k, r in fresh.ratings.items()}
    assert rate_tournament_run(path, "cup").computed == fresh.computed  # and now stored
    assert rate_tournament_run(path, "cup", write=False).computed == 0


def test_deleting_a_tournament_drops_its_stamp(tmp_path: Path) -> None:
    path = _store(tmp_path)
    rate_tournament(path, "cup")
    with Store(path) as store:
        row = store.require("cup")
        store.delete_tournament(row.id)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM rating_stamps").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM rating_history").fetchone()[0] == 0


def _count_rates(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    original = trueskill.TrueSkill.rate

    def counted(self: trueskill.TrueSkill, *args: object, **kwargs: object) -> object:
        calls[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(trueskill.TrueSkill, "rate", counted)
    return calls


def test_the_site_rates_a_tournament_once_and_not_at_all_once_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _store(tmp_path, fmt="swiss")
    rated = rate_tournament_run(path, "cup", write=False).computed
    calls = _count_rates(monkeypatch)
    before = load_tournament(path, "cup")
    assert calls[0] == rated  # the leaderboard, the rating history and h2h share one rating
    rate_tournament(path, "cup")
    calls[0] = 0
    after = load_tournament(path, "cup")
    assert calls[0] == 0
    assert after.leaderboard == before.leaderboard and after.history == before.history
    assert after.h2h == before.h2h == h2h_json(build_h2h(path, "cup"))  # as arena h2h
    assert after.leaderboard == leaderboard_json(build_leaderboard(path, "cup"))


def test_a_running_tournaments_leaderboard_rates_only_the_games_since_its_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b = StoreBuilder(tmp_path / "a.db")
    tid, ids = b.tournament("cup", ["alpha", "bravo", "charlie"], state="running")
    for g in range(4):
        b.game(GameSpec(tid, 0, 0, g, ids[:2], [1, 2] if g % 2 else [2, 1]))
    rate_tournament(tmp_path / "a.db", "cup")
    b.game(GameSpec(tid, 1, 0, 0, ids[1:], [1, 2]))
    b.close()
    calls = _count_rates(monkeypatch)
    board = build_leaderboard(tmp_path / "a.db", "cup")
    assert calls[0] == 1 and board.rated == 5


# --- a long-lived reader's memo ---------------------------------------------------------------

def test_a_readers_memo_rates_only_the_games_that_landed_since(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``arena leaderboard --watch`` and ``arena serve`` read a running tournament again and
    again; nothing is stored until it ends."""
    b = StoreBuilder(tmp_path / "a.db")
    tid, ids = b.tournament("cup", ["alpha", "bravo", "charlie"], state="running")
    for g in range(3):
        b.game(GameSpec(tid, 0, 0, g, ids[:2], [1, 2] if g % 2 else [2, 1]))
    memo = RatingMemo()
    calls = _count_rates(monkeypatch)
    build_leaderboard(tmp_path / "a.db", "cup", memo=memo)
    assert calls[0] == 3
    b.game(GameSpec(tid, 1, 0, 0, ids[1:], [1, 2]))  # lands at the end of the order
    b.game(GameSpec(tid, 0, 1, 0, [ids[2], ids[0]], [2, 1]))  # late, before it: moves it
    b.close()
    calls[0] = 0
    board = build_leaderboard(tmp_path / "a.db", "cup", memo=memo)
    assert calls[0] == 2  # the two new games; the first three were kept
    assert board.rated == 5
    fresh = build_leaderboard(tmp_path / "a.db", "cup")
    assert [(r.key, r.mu, r.sigma) for r in board.rows] == [
        (r.key, r.mu, r.sigma) for r in fresh.rows]


def test_a_memo_offers_nothing_for_a_tournament_played_again_under_its_name(
        tmp_path: Path) -> None:
    """Dropped and played again (``--fresh``), a tournament may get the same id and game ids
    with other results: the memo's steps are for games that no longer read the same."""
    path = tmp_path / "a.db"
    b = StoreBuilder(path)
    tid, ids = b.tournament("cup", ["alpha", "bravo"])
    for g in range(4):
        b.game(GameSpec(tid, 0, 0, g, ids, [1, 2]))
    b.close()
    memo = RatingMemo()
    build_leaderboard(path, "cup", memo=memo)
    with Store(path) as store:
        store.delete_tournament(tid)
    b = StoreBuilder(path)
    again, ids = b.tournament("cup", ["alpha", "bravo"])
    assert again == tid
    for g in range(4):
        b.game(GameSpec(again, 0, 0, g, ids, [2, 1]))  # the other bot wins now
    b.close()
    with connect(path) as conn:
        info = find_tournament(conn, "cup", path)
        games = load_games(conn, info.id)
        assert memo.offer(info.id, RatingSettings(), games) == {}
    board = build_leaderboard(path, "cup", memo=memo)
    assert board.rows[0].bot == "bravo"


def test_the_server_reloads_a_running_tournament_rating_only_the_new_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b = StoreBuilder(tmp_path / "a.db")
    tid, ids = b.tournament("cup", ["alpha", "bravo", "charlie"], state="running")
    for g in range(4):
        b.game(GameSpec(tid, 0, 0, g, ids[:2], [1, 2]))
    server = make_server(tmp_path / "a.db", port=0)
    try:
        calls = _count_rates(monkeypatch)
        assert server.tournament("cup").done == 4 and calls[0] == 4
        b.game(GameSpec(tid, 1, 0, 0, ids[1:], [2, 1]))
        b.close()
        calls[0] = 0
        assert server.tournament("cup").done == 5 and calls[0] == 1
    finally:
        server.server_close()


def test_watching_a_leaderboard_rates_each_game_once_across_frames(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _store(tmp_path)
    rated = rate_tournament_run(path, "cup", write=False).computed
    calls = _count_rates(monkeypatch)
    result = CliRunner().invoke(app, ["leaderboard", "cup", "--db", str(path), "--watch",
                                      "--every", "0.1", "--refreshes", "3"])
    assert result.exit_code == 0, result.output
    assert result.output.count("Leaderboard: cup") == 3
    assert calls[0] == rated  # the first frame rates them; the next two rate nothing


def test_a_history_the_database_refuses_is_a_warning_not_the_end_of_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """The disk filled as ``arena run`` stored the rating history of its finished games: the
    run ended with 'Error: ... database or disk is full', no summary and no board."""
    import arena.rating.leaderboard

    path = tmp_path / "a.db"
    build_store(path).close()
    expected = leaderboard_json(build_leaderboard(path, "cup"))

    def full_disk(conn: sqlite3.Connection, *args: object) -> None:
        conn.execute("BEGIN IMMEDIATE")  # refused at its commit
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(arena.rating.leaderboard, "write_history", full_disk)
    board = build_leaderboard(path, "cup", store_ratings=True)
    assert leaderboard_json(board) == expected
    assert [r.getMessage() for r in caplog.records] == [
        f"the rating history was not stored in {path} (database or disk is full); the "
        "leaderboard is computed from the stored games all the same"]
