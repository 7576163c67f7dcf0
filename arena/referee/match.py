"""A match: N games of the same 2-5 bots, each bot a persistent sandboxed process (in
duplicate, one for each seating).

``play_match(request, on_game=callback)`` is the referee's contract with the tournament layer
(docs/ARCHITECTURE.md, "Match results"): it streams one :class:`GameOutcome` per finished game
and returns a :class:`MatchOutcome` with per-bot diagnostics. This module makes the match's
seats from a :class:`MatchRequest` (a bot's kept process or a new one, the local seats among
them) and ends them; the games themselves are played by :mod:`arena.referee.games`, which
also says what travels to a bot.

Seats are fixed for the match (bot *i* sits in seat *i*). The first game's starting seat
follows ruling 13 from the bots' ``last_read_page`` metadata; later games start with the
previous game's loser. Game *g* is played with seed :func:`game_seed` (match seed, *g*).

In duplicate (``MatchRequest.duplicate``, :mod:`arena.referee.seating`) each deal is played
once per seat order, game after game, with seed (match seed, deal). The deal's first seating
(bot *i* in seat *i*) is the match above, by those rules; its other seatings replay it as
duplicate bridge replays a board: the same cards to the same seats and the same starting
seat, only the bots moved. The engine deals from the starting seat, so a replay that let its
own previous loser start would often hand each bot the very cards it had (RULES.md, ruling
13). Each seating is played by processes of its own, as a bridge board's other tables are
other players: a process that held one seat's cards of a deal would know them in another
seat's hand when the deal is replayed. So no bot process is ever dealt a deal twice, also
not a kept one (:class:`~arena.referee.keeper.BotKeeper` checks the deals it was dealt).
"""

from __future__ import annotations

import datetime as dt
import gc
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from time import perf_counter
from typing import Any

from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.errors import FilesChangedError, RulesError
from arena.referee.boards import Boards
from arena.referee.client import BotClient, BotDiagnostics, CpuTurn
from arena.referee.connection import Launcher
from arena.referee.games import LocalSeat, Seat, run_games, sandbox_levels
from arena.referee.keeper import BotKeeper
from arena.referee.launch import sandbox_launcher, sandbox_warnings
from arena.referee.outcome import GameOutcome, MatchOutcome
from arena.referee.seating import seat_orders, seating_mode, seatings_per_deal
from arena.referee.seeds import bot_seed, deal_seed, game_seed, parse_date, utc_today
from arena.registry import BotSpec, files_changed, files_unchanged, kept_copy, resolve
from arena.registry.environments import with_environment
from arena.sandbox import Limits

__all__ = [
    "GameOutcome",
    "LocalSeat",
    "MatchOutcome",
    "MatchRequest",
    "bot_seed",
    "game_seed",
    "PONDER",
    "parse_date",
    "play_match",
    "split_limits",
]

#: The setting among a match's limits (a tournament spec's ``limits``) that lets bots run
#: while not asked; off, each is stopped between its decisions (docs/SANDBOX.md).
PONDER = "ponder"


def split_limits(settings: Limits | Mapping[str, Any] | None) -> tuple[Limits, bool]:
    """The sandbox limits and the ``ponder`` setting of a match's limits."""
    if isinstance(settings, Limits):
        return settings, False
    rest = dict(settings or {})
    ponder = rest.pop(PONDER, False)
    if not isinstance(ponder, bool):
        raise RulesError(f"limits.{PONDER} must be true or false, got {ponder!r}")
    return Limits.from_mapping(rest), ponder


