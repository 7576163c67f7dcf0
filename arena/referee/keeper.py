"""Bot processes kept between the matches one referee plays: :class:`BotKeeper`.

Starting a sandboxed bot costs far more than a game of the sample bots, and a tournament's
worker plays table after table with the same few bots. A bot whose ``ready`` offered a rematch
(docs/PROTOCOL.md, "Rematch") is therefore kept, stopped, when its match ends cleanly, and
the next match of the same bot (same files, options, limits and pondering) begins in it with
another ``hello`` (:meth:`~arena.referee.client.BotClient.rematch`) instead of a start.

What keeps this fair (docs/SANDBOX.md, "Processes kept between matches"):

* only a clean process is kept: a failure of any kind in the match (a timeout, an illegal
  choice, a protocol error, an overflow, a crash, a restart) sends ``bye`` as before, and the
  bot's next match starts a fresh process;
* every count of a match starts afresh (strikes, time bank, diagnostics), and a rematch that
  is not answered in the start-up time ends the process without a failure to the bot's name:
  a fresh one is started instead;
* a kept process only ever heard its own matches: one referee plays one match at a time, and
  a bot is sent only its own seat's messages;
* a kept process never begins a match that deals a deal it was dealt before (a deal book
  repeats deals across tables): it would know the cards of seats that are not its own;
* the sandbox's CPU-seconds limit counts over a process's life: a process is kept only while
  it cannot have used more than half of it (its age times the CPUs), so a match never begins
  with less than half the limit (a fresh process would have it all);
* at most :data:`MAX_IDLE` processes wait at once, stopped (no CPU); the oldest goes first.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import Callable
from time import monotonic
from typing import Any

from arena.referee.client import BotClient, CpuTurn
from arena.referee.pause import send_queued_stops
from arena.registry import BotSpec
from arena.sandbox import Limits

__all__ = ["MAX_IDLE", "BotKeeper"]

#: Kept processes waiting for a match at most, per referee.
MAX_IDLE = 8


def _identity(spec: BotSpec, limits: Limits, ponder: bool) -> str:
    """Everything that makes a process right for a match: its files and command, the options
    and limits its ``hello`` and its sandbox carry, and whether it may ponder."""
    return json.dumps([spec.key, list(spec.command), str(spec.path), spec.options,
                       limits.to_json(), ponder], sort_keys=True, default=str)


class BotKeeper:
    """Processes kept between matches, by bot identity (least recently kept first)."""

    def __init__(self, cpus: int | None = None,
                 clock: Callable[[], float] = monotonic) -> None:
        self._idle: OrderedDict[int, tuple[str, BotClient]] = OrderedDict()
        self._cpus = cpus or os.cpu_count() or 1
        self._clock = clock
        #: Matches begun in a kept process, and processes kept, since the keeper began.
        self.reused = 0
        self.kept = 0

    def __len__(self) -> int:
        return len(self._idle)

    def take(self, spec: BotSpec, limits: Limits, ponder: bool, turn: CpuTurn,
             avoid: frozenset[int] = frozenset()) -> BotClient | None:
        """A kept process of this bot, its new match begun (:meth:`BotClient.rematch`); None
        when there is none (or it did not answer: it is ended), so the caller starts one.
        A process dealt any of the deals ``avoid`` (the match's) is not taken."""
        identity = _identity(spec, limits, ponder)
        for key, (kept_as, client) in list(self._idle.items()):
            if kept_as != identity or not client.deals.isdisjoint(avoid):
                continue
            del self._idle[key]
            if client.rematch(turn):
                self.reused += 1
                return client
            client.close()
            return None
        return None

    def keeps(self, client: BotClient) -> bool:
        """Whether ``client`` may serve a later match (:attr:`BotClient.reusable`, young
        enough for its CPU-seconds limit)."""
        age = self._clock() - client.launched_at
        return client.reusable and age * self._cpus <= client.limits.cpu_seconds / 2

    def keep(self, client: BotClient, spec: BotSpec, ponder: bool) -> None:
        """Keep ``client`` (which :meth:`keeps`) for a later match of ``spec``; it is stopped
        meanwhile. The oldest kept process is ended when too many wait."""
        client.idle()
        send_queued_stops()  # now: a stop by uid would otherwise wait for the next continue
        self._idle[id(client)] = (_identity(spec, client.limits, ponder), client)
        self.kept += 1
        while len(self._idle) > MAX_IDLE:
            _, (_, oldest) = self._idle.popitem(last=False)
            oldest.close()

    def close(self) -> None:
        """End every kept process (``bye``, grace, kill)."""
        while self._idle:
            _, (_, client) = self._idle.popitem(last=False)
            client.close()

    def stats(self) -> dict[str, Any]:
        return {"reused": self.reused, "kept": self.kept, "idle": len(self._idle)}
