"""What a person at the table sees, drawn with rich: the table from their seat's observation,
a decision's options, the showdown. Built only from what the seat may see (its
:class:`~arena.engine.Observation`, its own events), so the screen cannot show a hidden card.

Everything fits an 80x24 terminal: one row per seat, the graveyards cut to their last cards
(``g`` shows them whole), the hand on one line.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from arena.engine import Category, Decision, Observation
from arena.engine.desmos import EVALUATORS, HAND_SIZE
from arena.engine.effects import EFFECTS, Need
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.engine.narration import header_lines
from arena.engine.result import seen_desmos, standing_places
from arena.play.labels import decision_title, option_label

__all__ = ["Hanging", "Numbering", "Received", "decision_view", "graveyards_view", "hand_category",
           "hand_line", "option_numbers", "showdown_view", "table_view"]

class Received(NamedTuple):
    """A card just given to the seat, and the name of who gave it (a Nemesis's first gift,
    which the seat may give back: RULES.md E29)."""

    card: str
    giver: str


class Numbering(NamedTuple):
    """The numbers a person types for a decision's options: ``shown[i]`` is option i's, and
    ``picks`` maps every number that picks an option to its index."""

    shown: tuple[int, ...]
    picks: Mapping[int, int]

    @property
    def spans(self) -> str:
        """The numbers that pick an option, as runs: ``0-10``, ``1, 3-5``."""
        runs: list[list[int]] = []
        for number in sorted(self.picks):
            if runs and number == runs[-1][1] + 1:
                runs[-1][1] = number
            else:
                runs.append([number, number])
        return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


#: Decisions whose options are cards of the seat's own hand (or a pass).
_HAND_KINDS = ("turn", "swap", "discard", "reveal", "give")


def _held(kind: str, option: Mapping[str, Any], hand_size: int) -> tuple[str | None, int]:
    """The card of the hand an option names (None: a hold, keep or pass), and what its
    number adds to the card's: a turn's traps come after its plays (card N: ``N + 5``)."""
    if kind == "turn":
        action = option.get("action")
        return (None if action == "hold" else str(option.get("card")),
                hand_size if action == "trap" else 0)
    card = option.get("swap") if kind == "swap" else option.get("card")
    return (None if card is None else str(card)), 0


def option_numbers(decision: Decision, view: Observation) -> Numbering:
    """How the options are numbered: a card of the hand by its number on the hand's line (any
    copy's; a trap set by that number plus the hand's size), a player by their seat, a hold,
    keep or pass by 0, so that ``2`` means the hand's second card in a discard as on a turn;
    any other decision in order."""
    options = decision.options
    in_order = Numbering(tuple(range(len(options))), {i: i for i in range(len(options))})
    picks: dict[int, int] = {}
    if decision.kind in _HAND_KINDS:
        for index, option in enumerate(options):
            card, offset = _held(decision.kind, option, len(view.hand))
            for number, held in enumerate(view.hand, start=1):
                if card is None or held == card:
                    picks.setdefault(0 if card is None else number + offset, index)
    elif decision.kind == "target" and all(option.get("slot") is None for option in options):
        picks = {option["seat"]: index for index, option in enumerate(options)
                 if isinstance(option.get("seat"), int)}
    shown = tuple(min((n for n, i in picks.items() if i == index), default=-1)
                  for index in range(len(options)))
    return in_order if not options or -1 in shown else Numbering(shown, picks)


#: Cards of a graveyard shown on the table (its top last); ``g`` shows every one.
GRAVEYARD_SHOWN = 4


#: Joins what a narrow terminal must not split across lines ("3 Umbrae-1"); shown as a space.
KEEP = "\xa0"


class Hanging:
    """A line that wraps at its spaces only (never at a ``KEEP``), its continuation lines
    indented under its text, not under its number: a narrow terminal still reads ``3
    Umbrae-1`` as one card and an option's second line as part of that option. The styles of
    ``text`` are kept."""

    def __init__(self, text: Text, indent: int) -> None:
        self.text = text
        self.indent = indent

    @property
    def plain(self) -> str:
        return self.text.plain.replace(KEEP, " ")

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        breaks = _breaks(self.text.plain, options.max_width, self.indent)
        for i, line in enumerate(self.text.divide(breaks)):
            line.rstrip()
            line.plain = line.plain.replace(KEEP, " ")  # the same length: styles stay put
            if i:
                line = Text(" " * self.indent, style=line.style).append_text(line)
            line.no_wrap = True
            yield line


def _breaks(plain: str, width: int, indent: int) -> list[int]:
    """Where the lines of ``plain`` after the first start: at a word, before the word that
    would pass ``width`` (a word longer than a line has one of its own)."""
    breaks: list[int] = []
    start, room = 0, width
    for word in re.finditer(r"[^ ]+", plain):
        if word.start() > start and cell_len(plain[start:word.end()]) > room:
            breaks.append(word.start())
            start, room = word.start(), max(width - indent, 1)
    return breaks


def _last(cards: Sequence[str], shown: int = GRAVEYARD_SHOWN) -> str:
    if not cards:
        return "empty"
    cut = cards[-shown:]
    more = f"{len(cards) - len(cut)} more, " if len(cards) > len(cut) else ""
    return f"{more}{', '.join(cut)}"


def _own_turns_left(view: Observation) -> int:
    """The seat's own turns the game has left, the one under way included (a trap's
    ``turns_left`` counts so): none once the last round is over."""
    if view.round > view.rounds:
        return 0
    players = len(view.players)
    in_round = view.turn - (view.round - 1) * players
    place = (view.seat - (view.active_seat - in_round)) % players  # in the round's order
    return view.rounds - view.round + (1 if place >= in_round else 0)


def _arena(view: Observation, seat: int, known: Sequence[str | None] = ()) -> str:
    """The seat's Arena: its own traps whole; another's counted face down, but for those
    whose card this seat knows (``known``, by slot: set while revealed, or seen)."""
    if seat == view.seat:
        traps = view.traps
        if not traps:
            return "-"
        game_left = _own_turns_left(view)
        # a trap that outlives the game's turns stays to the end: "2 turns left" in the
        # last round, or "1" before the showdown, would promise turns that never come;
        # a trap a line: two side by side pass 80 columns, and the cell would break one
        return "\n".join(f"{t['card']} ("
                         + ("until the end" if t['turns_left'] > game_left else
                            f"{t['turns_left']} turn{'' if t['turns_left'] == 1 else 's'} left")
                         + f"{', ready' if t['triggerable'] else ''})" for t in traps)
    count = view.trap_counts[seat]
    named = [card for card in known if card is not None] if len(known) == count else []
    lines = [f"{card} (known)" for card in named]
    if count > len(named):
        lines.append(f"{count - len(named)} face down")
    return "\n".join(lines) or "-"


def hand_category(view: Observation, rules: HouseRules = DEFAULT_RULES,
                  dead: Collection[int] = ()) -> str | None:
    """The Desmos category of the seat's five cards now, under the house rules; None with
    fewer cards. Under ``reclaim=strict`` the ``dead`` cards (used by the seat for an effect)
    do not count: the hand is valued by its other cards, as a short hand is (E19)."""
    if len(view.hand_ids) != HAND_SIZE:
        return None
    counting = [card for card in view.hand_ids
                if rules.reclaim == DEFAULT_RULES.reclaim or card not in dead]
    return Category(EVALUATORS[rules.kinds](counting)[0]).label


def hand_line(view: Observation, rules: HouseRules = DEFAULT_RULES,
              dead: Collection[int] = ()) -> Hanging:
    """``Your hand: 1 God-1 · 2 Fate-3 ... (Pair)`` (numbered for ``h N``); a narrow
    terminal wraps it between cards. Under ``reclaim=strict`` a ``dead`` card is marked
    ``(used)``, and the Desmos is its other cards'."""
    heading = "Your hand: "
    line = Text(heading, style="bold")
    shown = list(view.revealed[view.seat])
    strict = rules.reclaim != DEFAULT_RULES.reclaim
    cards = []
    for i, (card_id, card) in enumerate(zip(view.hand_ids, view.hand), start=1):
        if card in shown:  # revealed: every player sees it
            shown.remove(card)
            card += " (revealed)"
        if strict and card_id in dead:
            card += " (used)"
        cards.append(f"{i} {card}".replace(" ", KEEP))
    line.append(" · ".join(cards) or "empty")
    category = hand_category(view, rules, dead)
    if category is not None:
        line.append(f" ({category.replace(' ', KEEP)})", style="italic")
    return Hanging(line, len(heading))


