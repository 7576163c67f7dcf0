"""One seat's bot asked again, in-process, the decisions of a recorded game (``arena game
--rerun``): its author reproduces a failure under their own debugger, with the inputs the
bot had.

The game is rebuilt from its record and played with the recorded choices. At each decision
of the seat, the bot (seeded with the seat's recorded ``bot_seed``) is asked through
:class:`BotAgent`, which hands it its seat's observation and its feed of events only, as the
referee's ``act`` and ``event`` messages do. Its answers are held to the seat's view of the
record (:func:`seat_view`, what ``arena game --seat`` shows): its own choices, up to its
forfeit, after which it was sent nothing and is asked nothing.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.record import replay
from arena.engine.state import State
from arena.errors import BotError, ReplayError
from arena.referee.game_report import seat_view
from arena.sdk.bot import Bot, as_index
from arena.sdk.local import BotAgent

__all__ = ["RerunDecision", "RerunOutcome", "bot_seed_of", "check_rerunnable",
           "game_index_of", "rerun_seat"]

#: What the bot's own code may raise, caught for its author's traceback (a bot that calls
#: sys.exit crashes in the sandbox too); Ctrl-C still stops the rerun.
_BOT_ERRORS = (Exception, SystemExit)


@dataclass(frozen=True)
class RerunDecision:
    """One decision of the seat: its number among the seat's decisions of the game (from 1),
    where it fell, the legal options, what the record holds (None: the seat forfeited there),
    what the bot answered now (None when it raised), the failure the record has there (a
    strike: the referee played option 0) and the wall time the bot took here to answer."""

    number: int
    round: int
    kind: str
    options: list[dict[str, Any]]
    recorded: int | None
    answer: Any = None
    failure: Mapping[str, Any] | None = None
    seconds: float | None = None

    @property
    def legal_answer(self) -> int | None:
        """The answer as an index into the options, None when it is not one."""
        index = as_index(self.answer)
        return index if index is not None and 0 <= index < len(self.options) else None


@dataclass(frozen=True)
class RerunOutcome:
    """What the rerun found: the decisions answered as recorded (``same``), the decision where
    it stopped (``stopped_at``: an answer that differs, or the one the bot raised at), the
    exception the bot raised (``error``; at the game's end when ``stopped_at`` is None), the
    record's failure that forfeited the seat (``forfeit``: its type and detail), and the
    decisions the record timed the seat out at (``timed_out``: asked, not compared)."""

    seat: int
    bot_seed: int | None
    game_index: int
    same: int
    stopped_at: RerunDecision | None
    error: BaseException | None
    forfeit: Mapping[str, Any] | None
    timed_out: list[RerunDecision]

    @property
    def same_answers(self) -> bool:
        """Every decision answered as recorded, nothing raised."""
        return self.stopped_at is None and self.error is None


class _Stop(Exception):
    """The rerun ends at this decision."""

    def __init__(self, decision: RerunDecision, error: BaseException | None = None) -> None:
        super().__init__(decision.number)
        self.decision = decision
        self.error = error


def rerun_seat(record: Mapping[str, Any], seat: int, bot: Bot,
               options: Mapping[str, Any] | None = None) -> RerunOutcome:
    """Ask ``bot``, in ``seat``, every decision that seat answered in ``record`` (and the one
    it forfeited at), stopping at the first answer that differs or the first exception.
    ``options`` go to its ``configure`` as a tournament entry's do. Raises ReplayError for a
    record that does not replay or a seat outside the game, BotError for options the bot
    refuses."""
    check_rerunnable(record, seat)
    view = seat_view(record, seat)
    game_index, bot_seed = game_index_of(record), bot_seed_of(view, seat)
    config = GameConfig.from_json(record["config"])
    try:
        agent = BotAgent(bot, options=options, rules=config.rules, first_game=game_index,
                         bot_seeds=None if bot_seed is None else [bot_seed])
    except ValueError as exc:
        raise BotError(f"the bot refuses its options: {exc}") from None
    own = next((f for f in record.get("forfeits") or [] if f.get("seat") == seat), None)
    answered = [int(c[2]) for c in view["choices"]]
    found: dict[str, Any] = {"seat": seat, "bot_seed": bot_seed, "game_index": game_index,
                             "forfeit": None if own is None else _forfeit_failure(view, own)}
    forfeit_at = None if own is None else own.get("at_choice")
    decisions: list[tuple[int, str]] = []
    _play(record, config, seat, answered, forfeit_at,
          lambda state, _n, _r: decisions.append((state.round, _kind(state))))
    failures = (view.get("referee") or {}).get("failures") or []
    asker = _Asker(agent, seat, _struck(failures, decisions))
    found["timed_out"] = asker.timed_out
    try:
        state = _play(record, config, seat, answered, forfeit_at, asker)
    except _Stop as stop:
        return RerunOutcome(**found, same=stop.decision.number - 1, stopped_at=stop.decision,
                            error=stop.error)
    error = None
    if own is None:  # it was sent the game's end
        try:
            agent.game_over(state, seat)
        except _BOT_ERRORS as exc:
            error = exc
    return RerunOutcome(**found, same=len(answered), stopped_at=None, error=error)


def _kind(state: State) -> str:
    assert state.decision is not None
    return state.decision.kind


def check_rerunnable(record: Mapping[str, Any], seat: int) -> None:
    """Raise ReplayError unless ``record`` replays and has ``seat``."""
    players = record.get("players") or []
    if not 0 <= seat < len(players):
        raise ReplayError(f"the game has seats 0-{len(players) - 1}; there is no seat {seat}")
    config_json = record.get("config")
    if isinstance(config_json, Mapping) and "seed" not in config_json:
        raise ReplayError("the record holds no seed to deal the game from (a seat's view, "
                          "as arena game --seat --format json writes it, leaves it out): "
                          "rerun from the whole record")
    replay(dict(record))


def game_index_of(record: Mapping[str, Any]) -> int:
    """The game's index in its match (0 for a record without the referee's part)."""
    referee = record.get("referee")
    index = referee.get("game_index") if isinstance(referee, Mapping) else None
    return index if isinstance(index, int) else 0


def bot_seed_of(record: Mapping[str, Any], seat: int) -> int | None:
    """The ``bot_seed`` the seat's bot was sent, None where the record holds none (an
    in-process seat, a record without the referee's part)."""
    referee = record.get("referee")
    seeds = referee.get("bot_seeds") if isinstance(referee, Mapping) else None
    if not isinstance(seeds, list) or not 0 <= seat < len(seeds):
        return None
    return seeds[seat] if isinstance(seeds[seat], int) else None


