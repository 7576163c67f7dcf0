"""Each card's facts in its row hold against its resolver, not against a second list: its
needs (``Effect.needs``) and its forced discards (``Effect.forced_discards``).

States come from seeded random play, each also built again without what effects may need (the
Discard Graveyard's cards, the opponents' traps, the opponents' hidden cards). In every one,
every card of the deck is resolved for the seat to act: it does something (some choices of its
players make it emit an event besides its announcement) exactly when its row has no needs or
one of them is in the state. ``arena play`` explains an effect that came to nothing by them.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from arena.engine import GameConfig, new_game
from arena.engine.actions import pass_option
from arena.engine.cards import card_id
from arena.engine.effects import EFFECTS, Need, push_effect
from arena.engine.houserules import DEFAULT_RULES, RULE_CHOICES, HouseRules
from arena.engine.state import State

#: Whether a need is in ``state`` for ``seat``'s effect, in the engine's own zones.
_FOUND: dict[Need, Callable[[State, int], bool]] = {
    Need.DISCARD_GRAVEYARD_CARD: lambda state, seat: bool(state.discard_graveyard),
    Need.OPPONENT_TRAP: lambda state, seat: any(state.traps[o] for o in state.opponents(seat)),
    Need.OPPONENT_HIDDEN_CARD: lambda state, seat: any(
        set(state.hands[o]) - state.revealed[o] for o in state.opponents(seat)),
}
_RESOLVED = "resolved"
#: Every house rule at its other reading (the second choice of each)
_OTHER_RULES = HouseRules(**{name: choices[1] for name, choices in RULE_CHOICES.items()})


def test_every_need_is_looked_for() -> None:
    assert set(_FOUND) == set(Need)


def _without(state: State, seat: int, needs: tuple[Need, ...]) -> State:
    """``state`` with ``needs`` taken away from ``seat``'s effects: the graveyard's and the
    opponents' traps' cards put under the draw pile, the opponents' hands all revealed."""
    bare = state.clone()
    opponents = bare.opponents(seat)
    if Need.DISCARD_GRAVEYARD_CARD in needs:
        bare.draw_pile[:0] = bare.discard_graveyard
        bare.discard_graveyard = []
    if Need.OPPONENT_TRAP in needs:
        for owner in opponents:
            bare.draw_pile[:0] = [trap.card for trap in bare.traps[owner]]
            bare.traps[owner] = []
    if Need.OPPONENT_HIDDEN_CARD in needs:
        for owner in opponents:
            bare.revealed[owner] = set(bare.hands[owner])
    return bare


def _stop(state: State) -> None:
    """Below the effect's steps: marks it resolved, and holds the game there."""
    state.scratch[_RESOLVED] = True
    state.ask(0, "card", [pass_option("card")], [None], _stop, secret_count=True)


def _traced(state: State, log: list[tuple[int | None, dict]]) -> State:
    """A copy of ``state`` that records its events, after those of ``log``."""
    copy = state.clone()
    copy.track_events = True
    copy.log = list(log)
    return copy


def _acts(state: State) -> bool:
    """Whether some choices lead the effect resolving in ``state`` to an event besides its
    announcement (or to the game's end, which an effect can only reach by acting)."""
    if any(event["type"] != "effect" for _, event in state.log) or state.is_over:
        return True
    if state.scratch.get(_RESOLVED) or state.decision is None:
        return False
    for index in range(len(state.decision.options)):
        branch = _traced(state, state.log)
        branch.apply(index)
        if _acts(branch):
            return True
    return False


def _taken(state: State, face: str) -> State:
    """``state`` with a card of ``face`` taken from wherever it lies, as a play takes it from
    its player's hand (so that it cannot be forced out of a hand, or destroyed, meanwhile)."""
    trial = _traced(state, [])
    card = card_id(face)
    for hand in trial.hands:
        if card in hand:
            hand.remove(card)
    for traps in trial.traps:
        traps[:] = [trap for trap in traps if trap.card != card]
    for zone in (trial.draw_pile, trial.discard_graveyard, trial.effect_graveyard):
        if card in zone:
            zone.remove(card)
    trial.limbo.append(card)
    return trial


def _resolved(taken: State, face: str, seat: int) -> State:
    """The effect of ``face`` for ``seat`` in ``taken`` (from :func:`_taken`), resolved up to
    its first choice."""
    trial = _traced(taken, [])
    trial.decision = None
    trial.scratch.pop(_RESOLVED, None)
    trial.push(_stop)
    push_effect(trial, card_id(face), seat, "played")
    trial.run()
    return trial


def _sampled_states(seed: int, rules: HouseRules) -> Iterator[State]:
    """Every fifth decision of a seeded random game of 2 to 4 players."""
    players = 2 + seed % 3
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=seed % players, rules=rules))
    rng = random.Random(seed)
    step = 0
    while state.decision is not None and not state.is_over:
        if step % 5 == 0:
            yield state
        state.apply(rng.randrange(len(state.decision.options)))
        step += 1


def _every_lack() -> list[tuple[Need, ...]]:
    return [lack for size in range(len(Need) + 1)
            for lack in itertools.combinations(list(Need), size)]


@pytest.mark.parametrize("rules", [DEFAULT_RULES, _OTHER_RULES], ids=["default", "other"])
@pytest.mark.parametrize("seeds", [range(0, 3), range(3, 6)])
def test_an_effect_does_something_exactly_when_one_of_its_needs_is_there(
        seeds: range, rules: HouseRules) -> None:
    seen: set[tuple[str, frozenset[Need]]] = set()
    for seed in seeds:
        for state in _sampled_states(seed, rules):
            assert state.decision is not None
            seat = state.decision.seat
            for lack in _every_lack():
                bare = _without(state, seat, lack)
                for face, effect in EFFECTS.items():
                    trial = _taken(bare, face)
                    found = frozenset(n for n in effect.needs if _FOUND[n](trial, seat))
                    seen.add((face, found))
                    expected = not effect.needs or bool(found)
                    assert _acts(_resolved(trial, face, seat)) == expected, (
                        seed, face, seat, sorted(n.name for n in found))
    for face, effect in EFFECTS.items():  # each card met with and without each of its needs
        for size in range(len(effect.needs) + 1):
            for found in itertools.combinations(effect.needs, size):
                assert (face, frozenset(found)) in seen, (face, found)


def _struck(state: State, face: str, seat: int, rng: random.Random) -> Counter[int]:
    """The forced discards ``face``'s effect for ``seat`` makes each seat (its own, not those
    of a God they force out), its players choosing at random."""
    trial = _resolved(_taken(state, face), face, seat)
    while not trial.scratch.get(_RESOLVED) and trial.decision is not None:
        trial.apply(rng.randrange(len(trial.decision.options)))
    return Counter(event["seat"] for _, event in trial.log
                   if event["type"] == "forced_discard" and event["source"] == face)


@pytest.mark.parametrize("seed", range(4))
def test_an_effect_makes_an_opponent_it_strikes_as_many_forced_discards_as_its_row_says(
        seed: int) -> None:
    rng = random.Random(seed)
    for state in _sampled_states(seed, DEFAULT_RULES):
        assert state.decision is not None
        seat = state.decision.seat
        for face, effect in EFFECTS.items():
            struck = _struck(state, face, seat, rng)
            assert seat not in struck, face
            assert max(struck.values(), default=0) == effect.forced_discards, (seed, face)
