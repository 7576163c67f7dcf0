"""What the referee keeps of one bot's decisions: :class:`ActResult` (one decision) and
:class:`BotDiagnostics` (a match's counters), plain data the match reports."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena.referee import failures as F
from arena.referee.failures import Failure

__all__ = ["ActResult", "BotDiagnostics"]


@dataclass(slots=True)
class ActResult:
    """The outcome of one decision: the bot's index (0 after a failure, where the referee
    plays :func:`~arena.referee.seeds.played_for` instead), the round-trip time, the failure
    if any, and whether the bot has now forfeited the game."""

    choice: int
    latency: float
    failure: Failure | None = None
    forfeit: bool = False


@dataclass
class BotDiagnostics:
    """Per-bot counters over a match (JSON-able via :meth:`to_json`)."""

    name: str
    key: str
    decisions: int = 0
    latencies: list[float] = field(default_factory=list, repr=False)
    failures: Counter[str] = field(default_factory=Counter)
    strikes: int = 0
    forfeits: int = 0
    starts: int = 0
    restarts: int = 0
    #: How the last process ended at the close of the match (after ``bye``).
    exit: str | None = None
    #: Start-ups failed in a row, by any of the bot's processes in the match: past a few the
    #: bot is given up (not reported: ``failures`` counts them).
    failed_starts: int = 0
    #: Why the last of them failed, quoted in each game forfeited once the bot is given up.
    last_start_failure: str = ""

    @property
    def timeouts(self) -> int:
        return self.failures[F.TIMEOUT]

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.latencies) * 1000 if self.latencies else None

    @property
    def max_ms(self) -> float | None:
        return max(self.latencies) * 1000 if self.latencies else None

    def latency_since(self, mark: int) -> dict[str, Any]:
        """Decisions and latency (ms) from the ``mark``-th decision on (a game's, when
        ``mark`` is the count at its start)."""
        lat = self.latencies[mark:]
        return {"decisions": len(lat),
                "median_ms": round(statistics.median(lat) * 1000, 3) if lat else None,
                "max_ms": round(max(lat) * 1000, 3) if lat else None}

    def to_json(self) -> dict[str, Any]:
        med, top = self.median_ms, self.max_ms
        return {
            "name": self.name, "bot": self.key, "decisions": self.decisions,
            "median_ms": None if med is None else round(med, 3),
            "max_ms": None if top is None else round(top, 3),
            "timeouts": self.timeouts, "strikes": self.strikes, "forfeits": self.forfeits,
            "starts": self.starts, "restarts": self.restarts, "exit": self.exit,
            "failures": {t: self.failures[t] for t in F.FAILURE_TYPES if self.failures[t]},
        }
