"""What a bot did wrong, as recorded with the game and counted per bot.

Every misbehaviour gets exactly one type so tournaments can count and compare them:

* ``timeout``          no answer within the decision time plus what was left of the time bank
* ``crash``            the process ended (exit code or signal) while it had work to do
* ``protocol_error``   bad JSON, a wrong message type, a wrong or stale id, a missing field
* ``illegal_choice``   an answer whose index is outside the legal options
* ``output_limit``     a line longer than the sandbox's cap (the stream cannot be trusted after)
* ``memory_limit``     the process died of its memory limit (where the sandbox can tell)
* ``startup_failure``  no valid ``ready`` within the start-up time (or no process at all)

A ``timeout``, ``protocol_error`` or ``illegal_choice`` is a *strike*: the decision's safe
default is played and the game goes on. The others end the bot's game at once (a forfeit); so
does a strike past the limit.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Final

from arena.common.plural import counted
from arena.referee.copy_paths import author_paths

__all__ = [
    "BEFORE_FIRST_ANSWER",
    "BETWEEN_GAMES",
    "CRASH",
    "FAILURE_TYPES",
    "FATAL_TYPES",
    "ILLEGAL_CHOICE",
    "MEMORY_LIMIT",
    "OUTPUT_LIMIT",
    "PROTOCOL_ERROR",
    "STARTUP_FAILURE",
    "STRIKE_TYPES",
    "TIMEOUT",
    "Failure",
    "Reason",
    "after_game",
    "FailureCounts",
    "counts_line",
    "describe",
    "describe_leaves_out",
    "distinct_reasons",
    "failures_and_forfeits",
    "for_author",
    "forfeits_nothing",
    "shown_detail",
    "without_game",
]

TIMEOUT: Final = "timeout"
CRASH: Final = "crash"
PROTOCOL_ERROR: Final = "protocol_error"
ILLEGAL_CHOICE: Final = "illegal_choice"
OUTPUT_LIMIT: Final = "output_limit"
MEMORY_LIMIT: Final = "memory_limit"
STARTUP_FAILURE: Final = "startup_failure"

FAILURE_TYPES: Final = (TIMEOUT, CRASH, PROTOCOL_ERROR, ILLEGAL_CHOICE, OUTPUT_LIMIT,
                        MEMORY_LIMIT, STARTUP_FAILURE)
#: Failures that play the safe default (a lot at a throw) and count a strike; the game goes
#: on for the bot.
STRIKE_TYPES: Final = frozenset({TIMEOUT, PROTOCOL_ERROR, ILLEGAL_CHOICE})
#: Failures after which the process is gone or untrustworthy: the bot forfeits the game.
FATAL_TYPES: Final = frozenset({CRASH, OUTPUT_LIMIT, MEMORY_LIMIT, STARTUP_FAILURE})

#: How the details of the two deaths that forfeit nothing begin: before the bot's first answer
#: of a game (it is restarted and asked again) and between games (restarted for the next).
BEFORE_FIRST_ANSWER: Final = "exited before its first answer of the game"
BETWEEN_GAMES: Final = "exited between games"
#: The game a death between games followed, as a crash's detail names it.
_AFTER_GAME: Final = re.compile(r", after game \d+ of the match ended")


def after_game(game: int) -> str:
    """What a crash's detail adds for a process that died after ``game``'s end was sent."""
    return f", after game {game} of the match ended"


def without_game(detail: str) -> str:
    """``detail`` without the game it names (:func:`after_game`): a bot that dies in its
    ``on_game_end`` every game fails the same way each time, though each detail names
    another game, and is counted so."""
    return _AFTER_GAME.sub("", detail)


@dataclass(frozen=True, slots=True)
class Failure:
    """One recorded misbehaviour. ``seat``, ``bot`` and ``game`` are filled in by the match
    (a :class:`~arena.referee.client.BotClient` knows neither its seat nor the game)."""

    type: str
    detail: str
    seat: int = -1
    bot: str = ""
    game: int = -1
    #: The act's id (ids count over the whole match).
    decision: int | None = None
    #: Where in the game the decision was asked: its round and kind (``swap``, ...).
    round: int | None = None
    kind: str | None = None

    def __post_init__(self) -> None:
        if self.type not in FAILURE_TYPES:
            raise ValueError(f"unknown failure type {self.type!r}")

    @property
    def is_strike(self) -> bool:
        return self.type in STRIKE_TYPES

    def at(self, *, seat: int, bot: str, game: int, round: int | None = None,
           kind: str | None = None) -> Failure:
        """The same failure placed in a game (and at a decision of it)."""
        return Failure(self.type, self.detail, seat, bot, game, self.decision, round, kind)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def shown_detail(failure: Mapping[str, Any]) -> str:
    """A recorded failure's detail as people are shown it: the paths into the bot's sandboxed
    copy (``/bot/book.json``, or the box's temporary directory on the host without
    bubblewrap) relative to the bot's directory (``book.json``), as its author knows them.
    Nothing is looked up on the host, so the words never tell what lies there; the record
    keeps what the referee wrote."""
    return author_paths(str(failure.get("detail", "")))


def for_author(failures: Iterable[Mapping[str, Any]], names: Sequence[str],
               paths: Mapping[str, Path]) -> list[dict[str, Any]]:
    """``failures`` (of a game whose seats are ``names``) with the paths into a bot's
    sandboxed copy named under the bot's own directory (``paths``: each bot's file or
    directory by name), as ``arena check-bot`` names them: for the author's own run
    (``arena match``, ``arena play``), where they open the file. A failure stored or shown
    to others keeps the relative form (:func:`shown_detail`)."""
    def home(seat: Any) -> Path | None:
        if not isinstance(seat, int) or not 0 <= seat < len(names):
            return None
        path = paths.get(names[seat])
        return None if path is None else path if path.is_dir() else path.parent

    return [{**failure, "detail": author_paths(str(failure.get("detail", "")),
                                               home(failure.get("seat")))}
            for failure in failures]


def describe(failures: Iterable[tuple[str, str, Mapping[str, Any]]], limit: int = 10,
             more: str = "") -> list[str]:
    """Why bots failed, for people: one line per (bot, type), in order of first occurrence,
    with how often, in which games and the first detail (and how many other details there
    were: a bot printing numbered debug lines gives a new detail each time, and one line per
    detail would crowd every other bot's failures out). ``failures`` holds (bot, game, failure
    as recorded); past ``limit`` lines the rest are counted, not shown (``more`` says where to
    find them)."""
    seen: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for bot, game, failure in failures:
        key = (bot, str(failure.get("type", "?")))
        seen.setdefault(key, []).append((game, shown_detail(failure)))
    lines = []
    for (bot, kind), hits in list(seen.items())[:limit]:
        distinct = list(dict.fromkeys(game for game, _ in hits))
        shown = ", ".join(distinct[:5]) + (", ..." if len(distinct) > 5 else "")
        times = f", {len(hits)} times" if len(hits) > 1 else ""
        plural = "s" if len(distinct) > 1 else ""
        details: dict[str, str] = {}  # the first detail of each kind, in order
        for _, detail in hits:
            details.setdefault(without_game(detail), detail)
        first, *rest = details.values()
        others = len(rest)
        also = f" (and {others} other detail{'s' if others > 1 else ''})" if others else ""
        lines.append(f"{bot} {kind}{times} (game{plural} {shown}): {first}{also}")
    if len(seen) > limit:
        lines.append(f"... and {len(seen) - limit} more{more}")
    return lines


@dataclass(frozen=True, slots=True)
class Reason:
    """One distinct reason a bot failed: its type and first detail, how often, and where first
    (a game's id and the seat, to open it with)."""

    bot: str
    type: str
    detail: str
    times: int
    first_game: str
    first_seat: Any

    def line(self) -> str:
        """``alice timeout 3 times (first cup/r1/t0/g0, seat 0): no answer within 1000 ms``."""
        times = "once" if self.times == 1 else f"{self.times} times"
        return (f"{self.bot} {self.type} {times} (first {self.first_game}, seat "
                f"{self.first_seat}): {self.detail}")


def distinct_reasons(failures: Iterable[tuple[str, str, Mapping[str, Any]]]) -> list[Reason]:
    """Every distinct reason in ``failures`` ((bot, game, failure as recorded), in the order
    played): grouped by bot, then type, each in order of first occurrence, the most frequent
    reason of a type first. Details that differ only by the game they name
    (:func:`without_game`) are one reason."""
    found: dict[tuple[str, str, str], Reason] = {}
    for bot, game, failure in failures:
        kind, detail = str(failure.get("type", "?")), shown_detail(failure)
        key = (bot, kind, without_game(detail))
        known = found.get(key)
        found[key] = (Reason(bot, kind, detail, 1, game, failure.get("seat", "?"))
                      if known is None else replace(known, times=known.times + 1))
    bots = {bot: at for at, bot in enumerate(dict.fromkeys(bot for bot, _, _ in found))}
    kinds = {kind: at for at, kind in enumerate(dict.fromkeys(key[:2] for key in found))}
    return sorted(found.values(), key=lambda reason: (
        bots[reason.bot], kinds[reason.bot, reason.type], -reason.times))


def describe_leaves_out(reasons: Sequence[Reason], limit: int = 10) -> bool:
    """Whether :func:`describe` with ``limit``, given the failures ``reasons`` are of, tells
    fewer of them than there are (a bot's other details, or lines past the limit)."""
    return len(reasons) > min(len({(r.bot, r.type) for r in reasons}), limit)


def forfeits_nothing(failure: Mapping[str, Any]) -> bool:
    """A recorded crash (or memory limit) the bot forfeited nothing for: it died before its
    first answer of a game or between games, and was restarted."""
    return (failure.get("type") in (CRASH, MEMORY_LIMIT)
            and str(failure.get("detail", "")).startswith((BEFORE_FIRST_ANSWER, BETWEEN_GAMES)))


def failures_and_forfeits(counts: Mapping[str, int], forfeits: int) -> str:
    """A bot's failures counted by type, then the games they forfeited, as the leaderboard
    and ``arena match`` show them: ``timeout 7 (1 forfeit)``, since a failure may forfeit
    nothing (a strike, a restart)."""
    text = ", ".join(f"{kind} {n}" for kind, n in counts.items())
    if not forfeits:
        return text
    cost = counted(forfeits, "forfeit")
    return f"{text} ({cost})" if text else cost


class FailureCounts:
    """Failures counted by type as they come, the restarted ones apart: what
    :func:`counts_line` says, kept without the failures themselves (a records file may hold
    millions)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.restarted: Counter[str] = Counter()

    def add(self, failure: Mapping[str, Any]) -> None:
        kind = str(failure.get("type", "?"))
        self.counts[kind] += 1
        self.restarted[kind] += forfeits_nothing(failure)

    def line(self) -> str:
        """``crash 15 (4 restarted), timeout 2``."""
        return ", ".join(f"{kind} {n}" + (f" ({self.restarted[kind]} restarted)"
                                          if self.restarted[kind] else "")
                         for kind, n in sorted(self.counts.items()))


def counts_line(failures: Iterable[Mapping[str, Any]]) -> str:
    """Recorded failures counted by type, for people: ``crash 15 (4 restarted), timeout 2``
    (the restarted ones forfeited nothing, so the crashes may outnumber the forfeits)."""
    counts = FailureCounts()
    for failure in failures:
        counts.add(failure)
    return counts.line()
