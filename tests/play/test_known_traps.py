"""The other seats' traps as a seat knows them: every card named is the trap's own, and the
table names them instead of counting them face down."""

from __future__ import annotations

import pytest
from play_script import Script, news_each_step, play_out, quiet_console, random_table

from arena.engine import NOTATION, GameConfig, RandomAgent, new_game
from arena.play.known_traps import KnownTraps
from arena.play.person import Person


@pytest.mark.parametrize("seed", range(30))
def test_a_trap_known_is_the_card_in_that_slot(seed: int) -> None:
    state = random_table(2 + seed % 4, seed)
    known = [KnownTraps() for _ in range(state.n)]
    named = 0
    for news in news_each_step(state, seed):
        for seat, events in enumerate(news):
            for event in events:
                known[seat].follow(event)
            for other in range(state.n):
                traps = [NOTATION[trap.card] for trap in state.traps[other]]
                slots = known[seat].of(other, len(traps))
                assert len(slots) == len(traps)
                assert all(card in (None, trap) for card, trap in zip(slots, traps)), seed
                named += sum(card is not None for card in slots) if other != seat else 0
    if seed == 2:
        assert named  # a trap was set while revealed, or seen by a Basilisk


def test_a_trap_set_while_revealed_is_shown_by_its_card() -> None:
    """The bot set its revealed Beast-5 as a trap, told to every seat, yet the table counted
    it as "1 face down"."""
    console, out = quiet_console()
    person = Person(console, Script(), 0)
    state = new_game(GameConfig(players=("alice", "bot"), seed=55))
    play_out(person, state, [None, RandomAgent(56)])
    text = out.getvalue()
    told = text.index("bot sets Beast-5 as a trap")
    [row] = [line for line in text[told:].splitlines() if line.startswith("1     bot")][:1]
    assert row.split() == ["1", "bot", "5", "Beast-5", "(known)", "Beast-5"]


def test_a_trap_set_after_the_palaestron_cleared_the_arena_is_known_by_its_card() -> None:
    """Every trap the Palaestron clears leaves its slot: the one set later is slot 0."""
    known = KnownTraps()
    for event in ({"type": "game_start", "players": ["alice", "bot"]},
                  {"type": "set_trap", "seat": 1, "card": "Beast-5"},
                  {"type": "set_trap", "seat": 1, "card": None},
                  {"type": "trap_cleared", "seat": 1, "card": "Beast-5", "slot": 0},
                  {"type": "trap_cleared", "seat": 1, "card": "Fate-2", "slot": 0},
                  {"type": "set_trap", "seat": 1, "card": "Fate-4"}):
        known.follow(event)
    assert known.of(1, 1) == ["Fate-4"]
