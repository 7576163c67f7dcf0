"""A game record told for people: the game's header, then every event as a sentence.

``narrate(record)`` tells the whole game; ``narrate(record, seat=s)`` tells only what seat *s*
was shown (its feed: exactly the events a bot in that seat received), so a bot author can
read a game through their bot's eyes. The record holds both halves of a private event (the
card a player drew, and "drew a card" for everyone else); the whole-game telling shows the
informative half once and marks who saw it.

Event types the narration does not know (a newer record) are still shown, field by field:
telling a game never fails on a record ``arena replay`` accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.common.plural import ordinal
from arena.engine.effects import EFFECTS
from arena.engine.houserules import RULE_CHOICES
from arena.engine.record import cards_not_counted
from arena.engine.result import seen_desmos

__all__ = ["WINDOW_TEXT", "as_seen", "event_lines", "event_sentence", "header_lines", "narrate",
           "seat_feed", "sees"]

Event = Mapping[str, Any]


def sees(audience: Any, seat: int) -> bool:
    """Whether ``seat`` was shown an event with this recorded audience (``to``)."""
    if audience == "all":
        return True
    if isinstance(audience, int) and not isinstance(audience, bool):
        return audience == seat
    if isinstance(audience, str) and audience.startswith("all_but:"):
        return audience != f"all_but:{seat}"
    return False


def seat_feed(events: Sequence[Any], seat: int) -> tuple[list[Event], bool]:
    """The events ``seat`` was shown, in order, and whether the feed ends at its forfeit: a
    forfeited seat is shown nothing after it (a refereed bot is stopped then)."""
    feed: list[Event] = []
    for event in events:
        if not isinstance(event, Mapping):
            continue
        if event.get("type") == "forfeit" and event.get("seat") == seat:
            return feed, True
        if sees(event.get("to"), seat):
            feed.append(as_seen(event, seat))
    return feed, False


def as_seen(event: Event, seat: int) -> Event:
    """``event`` as ``seat`` was sent it: after an Ascension, a ``game_end`` without the
    categories of the hands nobody was shown (RULES.md E31); a record made elsewhere whose
    ``game_end`` is malformed is shown as it is. A game's ``result`` reads the same (no
    ``type``: taken as its ``game_end``)."""
    desmos, placements = event.get("desmos"), event.get("placements")
    if (event.get("type", "game_end") != "game_end" or event.get("ascension") is not True
            or not isinstance(desmos, list) or not isinstance(placements, list)
            or len(desmos) != len(placements)):
        return event
    return {**event, "desmos": seen_desmos(desmos, placements, True, seat)}


def _ordinal(place: Any) -> str:
    if not isinstance(place, int) or isinstance(place, bool):
        return str(place)
    return ordinal(place)


def _cards(cards: Any) -> str:
    if isinstance(cards, list | tuple):
        return ", ".join(str(card) for card in cards) if cards else "no cards"
    return str(cards)


def _card(face: Any) -> str:
    """A card with its effect's name where it has one (``Beast-1 (Salamander of Fire, Burn)``)."""
    effect = EFFECTS.get(str(face))
    return f"{face} ({effect.name})" if effect is not None else str(face)


class _Teller:
    """Sentences for one game's events, with the game's player names."""

    def __init__(self, players: Sequence[str], dealing: bool = False) -> None:
        self.players = list(players)
        #: Whether no turn has started yet: a Palaestron then was dealt, not drawn (E2).
        self.dealing = dealing

    def who(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.players):
            return self.players[seat]
        return f"seat {seat}"

    def sentence(self, event: Event) -> str:
        teller = _SENTENCES.get(str(event.get("type")))
        if teller is None:
            return self.fields(event)
        try:
            return teller(self, event)
        except (AttributeError, KeyError, TypeError, ValueError):  # malformed: show its fields
            return self.fields(event)

    def fields(self, event: Event) -> str:
        rest = ", ".join(f"{key}={value}" for key, value in event.items()
                         if key not in ("type", "to", "turn"))
        return f"{event.get('type', '?')}: {rest}" if rest else str(event.get("type", "?"))


