"""Leaderboard statistics, ordering, version notes, points, Buchholz and every output format."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
import trueskill
from rating_store_builder import GameSpec, StoreBuilder, build_store

from arena.rating import build_leaderboard, leaderboard_report, rate_tournament
from arena.rating.board_view import fitted_table, leaderboard_json, render_leaderboard
from arena.rating.games import BotVersion, StoredGame
from arena.rating.leaderboard import Leaderboard, compute_leaderboard, sort_leaderboard
from arena.rating.render import TABLE_FORMATS
from arena.rating.standings import (
    ByeRecord,
    placement_points,
    stored_buchholz,
    total_points,
)
from arena.rating.trueskill_rating import RatingSettings
from arena.referee.failures import after_game
from arena.tournament.bot_versions import bot_labels
from arena.tournament.store import Store

A = BotVersion("alpha", "v1", 1)
B = BotVersion("bravo", "v1", 2)
C = BotVersion("charlie", "v1", 3)
D = BotVersion("delta", "v1", 4)


def small_store(path: Path, fmt: str = "round_robin") -> None:
    """alpha wins most, bravo has failures, charlie never wins, delta entered but never played."""
    b = StoreBuilder(path)
    tid, (a, br, c, d) = b.tournament("cup", ["alpha", "bravo", "charlie", "delta"], fmt=fmt,
                                      players=3)
    b.game(GameSpec(tid, 0, 0, 0, [a, br, c], [1, 2, 3]))
    b.game(GameSpec(tid, 0, 0, 1, [br, c, a], [1, 1, 3]))  # bravo and charlie share first
    b.game(GameSpec(tid, 1, 0, 0, [c, a, br], [2, 1, 3],
                    failures=[{"seat": 2, "bot": br, "type": "crash", "detail": "signal 9"},
                              {"seat": 2, "bot": br, "type": "timeout", "detail": "1.5 s"}],
                    forfeits={"2": "crash"}))
    b.game(GameSpec(tid, 1, 0, 1, [a, br, c], [1, 2, 3],
                    failures=[{"seat": 1, "bot": br, "type": "timeout", "detail": "1.1 s"}]))
    if fmt == "swiss":
        b.bye(tid, 1, d, 2.0)
    b.close()


def test_statistics(tmp_path: Path) -> None:
    small_store(tmp_path / "a.db")
    board = build_leaderboard(tmp_path / "a.db", "cup")
    rows = {row.bot: row for row in board.rows}
    assert board.games == 4 and not board.swiss
    alpha, bravo, charlie, delta = (rows[n] for n in ("alpha", "bravo", "charlie", "delta"))
    assert (alpha.games, alpha.wins, alpha.win_pct, alpha.mean_placement) == (4, 3, 75.0, 1.5)
    assert (bravo.games, bravo.wins, bravo.mean_placement) == (4, 1, 2.0)
    assert (charlie.games, charlie.wins, charlie.mean_placement) == (4, 1, 2.25)
    # points: 1, 1/2, 0 per game; a shared first splits 1 + 1/2
    assert alpha.points == pytest.approx(1 + 0 + 1 + 1)
    assert bravo.points == pytest.approx(0.5 + 0.75 + 0 + 0.5)
    assert charlie.points == pytest.approx(0 + 0.75 + 0.5 + 0)
    assert bravo.failures == {"crash": 1, "timeout": 2} and alpha.failures == {}
    assert (delta.games, delta.wins, delta.win_pct, delta.mean_placement) == (0, 0, None, None)
    assert (delta.mu, delta.sigma) == (trueskill.MU, trueskill.SIGMA)
    assert alpha.rank == 1
    keys = [(-r.conservative, -r.mu, r.key) for r in board.rows]
    assert keys == sorted(keys)
    assert [r.rank for r in board.rows] == [1, 2, 3, 4]
    assert all(r.conservative == r.mu - 3 * r.sigma for r in board.rows)


def test_a_game_every_seat_forfeited_scores_nothing_and_nobody_won(tmp_path: Path) -> None:
    """Both bots timed out to a forfeit: nobody played for a place, so neither scores (a
    double forfeit, 0 - 0), both are placed last, and a leaderboard showing 100% wins would
    lie (RULES.md E28)."""
    b = StoreBuilder(tmp_path / "a.db")
    tid, (a, br) = b.tournament("cup", ["alpha", "bravo"], players=2)
    b.game(GameSpec(tid, 0, 0, 0, [a, br], [1, 1], forfeits={"0": "timeout", "1": "timeout"}))
    b.game(GameSpec(tid, 0, 0, 1, [br, a], [1, 2], forfeits={"1": "crash"}))
    b.close()
    rows = {row.bot: row for row in build_leaderboard(tmp_path / "a.db", "cup").rows}
    assert (rows["alpha"].wins, rows["alpha"].points) == (0, 0)
    assert (rows["bravo"].wins, rows["bravo"].points) == (1, pytest.approx(1))
    assert (rows["alpha"].mean_placement, rows["bravo"].mean_placement) == (2.0, 1.5)


def test_leaderboard_matches_rate_tournament(tmp_path: Path) -> None:
    build_store(tmp_path / "a.db", games_order_seed=5)
    stored = rate_tournament(tmp_path / "a.db", "cup")
    board = build_leaderboard(tmp_path / "a.db")
    assert {r.key: (r.mu, r.sigma) for r in board.rows} == {
        k: (v.mu, v.sigma) for k, v in stored.items()}


def test_latest_tournament_is_the_default(tmp_path: Path) -> None:
    b = StoreBuilder(tmp_path / "a.db")
    for name in ("old", "new"):
        tid, ids = b.tournament(name, ["alpha", "bravo"])
        b.game(GameSpec(tid, 0, 0, 0, ids, [1, 2] if name == "old" else [2, 1]))
    b.close()
    board = build_leaderboard(tmp_path / "a.db")
    assert board.scope == "new" and board.rows[0].bot == "bravo"
    everything = build_leaderboard(tmp_path / "a.db", all_games=True)
    assert everything.scope == "all" and everything.games == 2 and everything.tournament is None


def test_new_version_is_marked_and_starts_fresh(tmp_path: Path) -> None:
    b = StoreBuilder(tmp_path / "a.db")
    t1, (old, other) = b.tournament("one", [("alpha", "aaa111"), "bravo"])
    b.game(GameSpec(t1, 0, 0, 0, [old, other], [1, 2]))
    t2, (new, other) = b.tournament("two", [("alpha", "bbb222"), "bravo"])
    b.game(GameSpec(t2, 0, 0, 0, [new, other], [1, 2]))
    b.close()
    board = build_leaderboard(tmp_path / "a.db", all_games=True)
    rows = {r.key: r for r in board.rows}
    assert rows["alpha@bbb222"].new_version and rows["alpha@bbb222"].note == "new (older: aaa111)"
    assert not rows["alpha@aaa111"].new_version and rows["alpha@aaa111"].note == ""
    assert rows["alpha@bbb222"].games == rows["alpha@aaa111"].games == 1
    assert rows["alpha@bbb222"].mu < rows["alpha@aaa111"].mu  # beat a stronger bravo: less gain
    text = render_leaderboard(board, "simple")
    assert "new (older: aaa111)" in text
    # tournament two's board names no version without games in it
    one_board = build_leaderboard(tmp_path / "a.db", "two")
    assert [r.note for r in one_board.rows if r.bot == "alpha"] == [""]
    with Store(tmp_path / "a.db", create=False) as store:  # dropped with its tournament
        store.delete_tournament(t1)
    board = build_leaderboard(tmp_path / "a.db", all_games=True)
    assert [r.note for r in board.rows if r.bot == "alpha"] == [""]


def test_the_note_names_the_two_newest_older_versions_and_counts_the_rest(
        tmp_path: Path) -> None:
    """A league's bot updated all day gains an older version at each update: the note, a
    table cell, names the newest two and counts the others (json and csv list them all)."""
    b = StoreBuilder(tmp_path / "a.db")
    versions = ["aaa111", "bbb222", "ccc333", "ddd444", "eee555"]
    for i, version in enumerate(versions):
        tid, (alpha, other) = b.tournament(f"t{i}", [("alpha", version), "bravo"])
        b.game(GameSpec(tid, 0, 0, 0, [alpha, other], [1, 2]))
    b.close()
    board = build_leaderboard(tmp_path / "a.db", all_games=True)
    rows = {r.key: r for r in board.rows}
    assert rows["alpha@eee555"].note == "new (older: ddd444, ccc333 and 2 more)"
    assert rows["alpha@eee555"].older_versions == ["ddd444", "ccc333", "bbb222", "aaa111"]
    assert rows["alpha@ddd444"].note == "new (older: ccc333, bbb222 and 1 more)"
    assert rows["alpha@ccc333"].note == "new (older: bbb222, aaa111)"


def test_a_version_replaced_by_continue_is_the_new_ones_older(tmp_path: Path) -> None:
    """``arena run --continue`` puts a new version in an entry's place and keeps the old
    one's games: the new version is marked as such, as it would be in another tournament."""
    b = StoreBuilder(tmp_path / "a.db")
    tid, (old, other) = b.tournament("cup", [("alpha", "aaa111"), "bravo"])
    b.game(GameSpec(tid, 0, 0, 0, [old, other], [1, 2]))
    conn = b.store.conn
    with conn:  # the store as continue_with leaves it
        new = conn.execute("INSERT INTO bots (name, version, path, metadata_json) VALUES "
                           "('alpha', 'bbb222', 'bots/alpha', '{}')").lastrowid
        conn.execute("UPDATE tournament_bots SET bot_id = ? WHERE bot_id = ?", (new, old))
        conn.execute("CREATE TABLE successions(tournament_id INTEGER, entry_index INTEGER, "
                     "old_bot_id INTEGER, new_bot_id INTEGER, games_at INTEGER)")
        conn.execute("INSERT INTO successions VALUES (?, 0, ?, ?, 1)", (tid, old, new))
    assert new is not None
    b.game(GameSpec(tid, 1, 0, 0, [new, other], [2, 1]))
    b.close()
    for board in (build_leaderboard(tmp_path / "a.db", "cup"),
                  build_leaderboard(tmp_path / "a.db", all_games=True)):
        notes = {r.key: r.note for r in board.rows}
        assert notes["alpha@bbb222"] == "new (older: aaa111)" and notes["alpha@aaa111"] == ""


