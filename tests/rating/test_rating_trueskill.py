"""TrueSkill over stored games: parameters, ties, forfeits, versions, order, stored history."""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
from pathlib import Path

import pytest
import trueskill
from hypothesis import given, settings
from hypothesis import strategies as st
from rating_store_builder import GameSpec, StoreBuilder, build_store

from arena.errors import StoreError, TournamentNotFoundError
from arena.rating import rate_tournament
from arena.rating.games import BotVersion, StoredGame
from arena.rating.results import render_results
from arena.rating.trueskill_rating import (
    RatingSettings,
    conservative,
    game_entries,
    rate_all,
    rate_games,
    rate_tournament_run,
)

A = BotVersion("alpha", "v1", 1)
B = BotVersion("bravo", "v1", 2)
C = BotVersion("charlie", "v1", 3)
D = BotVersion("delta", "v1", 4)


def game(seats: list[BotVersion], placements: list[int], rnd: int = 0, table: int = 0,
         index: int = 0, tournament_id: int = 1) -> StoredGame:
    return StoredGame(id=f"t/r{rnd}/t{table}/g{index}", tournament_id=tournament_id,
                      tournament="t", round=rnd, table_index=table, game_index=index, seed=0,
                      seats=tuple(seats), placements=tuple(placements))


def snapshot(ratings: dict[str, trueskill.Rating]) -> dict[str, tuple[str, str]]:
    """Exact (repr) values: bit-identical means these compare equal."""
    return {k: (repr(r.mu), repr(r.sigma)) for k, r in sorted(ratings.items())}


# --- parameters -------------------------------------------------------------------------------

def test_default_settings_are_the_library_defaults_without_drift() -> None:
    assert RatingSettings() == RatingSettings.from_mapping(None)
    assert RatingSettings.from_mapping({}) == RatingSettings(
        trueskill.MU, trueskill.SIGMA, trueskill.BETA, 0.0, trueskill.DRAW_PROBABILITY)


def test_missing_settings_follow_the_library_relations() -> None:
    s = RatingSettings.from_mapping({"mu": 1500, "draw_probability": 0.0})
    assert (s.mu, s.sigma, s.beta, s.tau, s.draw_probability) == (
        1500.0, 500.0, 250.0, 0.0, 0.0)
    env = s.env()
    assert (env.mu, env.sigma, env.beta, env.tau, env.draw_probability) == (
        1500.0, 500.0, 250.0, 0.0, 0.0)
    assert RatingSettings.from_mapping({"tau": 0.5}).tau == 0.5  # a spec may still ask for drift


#: The shape of a run of swiss.yaml's three rounds (2-player matches of 300 games; an older
#: version of its bots, kept as a fixed sample): (winner-to-be, opponent, games it won).
_SWISS_SHAPE = [("heuristic", "collector", 178), ("greedy", "random", 290),
                ("collector", "random", 284), ("heuristic", "greedy", 183),
                ("greedy", "collector", 159), ("heuristic", "random", 294)]


