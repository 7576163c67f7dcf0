"""What the environments give a seat holds no hidden card of another seat, checked against
the true state at every step of random games: the vector names exactly the seat's own and
the public cards, and the structured view is the `act` the referee would send the seat."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402
from staged_ascension import ascending_at_once, trap_a_non_god  # noqa: E402

from arena.engine.cards import FACE_OF, NOTATION  # noqa: E402
from arena.engine.houserules import RULE_CHOICES  # noqa: E402
from arena.engine.state import State  # noqa: E402
from arena.protocol import messages  # noqa: E402
from arena.rl.actions import FACES, MAX_SEATS  # noqa: E402
from arena.rl.aec import PalaestraAEC  # noqa: E402
from arena.rl.features import OFFSET  # noqa: E402
from arena.rl.gym_env import PalaestraEnv  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CARD_NAMES = frozenset(NOTATION)
#: what the random games must have gone through, or the test proved little
SECRETS_IN_PLAY = {"exchange", "give", "peek", "look", "set_trap", "trap_triggered", "reveal",
                   "showdown"}


def _counts(cards: Any) -> np.ndarray:
    out = np.zeros(FACES, np.float32)
    for card in cards:
        out[FACE_OF[card]] += 1
    return out


def _card_blocks(state: State, seat: int) -> dict[str, np.ndarray]:
    """The vector's card blocks as the true state says they must be: the seat's own hand
    and traps, each seat's revealed cards and the graveyards, nothing else."""
    n = state.n
    traps = np.zeros(2 * (FACES + 2), np.float32)
    for slot, trap in enumerate(state.traps[seat]):
        traps[slot * (FACES + 2) + FACE_OF[trap.card]] = 1
    revealed = np.zeros(MAX_SEATS * FACES, np.float32)
    for k in range(n):
        revealed[k * FACES:(k + 1) * FACES] = _counts(state.revealed[(seat + k) % n])
    return {"HAND": _counts(state.hands[seat]), "TRAPS": traps, "REVEALED": revealed,
            "EFFECT_GY": _counts(state.effect_graveyard),
            "DISCARD_GY": _counts(state.discard_graveyard)}


def _check_vector(vector: np.ndarray, state: State, seat: int) -> None:
    for block, expected in _card_blocks(state, seat).items():
        got = vector[OFFSET[block]:OFFSET[block] + len(expected)].copy()
        if block == "TRAPS":  # the turns left and ready entries are no card
            for slot in range(2):
                got[slot * (FACES + 2) + FACES:(slot + 1) * (FACES + 2)] = 0
        assert np.array_equal(got, expected), (block, seat)


