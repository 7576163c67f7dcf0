"""The head-to-head statistics of ``arena match``: Elo with its interval, and the SPRT."""

from __future__ import annotations

import math
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.rating.h2h import wilson
from arena.rating.sprt import Score, SprtTest, describe_elo, elo_of_score, score_of_elo

counts = st.integers(min_value=0, max_value=400)


@given(st.floats(min_value=-1500, max_value=1500))
def test_score_and_elo_are_inverse(elo: float) -> None:
    assert elo_of_score(score_of_elo(elo)) == pytest.approx(elo, abs=1e-6)


def test_known_values() -> None:
    assert score_of_elo(0) == 0.5
    assert elo_of_score(0.75) == pytest.approx(190.848, abs=1e-3)  # 3 points in 4: +191
    assert SprtTest(0, 10).bounds == pytest.approx((-math.log(19), math.log(19)))  # ±2.944
    assert Score(3, 2, 1).mean == pytest.approx(4 / 6)
    assert Score(3, 0, 1).los() == pytest.approx(0.5 * (1 + math.erf(2 / math.sqrt(8))))


@given(counts, counts, counts)
def test_the_elo_interval_holds_the_estimate_and_mirrors(wins: int, draws: int,
                                                         losses: int) -> None:
    score = Score(wins, draws, losses)
    elo, low, high = score.elo()
    assert low <= elo <= high
    mirrored = Score(losses, draws, wins).elo()
    assert mirrored[0] == pytest.approx(-elo) if math.isfinite(elo) else mirrored[0] == -elo
    assert (mirrored[1], mirrored[2]) == pytest.approx((-high, -low))


@given(counts, counts)
def test_without_draws_the_llr_is_walds_for_a_coin(wins: int, losses: int) -> None:
    """The likelihood ratio of the very sequence of results under the two hypotheses."""
    test = SprtTest(-5, 20)
    s0, s1 = score_of_elo(-5), score_of_elo(20)
    expected = sum([math.log(s1 / s0)] * wins + [math.log((1 - s1) / (1 - s0))] * losses)
    assert test.llr(Score(wins, 0, losses)) == pytest.approx(expected, abs=1e-9)


@given(counts, counts, counts)
def test_a_win_never_lowers_the_llr_and_a_loss_never_raises_it(wins: int, draws: int,
                                                                losses: int) -> None:
    test = SprtTest(0, 10)
    score = Score(wins, draws, losses)
    assert test.llr(score.add(1.0)) > test.llr(score) > test.llr(score.add(0.0))
    between = test.llr(score.add(0.5))
    assert test.llr(score.add(0.0)) < between < test.llr(score.add(1.0))


def _run(test: SprtTest, elo: float, rng: random.Random, cap: int = 5000) -> str | None:
    """One sequential test of games won with the score of ``elo`` (no draws)."""
    p = score_of_elo(elo)
    score = Score()
    for _ in range(cap):
        score = score.add(1.0 if rng.random() < p else 0.0)
        decision = test.decision(score)
        if decision is not None:
            return decision
    return None


def test_the_error_rates_are_those_asked_for() -> None:
    """1,500 simulated tests at each hypothesis (a fixed seed): a wrong acceptance at most
    about alpha (beta) of the time, as Wald's bounds promise (the margins are about one
    standard error of such a count)."""
    test = SprtTest(0, 40, alpha=0.05, beta=0.1)
    rng = random.Random(2026)
    runs = 1500
    under_h0 = [_run(test, 0, rng) for _ in range(runs)]
    under_h1 = [_run(test, 40, rng) for _ in range(runs)]
    assert None not in under_h0 and None not in under_h1
    assert under_h0.count("H1") / runs <= 0.05 + 0.006
    assert under_h1.count("H0") / runs <= 0.1 + 0.008
    assert under_h0.count("H0") / runs > 0.9 and under_h1.count("H1") / runs > 0.85