def _continued_swiss(path: Path) -> None:
    """A Swiss cup whose entry alpha went on under a new version after round 0 (as
    ``arena run --continue`` leaves the store): alpha, bravo and charlie all end on 2 points,
    alpha's split 1 + 1 between its versions, and alpha's Buchholz is the best."""
    b = StoreBuilder(path)
    tid, (old, bravo, charlie, delta) = b.tournament(
        "cup", [("alpha", "aaa111"), "bravo", "charlie", "delta"], fmt="swiss")
    b.game(GameSpec(tid, 0, 0, 0, [old, bravo], [1, 2]))
    b.game(GameSpec(tid, 0, 1, 0, [charlie, delta], [1, 2]))
    conn = b.store.conn
    with conn:
        new = conn.execute("INSERT INTO bots (name, version, path, metadata_json) VALUES "
                           "('alpha', 'bbb222', 'bots/alpha', '{}')").lastrowid
        conn.execute("UPDATE tournament_bots SET bot_id = ? WHERE bot_id = ?", (new, old))
        conn.execute("CREATE TABLE successions(tournament_id INTEGER, entry_index INTEGER, "
                     "old_bot_id INTEGER, new_bot_id INTEGER, games_at INTEGER)")
        conn.execute("INSERT INTO successions VALUES (?, 0, ?, ?, 2)", (tid, old, new))
    assert new is not None
    b.game(GameSpec(tid, 1, 0, 0, [new, charlie], [1, 2]))
    b.game(GameSpec(tid, 1, 1, 0, [bravo, delta], [1, 2]))
    b.game(GameSpec(tid, 2, 0, 0, [new, bravo], [2, 1]))
    b.game(GameSpec(tid, 2, 1, 0, [charlie, delta], [1, 2]))
    b.close()


