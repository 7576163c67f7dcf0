"""Rounds a bot did not play in Buchholz, as FIDE's tie-break rules count them: for its
opponents, each such round (a bye, a round before it joined, a round after it withdrew)
counts as a draw, whatever it scored."""

from __future__ import annotations

from fractions import Fraction

from arena.tournament.scoring import (
    Bye,
    PlayedTable,
    Standing,
    compute_standings,
    round_draw_points,
)

ONE, NONE = Fraction(1), Fraction(0)


def _standings(n: int, tables: list[PlayedTable], byes: list[Bye]) -> dict[int, Standing]:
    """Standings at tables of 2, one game a match (a win 1, a draw 1/2, a bye 1)."""
    draw = round_draw_points({"format": "swiss", "games_per_match": 1, "players_per_game": 2})
    return {s.entrant: s for s in compute_standings(n, tables, byes, None, 1, draw)}


def test_a_bye_counts_as_a_draw_in_the_opponents_buchholz() -> None:
    """Five bots, two rounds:

    round 1: a beats b, d beats c, e has the bye;  round 2: c beats e, b beats d, a has the bye.
    Scores: a 2, b 1, c 1, d 1, e 1. For their opponents a counts 1 (won) + 1/2 (its bye, a
    draw) = 3/2, e 0 + 1/2 = 1/2, the others their scores.
    Buchholz: b = a 3/2 + d 1 = 5/2;  c = d 1 + e 1/2 = 3/2;  d = c 1 + b 1 = 2.
    d now ranks above c; counted at the wins their byes scored (a 2, e 1) the byes gave
    b 3, and c and d 2 each, c first by entry order."""
    a, b, c, d, e = range(5)
    tables = [PlayedTable(1, (a, b), (ONE, NONE)), PlayedTable(1, (d, c), (ONE, NONE)),
              PlayedTable(2, (c, e), (ONE, NONE)), PlayedTable(2, (b, d), (ONE, NONE))]
    by = _standings(5, tables, [Bye(1, e, ONE), Bye(2, a, ONE)])
    assert [by[x].score for x in range(5)] == [2, 1, 1, 1, 1]
    assert [by[x].buchholz for x in (b, c, d)] == [Fraction(5, 2), Fraction(3, 2), 2]
    assert by[d].rank < by[c].rank


def test_a_late_entrants_missed_rounds_count_as_draws_in_its_opponents_buchholz() -> None:
    """Four bots, two rounds, d joining in round 2:

    round 1: a beats b, c has the bye (d not in yet);  round 2: d beats a, c beats b.
    Scores: a 1, b 0, c 2, d 1. For their opponents d counts 1 + 1/2 (round 1, missed) =
    3/2, c 1 + 1/2 (its bye) = 3/2, a 1, b 0.
    Buchholz: a = b 0 + d 3/2 = 3/2;  b = a 1 + c 3/2 = 5/2.
    (Counting the round d missed as the 0 it scored gave a 1.)"""
    a, b, c, d = range(4)
    tables = [PlayedTable(1, (a, b), (ONE, NONE)), PlayedTable(2, (d, a), (ONE, NONE)),
              PlayedTable(2, (c, b), (ONE, NONE))]
    by = _standings(4, tables, [Bye(1, c, ONE)])
    assert [by[x].score for x in range(4)] == [1, 0, 2, 1]
    assert [by[x].buchholz for x in (a, b)] == [Fraction(3, 2), Fraction(5, 2)]