@pytest.mark.parametrize(("args", "message"), [
    ((10, 0), "elo0 must be below elo1, got 10 and 0"),
    ((0, 10, 0.5), "alpha must be between 0 and 0.5, got 0.5"),
    ((0, 10, 0.05, 0.0), "beta must be between 0 and 0.5, got 0"),
    ((-1e6, 0), "elo0 must lie within ±2000, got -1e+06"),  # a score of 0 has no logarithm
    ((5, 5), "elo0 must be below elo1, got 5 and 5"),  # the LLR would stay 0: no decision
])
def test_a_test_that_cannot_decide_is_refused(args: tuple[float, ...], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        SprtTest(*args)


@given(counts, counts, counts)
def test_the_elo_line_never_shows_an_infinity(wins: int, draws: int, losses: int) -> None:
    """A side that lost (won) every game printed "Elo difference -inf": it gets a bound."""
    text = describe_elo(Score(wins, draws, losses))
    assert "inf" not in text and "nan" not in text


@pytest.mark.parametrize("games", [1, 10, 200])
def test_every_game_lost_bounds_the_elo_from_above_as_h2h_bounds_the_rate(games: int) -> None:
    elo, low, high = Score(0, 0, games).elo()
    assert elo == low == -math.inf
    assert high == pytest.approx(elo_of_score(wilson(0, games)[1]))
    assert describe_elo(Score(0, 0, games)) == (
        f"at most {high:+.1f} (95% bound; every game lost, so no estimate)")
    assert describe_elo(Score(games, 0, 0)) == (
        f"at least {-high:+.1f} (95% bound; every game won, so no estimate)")
    assert Score(0, 0, 2 * games).elo()[2] < high  # more games, a tighter bound


def test_an_interval_open_at_one_end_says_so() -> None:
    assert describe_elo(Score(0, 1, 9)).endswith("(95%: up to -311.1, unbounded below)")
    assert describe_elo(Score(9, 1, 0)).endswith("(95%: from +311.1, unbounded above)")
    assert describe_elo(Score(58, 1, 41)) == "+59.6 (95%: -7.7 to +131.8)"


def test_a_shared_place_counts_half_a_win_and_half_a_loss_in_the_llr() -> None:
    """30 wins, 10 shared places, 20 losses at 0,10: 35 points won and 25 lost. The figure
    is below the 0.3157 of fastchess's logistic trinomial test (docs/BOTS.md says why)."""
    assert SprtTest(0, 10).llr(Score(30, 10, 20)) == pytest.approx(0.26297, abs=5e-5)
    assert SprtTest(0, 10).llr(Score(12, 0, 8)) == pytest.approx(0.10685, abs=5e-5)


def test_unequal_error_rates_set_each_bound_from_both() -> None:
    """Wald's bounds as cutechess-cli and fastchess set them: H0 at ln(beta / (1 - alpha)),
    H1 at ln((1 - beta) / alpha)."""
    assert SprtTest(0, 10, alpha=0.05, beta=0.1).bounds == pytest.approx(
        (-2.25129, 2.89037), abs=5e-5)
    assert SprtTest(0, 10, alpha=0.1, beta=0.05).bounds == pytest.approx(
        (-2.89037, 2.25129), abs=5e-5)


def test_the_likelihood_of_superiority_ignores_shared_places() -> None:
    """cutechess-cli's LOS: 3 wins and 1 loss give 84.1% with or without shared places."""
    assert Score(3, 4, 1).los() == pytest.approx(0.84134, abs=5e-5)
    assert Score(3, 4, 1).los() == Score(3, 0, 1).los()
    assert Score(0, 5, 0).los() == 0.5


def test_the_elo_interval_is_cutechess_clis() -> None:
    """cutechess-cli prints 30 wins, 10 draws, 20 losses as 58.45 +/- 82.82: the half distance
    between the ends given here."""
    elo, low, high = Score(30, 10, 20).elo()
    assert (elo, low, high) == pytest.approx((58.451, -21.023, 144.621), abs=5e-4)
    assert (high - low) / 2 == pytest.approx(82.822, abs=5e-4)