def test_sorted_by_points_a_continued_swiss_entry_stands_where_the_standings_put_it(
        tmp_path: Path) -> None:
    """Each version's points are its own games', but --sort points put alpha's versions
    (1 point each) below bravo and charlie, where arena status ranks alpha first on the same
    2 points by Buchholz; and the Buchholz of bravo counted alpha's old version's 1 point."""
    from arena.tournament.standings import swiss_standings

    _continued_swiss(tmp_path / "a.db")
    board = sort_leaderboard(build_leaderboard(tmp_path / "a.db", "cup"), "points")
    with Store(tmp_path / "a.db", create=False, read_only=True) as store:
        row = store.tournament("cup")
        assert row is not None
        labels = bot_labels(store)
        standings = [(labels[store.entrant_ids(row.id)[s.entrant]], float(s.buchholz))
                     for s in swiss_standings(store, row)]
    assert [r.key for r in board.rows] == [
        "alpha@bbb222", "alpha@aaa111", "bravo@v1", "charlie@v1", "delta@v1"]
    assert [r.rank for r in board.rows] == [1, 2, 3, 4, 5]
    assert [r.standing for r in board.rows] == [1, 1, 2, 3, 4]
    assert [(r.points, r.buchholz) for r in board.rows] == [
        (1.0, 4.0), (1.0, 2.0), (2.0, 4.0), (2.0, 2.0), (0.0, 6.0)]
    # the entries' Buchholz and order are the standings'
    assert [(r.key, r.buchholz) for r in board.rows[2:]] == standings[1:]
    assert standings[0] == ("alpha@bbb222", 6.0)
    report = leaderboard_report(board).splitlines()
    assert ("Swiss standings (arena status cup) count an entry's versions as one: alpha 2.00 "
            "(bbb222 1.00 + aaa111 1.00); each at its entry's place.") in report
    doc = json.loads(render_leaderboard(board, "json"))
    assert [r["standing"] for r in doc["bots"]] == [1, 1, 2, 3, 4]
    plain = build_leaderboard(tmp_path / "a.db", all_games=True)  # no standings there
    assert all(r.standing is None for r in plain.rows)
    assert "standing" not in json.loads(render_leaderboard(plain, "json"))["bots"][0]


