"""Running a tournament: plan the tables, play them in worker processes, store every game.

Who does what:

* The parent process plans (schedules, Swiss pairings from stored results), dispatches whole
  tables to an executor and is the **only writer** of the store: each game arrives as a
  message and is committed in its own transaction as soon as it arrives.
* The executor plays tables: :class:`arena.tournament.pool.LocalPool` (the default) in
  ``spawn``-ed worker processes, one table at a time each, so the bots of a match stay alive
  for all its games. Another backend (Ray) implements :class:`~arena.tournament.pool.TableExecutor`
  around :func:`~arena.tournament.worker.play_table`.

Determinism: a table's games depend only on the table (its bots by seat, match seed, game
count, limits, event date), never on which worker plays it or when. Swiss round ``r`` is
paired only once every game of rounds ``< r`` is in the store, from the store. A table whose
games were partly recorded before an interruption is replayed *from its first game* (the
starting player of game ``g`` follows game ``g - 1``'s result and a bot may learn within a
match), and only its missing games are recorded; a replayed game that comes out differently
from its stored copy is reported (a non-deterministic bot) and the stored copy is kept.

Crash safety: ``kill -9`` of the parent loses only games in flight (the workers die with
it); a worker that dies has its table replayed on a fresh worker.

Reporting: the run prints nothing; it hands what happens (progress, warnings, an interruption)
as :mod:`arena.tournament.events` to the ``report`` callback, which the CLI presents.

This layer never imports :mod:`arena.rating` (it sits below): the CLI prints the leaderboard
after a run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.common.plural import counted
from arena.common.signalmask import signals_held
from arena.errors import ArenaError, ClusterError
from arena.registry import BotSpec
from arena.sandbox import SandboxReport, probe
from arena.tournament.editions import current_edition, held_versions, refuse_if_running
from arena.tournament.events import (
    DatabaseCreated,
    Report,
    RunStopped,
    RunWarning,
    TournamentDropped,
    ignore,
)
from arena.tournament.hint_commands import resume_command
from arena.tournament.league import League, Vetter
from arena.tournament.opening import open_tournament, refuse_new_entrants
from arena.tournament.planning import long_plan_warning, seating_warning, unmet_pairs_warning
from arena.tournament.pool import LocalPool, TableExecutor
from arena.tournament.preflight import run_trial, trial_entrants
from arena.tournament.run_state import RunState, planned_parallelism
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import Store, peek
from arena.tournament.tasks import KeptCopyMessage, add_bot_cpu

__all__ = [
    "RunSummary",
    "mismatch_lines",
    "resume_hint",
    "run_tournament",
]


def _executor(backend: str, workers: int, address: str | None,
              reuse_bots: bool = True, pin_workers: bool = False) -> TableExecutor:
    if backend == "local":
        try:  # the workers take this process's probe rather than each probing again
            sandbox: SandboxReport | None = probe()
        except (ArenaError, ValueError):
            sandbox = None  # each worker probes, and its first table says what is wrong
        return LocalPool(workers, reuse_bots=reuse_bots, sandbox=sandbox,
                         pin_workers=pin_workers)
    if backend == "ray":
        try:  # imported only here: Ray is an optional extra ('.[ray]'), heavy to import
            from arena.tournament.ray_executor import RayExecutor
        except ImportError as exc:
            raise ClusterError(f"the Ray backend is not available ({exc}); install it from the "
                               "checkout with pip install -e '.[ray]', or use --backend local"
                               ) from None
        return RayExecutor(workers=workers, address=address)
    raise ArenaError(f"unknown backend '{backend}' (choose local or ray)")


@dataclass
class RunSummary:
    """What a run did (the CLI prints it; tests and the bench read it)."""

    name: str
    db: Path
    games_planned: int
    games_before: int
    games_recorded: int
    elapsed_s: float
    state: str
    mismatches: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Bot processes the run's tables started (restarts included; not the trial start).
    bot_starts: int = 0
    #: CPU seconds the workers' referees spent themselves (not their bots), as they told.
    referee_cpu_s: float = 0.0
    #: CPU seconds of the bot processes (each one's whole sandbox), by ``name@version``, as
    #: the workers told when each process ended (a bot that never started is absent).
    bot_cpu_s: dict[str, float] = field(default_factory=dict)
    #: What is said of each bot that played on from the copy ``arena submit --update``
    #: kept of its files (its files replaced since it entered), as the run ended.
    kept_copies: list[str] = field(default_factory=list)
    #: A league: its ``games_planned`` is its budget (0: none), where a run stops, not an
    #: end its games count towards.
    league: bool = False

    @property
    def games_done(self) -> int:
        return self.games_before + self.games_recorded

    @property
    def games_per_s(self) -> float:
        return self.games_recorded / self.elapsed_s if self.elapsed_s > 0 else 0.0


#: Replayed games that came out differently, shown one by one before they are counted.
_MISMATCHES_SHOWN = 5


def mismatch_lines(mismatches: list[str], shown: int = _MISMATCHES_SHOWN) -> list[str]:
    """The warnings about replayed games that came out differently: the first ``shown``, then
    one line counting the rest by table (one non-deterministic bot can differ in every game
    of a long table)."""
    lines = mismatches[:shown]
    rest = mismatches[shown:]
    if rest:
        tables = list(dict.fromkeys(m.split()[1].rsplit("/", 1)[0] for m in mismatches))
        lines.append(f"... and {len(rest)} more replayed games came out differently, in "
                     f"{len(tables)} table(s): {', '.join(tables[:5])}"
                     + (", ..." if len(tables) > 5 else ""))
    return lines


def resume_hint(spec: TournamentSpec, db: Path) -> str:
    """The command resuming ``spec`` into ``db`` (``--db`` when not the spec's own)."""
    own = db.resolve() == Path(spec.results).resolve()
    return resume_command(str(spec.source) if spec.source is not None else None,
                          None if own else db, spec.overrides)


def _stored_state(db_path: Path, name: str) -> str | None:
    """The state of the stored tournament ``name``, None when there is none (or no database
    yet: it is created only once the trial start has passed)."""
    row = peek(db_path, lambda store: store.tournament(name))
    return None if row is None else row.state


def vet_cpus(executor: TableExecutor) -> frozenset[int] | None:
    """The CPUs a league may vet new versions on beside its tables: those no worker is
    pinned to; None where every CPU may run a table's bots (a vet there would take their
    CPU, against their clocks), so the league vets between its tables."""
    spare = executor.spare_cores() if isinstance(executor, LocalPool) else []
    return frozenset(spare) or None


def _pin_warnings(executor: TableExecutor, workers: int) -> list[str]:
    """What keeps ``pin_workers`` from giving each worker a CPU of its own, if anything."""
    if not isinstance(executor, LocalPool):
        return ["pin_workers: ignored on the Ray backend (Ray places the tables on its nodes)"]
    if not executor.cores:
        return ["pin_workers: this system cannot pin a process to a CPU; the workers run "
                "unpinned"]
    if workers > len(executor.cores):
        cpus = counted(len(executor.cores), "CPU")
        return [f"pin_workers: {counted(workers, 'worker')} on {cpus}: some workers share a CPU"]
    return []


def _pin_asked(spec: TournamentSpec, backend: str, pin_workers: bool | None) -> bool:
    """Whether pinning was asked of the backend the run plays on: by ``pin_workers`` (the
    command line's), or by the spec's where the spec names that backend itself. A spec written
    for the local pool and run with ``--backend ray`` asked nothing of Ray, so nothing is said."""
    if pin_workers is not None:
        return pin_workers
    return spec.pin_workers and (backend == "local" or spec.backend == backend)


def _sandbox_warnings() -> list[str]:
    """The sandbox's warnings, as this process's probe (the trial start) found them: said once
    in the run's header; the workers report them again, and the run reports each once."""
    return list(probe().warnings)


def _spec_played(db_path: Path, spec: TournamentSpec, *, fresh: bool, carry_on: bool,
                 new_edition: bool) -> tuple[TournamentSpec, list[BotSpec]]:
    """``spec`` as the run plays it, and its entrants played from the copy ``arena submit
    --update`` kept (a resumed run's entrant updated since the tournament began:
    :func:`~arena.tournament.editions.held_versions`); refused at once when another run
    holds the tournament, or when the stored tournament (or a new one) refuses it."""
    refuse_if_running(db_path, spec, new_edition)
    held: list[BotSpec] = []
    if not (fresh or carry_on or new_edition):
        spec, held = peek(db_path, lambda store: held_versions(store, spec)) or (spec, [])
    # before a database is made, and before the trial starts any bot
    refuse_new_entrants(db_path, spec, fresh, new_edition, carry_on)
    return spec, held


def _before_games(spec: TournamentSpec, executor: TableExecutor, db_path: Path,
                  stored: str | None, *, backend: str, trial: bool, pin: bool,
                  workers: int) -> list[str]:
    """Start the workers (or join Ray) and the trial start, unless the stored tournament (in
    state ``stored``) is finished; the warnings to say before the games."""
    if stored == "finished":
        return []
    # the workers start while the trial runs; a cluster that cannot be joined fails here,
    # before a tournament is stored that nothing could play
    executor.start(planned_parallelism(spec, len(spec.entrants)))
    early: list[str] = []
    if trial:
        resuming = stored is not None
        early = run_trial(spec, trial_entrants(spec, db_path, resuming), workers,
                          resuming=resuming)
        early += _sandbox_warnings()
    if pin:
        early += _pin_warnings(executor, workers)
    return early


def run_tournament(
    spec: TournamentSpec,
    workers: int | None = None,
    fresh: bool = False,
    *,
    db: str | Path | None = None,
    backend: str | None = None,
    address: str | None = None,
    trial: bool = True,
    reuse_bots: bool | None = None,
    pin_workers: bool | None = None,
    report: Report = ignore,
    carry_on: bool = False,
    new_edition: bool = False,
    vetter: Vetter | None = None,
    while_closing: Callable[[RunSummary], object] | None = None,
    insecure: bool = False,
) -> RunSummary:
    """Play (or resume) the tournament ``spec`` and record every game in the store.

    Where and how: ``workers`` overrides the spec's (default: every core); ``fresh`` drops a
    stored tournament of the same name first; ``db`` overrides the spec's ``results`` path.
    With ``reuse_bots`` (default: the spec's, on; the local backend), a worker keeps the
    processes of bots that offer a rematch from one table to the next
    (:mod:`arena.referee.keeper`; the games are the same either way). With ``pin_workers``
    (default: the spec's, off; the local backend), each worker and its bots run on one CPU of
    their own (:class:`~arena.tournament.pool.LocalPool`).

    Before the games: the entrants a new tournament refuses (their names) are refused before
    any bot starts or a database is made; with ``trial``, every entry is started once, before
    anything is stored (:func:`~arena.tournament.preflight.run_trial`). A spec whose entrants
    are new versions of the stored tournament's goes on with the versions that entered (from
    the copies ``arena submit --update`` kept), with the new ones when ``carry_on``
    (``--continue``), or starts a new edition with ``new_edition``
    (:mod:`~arena.tournament.editions`). A league (:mod:`~arena.tournament.league`) vets the
    bots that come while it runs with ``vetter`` (default: the compliance check and a trial
    start), which launches its bots through the vet's scope it is handed. A contest's table
    (the spec gives no seed) is refused by a Ray node whose bots would run without bubblewrap
    or Landlock, unless ``insecure`` (the CLI's ``--insecure``, which also lets the driver
    run it).

    While and after: what happens goes to ``report`` (:mod:`arena.tournament.events`). Once
    the games are played, ``while_closing`` gets the summary while the workers wind down (the
    CLI rates the games meanwhile); its ``elapsed_s`` is set after, once they have. Ctrl-C
    stops the workers (their bots are reaped), reports how to resume, and re-raises.
    """
    db_path = Path(db) if db is not None else Path(spec.results)
    n_workers = spec.effective_workers(workers)
    started = time.monotonic()
    spec, held = _spec_played(db_path, spec, fresh=fresh, carry_on=carry_on,
                              new_edition=new_edition)
    stored = None if fresh else _stored_state(db_path, spec.name)
    backend = backend or spec.backend
    pin = spec.pin_workers if pin_workers is None else pin_workers
    executor = _executor(backend, n_workers, address,
                         spec.reuse_bots if reuse_bots is None else reuse_bots, pin)
    try:
        early = _before_games(spec, executor, db_path, stored, backend=backend, trial=trial,
                              pin=_pin_asked(spec, backend, pin_workers), workers=n_workers)
        for text in early:
            report(RunWarning(text))
        is_new = not db_path.exists()
        with Store(db_path) as store:
            spec, edition = current_edition(store, spec, new_edition)
            with store.lock(spec.name):
                summary = _run_locked(spec, store, edition, is_new=is_new, fresh=fresh,
                                      carry_on=carry_on, vetter=vetter, executor=executor,
                                      early=early, report=report, started=started,
                                      insecure=insecure, held=held)
        executor.stop()  # the workers end their bots meanwhile
        if while_closing is not None:  # after the lock: the run shows as over
            while_closing(summary)
    except BaseException:
        executor.close(kill=True)
        raise
    executor.close()
    return _closed(summary, executor, started, report)


def _closed(summary: RunSummary, executor: TableExecutor, started: float,
            report: Report) -> RunSummary:
    """``summary`` once the workers have wound down: the CPU of the bots they ended last,
    the warnings they logged meanwhile and the replayed games that came out differently,
    reported, and the run's wall time."""
    add_bot_cpu(summary.bot_cpu_s, executor.bot_cpu_s)
    for text in executor.warnings:
        if text not in summary.warnings:  # once per run, as the run's others
            summary.warnings.append(text)
            report(RunWarning(text))
    summary.elapsed_s = time.monotonic() - started
    for line in mismatch_lines(summary.mismatches):
        report(RunWarning(line))
    return summary


def _run_locked(spec: TournamentSpec, store: Store, edition: dict[str, Any] | None, *,
                is_new: bool, fresh: bool, carry_on: bool, vetter: Vetter | None,
                executor: TableExecutor, early: list[str], report: Report,
                started: float, insecure: bool = False,
                held: list[BotSpec] | None = None) -> RunSummary:
    """The rest of :func:`run_tournament`, holding the tournament's lock, up to the last
    game (the caller stops the executor and sets ``elapsed_s``); ``held``: the entrants it
    plays from the copy ``arena submit --update`` kept (said as the run starts)."""
    db_path = store.path
    try:
        if is_new:  # a typo in a path would otherwise scatter results unseen
            report(DatabaseCreated(db_path))
        old = store.tournament(spec.name)
        if fresh and old is not None:
            report(TournamentDropped(spec.name, store.count_games(old.id)))
        named: list[str] = []
        row = open_tournament(store, spec, fresh, carry_on=carry_on, edition=edition,
                              warn=named.append)
        run = RunState(spec, store, row, executor, report, started, insecure)
        run.resume = resume_hint(spec, db_path)
        for bot in held or []:
            run.played_kept_copy(KeptCopyMessage(bot.key, bot.name,
                                                 f"{bot.name}@{bot.files_version}"),
                                 before_run=True)
    except BaseException:
        executor.close(kill=True)
        raise
    run.warnings += early
    for text in named:
        run.warn(text)
    state = _play(run, db_path, vetter)
    return RunSummary(name=spec.name, db=db_path, games_planned=row.games_planned,
                      games_before=run.games_before, games_recorded=run.games_recorded,
                      elapsed_s=0.0, state=state, mismatches=run.mismatches,
                      warnings=run.warnings, bot_starts=run.bot_starts,
                      referee_cpu_s=run.referee_cpu_s, bot_cpu_s=dict(run.bot_cpu_s),
                      kept_copies=run.kept_copy_lines(state), league=spec.format == "league")


def _play(run: RunState, db_path: Path, vetter: Vetter | None = None) -> str:
    """Play what is left of the run's tournament; its state afterwards."""
    spec, store, row, executor = run.spec, run.store, run.row, run.executor
    state = row.state
    if state != "finished" and (short := spec.exposure_warning()) is not None:
        run.warn(short)
    if state != "finished" and (long := long_plan_warning(spec)) is not None:
        run.warn(long)
    if state != "finished" and (crowded := seating_warning(spec)) is not None:
        run.warn(crowded)
    if state != "finished" and (apart := unmet_pairs_warning(spec)) is not None:
        run.warn(apart)
    try:
        if state != "finished" or spec.format == "league":
            state = "running"
            store.set_state(row.id, state)
            executor.start(run.parallelism())  # a finished tournament has nothing to play
        run.progress()
        if spec.format == "league":
            state = League(spec, store, row, run.play, run.by_id, vetter=vetter,
                           warn=run.warn, vet_cpus=vet_cpus(executor)).run()
            store.set_state(row.id, state)
        elif spec.format == "swiss":
            run.play_swiss()
        else:
            run.play_fixed()
        if state == "running" and store.count_games(row.id) >= row.games_planned:
            state = "finished"
            store.set_state(row.id, state)
    except KeyboardInterrupt:
        # A second Ctrl-C (or a SIGTERM) waits until the bots are reaped and the state
        # is saved: cut short, the run looked killed and its bots could outlive it.
        with signals_held():
            run.end_progress()
            store.set_state(row.id, "interrupted")
            executor.close(kill=True)
            run.report(RunStopped(spec.name, store.count_games(row.id), row.games_planned,
                                  db_path, resume_hint(spec, db_path),
                                  league=spec.format == "league"))
        raise
    except BaseException:
        executor.close(kill=True)
        raise
    finally:
        run.end_progress()
    return state
