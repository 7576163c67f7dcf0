"""A match as ``arena match`` plays it: bots told apart, seatings by the deal, game records
written as the games end, and an optional sequential test that stops it once decided.

The CLI parses the options and presents; this module plays and reports. A
:class:`MatchSeries` keeps the games finished so far in :attr:`MatchSeries.played`, so that a
caller stopped by Ctrl-C can still say how far the match got.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO

from arena.common.lookalike import disguise, look_alike_of, spelled
from arena.common.names import name_problem
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.errors import ArenaError, BotError, BotNameError
from arena.rating.sprt import Score, SprtTest
from arena.referee.match import GameOutcome, LocalSeat, MatchOutcome, MatchRequest, play_match
from arena.referee.seating import seatings_per_deal
from arena.registry import BotSpec, registered_names, resolve_named
from arena.sandbox import Limits
from arena.tournament.dealbook import table_deals

__all__ = [
    "SPRT_GAMES",
    "MatchSeries",
    "default_seating",
    "first_bot_score",
    "games_per_deal",
    "never_started",
    "told_apart",
    "wins_so_far",
]

#: The most games a sequential test plays when no number of games is given.
SPRT_GAMES = 2000


def default_seating(sequential: bool) -> str:
    """The seating when none is asked for: a sequential test plays each deal both ways."""
    return "rotations" if sequential else "none"


def games_per_deal(bots: int, seating: str) -> int:
    """How many games one deal takes under ``seating`` (a match's games come in whole deals)."""
    return seatings_per_deal(bots, seating) if bots <= 5 else 1


def told_apart(entrants: Sequence[BotSpec | str]) -> list[BotSpec]:
    """The match's bots, resolved; a bot entered more than once (self-play) is named
    ``name#1``, ``name#2``, ... so that its rows and places can be told apart. Two names a
    reader cannot tell apart (:mod:`arena.common.lookalike`) are refused, as ``arena run``
    refuses them, and so is a name the rule of :mod:`arena.common.names` refuses (a bot's own
    files may give it any text). The rule has no ``#``: no bot's own name passes for a
    numbered copy. Called once on the entrants as given (numbered names are refused)."""
    specs = [e if not isinstance(e, str) else resolve_named(e) for e in entrants]
    names = [s.name for s in specs]
    known = registered_names() if not all(name.isascii() for name in names) else []
    for i, name in enumerate(names):
        if (twin := look_alike_of(name, names[:i])) is not None:
            raise BotError(f"the names {spelled(twin)} and {spelled(name)} look alike (the "
                           "same letters to the eye, or but for case): the results could not "
                           "tell the two bots apart; register one under another name (arena "
                           "submit BOT --name NAME)")
    for name in names:
        if (disguised := disguise(name, known)) is not None:
            raise BotError(f"the name {spelled(name)} {disguised}: a reader would take it for "
                           "another name; register the bot under another name (arena submit "
                           "BOT --name NAME)")
    for name in names:  # after the look-alikes: their messages name both bots
        if (problem := name_problem(name)) is not None:
            raise BotNameError(f"{problem}; register the bot under another name (arena "
                               "submit BOT --name NAME)")
    seen: dict[str, int] = {}
    for i, spec in enumerate(specs):
        if names.count(spec.name) > 1:
            seen[spec.name] = seen.get(spec.name, 0) + 1
            specs[i] = replace(spec, name=f"{spec.name}#{seen[spec.name]}")
    return specs


def first_bot_score(games: Sequence[GameOutcome]) -> Score:
    """The first bot's score against the second: a better place 1, the same 1/2, worse 0
    (a forfeited seat is placed last); a game both forfeited is no game between them (E28)."""
    score = Score()
    for game in games:
        seats = game.seat_of(0), game.seat_of(1)
        if all(seat in game.forfeits for seat in seats):
            continue
        first, second = (game.standing_place(seat) for seat in seats)
        score = score.add(1.0 if first < second else 0.0 if first > second else 0.5)
    return score


def never_started(outcome: MatchOutcome) -> list[str]:
    """The bots whose every game was a failed start: the match measured nothing of them."""
    names = outcome.names
    return [names[seat] for seat in range(len(names))
            if outcome.games and all(game.forfeits.get(game.seat_of(seat))
                                     == "startup_failure"
                                     for game in outcome.games)]


def wins_so_far(played: Sequence[GameOutcome]) -> list[tuple[str, int]]:
    """(name, games won) of each bot over ``played``, in the match's order."""
    names = played[0].names  # the first game of a deal seats the bots in the match's order
    return [(name, sum(1 for game in played if game.won(game.seat_of(index))))
            for index, name in enumerate(names)]


@dataclass
class MatchSeries:
    """One match: ``games`` games (a whole number of deals) of ``bots`` (as :func:`told_apart`
    gives them) from ``seed``, each
    deal played in the seat orders of ``seating``. With ``test`` the match stops as soon as
    the test decides; with ``records`` every game's record is written there as it ends (the
    file is opened at the first finished game: a match that cannot start leaves none)."""

    bots: Sequence[BotSpec]
    games: int
    seed: int
    limits: Limits
    seating: str = "none"
    test: SprtTest | None = None
    records: Path | None = None
    #: The games' house rules.
    rules: HouseRules = DEFAULT_RULES
    #: Let the bots run while not asked (by default each is stopped between its decisions).
    ponder: bool = False
    #: In-process seats by seat number (a person at the table, ``arena play``); the bots
    #: fill the other seats.
    local: Mapping[int, LocalSeat] = field(default_factory=dict)
    #: A deal book's deals (game seeds), played in order, one a deal, from the start again
    #: past the book's end; empty: each deal's seed derives from ``seed``.
    deals: tuple[int, ...] = ()
    #: The day the games count as played (rulings 12 and 13); None: today in UTC.
    event_date: dt.date | None = None
    #: The games finished so far, in order (kept when the match is interrupted).
    played: list[GameOutcome] = field(default_factory=list)
    #: Add the records to those ``records`` holds (a person's games, ``arena play``) rather
    #: than replace them (a match's, which its file describes alone).
    append_records: bool = False

    @property
    def per_deal(self) -> int:
        return games_per_deal(len(self.bots), self.seating)

    def whole_deals(self) -> list[GameOutcome]:
        """The games played so far, up to the last whole deal (what a test counts)."""
        return self.played[:len(self.played) - len(self.played) % self.per_deal]

    def decided(self, played: Sequence[GameOutcome]) -> bool:
        """Whether the test (if any) has decided after ``played``."""
        return self.test is not None and self.test.decision(first_bot_score(played)) is not None

    def play(self, on_game: Callable[[GameOutcome], None] | None = None,
             stop: Callable[[list[GameOutcome]], bool] | None = None) -> MatchOutcome:
        """Play the match through the sandbox; ``on_game`` sees each game as it ends;
        ``stop``, asked after each, ends the match early (as a decided test does)."""
        opened: list[IO[str]] = []

        def finished(game: GameOutcome) -> None:
            self.played.append(game)
            self._write(game, opened)
            if on_game is not None:
                on_game(game)

        request = MatchRequest(bots=self.bots, games=self.games, seed=self.seed,
                               limits=self.limits, duplicate=self.seating, rules=self.rules,
                               ponder=self.ponder, local=self.local,
                               event_date=self.event_date,
                               deal_seeds=table_deals(self.deals, 1, self.games // self.per_deal),
                               same_files=True, look_beside=True)

        def done(played: list[GameOutcome]) -> bool:
            return self.decided(played) or (stop is not None and stop(played))

        try:
            return play_match(request, on_game=finished, stop=done)
        finally:
            for out in opened:
                out.close()

    def _write(self, game: GameOutcome, opened: list[IO[str]]) -> None:
        if self.records is None:
            return
        try:
            if not opened:
                opened.append(self.records.open("a" if self.append_records else "w",
                                                encoding="utf-8"))
            opened[0].write(json.dumps(game.record, separators=(",", ":")) + "\n")
            opened[0].flush()
        except OSError as exc:  # a full disk, say: the match stops, its bots ended
            raise ArenaError(f"cannot write game records to {self.records}: "
                             f"{exc.strerror or exc}") from None