def test_csv_has_the_older_versions_and_the_standing_json_has(tmp_path: Path) -> None:
    """A spreadsheet of the csv could not tell a continued Swiss entry's versions apart as
    the standings count them, nor which versions a new one followed: json alone had them.
    They come after every column the csv had, which keep their places."""
    _continued_swiss(tmp_path / "a.db")
    for board in (sort_leaderboard(build_leaderboard(tmp_path / "a.db", "cup"), "points"),
                  build_leaderboard(tmp_path / "a.db", all_games=True)):
        text = render_leaderboard(board, "csv")
        header = next(csv.reader(io.StringIO(text)))
        assert header[-4:] == ["note", "options", "older_versions", "standing"]
        rows = list(csv.DictReader(io.StringIO(text)))
        bots = json.loads(render_leaderboard(board, "json"))["bots"]
        assert [row["key"] for row in rows] == [bot["key"] for bot in bots]
        assert [row["older_versions"] for row in rows] == [
            " ".join(bot["older_versions"]) for bot in bots]
        assert [row["standing"] for row in rows] == [
            str(bot.get("standing", "")) for bot in bots]
    assert {row["key"]: row["older_versions"] for row in rows}["alpha@bbb222"] == "aaa111"
    assert [row["standing"] for row in rows] == [""] * len(rows)  # no standings across all
    points = list(csv.DictReader(io.StringIO(render_leaderboard(sort_leaderboard(
        build_leaderboard(tmp_path / "a.db", "cup"), "points"), "csv"))))
    assert [row["standing"] for row in points] == ["1", "1", "2", "3", "4"]


def test_points_scheme() -> None:
    assert placement_points([(A, 1), (B, 2)]) == {A: 1.0, B: 0.0}
    assert placement_points([(A, 1), (B, 1)]) == {A: 0.5, B: 0.5}
    assert placement_points([(A, 2), (B, 1), (C, 4), (D, 3)]) == pytest.approx(
        {A: 2 / 3, B: 1.0, C: 0.0, D: 1 / 3})
    shared = placement_points([(A, 1), (B, 1), (C, 3), (D, 3)])
    assert shared == pytest.approx({A: 5 / 6, B: 5 / 6, C: 1 / 6, D: 1 / 6})
    assert sum(shared.values()) == pytest.approx(2.0)
    assert placement_points([(A, 1)]) == {}


def _g(rnd: int, table: int, seats: list[BotVersion], places: list[int],
       index: int = 0) -> StoredGame:
    return StoredGame(f"s/r{rnd}/t{table}/g{index}", 1, "s", rnd, table, index, 0, tuple(seats),
                      tuple(places))


def test_buchholz_sums_opponents_final_points_per_round() -> None:
    games = [_g(0, 0, [A, B], [1, 2]), _g(0, 1, [C, D], [1, 2]), _g(1, 0, [A, C], [1, 2]),
             _g(1, 1, [B, D], [1, 1])]
    assert total_points(games) == {"alpha@v1": 2, "bravo@v1": Fraction(1, 2),
                                   "charlie@v1": 1, "delta@v1": Fraction(1, 2)}
    assert stored_buchholz(games) == {"alpha@v1": Fraction(3, 2), "bravo@v1": Fraction(5, 2),
                               "charlie@v1": Fraction(5, 2), "delta@v1": Fraction(3, 2)}
    # multiplayer: every table-mate's score, once per round (even over two games, or two
    # tables of one round as duplicate mode's seat rotations give)
    three = [_g(0, 0, [A, B, C], [1, 2, 3]), _g(0, 1, [B, C, A], [1, 2, 3])]
    assert total_points(three) == {"alpha@v1": 1, "bravo@v1": Fraction(3, 2),
                                   "charlie@v1": Fraction(1, 2)}
    assert stored_buchholz(three)["alpha@v1"] == 2  # 3/2 + 1/2
    bye = ByeRecord(1, 1, D, Fraction(1))
    assert total_points(games, [bye])["delta@v1"] == Fraction(3, 2)


