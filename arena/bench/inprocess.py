"""The games of a stored tournament played again in-process: what the games alone cost.

Each stored game is played once more with :class:`arena.sdk.local.BotAgent` and
:func:`arena.engine.play_game`, in this process, one core: the same config (seed, starting
seat, players, house rules: the record's) and each seat's ``bot_seed`` (the record's), with
one instance of each bot for the whole replay. No sandbox, no protocol, no store: the CPU it
takes is the floor the sandboxed arena's CPU is compared with (``arena bench tournament``).
The replayed placements are compared with the stored ones, so the figure is known to be
about the very same games. Each bot's share is timed too: its agent's ``choose`` and
``game_over`` (the bot's ``act`` and ``on_game_end``, and the kit's work for them: the request
built, the seat's events followed); the rest of the replay is the engine's (the game, the
seats' observations, the deals).

:func:`replay_in_parallel` plays the same games in several processes at once, each pinned to a
CPU of its own and given every n-th game: what the machine itself gains from a second core on
these games. A virtual machine's cores can slow each other down (a cache or a host shared
with others), so a tournament's speed-up from a second worker is best read against it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

from arena.engine import Decision, GameConfig, Observation, State, play_game
from arena.errors import ReplayError
from arena.registry import BotSpec, someone_elses
from arena.sdk.bot import Bot
from arena.sdk.local import BotAgent
from arena.sdk.runner import load_bot
from arena.tournament.game_records import game_record
from arena.tournament.store import GameRow, Store

__all__ = ["InProcessResult", "ParallelReplay", "not_in_process", "replay_in_parallel",
           "replay_in_process"]


@dataclass
class InProcessResult:
    """CPU seconds (user + system, this process) of replaying ``games`` games in-process, and
    how many came out with other placements than stored (0: the very same games)."""

    games: int
    cpu_seconds: float
    differing: int
    #: The CPU seconds of each bot's agent (``act`` and the kit's work for it), by
    #: ``name@version``, every entrant named (0 for one that played no game).
    bot_cpu_s: dict[str, float] = field(default_factory=dict)

    @property
    def engine_cpu_seconds(self) -> float:
        """The rest of the replay: the engine's (the game, the observations, the deals)."""
        return self.cpu_seconds - sum(self.bot_cpu_s.values())


class _Timed:
    """An agent whose ``choose`` and ``game_over`` add their CPU time to ``spent[key]``."""

    def __init__(self, agent: BotAgent, key: str, spent: dict[str, float]) -> None:
        self.agent = agent
        self.key = key
        self.spent = spent
        self.reads_events = bool(getattr(agent, "reads_events", True))

    def choose(self, decision: Decision, observation: Observation) -> int:
        began = time.process_time()
        try:
            return self.agent.choose(decision, observation)
        finally:
            self.spent[self.key] += time.process_time() - began

    def game_over(self, state: State, seat: int) -> None:
        began = time.process_time()
        try:
            self.agent.game_over(state, seat)
        finally:
            self.spent[self.key] += time.process_time() - began


def _class_name(spec: BotSpec) -> str | None:
    command = list(spec.command)
    if "--class" in command and command.index("--class") + 1 < len(command):
        return command[command.index("--class") + 1]
    return None


def not_in_process(entrants: list[BotSpec]) -> str | None:
    """Why these bots cannot be played in-process (a bot that is no kit bot, such as one in
    another language, has no in-process form; one that is someone else's code, which would
    run here unsandboxed, as the user), or None."""
    others = [spec.name for spec in entrants if spec.kind != "module"]
    if others:
        return f"not kit bots: {', '.join(others)}"
    foreign = [f"{spec.name} ({reason})" for spec in entrants
               if (reason := someone_elses(spec.path)) is not None]
    if foreign:
        return ("in-process runs bots unsandboxed, as you, and these are not yours: "
                + "; ".join(foreign))
    return None


def _kit_bot(spec: BotSpec) -> Bot:
    return load_bot(spec.path, _class_name(spec))


#: A stored game and its record, as replayed.
_Game = tuple[GameRow, dict[str, Any]]


def _stored_games(db: Path, name: str,
                  entrants: Sequence[BotSpec]) -> tuple[dict[int, BotSpec], list[_Game]]:
    """Each entrant by its stored id, and the tournament's games with their records."""
    with Store(db, create=False, read_only=True) as store:
        row = store.require(name)
        by_id = dict(zip(store.entrant_ids(row.id), entrants, strict=True))
        games = [(g, game_record(store, g.id)) for g in store.games(row.id)]
    return by_id, games


