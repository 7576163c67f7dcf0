"""The compliance check for bot authors (``arena check-bot``, and the gate of ``arena submit``).

Like cutechess's ``--compliance``: it runs the bot exactly as a match would (sandboxed, same
limits) and reports a checklist, one line per requirement, with the reason for each ✗:

1. handshake: answers ``hello`` with a valid ``ready`` within the start-up time;
2. metadata: the optional dates are ISO dates (the rules read them);
3. decisions: a few games (2, 3, 4 and 5 players, the bot in a different seat each time, the
   other seats in-process random players) with every decision answered legally in time; a
   game forfeited for timeouts ends them (a loop would wait out its time in each);
4. game boundaries: one process served every game (``game_start``/``game_end`` handled);
5. clean exit: exits by itself with code 0 within the grace period after ``bye``.

An item may also be a warning (``!``): something the bot does that fails no check but costs
its author, such as a log too long for a game's record to keep.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.common.names import name_problem
from arena.common.plural import counted
from arena.engine import RandomAgent
from arena.referee.client import BotClient
from arena.referee.connection import Ended, Launcher
from arena.referee.copy_paths import author_paths
from arena.referee.failures import STRIKE_TYPES, TIMEOUT
from arena.referee.games import LOG_PER_GAME, LocalSeat, run_games
from arena.referee.hints import HINT, log_note, traceback_tail
from arena.referee.launch import sandbox_launcher
from arena.referee.lifecycle import WAIT_NOTICE_S
from arena.referee.seeds import parse_date, utc_today
from arena.registry import BotSpec, resolve, submit_version
from arena.registry.environments import environment_at, with_environment
from arena.sandbox import Limits

__all__ = ["CheckItem", "CheckReport", "check_bot"]

#: Table sizes of the check's games, in order (the bot's seat moves every game).
TABLE_SIZES = (2, 3, 4, 5)
_EXAMPLES = 3


@dataclass(frozen=True)
class CheckItem:
    """One requirement and whether the bot met it, or a warning (met, but worth a word)."""

    title: str
    ok: bool
    detail: str = ""
    #: Lines shown under the item (the end of the bot's traceback, a hint).
    notes: tuple[str, ...] = ()
    #: Not a requirement: what the bot does that its author should know (``ok`` stays true).
    warning: bool = False

    def line(self) -> str:
        """The item's line, and its notes indented under it."""
        mark = "!" if self.warning else "✓" if self.ok else "✗"
        head = f"{mark} {self.title}" + (f": {self.detail}" if self.detail else "")
        return "\n".join([head, *(f"    {note}" for note in self.notes)])


@dataclass
class CheckReport:
    """The checklist of one bot."""

    bot: str
    version: str
    items: list[CheckItem] = field(default_factory=list)
    sandbox_level: str = ""
    #: The version ``arena submit`` registers the bot with (another one for a file whose
    #: name is not the bot's: the copy is named after the bot).
    submit_version: str = ""
    #: What the bot's environment installed (``name==version``; empty: no environment).
    packages: tuple[str, ...] = ()
    #: Told of each item as it is decided (a hanging bot's check takes a minute: the author
    #: sees the lines come instead of a silent terminal).
    on_item: Callable[[CheckReport, CheckItem], None] | None = field(
        default=None, repr=False, compare=False)

    def add(self, item: CheckItem) -> None:
        self.items.append(item)
        if self.on_item is not None:
            self.on_item(self, item)

    @property
    def ok(self) -> bool:
        return bool(self.items) and all(item.ok for item in self.items)

    def failures(self) -> list[str]:
        """``title: reason`` of every unmet requirement."""
        return [f"{i.title}: {i.detail}" if i.detail else i.title
                for i in self.items if not i.ok]

    @property
    def warnings(self) -> int:
        return sum(item.warning for item in self.items)

    def lines(self) -> list[str]:
        return [item.line() for item in self.items]

    @property
    def registered_version(self) -> str | None:
        """The version ``arena submit`` would register, or None where the registry refuses
        the bot's name (its ``registry name`` item says why)."""
        if name_problem(self.bot) is not None:
            return None
        return self.submit_version or self.version

    def to_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "version": self.version,
                "submit_version": self.registered_version, "ok": self.ok,
                "sandbox_level": self.sandbox_level, "packages": list(self.packages),
                "items": [{"title": i.title, "ok": i.ok, "warning": i.warning,
                           "detail": i.detail, "notes": list(i.notes)} for i in self.items]}


