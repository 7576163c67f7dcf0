"""Scenario builder and drivers for the engine tests.

``build_state`` stages an exact situation: chosen hands, traps, graveyards and the top of the
draw pile (all in public notation, copies get distinct ids through ``parse_cards``), the seat to
act, the round, and the tie-break metadata; every card of the 52 is placed exactly once. The
cards nobody named fill the draw pile's bottom (or a graveyard) in a fixed order: the
Palaestron at the very bottom, then the rest by ascending id, so the first filler card drawn
after the named top is the highest id left (Crowns, then Beasts, ...).

``act(state, kind, by=seat, **match)`` answers the pending decision with the option whose
items match, after checking who is asked and what kind of decision it is.

Test modules import these helpers as ``from engine_scenario import ...``: this conftest registers
itself under that unique name, so the import cannot pick up another directory's conftest.
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Sequence
from typing import Any

import pytest

from arena.engine.cards import DECK_SIZE, NOTATION, PALAESTRON, parse_cards
from arena.engine.config import GameConfig, rounds_for
from arena.engine.decision import Decision
from arena.engine.houserules import HouseRules
from arena.engine.state import State, Trap
from arena.engine.turn import start_turn

PLAYER_NAMES = ("north", "east", "south", "west", "centre", "extra")
EVENT_DATE = dt.date(2026, 11, 29)

Cards = str | Sequence[str]
TrapSpec = str | tuple[str, int, int]


def _names(cards: Cards | None) -> list[str]:
    if cards is None:
        return []
    if isinstance(cards, str):
        return [t for t in cards.replace(",", " ").split() if t]
    return list(cards)


def build_state(
    hands: Sequence[Cards],
    *,
    traps: dict[int, Sequence[TrapSpec]] | None = None,
    effect_graveyard: Cards | None = None,
    discard_graveyard: Cards | None = None,
    pile_top: Cards | None = None,
    rest_to: str = "pile",
    seed: int = 0,
    starting_seat: int = 0,
    round: int = 1,
    active: int | None = None,
    last_book_finished: Sequence[dt.date | None] = (),
    event_date: dt.date = EVENT_DATE,
    start: bool = True,
    rules: dict[str, str] | None = None,
) -> State:
    """A state staged at the start of a turn (see the module docstring).

    ``hands[seat]``: that seat's hand. ``traps[seat]``: trap cards, each a notation (set during
    its owner's previous turn: triggerable now, expires at the end of the owner's second turn
    from now) or ``(notation, set_turn, owner_turns)`` as in :class:`arena.engine.state.Trap`.
    Graveyards list their cards bottom first; ``pile_top`` lists the draw pile TOP FIRST (the
    first name is the next card drawn). ``rest_to`` ("pile", "effect_graveyard" or
    "discard_graveyard") says where every card nobody named goes. The turn is the one of
    ``active`` (default: the starting seat) in ``round``; each seat's completed-turn count is
    derived from that. With ``start`` the turn is started (trigger windows, then the turn
    decision) and run to its first decision. ``rules``: house rules (NAME: VALUE).
    """
    n = len(hands)
    config = GameConfig(players=PLAYER_NAMES[:n], seed=seed, starting_seat=starting_seat,
                        last_book_finished=tuple(last_book_finished), event_date=event_date,
                        rules=HouseRules.from_json(rules))
    state = State(config)
    _position(state, round, starting_seat, starting_seat if active is None else active)
    top = _place_named(state, hands, traps or {}, effect_graveyard, discard_graveyard,
                       pile_top)
    _place_rest(state, top, rest_to)
    assert sorted(state.all_cards()) == list(range(DECK_SIZE)), "the builder lost or doubled a card"
    if start:
        state.push(start_turn)
        state.run()
    return state


def _position(state: State, round: int, starting_seat: int, active: int) -> None:
    """Put ``state`` at the start of ``active``'s turn in ``round``, each seat's completed
    turns counted from the starting seat."""
    n = state.n
    turn_in_round = (active - starting_seat) % n
    state.round = round
    state.turn_in_round = turn_in_round
    state.turn = (round - 1) * n + turn_in_round
    state.active = active
    state.own_turns = [
        (round - 1) + (1 if (seat - starting_seat) % n < turn_in_round else 0)
        for seat in range(n)
    ]
    state.phase = "play"


def _place_named(state: State, hands: Sequence[Cards], traps: dict[int, Sequence[TrapSpec]],
                 effect_graveyard: Cards | None, discard_graveyard: Cards | None,
                 pile_top: Cards | None) -> list[int]:
    """Deal the named cards into hands, traps and graveyards; returns the pile's named top
    cards, top first. Everything is parsed in one call so that copies get distinct ids."""
    trap_names: list[tuple[int, str, int | None, int | None]] = []
    for seat, specs in sorted(traps.items()):
        for spec in specs:
            if isinstance(spec, str):
                trap_names.append((seat, spec, None, None))
            else:
                trap_names.append((seat, spec[0], spec[1], spec[2]))
    hand_names = [_names(h) for h in hands]
    eg_names = _names(effect_graveyard)
    dg_names = _names(discard_graveyard)
    top_names = _names(pile_top)
    everything = ([c for h in hand_names for c in h] + [t[1] for t in trap_names]
                  + eg_names + dg_names + top_names)
    ids = iter(parse_cards(everything))
    for seat, names in enumerate(hand_names):
        state.hands[seat] = [next(ids) for _ in names]
        if PALAESTRON in state.hands[seat]:
            raise ValueError("the Palaestron is never held in a hand")
    for seat, _, set_turn, owner_turns in trap_names:
        card = next(ids)
        state.traps[seat].append(Trap(
            card,
            state.turn - 1 if set_turn is None else set_turn,
            state.own_turns[seat] - 1 if owner_turns is None else owner_turns,
        ))
    state.effect_graveyard = [next(ids) for _ in eg_names]
    state.discard_graveyard = [next(ids) for _ in dg_names]
    return [next(ids) for _ in top_names]


def _place_rest(state: State, top: list[int], rest_to: str) -> None:
    """The draw pile with ``top`` on top, and every card nobody named where ``rest_to``
    says: the Palaestron first (lowest), then by ascending id."""
    placed = set(state.all_cards()) | set(top)
    rest = [c for c in range(DECK_SIZE) if c not in placed]
    rest.sort(key=lambda c: (c != PALAESTRON, c))
    state.draw_pile = list(reversed(top))
    if rest_to == "pile":
        state.draw_pile = rest + state.draw_pile
    elif rest_to == "effect_graveyard":
        state.effect_graveyard = rest + state.effect_graveyard
    elif rest_to == "discard_graveyard":
        state.discard_graveyard = rest + state.discard_graveyard
    else:  # pragma: no cover - a mistake in a test
        raise ValueError(f"rest_to {rest_to!r}")


# ---------------------------------------------------------------------------- reading
def names(cards: Sequence[int]) -> list[str]:
    """Notation of card ids, in order."""
    return [NOTATION[c] for c in cards]


def hand(state: State, seat: int) -> list[str]:
    return sorted(names(state.hands[seat]))


def pile_top(state: State, count: int = 1) -> list[str]:
    """The top ``count`` cards of the draw pile, top first."""
    return names(state.draw_pile[::-1][:count])


def events_of(state: State, kind: str) -> list[dict[str, Any]]:
    """Every logged event of a type (any audience), in order."""
    return [e for _, e in state.log if e["type"] == kind]


# ---------------------------------------------------------------------------- driving
def find_option(decision: Decision, **match: Any) -> int:
    """Index of the first option whose items include ``match``."""
    for index, option in enumerate(decision.options):
        if all(key in option and option[key] == value for key, value in match.items()):
            return index
    raise AssertionError(f"no option matching {match} in {decision!r}")


def act(state: State, kind: str | None = None, by: int | None = None, **match: Any) -> None:
    """Answer the pending decision (checking its kind and that seat ``by`` is asked) with the
    matching option (option 0, the safe default, when nothing is matched)."""
    decision = state.decision
    assert decision is not None, f"no decision pending (expected {kind} for seat {by})"
    if kind is not None:
        assert decision.kind == kind, f"expected a {kind} decision, got {decision!r}"
    if by is not None:
        assert decision.seat == by, f"expected seat {by} to choose, got {decision!r}"
    state.apply(find_option(decision, **match) if match else 0)


def hold_turn(state: State, seat: int | None = None) -> None:
    """Pass every trigger window, hold, and do not swap: one whole quiet turn."""
    while state.decision is not None and state.decision.kind == "trigger":
        act(state, "trigger", trap=None)
    act(state, "turn", seat, action="hold")
    act(state, "swap", seat, swap=None)


def asked(state: State) -> tuple[int, str]:
    """The seat asked and the kind of the pending decision."""
    decision = state.decision
    assert decision is not None
    return decision.seat, decision.kind


def palaestron_steps(state: State) -> list[tuple[int, str]]:
    """Answer option 0 to every pending discard and reveal (the Palaestron's steps); the
    (seat, kind) of each, in order."""
    steps = []
    while state.decision is not None and state.decision.kind in ("discard", "reveal"):
        steps.append(asked(state))
        state.apply(0)
    return steps


def play_defaults(state: State, limit: int = 10_000) -> None:
    """Answer option 0 (the safe default) until the game is over."""
    for _ in range(limit):
        if state.decision is None:
            return
        state.apply(0)
    raise AssertionError("the game did not end")  # pragma: no cover


def final_showdown(hands: Sequence[Cards], **kwargs: Any) -> State:
    """Stage the last turn of the last round with these hands, hold it, and return the
    finished state (the showdown has run unless it asks Rock-Paper-Scissors)."""
    n = len(hands)
    rounds = rounds_for(n)
    starting = kwargs.pop("starting_seat", 0)
    state = build_state(hands, round=rounds, starting_seat=starting,
                        active=(starting - 1) % n, **kwargs)
    hold_turn(state)
    return state


@pytest.fixture
def staged() -> Any:
    """The builder as a fixture, for tests that prefer injection."""
    return build_state


sys.modules.setdefault("engine_scenario", sys.modules[__name__])