def _source(event: Event) -> str:
    # "by": after "looks at the top card" a bare card would read as the card looked at
    return f" (by {event['source']})" if event.get("source") else ""


def _exchange(t: _Teller, e: Event) -> str:
    gave = f", gives {e['gave']}" if "gave" in e else ""
    took = f", takes {e['took']}" if "took" in e else ""
    return f"{t.who(e['seat'])} exchanges a card with {t.who(e['target'])}{_source(e)}" \
           f"{gave}{took}"


def _copy(e: Event) -> str:
    """The card an exchange took, with its place where it was the copy farther from the top
    of the pile (E26)."""
    return f"{e['took']} ({ordinal(int(e['depth']))} from the top)" if "depth" in e \
        else str(e["took"])


def _pile_exchange(t: _Teller, e: Event) -> str:
    # its player's half names both cards; the others' half only a card given that was
    # revealed (RULES.md E23)
    if "took" not in e:
        gave = f", puts {e['gave']} in its place" if "gave" in e else ""
        return f"{t.who(e['seat'])} exchanges a card with the draw pile{_source(e)}{gave}"
    return (f"{t.who(e['seat'])} takes {_copy(e)} from the draw pile and puts {e['gave']} "
            f"in its place{_source(e)}")


def _give(t: _Teller, e: Event) -> str:
    card = e["card"] if "card" in e else "a card"
    return f"{t.who(e['seat'])} gives {card} to {t.who(e['target'])}{_source(e)}"


def _look(t: _Teller, e: Event) -> str:
    zone = "the draw pile" if e.get("zone", "draw_pile") == "draw_pile" else str(e["zone"])
    cards = e.get("cards")
    count = len(cards) if isinstance(cards, list) else e.get("count")
    what = f"the top {count} cards" if count not in (None, 1) else "the top card"
    seen = f": {_cards(cards)}" if cards is not None else ""
    return f"{t.who(e['seat'])} looks at {what} of {zone}{_source(e)}{seen}"


def _peek(zone: str) -> Callable[[_Teller, Event], str]:
    def tell(t: _Teller, e: Event) -> str:
        seen = f": {_cards(e['cards'])}" if "cards" in e else ""
        return f"{t.who(e['seat'])} looks at {t.who(e['target'])}'s {zone}{_source(e)}{seen}"
    return tell


def _trap_end(how: str) -> Callable[[_Teller, Event], str]:
    def tell(t: _Teller, e: Event) -> str:
        return f"{t.who(e['seat'])}'s trap {e['card']} {how}{_source(e)}"
    return tell


def _discard(t: _Teller, e: Event) -> str:
    why = e.get("why")  # "swap", or the card whose effect asked for the discard (Clotho)
    reason = " to swap" if why == "swap" else f" (by {why})" if why else ""
    return f"{t.who(e['seat'])} discards {e['card']}{reason}"


def _game_end(t: _Teller, e: Event) -> str:
    places = ", ".join(f"{t.who(seat)} {_ordinal(place)}"
                       for seat, place in enumerate(e["placements"]))
    return f"Game over: {places}"


def _rps(t: _Teller, e: Event) -> str:
    throws = ", ".join(f"{t.who(int(seat))} {throw}" for seat, throw in e["throws"].items())
    return f"Rock-paper-scissors: {throws}"


def _showdown(t: _Teller, e: Event) -> str:
    hands = "; ".join(f"{t.who(seat)}: {_cards(hand)}" for seat, hand in enumerate(e["hands"]))
    return f"Showdown: {hands}"


#: A trigger window (a trap triggered there, a decision asked there) in words.
WINDOW_TEXT = {"turn_start": "at the start of the turn", "declare": "on a declaration",
               "answer": "in answer to a trap", "palaestron": "before the Palaestron resolves",
               "showdown": "before the showdown",
               "discarded": "before the discarded God resolves"}

