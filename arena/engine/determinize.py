"""Determinisation: a full game state consistent with one seat's observation.

Search bots (ISMCTS) cannot see hidden cards, so they sample them: every card the seat has
not seen is dealt at random into the hidden places (other hands beyond their revealed cards,
other traps, the draw pile), and the engine itself searches from the result. Only what the
observation holds is used, so no hidden truth can leak into a search.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from arena.engine.cards import DECK_SIZE, PALAESTRON
from arena.engine.config import GameConfig
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.engine.observation import Observation, seat_events
from arena.engine.rulebook import TRAP_LIFETIME
from arena.engine.state import State, Trap
from arena.engine.turn import ask_swap, ask_turn_action

__all__ = ["SEARCHABLE_KINDS", "sample_state", "unseen_cards"]

#: Decisions a sampled state can be positioned at (the turn's top-level choices).
SEARCHABLE_KINDS = ("turn", "swap")


def unseen_cards(observation: Observation) -> list[int]:
    """Card ids this seat cannot place: not in its hand or traps, not in a graveyard, not
    revealed in another hand. They are in other hands, other traps or the draw pile."""
    seen: set[int] = set(observation.hand_ids)
    seen.update(card for card, _, _ in observation.trap_cards)
    seen.update(observation.effect_graveyard_ids)
    seen.update(observation.discard_graveyard_ids)
    for cards in observation.revealed_ids:
        seen.update(cards)
    return [card for card in range(DECK_SIZE) if card not in seen]


def _turns_before(turn: int, seat: int, start: int, n: int) -> int:
    """How many turns ``seat`` completed before global turn ``turn``."""
    return sum(1 for t in range(turn) if (start + t) % n == seat)


def _trap_set_turns(events: Iterable[dict[str, object]], n: int) -> list[list[int]]:
    """Set turns of the traps still standing in each Arena, as far as public events show."""
    standing: list[list[int]] = [[] for _ in range(n)]
    for event in events:
        kind = event.get("type")
        seat = event.get("seat")
        if not isinstance(seat, int):
            continue
        if kind == "set_trap":
            standing[seat].append(int(event["turn"]))  # type: ignore[call-overload]
        elif kind in ("trap_triggered", "trap_destroyed", "trap_expired", "trap_cleared"):
            slot = event.get("slot", 0)  # which trap left (records before format 2: the first)
            if isinstance(slot, int) and 0 <= slot < len(standing[seat]):
                standing[seat].pop(slot)
    return standing


def sample_state(observation: Observation, seed: int, kind: str = "turn",
                 rules: HouseRules = DEFAULT_RULES) -> State:
    """A state consistent with ``observation``, positioned at the seat's ``turn`` or ``swap``
    decision, with hidden cards dealt at random from ``seed`` (events are not tracked).

    ``rules`` are the game's house rules (an observation does not hold them; a bot is told
    them in ``game_start``): the sampled game plays on under them, its Desmos by their kinds
    and its trap windows by theirs. Under ``reclaim=strict`` it does not know which cards
    each seat used, and counts every card."""
    if kind not in SEARCHABLE_KINDS:
        raise ValueError(f"can only position a sampled state at {SEARCHABLE_KINDS}, not {kind}")
    obs = observation
    if obs.active_seat != obs.seat:
        raise ValueError(f"a {kind} decision is the active seat's ({obs.active_seat}); this "
                         f"observation is seat {obs.seat}'s")
    rng = random.Random(seed)
    n = len(obs.players)
    start = (obs.active_seat - obs.turn) % n
    config = GameConfig(players=obs.players, seed=rng.getrandbits(63), starting_seat=start,
                        track_events=False, rules=rules)
    state = State(config)
    state.phase = "play"
    state.round = obs.round
    state.turn = obs.turn
    state.turn_in_round = obs.turn % n
    state.active = obs.active_seat
    state.own_turns = [_turns_before(obs.turn, s, start, n) for s in range(n)]
    state.effect_graveyard = list(obs.effect_graveyard_ids)
    state.discard_graveyard = list(obs.discard_graveyard_ids)

    me = obs.seat
    state.hands[me] = list(obs.hand_ids)
    state.revealed[me] = set(obs.revealed_ids[me])
    for card, turns_left, ready in obs.trap_cards:
        owner_turns = state.own_turns[me] - (TRAP_LIFETIME - turns_left)
        state.traps[me].append(Trap(card, obs.turn - 1 if ready else obs.turn, owner_turns))

    hidden = unseen_cards(obs)
    rng.shuffle(hidden)
    palaestron_hidden = PALAESTRON in hidden
    if palaestron_hidden:
        hidden.remove(PALAESTRON)  # never in a hand or a trap: it is played when drawn
    set_turns = _trap_set_turns(seat_events(obs), n)
    for seat in range(n):
        if seat == me:
            continue
        revealed = list(obs.revealed_ids[seat])
        missing = obs.hand_sizes[seat] - len(revealed)
        state.hands[seat] = revealed + [hidden.pop() for _ in range(missing)]
        state.revealed[seat] = set(revealed)
        turns = set_turns[seat][-obs.trap_counts[seat]:] if obs.trap_counts[seat] else []
        turns = [obs.turn - 1] * (obs.trap_counts[seat] - len(turns)) + turns
        for set_turn in turns:
            state.traps[seat].append(
                Trap(hidden.pop(), set_turn, _turns_before(set_turn, seat, start, n)))
    pile = hidden
    if palaestron_hidden:
        pile.insert(rng.randrange(len(pile) + 1), PALAESTRON)
    state.draw_pile = pile

    state.scratch["turn"] = {"round": obs.round, "seat": obs.active_seat, "action": "hold",
                             "card": None, "swap": False}
    if kind == "turn":
        ask_turn_action(state)
    else:
        ask_swap(state, me)
    return state
