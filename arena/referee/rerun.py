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

from collections.abc import Mapping
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

__all__ = ["RerunDecision", "RerunOutcome", "rerun_seat"]

#: What the bot's own code may raise, caught for its author's traceback (a bot that calls
#: sys.exit crashes in the sandbox too); Ctrl-C still stops the rerun.
_BOT_ERRORS = (Exception, SystemExit)


@dataclass(frozen=True)
class RerunDecision:
    """One decision of the seat: its number among the seat's decisions of the game (from 1),
    where it fell, the legal options, what the record holds (None: the seat forfeited there)
    and what the bot answered now (None when it raised)."""

    number: int
    round: int
    kind: str
    options: list[dict[str, Any]]
    recorded: int | None
    answer: Any = None

    @property
    def legal_answer(self) -> int | None:
        """The answer as an index into the options, None when it is not one."""
        index = as_index(self.answer)
        return index if index is not None and 0 <= index < len(self.options) else None


@dataclass(frozen=True)
class RerunOutcome:
    """What the rerun found: the decisions answered as recorded (``same``), the decision where
    it stopped (``stopped_at``: an answer that differs, or the one the bot raised at), the
    exception the bot raised (``error``; at the game's end when ``stopped_at`` is None), and
    the record's failure that forfeited the seat (``forfeit``: its type and detail)."""

    seat: int
    bot_seed: int | None
    game_index: int
    same: int
    stopped_at: RerunDecision | None
    error: BaseException | None
    forfeit: Mapping[str, Any] | None

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
    players = record.get("players") or []
    if not 0 <= seat < len(players):
        raise ReplayError(f"the game has seats 0-{len(players) - 1}; there is no seat {seat}")
    view = seat_view(record, seat)
    config_json = record.get("config")
    if isinstance(config_json, Mapping) and "seed" not in config_json:
        raise ReplayError("the record holds no seed to deal the game from (a seat's view, "
                          "as arena game --seat --format json writes it, leaves it out): "
                          "rerun from the whole record")
    replay(dict(record))  # a record that does not replay cannot be rerun
    referee = record.get("referee")
    index = referee.get("game_index") if isinstance(referee, Mapping) else None
    game_index = index if isinstance(index, int) else 0
    seeds = (view.get("referee") or {}).get("bot_seeds") or []
    bot_seed = seeds[seat] if seat < len(seeds) and isinstance(seeds[seat], int) else None
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
    try:
        state = _play(record, config, seat, agent, answered,
                      None if own is None else own.get("at_choice"))
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


def _forfeit_failure(view: Mapping[str, Any], own: Mapping[str, Any]) -> dict[str, Any]:
    """The seat's failure that forfeited it (its last of the forfeit's type): its type,
    detail and decision (the id of the ``act`` over the match, as ``arena game`` shows it)."""
    failures = (view.get("referee") or {}).get("failures") or []
    reason = own.get("reason")
    failure: Mapping[str, Any] = next(
        (f for f in reversed(failures) if f.get("type") == reason), {})
    return {"type": reason, "detail": failure.get("detail") or "",
            "decision": failure.get("decision")}


def _play(record: Mapping[str, Any], config: GameConfig, seat: int, agent: BotAgent,
          answered: list[int], forfeit_at: Any) -> State:
    """The game played with its recorded choices, the seat's asked of the bot as well; the
    seat's forfeit ends it (the bot was sent nothing more). Raises _Stop."""
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
            if decision.seat == seat:  # the decision it failed at: ask it again
                _ask(state, seat, agent, number + 1, None)
            return state
        if decision.seat == seat:
            _ask(state, seat, agent, number + 1, answered[number])
            number += 1
        state.apply(int(index))
    for _, other, reason in forfeits:
        state.forfeit(other, reason)
    return state


def _ask(state: State, seat: int, agent: BotAgent, number: int, recorded: int | None) -> None:
    """Ask the bot the state's decision; raise _Stop unless it answers ``recorded``."""
    decision = state.decision
    assert decision is not None
    asked = RerunDecision(number, state.round, decision.kind,
                          [dict(o) for o in decision.options], recorded)
    try:
        agent.choose(decision, state.observe(seat))
    except _BOT_ERRORS as exc:
        raise _Stop(asked, exc) from None
    answered = replace(asked, answer=agent.last_answer)
    if recorded is None or answered.legal_answer != recorded:
        raise _Stop(answered)
