"""Property test: every public count is told. A seat that reads nothing but its own event
feed, from the deal on, knows at every decision what its observation says of the table: each
hand's size, each Arena's trap count, the draw pile's size and the Discard Graveyard, in its
order (the card Tyche offers and Griffin lifts, and the ones they uncover). So no card moves
between public places untold, and the feed tells the moves in the order they happened."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from arena.engine.cards import NOTATION
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.houserules import RULE_CHOICES, HouseRules

#: events that move no card between public places (a look, a reveal, a hidden exchange)
_UNMOVING = {"game_start", "deal", "turn_start", "hold", "effect", "reveal", "reveal_hand",
             "peek", "peek_traps", "look", "exchange", "pile_exchange", "pile_bottomed",
             "round_end", "palaestron_redealt", "pile_exhausted", "forfeit", "showdown", "rps",
             "ascension", "game_end"}
_TRAP_GONE_UNUSED = {"trap_expired", "trap_destroyed", "trap_cleared"}


class Tally:
    """The public counts of a table as one seat's feed tells them."""

    def __init__(self, players: int) -> None:
        self.hands = [5] * players  # a dealt Palaestron is told: its holder has 4
        self.traps = [0] * players
        self.pile = 52 - 5 * players
        self.discard: list[str] = []  # bottom first
        self.dealing = True

    def read(self, event: dict[str, Any]) -> None:
        kind, seat = event["type"], event.get("seat")
        if kind == "turn_start":
            self.dealing = False
        elif kind == "palaestron":  # dealt: one card fewer in hand; drawn: from the pile
            if self.dealing:
                self.hands[seat] -= 1
            else:
                self.pile -= 1
        elif kind == "draw":
            self.hands[seat] += 1
            self.pile -= 1
        elif kind in ("play", "forced_discard", "discard", "set_trap", "return_to_pile"):
            self.hands[seat] -= 1
            self.traps[seat] += kind == "set_trap"
            self.pile += kind == "return_to_pile"
            if kind == "discard" or kind == "forced_discard" and not event["card"].startswith(
                    "God-"):  # a God forced out resolves, then goes to the Effect Graveyard
                self.discard.append(event["card"])
        elif kind == "trap_triggered":
            self.traps[seat] -= 1
        elif kind in _TRAP_GONE_UNUSED:
            self.traps[seat] -= 1
            self.discard.append(event["card"])
        elif kind == "give":
            self.hands[seat] -= 1
            self.hands[event["target"]] += 1
        else:
            self._read_pile_and_graveyard(kind, event)

    def _read_pile_and_graveyard(self, kind: str, event: dict[str, Any]) -> None:
        if kind == "graveyard_exchange":  # the copy nearest the top, or the one at `depth`
            depth = event.get("depth")
            if depth is None:
                at = len(self.discard) - 1 - self.discard[::-1].index(event["took"])
            else:
                at = len(self.discard) - depth
            assert self.discard[at] == event["took"], (self.discard, event)
            del self.discard[at]
            self.discard.append(event["gave"])
        elif kind == "burn":
            self.pile -= 1
            self.discard.append(event["card"])
        elif kind == "updraft":
            assert self.discard[-1] == event["card"], (self.discard, event)
            self.discard.pop()
            self.pile += 1
        elif kind == "reshuffle":
            self.pile = event["cards"]
            self.discard = []
        else:
            assert kind in _UNMOVING, f"an event this tally does not know: {event}"

    def told(self) -> tuple[Any, ...]:
        return self.hands, self.traps, self.pile, self.discard


house_rules = st.builds(HouseRules, **{name: st.sampled_from(choices)
                                       for name, choices in RULE_CHOICES.items()})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5),
       agent_seed=st.integers(0, 2**32 - 1), rules=house_rules)
# a game in which a draw takes the Palaestron as the pile's last card
@example(seed=89, players=5, agent_seed=89, rules=HouseRules())
# a game in which a Hades takes the copy of a card farther from the top (E26)
@example(seed=218, players=4, agent_seed=218, rules=HouseRules())
def test_every_seats_feed_tells_every_public_count(seed: int, players: int, agent_seed: int,
                                                   rules: HouseRules) -> None:
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=seed % players, rules=rules))
    tallies = [Tally(players) for _ in range(players)]
    read = [0] * players
    choose = random.Random(agent_seed)
    while state.decision is not None:
        for seat, tally in enumerate(tallies):
            feed = state.events_for(seat)
            for event in feed[read[seat]:]:
                tally.read(event)
            read[seat] = len(feed)
            view = state.observe(seat)
            discard = [NOTATION[card] for card in view.discard_graveyard_ids]
            seen = (list(view.hand_sizes), list(view.trap_counts), view.draw_pile, discard)
            assert tally.told() == seen, (seat, feed[-6:])
        state.apply(choose.randrange(len(state.decision.options)))