def _dealt_palaestron(view: Observation) -> int | None:
    """The seat dealt the Palaestron while it is played, after the deal and before the first
    turn (E2): nobody has a turn yet, though the round counter reads 1. None otherwise."""
    if view.round != 1 or view.turn:
        return None
    holder = None
    for event in view.events:
        if event["type"] == "turn_start":
            return None
        if event["type"] == "palaestron":
            holder = int(event["seat"])
    return holder


def table_view(view: Observation, rules: HouseRules = DEFAULT_RULES, me: str = "you",
               forfeited: Collection[int] = (), dead: Collection[int] = (),
               known_traps: Sequence[Sequence[str | None]] = ()) -> RenderableType:
    """The table from ``view``'s seat: every seat's hand size, Arena and revealed cards, the
    pile, the graveyards and the seat's own hand (numbered for ``h N``; ``dead``: its cards
    that do not count under ``reclaim=strict``). The ``forfeited`` seats (told by the seat's
    events; the observation does not say) are marked: they can no longer win. Another
    seat's traps whose card this seat knows (``known_traps``, by seat and slot) are named."""
    turn = "your turn" if view.active_seat == view.seat else \
        f"{view.players[view.active_seat]}'s turn"
    # After the last turn (the traps' last window, then the showdown and its tie-break) the
    # round counter has passed the last round and nobody has a turn.
    if view.phase == "showdown" or view.round > view.rounds:
        heading = "Showdown" if view.phase == "showdown" else "Before the showdown"
    elif (holder := _dealt_palaestron(view)) is not None:
        who = "you were" if holder == view.seat else f"{view.players[holder]} was"
        heading = f"Before round 1 of {view.rounds} · {who} dealt the Palaestron"
    else:
        heading = f"Round {view.round} of {view.rounds} · {turn}"
    seats = Table(box=None, padding=(0, 1), pad_edge=False, expand=False,
                  header_style="underline")
    for column in ("seat", "player", "hand", "Arena (traps)", "revealed"):
        # a trap's note whole: the revealed cards, listed, wrap between cards instead
        seats.add_column(column, no_wrap=column == "Arena (traps)")
    revealed = view.revealed
    for seat, name in enumerate(view.players):
        who = f"{name} ({me})" if seat == view.seat and name != me else name
        if seat in forfeited:
            who += " (forfeited)"
        style = "bold" if seat == view.active_seat else ""
        # names as Text: a table's plain strings are read as rich markup
        known = known_traps[seat] if seat < len(known_traps) else ()
        seats.add_row(str(seat), Text(who), str(view.hand_sizes[seat]),
                      _arena(view, seat, known),
                      ", ".join(revealed[seat]) or "-", style=style)
    # wrapped under itself, as the hand is: a line at column 0 reads as a line of its own
    piles = Hanging(Text(f"Draw pile {view.draw_pile} · Effect Graveyard "
                         f"{len(view.effect_graveyard)} · Discard Graveyard: "
                         f"{_last(view.discard_graveyard)}"), 2)
    return Group(Text(heading, style="bold reverse"), seats, piles,
                 hand_line(view, rules, dead))