@dataclass
class MatchRequest:
    """What to play. ``bots`` are specs or references (registered names, ``.py`` paths, bot
    directories); ``limits`` a :class:`~arena.sandbox.Limits` or a mapping of overrides."""

    bots: Sequence[BotSpec | str | Path]
    games: int = 1
    seed: int = 0
    limits: Limits | Mapping[str, int] | None = None
    match_id: str = "match"
    event_date: dt.date | None = None
    #: Seat orders of each deal (:data:`~arena.referee.seating.SEATINGS`; True is
    #: ``rotations``): ``none`` keeps bot *i* in seat *i*; otherwise ``games`` must be a whole
    #: number of deals.
    duplicate: bool | str = "none"
    bots_dir: Path | None = None
    #: The games' house rules (RULES.md "House rules").
    rules: HouseRules = DEFAULT_RULES
    #: Starts bot processes; None = the sandbox. Tests pass a scripted one.
    launcher: Launcher | None = None
    #: Let the bots run while not asked (also ``ponder: true`` among ``limits``); by default
    #: each is stopped between its decisions.
    ponder: bool = False
    #: In-process seats by seat number (a person at the table); ``bots`` fill the other
    #: seats in order. The bots are sent the same messages whoever sits there.
    local: Mapping[int, LocalSeat] = field(default_factory=dict)
    #: Processes kept between the matches of one referee (a tournament worker's): the
    #: match begins in a kept process of a bot where there is one, and keeps each bot that
    #: ends it cleanly (:mod:`arena.referee.keeper`). None: every match starts its bots and
    #: ends them.
    keeper: BotKeeper | None = None
    #: Fixed deals (game seeds), one per deal of the match in order, as a deal book gives
    #: them; empty: each deal's seed derives from ``seed``.
    deal_seeds: tuple[int, ...] = ()
    #: In duplicate, play this seating's games only (the others are played elsewhere at the
    #: same time, :class:`~arena.referee.boards.Boards` relating the starting seats); None:
    #: every seating.
    seating: int | None = None
    #: Launch a bot's process (its first and every restart) only from files that are still
    #: the ones its version names (a tournament's games are its version's): a restart is
    #: checked before, and the sandbox's copy, what runs, is hashed too; else the match
    #: stops with a :class:`~arena.errors.FilesChangedError`. False: a launch runs whatever
    #: the files hold.
    same_files: bool = False
    #: With ``same_files``, a bot whose files ``arena submit --update`` replaced is launched
    #: (a restart too) from the copy the update kept of them, its version's very files, where
    #: there is one (a tournament's tables); False: the match stops as for any changed bot.
    kept_copies: bool = False
    #: Told of each launch that runs a bot from that kept copy (the bot, as entered).
    on_kept_copy: Callable[[BotSpec], None] | None = None
    #: Let the failures' hints say what lies beside a single-file bot's file on the host:
    #: for a match someone runs at their own terminal; False where the failures are stored
    #: or shown to others (a tournament's), where it would tell of files not the bot's.
    look_beside: bool = False

    def resolved(self) -> list[BotSpec]:
        specs = [with_environment(b if isinstance(b, BotSpec) else resolve(b, self.bots_dir))
                 for b in self.bots]
        seats = len(specs) + len(self.local)
        if not 2 <= seats <= 5:
            raise RulesError(f"a match needs 2 to 5 {'players' if self.local else 'bots'}, "
                             f"got {seats}")
        if any(not 0 <= seat < seats for seat in self.local):
            raise RulesError(f"a seat at a table of {seats} is one of 0-{seats - 1}")
        if self.games < 1:
            raise RulesError(f"a match needs at least one game, got {self.games}")
        try:
            per_deal = seatings_per_deal(len(specs), self.duplicate)
        except ValueError as exc:
            raise RulesError(str(exc)) from None
        if self.seating is not None and not 0 <= self.seating < per_deal:
            raise RulesError(f"seating {self.seating} of a deal played in {per_deal} seatings")
        if self.games % per_deal:
            raise RulesError(f"with duplicate {seating_mode(self.duplicate)} each deal is "
                             f"played in {per_deal} seatings: the games must be a multiple of "
                             f"{per_deal}, got {self.games}")
        return specs

    def seatings(self, bots: int) -> list[tuple[int, ...]]:
        """Who sits where in each game of a deal: ``order[seat]`` is a bot's index."""
        return seat_orders(tuple(range(bots)), self.duplicate)

    def deals(self, seatings: int) -> frozenset[int]:
        """The seeds of the match's deals (``seatings`` games each)."""
        return frozenset(deal_seed(self.seed, deal, self.deal_seeds)
                         for deal in range(-(-self.games // seatings)))

    def resolved_limits(self) -> Limits:
        return split_limits(self.limits)[0]

    def resolved_ponder(self) -> bool:
        return self.ponder or split_limits(self.limits)[1]




_heap_frozen = False


def _freeze_heap() -> None:
    """Once per process, before its first match: what is alive then (modules, the engine's
    tables, the command's own objects) stays for good, so it is left out of garbage
    collection, whose full passes during the games would otherwise walk it again and again."""
    global _heap_frozen
    if not _heap_frozen:
        _heap_frozen = True
        gc.freeze()


def play_match(request: MatchRequest,
               on_game: Callable[[GameOutcome], None] | None = None,
               stop: Callable[[list[GameOutcome]], bool] | None = None,
               boards: Boards | None = None) -> MatchOutcome:
    """Play a match through the sandbox; one bot's failure never stops the match or touches
    the other bots' games. Every bot process is ended (``bye``, grace, kill) before return.
    ``stop`` may end it before ``request.games`` (:func:`~arena.referee.games.run_games`);
    ``boards`` relates the starting seats of a duplicate deal's seatings played by several
    referees."""
    specs = request.resolved()
    limits = request.resolved_limits()
    event_date = request.event_date or utc_today()
    launcher = request.launcher
    warnings: list[str] = []
    if launcher is None:
        launcher = sandbox_launcher()
        warnings = sandbox_warnings()
    # each launch of a tournament's bot runs a copy checked against its version
    checked = request.launcher is None and request.same_files
    ponder, turn, keeper = request.resolved_ponder(), CpuTurn(), request.keeper
    _freeze_heap()
    began = perf_counter()
    seatings = request.seatings(len(specs) + len(request.local))
    deals = request.deals(len(seatings))
    # a bot's processes share its counters: the match reports the bot, not each process
    shared = [BotDiagnostics(spec.name, spec.key or spec.name) for spec in specs]
    clients: list[tuple[BotSpec, BotClient]] = []
    crews: list[list[Seat]] = []
    finished = False
    try:
        for seating, _ in enumerate(seatings):  # each its own processes: no deal dealt twice
            crew: list[Seat] = []
            if request.seating not in (None, seating):
                crews.append(crew)  # played elsewhere
                continue
            for spec, diagnostics in zip(specs, shared, strict=True):
                kept = (keeper.take(spec, limits, ponder, turn, avoid=deals)
                        if keeper is not None else None)
                client = kept or BotClient(
                    spec.command, spec.path, limits, name=spec.name, key=spec.key,
                    metadata=spec.metadata, options=spec.options, ponder=ponder, turn=turn,
                    launcher=(sandbox_launcher(bot=spec, kept_copies=request.kept_copies,
                                               on_kept_copy=request.on_kept_copy)
                              if checked else launcher), look_beside=request.look_beside)
                client.diagnostics = diagnostics
                client.on_wait = _wait_notice(request.local.values(), spec.name)
                client.before_restart = (partial(_check_files, spec, request.kept_copies)
                                         if request.same_files else None)
                clients.append((spec, client))
                crew.append(client)
            for seat in sorted(request.local):  # the bots fill the other seats, in order
                crew.insert(seat, request.local[seat])
            crews.append(crew)
        players = crews[request.seating or 0]
        keys = [p.key if isinstance(p, LocalSeat) else p.diagnostics.key for p in players]
        games = run_games(players, games=request.games, seed=request.seed,
                          match_id=request.match_id, event_date=event_date,
                          keys=keys, on_game=on_game, close_at_end=True,
                          stop=stop, seatings=seatings, rules=request.rules,
                          keep=keeper.keeps if keeper is not None else None,
                          deal_seeds=request.deal_seeds, players_by_seating=crews,
                          only_seating=request.seating, boards=boards)
        finished = True
    finally:
        for spec, client in clients:
            if finished and keeper is not None and keeper.keeps(client):
                keeper.keep(client, spec, ponder)
            else:
                client.close()
    return MatchOutcome(
        match_id=request.match_id, seats=keys, names=[p.name for p in players],
        games=games, bots=[{"seat": seat, **p.diagnostics.to_json()}
                           for seat, p in enumerate(players) if isinstance(p, BotClient)],
        sandbox_level=sandbox_levels([client for _, client in clients]),
        limits={**limits.to_json(), **({PONDER: True} if ponder else {})},
        duration_s=perf_counter() - began, warnings=warnings)


def _wait_notice(local: Iterable[LocalSeat], bot: str) -> Callable[[str, int], None] | None:
    """What a bot's client tells of a long wait: each local seat that listens, naming it."""
    told = [seat.waiting for seat in local if seat.waiting is not None]

    def notice(what: str, limit_ms: int) -> None:
        for tell in told:
            tell(bot, what, limit_ms)
    return notice if told else None


def _check_files(spec: BotSpec, kept_copies: bool) -> None:
    if not files_unchanged(spec) and not (kept_copies and kept_copy(spec) is not None):
        raise FilesChangedError(files_changed(spec, ", so it was not restarted"))
