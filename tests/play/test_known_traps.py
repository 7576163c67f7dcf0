"""The other seats' traps as a seat knows them: every card named is the trap's own, and the
table names them instead of counting them face down."""

from __future__ import annotations

import random

import pytest
from play_script import Script, quiet_console

from arena.engine import NOTATION, GameConfig, RandomAgent, new_game
from arena.play.known_traps import KnownTraps
from arena.play.person import Person


@pytest.mark.parametrize("seed", range(30))
def test_a_trap_known_is_the_card_in_that_slot(seed: int) -> None:
    players = 2 + seed % 4
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=seed % players))
    rng = random.Random(seed)
    known = [KnownTraps() for _ in range(players)]
    told = [0] * players
    named = 0
    while not state.is_over:
        for seat in range(players):
            events = state.events_for(seat, told[seat])
            told[seat] += len(events)
            for event in events:
                known[seat].follow(event)
            for other in range(players):
                traps = [NOTATION[trap.card] for trap in state.traps[other]]
                slots = known[seat].of(other, len(traps))
                assert len(slots) == len(traps)
                assert all(card in (None, trap) for card, trap in zip(slots, traps)), seed
                named += sum(card is not None for card in slots) if other != seat else 0
        state.apply(rng.randrange(len(state.decision.options)))
    if seed == 2:
        assert named  # a trap was set while revealed, or seen by a Basilisk


def test_a_trap_set_while_revealed_is_shown_by_its_card() -> None:
    """The bot set its revealed Beast-5 as a trap, told to every seat, yet the table counted
    it as "1 face down"."""
    console, out = quiet_console()
    person = Person(console, Script(), 0)
    state = new_game(GameConfig(players=("alice", "bot"), seed=55))
    bot = RandomAgent(56)
    person.watch(state.events_for(0))
    while (decision := state.decision) is not None:
        seen = len(state.events_for(0))
        state.apply(person.choose(decision, state.observe(0)) if decision.seat == 0
                    else bot.choose(decision, state.observe(1)))
        person.watch(state.events_for(0, seen))
    text = out.getvalue()
    told = text.index("bot sets Beast-5 as a trap")
    [row] = [line for line in text[told:].splitlines() if line.startswith("1     bot")][:1]
    assert row.split() == ["1", "bot", "5", "Beast-5", "(known)", "Beast-5"]
