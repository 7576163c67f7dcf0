"""One seat's bot asked again, in-process, the decisions of a recorded game (``arena game
--rerun``): its author reproduces a failure under their own debugger, with the inputs the
bot had.

The game is rebuilt from its record and played with the recorded choices. At each decision
of the seat, the bot (seeded with the seat's recorded ``bot_seed``) is asked through
:class:`BotAgent`, which hands it its seat's observation and its feed of events only, as the
referee's ``act`` and ``event`` messages do. Its answers are held to the seat's view of the
record (:func:`seat_view`, what ``arena game --seat`` shows): its own choices, up to its
forfeit, after which it was sent nothing and is asked nothing.

A decision is named two ways: its *number*, the seat's own count of its decisions in the game
(from 1), and its *act id*, the ``id`` of the referee's ``act`` message, which counts the
bot's requests over its whole match (from 0). The bot is handed the act ids as its request
ids wherever the record tells them: a game's failures place its ids, and the match's earlier
games, when at hand, count the ids before it. :func:`rerun_match` replays those earlier games
first, since the bot's process started (a bot may carry state from game to game).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.record import recorded_play, replay, replay_choices
from arena.engine.state import State
from arena.errors import BotError, ReplayError
from arena.referee.failures import BEFORE_FIRST_ANSWER, BETWEEN_GAMES, forfeits_nothing
from arena.referee.game_report import seat_view
from arena.sdk.bot import Bot, as_index
from arena.sdk.local import BotAgent

__all__ = ["ANSWER_FAILURES", "RerunDecision", "RerunOutcome", "bot_seed_of", "check_rerunnable",
           "game_index_of", "rerun_match", "rerun_seat"]

#: Recorded failures an answer itself makes: an answer that is no legal index reproduces them.
ANSWER_FAILURES = ("illegal_choice", "protocol_error")

#: What the bot's own code may raise, caught for its author's traceback (a bot that calls
#: sys.exit crashes in the sandbox too); Ctrl-C still stops the rerun.
_BOT_ERRORS = (Exception, SystemExit)


@dataclass(frozen=True)
class RerunDecision:
    """One decision of the seat: its number among the seat's decisions of the game (from 1),
    its act id (the referee's, over the match from 0; None where the record does not tell it),
    where it fell, the legal options, what the record holds (None: the seat forfeited there),
    what the bot answered now (None when it raised), the failure the record has there (a
    strike: the referee played option 0, or at a throw one drawn by lot) and the wall time
    the bot took here to answer."""

    number: int
    act_id: int | None
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
    decisions the record timed the seat out at (``timed_out``: asked, not compared);
    ``first_act_id`` is the act id of the seat's first decision of the game (None where the
    record does not tell it)."""

    seat: int
    bot_seed: int | None
    game_index: int
    same: int
    stopped_at: RerunDecision | None
    error: BaseException | None
    forfeit: Mapping[str, Any] | None
    timed_out: list[RerunDecision]
    first_act_id: int | None = None
    #: Strikes the record has at decisions answered before (an earlier game's illegal
    #: answers, reproduced: the replay goes on past them).
    struck_again: list[RerunDecision] = field(default_factory=list)

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
    return rerun_match([record], seat, lambda: bot, options)[-1]


def rerun_match(games: Sequence[Mapping[str, Any]], seat: int, new_bot: Callable[[], Bot],
                options: Mapping[str, Any] | None = None,
                from_start: bool = False) -> list[RerunOutcome]:
    """Rerun the last of ``games`` as :func:`rerun_seat` does, with a bot ``new_bot`` makes.
    ``games`` are the match's games up to that one, in order, when at hand (else that game
    alone): they count the act ids before it. With ``from_start`` the bot first replays the
    earlier games since its process last started (their recorded choices, the bot asked the
    seat's decisions, its answers compared), so that what it kept from them is as it was.
    One outcome a game replayed, the last where it stopped."""
    plans = [*_earlier(games[:-1], seat, from_start), _Game(games[-1], seat)]
    starts = _act_starts(plans)
    first = _first_replayed(plans) if from_start else len(plans) - 1
    played = plans[first:]
    seeds = [plan.bot_seed for plan in played if plan.bot_seed is not None]
    try:
        agent = BotAgent(new_bot(), options=options, rules=played[0].config.rules,
                         first_game=played[0].game_index,
                         bot_seeds=seeds if len(seeds) == len(played) else None)
    except ValueError as exc:
        raise BotError(f"the bot refuses its options: {exc}") from None
    outcomes = []
    for plan, start in zip(played, starts[first:], strict=True):
        last = plan is played[-1]
        outcome = plan.rerun(agent, start, goes_on=not last)
        outcomes.append(outcome)
        if not outcome.same_answers:
            break
    return outcomes


def _earlier(games: Sequence[Mapping[str, Any]], seat: int, needed: bool) -> list[_Game]:
    """The earlier games read; one that does not replay is left out (its act ids are then
    not counted) unless it is ``needed``, when it is the ReplayError."""
    plans = []
    for record in games:
        try:
            plans.append(_Game(record, seat))
        except ReplayError as exc:
            if needed:
                raise ReplayError(f"game {game_index_of(record)} of the match: {exc}") from None
    return plans


def _act_starts(plans: Sequence[_Game]) -> list[int | None]:
    """The act id each game's first request had (None where unknown): a game's failures tell
    it; else the ids the match's earlier games used, counted from 0, when all are at hand."""
    starts: list[int | None] = []
    counted: int | None = 0
    for index, plan in enumerate(plans):
        if plan.game_index != index:
            counted = None  # an earlier game is not at hand
        start = plan.first_act_id - plan.restarts if plan.first_act_id is not None else counted
        starts.append(start)
        counted = None if start is None else start + plan.acts
    return starts


def _first_replayed(plans: Sequence[_Game]) -> int:
    """The first of ``plans`` the bot's process played from its start (the referee starts a
    bot afresh after a game it forfeited, and when it died between games or before its first
    answer of a game)."""
    first = 0
    for index, plan in enumerate(plans):
        if plan.restarted or (index and plans[index - 1].forfeited):
            first = index
    return first


class _Game:
    """One game of the seat, read from its record: what it answered, its failures, the act
    ids it used."""

    def __init__(self, record: Mapping[str, Any], seat: int) -> None:
        check_rerunnable(record, seat)
        self.record, self.seat = record, seat
        view = seat_view(record, seat)
        self.game_index, self.bot_seed = game_index_of(record), bot_seed_of(view, seat)
        self.config = GameConfig.from_json(record["config"])
        own = next((f for f in record.get("forfeits") or [] if f.get("seat") == seat), None)
        self.forfeit = None if own is None else _forfeit_failure(view, own)
        self.forfeited = own is not None
        self.forfeit_at = None if own is None else own.get("at_choice")
        self.answered = [int(c[2]) for c in view["choices"]]
        decisions: list[tuple[int, str]] = []
        _replay_recorded(record, self.config, seat, self.answered, self.forfeit_at,
                         lambda state, _n, _r: decisions.append((state.round,
                                                                  _decision_kind(state))))
        failures = (view.get("referee") or {}).get("failures") or []
        again = [f for f in failures if forfeits_nothing(f)]
        self.restarts = sum(str(f.get("detail")).startswith(BEFORE_FIRST_ANSWER) for f in again)
        #: The bot's process started afresh for this game (or at its first decision).
        self.restarted = any(str(f.get("detail")).startswith((BEFORE_FIRST_ANSWER,
                                                              BETWEEN_GAMES)) for f in again)
        at_decisions = [f for f in failures if not forfeits_nothing(f)]
        recorded = (view.get("referee") or {}).get("first_act_ids") or []
        first_sent = recorded[seat] if seat < len(recorded) else None
        # a death before the first answer used an id: the first answered is that many later
        self.first_act_id = (first_sent + self.restarts if isinstance(first_sent, int)
                             else _first_act_id(at_decisions, decisions, again))
        self.struck = _struck(at_decisions, decisions, self.first_act_id)
        sent_at_forfeit = self.forfeit is not None and self.forfeit.get("decision") is not None
        #: The act ids the game used: one a request, and one a death before the first answer.
        self.acts = len(self.answered) + sent_at_forfeit + self.restarts

    def rerun(self, agent: BotAgent, start: int | None, goes_on: bool) -> RerunOutcome:
        """Ask ``agent`` the seat's decisions, its first request's id ``start`` (the referee's
        where known); ``goes_on`` past a strike its answer reproduces (an earlier game)."""
        first_id = None if start is None else start + self.restarts
        if first_id is not None:
            agent.next_id = first_id
        unsent = self.forfeit is not None and self.forfeit.get("decision") is None
        asker = _Asker(agent, self.seat, self.struck, first_id, unsent, goes_on)
        found: dict[str, Any] = {"seat": self.seat, "bot_seed": self.bot_seed,
                                 "game_index": self.game_index, "forfeit": self.forfeit,
                                 "timed_out": asker.timed_out, "first_act_id": first_id,
                                 "struck_again": asker.struck_again}
        try:
            state = _replay_recorded(self.record, self.config, self.seat, self.answered,
                                     self.forfeit_at, asker)
        except _Stop as stop:
            return RerunOutcome(**found, same=stop.decision.number - 1,
                                stopped_at=stop.decision, error=stop.error)
        error = None
        if self.forfeit is None:  # it was sent the game's end
            try:
                agent.game_over(state, self.seat)
            except _BOT_ERRORS as exc:
                error = exc
        return RerunOutcome(**found, same=len(self.answered), stopped_at=None, error=error)


def _decision_kind(state: State) -> str:
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
    detail and act id (over the match, as ``arena game`` shows it)."""
    failures = (view.get("referee") or {}).get("failures") or []
    reason = own.get("reason")
    failure: Mapping[str, Any] = next(
        (f for f in reversed(failures) if f.get("type") == reason), {})
    return {"type": reason, "detail": failure.get("detail") or "",
            "decision": failure.get("decision")}


def _replay_recorded(record: Mapping[str, Any], config: GameConfig, seat: int,
                     answered: list[int], forfeit_at: Any,
                     visit: Callable[[State, int, int | None], None]) -> State:
    """The game played with its recorded choices (:func:`replay_choices`, the others'
    forfeits included); ``visit(state, number, recorded)`` at each decision of the seat (its
    number from 1; ``recorded`` None at the one it forfeited at). The seat's forfeit ends it
    (the bot was sent nothing more), and is not played: the bot is asked again as it was
    asked then, not yet told of it."""
    state = new_game(config)
    _, choices, forfeits = recorded_play(dict(record))
    others = [forfeit for forfeit in forfeits if forfeit[1] != seat]
    number = 0
    for at, _choice in replay_choices(state, choices, others):
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
    return state


def _first_act_id(failures: list[Mapping[str, Any]], decisions: list[tuple[int, str]],
                  restarts: list[Mapping[str, Any]]) -> int | None:
    """The act id of the seat's first decision in the game, where its recorded failures tell
    it: a death before its first answer was asked at the id before it; a failure names its
    ``act`` by id, and its round and kind: one whose round and kind fit one decision only
    places the game's ids (None when none does)."""
    died = [f["decision"] for f in restarts if isinstance(f.get("decision"), int)
            and str(f.get("detail")).startswith(BEFORE_FIRST_ANSWER)]
    if died:
        return int(died[0]) + 1
    firsts: Counter[int] = Counter()
    for failure in failures:
        fitting = _fitting(failure, decisions)
        if len(fitting) == 1:
            firsts[failure["decision"] - fitting[0] + 1] += 1
    return firsts.most_common(1)[0][0] if firsts else None


def _fitting(failure: Mapping[str, Any], decisions: list[tuple[int, str]]) -> list[int]:
    """The numbers of the decisions (from 1) whose round and kind the failure's are."""
    if not isinstance(failure.get("decision"), int):
        return []
    return [n for n, where in enumerate(decisions, 1)
            if where == (failure.get("round"), failure.get("kind"))]


def _struck(failures: list[Mapping[str, Any]], decisions: list[tuple[int, str]],
            first_act_id: int | None) -> dict[int, Mapping[str, Any]]:
    """The seat's recorded failures at its decisions, by decision number (from 1): placed by
    their act id where the game's first is known, else by a round and kind only one decision
    has."""
    placed: dict[int, Mapping[str, Any]] = {}
    for failure in failures:
        numbers = _fitting(failure, decisions)
        if first_act_id is not None and failure["decision"] - first_act_id + 1 in numbers:
            placed[failure["decision"] - first_act_id + 1] = failure
        elif len(numbers) == 1:
            placed[numbers[0]] = failure
    return placed


class _Asker:
    """Asks the bot each decision of its seat, and holds its answers to the record."""

    def __init__(self, agent: BotAgent, seat: int, struck: dict[int, Mapping[str, Any]],
                 first_act_id: int | None, unsent: bool, goes_on: bool) -> None:
        self.agent = agent
        self.seat = seat
        self.struck = struck
        self.first_act_id = first_act_id
        #: The decision the seat forfeited at was never sent (it had no process then).
        self.unsent = unsent
        self.goes_on = goes_on
        #: Decisions the seat timed out at in the record: its answer then was never played.
        self.timed_out: list[RerunDecision] = []
        self.struck_again: list[RerunDecision] = []

    def __call__(self, state: State, number: int, recorded: int | None) -> None:
        """Raise _Stop unless the bot answers ``recorded`` (or the record timed it out)."""
        decision = state.decision
        assert decision is not None
        failure = self.struck.get(number)
        act_id = (None if self.first_act_id is None or (recorded is None and self.unsent)
                  else self.first_act_id + number - 1)
        asked = RerunDecision(number, act_id, state.round, decision.kind,
                              [dict(o) for o in decision.options], recorded, failure=failure)
        started = time.perf_counter()
        try:
            self.agent.choose(decision, state.observe(self.seat))
        except _BOT_ERRORS as exc:
            raise _Stop(asked, exc) from None
        answered = replace(asked, answer=self.agent.last_answer,
                           seconds=time.perf_counter() - started)
        kind = None if failure is None else failure.get("type")
        if recorded is not None and kind == "timeout":
            self.timed_out.append(answered)  # no clock here: its answer is not compared
            return
        if self.goes_on and recorded is not None and kind in ANSWER_FAILURES \
                and answered.legal_answer is None:
            self.struck_again.append(answered)
            return
        if recorded is None or failure is not None or answered.legal_answer != recorded:
            raise _Stop(answered)