def test_points_and_buchholz_agree_with_the_swiss_standings() -> None:
    """The leaderboard shows the numbers the tournament layer's Swiss pairing used."""
    scoring = pytest.importorskip("arena.tournament.scoring")
    rng = random.Random(11)
    bots = [A, B, C, D, BotVersion("echo", "v1", 5)]
    games: list[StoredGame] = []
    tables = []
    for rnd in range(4):
        order = list(range(5))
        rng.shuffle(order)
        for t, seats in enumerate((order[:3], order[3:])):
            pts = [Fraction(0)] * len(seats)
            for index in range(2):
                places = [rng.randint(1, len(seats)) for _ in seats]
                games.append(_g(rnd, t, [bots[e] for e in seats], places, index))
                pts = [p + q for p, q in zip(pts, scoring.game_points(places), strict=True)]
            tables.append(scoring.PlayedTable(round=rnd, seats=tuple(seats), points=tuple(pts)))
    byes = [scoring.Bye(round=3, entrant=4, points=Fraction(2))]
    standings = {s.entrant: s for s in scoring.compute_standings(5, tables, byes)}
    records = [ByeRecord(1, 3, bots[4], Fraction(2))]
    points = total_points(games, records)
    tiebreak = stored_buchholz(games, points)
    for e, bot in enumerate(bots):
        assert points[bot.key] == standings[e].score
        assert tiebreak[bot.key] == standings[e].buchholz


def test_swiss_leaderboard_shows_buchholz(tmp_path: Path) -> None:
    small_store(tmp_path / "a.db", fmt="swiss")
    board = build_leaderboard(tmp_path / "a.db", "cup")
    assert board.swiss and all(r.buchholz is not None for r in board.rows)
    rows = {r.bot: r for r in board.rows}
    # alpha met bravo and charlie in both rounds
    assert rows["alpha"].buchholz == pytest.approx(2 * (rows["bravo"].points
                                                        + rows["charlie"].points))
    # delta sat at no table: round 0 scored nothing, round 1 a bye of 2 (a draw is 1 at
    # tables of 3, two games a match); its own Buchholz counts two virtual table-mates a
    # round, each its points before + the mean of what it left the table (3 draws less its
    # points, over 2) + a draw for each round after: round 0 2 x (0 + 3/2 + 1) = 5,
    # round 1 2 x (0 + 1/2 + 0) = 1
    delta = rows["delta"]
    assert (delta.buchholz, delta.byes, delta.points, delta.games) == (6, 1, 2.0, 0)
    assert "buchholz" in render_leaderboard(board, "simple")
    assert "buchholz" in leaderboard_json(board)["bots"][0]
    plain = build_leaderboard(tmp_path / "a.db", all_games=True)
    assert "buchholz" not in render_leaderboard(plain, "simple")


def test_swiss_buchholz_counts_a_small_tables_mates_as_a_full_tables(tmp_path: Path) -> None:
    """Seven bots at tables of 4 sit 4 + 3: the leaderboard's Buchholz of a bot at the table
    of 3 counts its two table-mates' mean three times, as the Swiss standings do."""
    b = StoreBuilder(tmp_path / "a.db")
    names = ["a", "b", "c", "d", "e", "f", "g"]
    tid, ids = b.tournament("cup", names, fmt="swiss", players=4)
    b.game(GameSpec(tid, 1, 0, 0, ids[:4], [1, 2, 3, 4]))
    b.game(GameSpec(tid, 1, 1, 0, ids[4:], [1, 2, 3]))
    rows = {r.bot: r for r in build_leaderboard(tmp_path / "a.db", "cup").rows}
    assert rows["e"].buchholz == pytest.approx((rows["f"].points + rows["g"].points) * 3 / 2)
    assert rows["a"].buchholz == pytest.approx(sum(rows[x].points for x in "bcd"))


def test_json_says_a_duplicate_swiss_weighs_an_off_size_tables_points(tmp_path: Path) -> None:
    """Seven bots at duplicate Swiss tables of 4 sit 4 + 3: the table of 3 plays 3 seatings
    to 4, and each of its games counts 4/3, which the json's note on points says."""
    b = StoreBuilder(tmp_path / "a.db")
    tid, ids = b.tournament("cup", list("abcdefg"), fmt="swiss", players=4, duplicate=True)
    b.game(GameSpec(tid, 1, 0, 0, ids[:4], [1, 2, 3, 4]))
    b.game(GameSpec(tid, 1, 1, 0, ids[4:], [1, 2, 3]))
    board = build_leaderboard(tmp_path / "a.db", "cup")
    assert {r.bot: r.points for r in board.rows}["e"] == pytest.approx(4 / 3)
    assert "table of another size" in leaderboard_json(board)["points"]
    small_store(tmp_path / "b.db", fmt="swiss")
    plain = leaderboard_json(build_leaderboard(tmp_path / "b.db", "cup"))["points"]
    assert "table of another size" not in plain


