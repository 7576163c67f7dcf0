"""The rulebook's levers, shared by every card effect: card options, chosen discards, reveals,
peeks, exchanges and trap removal.

Functions named ``step_*`` are pushed on the state's stack; functions named ``ask_*`` pose a
decision whose continuation does the work. Both keep the zone bookkeeping (graveyards,
revealed cards, events) in one place so that effects stay one line of rules each.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, Final

from arena.engine.cards import FACE_OF, NOTATION, PALAESTRON
from arena.engine.chance import shuffle
from arena.engine.decision import Option
from arena.engine.state import State, Trap

__all__ = [
    "ask_exchange_with_seat",
    "ask_hand_card",
    "ask_opponent",
    "ask_reveal",
    "card_options",
    "counting",
    "effect_context",
    "exchange_cards",
    "give_card",
    "hand_options",
    "pass_option",
    "peek_hand",
    "placed_options",
    "refill_pile",
    "reveal_hand",
    "seat_option",
    "shown_hand",
    "step_to_effect_graveyard",
    "take_trap",
    "to_discard_graveyard",
    "voluntary_discard",
]

_PASS: dict[str, Option] = {}
_SEAT_OPTION: dict[int, Option] = {}


def pass_option(key: str) -> Option:
    option = _PASS.get(key)
    if option is None:
        option = _PASS[key] = {key: None}
    return option


def seat_option(seat: int) -> Option:
    option = _SEAT_OPTION.get(seat)
    if option is None:
        option = _SEAT_OPTION[seat] = {"seat": seat}
    return option


def _option_table(key: str) -> tuple[Option, ...]:
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = tuple({key: name} for name in NOTATION)
    return table


_TABLES: Final[dict[str, tuple[Option, ...]]] = {}
#: one bit per card face (copies share it)
_FACE_BIT: Final[tuple[int, ...]] = tuple(1 << face for face in FACE_OF)


def card_options(cards: list[int], key: str = "card", revealed: set[int] | None = None,
                 face_up: bool = True, moves_first: Collection[int] | None = None,
                 ) -> tuple[list[Option], list[int]]:
    """One option per distinct card face (copies are interchangeable); never the Palaestron.

    Where two copies differ only in being revealed (E20), a card leaving the hand face up
    (played, discarded) is the revealed copy, and one going where others cannot see it (a
    trap, the draw pile, another hand: ``face_up=False``) is a hidden copy, so the copy left
    behind tells nobody anything new. Under reclaim=strict copies are not interchangeable
    (E35): of a copy in ``moves_first`` and one not, the one in ``moves_first`` moves,
    whatever is revealed.
    """
    table = _TABLES.get(key) or _option_table(key)
    seen = 0  # faces met so far, one bit each: the common hand has no two copies
    for card in cards:
        bit = _FACE_BIT[card]
        if seen & bit or card == PALAESTRON:
            break
        seen |= bit
    else:
        return [table[c] for c in cards], list(cards)
    faces = [FACE_OF[c] for c in cards]
    options: list[Option] = []
    payloads: list[int] = []
    index: dict[int, int] = {}
    for card, face in zip(cards, faces):
        if card == PALAESTRON:  # it enters a hand only by being drawn, and is played at once
            continue
        at = index.get(face)
        if at is None:
            index[face] = len(payloads)
            options.append(table[card])
            payloads.append(card)
        elif moves_first and (card in moves_first) != (payloads[at] in moves_first):
            if card in moves_first:
                payloads[at] = card
        elif revealed is not None and (card in revealed) == face_up:
            payloads[at] = card
    return options, payloads


#: "the copy ``depth`` cards from the top", one option object per (card face, depth), made
#: once like the others (a learner's action index remembers them)
_DEPTH_OPTION: Final[dict[tuple[str, int], Option]] = {}


def _depth_option(card: int, depth: int) -> Option:
    key = (NOTATION[card], depth)
    option = _DEPTH_OPTION.get(key)
    if option is None:
        option = _DEPTH_OPTION[key] = {"card": key[0], "depth": depth}
    return option


def placed_options(cards: list[int], depths: list[int], neighbours_alike: bool,
                   used: set[int] | None = None) -> tuple[list[Option], list[int]]:
    """One option per card of a pile's ``cards`` (each ``depths`` from the top, 1 the top),
    in the order given; never the Palaestron (E26).

    Two copies of a face are not interchangeable here: which one leaves decides the order of
    what stays. The copy nearest the top is ``{"card": face}``; the other is offered too, as
    ``{"card": face, "depth": d}``, unless ``neighbours_alike`` and the two lie side by side
    (taking either out of the Discard Graveyard leaves the same cards in the same order):
    then the one option takes a copy not in ``used`` where it can (reclaim=strict: a copy
    the chooser used would not count in its Desmos, the other would).
    """
    nearest: dict[int, int] = {}  # face -> the index of its copy nearest the top
    for i, card in enumerate(cards):
        at = nearest.get(FACE_OF[card])
        if at is None or depths[i] < depths[at]:
            nearest[FACE_OF[card]] = i
    taken = list(cards)  # the copy each option takes, by the index of the card it shows
    for i, card in enumerate(cards):
        top = nearest[FACE_OF[card]]
        if i != top and neighbours_alike and abs(depths[i] - depths[top]) == 1 \
                and used and cards[top] in used and card not in used:
            taken[top] = card
    table = _TABLES.get("card") or _option_table("card")
    options: list[Option] = []
    payloads: list[int] = []
    for i, card in enumerate(cards):
        if card == PALAESTRON:  # it enters a hand only by being drawn, and is played at once
            continue
        top = nearest[FACE_OF[card]]
        if i == top:
            options.append(table[card])
        elif neighbours_alike and abs(depths[i] - depths[top]) == 1:
            continue
        else:
            options.append(_depth_option(card, depths[i]))
        payloads.append(taken[i])
    return options, payloads


def counting(cards: list[int], used: set[int]) -> list[int] | None:
    """The ``cards`` that count in the Desmos of the seat that ``used`` these (None: every
    card counts, the common case)."""
    return [card for card in cards if card not in used] if used else None


def hand_options(state: State, seat: int, key: str = "card",
                 face_up: bool = True) -> tuple[list[Option], list[int]]:
    """A seat's choice among its own cards: of two copies, a copy it used goes before the
    one that counts in its Desmos (E35), then as E20 says."""
    return card_options(state.hands[seat], key, state.revealed[seat], face_up,
                        moves_first=state.used[seat])


# ---------------------------------------------------------------------------- the pile
def refill_pile(state: State) -> None:
    """An empty draw pile is rebuilt from both graveyards, shuffled together, the moment it
    empties or, if both were empty then, the moment a card next reaches one (E4): the pile is
    never empty while a graveyard holds a card. Cards still resolving (in limbo) wait."""
    if state.draw_pile:
        return
    pile = state.effect_graveyard + state.discard_graveyard
    if not pile:
        return
    state.effect_graveyard = []
    state.discard_graveyard = []
    shuffle(state.rng, pile)
    state.draw_pile = pile
    state.emit({"type": "reshuffle", "cards": len(pile)})


# ---------------------------------------------------------------------------- discards
def step_to_effect_graveyard(state: State, card: int) -> None:
    state.limbo.remove(card)
    state.effect_graveyard.append(card)
    if not state.draw_pile:
        refill_pile(state)


def to_discard_graveyard(state: State, card: int) -> None:
    """Put ``card`` on the Discard Graveyard (an empty pile is rebuilt at once, E4)."""
    state.discard_graveyard.append(card)
    if not state.draw_pile:
        refill_pile(state)


def voluntary_discard(state: State, card: int, seat: int, why: str) -> None:
    """A discard the player chose (a swap, an effect's cost): no God fires (ruling 6)."""
    state.remove_from_hand(seat, card)
    to_discard_graveyard(state, card)
    state.emit({"type": "discard", "seat": seat, "card": NOTATION[card], "why": why})


# ---------------------------------------------------------------------------- choices
def effect_context(why: str, source: str, from_seat: int | None = None) -> dict[str, Any]:
    """The context of a decision an effect asks: why, the card whose effect it is, and the
    other seat it is about (a card taken from or given to it, or its effect asking), if any:
    a bot cannot tell these from the options (PROTOCOL.md, "act")."""
    if from_seat is None:
        return {"why": why, "source": source}
    return {"why": why, "source": source, "from_seat": from_seat}


def ask_opponent(state: State, seat: int, then: Callable[..., None], *ctx: Any,
                 why: str, source: str, candidates: list[int] | None = None) -> None:
    """Make ``seat`` choose an opponent (a ``target`` decision) for ``source``'s effect."""
    seats = state.opponents(seat) if candidates is None else candidates
    if not seats:
        return
    state.ask(seat, "target", [seat_option(s) for s in seats], seats, then, *ctx,
              context=effect_context(why, source))


def ask_hand_card(state: State, seat: int, kind: str, then: Callable[..., None], *ctx: Any,
                  why: str, source: str, from_seat: int | None = None, optional: bool = False,
                  face_up: bool = True) -> None:
    """Make ``seat`` choose one card of its own hand (optionally: pass first) for ``source``'s
    effect; ``from_seat``: the other seat the choice is about (the one a card given goes to,
    or whose effect asks); ``face_up``: whether the card leaves where everyone sees it (E20
    picks the copy)."""
    options, payloads = hand_options(state, seat, "card", face_up)
    if not options:
        return
    if optional:
        options = [pass_option("card"), *options]
        payloads = [-1, *payloads]
    state.ask(seat, kind, options, payloads, then, *ctx,
              context=effect_context(why, source, from_seat))


def ask_reveal(state: State, seat: int, source: str, from_seat: int | None = None) -> None:
    """``seat`` reveals one card of its choice: public until it leaves that hand
    (``from_seat``: the seat whose effect asks, if another's).

    Only a card not yet revealed may be chosen (a reveal must show something); with every
    card already public there is nothing left to reveal.
    """
    revealed = state.revealed[seat]
    hidden = [card for card in state.hands[seat] if card not in revealed]
    options, payloads = card_options(hidden, "card")
    if options:
        # copies among two or more hidden cards are one option: asked all the same (E21)
        state.ask(seat, "reveal", options, payloads, _reveal, seat, source,
                  context=effect_context("reveal a card", source, from_seat),
                  secret_count=len(hidden) > 1)


def _reveal(state: State, card: int, seat: int, source: str) -> None:
    state.revealed[seat].add(card)
    state.emit({"type": "reveal", "seat": seat, "card": NOTATION[card], "source": source})


def shown_hand(hand: list[int]) -> list[int]:
    """A hand as another player sees it: in card order (E23). A hand keeps its cards in the
    order they arrived, and that order would tell an onlooker which card came from where
    (the newest card of a peeked hand is the one a hidden exchange just gave it)."""
    return sorted(hand)


def peek_hand(state: State, viewer: int, target: int, source: str) -> None:
    """``viewer`` looks at ``target``'s hand; everyone sees that it happened."""
    if state.track_events:
        state.emit({"type": "peek", "seat": viewer, "target": target, "source": source,
                    "cards": [NOTATION[c] for c in shown_hand(state.hands[target])]}, viewer)
        state.emit({"type": "peek", "seat": viewer, "target": target, "source": source},
                   ~viewer)


def reveal_hand(state: State, target: int, source: str) -> None:
    """Every card of ``target``'s hand becomes public until it leaves the hand."""
    hand = state.hands[target]
    state.revealed[target].update(hand)
    state.emit({"type": "reveal_hand", "seat": target, "source": source,
                "cards": [NOTATION[c] for c in shown_hand(hand)]})


def ask_exchange_with_seat(state: State, seat: int, target: int, source: str) -> None:
    """After a peek: ``seat`` may take one of ``target``'s cards and give one of its own
    (of two copies, one that would count in ``seat``'s Desmos, E35)."""
    hand = shown_hand(state.hands[target])
    options, payloads = card_options(hand, "card", state.revealed[target], face_up=False,
                                     moves_first=counting(hand, state.used[seat]))
    if not options or not state.hands[seat]:
        return
    state.ask(seat, "card", [pass_option("card"), *options], [-1, *payloads],
              _exchange_take, seat, target, source,
              context=effect_context("take a card (or pass)", source, target))


def _exchange_take(state: State, taken: int, seat: int, target: int, source: str) -> None:
    if taken < 0:
        return
    ask_hand_card(state, seat, "give", _exchange_give, seat, target, taken, source,
                  why=f"give a card in exchange for {NOTATION[taken]}", source=source,
                  from_seat=target, face_up=False)


def _exchange_give(state: State, given: int, seat: int, target: int, taken: int,
                   source: str) -> None:
    exchange_cards(state, seat, given, target, taken, source)


def exchange_cards(state: State, seat: int, given: int, target: int, taken: int,
                   source: str) -> None:
    """Move ``given`` from ``seat`` to ``target`` and ``taken`` the other way.

    The two players see both cards; the others see only a card that was revealed (public)
    before the exchange: a hidden card stays hidden from them.
    """
    took_public = taken in state.revealed[target]
    gave_public = given in state.revealed[seat]
    state.remove_from_hand(target, taken)
    state.remove_from_hand(seat, given)
    state.add_to_hand(seat, taken)
    state.add_to_hand(target, given)
    if state.track_events:
        detail = {"type": "exchange", "seat": seat, "target": target, "source": source,
                  "gave": NOTATION[given], "took": NOTATION[taken]}
        public = {"type": "exchange", "seat": seat, "target": target, "source": source}
        if gave_public:
            public["gave"] = NOTATION[given]
        if took_public:
            public["took"] = NOTATION[taken]
        _tell_two(state, seat, target, detail, public)


def give_card(state: State, giver: int, receiver: int, card: int, source: str) -> None:
    """Move ``card`` from ``giver``'s hand to ``receiver``'s, where it is hidden (E23).

    The two players see the card; the others see it only if it was revealed (public) before:
    they learn that a card went from one hand to the other.
    """
    was_public = card in state.revealed[giver]
    state.remove_from_hand(giver, card)
    state.add_to_hand(receiver, card)
    if state.track_events:
        detail = {"type": "give", "seat": giver, "target": receiver, "source": source,
                  "card": NOTATION[card]}
        public = {"type": "give", "seat": giver, "target": receiver, "source": source}
        if was_public:
            public["card"] = NOTATION[card]
        _tell_two(state, giver, receiver, detail, public)


def _tell_two(state: State, one: int, other: int, detail: dict[str, Any],
              public: dict[str, Any]) -> None:
    """``detail`` to the two seats a card moved between, ``public`` (its hidden cards left
    out) to each of the others."""
    state.emit(detail, one)
    state.emit(detail, other)
    for seat in range(state.n):
        if seat not in (one, other):
            state.emit(public, seat)


# ---------------------------------------------------------------------------- traps
def take_trap(state: State, owner: int, trap: Trap, how: str,
              source: str | None = None) -> None:
    """Remove a trap from its Arena to the Discard Graveyard (destroyed, cleared, expired).
    The event names the trap's slot: which face-down card left is public; and ``source``,
    the card whose effect destroyed or cleared it, where one did."""
    traps = state.traps[owner]
    slot = traps.index(trap)
    del traps[slot]
    event: dict[str, Any] = {"type": f"trap_{how}", "seat": owner, "card": NOTATION[trap.card],
                             "slot": slot}
    if source is not None:
        event["source"] = source
    state.emit(event)
    to_discard_graveyard(state, trap.card)
