"""A match's games, played one after another among seats already made: :class:`BotClient`
processes and in-process :class:`LocalSeat` players.

:func:`run_games` is shared by :func:`arena.referee.match.play_match`, which makes the seats
from a request, and the compliance check (:mod:`arena.referee.check`), which seats a bot among
random players. Each game goes through the same steps: its configuration (seed, starting seat
by ruling 13 or a duplicate deal's boards), ``game_start`` to every bot
(:func:`_begin_game`), the decisions (:func:`drive_game`), ``game_end`` and the bots' logs
(:func:`_end_game`), and the :class:`~arena.referee.outcome.GameOutcome` the tournament stores
(:func:`_outcome`).

What travels to a bot, and why it stays small: each engine event visible to the bot's seat is
sent once, as an ``event`` line, just before the bot's next ``act`` (one write per decision);
``act`` carries only the current observation (no event history), so a message's size does not
grow with the length of the game. The game seed is never sent.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping, Sequence
from time import perf_counter
from typing import Any

from arena.common.provenance import software
from arena.engine import Agent, Decision, GameConfig, State, new_game
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.errors import BotError, RulesError
from arena.protocol import messages
from arena.referee.boards import Boards
from arena.referee.client import BotClient
from arena.referee.copy_paths import author_paths
from arena.referee.failures import Failure
from arena.referee.outcome import GameOutcome
from arena.referee.relay import EventRelay
from arena.referee.seeds import (
    bot_seed,
    deal_seed,
    first_seat,
    first_seat_drawn,
    parse_date,
    played_for,
)

__all__ = ["LOG_PER_GAME", "LocalSeat", "Seat", "drive_game", "run_games", "sandbox_levels"]

#: Characters of a bot's log kept with each game's record (the tail: it holds the errors).
LOG_PER_GAME = 8192


class LocalSeat:
    """An in-process seat (the compliance check's opponents, a person at the table): no
    process, no protocol, no clock. ``watch`` is told, as they happen, the events the seat
    may see (its own feed only, as a bot in that seat is sent them); ``key`` names the seat
    in the record's ``referee.seats``; ``metadata`` its ``last_read_page`` and
    ``last_book_finished``, as a bot's ``ready`` gives them. ``struck`` is told ``(seat,
    failure type, decision)`` when a bot's answer earns a strike, before the safe
    default played for it (the decision is the bot's own: a watcher names only what its
    seat may see of it) (at Rock-Paper-Scissors, a throw drawn by lot, once the throws are
    shown): the type only, never the detail, which may quote the bot's log. ``waiting`` is
    told ``(bot, what, limit_ms)`` when a bot has kept the table waiting a while (a person
    is not left before a silent screen). ``gave_none``, asked after each of its choices, is
    true when the seat gave no answer (a person's clock ran out): the referee then plays for
    it as for a bot that struck, a lot at a throw (:func:`~arena.referee.seeds.played_for`).
    ``first_start`` is told, as the match's first game is dealt, whether its starting seat was
    drawn by lot (True) or is the most recent reader of a page (ruling 13)."""

    def __init__(self, agent: Agent, name: str, *, key: str = "",
                 watch: Callable[[list[dict[str, Any]]], None] | None = None,
                 metadata: Mapping[str, Any] | None = None,
                 struck: Callable[[int, str, Decision], None] | None = None,
                 waiting: Callable[[str, str, int], None] | None = None,
                 gave_none: Callable[[], bool] | None = None,
                 first_start: Callable[[bool], None] | None = None) -> None:
        self.agent = agent
        self.first_start = first_start
        self.gave_none = gave_none
        self.name = name
        self.key = key or f"local:{name}"
        self.watch = watch
        self.metadata = dict(metadata or {})
        self.struck = struck
        self.waiting = waiting


Seat = BotClient | LocalSeat


def sandbox_levels(clients: Sequence[Seat]) -> str:
    """The isolation levels the bots among ``clients`` ran under, comma-separated (a local
    seat runs in the referee's process, under none)."""
    levels = sorted({c.level for c in clients if isinstance(c, BotClient) and c.level})
    return ",".join(levels)


def drive_game(state: State, seats: Sequence[Seat], game_index: int,
               failures: list[Failure]) -> tuple[int, EventRelay]:
    """Drive one game to its end. Every :class:`BotClient` seat must have had
    :meth:`~BotClient.begin_game`. Returns the number of decisions and the game's event relay
    (what each seat has not been sent yet goes with ``game_end``); failures are appended
    (placed in the game and seat). A forfeited seat is played for from then on
    (:func:`~arena.referee.seeds.played_for`: option 0, a lot at a throw)."""
    relay = EventRelay(state)
    decisions = 0
    watchers = _Watchers(state, seats)
    watchers.tell()
    while (decision := state.decision) is not None:
        decisions += 1
        seat = decision.seat
        player = seats[seat]
        if seat in state.forfeits:
            choice = played_for(state)
        elif isinstance(player, BotClient):
            told = len(failures)
            choice = _ask_bot(state, player, decision, relay.take(seat), failures, game_index)
            watchers.strikes(seat, failures[told:], decision)
        else:
            choice = player.agent.choose(decision, state.observe(seat))
            if player.gave_none is not None and player.gave_none():
                choice = played_for(state)
        state.apply(choice)
        watchers.tell()
    watchers.tell_held()
    return decisions, relay


class _Watchers:
    """The local seats that watch the game, each told its new events after every step
    (copies: a watcher cannot change the game's record) and the bots' strikes. A strike at
    Rock-Paper-Scissors waits until the throws are shown, as the throw played for the bot (a
    lot) is: a seat yet to throw learns nothing of the others' throws before its own."""

    def __init__(self, state: State, seats: Sequence[Seat]) -> None:
        self.state = state
        self.seen = {seat: 0 for seat, player in enumerate(seats)
                     if isinstance(player, LocalSeat) and player.watch is not None}
        self.watch = {seat: player.watch for seat, player in enumerate(seats)
                      if isinstance(player, LocalSeat) and player.watch is not None}
        self.local = [player for player in seats if isinstance(player, LocalSeat)]
        #: Strikes at a throw not shown yet: (seat, failure type, the throw's decision).
        self.held: list[tuple[int, str, Decision]] = []

    def strikes(self, seat: int, failures: Sequence[Failure], decision: Decision) -> None:
        for failure in failures:
            if failure.is_strike and decision.kind == "rps":
                self.held.append((seat, failure.type, decision))
            elif failure.is_strike:
                self._struck(seat, failure.type, decision)

    def _struck(self, seat: int, failure: str, decision: Decision) -> None:
        for player in self.local:
            if player.struck is not None:
                player.struck(seat, failure, decision)

    def tell(self) -> None:
        thrown = False
        for seat, watch in self.watch.items():
            events = self.state.events_for(seat, self.seen[seat])
            if events:
                self.seen[seat] += len(events)
                thrown = thrown or any(event.get("type") == "rps" for event in events)
                watch(json.loads(json.dumps(events)))
        if thrown:
            self.tell_held()

    def tell_held(self) -> None:
        """The strikes held back (the throws are shown, or the game is over)."""
        held, self.held = self.held, []
        for seat, failure, decision in held:
            self._struck(seat, failure, decision)


def _ask_bot(state: State, player: BotClient, decision: Decision, events: bytes,
             failures: list[Failure], game_index: int) -> int:
    """Ask a bot one decision (after ``events``, the events it has not been sent); the
    choice to apply: the bot's, or where its answer cannot be used (a strike, a forfeit) the
    referee's (:func:`~arena.referee.seeds.played_for`). Its failures are appended, and its
    seat forfeited if it must be."""
    seat = decision.seat
    result = player.act(decision.kind, state.observe_json(seat), decision.options,
                        decision.context, events)
    key = player.diagnostics.key
    if player.pending:  # it died before its first answer and was restarted
        failures += [f.at(seat=seat, bot=key, round=state.round, kind=decision.kind,
                          game=game_index) for f in player.pending]
        player.pending.clear()
    if result.failure is not None:
        failures.append(result.failure.at(seat=seat, bot=key, round=state.round,
                                          kind=decision.kind, game=game_index))
    if result.forfeit:
        state.forfeit(seat, player.forfeited or "forfeit")
    if result.failure is not None or result.forfeit:
        return played_for(state)
    return result.choice


def _start_all(clients: Sequence[BotClient]) -> dict[int, Failure | None]:
    """Launch every stopped bot before waiting for any ``ready``: start-ups overlap."""
    fresh = [c for c in clients if not c.alive]
    launched = [c.launch() for c in fresh]
    return {id(c): f if f is not None else c.handshake()
            for c, f in zip(fresh, launched, strict=True)}


def _refuse_unstarted(clients: Sequence[BotClient],
                      failures: Mapping[int, Failure | None]) -> None:
    """A person at the table is not made to play a game against a bot that never started:
    the match ends before it begins, saying why (its paths under the bot's own directory:
    the person may be its author, and opens the file there)."""
    for client in clients:
        failure = failures.get(id(client))
        if failure is not None:
            raise BotError(f"{client.name} did not start: "
                           f"{author_paths(failure.detail, client.workdir)}")


def run_games(players: Sequence[Seat], *, games: int, seed: int, match_id: str,
              event_date: dt.date, keys: Sequence[str], first_game: int = 0,
              on_game: Callable[[GameOutcome], None] | None = None,
              close_at_end: bool = False,
              stop: Callable[[list[GameOutcome]], bool] | None = None,
              seatings: Sequence[tuple[int, ...]] = (),
              rules: HouseRules = DEFAULT_RULES,
              keep: Callable[[BotClient], bool] | None = None,
              deal_seeds: Sequence[int] = (),
              players_by_seating: Sequence[Sequence[Seat]] = (),
              only_seating: int | None = None,
              boards: Boards | None = None) -> list[GameOutcome]:
    """Play ``games`` games between ``players`` (bot clients constructed, started or not);
    shared by :func:`~arena.referee.match.play_match` and the compliance check.

    Game numbers start at ``first_game``; the first of them picks its starting seat by
    ruling 13. ``deal_seeds`` fix the deals' seeds in order (a deal book), past their end
    derived. ``seatings`` (default: player *i* in seat *i*) are the seat orders each deal is
    played in, one game each. ``players_by_seating`` gives each seating players of its own
    (``players`` is then its first); by default ``players`` play every seating.
    ``only_seating`` plays that seating's games alone (the others are played elsewhere;
    ``boards`` then relates the starting seats).

    With ``close_at_end`` the bots are sent ``bye`` and ended before the last game is handed
    out, so what they log while ending that game is in its record; ``keep``, asked at the end
    of the last game, spares a bot that (kept for a later match). ``stop``, asked after each
    game with the games so far, ends the match early (a sequential test that has decided);
    in duplicate only once a deal has been played in every seating."""
    orders = list(seatings) or [tuple(range(len(players)))]
    crews = list(players_by_seating) or [players] * len(orders)
    clients = list({id(s): s for crew in crews for s in crew
                    if isinstance(s, BotClient)}.values())
    # a seating with players of its own ends with the deal: each crew closes at its last game
    closing_from = first_game + games - (len(orders) if players_by_seating else 1)
    outcomes: list[GameOutcome] = []
    boards = boards or Boards()
    if only_seating and boards.told is None:  # it would start every board at seat 0
        raise RulesError("a replay seating played alone must be told its boards' starts")
    start_failures = _start_all(clients)
    if any(isinstance(s, LocalSeat) for crew in crews for s in crew):
        _refuse_unstarted(clients, start_failures)
    for g in range(first_game, first_game + games):
        began = perf_counter()
        deal, seating = divmod(g, len(orders))
        if only_seating is not None and seating != only_seating:
            continue
        order = orders[seating]
        seats = [crews[seating][i] for i in order]
        state = _deal(seats, deal_seed(seed, deal, deal_seeds), boards, deal, seating,
                      match_seed=seed, event_date=event_date, rules=rules)
        #: what each bot is sent as game_start.bot_seed (kept in the record: its random
        #: choices replay)
        bot_seeds = [bot_seed(seed, g, seat) if isinstance(player, BotClient) else None
                     for seat, player in enumerate(seats)]
        #: the id each bot's first act of the game carries (kept: a rerun of the game hands
        #: the bot the ids it was asked with, docs/RECORDS.md)
        first_acts = [player.next_act_id if isinstance(player, BotClient) else None
                      for player in seats]
        failures = _begin_game(state, seats, g, bot_seeds, start_failures)
        decisions, relay = drive_game(state, seats, g, failures)
        last = close_at_end and g >= closing_from
        logs, latency, closing_s = _end_game(state, seats, g, relay, close=last, keep=keep)
        outcome = _outcome(state, seats, g, failures, decisions,
                           began=began + closing_s, logs=logs, latency=latency,
                           match_id=match_id,
                           keys=[keys[i] for i in order], bot_seeds=bot_seeds,
                           first_acts=first_acts, entrants=list(order) if len(orders) > 1 else [])
        outcomes.append(outcome)
        if on_game is not None:
            on_game(outcome)
        boards.ended(seating, state.result)
        if stop is not None and seating == len(orders) - 1 and stop(outcomes):
            break
    return outcomes


def _deal(seats: Sequence[Seat], game_seed: int, boards: Boards, deal: int, seating: int, *,
          match_seed: int, event_date: dt.date, rules: HouseRules) -> State:
    """``seating``'s game of ``deal``: a new game of ``seats`` dealt from ``game_seed``, its
    starting seat as ``boards`` relate it (the match's first by ruling 13); each bot notes the
    deal (a kept process is never dealt it again)."""
    metadata = [s.metadata for s in seats]  # a local seat's too (arena play's dates)

    def first() -> int:  # the match's first game: a local seat is told how it was decided
        drawn = first_seat_drawn(metadata, event_date)
        for seat in seats:
            if isinstance(seat, LocalSeat) and seat.first_start is not None:
                seat.first_start(drawn)
        return first_seat(metadata, match_seed, event_date)

    starting = boards.starting_seat(deal, seating, game_seed, first)
    config = GameConfig(
        players=tuple(s.name for s in seats), seed=game_seed, starting_seat=starting,
        last_book_finished=tuple(parse_date(m.get("last_book_finished")) for m in metadata),
        event_date=event_date, rules=rules)
    state = new_game(config)
    for player in seats:
        if isinstance(player, BotClient):
            player.deals.add(game_seed)
    return state


def _begin_game(state: State, seats: Sequence[Seat], game: int,
                bot_seeds: Sequence[int | None],
                start_failures: dict[int, Failure | None]) -> list[Failure]:
    """Send every bot its ``game_start`` (starting it again if it is down); the failures of
    the bots that cannot play, whose seats are forfeited. ``start_failures`` holds what the
    match's first start-up of each bot gave, used (and removed) at its first game."""
    failures: list[Failure] = []
    names = [s.name for s in seats]
    for seat, player in enumerate(seats):
        if not isinstance(player, BotClient):
            continue
        key = player.diagnostics.key
        early = start_failures.pop(id(player), None)
        rules = state.config.rules
        extra = {} if rules.is_default else {"rules": rules.to_json()}
        start = messages.game_start(game, seat, names, state.config.starting_seat,
                                    state.rounds, bot_seed=bot_seeds[seat], **extra)
        if early is None:
            early = player.begin_game(start)
        else:  # its first start failed just now: no second wait in the same breath
            player.begin_game(start, restart=False)
        for pending in player.pending:
            failures.append(pending.at(seat=seat, bot=key, game=game))
        player.pending.clear()
        if early is not None:
            failures.append(early.at(seat=seat, bot=key, game=game))
        if player.forfeited is not None:
            state.forfeit(seat, player.forfeited)
    return failures


def _end_game(state: State, seats: Sequence[Seat], game: int, relay: EventRelay, *,
              close: bool, keep: Callable[[BotClient], bool] | None = None,
              ) -> tuple[dict[str, str], list[dict[str, Any]], float]:
    """Send every bot the events it has not seen and its ``game_end`` (with ``close``, then
    ``bye``, unless ``keep`` keeps it); returns each seat's log of the game, its latency
    figures and the seconds the bots took to close (the match's time, not the game's)."""
    result = state.result
    assert result is not None
    logs: dict[str, str] = {}
    latency: list[dict[str, Any]] = []
    closing_s = 0.0
    for seat, player in enumerate(seats):
        if not isinstance(player, BotClient):
            latency.append({})
            continue
        # The log is cut before game_end goes out, so the cut does not race the bot: what it
        # logs while ending a game opens the next game's log. The last game (with close)
        # keeps it: the bot has exited when its log is taken.
        closing = close and not (keep is not None and keep(player))
        log = "" if closing else player.log_since_last()
        # each its own: an Ascension shows no hand but the ascender's (RULES.md E31)
        end = messages.game_end(game, result.placements, result.desmos_seen_by(seat),
                                result.ascension, result.tiebreak, result.forfeits,
                                result.standing_places)
        player.end_game(relay.take(seat) + end, game)
        if closing:
            closed_at = perf_counter()
            player.close()
            closing_s += perf_counter() - closed_at
            log = player.log_since_last()
        log = _kept_log(log, player.log_bytes)
        if log:
            logs[str(seat)] = log
        latency.append(player.game_latency())
    return logs, latency, closing_s


def _kept_log(log: str, written: int) -> str:
    """The end of a game's log, at most :data:`LOG_PER_GAME` characters (it holds the
    errors), saying how many bytes were dropped (of ``written``, the bytes the bot wrote)."""
    if len(log) <= LOG_PER_GAME:
        return log
    kept = log[-LOG_PER_GAME:]
    dropped = max(written - len(kept.encode()), len(log.encode()) - len(kept.encode()))
    return f"[... {dropped} bytes dropped]\n" + kept


def _outcome(state: State, seats: Sequence[Seat], game: int, failures: list[Failure],
             decisions: int, *, began: float, logs: dict[str, str],
             latency: list[dict[str, Any]], match_id: str, keys: list[str],
             bot_seeds: list[int | None], first_acts: list[int | None],
             entrants: list[int]) -> GameOutcome:
    """The finished game as the tournament stores it, the referee's part in its record;
    its duration counts from ``began`` (``time.perf_counter``)."""
    result = state.result
    assert result is not None
    level = sandbox_levels(seats)
    record = state.record()
    record["referee"] = {
        "match_id": match_id, "game_index": game, "seats": keys,
        "failures": [f.to_json() for f in failures], "logs": logs,
        "sandbox_level": level, "software": software(),
        "bot_seeds": bot_seeds, "first_act_ids": first_acts,
    }
    return GameOutcome(
        game_id=f"{match_id}/g{game}", game_index=game, seed=state.config.seed, seats=keys,
        names=[s.name for s in seats], starting_seat=state.config.starting_seat,
        placements=list(result.placements), desmos=list(result.desmos),
        ascension=result.ascension, tiebreak=result.tiebreak,
        failures=[{"seat": f.seat, "bot": f.bot, "type": f.type, "detail": f.detail}
                  for f in failures],
        forfeits=dict(result.forfeits), decisions=decisions,
        duration_s=perf_counter() - began,
        latency=latency, record=record, sandbox_level=level, entrants=entrants)