@pytest.mark.parametrize("fmt", TABLE_FORMATS)
def test_every_tabulate_format_renders_with_the_bot_names(tmp_path: Path, fmt: str) -> None:
    small_store(tmp_path / "a.db", fmt="swiss")
    text = render_leaderboard(build_leaderboard(tmp_path / "a.db"), fmt)
    for name in ("alpha", "bravo", "charlie", "delta"):
        assert name in text


def test_json_parses_with_full_precision(tmp_path: Path) -> None:
    small_store(tmp_path / "a.db")
    board = build_leaderboard(tmp_path / "a.db")
    doc = json.loads(render_leaderboard(board, "json"))
    assert doc["scope"] == "cup" and doc["games"] == 4
    assert doc["rating"] == {"mu": 25.0, "sigma": trueskill.SIGMA, "beta": trueskill.BETA,
                             "tau": 0.0, "draw_probability": 0.1}
    assert [(b["key"], b["mu"], b["sigma"]) for b in doc["bots"]] == [
        (r.key, r.mu, r.sigma) for r in board.rows]
    bravo = next(b for b in doc["bots"] if b["bot"] == "bravo")
    assert bravo["failures"] == {"crash": 1, "timeout": 2}
    assert next(b for b in doc["bots"] if b["bot"] == "delta")["win_pct"] is None


def test_csv_parses(tmp_path: Path) -> None:
    small_store(tmp_path / "a.db")
    board = build_leaderboard(tmp_path / "a.db")
    rows = list(csv.DictReader(io.StringIO(render_leaderboard(board, "csv"))))
    assert [r["key"] for r in rows] == [r.key for r in board.rows]
    assert [float(r["mu"]) for r in rows] == [r.mu for r in board.rows]
    bravo = next(r for r in rows if r["bot"] == "bravo")
    assert (bravo["failures"], bravo["failures_crash"], bravo["failures_timeout"]) == (
        "3", "1", "2")
    assert next(r for r in rows if r["bot"] == "delta")["win_pct"] == ""


def test_unknown_format_is_refused(tmp_path: Path) -> None:
    small_store(tmp_path / "a.db")
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        render_leaderboard(build_leaderboard(tmp_path / "a.db"), "xml")


def test_leaderboard_report_for_the_runner(tmp_path: Path) -> None:
    small_store(tmp_path / "a.db")
    board = build_leaderboard(tmp_path / "a.db", "cup")
    lines = leaderboard_report(board).splitlines()
    assert lines[0].startswith("Leaderboard: cup (round_robin, finished), 4 games rated")
    assert board.rows[0].bot in lines[3]


def test_the_title_says_when_games_went_unrated() -> None:
    """A game every seat forfeited changes no rating; the title does not count it as rated."""
    from arena.rating.board_view import leaderboard_title

    a, b = (BotVersion(name, "v1", i) for i, name in ((1, "a"), (2, "b")))
    played = StoredGame(id="t/r0/t0/g0", tournament_id=1, tournament="t", round=0,
                        table_index=0, game_index=0, seed=0, seats=(a, b), placements=(1, 2))
    nobody = dataclasses.replace(played, id="t/r0/t0/g1", game_index=1, placements=(1, 1),
                                 forfeits=((0, "startup_failure"), (1, "startup_failure")))
    board = compute_leaderboard([played, nobody], RatingSettings())
    assert board.games == 2 and board.rated == 1
    assert leaderboard_title(board) == ("Leaderboard: all recorded games, 2 games, 1 of them "
                                        "rated (the other 1: every seat forfeited, or one bot "
                                        "held every seat); sorted by mu - 3*sigma")
    only = compute_leaderboard([played], RatingSettings())
    assert leaderboard_title(only).startswith("Leaderboard: all recorded games, 1 game rated;")


def _two_seat_board() -> Leaderboard:
    """Two bots, two seats, no ties, no failures: points equal wins, nothing to note."""
    a, b = (BotVersion(name, "v1", i) for i, name in ((1, "a"), (2, "b")))
    games = [StoredGame(id=f"t/r0/t0/g{i}", tournament_id=1, tournament="t", round=0,
                        table_index=0, game_index=i, seed=i, seats=(a, b),
                        placements=(1, 2) if i else (2, 1)) for i in range(3)]
    return compute_leaderboard(games, RatingSettings())


def test_the_default_table_leaves_out_what_says_nothing() -> None:
    board = _two_seat_board()
    text, left_out = fitted_table(board)
    assert left_out == ["points"]
    assert text.splitlines()[0].split() == ["rank", "bot", "version", "mu", "sigma",
                                            "mu-3sigma", "games", "wins", "win", "%", "mean",
                                            "place"]
    wide, none = fitted_table(board, wide=True)
    assert none == [] and wide == render_leaderboard(board, "simple")
    assert "failures" in wide.splitlines()[0] and "points" in wide.splitlines()[0]