def graveyards_view(view: Observation) -> RenderableType:
    """Both graveyards whole, oldest first (``g``)."""
    return Group(Text(f"Discard Graveyard ({len(view.discard_graveyard)}, top last): "
                      f"{', '.join(view.discard_graveyard) or 'empty'}"),
                 Text(f"Effect Graveyard ({len(view.effect_graveyard)}): "
                      f"{', '.join(view.effect_graveyard) or 'empty'}"))


def decision_view(decision: Decision, players: Sequence[str],
                  received: Received | None = None,
                  numbering: Numbering | None = None,
                  idle: Mapping[str, str] | None = None,
                  idle_seats: Mapping[int, str] | None = None) -> RenderableType:
    """A decision's heading and its options, numbered (``numbering``: every number that picks
    an option, else each option's index) and listed in the order of their numbers (the first
    option, Enter's, is the safe default where there is one, and bold wherever it is
    listed). An option two numbers pick (two copies of a card in hand) is listed under each,
    so the list offers what the prompt does. A turn's
    traps share one line (a whole turn fits an 80x24 screen with the table). ``received``:
    the card just given to the seat and who gave it, marked among the options (what a
    Nemesis gives back may be it, RULES.md E29). ``idle``: by card, why its effect would
    come to nothing now, noted on a play or a trap's trigger (the person is not surprised);
    ``idle_seats``: by seat, why a reveal would show nothing of that opponent, noted where
    the person chooses who reveals a card."""
    picks = numbering.picks if numbering is not None else {
        index: index for index in range(len(decision.options))}
    lines: list[RenderableType] = [Text(decision_title(decision.kind, decision.context),
                                        style="bold")]
    traps = []
    # a card whose other copy names its place (RULES.md E26): this one is nearer the top
    placed = {option.get("card") for option in decision.options if "depth" in option}
    # listed in the order of their numbers (players by seat), not the engine's order
    for number, index in sorted(picks.items()):
        option = decision.options[index]
        if decision.kind == "turn" and option.get("action") == "trap":
            traps.append((number, str(option.get("card"))))
            continue
        label = option_label(decision.kind, option, players, decision.context)
        if option.get("card") in placed and "depth" not in option:
            label += " (nearest the top)"
        if received is not None and option.get("card") == received.card:
            label += f" (just received from {received.giver})"
        effect_card = option.get("trap") if decision.kind == "trigger" else (
            option.get("card") if option.get("action") == "play" else None)
        if idle and effect_card in idle:
            label += f" ({idle[str(effect_card)]})"
        if idle_seats and _asks_who_reveals(decision) and option.get("seat") in idle_seats:
            label += f" ({idle_seats[option['seat']]})"
        lines.append(Hanging(Text(f"{number:>3}  {label}",
                                  style="bold" if index == 0 else ""), 5))
    if traps:
        span = f"{traps[0][0]}-{traps[-1][0]}" if len(traps) > 1 else str(traps[0][0])
        lines.append(Hanging(Text(f"{span:>5}  Set as a trap: "
                                  + "  ".join(f"{i}{KEEP}{card}" for i, card in traps)), 7))
    return Group(*lines)