_SENTENCES: dict[str, Callable[[_Teller, Event], str]] = {
    "game_start": lambda t, e: (f"{', '.join(map(str, e['players']))} sit down for "
                                f"{e['rounds']} rounds; {t.who(e['starting_seat'])} starts"),
    "deal": lambda t, e: f"{t.who(e['seat'])} is dealt {_cards(e['cards'])}",
    "turn_start": lambda t, e: f"Round {e['round']}: {t.who(e['seat'])}'s turn",
    "hold": lambda t, e: f"{t.who(e['seat'])} holds",
    "play": lambda t, e: f"{t.who(e['seat'])} plays {_card(e['card'])}",
    "set_trap": lambda t, e: (f"{t.who(e['seat'])} sets {e['card']} as a trap" if "card" in e
                              else f"{t.who(e['seat'])} sets a trap face down"),
    "trap_triggered": lambda t, e: (
        f"{t.who(e['seat'])}'s trap {_card(e['card'])} triggers "
        + WINDOW_TEXT.get(str(e.get("window")), f"({e.get('window')})")),
    "trap_expired": _trap_end("expires"),
    "trap_destroyed": _trap_end("is destroyed"),
    "trap_cleared": _trap_end("is cleared away"),
    "effect": lambda t, e: (f"{e['card']} takes effect for {t.who(e['seat'])}"
                            + {"played": "", "trap": " (from a trap)",
                               "discarded": " (discarded)"}.get(str(e.get("how")), "")),
    "draw": lambda t, e: (f"{t.who(e['seat'])} draws {e['card']}" if "card" in e
                          else f"{t.who(e['seat'])} draws a card"),
    "discard": _discard,
    "forced_discard": lambda t, e: (f"{t.who(e['seat'])} discards {e['card']}, forced"
                                    f"{_source(e)}"),
    "palaestron": lambda t, e: (f"{t.who(e['seat'])} was dealt the Palaestron: it is played "
                                "now that every hand is dealt" if t.dealing
                                else f"{t.who(e['seat'])} draws the Palaestron"),
    "palaestron_redealt": lambda t, e: (f"{t.who(e['seat'])} was dealt the Palaestron: it is "
                                        f"replaced and shuffled back into the draw pile"),
    "reveal": lambda t, e: f"{t.who(e['seat'])} reveals {e['card']}{_source(e)}",
    "reveal_hand": lambda t, e: (f"{t.who(e['seat'])} reveals their hand{_source(e)}: "
                                 f"{_cards(e['cards'])}"),
    "peek": _peek("hand"),
    "peek_traps": _peek("traps"),
    "look": _look,
    "exchange": _exchange,
    "give": _give,
    "graveyard_exchange": lambda t, e: (
        f"{t.who(e['seat'])} takes {_copy(e)} from the Discard Graveyard and leaves "
        f"{e['gave']}{_source(e)}"),
    "pile_exchange": _pile_exchange,
    "pile_bottomed": lambda t, e: f"The top card of the draw pile goes to the bottom{_source(e)}",
    "return_to_pile": lambda t, e: (f"{t.who(e['seat'])} puts {e.get('card', 'a card')} on "
                                    f"top of the draw pile{_source(e)}"),
    "burn": lambda t, e: (f"{e['card']} is burned from the top of the draw pile to the "
                          f"Discard Graveyard{_source(e)}"),
    "updraft": lambda t, e: (f"{e['card']} goes from the Discard Graveyard to the top of the "
                             f"draw pile{_source(e)}"),
    "reshuffle": lambda t, e: (f"Both graveyards are shuffled together into a new draw pile of "
                               f"{e['cards']} cards"),
    "pile_exhausted": lambda t, e: f"The draw pile is empty when {t.who(e['seat'])} must draw",
    "round_end": lambda t, e: f"End of round {e['round']}",
    "forfeit": lambda t, e: f"{t.who(e['seat'])} forfeits ({e['reason']})",
    "showdown": _showdown,
    "rps": _rps,
    "ascension": lambda t, e: f"{t.who(e['seat'])} ascends: {_cards(e['hand'])}",
    "game_end": _game_end,
}


def event_sentence(event: Event, players: Sequence[str],
                   feed: Sequence[Event] | None = None) -> str:
    """One event as a sentence, with the game's player names (a table told live). ``feed``:
    the game's events told so far (this one may be among them), which say whether a
    Palaestron was dealt, before any turn, or drawn; without it one is told as drawn."""
    dealing = feed is not None and not any(e.get("type") == "turn_start" for e in feed)
    return _Teller([str(p) for p in players], dealing).sentence(event)