def _swiss_games() -> list[tuple[str, str, list[int]]]:
    """The matches of ``_SWISS_SHAPE``, each one's wins spread evenly over its games."""
    return [(x, y, [1, 2] if (g + 1) * won // 300 > g * won // 300 else [2, 1])
            for x, y, won in _SWISS_SHAPE for g in range(300)]


def test_expected_wins_never_widen_a_bots_sigma(tmp_path: Path) -> None:
    """A bot version is a fixed program: by default its skill does not drift (tau = 0), so
    every game can only narrow its sigma. With trueskill's own tau, a last round of expected
    wins widened the leader's sigma, and the conservative sort then put it behind a bot it had
    beaten 61% of the time (swiss.yaml: greedy over heuristic)."""
    games = _swiss_games()
    b = StoreBuilder(tmp_path / "a.db")
    names = ["heuristic", "greedy", "collector", "random"]
    tid, ids = b.tournament("cup", names)
    bot_id = dict(zip(names, ids, strict=True))
    for i, (x, y, places) in enumerate(games):
        b.game(GameSpec(tid, i // 300, 0, i % 300, [bot_id[x], bot_id[y]], places))
    b.close()
    ratings = rate_tournament(tmp_path / "a.db", "cup")
    assert sorted(ratings, key=lambda k: -conservative(ratings[k])) == [
        "heuristic@v1", "greedy@v1", "collector@v1", "random@v1"]

    def leader_sigma(env: trueskill.TrueSkill) -> list[float]:
        r = {name: env.create_rating() for name in names}
        sigmas = []
        for x, y, places in games:
            (r[x],), (r[y],) = env.rate([(r[x],), (r[y],)], ranks=places)
            if x == "heuristic":
                sigmas.append(r[x].sigma)
        return sigmas

    ours = leader_sigma(RatingSettings().env())
    assert all(later <= earlier for earlier, later in zip(ours, ours[1:], strict=False))
    assert ours[-1] == pytest.approx(ratings["heuristic@v1"].sigma)
    drifting = leader_sigma(trueskill.TrueSkill(tau=trueskill.TAU))
    assert drifting[-1] > drifting[-300] > 2 * ours[-1]  # the drift the default no longer adds


@pytest.mark.parametrize("bad", [{"sigma": -1}, {"draw_probability": 1.5}, {"mu": "high"},
                                 {"beta": 0}])
def test_bad_settings_are_a_store_error(bad: dict[str, object]) -> None:
    with pytest.raises(StoreError, match="rating"):
        RatingSettings.from_mapping(bad)


def test_spec_settings_are_used(tmp_path: Path) -> None:
    b = StoreBuilder(tmp_path / "a.db")
    rating = {"mu": 30.0, "sigma": 5.0, "beta": 3.0, "tau": 0.0, "draw_probability": 0.2}
    tid, ids = b.tournament("cup", ["alpha", "bravo"], rating=rating)
    b.game(GameSpec(tid, 0, 0, 0, ids, [1, 2]))
    b.close()
    env = trueskill.TrueSkill(**rating)
    (wa,), (wb,) = env.rate([(env.create_rating(),), (env.create_rating(),)], ranks=[1, 2])
    ratings = rate_tournament(tmp_path / "a.db", "cup")
    assert snapshot(ratings) == snapshot({"alpha@v1": wa, "bravo@v1": wb})


# --- one game ---------------------------------------------------------------------------------

def test_a_game_is_one_free_for_all_update() -> None:
    run = rate_games([game([A, B, C, D], [2, 1, 4, 3])])
    env = trueskill.TrueSkill(tau=0.0)
    expected = env.rate([(env.create_rating(),) for _ in range(4)], ranks=[2, 1, 4, 3])
    assert [run.ratings[x.key] for x in (A, B, C, D)] == [g[0] for g in expected]
    assert run.ratings[B.key].mu > run.ratings[A.key].mu > run.ratings[D.key].mu


def test_ties_are_equal_ranks() -> None:
    run = rate_games([game([A, B, C], [1, 1, 3])])
    env = trueskill.TrueSkill(tau=0.0)
    expected = env.rate([(env.create_rating(),) for _ in range(3)], ranks=[0, 0, 1])
    assert [run.ratings[x.key] for x in (A, B, C)] == [g[0] for g in expected]
    draw = rate_games([game([A, B], [1, 1])])
    assert draw.ratings[A.key].mu == pytest.approx(trueskill.MU)
    assert draw.ratings[A.key].sigma < trueskill.SIGMA  # a draw is information too


def test_a_forfeit_is_rated_as_the_last_place_the_referee_gave() -> None:
    # seat 0 forfeited (placed last by the referee) although it "led" before the forfeit
    forfeited = StoredGame(id="t/r0/t0/g0", tournament_id=1, tournament="t", round=0,
                           table_index=0, game_index=0, seed=0, seats=(A, B, C),
                           placements=(3, 1, 2), forfeits=((0, "crash"),))
    run = rate_games([forfeited])
    assert run.ratings[A.key].mu < run.ratings[C.key].mu < run.ratings[B.key].mu
    assert snapshot(run.ratings) == snapshot(rate_games([game([A, B, C], [3, 1, 2])]).ratings)


def test_a_game_every_seat_forfeited_is_not_rated() -> None:
    """Bots that never started share first place: rated as a draw, it would narrow their
    sigmas and rank them on nothing."""
    nobody = StoredGame(id="t/r0/t0/g0", tournament_id=1, tournament="t", round=0,
                        table_index=0, game_index=0, seed=0, seats=(A, B, C),
                        placements=(1, 1, 1), forfeits=((0, "startup_failure"),
                                                        (1, "startup_failure"), (2, "crash")))
    run = rate_games([nobody])
    prior = trueskill.Rating()
    assert {key: (r.mu, r.sigma) for key, r in run.ratings.items()} == {
        bot.key: (prior.mu, prior.sigma) for bot in (A, B, C)}
    assert run.history == []
    played = dataclasses.replace(nobody, forfeits=((0, "startup_failure"),))
    assert rate_games([played]).history != []


def test_self_play_counts_a_bot_once_at_its_best_place() -> None:
    g = game([A, B, A], [3, 2, 1])
    assert game_entries(g) == [(A, 1), (B, 2)]
    run = rate_games([g])
    assert snapshot(run.ratings) == snapshot(rate_games([game([A, B], [1, 2])]).ratings)
    assert len(run.history) == 2


def test_a_bye_changes_nothing() -> None:
    run = rate_games([game([A], [1])])
    assert run.ratings[A.key] == trueskill.TrueSkill(tau=0.0).create_rating()
    assert run.history == []


def test_versions_are_rated_separately() -> None:
    a2 = BotVersion("alpha", "v2", 9)
    run = rate_games([game([A, B], [1, 2]), game([a2, B], [2, 1], index=1)])
    assert run.ratings["alpha@v1"].mu > trueskill.MU > run.ratings["alpha@v2"].mu
    assert run.history[2].before == trueskill.TrueSkill(tau=0.0).create_rating()  # fresh start


# --- order ------------------------------------------------------------------------------------

def test_games_are_rated_in_id_order_not_input_order() -> None:
    games = [game([A, B], [1, 2], rnd=1), game([A, B], [2, 1], rnd=0, table=1),
             game([B, A], [1, 2], rnd=0, table=0, index=1), game([A, B], [1, 1], rnd=0)]
    expected = rate_games(sorted(games, key=lambda g: g.order_key))
    env = trueskill.TrueSkill(tau=0.0)
    ra, rb = env.create_rating(), env.create_rating()
    for placements in ([1, 1], [2, 1], [2, 1], [1, 2]):  # (r0,t0,g0) (r0,t0,g1) (r0,t1) (r1)
        (ra,), (rb,) = env.rate([(ra,), (rb,)], ranks=placements)
    assert snapshot(expected.ratings) == snapshot({"alpha@v1": ra, "bravo@v1": rb})
    for order in range(5):
        shuffled = list(games)
        random.Random(order).shuffle(shuffled)
        assert snapshot(rate_games(shuffled).ratings) == snapshot(expected.ratings)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.permutations([0, 1, 2, 3]), st.integers(2, 4),
                          st.lists(st.integers(1, 4), min_size=4, max_size=4)),
                min_size=1, max_size=12),
       st.randoms(use_true_random=False))
