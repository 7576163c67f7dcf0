"""Why each draw is made, as every seat is told: the stack of draws owed, kept from the
public events, pays each draw as the engine does."""

from __future__ import annotations

import re
from typing import Any

import pytest
from play_script import Script, news_each_step, play_out, quiet_console, random_table

from arena.engine import GameConfig, RandomAgent, new_game
from arena.play.draw_reasons import BACK, PALAESTRON, SWAP, TURN, DrawReasons
from arena.play.person import Person


@pytest.mark.parametrize("seed", range(30))
def test_every_draw_has_its_reason_and_the_turns_draw_comes_last(seed: int) -> None:
    state = random_table(2 + seed % 4, seed)
    reasons = DrawReasons()
    turn: list[tuple[str, str | None]] = []  # this turn's events of its player: type, reason
    for news in news_each_step(state, seed):
        for event in news[0]:  # the public events, as seat 0 is told them
            why = reasons.follow(event)
            if event["type"] == "turn_start":
                turn = []
            elif event.get("seat") == state.active:
                turn.append((event["type"], why))
            if event["type"] == "draw":
                assert why is not None, (seed, event)
        decision = state.decision
        if decision is not None and decision.kind == "swap" \
                and not any(kind == "pile_exhausted" for kind, _ in turn):
            acted = any(kind in ("play", "set_trap") for kind, _ in turn)
            drawn = [why for kind, why in turn if kind == "draw"]
            assert (drawn[-1] in (TURN, PALAESTRON)) if acted else TURN not in drawn, \
                (seed, turn)


def test_a_phoenix_plays_second_draw_is_told_as_the_turns_draw() -> None:
    """Both draws of a played Phoenix read 'alice draws ...': the second, which takes back the
    card the Phoenix put on the pile, read as the Phoenix's doing."""
    for seed in range(40):
        console, out = quiet_console()
        person = _PhoenixPlayer(console, Script(), 0)
        state = new_game(GameConfig(players=("alice", "bot"), seed=seed))
        play_out(person, state, [None, RandomAgent(seed)])
        flowing = " ".join(out.getvalue().split())
        played = re.search(r"alice plays Beast-5 .*? alice draws (\S+) \(by Beast-5\) .*?"
                           r"alice puts (\S+) on top of the draw pile \(by Beast-5\) "
                           r"alice draws (\S+) \(the turn's draw\)", flowing)
        if played:
            assert played.group(2) == played.group(3)  # the play's draw takes it back
            return
    pytest.fail("no game played a Phoenix")


class _PhoenixPlayer(Person):
    """A person who plays Phoenix whenever a turn offers it, else answers as the script."""

    def choose(self, decision: Any, observation: Any) -> int:
        hand = observation.hand
        phoenix = decision.kind == "turn" and "Beast-5" in hand
        self.ask = Script([str(hand.index("Beast-5") + 1)] if phoenix else [])
        return super().choose(decision, observation)


@pytest.mark.parametrize("seed", range(12))
def test_the_draw_after_a_swaps_discard_is_told_as_the_swaps(seed: int) -> None:
    """`(the swap's draw)` and `(back to five)` after a forced discard, as docs/PLAY.md says
    (where the Palaestron comes up instead, the draw in its place is told so)."""
    state = random_table(2 + seed % 3, seed)
    reasons = DrawReasons()
    owed: dict[int, str] = {}  # by seat: the reason its next draw must give
    told = {SWAP: 0, BACK: 0}
    for news in news_each_step(state, seed):
        for event in news[0]:
            why = reasons.follow(event)
            seat = event.get("seat")
            if event["type"] == "discard" and event.get("why") == "swap":
                owed[seat] = SWAP
            elif event["type"] == "forced_discard" and not event["card"].startswith("God-"):
                owed[seat] = BACK
            elif event["type"] in ("pile_exhausted", "effect", "play", "set_trap"):
                owed.pop(seat, None)  # another draw may come first, or none
            elif event["type"] == "draw" and seat in owed:
                expected = owed.pop(seat)
                assert why in (expected, PALAESTRON), (seed, event, why)
                told[expected] += why == expected
    assert told[SWAP] > 0
