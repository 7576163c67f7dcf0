"""One seat's view of a running game as a learner reads it: the vector, the action mask and
the action index of each legal option (both environments build their observations here)."""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.engine.houserules import HouseRules
from arena.engine.state import State
from arena.rl.actions import N_ACTIONS, decision_actions, read_only
from arena.rl.encoder import ActionIndex, Encoder
from arena.rl.features import encode

__all__ = ["SeatViews", "placement_rewards", "seat_view", "structured"]

View = tuple[np.ndarray, np.ndarray, list[int]]
_INT8 = np.dtype(np.int8)  # a dtype given as such skips numpy's conversion
_FLOAT32 = np.dtype(np.float32)


def seat_view(state: State, seat: int, rules: HouseRules) -> View:
    """(vector, mask, actions): ``actions[i]`` is the action index of option ``i`` of the
    seat's pending decision; a seat that is not asked gets an all-zero mask and no actions.
    Read from ``state.observe(seat)``: nothing another seat hides."""
    decision = state.decision
    obs = state.observe(seat, events=False)
    mask = bytearray(N_ACTIONS)  # set bit by bit, then handed to numpy without a copy
    if decision is None or decision.seat != seat:
        return encode(obs, None, None, rules), np.frombuffer(mask, np.int8), []
    actions = decision_actions(decision, state.n)
    for action in actions:
        mask[action] = 1
    return (encode(obs, decision.kind, decision.context, rules), np.frombuffer(mask, np.int8),
            actions)


class SeatViews:
    """:func:`seat_view` for the games of one environment (``players`` seats, ``rules``),
    through an :class:`~arena.rl.encoder.Encoder` and an
    :class:`~arena.rl.encoder.ActionIndex`: the same views, built faster."""

    def __init__(self, players: int, rules: HouseRules) -> None:
        self.players = players
        self.rules = rules
        self._encoder = Encoder(players, rules)
        self._actions = ActionIndex(players)

    def __reduce__(self) -> tuple[type[SeatViews], tuple[int, HouseRules]]:
        # a copy is built afresh: nothing here belongs to one game
        return SeatViews, (self.players, self.rules)

    def __call__(self, state: State, seat: int) -> View:
        decision = state.decision
        obs = state.observe(seat, False)
        mask = bytearray(N_ACTIONS)
        if decision is None or decision.seat != seat:
            return (np.frombuffer(self._encoder.fill(obs), _FLOAT32),
                    np.frombuffer(mask, _INT8), [])
        actions = self._actions(decision)
        for action in actions:
            mask[action] = 1
        vector = self._encoder.fill(obs, decision.kind, decision.context)
        return np.frombuffer(vector, _FLOAT32), np.frombuffer(mask, _INT8), actions


def structured(state: State, seat: int, actions: list[int]) -> dict[str, Any]:
    """The structured view a kit bot gets in ``act``: the observation JSON, the decision's
    kind, options (read-only: :class:`ReadOnlyOption`) and context (when the seat is
    asked), and each option's action index."""
    decision = state.decision
    info: dict[str, Any] = {"observation": state.observe_json(seat)}
    if decision is not None and decision.seat == seat:
        info.update(kind=decision.kind, legal=read_only(decision.options),
                    context=dict(decision.context), actions=list(actions))
    return info


def placement_rewards(placements: list[int]) -> list[float]:
    """Each seat's reward from the final placements: (seats placed behind it - seats placed
    ahead of it) / (players - 1). First of n scores 1, last -1; tied seats score alike;
    the rewards of a game always sum to zero."""
    n = len(placements)
    return [sum((other > mine) - (other < mine) for other in placements) / (n - 1)
            for mine in placements]
