"""A withdrawn bot in its opponents' Buchholz: its score, and a draw for each round played
after its withdrawal (FIDE's rule for an opponent's unplayed round), not its score frozen at
the withdrawal, which took tie-break value from the bots that met it early."""

from __future__ import annotations

import json
import sqlite3
from fractions import Fraction
from pathlib import Path

from tournament_fixtures import runner, write_spec

from arena.cli.main import app
from arena.tournament.runner import run_tournament
from arena.tournament.scoring import (
    Bye,
    PlayedTable,
    compute_standings,
    round_draw_points,
)
from arena.tournament.spec_loading import load_spec

ONE, NONE = Fraction(1), Fraction(0)


def test_a_withdrawn_opponent_counts_a_draw_for_each_round_it_no_longer_plays() -> None:
    """Four bots at tables of 2, one game a match (a win 1, a loss 0, a draw 1/2), three
    rounds, d withdrawn from round 3:

    round 1: a beats b, c beats d;  round 2: a beats c, d beats b;
    round 3: c beats a, b has the bye (1).
    Scores: a 2, b 1, c 2, d 1. d counts 1 + 1/2 (round 3, unplayed) = 3/2; b counts
    0 + 1/2 (its bye, a draw) = 1/2.
    Buchholz: a = b 1/2 + c 2 + c 2 = 9/2;  b = a 2 + d 3/2 = 7/2;
              c = d 3/2 + a 2 + a 2 = 11/2;  d = c 2 + b 1/2 = 5/2;
    and their own unplayed rounds' virtual opponents (before + the round's win less what
    it scored + 1/2 for each round after): b's bye 0 + (1 - 1) + 0 = 0, d's round 3
    1 + (1 - 0) + 0 = 2, so d 9/2 over b 7/2.
    (Counted at its score of 1, d left b 3 and c 5 below a.)"""
    a, b, c, d = range(4)
    tables = [PlayedTable(1, (a, b), (ONE, NONE)), PlayedTable(1, (c, d), (ONE, NONE)),
              PlayedTable(2, (a, c), (ONE, NONE)), PlayedTable(2, (d, b), (ONE, NONE)),
              PlayedTable(3, (c, a), (ONE, NONE))]
    spec = {"format": "swiss", "games_per_match": 1, "players_per_game": 2,
            "entrants": ["a@1", "b@1", "c@1", "d@1"], "withdrawn": {"d": 3}}
    standings = compute_standings(4, tables, [Bye(3, b, ONE)], None, 1,
                                  round_draw_points(spec))
    assert [(s.entrant, s.score, s.buchholz) for s in standings] == [
        (c, 2, Fraction(11, 2)), (a, 2, Fraction(9, 2)), (d, 1, Fraction(9, 2)),
        (b, 1, Fraction(7, 2))]


def test_a_drawn_round_is_half_of_every_game_a_full_table_plays() -> None:
    """Half a point a game: games_per_match, times a full table's seatings in duplicate."""
    assert round_draw_points({"games_per_match": 3}) == Fraction(3, 2)
    assert round_draw_points({"games_per_match": 2, "players_per_game": 3,
                              "duplicate": True}) == 3
    assert round_draw_points({"games_per_match": 1, "players_per_game": 3,
                              "duplicate": "permutations"}) == 3