def _metadata_item(client: BotClient) -> CheckItem:
    meta = client.metadata
    bad = [f"{key} {meta[key]!r} is not an ISO date (YYYY-MM-DD)"
           for key in ("last_read_page", "last_book_finished")
           if key in meta and parse_date(meta[key]) is None]
    shown = ", ".join(f"{k} {meta[k]}" for k in ("author", "version", "last_read_page",
                                                 "last_book_finished") if k in meta)
    name = f"name {client.ready_name!r}" + (f"; {shown}" if shown else "")
    if bad:
        return CheckItem("metadata", False, "; ".join(bad))
    return CheckItem("metadata", True, name)


def check_bot(bot: BotSpec | str | Path, *, games: int = len(TABLE_SIZES), seed: int = 0,
              limits: Limits | None = None, launcher: Launcher | None = None,
              bots_dir: Path | None = None,
              on_item: Callable[[CheckReport, CheckItem], None] | None = None,
              on_wait: Callable[[str, str, int], None] | None = None,
              wait_notice_s: float = WAIT_NOTICE_S, look_beside: bool = True,
              on_game: Callable[[int, int, float], None] | None = None,
              game_notice_s: float = WAIT_NOTICE_S) -> CheckReport:
    """Run the compliance checklist on one bot; never raises for the bot's misbehaviour.
    ``on_item`` is told of each item as it is decided; ``on_wait`` of ``(bot, what,
    limit_ms)`` when a wait for the bot's answer (``what``: ``'hello'``, ``a 'turn'
    decision``) has lasted ``wait_notice_s``. ``look_beside``: the hints may say what lies
    beside a single-file bot's file (its author checks it); False where the report is
    stored or shown to others (a league's vet). ``on_game`` is told after each game the check
    goes on from: ``(games played, games, seconds its games have taken)``; and once,
    ``(0, games, seconds)``, while the first game goes on, when it has lasted
    ``game_notice_s``."""
    spec = with_environment(bot if isinstance(bot, BotSpec) else resolve(bot, bots_dir))
    limits = limits or Limits()
    client = BotClient(spec.command, spec.path, limits, name=spec.name, key=spec.key,
                       metadata=spec.metadata, launcher=launcher or sandbox_launcher(),
                       options=spec.options, look_beside=look_beside)
    _tell_waits(client, on_wait, wait_notice_s)
    env = environment_at(spec.environment) if spec.environment is not None else None
    report = CheckReport(spec.name, spec.version, submit_version=submit_version(spec),
                         packages=env.frozen if env is not None else (), on_item=on_item)
    try:
        failure = client.start()
        report.sandbox_level = client.level
        if failure is not None:
            # its author reads the paths of their own files; others, the sandbox's
            detail = (author_paths(failure.detail, _home(spec)) if look_beside
                      else failure.detail)
            report.add(_handshake_failed(detail, _traceback_notes(client.startup_log, spec,
                                                                  look_beside)))
            return report
        # how close a slow runtime (a JVM, a model to load) comes to its limit
        took_ms = round((client.now() - client.launched_at) * 1000)
        report.add(CheckItem("handshake", True, f"answered 'hello' with 'ready' in {took_ms} ms "
                                                f"(limit {limits.startup_ms} ms)"))
        report.add(_metadata_item(client))
        problem = name_problem(spec.name)
        if problem is not None:
            report.add(CheckItem("registry name", False,
                                 f"{problem} (arena submit --name NAME picks one)"))
        first_pid = client.pid
        play = _play_games(client, spec.key, games, seed, on_game, game_notice_s)
        sizes = sorted({TABLE_SIZES[g % len(TABLE_SIZES)] for g in range(games)})
        report.add(_decisions_item(client, play.failures, play.decisions, play.played, limits,
                                   sizes, play.forfeits, play.skipped))
        restarts = client.diagnostics.restarts
        same = client.alive and client.pid == first_pid and restarts == 0
        if same or not play.failures:  # else the failures above stopped it: no second fault
            report.add(CheckItem(
                "game boundaries", same,
                f"one process served {_every(play.played)}" if same else
                f"one process did not last the {_games(play.played)} (it was stopped and "
                f"restarted {_times(restarts)})"))
        if play.cut:
            report.add(_log_item(play.logged, limits))
        if not client.alive and client.start() is not None:
            report.add(CheckItem("clean exit", False, "could not start the bot again "
                                 "to say 'bye'"))
            return report
        # a bot that timed out last may be busy yet (a loop): its exit is no second fault
        busy = bool(play.failures) and play.failures[-1]["type"] == "timeout" and client.alive
    finally:
        ended = client.close()
    report.add(_exit_item(ended, client.log_since_last(), spec, limits, busy,
                          look_beside=look_beside))
    return report


@dataclass
class _CheckGames:
    """What the bot did in the check's games."""

    played: int = 0
    decisions: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    #: why the bot forfeited each game it did
    forfeits: list[str] = field(default_factory=list)
    #: the bytes the bot wrote to stderr in each game
    logged: list[int] = field(default_factory=list)
    #: whether a game's record kept only the end of the bot's log
    cut: bool = False
    #: games left unplayed after one the bot forfeited for its timeouts
    skipped: int = 0


