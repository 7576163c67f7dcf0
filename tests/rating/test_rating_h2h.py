"""Head-to-head counts, Wilson intervals and formats."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest
from rating_store_builder import GameSpec, StoreBuilder

from arena.rating.games import BotVersion, StoredGame
from arena.rating.h2h import build_h2h, compute_h2h, effective_games, render_h2h, wilson
from arena.rating.render import TABLE_FORMATS
from arena.rating.sprt import Z95

A = BotVersion("alpha", "v1", 1)
B = BotVersion("bravo", "v1", 2)
C = BotVersion("charlie", "v1", 3)


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # published values (e.g. Newcombe 1998, table I; Wikipedia's worked examples)
        (8, 10, 0.4902, 0.9433),
        (5, 10, 0.2366, 0.7634),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (1, 1, 0.2065, 1.0),
    ],
)
def test_wilson_known_values(successes: int, n: int, low: float, high: float) -> None:
    got = wilson(successes, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_properties() -> None:
    assert Z95 == pytest.approx(1.959964, abs=1e-6)
    low, high = wilson(2.5, 4)  # half successes from shared places are allowed
    assert 0 < low < 2.5 / 4 < high < 1
    lo1, hi1 = wilson(30, 60)
    lo2, hi2 = wilson(300, 600)
    assert hi2 - lo2 < hi1 - lo1  # more games, narrower
    with pytest.raises(ValueError):
        wilson(1, 0)
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_multiplayer_games_count_every_pair_and_ties_half() -> None:
    games = [
        StoredGame("t/0", 1, "t", 0, 0, 0, 10, (A, B, C), (1, 2, 3)),
        StoredGame("t/1", 1, "t", 0, 0, 1, 11, (A, B, C), (2, 2, 1)),
        StoredGame("t/2", 1, "t", 0, 1, 0, 12, (A, B), (2, 1)),
    ]
    h2h = compute_h2h(games)
    ab = h2h.pairs[("alpha@v1", "bravo@v1")]
    assert (ab.games, ab.ahead, ab.behind, ab.ties, ab.score) == (3, 1, 1, 1, 1.5)
    assert ab.win_rate == 0.5 and (ab.low, ab.high) == wilson(1.5, 3)
    ba = h2h.pairs[("bravo@v1", "alpha@v1")]
    assert (ba.ahead, ba.behind, ba.ties) == (ab.behind, ab.ahead, ab.ties)
    ca = h2h.pairs[("charlie@v1", "alpha@v1")]
    assert (ca.games, ca.ahead, ca.behind) == (2, 1, 1)
    assert h2h.bots == ["alpha@v1", "bravo@v1", "charlie@v1"]
    for (a, b), record in h2h.pairs.items():
        mirror = h2h.pairs[(b, a)]
        assert record.score + mirror.score == record.games


def _duplicate_games(outcomes: list[tuple[int, int]]) -> list[StoredGame]:
    """One deal per outcome pair, played from both seats: 1 = alpha placed first."""
    games = []
    for deal, pair in enumerate(outcomes):
        for seating, alpha_first in enumerate(pair):
            seats, places = ((A, B), (1, 2) if alpha_first else (2, 1))
            if seating:
                seats, places = (B, A), places[::-1]
            games.append(StoredGame(f"t/{2 * deal + seating}", 1, "t", 0, seating, deal,
                                    100 + deal, seats, places))
    return games


def test_deals_whose_outcomes_go_together_weigh_as_deals() -> None:
    """Duplicate seatings of one deal share its seed; when the same bot always wins a deal
    from both seats, 12 games are worth 6 trials (Kish's effective size), and the interval
    widens accordingly, still centred on the win rate."""
    games = _duplicate_games([(1, 1)] * 4 + [(0, 0)] * 2)
    ab = compute_h2h(games).pairs[("alpha@v1", "bravo@v1")]
    assert (ab.games, ab.deals, ab.ahead, ab.effective) == (12, 6, 8, 6.0)
    assert (ab.low, ab.high) == wilson(8 / 12 * 6, 6)
    assert ab.low < wilson(8, 12)[0] and ab.low < ab.win_rate < ab.high
    text = render_h2h(compute_h2h(games))
    assert "67% (" in text and ") n=12" in text and "deals (worth" not in text
    assert text.splitlines()[-1] == (
        "Deals repeat in several seatings: a pair's n games count as fewer independent ones "
        "(down to 50% of n here; Kish), and the intervals are that much wider; --format csv "
        "lists each pair's deals and effective games.")


def test_deals_split_between_seats_weigh_as_games() -> None:
    games = _duplicate_games([(1, 0)] * 3 + [(0, 1)] * 3)
    ab = compute_h2h(games).pairs[("alpha@v1", "bravo@v1")]
    assert (ab.games, ab.deals, ab.effective) == (12, 6, 12.0)
    assert (ab.low, ab.high) == wilson(6, 12)


def test_repeated_deals_that_weigh_as_games_widen_nothing_and_say_nothing() -> None:
    """Seatings that split every deal leave each pair its n games: a note saying they count
    as fewer ("down to 100% of n") and widen the intervals would be wrong."""
    text = render_h2h(compute_h2h(_duplicate_games([(1, 0)] * 3 + [(0, 1)] * 3)))
    assert "Deals repeat" not in text


def test_effective_games_lies_between_deals_and_games() -> None:
    assert effective_games(1.0, 12, [[2, 2]] * 6) == 6  # nothing varies: the deals count
    assert effective_games(0.5, 4, [[1, 1]] * 4) == 4  # every game its own deal
    mixed = [[2, 2], [1, 2], [0, 2], [2, 2], [1, 2], [2, 2]]
    assert 6 <= effective_games(8 / 12, 12, mixed) <= 12


def test_the_design_effect_takes_the_deals_sample_variance() -> None:
    """Four deals of two games, scored 2, 1, 0 and 1: the deals' totals vary by 2/3 around 1
    (the sample variance, over k - 1 deals), a deal of two independent games by 1/2, so the
    design effect is 4/3 and the 8 games weigh as 6."""
    assert effective_games(0.5, 8, [[2, 2], [1, 2], [0, 2], [1, 2]]) == pytest.approx(6.0)


def test_tables_of_other_sizes_with_the_same_seed_are_other_deals() -> None:
    two = StoredGame("t/0", 1, "t", 0, 0, 0, 5, (A, B), (1, 2))
    three = StoredGame("t/1", 1, "t", 0, 1, 0, 5, (A, B, C), (1, 2, 3))
    assert compute_h2h([two, three]).pairs[("alpha@v1", "bravo@v1")].deals == 2


def _store(path: Path) -> None:
    b = StoreBuilder(path)
    tid, (a, br, c) = b.tournament("cup", ["alpha", "bravo", "charlie"], players=3)
    for i in range(5):
        b.game(GameSpec(tid, 0, 0, i, [a, br, c], [1, 2, 3] if i % 2 else [1, 3, 2]))
    b.close()


def test_store_h2h_in_leaderboard_order(tmp_path: Path) -> None:
    _store(tmp_path / "a.db")
    h2h = build_h2h(tmp_path / "a.db", "cup")
    assert h2h.bots[0] == "alpha@v1"
    assert h2h.pairs[("alpha@v1", "bravo@v1")].win_rate == 1.0


@pytest.mark.parametrize("fmt", TABLE_FORMATS)
def test_every_tabulate_format_renders(tmp_path: Path, fmt: str) -> None:
    _store(tmp_path / "a.db")
    text = render_h2h(build_h2h(tmp_path / "a.db", "cup"), fmt)
    for name in ("alpha", "bravo", "charlie"):
        assert name in text


def test_json_and_csv_parse(tmp_path: Path) -> None:
    _store(tmp_path / "a.db")
    h2h = build_h2h(tmp_path / "a.db", "cup")
    doc = json.loads(render_h2h(h2h, "json"))
    assert len(doc["pairs"]) == 6 and doc["bots"] == h2h.bots
    rows = list(csv.DictReader(io.StringIO(render_h2h(h2h, "csv"))))
    assert len(rows) == 6
    first = rows[0]
    record = h2h.pairs[(first["a"], first["b"])]
    assert (int(first["games"]), float(first["low"])) == (record.games, record.low)
    for pair in doc["pairs"]:  # the rate and its interval as Elo differences, in order
        elos = [pair["elo_low"], pair["elo"], pair["elo_high"]]
        finite = [e for e in elos if e is not None]
        assert finite == sorted(finite)
        if pair["elo"] is not None:
            assert pair["elo"] == pytest.approx(-400 * math.log10(1 / pair["win_rate"] - 1))
        mirror = next(p for p in doc["pairs"] if (p["a"], p["b"]) == (pair["b"], pair["a"]))
        assert mirror["elo"] == (None if pair["elo"] is None else pytest.approx(-pair["elo"]))


def test_matrix_labels_use_keys_when_names_clash() -> None:
    a2 = BotVersion("alpha", "v2", 9)
    h2h = compute_h2h([StoredGame("t/0", 1, "t", 0, 0, 0, 0, (A, a2, B), (1, 2, 3))])
    text = render_h2h(h2h, "plain")
    assert "alpha@v1" in text and "alpha@v2" in text and "bravo@v1" not in text


def test_at_tables_of_three_or_more_the_matrix_says_a_cell_is_no_win_rate() -> None:
    """At a table of 4 a bot that placed ahead of another in 97% of their games may have won
    a quarter of them: the matrix says what its cells count, where a table seated more than
    two (at two, placed ahead is won)."""
    three = compute_h2h([StoredGame("t/0", 1, "t", 0, 0, 0, 10, (A, B, C), (1, 2, 3))])
    note = "a cell is how often the row's bot placed ahead of the column's"
    assert note in render_h2h(three) and note in render_h2h(three, width=60).replace("\n", " ")
    assert render_h2h(three, "tsv").count("\n") == 3  # a spreadsheet's rows: header and 3
    two = compute_h2h([StoredGame("t/0", 1, "t", 0, 0, 0, 10, (A, B), (1, 2))])
    assert "placed ahead" not in render_h2h(two)


def test_no_games_says_so_instead_of_an_empty_matrix() -> None:
    empty = compute_h2h([])
    assert render_h2h(empty) == "No games recorded yet: no head-to-head to show."
    assert render_h2h(empty, "csv").splitlines()[0].startswith("a,b,games")


def test_the_lines_a_pair_fit_a_narrow_terminal_even_with_long_names() -> None:
    # the main job's four bots at 40 columns: its lines a pair were 41 wide with 300 games,
    # so the terminal broke each in two
    bots = [BotVersion(name, "v1", i) for i, name in
            enumerate(("heuristic", "greedy", "collector", "random"), start=1)]
    games = [StoredGame(f"t/{n}", 1, "t", 0, n % 2, n, n, (bots[i], bots[j]), places)
             for n in range(300) for i in range(4) for j in range(i + 1, 4)
             for places in [(1, 2) if (n + i + j) % 3 else (2, 1)]]
    h2h = compute_h2h(games, order=[b.key for b in bots])
    text = render_h2h(h2h, width=40)
    lines = text.splitlines()
    assert max(map(len, lines)) <= 40, text
    assert lines[0].split() == ["bot", "vs", "ahead", "n"]
    assert lines[2].split()[:2] == ["heuristic", "greedy"] and lines[2].split()[3] == "300"
    assert "Not shown, to fit the terminal: the 95% intervals;" in " ".join(lines)