def test_the_default_table_drops_columns_in_order_until_it_fits() -> None:
    board = _two_seat_board()
    text, left_out = fitted_table(board, width=60)
    assert left_out == ["points", "sigma", "mean place", "win %", "mu"]
    assert max(len(line) for line in text.splitlines()) <= 60
    # a narrower terminal still: never fewer than rank, bot and what the board is sorted by
    narrow, left_out = fitted_table(board, width=1)
    assert narrow.splitlines()[0].split() == ["rank", "bot", "mu-3sigma"]
    assert left_out[-3:] == ["version", "games", "wins"]
    by_points, _ = fitted_table(sort_leaderboard(board, "points"), width=1)
    assert by_points.splitlines()[0].split() == ["rank", "bot", "wins"]  # points = wins


def test_a_board_with_wide_notes_fits_a_full_width_terminal() -> None:
    """A league's bot with many versions (its note names them) and a bot with failures made
    the default board, and the lines under it, wider than the 100 columns it fits: the note
    is left out (and said so), then the names cut, and the lines under it wrap at words."""
    a_version = [BotVersion("my-pkg-with-a-long-name", f"{i:012x}", i + 1) for i in range(18)]
    others = [BotVersion(f"opponent-{i}", "v1", 100 + i) for i in range(3)]
    games = [StoredGame(id=f"t/r{i}/t{j}/g0", tournament_id=1, tournament="t", round=i,
                        table_index=j, game_index=0, seed=i, seats=(version, other),
                        placements=(1, 2) if (i + j) % 2 else (2, 1))
             for i, version in enumerate(a_version) for j, other in enumerate(others)]
    board = compute_leaderboard(games, RatingSettings())
    newest = next(row for row in board.rows if row.version == a_version[-1].version)
    newest.new_version = True
    newest.older_versions = [version.version for version in a_version[:-1]]
    board.rows[0].failures = {"timeout": 3, "crash": 2, "illegal_action": 1}
    board.rows = [row for row in board.rows if row.bot != "my-pkg-with-a-long-name"
                  or row is newest]
    text = leaderboard_report(board, width=100)
    assert max(len(line) for line in text.splitlines()) <= 100, text
    assert "new (older:" not in text
    assert "note; --wide shows every column." in " ".join(text.splitlines())
    assert "new: a new version" not in text  # it says what the note column means
    assert "timeout 3" in text  # the failures kept


def test_two_versions_of_one_bot_are_named_apart_without_the_version_column() -> None:
    """A tournament continued with a new version ranks both under one name: the version is
    what tells the rows apart, so a table that leaves its column out names them name@version."""
    old, new, b = (BotVersion(name, version, i) for i, (name, version) in
                   enumerate((("a", "v1"), ("a", "v2"), ("b", "v1")), 1))
    games = [StoredGame(id=f"t/r0/t{i}/g0", tournament_id=1, tournament="t", round=0,
                        table_index=i, game_index=0, seed=i, seats=(old if i < 2 else new, b),
                        placements=(1, 2) if i % 2 else (2, 1)) for i in range(4)]
    board = compute_leaderboard(games, RatingSettings())
    text, left_out = fitted_table(board, width=1)
    assert left_out[:6] == ["points", "sigma", "mean place", "win %", "mu", "version"]
    assert sorted(line.split()[1] for line in text.splitlines()[2:]) == ["a@v1", "a@v2", "b"]
    wide, _ = fitted_table(board, wide=True)  # the version has its column: names alone
    assert sorted(line.split()[1] for line in wide.splitlines()[2:]) == ["a", "a", "b"]


def test_chosen_columns_keep_the_table_order_and_unknown_ones_are_named() -> None:
    board = _two_seat_board()
    text, left_out = fitted_table(board, columns=["games", "bot", "rank"])
    assert left_out == [] and text.splitlines()[0].split() == ["rank", "bot", "games"]
    with pytest.raises(ValueError, match=r"unknown column\(s\) 'elo' \(choose among: rank, "):
        fitted_table(board, columns=["elo"])


def test_the_report_folds_the_rating_settings_into_a_footnote(tmp_path: Path) -> None:
    small_store(tmp_path / "a.db")
    lines = leaderboard_report(build_leaderboard(tmp_path / "a.db", "cup")).splitlines()
    assert lines[0] == ("Leaderboard: cup (round_robin, finished), 4 games rated; sorted by "
                        "mu - 3*sigma")
    assert lines[-2:] == ["TrueSkill mu=25 sigma=8.333 beta=4.167 tau=0 draw=0.1.",
                          "Not shown: sigma, mean place, win %, mu; --wide shows every column."]
    assert max(len(line) for line in lines) <= 100