def _play_games(client: BotClient, key: str, games: int, seed: int,
                on_game: Callable[[int, int, float], None] | None = None,
                game_notice_s: float = WAIT_NOTICE_S) -> _CheckGames:
    """The check's games: tables of each of :data:`TABLE_SIZES` in turn, the bot in another
    seat each game, the other seats in-process random players; ``on_game`` and
    ``game_notice_s`` as :func:`check_bot` has them."""
    play = _CheckGames()
    started = client.now()
    for g in range(games):
        size = TABLE_SIZES[g % len(TABLE_SIZES)]
        seat = g % size
        watch = (_first_game_watch(client, games, started, game_notice_s, on_game)
                 if g == 0 and on_game is not None else None)
        seats: list[BotClient | LocalSeat] = [
            LocalSeat(RandomAgent(seed * 100 + g * 10 + s), f"random{s}",
                      watch=watch if s == (seat + 1) % size else None) for s in range(size)]
        seats[seat] = client
        keys = [key if s == seat else f"random{s}" for s in range(size)]
        for outcome in run_games(seats, games=1, seed=seed, match_id="check",
                                 event_date=utc_today(), keys=keys, first_game=g):
            play.played += 1
            play.failures.extend(outcome.failures)
            play.forfeits.extend(why for s, why in outcome.forfeits.items() if s == seat)
            play.decisions += outcome.latency[seat].get("decisions", 0)
            play.logged.append(client.log_bytes)
            play.cut = play.cut or client.log_chars > LOG_PER_GAME
        if TIMEOUT in play.forfeits:
            # a loop waits out its time bank and strikes in every game: a minute for nothing
            play.skipped = games - g - 1
            break
        if on_game is not None:
            on_game(g + 1, games, client.now() - started)
    return play


def _first_game_watch(client: BotClient, games: int, started: float, notice_s: float,
                      on_game: Callable[[int, int, float], None]
                      ) -> Callable[[list[dict[str, Any]]], None]:
    """A watch on the first game's table that tells ``on_game`` ``(0, games, seconds)``
    once, as the game's events come, when it has gone on ``notice_s``: a bot answering each
    decision just inside the wait's notice took the whole game with no line."""
    told = False

    def watch(_events: list[dict[str, Any]]) -> None:
        nonlocal told
        seconds = client.now() - started
        if not told and seconds >= notice_s:
            told = True
            on_game(0, games, seconds)
    return watch


def _log_item(logged: Sequence[int], limits: Limits) -> CheckItem:
    """The warning of a log longer than a game's record keeps: the rest is lost to its
    author, and the writing costs the bot time, though no limit stops it."""
    most = max(logged)
    total = (f" ({sum(logged):,} in {_every(len(logged))})" if len(logged) > 1 else "")
    return CheckItem("log size", True, (
        f"the bot wrote up to {most:,} bytes to stderr in a game{total}; a game's record "
        f"keeps only its last {LOG_PER_GAME:,} characters ('[... N bytes dropped]' before "
        f"them), and the referee holds at most stderr_bytes ({limits.stderr_bytes:,} bytes) "
        "of a process's log; a tournament fails no bot for what it writes there, but the "
        "writing takes from its own time: log less"), warning=True)


def _exit_item(ended: Ended | None, log: str, spec: BotSpec, limits: Limits,
               busy: bool = False, *, look_beside: bool = False) -> CheckItem:
    """How the bot left after ``bye``; what it logged last says why it failed (an
    on_game_end that raised). ``busy``: its last decision timed out, so a bot killed after
    ``bye`` was most likely still in it (a loop), not deaf to ``bye``; ``look_beside`` as
    :func:`check_bot` has it."""
    if ended is None:
        return CheckItem("clean exit", False, "the bot was not running at the end")
    if ended.voluntary and ended.exit_code == 0:
        return CheckItem("clean exit", True, "exited with code 0 after 'bye'")
    if ended.voluntary:
        return CheckItem("clean exit", False, f"{ended.description} after 'bye' (expected "
                         "code 0)" + log_note(log, spec.path, look_beside=look_beside))
    return CheckItem("clean exit", False,
                     f"still running {limits.bye_grace_ms} ms after 'bye'; killed"
                     + (" (likely still in the decision that timed out, above: a bot reads "
                        "'bye' only once it is done with it)" if busy else ""))


def _tell_waits(client: BotClient, on_wait: Callable[[str, str, int], None] | None,
                notice_s: float) -> None:
    """Have ``client`` tell ``on_wait`` of a long wait, naming the bot."""
    if on_wait is not None:
        name = client.name
        client.on_wait = lambda what, limit_ms: on_wait(name, what, limit_ms)
        client.wait_notice_s = notice_s


