"""A person in one seat: an in-process agent whose answers come from the keyboard.

:class:`Person` is what the referee's :class:`~arena.referee.match.LocalSeat` holds for
``arena play``: the referee asks it each of the seat's decisions with the seat's observation
(``choose``) and tells it the seat's own events as they happen (``watch``), exactly what a bot
in that seat is sent. It reads lines through an ``ask`` function (the terminal's,
:func:`arena.play.keyboard.terminal_ask`, or a script in tests) and writes through a rich
console.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich.console import Console, RenderableType
from rich.padding import Padding
from rich.text import Text

from arena.engine import Decision, Observation
from arena.engine.cards import NEMESIS
from arena.engine.houserules import DEFAULT_RULES, RULE_HELP, HouseRules
from arena.engine.narration import event_sentence
from arena.play.draw_reasons import DrawReasons
from arena.play.idle_effects import PublicCounts, idle_notes, reveal_targets
from arena.play.keyboard import Ask
from arena.play.known_traps import KnownTraps
from arena.play.labels import (
    card_face,
    card_text,
    cards_in,
    kind_help,
    option_label,
    played_for_another,
)
from arena.play.screen import (
    Numbering,
    Received,
    decision_view,
    graveyards_view,
    hand_line,
    option_numbers,
    table_view,
)
from arena.play.used_cards import UsedCards

__all__ = ["QUIT_WORDS", "LeftTable", "Person"]

#: Words that leave the table at any prompt.
QUIT_WORDS = ("quit", "exit")


class LeftTable(Exception):  # noqa: N818 - not an error: the person chose to go
    """The person left the table (typed ``quit`` or closed the input)."""


#: How a bot's strike is told at the table (arena.referee.failures' strike types).
_STRUCK = {"timeout": "ran out of time", "protocol_error": "sent no valid answer",
           "illegal_choice": "chose no legal option"}


def later_start_reason(placements: Sequence[int] | None, starting: object) -> str | None:
    """Why ``starting`` starts a game after one that ended in ``placements`` (ruling 13: its
    loser, or a lot among several placed last), from those public places alone; None
    without them, or where they do not account for it."""
    if not placements or not isinstance(starting, int):
        return None
    losers = [seat for seat, place in enumerate(placements) if place == max(placements)]
    if starting not in losers:
        return None
    if len(losers) == 1:
        return "the loser of the game before"
    return f"drawn by lot among the {len(losers)} players placed last in the game before"


class Person:
    """The keyboard's seat. ``clock`` (seconds per decision, None: no limit) plays the safe
    default when it runs out (at a throw, which has none, the referee draws one by lot: it
    asks :meth:`gave_none`); ``pace`` pauses after each line telling what another player did,
    so the table can be followed as it plays. An empty line (Enter) plays option 0 where it
    is a safe default and asks again where the rules force the choice (an Enter pressed by
    mistake must not discard a card), unless ``enter_anywhere``: lines from a pipe or a file,
    where asking again would read the line meant for the next decision."""

    def __init__(self, console: Console, ask: Ask, seat: int, *, clock: float | None = None,
                 pace: float = 0.0, sleep: Callable[[float], None] = time.sleep,
                 rules: HouseRules = DEFAULT_RULES, enter_anywhere: bool = False) -> None:
        self.console = console
        self.enter_anywhere = enter_anywhere
        self.rules = rules
        self.ask = ask
        self.clock = clock
        #: Whether the clock ran out at the last decision (no answer of the person's).
        self.timed_out = False
        self.pace = pace
        self.sleep = sleep
        self.seat = seat
        self.players: list[str] = []
        #: This game's events as the seat was shown them (the showdown reads its hands).
        self.feed: list[dict[str, Any]] = []
        #: Whether another player acted since the table was last shown.
        self.moved = True
        #: Games begun at this table.
        self.games = 0
        #: Seats that forfeited this game (marked on the table: they cannot win).
        self.forfeited: set[int] = set()
        #: Whether this game's showdown hands were told before a tie-break throw.
        self.showdown_told = False
        #: What was told since this seat's last decision (``news``: before the one asked
        #: now, which ``l`` shows again).
        self.recent: list[str] = []
        self.news: list[str] = []
        #: The heading of the turn begun, printed only if something is told before the
        #: table (whose own heading says whose turn it is) is shown: a trap triggered at the
        #: start of the turn would otherwise read as part of the turn before, and a window
        #: opened at its start would show the turn's heading twice.
        self.heading: str | None = None
        #: The Discard Graveyard's size and the trap counts as told so far: why an effect
        #: came to nothing, said after it.
        self.counts = PublicCounts(seat)
        #: Under reclaim=strict, the cards this seat used for an effect (not in its Desmos).
        self.used = UsedCards(seat)
        #: The other seats' traps whose card this seat was told (set revealed, or seen).
        self.known_traps = KnownTraps()
        #: The draws each seat owes, which say why a draw is made as it is told.
        self.draws = DrawReasons()
        #: Why the series' first game's starting seat starts (ruling 13), said as it begins.
        self.start_reason: str | None = None
        #: The last game's places as its end told them: who starts the next (ruling 13).
        self.last_placements: list[int] | None = None

    # -- what the referee calls -------------------------------------------------------
    def watch(self, events: list[dict[str, Any]]) -> None:
        """Tell the seat's new events, one sentence each, pausing after other players'."""
        for event in events:
            kind = event.get("type")
            if kind == "game_start":
                self.feed = []
                self.forfeited = set()
                self.showdown_told = False
                self.players = [str(p) for p in event.get("players", [])]
            elif kind == "forfeit" and isinstance(event.get("seat"), int):
                self.forfeited.add(event["seat"])
            elif kind == "game_end":
                self.last_placements = [int(p) for p in event.get("placements", [])]
            self.feed.append(event)
            self._tell(event, self.draws.follow(event))
            self.counts.follow(event)
            self.used.follow(event)
            self.known_traps.follow(event)

    def struck(self, seat: int, failure: str, decision: Decision) -> None:
        """A bot's answer earned a strike (at its ``decision``): said at once, or its
        default move would read as its choice (the detail, which may quote the bot's log,
        comes after the game), with what is played for it as this seat may know it (a
        hold, a target; a card of the bot's only as "a card"); at a throw, which has no
        default, one drawn by lot (E34)."""
        name = self.players[seat] if 0 <= seat < len(self.players) else f"seat {seat}"
        what = _STRUCK.get(failure, failure.replace("_", " "))
        first = decision.options[0] if decision.options else {}
        played = played_for_another(decision.kind, first, self.players, decision.context)
        text = f"{name} {what}: {played} (a strike)"
        self.recent.append(f"  {text}")
        self._indented(text, style="italic")

    def first_start(self, drawn: bool) -> None:
        """The series' first game is dealt: its starting seat was ``drawn`` by lot, or read
        a page of a printed book most recently (ruling 13)."""
        self.start_reason = ("drawn by lot: no single player read a page of a printed book most "
                             "recently" if drawn else
                             "the most recent to read a page of a printed book")

    def waiting(self, bot: str, what: str, limit_ms: int) -> None:
        """A bot has kept the table waiting a while: said, so the screen is not silent."""
        text = f"waiting for {bot} to answer {what} (it has up to {limit_ms / 1000:g} s)..."
        self._indented(text, style="italic")

    def choose(self, decision: Decision, observation: Observation) -> int:
        """Show the table and the options; read until a legal answer (or the clock)."""
        self.players = list(observation.players)
        self.counts.set_from(observation)
        self.used.set_from(observation)
        dead = self.used.dead(observation)
        if decision.kind == "rps":
            self._tell_showdown()
        if decision.kind == "turn" or self.moved:
            self.console.print(self._table(observation))
        else:  # the same turn goes on: the table has not changed but for the hand
            self.console.print(hand_line(observation, self.rules, dead))
        self.moved = False
        self.heading = None
        self.news, self.recent = self.recent, []
        numbering = option_numbers(decision, observation)
        self.console.print(decision_view(decision, self.players, self._received(decision),
                                         numbering, idle_notes(observation),
                                         reveal_targets(observation)))
        deadline = None if self.clock is None else time.monotonic() + self.clock
        self.timed_out = False
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return self._timed_out(decision, numbering)
            clock = "" if left is None else f"; {max(1, round(left))}s left"
            enter = f"Enter = {numbering.shown[0]}, " if self._enter_plays(decision) else ""
            prompt = f"Choose {numbering.spans} ({enter}? = help{clock}): "
            try:
                line = self.ask(prompt, left)
            except EOFError:
                self.console.print()  # the prompt's line, ended
                raise LeftTable from None
            if line is None:
                return self._timed_out(decision, numbering)
            choice = self._answer(line.strip(), decision, observation, numbering)
            if choice is not None:
                return choice

    def _table(self, view: Observation) -> RenderableType:
        """The table as this seat knows it: its cards used (strict), the traps it knows."""
        known = [self.known_traps.of(seat, count) for seat, count in enumerate(view.trap_counts)]
        return table_view(view, self.rules, forfeited=self.forfeited,
                          dead=self.used.dead(view), known_traps=known)

    def _received(self, decision: Decision) -> Received | None:
        """The card a Nemesis's opponent just gave this seat, and who gave it, when this
        seat now gives one back: its gift is the last event it was told (E29)."""
        last = self.feed[-1] if self.feed else {}
        if (decision.kind != "give" or decision.context.get("source") != NEMESIS
                or last.get("type") != "give" or last.get("target") != self.seat
                or not isinstance(last.get("card"), str)):
            return None
        giver = last.get("seat")
        name = self.players[giver] if isinstance(giver, int) and 0 <= giver < len(
            self.players) else "them"
        return Received(str(last["card"]), name)

    # -- reading an answer ---------------------------------------------------------------
    def _answer(self, text: str, decision: Decision, view: Observation,
                numbering: Numbering) -> int | None:
        """The option ``text`` picks, or None after a command (help, a card's text) or a
        refusal: a line that is not an option changes nothing."""
        if text == "":
            if self._enter_plays(decision):
                return 0
            # a forced choice has no default: an Enter pressed by mistake must not lose a card
            self.console.print(f"This choice has no default: type a number {numbering.spans} "
                               "(? for help).")
            return None
        # isdecimal, not isdigit: int() refuses digits such as "²" that isdigit accepts
        if text.isdecimal():
            if int(text) in numbering.picks:
                return numbering.picks[int(text)]
            self.console.print(f"There is no option {text}: choose {numbering.spans}.")
            return None
        word, _, rest = text.partition(" ")
        if text.lower() in QUIT_WORDS:
            raise LeftTable
        if text.lower() in ("hold", "keep", "pass") and self._first_reads(text, decision):
            return 0
        if text == "?" or text.lower() in ("h", "help"):  # the prompt says "? = help"
            self._explain(decision)
        elif word.lower() in ("h", "help") and rest.strip():
            self._card_help(rest.strip(), view)
        elif text.lower() in ("t", "table"):
            self.console.print(self._table(view))
            self.console.print(decision_view(decision, self.players,
                                             self._received(decision), numbering,
                                             idle_notes(view), reveal_targets(view)))
        elif text.lower() in ("l", "log"):
            for line in self.news or ["Nothing has happened since your last decision."]:
                # indented as when it was told: a wrapped sentence stays under its start
                told = line.removeprefix("  ")
                self.console.print(Padding(Text(told), (0, 0, 0, len(line) - len(told)),
                                           expand=False))
        elif text.lower() in ("g", "graveyards"):
            self.console.print(graveyards_view(view))
        else:  # as typed: a Text, so brackets are not read as rich markup
            enter = f"Enter for {numbering.shown[0]}, " if self._enter_plays(decision) else ""
            self.console.print(Text(f"'{text}' is not an option: type a number "
                                    f"{numbering.spans}, {enter}? for help, h N for card N of "
                                    "your hand, t for the table, l for what just happened, g "
                                    "for the graveyards, quit to leave."))
        return None

    def _enter_plays(self, decision: Decision) -> bool:
        """Whether an empty line plays option 0: where it is a safe default (hold, keep,
        pass), or everywhere when lines come from a pipe or a file (``enter_anywhere``)."""
        return self.enter_anywhere or decision.has_safe_default

    def _first_reads(self, word: str, decision: Decision) -> bool:
        """Whether the first option's label starts with ``word`` (hold, keep, pass): typed
        as the option says it, it picks that option."""
        label = option_label(decision.kind, decision.options[0], self.players,
                             decision.context)
        return label.lower().split(" ")[0] == word.lower()

    def _explain(self, decision: Decision) -> None:
        self.console.print(kind_help(decision.kind, decision.context, self.rules))
        for face in cards_in(decision.kind, decision.options, decision.context):
            self._indented(card_text(face))
        self.console.print("Keys: a number picks an option (a card of your hand by its number "
                           "there, a player by their seat), Enter the first option where it "
                           "is a hold, keep or pass (which its word picks too; a choice the "
                           "rules force has no default), h N shows card N "
                           "of your hand, t the table, l what happened since your last "
                           "decision, g the graveyards, quit leaves the table.")

    def _card_help(self, which: str, view: Observation) -> None:
        hand = view.hand
        if which.isdecimal() and 1 <= int(which) <= len(hand):
            self.console.print(card_text(hand[int(which) - 1]))
        elif which.isdecimal():
            self.console.print(f"Your hand has cards 1-{len(hand)}; there is no card {which}.")
        else:
            face = card_face(which)
            self.console.print(Text(card_text(face) if face is not None else
                                    f"{which}: not a card (cards are named like God-3, "
                                    "Sophoi-1, Crown)"))

    def _tell_showdown(self) -> None:
        """The hands shown at the showdown, once, before the first Rock-Paper-Scissors throw:
        the showdown's table comes after the game, and a person asked to throw must see
        the hands that tied."""
        if self.showdown_told:
            return
        for event in reversed(self.feed):
            if event.get("type") == "showdown":
                self._indented(event_sentence(event, self.players))
                self.showdown_told = True
                return

    def _indented(self, text: str, style: str = "") -> None:
        """A line under the table's headings, wrapped lines staying under its start."""
        self._flush_heading()
        self.console.print(Padding(Text(text, style=style), (0, 0, 0, 2), expand=False))

    def _flush_heading(self) -> None:
        """The turn's heading, if still unprinted: something of the turn is told now."""
        if self.heading is not None:
            self.console.print(Text(self.heading, style="bold"))
            self.heading = None

    def gave_none(self) -> bool:
        """Whether the last choice was the clock's, not the person's (the referee asks)."""
        return self.timed_out

    def _timed_out(self, decision: Decision, numbering: Numbering) -> int:
        self.timed_out = True
        if decision.kind == "rps":  # Rock every time would be the next seat's to beat
            self.console.print(Text(f"Time is up ({self.clock:g}s): your throw is drawn by "
                                    "lot."))
            return 0
        label = option_label(decision.kind, decision.options[0], self.players,
                             decision.context)
        self.console.print(Text(f"Time is up ({self.clock:g}s): played option "
                                f"{numbering.shown[0]}, {label}."))
        return 0

    # -- telling the game ---------------------------------------------------------------
    def _tell(self, event: Mapping[str, Any], drawn_for: str | None = None) -> None:
        """Tell ``event``; ``drawn_for``: why a draw is made (the turn's draw...)."""
        kind = event.get("type")
        text = event_sentence(event, self.players, self.feed)
        if drawn_for is not None:
            text += f" ({drawn_for})"
        if kind == "game_start":
            self.moved = True
            self.games += 1
            self.console.print()
            self.console.rule(Text(f"Game {self.games}"), style="")
            why = self.start_reason or later_start_reason(self.last_placements,
                                                          event.get("starting_seat"))
            if why is not None:
                text += f" ({why})"
            self.start_reason = None
            self.console.print(Text(text))
            # said at every game: nothing else on the screen tells the table's rules
            for name, value in self.rules.changed().items():
                self._indented(f"house rule {name}={value}: {RULE_HELP[name][value]}")
            return
        if kind == "turn_start":
            self._flush_heading()  # a turn in which nothing was told is still headed
            mine = event.get("seat") == self.seat
            self.heading = f"Round {event.get('round')}: your turn" if mine else text
            self.moved = self.moved or not mine
            self.recent.append(self.heading)
            return
        other = event.get("seat") != self.seat
        self.moved = self.moved or other
        idle = self.counts.note(event)
        if idle is not None:  # the effect ends here without an event of its own
            text += f" ({idle})"
        self.recent.append(f"  {text}")
        if kind in ("showdown", "game_end"):
            return  # the showdown's table tells both
        # indented as a block: a wrapped line stays under its start
        self._indented(text)
        if self.pace > 0 and other and kind not in ("showdown", "game_end", "round_end"):
            self.sleep(self.pace)
