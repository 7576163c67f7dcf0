"""Whatever a person types, the screen shows no card their seat was not shown (Hypothesis).

The game is driven as the referee drives a local seat: the person is asked its decisions with
its seat's observation and told its seat's events after every step; the other seats play at
random. Every card name printed before the showdown must be in the seat's feed by then.
"""

from __future__ import annotations

import json
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from play_script import Script, numbers_in, quiet_console

from arena.engine import GameConfig, new_game
from arena.play.person import Person

CARD = re.compile(r"\b(?:God-[1-7]|Agari-[1-6]|Umbrae-[1-6]|Arcoi-[1-5]|Sophoi-[1-5]"
                  r"|Fate-[1-5]|Beast-[1-5]|Crown)\b")
COMMANDS = ["?", "t", "g", "l", "h 1", "h 3", "x", "99"]


def _typist(seed: int) -> Script:
    rng = random.Random(seed)

    def answer(prompt: str) -> str:
        if rng.random() < 0.3:
            return rng.choice(COMMANDS)
        spans = re.search(r"Choose ([\d, -]+) \(", prompt).group(1)  # type: ignore[union-attr]
        return str(rng.choice(numbers_in(spans)))

    return Script([], then=answer)


@settings(max_examples=25)
@given(players=st.integers(2, 5), seat=st.integers(0, 4), seed=st.integers(0, 10**6))
def test_the_screen_shows_only_cards_the_seat_was_shown(players: int, seat: int,
                                                        seed: int) -> None:
    seat %= players
    console, out = quiet_console()
    person = Person(console, _typist(seed), seat)
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed))
    others = random.Random(seed + 1)
    told = 0

    def shown_so_far() -> set[str]:
        return set(CARD.findall(json.dumps(state.events_for(seat)[:told])))

    def hand_over() -> None:  # as the referee does, before the first decision and after each
        nonlocal told
        events = state.events_for(seat, told)
        told += len(events)
        person.watch(json.loads(json.dumps(events)))

    hand_over()
    while (decision := state.decision) is not None:
        if decision.seat == seat:
            choice = person.choose(decision, state.observe(seat))
            # the table and every answer to a command: only cards handed to the seat so far
            assert set(CARD.findall(out.getvalue())) <= shown_so_far()
        else:
            choice = others.randrange(len(decision.options))
        state.apply(choice)
        hand_over()
        assert set(CARD.findall(out.getvalue())) <= shown_so_far()