def _play(by_id: dict[int, BotSpec], games: Sequence[_Game]) -> InProcessResult:
    """Play ``games`` again with one instance of each bot: the CPU seconds, each bot's
    share, and the games that came out with other placements than stored."""
    bots = {bot_id: _kit_bot(spec) for bot_id, spec in by_id.items()}
    spent = dict.fromkeys((spec.key for spec in by_id.values()), 0.0)
    differing = 0
    began = time.process_time()
    for game, record in games:
        config = GameConfig.from_json(record["config"])
        seeds = record.get("referee", {}).get("bot_seeds") or [0] * len(game.seats)
        agents = [_Timed(BotAgent(bots[bot_id], bot_seeds=[int(seed or 0)],
                                  options=by_id[bot_id].options, rules=config.rules),
                         by_id[bot_id].key, spent)
                  for bot_id, seed in zip(game.seats, seeds, strict=True)]
        state = play_game(config, agents)
        assert state.result is not None
        if tuple(state.result.placements) != tuple(game.placements):
            differing += 1
    return InProcessResult(len(games), time.process_time() - began, differing, spent)


def replay_in_process(db: Path, name: str, entrants: list[BotSpec]) -> InProcessResult:
    """Replay tournament ``name`` of ``db`` in-process; ``entrants`` are the spec's bots in
    entry order (the store's entrant order)."""
    by_id, games = _stored_games(db, name, entrants)
    return _play(by_id, games)


@dataclass
class ParallelReplay:
    """The games replayed by ``processes`` processes at once: ``seconds`` from the first
    process's start to the last one's end, their CPU seconds summed, and the games that came
    out with other placements than stored."""

    processes: int
    games: int
    seconds: float
    cpu_seconds: float
    differing: int


#: How long a process waits for the others to be ready: a safety net for a process that
#: died, not a measure (a share's untimed warm-up can take minutes for bots that search).
_READY_TIMEOUT_S = 3600.0


def replay_in_parallel(db: Path, name: str, entrants: list[BotSpec],
                       processes: int) -> ParallelReplay:
    """Replay tournament ``name`` of ``db`` in ``processes`` processes at once, process *i*
    pinned to the *i*-th CPU this process may use and playing games *i*, *i + n*, ...; each
    plays its games once untimed (as :func:`replay_in_process` is warmed up before it is
    timed), then all start together."""
    context = multiprocessing.get_context("spawn")  # no copy of the caller's threads or state
    barrier = context.Barrier(processes)
    answers: Queue[dict[str, Any]] = context.Queue()
    cpus = sorted(os.sched_getaffinity(0))
    children = [context.Process(target=_replay_share, daemon=True,
                                args=(db, name, entrants, share, processes,
                                      cpus[share % len(cpus)], barrier, answers))
                for share in range(processes)]
    for child in children:
        child.start()
    try:
        shares = [_answer(answers, children) for _ in children]
    finally:
        for child in children:
            child.join(timeout=5)
            if child.is_alive():
                child.kill()
    return ParallelReplay(processes, sum(s["games"] for s in shares),
                          max(s["ended"] for s in shares) - min(s["began"] for s in shares),
                          sum(s["cpu_seconds"] for s in shares),
                          sum(s["differing"] for s in shares))


def _answer(answers: Queue[dict[str, Any]], children: Sequence[BaseProcess]) -> dict[str, Any]:
    """The next share's figures; a share that failed, or a process that died without a
    word, is a :class:`ReplayError`."""
    while True:
        try:
            answer = answers.get(timeout=1.0)
        except queue.Empty:
            dead = [c.exitcode for c in children if c.exitcode not in (None, 0)]
            if dead:
                raise ReplayError(f"a process replaying the games in-process died (exit code "
                                  f"{dead[0]})") from None
            continue
        if answer.get("failure"):
            raise ReplayError(f"replaying the games in-process failed: {answer['failure']}")
        return answer


def _replay_share(db: Path, name: str, entrants: list[BotSpec], share: int, shares: int,
                  cpu: int, barrier: Barrier, answers: Queue[dict[str, Any]]) -> None:
    """One process of :func:`replay_in_parallel`: its share of the games, its figures to
    ``answers``."""
    try:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {cpu})
        by_id, games = _stored_games(db, name, entrants)
        mine = games[share::shares]
        _play(by_id, mine)
        barrier.wait(_READY_TIMEOUT_S)
        began = time.monotonic()
        played = _play(by_id, mine)
        answers.put({"games": len(mine), "began": began, "ended": time.monotonic(),
                     "cpu_seconds": played.cpu_seconds, "differing": played.differing})
    except Exception as exc:  # reported to the parent, which raises it as a ReplayError
        with contextlib.suppress(Exception):
            barrier.abort()
        answers.put({"failure": f"{type(exc).__name__}: {exc}"})
