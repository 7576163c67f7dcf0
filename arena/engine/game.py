"""Starting a game: its play (a :class:`State`) made from its settings (a
:class:`GameConfig`): shuffled, dealt and run to its first decision."""

from __future__ import annotations

from arena.engine.config import GameConfig
from arena.engine.state import State
from arena.engine.turn import begin_game

__all__ = ["new_game"]


def new_game(config: GameConfig) -> State:
    """Shuffle and deal a new game and run it to its first decision."""
    state = State(config)
    state.push(begin_game)
    state.run()
    return state