def _handshake_failed(detail: str, notes: tuple[str, ...]) -> CheckItem:
    """The failed handshake: a hint (a missing module's, a file beside a single-file bot's)
    once, where it closes the traceback's tail (``notes``), not also in the one-line
    detail."""
    if notes and notes[-1].startswith(HINT):
        detail = detail.replace(f"; {notes[-1]}", "")
    return CheckItem("handshake", False, detail, notes)


def _home(spec: BotSpec) -> Path:
    """The bot's directory as its author knows it: the bot, or the directory of its file."""
    return spec.path if spec.path.is_dir() else spec.path.parent


def _traceback_notes(log: str, spec: BotSpec, look_beside: bool) -> tuple[str, ...]:
    """The end of the bot's traceback, its files named as the author knows them (the
    sandbox runs a copy of them under another directory)."""
    home = _home(spec)
    return tuple(traceback_tail(author_paths(log, home), str(home), spec.path,
                                look_beside=look_beside))


def _times(n: int) -> str:
    """``once``, ``twice``, ``3 times``."""
    return {1: "once", 2: "twice"}.get(n, counted(n, "time"))


def _forfeited(forfeits: Sequence[str], games: int, max_strikes: int) -> str:
    """``; it forfeited all 4 games (more than 3 strikes in each)``: a forfeit ends the bot's
    game (placed last, option 0 played for it to the end), which its failures alone do not
    say. Empty without a forfeit."""
    if not forfeits:
        return ""
    why = Counter(f"more than {counted(max_strikes, 'strike')}" if kind in STRIKE_TYPES
                  else kind for kind in forfeits)
    if len(why) == 1:
        (label, n), = why.items()
        because = label + (" in each" if n == games > 1 else "")
    else:
        because = ", ".join(f"{label} in {n}" for label, n in why.items())
    which = _every(games) if len(forfeits) == games else f"{len(forfeits)} of {_games(games)}"
    return f"; it forfeited {which} ({because})"


def _decisions_item(client: BotClient, failures: list[dict[str, Any]], decisions: int,
                    games: int, limits: Limits, sizes: list[int],
                    forfeits: Sequence[str] = (), skipped: int = 0) -> CheckItem:
    title = "decisions"
    if failures:
        counts = Counter(f["type"] for f in failures)
        # "timeout 4", as the leaderboard counts failures (a type name takes no plural)
        summary = ", ".join(f"{t} {n}" for t, n in sorted(counts.items()))
        # " | " between examples: a detail has semicolons of its own
        examples = " | ".join(list(dict.fromkeys(f["detail"] for f in failures))[:_EXAMPLES])
        restarted = client.diagnostics.restarts
        after = (f"; the bot was restarted {_times(restarted)} after them"
                 if restarted else "")
        unplayed = (f"; the other {_games(skipped)} of the check were not played: each would "
                    "wait out its time again" if skipped else "")
        return CheckItem(title, False,
                         f"{counted(len(failures), 'failure')} in {_games(games)}: {summary} "
                         f"(e.g. {examples})"
                         f"{_forfeited(forfeits, games, limits.max_strikes)}{after}{unplayed}")
    diag = client.diagnostics
    med, top = diag.median_ms, diag.max_ms
    timing = (f" (median {med:.2f} ms, max {top:.1f} ms; limit {limits.decision_ms} ms)"
              if med is not None and top is not None else "")
    tables = ", ".join(str(n) for n in sizes[:-1]) + (" and " if len(sizes) > 1 else "")
    tables += f"{sizes[-1]} players"
    if med is not None and med > limits.decision_ms:
        # The check's games are short; a real one has more decisions than the bank covers.
        return CheckItem(title, False, (
            f"the median decision takes {med:.0f} ms, over the limit of "
            f"{limits.decision_ms} ms: only the time bank ({limits.time_bank_ms} ms a game) "
            f"carried the check's short games, and a longer game runs out of it"))
    over = sum(1 for seconds in diag.latencies if seconds * 1000 > limits.decision_ms)
    banked = (f"; {over} of them over the limit, paid from the time bank ("
              f"{limits.time_bank_ms} ms a game)" if over else "")
    return CheckItem(title, True, f"{decisions} decisions in {_games(games)} ({tables}), all "
                     f"legal and in time{timing}{banked}")


def _games(n: int) -> str:
    return counted(n, "game")


def _every(n: int) -> str:
    """``the game``, ``both games``, ``all 4 games`` (not "all 1 game")."""
    return {1: "the game", 2: "both games"}.get(n, f"all {_games(n)}")
