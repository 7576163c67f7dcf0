"""Whether a seat is asked tells the others nothing (RULES.md E21).

A bot sees how long it waits between its answer and its next question, and a question sent to
another bot's process shows there (a round trip through the sandbox, and that bot's thinking).
So a decision whose number of options depends on cards only its seat sees is asked even with
one option: a reveal among hidden copies of one card, and a look at the pile's top that finds
only the Palaestron. Records made before hold no choice for those; they still replay.
"""

from __future__ import annotations

from typing import Any

import pytest
from engine_scenario import act, asked, build_state

from arena.engine.agents import RandomAgent, play_game
from arena.engine.cards import NOTATION
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.record import replay
from arena.referee.rerun import rerun_seat
from arena.sdk import Bot, Request
from arena.web.replay import build_replay

PLAYERS = ("north", "east", "south")


def _reveal(state: Any, shown: str) -> None:
    """Seat 1's cards of these names become public (one copy of each)."""
    for name in shown.split():
        state.revealed[1].add(next(c for c in state.hands[1] if NOTATION[c] == name))


def _revealed_hand(hidden: str) -> Any:
    """Seat 1 holds three revealed cards and ``hidden``; seat 0 is to play an Arcoi with no
    trap in play, which makes seat 1 reveal a card."""
    state = build_state(["Arcoi-1 God-3 Agari-2 Umbrae-3 Beast-4", f"God-1 God-2 Beast-1 {hidden}"])
    _reveal(state, "God-1 God-2 Beast-1")
    act(state, "turn", 0, action="play", card="Arcoi-1")
    return state


def test_a_reveal_among_hidden_copies_of_one_card_is_asked() -> None:
    state = _revealed_hand("Fate-3 Fate-3")
    assert asked(state) == (1, "reveal")
    assert state.decision is not None
    assert list(state.decision.options) == [{"card": "Fate-3"}]


def test_a_reveal_among_two_different_hidden_cards_is_asked_as_before() -> None:
    state = _revealed_hand("Fate-3 Fate-4")
    assert asked(state) == (1, "reveal")


def test_a_reveal_of_the_one_hidden_card_is_not_asked() -> None:
    # how many cards are hidden is public: a single one tells nobody anything
    state = build_state(["Arcoi-1 God-3 Agari-2 Umbrae-3 Beast-4",
                         "God-1 God-2 Beast-1 Beast-2 Fate-3"])
    _reveal(state, "God-1 God-2 Beast-1 Beast-2")
    act(state, "turn", 0, action="play", card="Arcoi-1")
    assert asked(state) == (0, "swap")


def test_a_look_that_finds_only_the_palaestron_is_asked() -> None:
    state = build_state(["Crown God-3 Agari-2 Umbrae-3 Beast-4",
                         "God-1 God-2 Beast-1 Fate-3 Fate-4"], pile_top="Palaestron Fate-1")
    act(state, "turn", 0, action="play", card="Crown")
    assert asked(state) == (0, "card")
    assert state.decision is not None
    assert list(state.decision.options) == [{"card": None}]


def _game_asking_alone() -> tuple[dict[str, Any], int]:
    """A recorded game (random choices) with a decision of one option, and its choice's
    index."""
    for seed in range(400):
        config = GameConfig(players=PLAYERS, seed=seed)
        state = play_game(config, [RandomAgent(seed * 10 + seat) for seat in range(3)])
        record = state.record()
        counts = _option_counts(config, state.choices)
        alone = [number for number, count in enumerate(counts) if count == 1]
        if alone:
            return record, alone[0]
    raise AssertionError("no game of 400 asked a decision of one option")


def _option_counts(config: GameConfig, choices: list[tuple[int, str, int]]) -> list[int]:
    state = new_game(config)
    counts = []
    for _, _, index in choices:
        assert state.decision is not None
        counts.append(len(state.decision.options))
        state.apply(index)
    return counts


@pytest.fixture(scope="module")
def game_asking_alone() -> tuple[dict[str, Any], int]:
    return _game_asking_alone()


def test_a_record_holds_the_choice_of_one_option(
        game_asking_alone: tuple[dict[str, Any], int]) -> None:
    record, _ = game_asking_alone
    assert replay(record).result is not None


def _older(record: dict[str, Any], number: int) -> dict[str, Any]:
    """The record as the engine made it before: no choice for that decision."""
    return dict(record, choices=[c for at, c in enumerate(record["choices"]) if at != number])


def test_a_record_made_before_such_a_decision_was_asked_still_replays(
        game_asking_alone: tuple[dict[str, Any], int]) -> None:
    older = _older(*game_asking_alone)
    assert replay(older).result is not None
    assert build_replay(older)["steps"]


def test_a_seat_of_such_a_record_still_reruns(
        game_asking_alone: tuple[dict[str, Any], int]) -> None:
    record, number = game_asking_alone
    older = _older(record, number)
    seat = record["choices"][number][0]
    answers = [index for chooser, _, index in older["choices"] if chooser == seat]

    class Recorded(Bot):
        def on_game_start(self, game: Any) -> None:
            self.left = list(answers)

        def act(self, request: Request) -> int:
            return self.left.pop(0)

    assert rerun_seat(older, seat, Recorded()).same_answers