def _forfeit_failure(view: Mapping[str, Any], own: Mapping[str, Any]) -> dict[str, Any]:
    """The seat's failure that forfeited it (its last of the forfeit's type): its type,
    detail and decision (the id of the ``act`` over the match, as ``arena game`` shows it)."""
    failures = (view.get("referee") or {}).get("failures") or []
    reason = own.get("reason")
    failure: Mapping[str, Any] = next(
        (f for f in reversed(failures) if f.get("type") == reason), {})
    return {"type": reason, "detail": failure.get("detail") or "",
            "decision": failure.get("decision")}


def _play(record: Mapping[str, Any], config: GameConfig, seat: int, answered: list[int],
          forfeit_at: Any, visit: Callable[[State, int, int | None], None]) -> State:
    """The game played with its recorded choices; ``visit(state, number, recorded)`` at each
    decision of the seat (its number from 1; ``recorded`` None at the one it forfeited at).
    The seat's forfeit ends it (the bot was sent nothing more)."""
    state = new_game(config)
    forfeits = sorted((int(f["at_choice"]), int(f["seat"]), str(f["reason"]))
                      for f in record.get("forfeits") or [] if f.get("seat") != seat)
    number = 0
    for at, (_, _, index) in enumerate(record["choices"]):
        while forfeits and forfeits[0][0] == at:
            state.forfeit(*forfeits.pop(0)[1:])
        decision = state.decision
        if decision is None:
            raise ReplayError(f"choice {at}: the game ended but the record goes on")
        if at == forfeit_at:
            if decision.seat == seat:  # the decision it failed at: asked again
                visit(state, number + 1, None)
            return state
        if decision.seat == seat:
            visit(state, number + 1, answered[number])
            number += 1
        state.apply(int(index))
    for _, other, reason in forfeits:
        state.forfeit(other, reason)
    return state


def _struck(failures: list[Mapping[str, Any]],
            decisions: list[tuple[int, str]]) -> dict[int, Mapping[str, Any]]:
    """The seat's recorded failures at its decisions, by decision number (from 1). A failure
    names the ``act`` by its id over the match, and its round and kind: a failure whose
    round and kind fit one decision only places the game's first id, which places the rest."""
    fitting = {id(f): [n for n, where in enumerate(decisions, 1)
                       if where == (f.get("round"), f.get("kind"))]
               for f in failures if isinstance(f.get("decision"), int)}
    firsts = Counter(f["decision"] - fitting[id(f)][0] for f in failures
                     if len(fitting.get(id(f), [])) == 1)
    first = firsts.most_common(1)[0][0] if firsts else None
    placed: dict[int, Mapping[str, Any]] = {}
    for failure in failures:
        numbers = fitting.get(id(failure), [])
        if len(numbers) == 1:
            placed[numbers[0]] = failure
        elif first is not None and failure["decision"] - first in numbers:
            placed[failure["decision"] - first] = failure
    return placed


class _Asker:
    """Asks the bot each decision of its seat, and holds its answers to the record."""

    def __init__(self, agent: BotAgent, seat: int,
                 struck: dict[int, Mapping[str, Any]]) -> None:
        self.agent = agent
        self.seat = seat
        self.struck = struck
        #: Decisions the seat timed out at in the record: its answer then was never played.
        self.timed_out: list[RerunDecision] = []

    def __call__(self, state: State, number: int, recorded: int | None) -> None:
        """Raise _Stop unless the bot answers ``recorded`` (or the record timed it out)."""
        decision = state.decision
        assert decision is not None
        failure = self.struck.get(number)
        asked = RerunDecision(number, state.round, decision.kind,
                              [dict(o) for o in decision.options], recorded, failure=failure)
        started = time.perf_counter()
        try:
            self.agent.choose(decision, state.observe(self.seat))
        except _BOT_ERRORS as exc:
            raise _Stop(asked, exc) from None
        answered = replace(asked, answer=self.agent.last_answer,
                           seconds=time.perf_counter() - started)
        if recorded is not None and failure is not None and failure.get("type") == "timeout":
            self.timed_out.append(answered)  # no clock here: its answer is not compared
            return
        if recorded is None or failure is not None or answered.legal_answer != recorded:
            raise _Stop(answered)