def test_forfeits_count_the_games_lost_to_failures_even_without_a_failure_of_their_own(
        tmp_path: Path) -> None:
    """Failures do not count forfeits: a strike or a restart forfeits nothing, and results
    stored before a game forfeited unstarted recorded a failure have forfeits without one."""
    b = StoreBuilder(tmp_path / "a.db")
    tid, (a, br) = b.tournament("cup", ["alpha", "bravo"], players=2)
    start = {"seat": 1, "bot": br, "type": "startup_failure", "detail": "SyntaxError"}
    b.game(GameSpec(tid, 0, 0, 0, [a, br], [1, 2], failures=[start],
                    forfeits={"1": "startup_failure"}))
    for game in (1, 2):
        b.game(GameSpec(tid, 0, 0, game, [a, br], [1, 2], forfeits={"1": "startup_failure"}))
    b.game(GameSpec(tid, 0, 0, 3, [a, br], [2, 1]))
    b.close()
    board = build_leaderboard(tmp_path / "a.db", "cup")
    rows = {row.bot: row for row in board.rows}
    assert (rows["bravo"].forfeits, rows["alpha"].forfeits) == (3, 0)
    assert rows["bravo"].failures == {"startup_failure": 1}
    bravo = next(b for b in json.loads(render_leaderboard(board, "json"))["bots"]
                 if b["bot"] == "bravo")
    assert bravo["forfeits"] == 3
    csv_rows = {r["bot"]: r for r in csv.DictReader(io.StringIO(render_leaderboard(board, "csv")))}
    assert (csv_rows["bravo"]["forfeits"], csv_rows["alpha"]["forfeits"]) == ("3", "0")
    text = fitted_table(board, wide=True)[0]
    bravo_line = next(line for line in text.splitlines() if "bravo" in line)
    assert bravo_line.endswith("startup_failure 1 (3 forfeits)")


def test_the_exports_say_why_a_bot_failed_most_often(tmp_path: Path) -> None:
    """A grader's csv names each bot's most frequent failure with its reason, as the referee
    wrote it: how often is not enough to tell a student what to fix."""
    small_store(tmp_path / "a.db")
    board = build_leaderboard(tmp_path / "a.db", "cup")
    rows = {r["bot"]: r for r in csv.DictReader(io.StringIO(render_leaderboard(board, "csv")))}
    assert rows["bravo"]["failure_reason"] == "crash: signal 9"  # timeouts differ: 1.5, 1.1 s
    assert rows["alpha"]["failure_reason"] == ""
    bravo = next(b for b in json.loads(render_leaderboard(board, "json"))["bots"]
                 if b["bot"] == "bravo")
    assert bravo["failure_reason"] == "crash: signal 9"


def test_the_most_frequent_failure_counts_a_death_after_each_game_as_one_reason(
        tmp_path: Path) -> None:
    """Three deaths in ``on_game_end`` (each detail naming the game it followed) outnumber two
    identical timeouts: the reason is the death's, without a game's number."""
    b = StoreBuilder(tmp_path / "a.db")
    tid, (a, br) = b.tournament("cup", ["alpha", "bravo"], players=2)
    for game in range(5):
        detail = (f"exited before its first answer of the game{after_game(game)} (exit code 1)"
                  if game < 3 else "no answer within 100 ms")
        kind = "crash" if game < 3 else "timeout"
        b.game(GameSpec(tid, 0, 0, game, [a, br], [1, 2],
                        failures=[{"seat": 1, "bot": br, "type": kind, "detail": detail}]))
    b.close()
    rows = {row.bot: row for row in build_leaderboard(tmp_path / "a.db", "cup").rows}
    assert rows["bravo"].failure_reason == (
        "crash: exited before its first answer of the game (exit code 1)")


def test_a_version_entered_without_games_is_the_newer_ones_older(tmp_path: Path) -> None:
    """A league's version replaced before its first game is still one of the board's older
    versions: the newer one's note names it and the newest-versions view hides it, rather
    than leaving a row of no games beside its successor."""
    from arena.rating.board_view import newest_versions

    b = StoreBuilder(tmp_path / "a.db")
    tid, (unplayed, played, other) = b.tournament(
        "club", [("alpha", "aaa111"), ("alpha", "bbb222"), "bravo"])
    b.game(GameSpec(tid, 0, 0, 0, [played, other], [1, 2]))
    b.close()
    board = build_leaderboard(tmp_path / "a.db", "club")
    rows = {r.key: r for r in board.rows}
    assert rows["alpha@aaa111"].games == 0
    assert rows["alpha@bbb222"].note == "new (older: aaa111)"
    shown, hidden = newest_versions(board)
    assert hidden == 1 and [r.key for r in shown.rows if r.bot == "alpha"] == ["alpha@bbb222"]