def _half_of(event: Event, shown: Event) -> bool:
    """Whether ``event`` is another audience's view of the happening ``shown`` already told
    (same type, turn and actors; nothing ``shown`` lacks)."""
    if event.get("type") != shown.get("type") or event.get("turn") != shown.get("turn"):
        return False
    for key, value in event.items():
        if key == "to" or key in shown and shown[key] == value:
            continue
        if key == "count" and isinstance(shown.get("cards"), list) \
                and len(shown["cards"]) == value:
            continue  # the public half of a look counts the cards its private half names
        return False
    return True


def _whole_game_events(events: Sequence[Event]) -> list[tuple[Event, list[Any]]]:
    """Each happening once, as its most informative view, with the audiences shown that
    view. The views of one happening are adjacent in the log (the engine emits them
    together) and go to distinct audiences: an audience seen twice starts a new happening."""
    told: list[tuple[Event, list[Any], list[Any]]] = []  # (view, its audiences, all audiences)
    for event in events:
        to = event.get("to")
        if told and to not in told[-1][2]:
            last, audiences, everyone = told[-1]
            less, more = _half_of(event, last), _half_of(last, event)
            if less or more:
                everyone.append(to)
                if less and more:  # the same view for another audience
                    audiences.append(to)
                elif more:  # this view tells more than the one kept so far
                    told[-1] = (event, [to], everyone)
                continue
        told.append((event, [to], [to]))
    return [(event, audiences) for event, audiences, _ in told]


def _seen_by(teller: _Teller, audiences: Sequence[Any]) -> str:
    """`` [seen by X, Y]`` for a happening told in a view not everyone was shown."""
    if "all" in audiences or any(f"all_but:{seat}" in audiences for seat in audiences
                                 if isinstance(seat, int)):  # a seat and all but it: all
        return ""
    names = []
    for audience in audiences:
        if isinstance(audience, str) and audience.startswith("all_but:"):
            names.append(f"all but {teller.who(int(audience[8:]))}")
        else:
            names.append(teller.who(audience))
    return f"  [seen by {', '.join(names)}]"


def _list(value: Any) -> list[Any]:
    """``value`` if it is a list, else empty: a damaged record is told as far as it goes."""
    return value if isinstance(value, list) else []


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _rules_line(record: Mapping[str, Any]) -> str:
    """The house rules the record names (a record from before house rules names none)."""
    rules = _map(_map(record.get("config")).get("rules"))
    if not rules:
        return "  house rules: not recorded (the rules of the record's format)"
    changed = [f"{name}={value}" for name, value in rules.items()
               if RULE_CHOICES.get(str(name), (value,))[0] != value]
    return "  house rules: " + (", ".join(changed) if changed else "the defaults")


def _header(record: Mapping[str, Any], teller: _Teller, whole: bool) -> list[str]:
    players = teller.players
    # the game's own seed, which `arena play --seed` and `arena match --seed` do not take;
    # what the record does not hold (a game's stored row holds no rounds) is left out
    rounds, seed = record.get("rounds"), record.get("seed")
    told = [f"{len(players)} players", *([f"{rounds} rounds"] if rounds is not None else []),
            *([f"game seed {seed}"] if whole and seed is not None else [])]
    lines = [f"{', '.join(told)}; {teller.who(record.get('starting_seat'))} starts",
             _rules_line(record)]
    result = record.get("result")
    if isinstance(result, Mapping):
        placements = _list(result.get("placements"))
        desmos = _list(result.get("desmos"))
        forfeits = _map(result.get("forfeits"))
        unused = cards_not_counted(record)  # under reclaim=strict: why a hand scores less
        for seat, name in enumerate(players):
            forfeit = forfeits.get(str(seat))
            # a forfeit is the table's last place, as the standings count it (E28)
            place = (_ordinal(len(players)) if forfeit
                     else _ordinal(placements[seat]) if seat < len(placements) else "?")
            category = desmos[seat] if seat < len(desmos) else "?"
            lines.append(f"  seat {seat}  {name}: {place}, {category}"
                         + (f", forfeited ({forfeit})" if forfeit else "")
                         + (f"; {', '.join(unused[seat])} not counted (used for an effect, "
                            "reclaim=strict)" if seat < len(unused) and unused[seat] else ""))
        tiebreak = result.get("tiebreak", "none")
        if players and len(forfeits) >= len(players):
            lines.append("  first place: nobody (every seat forfeited; all are placed last)")
            return lines
        lines.append("  first place: " + {
            "none": "no tie", "book": "tie broken by the most recent book",
            "rps": "tie broken by Rock-paper-scissors",
            "lot": "tie broken by lot after 50 throws",
            "ascension": "The Ascension"}.get(str(tiebreak), str(tiebreak)))
    else:
        lines.append("  (not finished)")
    return lines


