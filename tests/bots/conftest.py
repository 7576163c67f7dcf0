"""In-process driver for the bots' tests: play kit bots against each other exactly as the
referee asks them (a seeded ``rng``, game_start, each event once before the next act,
game_end), minus the sandbox and the pipes.

Test modules import these helpers as ``from bot_harness import ...``: this conftest registers
itself under that unique name.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from arena.engine import GameConfig, new_game
from arena.engine.state import State
from arena.sdk import Bot, GameEnd, GameStart, Request
from arena.sdk.runner import load_bot

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"
NAMES = ("north", "east", "south", "west", "centre")


def bot(name: str) -> Bot:
    """A fresh instance of ``bots/<name>.py`` (loaded the way the runner loads it)."""
    return load_bot(BOTS / f"{name}.py")


Check = Callable[[State, Request, int], None]


def play(bots: Sequence[Bot], seed: int, *, starting_seat: int = 0, game: int = 0,
         check: Check | None = None) -> State:
    """Play one game between kit bots in-process; ``check(state, request, choice)`` sees
    every answer before it is applied (an illegal index raises there or at ``apply``)."""
    n = len(bots)
    config = GameConfig(players=NAMES[:n], seed=seed, starting_seat=starting_seat)
    state = new_game(config)
    for seat, b in enumerate(bots):
        b.seed(seed * 10 + seat)  # as the runner does with the referee's bot_seed
        b.on_game_start(GameStart(game, seat, list(config.players), starting_seat,
                                  config.rounds, bot_seed=seed * 10 + seat))
    cursors = [0] * n
    ids = 0

    def feed(seat: int) -> None:
        pending = state.events_for(seat, cursors[seat])
        cursors[seat] += len(pending)
        for event in pending:
            bots[seat].on_event(event)

    while state.decision is not None:
        decision = state.decision
        seat = decision.seat
        feed(seat)
        ids += 1
        request = Request(ids, decision.kind, state.observe(seat).to_json(include_events=False),
                          list(decision.options), None, dict(decision.context), seat)
        choice = bots[seat].act(request)
        if check is not None:
            check(state, request, choice)
        state.apply(choice)
    result = state.result
    assert result is not None
    for seat, b in enumerate(bots):
        feed(seat)
        b.on_game_end(GameEnd(game, list(result.placements), list(result.desmos),
                              result.ascension, result.tiebreak))
    return state


sys.modules.setdefault("bot_harness", sys.modules[__name__])
