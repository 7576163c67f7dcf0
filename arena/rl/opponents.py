"""The bots a learner plays against, loaded in-process (no sandbox: only bots you trust)."""

from __future__ import annotations

from pathlib import Path

from arena.engine.agents import Agent
from arena.errors import BotError
from arena.registry.catalog import resolve_named
from arena.sdk.bot import Bot
from arena.sdk.runner import load_bot

__all__ = ["Opponent", "load_opponent"]

#: A bot's name or path, a kit bot, or an engine agent.
Opponent = str | Path | Bot | Agent


def load_opponent(opponent: Opponent) -> Bot | Agent:
    """A kit bot or an engine agent for ``opponent``: a bot's name or path (resolved as
    ``arena match`` resolves it, then loaded in this process, not sandboxed: only for bots
    you trust), a kit :class:`Bot`, or an engine agent (anything with ``choose(decision,
    observation)``)."""
    if isinstance(opponent, Bot):
        return opponent
    if isinstance(opponent, (str, Path)):
        spec = resolve_named(opponent)
        if spec.kind != "module":
            raise BotError(f"bot {spec.name} is a command bot: only Python module bots run "
                           "in-process")
        path = spec.path if spec.path.is_file() else spec.path / spec.command[-1]
        return load_bot(path)
    if callable(getattr(opponent, "choose", None)):
        return opponent
    raise BotError(f"an opponent is a bot name, a Bot or an agent, not {opponent!r}")