def test_order_independence_property(raw: list[tuple[list[int], int, list[int]]],
                                     rng: random.Random) -> None:
    bots = [A, B, C, D]
    games = [game([bots[i] for i in perm[:k]], places[:k], rnd=n // 3, table=n % 3)
             for n, (perm, k, places) in enumerate(raw)]
    baseline = rate_games(games)
    rng.shuffle(games)
    again = rate_games(games)
    assert snapshot(again.ratings) == snapshot(baseline.ratings)
    assert [(s.game_id, s.bot.key, s.after) for s in again.history] == [
        (s.game_id, s.bot.key, s.after) for s in baseline.history]


def test_shuffled_insertion_gives_bit_identical_stored_ratings(tmp_path: Path) -> None:
    results = []
    for order_seed in (None, 1, 2):
        path = tmp_path / f"{order_seed}.db"
        build_store(path, games_order_seed=order_seed).close()
        ratings = rate_tournament(path, "cup")
        with sqlite3.connect(path) as conn:
            history = conn.execute(
                "SELECT game_id, bot_id, mu_before, sigma_before, mu_after, sigma_after "
                "FROM rating_history ORDER BY game_id, bot_id").fetchall()
        results.append((snapshot(ratings), [tuple(map(repr, row)) for row in history]))
    assert results[0] == results[1] == results[2]


# --- stored history ---------------------------------------------------------------------------

def test_history_is_replaced_not_appended_and_chains(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    build_store(path).close()
    first = rate_tournament(path, "cup")
    second = rate_tournament(path, "cup")
    assert snapshot(first) == snapshot(second)
    run = rate_tournament_run(path, "cup", write=False)
    with sqlite3.connect(path) as conn:
        count = conn.execute("SELECT COUNT(*) FROM rating_history").fetchone()[0]
        rows = conn.execute(
            "SELECT h.game_id, b.name || '@' || b.version, h.mu_before, h.sigma_before, "
            "h.mu_after, h.sigma_after FROM rating_history h JOIN bots b ON b.id = h.bot_id "
            "JOIN games g ON g.id = h.game_id "
            "ORDER BY g.round, g.table_index, g.game_index, h.bot_id").fetchall()
    assert count == len(run.history) > 0
    current: dict[str, tuple[float, float]] = {}
    for _, key, mu_b, sigma_b, mu_a, sigma_a in rows:
        assert (mu_b, sigma_b) == current.get(key, (trueskill.MU, trueskill.SIGMA))
        current[key] = (mu_a, sigma_a)
    assert current == {k: (r.mu, r.sigma) for k, r in first.items()}


def test_other_tournaments_history_is_kept(tmp_path: Path) -> None:
    b = StoreBuilder(tmp_path / "a.db")
    for name in ("one", "two"):
        tid, ids = b.tournament(name, ["alpha", "bravo"])
        b.game(GameSpec(tid, 0, 0, 0, ids, [1, 2]))
    b.close()
    rate_tournament(tmp_path / "a.db", "one")
    rate_tournament(tmp_path / "a.db", "two")
    rate_tournament(tmp_path / "a.db", "one")
    with sqlite3.connect(tmp_path / "a.db") as conn:
        per = conn.execute("SELECT tournament_id, COUNT(*) FROM rating_history "
                           "GROUP BY tournament_id ORDER BY 1").fetchall()
    assert per == [(1, 2), (2, 2)]


def test_recompute_from_results_json_matches_the_store_exactly(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    build_store(path, games_order_seed=3, players=3, rounds=6).close()
    stored = rate_tournament(path, "cup")
    doc = json.loads(render_results(path, "cup", "json"))
    env = trueskill.TrueSkill(**doc["rating"])
    ratings: dict[str, trueskill.Rating] = {}
    for g in doc["games"]:
        best: dict[str, int] = {}
        for bot, place in zip(g["seats"], g["placements"], strict=True):
            best[bot] = min(place, best.get(bot, place))
        if len(best) < 2:
            continue
        groups = [(ratings.get(bot, env.create_rating()),) for bot in best]
        for bot, (new,) in zip(best, env.rate(groups, ranks=list(best.values())), strict=True):
            ratings[bot] = new
    assert snapshot(ratings) == snapshot(stored)


def test_the_recomputation_in_ratings_md_gives_the_stored_ratings(tmp_path: Path) -> None:
    """docs/RATINGS.md's few lines, run as printed on ``arena results --format json``, give
    the stored ratings, with a game every seat forfeited (bots that never started: not
    rated, rule 4) and a bot in two seats."""
    b = StoreBuilder(tmp_path / "a.db")
    tid, (a, br, c) = b.tournament("tiny", ["alpha", "bravo", "charlie"])
    b.game(GameSpec(tid, 0, 0, 0, [a, br], [1, 2]))
    b.game(GameSpec(tid, 0, 1, 0, [br, c], [1, 1], forfeits={"0": "startup_failure",
                                                             "1": "startup_failure"}))
    b.game(GameSpec(tid, 0, 2, 0, [c, a, c], [2, 1, 3]))
    b.close()
    docs = Path(__file__).resolve().parents[2] / "docs" / "RATINGS.md"
    code = docs.read_text().split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "tiny.json").write_text(render_results(tmp_path / "a.db", "tiny", "json"))
    scope: dict[str, object] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        exec(compile(code, str(docs), "exec"), scope)  # noqa: S102 - the documented lines
    ratings = scope["ratings"]
    assert isinstance(ratings, dict)
    assert snapshot(ratings) == snapshot(rate_tournament(tmp_path / "a.db", "tiny"))


def test_rate_all_orders_by_tournament_then_game(tmp_path: Path) -> None:
    b = StoreBuilder(tmp_path / "a.db")
    first, ids = b.tournament("first", ["alpha", "bravo"])
    second, _ = b.tournament("second", ["alpha", "bravo"])
    b.game(GameSpec(second, 0, 0, 0, ids, [2, 1]))  # recorded first, rated second
    b.game(GameSpec(first, 5, 0, 0, ids, [1, 2]))
    b.close()
    env = trueskill.TrueSkill(tau=0.0)
    (ra,), (rb,) = env.rate([(env.create_rating(),), (env.create_rating(),)], ranks=[1, 2])
    (ra,), (rb,) = env.rate([(ra,), (rb,)], ranks=[2, 1])
    assert snapshot(rate_all(tmp_path / "a.db").ratings) == snapshot(
        {"alpha@v1": ra, "bravo@v1": rb})


def test_unknown_tournament_and_missing_db(tmp_path: Path) -> None:
    build_store(tmp_path / "a.db").close()
    with pytest.raises(TournamentNotFoundError) as info:
        rate_tournament(tmp_path / "a.db", "nope")
    assert str(info.value) == f"no tournament named 'nope' in {tmp_path / 'a.db'} (stored: cup)"
    with pytest.raises(StoreError, match="no results database at"):
        rate_tournament(tmp_path / "missing.db", "cup")
    assert not (tmp_path / "missing.db").exists()


def test_the_run_summary_rates_the_games_once_and_stores_what_it_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``arena run``'s summary stores the rating history and prints the leaderboard from
    one rating of the games (it used to rate them twice): the same history as
    ``rate_tournament``, the same table as ``arena leaderboard``."""
    from arena.cli.tournament_commands import _print_summary
    from arena.rating import leaderboard as leaderboard_module
    from arena.rating import trueskill_rating as trueskill_module
    from arena.rating.board_view import leaderboard_text
    from arena.tournament.runner import RunSummary

    db = tmp_path / "a.db"
    b = StoreBuilder(db)
    names = ["heuristic", "greedy", "collector", "random"]
    tid, ids = b.tournament("cup", names)
    bot_id = dict(zip(names, ids, strict=True))
    games = _swiss_games()[::20]
    for i, (x, y, places) in enumerate(games):
        b.game(GameSpec(tid, i // 15, 0, i % 15, [bot_id[x], bot_id[y]], places))
    b.close()
    expected = rate_tournament_run(db, "cup", write=False)
    calls: list[int] = []

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return rate_games(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(leaderboard_module, "rate_games", counting)
    monkeypatch.setattr(trueskill_module, "rate_games", counting)
    _print_summary(RunSummary(name="cup", db=db, games_planned=len(games), games_before=0,
                              games_recorded=len(games), elapsed_s=1.0, state="finished"))
    assert len(calls) == 1
    printed = capsys.readouterr().out
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT game_id, bot_id, mu_before, sigma_before, mu_after, "
                              "sigma_after FROM rating_history ORDER BY rowid").fetchall()
    assert stored == [(s.game_id, s.bot.id, s.before.mu, s.before.sigma, s.after.mu,
                       s.after.sigma) for s in expected.history]
    monkeypatch.undo()
    assert leaderboard_text(db, "cup") + "\n" in printed
