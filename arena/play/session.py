"""A person's series at one table: games against bots through the sandboxed referee.

The series is a match as ``arena match`` plays it (:class:`~arena.rating.match_series.
MatchSeries`: the same referee, bot processes, seeds, house rules and records), with the
person's seat a :class:`~arena.referee.match.LocalSeat`. After each game the showdown is shown
with the running score, and the person chooses to play again, review the game (told whole,
every card shown: the game is over) or quit. Later games start with the previous game's loser
(ruling 13), as in any match.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.engine.narration import narrate
from arena.engine.record import cards_not_counted
from arena.play.keyboard import Ask
from arena.play.person import QUIT_WORDS, Person
from arena.play.screen import showdown_view
from arena.rating.match_series import MatchSeries
from arena.referee.failures import distinct_reasons, for_author
from arena.referee.match import GameOutcome, LocalSeat, MatchOutcome
from arena.referee.seeds import utc_today
from arena.registry import BotSpec
from arena.sandbox import Limits

__all__ = ["MAX_GAMES", "PlayRequest", "Series", "person_key"]

#: The most games of a series without ``games`` (the person quits long before).
MAX_GAMES = 10_000


def person_key(name: str) -> str:
    """How the person's seat is named in a record's ``referee.seats``."""
    return f"person:{name}"


@dataclass
class PlayRequest:
    """A table: the bots (filling the seats other than the person's, in order, as
    :func:`~arena.rating.match_series.told_apart` gives them), the person's seat and name, the
    match seed, how many games (None: until the person quits)."""

    bots: Sequence[BotSpec]
    seat: int = 0
    name: str = "you"
    seed: int = 0
    games: int | None = None
    rules: HouseRules = DEFAULT_RULES
    #: The JSONL file every game's record is added to as it ends (after those it holds).
    records: Path | None = None
    limits: Limits = field(default_factory=Limits)
    #: The person's ``last_read_page`` and ``last_book_finished`` (ISO texts), as a bot's
    #: metadata: who starts the first game (ruling 13) and breaks equal first place.
    metadata: dict[str, str] = field(default_factory=dict)
    #: The day the games count as played, which the players' reading dates are read against
    #: (rulings 12 and 13); None: today in UTC, taken as the series begins.
    event_date: dt.date | None = None


#: A review's first line while games are still to come: the table's seed would deal them.
_SEED_WITHHELD = ("The seed that deals this game again is told when the series ends (it deals "
                 "the games still to come).")


def _replay_line(seed: int, day: dt.date, game_index: int) -> str:
    """What deals a game of the table again: the seed ``--seed`` takes, as the series ends
    with it (``Seed 6``), and the day, which decides who starts the first game."""
    again = f"--seed {seed} --event-date {day}"
    if game_index == 0:
        return f"Seed {seed} ({again} deals this game again)"
    return (f"Seed {seed}, game {game_index + 1} ({again} deals game 1 again; later "
            "deals depend on who lost)")


def _failure_lines(game: GameOutcome, bots: Sequence[BotSpec]) -> list[str]:
    """Every distinct reason a bot failed in ``game``, with how often: a game has few (a bot
    is struck out after a handful), so none is left for a record to tell. Paths are named
    under the bot's own directory, as check-bot names them: the person may be its author."""
    lines = []
    failures = for_author(game.failures, game.names, {bot.name: bot.path for bot in bots})
    for reason in distinct_reasons((game.names[f["seat"]], str(game.game_index), f)
                                   for f in failures):
        times = f", {reason.times} times" if reason.times > 1 else ""
        lines.append(f"{reason.bot} {reason.type}{times}: {reason.detail}")
    return lines


