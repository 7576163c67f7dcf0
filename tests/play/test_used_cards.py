"""Under reclaim=strict, the cards a seat used, as its events and observations tell them:
always those the engine does not count in its Desmos."""

from __future__ import annotations

import re

import pytest
from play_script import Script, news_each_step, numbers_in, quiet_console, random_table

from arena.engine import NOTATION, Category, GameConfig, RandomAgent, new_game
from arena.engine.houserules import HouseRules
from arena.play.person import Person
from arena.play.used_cards import UsedCards


@pytest.mark.parametrize("seed", [*range(40), 1642])
def test_the_cards_kept_as_used_are_those_the_engine_does_not_count(seed: int) -> None:
    state = random_table(2 + seed % 4, seed, HouseRules(reclaim="strict"))
    used = [UsedCards(seat) for seat in range(state.n)]
    for step, news in enumerate(news_each_step(state, seed)):
        for seat, events in enumerate(news):
            for event in events:
                used[seat].follow(event)
        if state.decision is None:
            break
        seat = state.decision.seat
        view = state.observe(seat)
        used[seat].set_from(view)  # as the person's seat does, at each of its decisions
        assert used[seat].dead(view) == state.used[seat] & set(view.hand_ids), step


def _second_number(prompt: str) -> str:
    """The second number a prompt offers (a turn's first play), else the first."""
    found = re.match(r"Choose ([\d, -]+) \(", prompt)
    numbers = numbers_in(found.group(1)) if found else [0]
    return str(numbers[min(1, len(numbers) - 1)])


def test_under_strict_reclaim_the_hand_shows_the_desmos_its_cards_that_count_make() -> None:
    """Under reclaim=strict the hand line showed no Desmos at all; it shows the one the
    engine counts at the showdown (the cards used left out), and marks the cards used."""
    strict = HouseRules(reclaim="strict")
    marked = 0
    for seed in (1, 5):  # games in which a card alice used comes back to her hand
        console, out = quiet_console(width=200)
        person = Person(console, Script(then=_second_number), 0, rules=strict)
        players = 5 if seed == 1 else 4
        state = new_game(GameConfig(players=("alice", *(f"bot{i}" for i in range(1, players))),
                                    seed=seed, rules=strict))
        bots = [RandomAgent(seed + seat) for seat in range(players)]
        person.watch(state.events_for(0))
        while (decision := state.decision) is not None:
            seen = len(state.events_for(0))
            if decision.seat:
                state.apply(bots[decision.seat].choose(decision, state.observe(decision.seat)))
            else:
                told = len(out.getvalue())
                choice = person.choose(decision, state.observe(0))
                [line] = [line for line in out.getvalue()[told:].splitlines()
                          if line.startswith("Your hand: ")]
                dead = [NOTATION[c] for c in state.hands[0] if c in state.used[0]]
                marked += bool(dead)
                assert line.count("(used)") == len(dead), line
                if len(state.hands[0]) == 5:
                    desmos = Category(state.desmos_values()[0][0]).label
                    assert line.endswith(f" ({desmos})"), line
                state.apply(choice)
            person.watch(state.events_for(0, seen))
    assert marked  # a card used came back into the hand: the case under test
