"""Two bots head to head: the Elo difference with its error bar, and a sequential test.

What a bot author asks after a change, "is the new version better?", is answered in the
fewest games by a sequential probability ratio test (SPRT), as chess engine testers do
(cutechess-cli, fastchess, fishtest): after every game the log-likelihood ratio (LLR) of
"the first bot is ``elo1`` stronger" against "it is ``elo0`` stronger" is compared with two
bounds set by the error rates ``alpha`` (accepting H1 when H0 holds) and ``beta`` (the
reverse); the match stops when one is crossed.

The model is the logistic one over game scores (a win 1, a shared place 1/2, a loss 0), and
the test Wald's own for a score: with ``S`` points in ``n`` games and ``s0``, ``s1`` the
expected scores of ``elo0``, ``elo1``,
``LLR = S ln(s1 / s0) + (n - S) ln((1 - s1) / (1 - s0))``. It is exact when no place is
shared; a shared place counts as half a win and half a loss, a variance above its own, so
the test then takes a few more games than it must and is never surer than it should be.
(The generalised SPRT of fastchess estimates the variance from the games instead: fewer
games on long matches, but over-confident on short ones, where a run of wins shows none.)
Pure functions, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

__all__ = ["MAX_ELO", "Z95", "Score", "SprtTest", "describe_elo", "elo_of_score",
           "score_of_elo"]

#: The largest Elo difference a test may name: far past any pair of bots worth testing, and
#: well inside floating point (an expected score of exactly 1 has no logarithm).
MAX_ELO = 2000.0
Z95 = NormalDist().inv_cdf(0.975)
"""1.959963984540054: the two-sided 95% normal quantile (the h2h intervals' too)."""


def score_of_elo(elo: float) -> float:
    """The expected score of a bot ``elo`` points stronger (logistic model)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of_score(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: an even score is 0, not -0


@dataclass(frozen=True)
class Score:
    """Games of the first bot against the second: wins, shared places, losses."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def mean(self) -> float:
        """The first bot's mean score (a win 1, a draw 1/2)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    @property
    def variance(self) -> float:
        """Per-game variance of the score."""
        n, s = self.games, self.mean
        if not n:
            return 0.0
        return (self.wins * (1 - s) ** 2 + self.draws * (0.5 - s) ** 2
                + self.losses * s ** 2) / n

    def elo(self) -> tuple[float, float, float]:
        """The Elo difference and its 95% interval (low, high), from the score's normal
        interval: lopsided far from even, and open (infinite) towards a score of 0 or 1.
        Every game won (lost) has no finite estimate and no variance to go by, but still
        bounds the difference from one side: the Wilson interval's end, as ``arena h2h``
        gives it. Every game a shared place has no interval: unbounded both ways."""
        n, s = self.games, self.mean
        if n and self.variance <= 0.0 and s in (0.0, 1.0):
            bound = Z95 * Z95 / (n + Z95 * Z95)  # the Wilson interval's end at a rate of 0
            if s == 0.0:
                return -math.inf, -math.inf, elo_of_score(bound)
            return math.inf, elo_of_score(1.0 - bound), math.inf
        if not n or self.variance <= 0.0:
            return elo_of_score(s), -math.inf, math.inf
        margin = Z95 * math.sqrt(self.variance / n)
        return elo_of_score(s), elo_of_score(s - margin), elo_of_score(s + margin)

    def los(self) -> float:
        """Likelihood of superiority: the chance the first bot is the stronger, from wins
        and losses alone (draws say nothing about it)."""
        decided = self.wins + self.losses
        if not decided:
            return 0.5
        return 0.5 * (1.0 + math.erf((self.wins - self.losses) / math.sqrt(2.0 * decided)))

    def add(self, points: float) -> Score:
        """This score after one more game where the first bot scored ``points``."""
        if points == 1.0:
            return Score(self.wins + 1, self.draws, self.losses)
        if points == 0.0:
            return Score(self.wins, self.draws, self.losses + 1)
        return Score(self.wins, self.draws + 1, self.losses)


def describe_elo(score: Score) -> str:
    """The Elo difference and its 95% interval in words, ``+59.6 (95%: -7.7 to +131.8)``.
    An infinite figure is no estimate: every game won or lost gives the bound instead
    (``at most -204.1 (95% bound; every game lost, so no estimate)``), and an interval
    open at one end says so."""
    elo, low, high = score.elo()
    if math.isinf(elo):
        if elo < 0:
            return f"at most {_signed(high)} (95% bound; every game lost, so no estimate)"
        return f"at least {_signed(low)} (95% bound; every game won, so no estimate)"
    if math.isinf(low) and math.isinf(high):
        return f"{_signed(elo)} (no interval while every game ended alike)"
    if math.isinf(low):
        return f"{_signed(elo)} (95%: up to {_signed(high)}, unbounded below)"
    if math.isinf(high):
        return f"{_signed(elo)} (95%: from {_signed(low)}, unbounded above)"
    return f"{_signed(elo)} (95%: {_signed(low)} to {_signed(high)})"


def _signed(value: float) -> str:
    return f"{value:+.1f}"


@dataclass(frozen=True)
class SprtTest:
    """H0: the first bot is ``elo0`` stronger; H1: ``elo1`` stronger (``elo0 < elo1``)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name, value in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not (math.isfinite(value) and abs(value) <= MAX_ELO):
                raise ValueError(f"{name} must lie within ±{MAX_ELO:g}, got {value:g}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got {self.elo0:g} and {self.elo1:g}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, got {value:g}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): the LLR at which H0, or H1, is accepted."""
        return (math.log(self.beta / (1 - self.alpha)),
                math.log((1 - self.beta) / self.alpha))

    def llr(self, score: Score) -> float:
        """The log-likelihood ratio of H1 against H0 after ``score``'s games."""
        s0, s1 = score_of_elo(self.elo0), score_of_elo(self.elo1)
        points = score.wins + 0.5 * score.draws
        return (points * math.log(s1 / s0)
                + (score.games - points) * math.log((1 - s1) / (1 - s0)))

    def decision(self, score: Score) -> str | None:
        """"H1" (the first bot is at least ``elo1`` stronger), "H0" (at most ``elo0``), or
        None while the test goes on."""
        llr = self.llr(score)
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None

    def describe(self) -> str:
        return (f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} "
                f"beta={self.beta:g}")