def _round_points(db: Path, name: str) -> dict[str, dict[int, Fraction]]:
    """Each bot's points in each round, from its stored games (a win 1, a draw 1/2, a
    forfeit 0) and byes."""
    conn = sqlite3.connect(str(db))
    try:
        names = dict(conn.execute("SELECT id, name FROM bots").fetchall())
        tid = conn.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()[0]
        points: dict[str, dict[int, Fraction]] = {bot: {} for bot in names.values()}
        for r, seats, places, forfeits in conn.execute(
                "SELECT round, seats_json, placements_json, forfeits_json FROM games "
                "WHERE tournament_id = ?", (tid,)):
            bots = [names[b] for b in json.loads(seats)]
            lost = {int(seat) for seat in json.loads(forfeits or "{}")}
            first = min(p for seat, p in enumerate(json.loads(places)) if seat not in lost)
            winners = [bot for seat, (bot, p) in enumerate(zip(bots, json.loads(places)))
                       if p == first and seat not in lost]
            for bot in bots:
                won = Fraction(1, len(winners)) if bot in winners and len(lost) < 2 else 0
                points[bot][r] = points[bot].get(r, Fraction(0)) + won
        for r, bot, pts in conn.execute("SELECT round, bot_id, points FROM byes "
                                        "WHERE tournament_id = ?", (tid,)):
            points[names[bot]][r] = Fraction(pts)
        return points
    finally:
        conn.close()


def _meetings(db: Path, name: str) -> list[tuple[int, list[str]]]:
    """(round, bot names by seat) of every table the tournament paired."""
    conn = sqlite3.connect(str(db))
    try:
        names = dict(conn.execute("SELECT id, name FROM bots").fetchall())
        tid = conn.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()[0]
        return [(r, [names[b] for b in json.loads(seats)]) for r, seats in conn.execute(
            "SELECT round, seats_json FROM tables WHERE tournament_id = ?", (tid,))]
    finally:
        conn.close()


def test_status_and_leaderboard_count_every_unplayed_round_of_a_bot_met_as_a_draw(
        tmp_path: Path) -> None:
    """Five bots at tables of 2, two games a match (a draw 1 a round, a bye 2), three rounds,
    twin joining in round 2 and random withdrawn from round 3: each bot met counts the
    points it won at tables plus 1 for each round it sat at no table (twin's round 1,
    random's round 3, every bye); and each such round of a bot's own counts a virtual
    opponent: its points before that round, plus 2 less what it scored that round (2 for a
    bye), plus 1 for each round after; in arena status and in arena leaderboard alike."""
    bots = ["greedy", "collector", "heuristic", "random", {"bot": "greedy", "name": "twin"}]
    spec = write_spec(tmp_path / "class.yaml", tmp_path / "arena.db", name="class", bots=bots,
                      rounds=3, games_per_match=2, withdrawn={"random": 3}, joined={"twin": 2})
    run_tournament(load_spec(spec), 1, trial=False)
    db = str(tmp_path / "arena.db")
    status = json.loads(runner.invoke(app, ["status", "class", "--db", db, "-f",
                                            "json"]).output)["standings"]
    meetings = _meetings(tmp_path / "arena.db", "class")
    points = _round_points(tmp_path / "arena.db", "class")
    assert {bot: sum(by_round.values()) for bot, by_round in points.items()} == {
        row["bot"].split("@")[0]: Fraction(row["score"]) for row in status}
    seated: dict[str, set[int]] = {bot: set() for bot in points}
    for round_no, seats in meetings:
        for bot in seats:
            seated[bot].add(round_no)
    counted = {bot: sum(points[bot].get(r, 0) for r in seated[bot]) + 3 - len(seated[bot])
               for bot in points}
    expected = {bot: Fraction(0) for bot in points}
    for _, seats in meetings:
        for bot in seats:
            expected[bot] += sum(counted[other] for other in seats if other != bot)
    for bot in points:
        for r in {1, 2, 3} - seated[bot]:
            before = sum(p for q, p in points[bot].items() if q < r)
            expected[bot] += before + 2 - points[bot].get(r, 0) + (3 - r)
    assert seated["twin"] <= {2, 3} and seated["random"] <= {1, 2}
    assert any("random" in seats for _, seats in meetings)
    assert any("twin" in seats for _, seats in meetings)
    assert {row["bot"].split("@")[0]: Fraction(row["buchholz"]) for row in status} == expected
    board = json.loads(runner.invoke(app, ["leaderboard", "class", "--db", db, "-f",
                                           "json"]).output)["bots"]
    assert {row["bot"]: Fraction(row["buchholz"]) for row in board} == expected
