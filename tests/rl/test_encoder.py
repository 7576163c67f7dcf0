"""The environments' fast path gives exactly the reference vectors, masks and action indices."""

from __future__ import annotations

import copy
import pickle
import random
from itertools import islice

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from arena.engine import GameConfig, new_game  # noqa: E402
from arena.engine.cards import DECK  # noqa: E402
from arena.engine.decision import Decision  # noqa: E402
from arena.engine.houserules import RULE_CHOICES, HouseRules  # noqa: E402
from arena.rl.actions import MAX_SEATS, PASS, TARGET, decision_actions  # noqa: E402
from arena.rl.aec import PalaestraAEC  # noqa: E402
from arena.rl.encoder import ActionIndex, Encoder  # noqa: E402
from arena.rl.features import OFFSET, encode, hand_category  # noqa: E402
from arena.rl.view import SeatViews, seat_view  # noqa: E402

ANY_RULES = st.fixed_dictionaries({name: st.sampled_from(choices)
                                   for name, choices in RULE_CHOICES.items()})


def _same(fast: tuple[np.ndarray, np.ndarray, list[int]],
          reference: tuple[np.ndarray, np.ndarray, list[int]]) -> None:
    for got, want in zip(fast[:2], reference[:2]):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()
    assert fast[2] == reference[2]


@given(players=st.integers(2, 5), rules=ANY_RULES, seed=st.integers(0, 2**32),
       starting_seat=st.integers(0, 4))
@settings(max_examples=25, deadline=None)
def test_the_fast_views_are_the_reference_views_for_every_seat_at_every_decision(
        players: int, rules: dict[str, str], seed: int, starting_seat: int) -> None:
    house = HouseRules.from_json(rules)
    state = new_game(GameConfig(players=tuple(f"p{s}" for s in range(players)), seed=seed,
                                starting_seat=starting_seat % players, rules=house))
    views = SeatViews(players, house)
    pick = random.Random(seed)
    while state.decision is not None:
        for seat in range(players):  # the seat asked, and the seats that only watch
            _same(views(state, seat), seat_view(state, seat, house))
        state.apply(pick.randrange(len(state.decision.options)))
    for seat in range(players):  # the game over
        _same(views(state, seat), seat_view(state, seat, house))


def test_the_encoder_returns_a_fresh_vector_each_time() -> None:
    state = new_game(GameConfig(players=("a", "b"), seed=3))
    fast = Encoder(2, state.config.rules)
    first = fast.encode(state.observe(0, events=False))
    second = fast.encode(state.observe(0, events=False))
    first[:] = 7.0
    assert second.tobytes() == encode(state.observe(0, events=False)).tobytes()


def test_options_built_on_the_fly_and_seat_options_are_indexed_like_the_reference() -> None:
    index = ActionIndex(3)
    target = {"seat": 2}  # one option object asked of two seats: two different offsets
    for seat in (0, 1, 0, 1):
        decision = Decision(seat, "target", ({"seat": (seat + 1) % 3}, target))
        assert index(decision) == decision_actions(decision, 3)
    assert index(Decision(0, "target", (target,))) == [TARGET + 2]
    assert index(Decision(1, "target", (target,))) == [TARGET + 1]
    fresh = Decision(0, "swap", ({"swap": None}, {"swap": "God-3"}))
    assert index(fresh)[0] == PASS and index(fresh) == decision_actions(fresh, 3)


def test_the_action_index_forgets_and_stays_right_past_its_memory() -> None:
    index = ActionIndex(2, remembered=4)
    state = new_game(GameConfig(players=("a", "b"), seed=11))
    pick = random.Random(11)
    while state.decision is not None:
        assert index(state.decision) == decision_actions(state.decision, 2)
        assert len(index._kept) <= 4 + len(state.decision.options)
        state.apply(pick.randrange(len(state.decision.options)))


