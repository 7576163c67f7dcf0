"""Run a kit bot in-process, as an engine agent: fast experiments and tests without pipes.

``BotAgent(bot)`` implements :class:`arena.engine.agents.Agent`, so
``arena.engine.play_game(config, [BotAgent(GreedyBot()), RandomAgent(1)])`` plays a kit bot
exactly as the referee would ask it (same request fields), minus the sandbox and the events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.sdk.bot import Bot, Request

if TYPE_CHECKING:
    from arena.engine.decision import Decision
    from arena.engine.observation import Observation

__all__ = ["BotAgent"]


class BotAgent:
    """An engine agent that asks a kit :class:`Bot`; an out-of-range answer plays option 0
    (as the referee would, minus the strike)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self._id = 0

    def choose(self, decision: Decision, observation: Observation) -> int:
        self._id += 1
        request = Request(self._id, decision.kind, observation.to_json(include_events=False),
                          list(decision.options), None, dict(decision.context),
                          observation.seat)
        choice = self.bot.act(request)
        return choice if isinstance(choice, int) and 0 <= choice < len(decision.options) else 0
