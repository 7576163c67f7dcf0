"""The games of a stored tournament played again in-process: what the games alone cost.

Each stored game is played once more with :class:`arena.sdk.local.BotAgent` and
:func:`arena.engine.play_game`, in this process, one core: the same config (seed, starting
seat, players, house rules: the record's) and each seat's ``bot_seed`` (the record's), with
one instance of each bot for the whole replay. No sandbox, no protocol, no store: the CPU it
takes is the floor the sandboxed arena's CPU is compared with (``arena bench tournament``).
The replayed placements are compared with the stored ones, so the figure is known to be
about the very same games.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from arena.engine import GameConfig, play_game
from arena.registry import BotSpec
from arena.sdk.bot import Bot
from arena.sdk.local import BotAgent
from arena.sdk.runner import load_bot
from arena.tournament.store import Store

__all__ = ["InProcessResult", "not_in_process", "replay_in_process"]


@dataclass
class InProcessResult:
    """CPU seconds (user + system, this process) of replaying ``games`` games in-process, and
    how many came out with other placements than stored (0: the very same games)."""

    games: int
    cpu_seconds: float
    differing: int


def _class_name(spec: BotSpec) -> str | None:
    command = list(spec.command)
    if "--class" in command and command.index("--class") + 1 < len(command):
        return command[command.index("--class") + 1]
    return None


def not_in_process(entrants: list[BotSpec]) -> str | None:
    """Why these bots cannot be played in-process (a bot that is no kit bot, such as one in
    another language, has no in-process form), or None."""
    others = [spec.name for spec in entrants if spec.kind != "module"]
    return f"not kit bots: {', '.join(others)}" if others else None


def _kit_bot(spec: BotSpec) -> Bot:
    return load_bot(spec.path, _class_name(spec))


def replay_in_process(db: Path, name: str, entrants: list[BotSpec]) -> InProcessResult:
    """Replay tournament ``name`` of ``db`` in-process; ``entrants`` are the spec's bots in
    entry order (the store's entrant order)."""
    with Store(db, create=False, read_only=True) as store:
        row = store.require(name)
        by_id = dict(zip(store.entrant_ids(row.id), entrants, strict=True))
        games = [(g, store.record(g.id)) for g in store.games(row.id)]
    bots = {bot_id: _kit_bot(spec) for bot_id, spec in by_id.items()}
    differing = 0
    began = time.process_time()
    for game, record in games:
        config = GameConfig.from_json(record["config"])
        seeds = record.get("referee", {}).get("bot_seeds") or [0] * len(game.seats)
        agents = [BotAgent(bots[bot_id], bot_seeds=[int(seed or 0)],
                           options=by_id[bot_id].options)
                  for bot_id, seed in zip(game.seats, seeds, strict=True)]
        state = play_game(config, agents)
        assert state.result is not None
        if tuple(state.result.placements) != tuple(game.placements):
            differing += 1
    return InProcessResult(len(games), time.process_time() - began, differing)
