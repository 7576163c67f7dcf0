"""Rounds a bot did not play in Buchholz, as FIDE's tie-break rules count them: for its
opponents, each such round (a bye, a round before it joined, a round after it withdrew)
counts as a draw, whatever it scored."""

from __future__ import annotations

from fractions import Fraction

from arena.tournament.scoring import (
    Bye,
    PlayedTable,
    RoundRecord,
    Standing,
    compute_standings,
    round_draw_points,
    spec_field,
    virtual_opponents,
)
from arena.tournament.standings import scoring_inputs

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


def test_a_bye_recipients_own_buchholz_counts_a_virtual_opponent() -> None:
    """Five bots, two rounds:

    round 1: a beats b, c beats d, e has the bye;  round 2: e beats a, c beats b, d has the bye.
    Scores: a 1, b 0, c 2, d 1, e 2. Met, d counts 0 + 1/2 (its bye) = 1/2, e 1 + 1/2 = 3/2.
    At tables: a = b 0 + e 3/2 = 3/2;  b = a 1 + c 2 = 3;  c = d 1/2 + b 0 = 1/2;  d = c 2;
    e = a 1. For its bye each counts FIDE's virtual opponent, its score before the round +
    the win it did not give (1 - 1) + 1/2 for each round after: e (round 1) 0 + 0 + 1/2 =
    1/2, d (round 2) 0 + 0 + 0 = 0. Buchholz: e 3/2, d 2 (summing one round fewer, e had 1)."""
    a, b, c, d, e = range(5)
    tables = [PlayedTable(1, (a, b), (ONE, NONE)), PlayedTable(1, (c, d), (ONE, NONE)),
              PlayedTable(2, (e, a), (ONE, NONE)), PlayedTable(2, (c, b), (ONE, NONE))]
    by = _standings(5, tables, [Bye(1, e, ONE), Bye(2, d, ONE)])
    assert [by[x].score for x in range(5)] == [1, 0, 2, 1, 2]
    assert [by[x].buchholz for x in range(5)] == [
        Fraction(3, 2), 3, Fraction(1, 2), 2, Fraction(3, 2)]
    assert [s.entrant for s in sorted(by.values(), key=lambda s: s.rank)] == [e, c, d, a, b]


def test_the_virtual_opponent_is_fides_2009_formula() -> None:
    """FIDE's two examples (a win 1, a draw 1/2), nine rounds: P absent in round 3 with 3/2
    before it: 3/2 + (1 - 0) + 1/2 x 6 = 11/2; P's opponent absent in round 6 (a win by
    default) with 7/2 before it: 7/2 + (1 - 1) + 1/2 x 3 = 5. A late entrant's missed round
    1 of two: 0 + (1 - 0) + 1/2 = 3/2."""
    half = Fraction(1, 2)
    absent = RoundRecord({1: ONE, 2: half, 3: NONE}, {1, 2, 4, 5, 6, 7, 8, 9})
    default_win = RoundRecord({1: ONE, 2: ONE, 3: half, 4: ONE, 5: NONE, 6: ONE},
                              {1, 2, 3, 4, 5, 7, 8, 9})
    late = RoundRecord({2: ONE}, {2})
    records = {"absent": absent, "default_win": default_win, "late": late}
    assert virtual_opponents(records, ["absent", "default_win"], range(1, 10), half) == {
        "absent": Fraction(11, 2), "default_win": 5}
    assert virtual_opponents(records, ["late"], [1, 2], half) == {"late": Fraction(3, 2)}


def test_a_forfeit_is_a_result_not_an_unplayed_round() -> None:
    """Three bots, two rounds (a win 1 a game, a draw 1/2), c never starting in round 1:

    round 1: a vs c, c forfeits (a 1, c 0), b has the bye;  round 2: b beats a, c has the bye.
    Scores: a 1, b 2, c 1. Met, a counts 1, b 0 + 1/2 (its bye) + 1 = 3/2.
    Buchholz: a = c's 1/2 (0 + its bye's 1/2) + b 3/2 = 2;
              b = a 1 + its bye's virtual opponent 0 + (1 - 1) + 1/2 = 3/2;
              c = a 1 + its bye's virtual opponent 0 + (1 - 1) + 0 = 1.
    (Had the forfeit been a round not played, a would count 0 + 1/2 and c 1/2 + 1/2 met,
    and c's round 1 a virtual opponent 0 + 1 + 1/2: a 2, b 1, c 3/2.)"""
    spec = {"format": "swiss", "games_per_match": 1, "players_per_game": 2}
    played, byes, _, n = scoring_inputs(
        [(1, 0, [0, 2], [1, 1], {1}), (2, 0, [1, 0], [1, 2], set())],
        [(1, 1, 1.0), (2, 2, 1.0)], {0: 0, 1: 1, 2: 2}, 3, spec)
    by = {s.entrant: s for s in compute_standings(n, played, byes, None, 1,
                                                  round_draw_points(spec))}
    assert [by[x].score for x in range(3)] == [1, 2, 1]
    assert [by[x].buchholz for x in range(3)] == [2, Fraction(3, 2), 1]


def test_a_round_under_way_is_not_a_round_its_bots_did_not_play() -> None:
    """Five bots, round 2 under way (a win 1 a game, a bye 1):

    round 1: a beats b, c beats d, e has the bye;  round 2: a beats c, d has the bye, and b
    and e are paired but their game is not stored yet.
    Scores so far: a 2, b 0, c 1, d 1, e 1. Met, b counts 0 (round 2 is its to play, not a
    round without a table), d 0 + 1/2 (its bye), e 0 + 1/2 (its bye), a 2, c 1.
    Buchholz: a = b 0 + c 1 = 1;  b = a 2 = 2;  c = d 1/2 + a 2 = 5/2;
    d = c 1 + its bye's virtual opponent 0 + (1 - 1) + 0 = 1;
    e = its bye's virtual opponent 0 + (1 - 1) + 1/2 = 1/2.
    (Read as rounds without a table, b's and e's round 2 gave a 3/2, b 3 and e 5/2.)"""
    a, b, c, d, e = range(5)
    tables = [PlayedTable(1, (a, b), (ONE, NONE)), PlayedTable(1, (c, d), (ONE, NONE)),
              PlayedTable(2, (a, c), (ONE, NONE))]
    spec = {"format": "swiss", "games_per_match": 1, "players_per_game": 2,
            "entrants": ["a@1", "b@1", "c@1", "d@1", "e@1"]}
    standings = compute_standings(5, tables, [Bye(1, e, ONE), Bye(2, d, ONE)], None, 1,
                                  round_draw_points(spec), spec_field(spec))
    by = {s.entrant: s for s in standings}
    assert [by[x].buchholz for x in range(5)] == [1, 2, Fraction(5, 2), 1, Fraction(1, 2)]
