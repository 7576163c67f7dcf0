"""A league: a tournament that never ends. Tables are chosen one deal at a time by
:mod:`~arena.tournament.matchmaking`, and bots submitted while it runs enter it.

The loop, between two tables:

1. **Poll** the registry (:func:`arena.registry.resolve`, the spec's patterns matched again):
   a bot version the league has not seen is vetted (the compliance check of
   :func:`arena.referee.check.check_bot`, then a trial start as ``arena run`` gives every
   entry) on a thread of its own (:mod:`~arena.tournament.league_vetting`): beside the
   tables on a CPU no worker is pinned to, else between two tables, the league waiting; it
   enters at the first poll after its vet ended; the version it replaces (same name) plays
   on until then, and then retires from matchmaking, keeping its games and ratings. A
   version that fails is refused with the reason (``arena status`` lists it) and not tried
   again.
2. **Stop** when told (``arena league stop NAME`` leaves a stop file beside the lock), when
   the budget of games or minutes is spent, or on Ctrl-C (the runner's).
3. **Choose** the next table from the ratings of every game played (TrueSkill, in game
   order) and the active entrants in the order they entered; seat it (without duplicate,
   from the seats its bots took at earlier tables, as a Swiss round seats); store it (its
   duplicate seatings as tables of one deal, round = the table's number) before it is
   played, so a killed league resumes by playing the stored table, never choosing again.

Everything the choice reads is in the store (games, entries with the table they entered at)
or in the spec (seed), so a league replays its choices from its seed and its stored entries
(the table each one entered at is stored, since when a vet ends depends on the clock). The
tables are chosen ``tables_at_once`` at a time (1 by default) from the same ratings, and
played in parallel; the next batch waits for the last one's games.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import trueskill

from arena.common.lookalike import look_alike, spelled
from arena.common.names import name_problem
from arena.errors import ArenaError, BotError
from arena.referee.check import check_bot
from arena.referee.match import split_limits
from arena.referee.seating import seat_orders, seating_mode
from arena.registry import BotSpec, files_unchanged
from arena.registry.environments import environment_changed
from arena.tournament.editions import stored_bot
from arena.tournament.entries import distinct_entrants, resolve_entry
from arena.tournament.league_spec import expand_patterns
from arena.tournament.league_store import (
    ENTRIES,
    league_entries,
    set_vetting,
    stop_path,
    vetting,
    vetting_gave_way,
)
from arena.tournament.league_vetting import VetQueue, VetScope, Vetted, Vetter
from arena.tournament.matchmaking import FieldState, Rating, next_table
from arena.tournament.opening import earlier_look_alike, earlier_names, earlier_twin
from arena.tournament.preflight import trial_starts
from arena.tournament.schedule import derive_seed, match_seed
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import (
    Store,
    TableRow,
    TournamentRow,
    stored_bot_id,
    stored_metadata,
)
from arena.tournament.swiss import seat_table, seat_uses

__all__ = ["League", "Vetter", "vet"]

#: How long a league with too few active bots to fill a table, waiting for a vet, goes
#: between two looks at its stop file.
_STOP_CHECK_S = 0.5

def _clash(bot: BotSpec, twin: BotSpec) -> str:
    """Why ``bot`` is left out for ``twin``, which keeps the name."""
    if bot.name == twin.name:
        return (f"the name {bot.name} is taken by {twin.key} (another entry of the spec); "
                "enter it under another name")
    return (f"the name {spelled(bot.name)} looks like {spelled(twin.name)}, the name of "
            f"{twin.key} (the same letters to the eye, or but for case); submit it under "
            "another name")


def vet(bot: BotSpec, scope: VetScope, limits: dict[str, int | bool]) -> str | None:
    """Why ``bot`` may not enter (the compliance check under the league's limits, then a
    trial start), or None; its bots are launched through ``scope``, which may cancel it."""
    launcher = scope.launch
    # the reason is stored and shown to others: no word of what lies beside a bot's file
    report = check_bot(bot, limits=split_limits(limits)[0], launcher=launcher,
                       look_beside=False)
    if not report.ok:
        return "failed the compliance check: " + "; ".join(report.failures())
    trial = trial_starts([bot], {k: v for k, v in limits.items() if not isinstance(v, bool)},
                         parallel=1, launcher=launcher)[0]
    return None if trial.failure is None else f"does not start: {trial.failure}"


@dataclass
class League:
    """One run of a league (see the module). ``play`` plays stored tables (the runner's);
    ``by_id`` is the runner's map of bot ids to bots, which entries are added to."""

    spec: TournamentSpec
    store: Store
    row: TournamentRow
    play: Callable[[Sequence[TableRow]], None]
    by_id: dict[int, BotSpec]
    vetter: Vetter | None = None
    warn: Callable[[str], None] = lambda text: None
    #: CPUs no table's bots use, where a new version is vetted while the tables go on;
    #: None: it is vetted between tables (the league waits), so its bot never takes the
    #: CPU of a table's bots
    vet_cpus: frozenset[int] | None = None
    started: float = field(default_factory=time.monotonic)
    _ratings: dict[int, trueskill.Rating] = field(default_factory=dict)
    _rated: int = 0
    _vets: VetQueue | None = None

    # -------------------------------------------------------------- entries
    def _current(self) -> tuple[list[BotSpec], list[tuple[BotSpec, str]]]:
        """The bots the spec's entries name now (patterns matched again), and those left out
        for a name another of them has or looks like, with the reason; an entry that no
        longer resolves is left out silently (it retires only when a new version comes)."""
        base = self.spec.source.parent if self.spec.source is not None else None
        found: list[BotSpec] = []
        for entry in expand_patterns(self.spec.bots):
            try:
                found.append(resolve_entry(entry, base))
            except ArenaError:
                continue
        # The names playing now come first: a newcomer whose name looks like an entrant's
        # (sorted before it: 'First' < 'first') must not displace it.
        entries = league_entries(self.store, self.row.id)
        playing = {e.key.rpartition("@")[0] for e in entries if e.state == "active"}
        found.sort(key=lambda bot: bot.name not in playing)
        entrants = distinct_entrants([("bots", found)])[0]
        kept = {bot.key for bot in entrants}
        dropped = []
        for bot in found:
            twin = next((b for b in entrants if bot.key not in kept
                         and look_alike(b.name, bot.name)), None)
            if twin is not None:  # else kept, or the same bot listed twice
                dropped.append((bot, _clash(bot, twin)))
        return self._without_earlier_twins(entrants, dropped, {e.key for e in entries})

    def _without_earlier_twins(self, entrants: list[BotSpec],
                               dropped: list[tuple[BotSpec, str]], entered: set[str]
                               ) -> tuple[list[BotSpec], list[tuple[BotSpec, str]]]:
        """The newcomers (not in ``entered``) whose name breaks the rule of names
        (:mod:`arena.common.names`), or passes for a bot's of the database or that one passes
        for, moved to ``dropped``, as ``arena run`` refuses them."""
        earlier = earlier_names(self.store)
        kept = []
        for bot in entrants:
            problem = (None if bot.key in entered
                       else name_problem(bot.name)
                       or earlier_twin(bot.name, earlier, self.store.path))
            if problem is None:
                kept.append(bot)
            else:
                dropped.append((bot, f"{problem}; submit it under another name"))
        return kept, dropped

    def poll(self, number: int, *, enter: bool = True) -> None:
        """Enter the versions not seen yet whose vet ended (their vets started, aside, at an
        earlier poll), retiring the ones they replace, and refuse (once, with the reason)
        those whose name another has or looks like; ``enter`` False only maps the active
        entries to their bots."""
        seen = {e.key: e for e in league_entries(self.store, self.row.id)}
        current, dropped = self._current()
        told = set(seen)
        for bot, reason in dropped if enter else ():
            if bot.key not in told:
                told.add(bot.key)
                self._enter(bot, number, reason)
                self.warn(f"{bot.key} is refused: {reason}")
        newcomers = []
        for bot in current:
            if bot.key in seen:
                entry = seen[bot.key]
                if entry.bot_id is not None and entry.state == "active":
                    self.by_id.setdefault(entry.bot_id, bot)
            elif enter:
                newcomers.append(bot)
        if enter:
            self._enter_vetted(newcomers, number)
        self._retire_gone(number)

    def _enter_vetted(self, newcomers: list[BotSpec], number: int) -> None:
        """Enter (or refuse) the ``newcomers`` whose vet ended, in their order, and have the
        others vetted: a version enters at the first poll after its vet ended, never at the
        one that saw it first, and the version it replaces plays on meanwhile."""
        if self._vets is None:
            vetter = self.vetter or (lambda b, scope: vet(b, scope, self.spec.limits))
            self._vets = VetQueue(vetter, self.vet_cpus)
        ended = self._vets.ended()
        for bot in newcomers:
            if bot.key not in ended:
                continue
            refusal = ended[bot.key].refusal
            alike = earlier_look_alike(bot.name, earlier_names(self.store), self.store.path)
            self._enter(bot, number, refusal)
            if refusal is not None:  # told as it happens, not only by arena status
                self.warn(f"{bot.key} is refused: {refusal}")
            elif alike is not None:
                self.warn(f"{bot.key} enters: {alike}")
        since = vetting(self.store, self.row.id)  # the line, stored in its order
        place = {key: i for i, key in enumerate(since)}
        # In the order first seen (the polls between two tables share the table's number): a
        # bot's new version goes to the back of the line and its older one waiting there
        # gives way to it (the names resolve to the newest only), so a bot submitting again
        # and again never keeps another bot's version waiting.
        waiting = sorted((bot for bot in newcomers if bot.key not in ended),
                         key=lambda bot: place.get(bot.key, len(place)))
        self._vets.want(waiting)
        set_vetting(self.store, self.row.id, {b.key: since.get(b.key, number) for b in waiting},
                    self._gave_way(waiting, since, ended))

    def _gave_way(self, waiting: list[BotSpec], since: dict[str, int],
                  ended: dict[str, Vetted]) -> dict[str, list[str]]:
        """The older versions each waiting version replaced in the line before their vet
        ended (never vetted, never entered), for arena status."""
        before = vetting_gave_way(self.store, self.row.id)
        wanted = {bot.key for bot in waiting}
        gone = [key for key in since if key not in wanted and key not in ended]
        return {bot.key: before.get(bot.key) or [
            old for key in gone if key.rpartition("@")[0] == bot.name
            for old in [*before.get(key, []), key]] for bot in waiting}

    def _retire_gone(self, number: int) -> None:
        """Retire the active versions whose files changed or went away, with no kept copy
        (``name@version``) to play instead, and those whose environment was built again with
        other packages: no other code plays under a version's name."""
        for entry in league_entries(self.store, self.row.id):
            if entry.state != "active" or entry.bot_id is None:
                continue
            bot = self.by_id.get(entry.bot_id)
            repackaged = bot is not None and environment_changed(bot) is not None
            if bot is not None and files_unchanged(bot) and not repackaged:
                continue
            if not repackaged:  # (a kept copy would run in the same environment)
                try:
                    self.by_id[entry.bot_id] = stored_bot(self.store, entry.bot_id)
                    continue
                except ArenaError:
                    pass
            reason = (f"its environment was built again with other packages by table {number}"
                      if repackaged else f"its files changed or went away by table {number} "
                      "(no kept copy of this version)")
            with self.store.transaction() as conn:
                conn.execute("UPDATE league_entries SET state = 'retired', reason = ? WHERE "
                             "tournament_id = ? AND seq = ?", (reason, self.row.id, entry.seq))
            self.by_id.pop(entry.bot_id, None)
            self.warn(f"{entry.key} leaves the league: {reason}")

    def _finish(self) -> None:
        """Play what a killed run left of its last tables. A version whose files changed
        since (its directory edited in place, no kept copy) cannot finish its table: its
        recorded games stay, the rest is left unplayed, and the league goes on."""
        try:
            self.play(self.store.tables(self.row.id))  # only the games missing are played
        except BotError as exc:
            self.warn(f"a table is left unfinished: {str(exc).split('; run with')[0]}")

    def _enter(self, bot: BotSpec, number: int, refusal: str | None) -> None:
        """Record ``bot`` as refused, or as entered (its older versions retired), in one
        transaction."""
        tid = self.row.id
        with self.store.transaction() as conn:
            conn.execute(ENTRIES)
            seq = conn.execute("SELECT COUNT(*) FROM league_entries WHERE tournament_id = ?",
                               (tid,)).fetchone()[0]
            bot_id = None
            if refusal is None:
                bot_id = stored_bot_id(conn, bot.name, bot.version, str(bot.path),
                                       stored_metadata(bot.metadata, bot.options))
                if conn.execute("SELECT 1 FROM tournament_bots WHERE tournament_id = ? AND "
                                "bot_id = ?", (tid, bot_id)).fetchone() is None:
                    index = conn.execute("SELECT COALESCE(MAX(entry_index) + 1, 0) FROM "
                                         "tournament_bots WHERE tournament_id = ?",
                                         (tid,)).fetchone()[0]
                    conn.execute("INSERT INTO tournament_bots (tournament_id, bot_id, "
                                 "entry_index) VALUES (?, ?, ?)", (tid, bot_id, index))
                # by its exact name: LIKE ignores case, and 'First' retired 'first'
                conn.execute("UPDATE league_entries SET state = 'retired' WHERE tournament_id "
                             "= ? AND state = 'active' AND substr(bot_key, 1, ?) = ?",
                             (tid, len(bot.name) + 1, f"{bot.name}@"))
            conn.execute("INSERT INTO league_entries (tournament_id, seq, bot_key, bot_id, "
                         "state, reason, at_table) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (tid, seq, bot.key, bot_id, "refused" if refusal else "active",
                          refusal or "", number))
        if bot_id is not None:
            self.by_id[bot_id] = bot

    # -------------------------------------------------------------- ratings and choice
    def _state(self) -> FieldState:
        """The active entrants (in entry order), with ratings of every game so far."""
        params = self.spec.rating.resolved()
        env = trueskill.TrueSkill(**params)
        games = self.store.games(self.row.id)
        for game in games[self._rated:]:
            seats = list(game.seats)
            if len(set(seats)) < len(seats) or len(game.forfeits) == len(seats):
                continue
            rated = env.rate([(self._ratings.get(b, env.create_rating()),) for b in seats],
                             ranks=[p - 1 for p in game.placements])
            for bot, (rating,) in zip(seats, rated, strict=True):
                self._ratings[bot] = rating
        self._rated = len(games)
        active = [e.bot_id for e in league_entries(self.store, self.row.id)
                  if e.state == "active" and e.bot_id is not None]
        fresh = env.create_rating()
        state = FieldState(active=active, beta=params["beta"], ratings={
            b: Rating(float(r.mu), float(r.sigma))
            for b, r in ((b, self._ratings.get(b, fresh)) for b in active)})
        for table in self.store.tables(self.row.id):
            if table.table_index == 0:
                state.add_table(table.seats)
        return state

    def choose(self, first: int) -> list[TableRow]:
        """Tables ``first`` .. ``first + tables_at_once - 1``: each one's entrants by
        :func:`next_table` from the same ratings, the tables chosen before it counted as
        played and their entrants left out while enough others remain; each table's
        seatings as tables of one deal (the table sizes taken in turn when the spec lists
        several)."""
        sizes = self.spec.table_sizes
        state = self._state()
        history = [t.seats for t in self.store.tables(self.row.id)]
        seated: set[int] = set()
        rows: list[TableRow] = []
        for number in range(first, first + self.spec.tables_at_once):
            k = sizes[(number - 1) % len(sizes)]
            free = [b for b in state.active if b not in seated]
            view = replace(state, active=free) if len(free) >= k else state
            group = next_table(view, k, self.row.seed, number)
            state.add_table(group)
            seated.update(group)
            seed = match_seed(self.row.seed, number, 0)
            seatings = seat_orders(self._seat(group, history, number), self.spec.duplicate)
            history += seatings
            rows += [TableRow(round=number, table_index=i, seats=seats, seed=seed, deal=0,
                              games=self.spec.games_per_match)
                     for i, seats in enumerate(seatings)]
        return rows

    def _seat(self, group: tuple[int, ...], history: Sequence[tuple[int, ...]],
              number: int) -> tuple[int, ...]:
        """Table ``number``'s bots in seat order. Without duplicate, the seats the bots took
        at the league's earlier tables (``history``) are balanced as a Swiss round balances
        them, those at the tables of these same bots first (a pair meets many times: at 2
        players each pair's seat orders stay within one of even), ties by a lot from the
        seed and the table's number. In duplicate mode the order chosen: every seating is
        played."""
        if seating_mode(self.spec.duplicate) != "none":
            return group
        members = set(group)
        among = seat_uses(seats for seats in history if set(seats) == members)
        lot = random.Random(f"league-seats:{derive_seed(self.row.seed, 'seats', number)}")
        return seat_table(group, seat_uses(history), {b: i for i, b in enumerate(group)}, lot,
                          among=among)

    # -------------------------------------------------------------- the loop
    def _spent(self) -> bool:
        budget = self.spec.budget
        if budget is None:
            return False
        if budget.games is not None and self.store.count_games(self.row.id) >= budget.games:
            return True
        return (budget.minutes is not None
                and time.monotonic() - self.started >= budget.minutes * 60)

    def run(self) -> str:
        """Play until stopped or the budget is spent; the state to store (``stopped`` or
        ``finished``)."""
        stop = stop_path(self.store.path, self.row.name)
        stop.unlink(missing_ok=True)  # a request left by a league no longer running
        number = max((t.round for t in self.store.tables(self.row.id)), default=0)
        if not league_entries(self.store, self.row.id):
            for bot in self._current()[0]:  # the first field: the run's trial start vetted it
                self._enter(bot, 1, None)
        self.poll(number + 1, enter=False)  # the bots of the active entries, as they are now
        if number:
            self._finish()
        set_vetting(self.store, self.row.id, {})  # what a killed run was vetting
        try:
            return self._loop(stop, number)
        finally:
            if self._vets is not None:  # a stop does not wait for a vet: the next run redoes it
                self._vets.close()
                self._forget_vetting()

    def _forget_vetting(self) -> None:
        """Store that nothing is being vetted any more, as the run ends (told nothing when the
        store fails: the error ending the run says it, and the next run clears the rows)."""
        try:
            set_vetting(self.store, self.row.id, {})
        except (ArenaError, sqlite3.Error):
            pass

    def _loop(self, stop: Path, number: int) -> str:
        """The loop of :meth:`run`, from table ``number`` played."""
        while True:
            self.poll(number + 1)
            if stop.exists():
                stop.unlink(missing_ok=True)
                return "stopped"
            if self._spent():
                return "finished"
            if self.vet_cpus is None and self._vets is not None and self._vets.busy():
                self._vets.wait(_STOP_CHECK_S)  # vetted between tables: no table meanwhile
                continue
            active = sum(1 for e in league_entries(self.store, self.row.id)
                         if e.state == "active")
            if active < max(self.spec.table_sizes):
                if self._vets is not None and self._vets.busy():
                    # a version being vetted may fill the table: nothing to play meanwhile
                    self._vets.wait(_STOP_CHECK_S)
                    continue
                raise ArenaError(f"league '{self.row.name}': {active} active bot(s) cannot "
                                 f"fill tables of {max(self.spec.table_sizes)}")
            first = number + 1
            rows = self.choose(first)
            self.store.add_tables(self.row.id, rows)  # in one transaction: a whole batch
            number = rows[-1].round
            self.play([t for r in range(first, number + 1)
                       for t in self.store.tables(self.row.id, r)])