def _turns(record: Mapping[str, Any], teller: _Teller, seat: int | None) -> list[str]:
    """The turn log, for a record kept without events (``seat`` sees no other seat's trap)."""
    lines = []
    for turn in _list(record.get("turns")):
        if not isinstance(turn, Mapping):
            continue
        action = str(turn.get("action"))
        card = f" {turn['card']}" if turn.get("card") else ""
        if action == "trap":
            hidden = seat is not None and turn.get("seat") != seat
            card = " face down" if hidden else f" ({turn.get('card')})"
        verb = {"hold": "holds", "play": "plays", "trap": "sets a trap"}.get(action, action)
        swap = ", then swaps" if turn.get("swap") else ""
        lines.append(f"Round {turn.get('round')}: {teller.who(turn.get('seat'))} {verb}{card}"
                     f"{swap}")
    return lines


def header_lines(record: Mapping[str, Any], seat: int | None = None) -> list[str]:
    """Who played, how they placed and how first place was settled (and, with ``seat``,
    whose view the events are told in)."""
    teller = _Teller([str(p) for p in _list(record.get("players"))])
    _check_seat(teller, seat)
    lines = _header(record, teller, seat is None)  # no seat is sent the seed
    if seat is not None:
        lines.append(f"As seat {seat} ({teller.who(seat)}) saw it:")
    return lines


def event_lines(record: Mapping[str, Any], seat: int | None = None, *,
                dealing: bool = True) -> list[str]:
    """The game event by event; with ``seat``, only the events that seat was shown.
    ``dealing``: whether the events begin before the first turn (a Palaestron then, before
    any ``turn_start``, was dealt); false for a part of a game from after it started.

    Turns start unindented (``Round 2: alice's turn``); what happens in them is indented.
    """
    teller = _Teller([str(p) for p in _list(record.get("players"))], dealing)
    _check_seat(teller, seat)
    events = [e for e in _list(record.get("events")) if isinstance(e, Mapping)]
    if not events:
        return ["(the record holds no events; its turns:)", *_turns(record, teller, seat)]
    cut = False
    if seat is not None:
        feed, cut = seat_feed(events, seat)
        told = [(e, [e.get("to")]) for e in feed]
    else:
        told = _whole_game_events(events)
    lines: list[str] = []
    for event, audiences in told:
        kind = event.get("type")
        if kind == "game_start":
            continue  # the header says it
        if not lines and kind != "turn_start":
            lines.append("Deal")
        if kind == "turn_start":
            teller.dealing = False
        text = teller.sentence(event)
        if kind in ("turn_start", "game_end"):
            lines.append(text)
        else:
            lines.append("  " + text + ("" if seat is not None else _seen_by(teller, audiences)))
    if cut:
        lines.append(f"  ({teller.players[seat or 0]} forfeits here: shown nothing more)")
    return lines


def _check_seat(teller: _Teller, seat: int | None) -> None:
    if seat is not None and not 0 <= seat < len(teller.players):
        raise ValueError(f"seat {seat} is not in this game (seats 0-{len(teller.players) - 1})")


def narrate(record: Mapping[str, Any], seat: int | None = None) -> list[str]:
    """The lines telling ``record`` (docs/RECORDS.md): :func:`header_lines`, a blank line,
    :func:`event_lines`. With ``seat``, only what that seat was shown."""
    return [*header_lines(record, seat), "", *event_lines(record, seat)]