def _names(value: Any) -> Iterator[str]:
    """Every card name in a JSON value."""
    if isinstance(value, str):
        if value in CARD_NAMES:
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _names(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _names(item)


def _known(state: State, seat: int) -> set[str]:
    """The cards a seat may name: its own, the public ones and those its feed told it."""
    cards = [*state.hands[seat], *(t.card for t in state.traps[seat]),
             *state.effect_graveyard, *state.discard_graveyard]
    cards += [c for revealed in state.revealed for c in revealed]
    feed = state.feed(seat)
    drawn = {"Palaestron"} if any(e["type"] == "palaestron" for e in feed) else set()
    return {NOTATION[c] for c in cards} | set(_names(feed)) | drawn  # its event names no card


def _check_structured(info: dict[str, Any], state: State, seat: int) -> None:
    """The structured view is what the referee's `act` gives the seat, field by field, and
    every card it names is one the seat may know."""
    decision = state.decision
    assert decision is not None and decision.seat == seat
    line = messages.act(0, decision.kind, state.observe_json(seat), decision.options,
                        None, decision.context)
    sent = messages.act_fields(json.loads(line))
    view = json.loads(json.dumps({"observation": info["observation"], "kind": info["kind"],
                                  "legal": [dict(o) for o in info["legal"]],
                                  "context": info["context"]}))
    for field in ("observation", "kind", "legal", "context"):
        assert view[field] == sent[field], field
    observation = view["observation"]
    assert observation["hand"] == [NOTATION[c] for c in state.hands[seat]]
    assert [t["card"] for t in observation["traps"]] == [
        NOTATION[t.card] for t in state.traps[seat]]
    for other, cards in enumerate(observation["revealed"]):
        assert sorted(cards) == sorted(NOTATION[c] for c in state.revealed[other])
        assert set(cards) <= {NOTATION[c] for c in state.hands[other]}
    extra = set(_names(view)) - _known(state, seat)
    assert not extra, (extra, view["context"], view["legal"], state.feed(seat)[-4:])


def _random_rules(chooser: random.Random) -> dict[str, str]:
    return {name: chooser.choice(choices) for name, choices in RULE_CHOICES.items()}


def test_no_seat_is_given_another_seats_hidden_card_in_the_aec_environment() -> None:
    seen: Counter[str] = Counter()
    for game_number in range(24):
        chooser = random.Random(game_number)
        game = PalaestraAEC(2 + game_number % 4, rules=_random_rules(chooser),
                            render_mode="ansi")  # the events are logged: the feeds tell
        game.reset(seed=game_number)
        state = game.state
        assert state is not None
        for agent in game.agent_iter():
            obs, _, done, _, info = game.last()
            if done:
                # what the seat saw: after an Ascension, no hidden hand's category (E31)
                assert info["desmos"] == state.result.desmos_seen_by(  # type: ignore[union-attr]
                    game.possible_agents.index(agent))
                game.step(None)
                continue
            seat = game.possible_agents.index(agent)
            for other, name in enumerate(game.possible_agents):  # every seat, asked or not
                _check_vector(game.observe(name)["observation"], state, other)
            _check_structured(info, state, seat)
            legal = np.flatnonzero(obs["action_mask"])
            game.step(int(legal[chooser.randrange(len(legal))]))
        seen.update(event["type"] for _, event in state.log)
    assert SECRETS_IN_PLAY <= set(seen), SECRETS_IN_PLAY - set(seen)


def test_the_learner_is_given_no_hidden_card_in_the_gymnasium_environment() -> None:
    for game_number in range(8):
        chooser = random.Random(game_number)
        env = PalaestraEnv(["random", "greedy", "heuristic"][:1 + game_number % 3],
                           rules=_random_rules(chooser))
        obs, info = env.reset(seed=game_number)
        done = False
        while not done:
            assert env.state is not None
            _check_vector(obs["observation"], env.state, env.seat)
            _check_structured(info, env.state, env.seat)
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, done, _, info = env.step(int(legal[chooser.randrange(len(legal))]))
        assert env.state is not None
        _check_vector(obs["observation"], env.state, env.seat)


def _steered(info: dict[str, Any], chooser: random.Random) -> int:
    """The action of a random legal option, leaning towards two moments: Nemesis
    played (RULES.md E29), traps kept for the window a God fired by a forced discard opens
    (E10) and a God given up when a discard is forced."""
    legal, kind = info["legal"], info["kind"]
    window = info["context"].get("window")
    lean = {"turn": lambda o: o.get("card") == "Fate-5" or o.get("action") == "trap",
            "discard": lambda o: str(o.get("card", "")).startswith("God-"),
            "trigger": lambda o: window == "discarded" and o.get("trap") is not None,
            }.get(kind)
    leaning = [i for i, option in enumerate(legal) if lean is not None and lean(option)]
    if kind == "trigger" and window != "discarded" and chooser.random() < 0.9:
        index = 0  # pass: the trap waits for a discarded God
    elif leaning and chooser.random() < 0.7:
        index = chooser.choice(leaning)
    else:
        index = chooser.randrange(len(legal))
    return int(info["actions"][index])


def test_no_seat_is_given_a_hidden_card_at_a_gift_or_a_discarded_gods_window() -> None:
    moments: Counter[str] = Counter()
    for game_number in range(12):
        chooser = random.Random(game_number)
        game = PalaestraAEC(2 + game_number % 4, render_mode="ansi")
        game.reset(seed=game_number)
        state = game.state
        assert state is not None
        for agent in game.agent_iter():
            _, _, done, _, info = game.last()
            if done:
                game.step(None)
                continue
            seat = game.possible_agents.index(agent)
            for other, name in enumerate(game.possible_agents):  # every seat, asked or not
                observed = game.observe(name)
                _check_vector(observed["observation"], state, other)
                assert bool(observed["action_mask"].any()) == (other == seat)
            _check_structured(info, state, seat)
            if info["kind"] == "trigger":
                moments[info["context"]["window"]] += 1
            game.step(_steered(info, chooser))
        moments["give"] += sum(1 for _, event in state.log if event["type"] == "give")
    assert moments["give"] and moments["discarded"], moments


def test_after_an_ascension_no_agent_is_told_a_hidden_hands_category() -> None:
    # an Ascension shows the ascender's hand alone (RULES.md E31): each agent's infos hold
    # its own category and the ascender's, as a bot's game_end does
    game = PalaestraAEC(3)
    game.reset(seed=1)
    assert game.state is not None
    state = game.state = ascending_at_once(game.state.config)
    assert state.decision is not None
    ascender = state.decision.seat
    state.apply(trap_a_non_god(state.decision.options))
    game._next()  # the engine played the move: the environment ends the game
    assert state.result is not None and state.result.ascension
    for seat, agent in enumerate(game.possible_agents):
        shown = [state.result.desmos[s] if s in (seat, ascender) else None for s in range(3)]
        assert game.infos[agent]["desmos"] == shown


def test_after_an_ascension_the_learner_is_told_no_hidden_hands_category() -> None:
    env = PalaestraEnv(["random", "random"])
    env.reset(seed=2)
    assert env.state is not None
    state = env.state = ascending_at_once(env.state.config)
    assert state.decision is not None
    ascender = state.decision.seat
    state.apply(trap_a_non_god(state.decision.options))
    _, info = env._advance({})  # the engine played the move: the environment ends the game
    assert state.result is not None and state.result.ascension
    shown = [state.result.desmos[s] if s in (env.seat, ascender) else None for s in range(3)]
    assert info["desmos"] == shown and None in shown


def test_no_seat_is_given_another_seats_hidden_card_in_the_openspiel_game() -> None:
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed")
    from arena.rl.openspiel import PalaestraGame

    for game_number in range(12):
        chooser = random.Random(game_number)
        players = 2 + game_number % 4
        # a game of its own: pyspiel.load_game may hand every load of the same parameters one game
        game = PalaestraGame({"players": players, "seed": game_number,
                              **_random_rules(chooser)})
        state = game.new_initial_state()
        while True:
            for seat in range(players):  # every seat, asked or not
                _check_vector(np.asarray(state.observation_tensor(seat), np.float32),
                              state.state, seat)
                named = set(_names(json.loads(state.observation_string(seat))))
                assert named <= _known(state.state, seat), (seat, named)
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[chooser.randrange(len(legal))])


def test_a_seats_private_events_are_in_its_feed_where_the_docs_send_a_learner() -> None:
    """docs/LEARNING.md: not in the vector nor the structured view, but in
    ``env.state.feed(seat)``; in the PettingZoo environment only with a render mode."""
    env = PalaestraEnv(["random", "random"])
    told: Counter[str] = Counter()
    for seed in range(10):
        obs, info = env.reset(seed=seed)
        assert "events" not in info["observation"]
        done = False
        while not done:
            obs, _, done, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert env.state is not None
        told.update(event["type"] for event in env.state.feed(env.seat))
    assert told["peek"] and told["give"], told
    for render_mode, logged in ((None, False), ("ansi", True)):
        game = PalaestraAEC(3, render_mode=render_mode)
        game.reset(seed=1)
        assert game.state is not None and bool(game.state.feed(0)) == logged