def _asks_who_reveals(decision: Decision) -> bool:
    """Whether ``decision`` chooses the opponent who reveals a card (Atropos, an Arcoi with no
    trap to destroy): an opponent, not a trap, chosen for an effect that needs an opponent's
    hidden card, known by the card it is for (the context's ``source``), not by its words."""
    effect = EFFECTS.get(str(decision.context.get("source")))
    return (decision.kind == "target" and effect is not None
            and Need.OPPONENT_HIDDEN_CARD in effect.needs
            and not any("slot" in option for option in decision.options))


def showdown_view(record: Mapping[str, Any], seat: int, hands: Sequence[Sequence[str]],
                  not_counted: Sequence[Sequence[str]] = ()) -> RenderableType:
    """Every hand shown at the showdown with its Desmos and place, and how first place was
    settled (the record's public part: its result). A forfeited seat is marked: it is placed
    last whatever its hand (E18), which the places alone would not explain. So are the cards
    of a hand that do not count (``not_counted[seat]``: under ``reclaim=strict``, those its
    player used for an effect), without which its Desmos would not match the hand shown.
    After an Ascension only the seat's own and the ascender's categories are shown (E31)."""
    players = [str(p) for p in record.get("players") or []]
    result = record.get("result") or {}
    desmos = seen_desmos(result.get("desmos") or [], result.get("placements") or [],
                         result.get("ascension") is True, seat)
    forfeits = {int(s): str(why) for s, why in (result.get("forfeits") or {}).items()}
    places = standing_places(result.get("placements") or [], forfeits)  # a forfeit last
    table = Table(box=None, padding=(0, 1), pad_edge=False, header_style="underline")
    for column in ("place", "player", "Desmos", "hand"):
        table.add_column(column)
    order = sorted(range(len(players)), key=lambda s: (places[s] if s < len(places) else 99, s))
    for s in order:
        who = f"{players[s]} (you)" if s == seat and players[s] != "you" else players[s]
        hand = ", ".join(hands[s]) if s < len(hands) and hands[s] else "-"
        category = (desmos[s] or "not shown") if s < len(desmos) else "?"
        if s in forfeits:
            category += f", forfeited ({forfeits[s]})"
        table.add_row(str(places[s]) if s < len(places) else "?", Text(who), category, hand,
                      style="bold" if s == seat else "")
    # The header's last line says how first place was settled (tie-break or none).
    settled = [line.strip() for line in header_lines(record) if "first place" in line]
    how = settled[0][0].upper() + settled[0][1:] if settled else ""
    contenders = [s for s in order if s not in forfeits]
    if result.get("tiebreak") == "none" and len(contenders) > 1 and \
            len(places) == len(players):
        first, second = contenders[0], contenders[1]
        if places[first] == 1 and places[second] > 1 and desmos[first] == desmos[second]:
            # "biggest groups first": a hand is shown in its own order, and a Quartet of
            # Fates with a God beside it loses to one of Classes, whose first card is less;
            # a Rank Flush has no kind groups (E30)
            order_said = ("best card first" if desmos[first] == Category.RANK_FLUSH.label
                          else "biggest groups first")
            how = (f"First place: {players[first]}'s {desmos[first]} beats "
                   f"{players[second]}'s card by card, {order_said} (tiers: God 5, "
                   "Crown 4, Class 3, Fate 2, Beast 1)")
    lines: list[RenderableType] = [Text("Showdown", style="bold reverse"), table, Text(how)]
    dead = [f"{players[s]}'s {', '.join(cards)}" for s, cards in enumerate(not_counted)
            if cards and s < len(players)]
    if dead:
        lines.append(Text("Not counted, used for an effect by their player (reclaim=strict): "
                          + "; ".join(dead)))
    if forfeits and len(forfeits) < len(players):
        lines.append(Text("A player who forfeits is placed last, whatever their hand."))
    return Group(*lines)
