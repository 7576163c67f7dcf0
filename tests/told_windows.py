"""Games steered for the search kit's tests (tests/sdk, tests/bots): cards revealed and sent
face down, and the seats' turns soon after another seat gave a revealed card for one of
several top cards of the pile, read from the feed alone."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from arena.engine.cards import NOTATION
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.state import State
from arena.sdk.search import SearchView, Tracker


def names(cards: Any) -> Counter[str]:
    return Counter(NOTATION[card] for card in cards)


def within(state: State, pile: list[int], hands: list[int]) -> Counter[str]:
    """The cards at those places of the draw pile and hidden in those hands."""
    cards = names(state.draw_pile[place] for place in pile)
    for seat in hands:
        cards += names(state.hands[seat]) - names(state.revealed[seat])
    return cards


def leaning_face_down(state: State, rng: random.Random) -> int:
    """Random choices, leaning towards revealing cards and sending revealed ones face down:
    set as traps, put back by Phoenix, given for a top card of the pile."""
    decision = state.decision
    assert decision is not None
    revealed = {NOTATION[card] for card in state.revealed[decision.seat]}
    lean = [i for i, option in enumerate(decision.options)
            if option.get("action") == "trap" and option.get("card") in revealed
            or decision.kind == "turn" and str(option.get("card")).startswith(
                ("Arcoi-", "Fate-3", "Beast-5", "God-4", "Sophoi-", "Crown", "Umbrae-"))
            or decision.kind == "give" and option.get("card") in revealed]
    if lean and rng.random() < 0.7:
        return rng.choice(lean)
    return rng.randrange(len(decision.options))


def told_windows(seeds: range, players: int) -> Iterator[tuple[State, SearchView, str,
                                                                 int, int, bool]]:
    """Each seat's turn and swap decisions soon after another seat gave a revealed card for
    one of several top cards of the pile, read from the feed alone: the card, how many top
    places it may still be at, the giver, and whether the giver's unseen draws from those
    places may have taken it back (nothing else has happened to the pile or the giver's
    hand since)."""
    quiet = ("turn_start", "round_end", "hold", "effect")
    for seed in seeds:
        state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)),
                                    seed=seed, starting_seat=seed % players))
        feeds = [0] * players
        told: list[tuple[str, int, int, bool] | None] = [None] * players
        looked = [0] * players
        rng = random.Random(seed)
        while state.decision is not None:
            for seat in range(players):
                for event in state.events_for(seat, feeds[seat]):
                    kind, giver = event["type"], event.get("seat")
                    if kind == "look":
                        looked[seat] = event.get("count", len(event.get("cards", ())))
                    current = told[seat]
                    if kind == "pile_exchange" and giver != seat and "gave" in event \
                            and looked[seat] > 1:
                        told[seat] = (event["gave"], looked[seat], giver, False)
                    elif current and kind == "draw" and giver == current[2] \
                            and "card" not in event and current[1] > 0:
                        told[seat] = (current[0], current[1] - 1, giver, True)
                    elif current and (kind == "discard" and giver == current[2]
                                      and event["card"] != current[0] or kind in quiet):
                        pass
                    else:
                        told[seat] = None
                    feeds[seat] += 1
            decision = state.decision
            current = told[decision.seat]
            if decision.kind in ("turn", "swap") and current:
                seat = decision.seat
                tracker = Tracker()
                tracker.reset(seat)
                for event in state.events_for(seat, 0):
                    tracker.add(event)
                view = SearchView(state.observe_json(seat), tracker.events, decision.kind,
                                  list(decision.options), tracker)
                yield state, view, *current
            state.apply(leaning_face_down(state, rng))