class Series:
    """Plays a :class:`PlayRequest` with a :class:`Person` at the keyboard."""

    def __init__(self, request: PlayRequest, person: Person, console: Console,
                 ask: Ask) -> None:
        self.request = request
        self.person = person
        self.console = console
        self.ask = ask
        self.quit = False
        #: Whether the score line is the last thing the series showed (the closing summary
        #: leaves it out then, rather than say it twice in a row).
        self.score_shown = False
        seat = LocalSeat(person, request.name, key=person_key(request.name),
                         watch=person.watch, metadata=request.metadata, struck=person.struck,
                         waiting=person.waiting, gave_none=person.gave_none,
                         first_start=person.first_start)
        #: The day the games count as played (the request's, else today's, kept for the
        #: series: a game played past midnight is still on the day the series began).
        self.day = request.event_date or utc_today()
        self.match = MatchSeries(request.bots, request.games or MAX_GAMES, request.seed,
                                 request.limits, records=request.records,
                                 rules=request.rules, local={request.seat: seat},
                                 append_records=True,  # an earlier series' games are kept
                                 event_date=self.day)

    @property
    def played(self) -> list[GameOutcome]:
        return self.match.played

    def play(self) -> MatchOutcome:
        """Play until the person quits or the games are played; the bots are ended before
        this returns, however it ends (Ctrl-C, ``quit``, an error)."""
        return self.match.play(on_game=self._after_game, stop=lambda _played: self.quit)

    def score_line(self) -> str:
        """``After 2 games: alice 1 win, greedy 1 win`` (first places, not shared ones)."""
        games = self.played
        if not games:
            return "No game finished."
        names = games[0].names
        wins = [sum(1 for g in games if g.won(seat)) for seat in range(len(names))]
        parts = [f"{name} {n} win{'' if n == 1 else 's'}" for name, n in zip(names, wins,
                                                                             strict=True)]
        return f"After {len(games)} game{'' if len(games) == 1 else 's'}: {', '.join(parts)}"

    # -- between games ------------------------------------------------------------------
    def _after_game(self, game: GameOutcome) -> None:
        hands = self._shown_hands()
        self.console.print()
        self.console.print(showdown_view(game.record, self.request.seat, hands,
                                         cards_not_counted(game.record)))
        failed = _failure_lines(game, self.request.bots)
        if failed:  # a bot author at the table wants to know
            self.console.print(Text("Bot failures this game:"))
            for line in failed:
                self.console.print(Padding(Text(line), (0, 0, 0, 2), expand=False))
        self.console.print(Text(self.score_line(), style="bold"))
        self.score_shown = True
        last = self.request.games is not None and len(self.played) >= self.request.games
        while True:
            answer = self._menu(last)
            if answer == "review":
                self._review(game, last)
                continue
            self.quit = answer == "quit"
            self.score_shown = self.score_shown and self.quit
            return

    def _menu(self, last: bool) -> str:
        """``again``, ``review`` or ``quit`` (the last game of a set series: no again)."""
        if last:
            prompt = "Series over. r = review the game, q = quit (Enter = quit): "
        else:
            prompt = ("a = again (the loser starts), r = review the game, q = quit "
                      "(Enter = again): ")
        while True:
            try:
                line = self.ask(prompt, None)
            except EOFError:
                self.console.print()  # the prompt's line, ended
                return "quit"
            text = (line or "").strip().lower()
            if text in ("", "a", "again") and not last:
                return "again"
            if text in ("", "q", *QUIT_WORDS) and (text or last):
                return "quit"
            if text in ("r", "review"):
                return "review"
            self.console.print(Text(f"'{text}' is not a choice here: "
                                    + ("r or q." if last else "a, r or q.")))

    def _review(self, game: GameOutcome, last: bool) -> None:
        """The game told turn by turn, every card shown (it is over); in a pager on a
        terminal (q leaves it). Before the series' last game, without the table's seed:
        the games still to come are dealt from it."""
        # the telling names the game's own seed, derived from the table's: it is not what
        # --seed takes, so the seed the series ends with comes first
        first = (_replay_line(self.request.seed, self.day, game.game_index) if last
                 else _SEED_WITHHELD)
        lines = [first, *narrate(game.record)]
        if self.console.is_terminal:  # the pager's screen goes: the score stays above
            self.console.print("The whole game, every card shown (q leaves the pager).")
            with self.console.pager(styles=False):
                for line in lines:
                    self.console.print(Text(line))
            return
        self.score_shown = False  # the whole game is told after it
        self.console.print()
        for line in lines:
            self.console.print(Text(line))

    def _shown_hands(self) -> list[list[str]]:
        """The hands of the showdown event this seat was shown (every hand is public
        there); empty after an Ascension, which ends the game before a showdown."""
        for event in reversed(self.person.feed):
            if event.get("type") == "showdown":
                return [list(hand) for hand in event.get("hands", [])]
            if event.get("type") == "ascension":
                hands: list[list[str]] = [[] for _ in self.person.players]
                hands[int(event["seat"])] = list(event.get("hand", []))
                return hands
        return []