def test_a_copied_action_index_starts_afresh_and_a_copied_environment_plays_on_alike() -> None:
    index = ActionIndex(2)
    state = new_game(GameConfig(players=("a", "b"), seed=5))
    assert state.decision is not None
    index(state.decision)
    for twin in (copy.deepcopy(index), pickle.loads(pickle.dumps(index))):
        assert twin.players == 2 and not twin._kept
        assert twin(state.decision) == decision_actions(state.decision, 2)
    game = PalaestraAEC(3)
    game.reset(seed=4)
    for _ in range(8):
        game.step(int(np.flatnonzero(game.observe(game.agent_selection)["action_mask"])[0]))
    twin_game = copy.deepcopy(game)
    while not game.terminations[game.agent_selection]:
        ours, theirs = game.observe(game.agent_selection), twin_game.observe(game.agent_selection)
        assert ours["observation"].tobytes() == theirs["observation"].tobytes()
        assert ours["action_mask"].tobytes() == theirs["action_mask"].tobytes()
        action = int(np.flatnonzero(ours["action_mask"])[-1])
        game.step(action)
        twin_game.step(action)


@given(hand=st.lists(st.integers(0, len(DECK) - 1), max_size=7, unique=True),
       kinds=st.sampled_from(RULE_CHOICES["kinds"]))
@settings(max_examples=300, deadline=None)
def test_the_encoder_finds_the_hand_category_of_the_reference(hand: list[int],
                                                              kinds: str) -> None:
    fast = Encoder(2, HouseRules.from_json({"kinds": kinds}))
    want = hand_category(tuple(hand), kinds)
    assert fast._category(tuple(hand)) == (-1 if want is None else want)


def test_a_copied_encoder_encodes_alike() -> None:
    state = new_game(GameConfig(players=("a", "b", "c"), seed=8))
    fast = Encoder(3, state.config.rules)
    obs = state.observe(1, events=False)
    for twin in (copy.deepcopy(fast), pickle.loads(pickle.dumps(fast))):
        assert twin.players == 3 and twin.rules == fast.rules
        assert twin.encode(obs).tobytes() == fast.encode(obs).tobytes() == encode(obs).tobytes()



#: the gives whose receiver the options do not tell (Nemesis's two, Hermes's), by reason
_GIVES_TO_A_SEAT = {"give a card to Nemesis's player": "Nemesis's target gives",
                    "give a card to the player who gave you one": "Nemesis's player gives back",
                    "give a card in exchange for": "Hermes's player gives"}


def test_a_give_to_another_seat_marks_the_receiver_in_the_from_seat_block() -> None:
    """At Nemesis's gives (also sprung from a trap, by a seat that is not the active one) and
    at Hermes's, the vector's FROM_SEAT block is the seat that receives the card."""
    offset = OFFSET["FROM_SEAT"]
    seen: set[str] = set()
    for seed in range(300):
        state = new_game(GameConfig(players=("a", "b", "c"), seed=seed))
        views = SeatViews(3, state.config.rules)
        pick = random.Random(seed)
        while (decision := state.decision) is not None:
            why = str(decision.context.get("why"))
            give = next((name for reason, name in _GIVES_TO_A_SEAT.items()
                         if decision.kind == "give" and why.startswith(reason)), None)
            seat = decision.seat
            asked = [seat_view(state, seat, state.config.rules)[0], views(state, seat)[0]]
            before = len(state.log)
            state.apply(pick.randrange(len(decision.options)))
            if give is None:
                continue
            moved = [e for _, e in islice(state.log, before, None)
                     if e["type"] in ("give", "exchange") and e["seat"] == seat]
            want = np.zeros(MAX_SEATS, np.float32)
            want[(moved[0]["target"] - seat) % 3] = 1.0
            for vector in asked:
                assert vector[offset:offset + MAX_SEATS].tobytes() == want.tobytes(), give
            seen.add(give)
        if len(seen) == len(_GIVES_TO_A_SEAT):
            break
    assert seen == set(_GIVES_TO_A_SEAT.values())
