"""A trial start of every entrant before a tournament plays.

A bot that cannot start (a typo in its command, a missing import, an option it refuses) would
otherwise show up only in the results, as a forfeit of every game it was seated in. Each
distinct entry (bot version and options) is launched in the sandbox with the tournament's
limits, answers ``hello`` with ``ready`` and is sent ``bye``, a few at once so start-ups
overlap without crowding out slow starters (:func:`trial_starts`). A run refuses a new
tournament whose entries do not all start, and warns of them when it resumes one
(:func:`run_trial`); ``arena run --check`` shows how each start went (:func:`check_lines`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.common.plural import counted
from arena.common.printable import printable
from arena.errors import BotError, StoreError
from arena.referee.client import BotClient
from arena.referee.connection import Launcher
from arena.referee.copy_paths import author_paths
from arena.referee.launch import sandbox_launcher
from arena.referee.match import split_limits
from arena.registry import BotSpec, twin_entries
from arena.sandbox import Limits, probe
from arena.tournament.dbfiles import holds_no_tables
from arena.tournament.editions import current_edition, edition_name
from arena.tournament.field_changes import said_changes
from arena.tournament.league_store import league_entries
from arena.tournament.opening import earlier_twins, swiss_change
from arena.tournament.planning import (
    league_games,
    long_plan_warning,
    planned_games,
    rematch_warning,
    seating_warning,
    sitting_json,
    spec_sitting,
    unmet_pairs_warning,
)
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import Store, TournamentRow, peek
from arena.tournament.swiss_edits import SwissEdit

__all__ = ["TrialStart", "check_data", "check_lines", "gone_left_out", "league_left_out",
           "run_trial", "trial_entrants", "trial_starts"]


@dataclass(frozen=True)
class TrialStart:
    """How one entry's trial start went: ``failure`` says why it did not start, else None."""

    bot: BotSpec
    failure: str | None

    @property
    def label(self) -> str:
        """``name@version``, with the entry's options when it has any."""
        options = json.dumps(self.bot.options, sort_keys=True) if self.bot.options else ""
        return self.bot.key + (f" {options}" if options else "")


def trial_starts(bots: Sequence[BotSpec], limits: Limits | Mapping[str, int], *,
                 parallel: int = 2, launcher: Launcher | None = None) -> list[TrialStart]:
    """Start each distinct entry of ``bots`` once (see the module docstring), in entry order,
    ``parallel`` at a time (as many as the run's workers start at once: more would make slow
    starters miss their start-up time only here). An entry that misses it is tried once more
    on its own before it counts as not starting."""
    limits = split_limits(limits)[0]  # start-ups only: nothing to ponder on
    if launcher is None:
        launcher = sandbox_launcher()
    distinct: dict[tuple[str, str], BotSpec] = {}
    for bot in bots:
        distinct.setdefault((bot.key, json.dumps(bot.options, sort_keys=True)), bot)
    entries = list(distinct.values())
    step = max(1, parallel)
    failures: list[str | None] = []
    for at in range(0, len(entries), step):
        failures += _start_together(entries[at:at + step], limits, launcher)
    for index, failure in enumerate(failures):
        if failure is not None and failure.startswith("no 'ready' within"):
            failures[index] = _start_together([entries[index]], limits, launcher)[0]
    return [TrialStart(bot, failure) for bot, failure in zip(entries, failures, strict=True)]


def _start_together(bots: Sequence[BotSpec], limits: Limits,
                    launcher: Launcher) -> list[str | None]:
    """Launch ``bots`` at once, wait for each one's ``ready``, end them all: why each did not
    start, or None."""
    clients = [BotClient(bot.command, bot.path, limits, name=bot.name, key=bot.key,
                         metadata=bot.metadata, launcher=launcher, options=bot.options)
               for bot in bots]
    try:
        launched = [client.launch() for client in clients]
        failures = [failure if failure is not None else client.handshake()
                    for client, failure in zip(clients, launched, strict=True)]
    finally:
        for client in clients:
            client.close()
    return [None if failure is None else author_paths(failure.detail) for failure in failures]


def run_trial(spec: TournamentSpec, entrants: Sequence[BotSpec], parallel: int, *,
              resuming: bool) -> list[str]:
    """Start every entry of a run once (:func:`trial_starts`), before its games; the warnings
    to report. A new tournament with an entry that does not start is refused
    (:class:`~arena.errors.BotError`; nothing is stored yet, and ``--no-trial`` plays it
    anyway, that entry forfeiting); a resumed one goes on, a warning per such entry; fewer
    than two starting is refused either way."""
    if not entrants:
        return []
    trials = trial_starts(entrants, spec.limits, parallel=parallel)
    failed = [t for t in trials if t.failure is not None]
    reasons = "; ".join(f"{t.label}: {t.failure}" for t in failed)
    if len(trials) - len(failed) < 2:
        raise BotError(f"no game can be played: {len(trials) - len(failed)} of {len(trials)} "
                       f"entries start in a trial run; {reasons}")
    if failed and not resuming:
        raise BotError(f"{len(failed)} of {len(trials)} entries do not start (a trial run "
                       f"before the games): {reasons}. Fix them or take them out of the spec; "
                       "--no-trial plays anyway, each of their games a forfeit")
    return [f"{t.label} does not start (a trial run before the games): {t.failure}; each of "
            "its games from here on will be a forfeit" for t in failed]


def trial_entrants(spec: TournamentSpec, db_path: Path, resuming: bool) -> list[BotSpec]:
    """The entries a run starts once before its games: every one, but for a league resumed
    only its active versions (its loop vets new ones itself, and a version it refused or
    retired will not play), and never a withdrawn bot whose files are gone; none when fewer
    than two are active."""
    if spec.format != "league" or not resuming:
        return [bot for bot in spec.entrants if bot.key not in spec.gone]
    with Store(db_path, create=False, read_only=True) as store:
        row = store.tournament(spec.name)
        entries = league_entries(store, row.id) if row is not None else []
    active = {e.key for e in entries if e.state == "active"}
    entrants = [bot for bot in spec.entrants if bot.key in active]
    return entrants if len(entrants) >= 2 else []


def gone_left_out(spec: TournamentSpec) -> dict[str, tuple[str, str]]:
    """The withdrawn entrants whose files are gone (taken from the stored tournament), by
    key, as :func:`league_left_out` gives its own: never started again."""
    return {bot.key: ("--  ", f"not started: withdrawn from round {spec.withdrawn[bot.name]}"
                      ", its files gone (its games stay stored)")
            for bot in spec.entrants if bot.key in spec.gone}


def league_left_out(spec: TournamentSpec, db: Path) -> dict[str, tuple[str, str]]:
    """The entries of a stored league (this very spec) that its run does not start before its
    games, by key: a mark and why (refused or retired by the league, or new: its loop vets
    it as it enters). None left out of another tournament, or of a league not stored yet."""
    if spec.format != "league":
        return {}

    def look(store: Store) -> dict[str, tuple[str, str]]:
        row = store.tournament(spec.name)
        if row is None or row.spec_hash != spec.spec_hash():
            return {}
        seen = {entry.key: entry for entry in league_entries(store, row.id)}
        left: dict[str, tuple[str, str]] = {}
        for bot in spec.entrants:
            entry = seen.get(bot.key)
            if entry is None:
                left[bot.key] = ("new ", "vetted from the league's next poll on, entered at "
                                 "the first poll after its vet (the compliance check, then "
                                 "a trial start)")
            elif entry.state == "refused":
                left[bot.key] = ("--  ", f"not started: refused by the league at table "
                                 f"{entry.at_table} ({entry.reason})")
            elif entry.state == "retired":
                why = f"({entry.reason})" if entry.reason else f"at table {entry.at_table}"
                left[bot.key] = ("--  ", f"not started: retired from the league {why}")
        return left

    return peek(db, look) or {}


def check_lines(spec: TournamentSpec, db: Path, trials: Sequence[TrialStart] | None,
                left_out: Mapping[str, tuple[str, str]] | None = None, *,
                fresh: bool = False, new_edition: bool = False) -> tuple[list[str], bool]:
    """What ``arena run --check`` prints (the plan, what the database holds of it, how each
    entry's trial start went; ``trials`` None when skipped; ``left_out``: a stored league's
    entries not started, :func:`league_left_out`) and whether ``arena run`` would go
    ahead (with ``--fresh`` or ``--new-edition`` when they are given)."""
    sizes = "/".join(str(k) for k in spec.table_sizes)
    sitting = spec_sitting(spec)
    if sitting is not None:
        sizes += f" (sitting {sitting})"
    source = f" from {spec.source}" if spec.source is not None else ""
    stored, same_spec = _stored(spec, db)
    anew = _started_anew(spec, db, stored, same_spec, fresh=fresh, new_edition=new_edition)
    if anew is not None:  # the run plays a new tournament: what is stored stays out of it
        stored, same_spec = f"{stored}; {anew}", True
    resumed = stored.startswith("holds") and anew is None
    seed = ("given" if spec.seed is not None else
            "drawn at its start, kept with the results" if resumed
            and same_spec else "drawn when it starts")
    planned = (f"{counted(spec.effective_rounds(), 'round')}, {planned_games(spec):,} games planned"
               if spec.format != "league" else "until stopped" if not planned_games(spec)
               else f"until {planned_games(spec):,} games (its budget) or stopped")
    rules = spec.house_rules()
    changes = said_changes(spec.withdrawn, spec.joined)
    lines = [f"Spec{source}: {spec.format} '{spec.name}', {len(spec.entrants)} entries, tables "
             f"of {sizes}, {planned}; seed {seed}"
             + ("" if rules.is_default else f"; {rules.describe()}")
             + "".join(f"; {change}" for change in changes)]
    if (short := spec.exposure_warning()) is not None:
        lines.append(f"warning: {short}")
    if (long := long_plan_warning(spec)) is not None:
        lines.append(f"warning: {long}")
    if (crowded := seating_warning(spec)) is not None:
        lines.append(f"warning: {crowded}")
    if (apart := unmet_pairs_warning(spec)) is not None:
        lines.append(f"warning: {apart}")
    if (again := rematch_warning(spec)) is not None:
        lines.append(f"warning: {again}")
    lines.extend(f"warning: {twin}" for twin in twin_entries(spec.entrants))
    lines.append(f"Results: {db}, {stored}")
    # a stored tournament resumes with the names it holds (arena.common.names)
    dropped = _stored_id(spec, db) if fresh else None  # --fresh: its bots bar no name
    refused = [] if resumed else [
        *spec.name_problems,
        *(peek(db, lambda store: earlier_twins(store, spec, dropped)) or [])]
    lines.extend(f"Refused name: {problem}" for problem in refused)
    if trials is None:
        lines.append("Trial start of every entry: skipped (--no-trial)")
        started = "Entries not started (--no-trial)"
    else:
        lines.append(f"Trial start of every entry (sandbox {probe().level}):")
        lines.extend(f"  {'ok  ' if trial.failure is None else 'FAIL'}  {trial.label}"
                     + ("" if trial.failure is None else f": {trial.failure}")
                     for trial in trials)
        started = f"All {len(trials)} entries start"
    if left_out:
        lines.extend(f"  {mark}  {printable(key)}: {why}" for key, (mark, why) in left_out.items())
        if trials is not None:
            started = (f"The {counted(len(trials), 'active entry', 'active entries')} "
                       f"{'starts' if len(trials) == 1 else 'start'} ("
                       f"{counted(len(left_out), 'other')} above not started)")
    failed = sum(1 for t in trials or () if t.failure is not None)
    if failed:
        started = (f"{failed} of {len(trials or ())} entries "
                   f"{'does' if failed == 1 else 'do'} not start")
    verdict, ready = _verdict(started, stored if anew is None else "a new start",
                              same_spec=same_spec, refused=bool(refused), failed=failed,
                              starting=len(trials or ()) - failed)
    lines.append(verdict)
    return lines, ready


def _started_anew(spec: TournamentSpec, db: Path, stored: str, same_spec: bool, *,
                  fresh: bool, new_edition: bool) -> str | None:
    """What ``--fresh`` or ``--new-edition`` makes of the stored tournament ``stored``
    describes, when the run would start a new one; else None (nothing stored, or a spec
    resumed as it is, which ``--new-edition`` resumes too)."""
    if not stored.startswith("holds") or not (fresh or (new_edition and not same_spec)):
        return None
    if fresh:
        return "--fresh drops it and starts anew"
    name = peek(db, lambda store: edition_name(store, spec.name)) or f"{spec.name}-2"
    return f"--new-edition starts '{name}' beside it"


def _stored_id(spec: TournamentSpec, db: Path) -> int | None:
    """The id of the stored tournament (the edition a run would play) ``--fresh`` drops."""
    def look(store: Store) -> int | None:
        row = store.tournament(current_edition(store, spec, False)[0].name)
        return row.id if row is not None else None
    return peek(db, look)


def _verdict(started: str, stored: str, *, same_spec: bool, refused: bool, failed: int,
             starting: int) -> tuple[str, bool]:
    """``arena run --check``'s last line, after how the entries started (``started``), and
    whether the run would go ahead, in the order the run refuses: a stored tournament's
    other spec and a new one's names before any bot starts, then the trial, which a finished
    tournament skips and a resumed one passes with a warning per entry that does not start,
    while two start."""
    if not same_spec:
        return (f"{started}, but arena run refuses the stored tournament's other spec "
                "(--new-edition starts another edition beside it, --fresh starts anew)."), False
    if refused:
        return f"{started}, but arena run refuses the names above in a new tournament.", False
    if stored.endswith(", finished"):
        return (f"{started}; the stored tournament is finished: arena run has nothing left "
                "to play (--fresh plays it anew)."), True
    them, their = ("it", "its") if failed == 1 else ("them", "their")
    if failed and starting < 2:
        return (f"{started}: no game can be played (arena run needs two entries that start): "
                f"fix {them} or take {them} out of the spec."), False
    if failed and not stored.startswith("holds"):  # what arena run's refusal says to do
        return (f"{started}, so arena run refuses the new tournament: fix {them} or take "
                f"{them} out of the spec, or --no-trial plays anyway, each of {their} games "
                "a forfeit."), False
    if failed:
        return (f"{started}: arena run resumes the stored tournament all the same, with a "
                "warning, each of its games from here on a forfeit."), True
    return f"{started}: ready to run.", True


def check_data(spec: TournamentSpec, db: Path, trials: Sequence[TrialStart] | None,
               lines: Sequence[str], ready: bool) -> dict[str, Any]:
    """What ``arena run --check --format json`` prints: the plan, what the database holds of
    it, each entry's trial start (None when skipped), the warnings and refused names the text
    (``lines``, with ``ready``: :func:`check_lines`'s, and what the command adds) gives, its
    last line, and whether ``arena run`` would go ahead."""

    def told(prefix: str) -> list[str]:  # the text's lines of a kind, one source for both
        return [line[len(prefix):] for line in lines if line.startswith(prefix)]

    league = spec.format == "league"
    return {
        "name": spec.name, "format": spec.format, "entries": len(spec.entrants),
        "table_sizes": list(spec.table_sizes),
        "sitting": sitting_json(spec_sitting(spec)),
        "rounds": spec.effective_rounds() if not league else None,
        # as status has them: a league's budget is where a run stops, not its planned games
        "games_planned": None if league else planned_games(spec),
        "budget_games": (planned_games(spec) or None) if league else None,
        "seed_given": spec.seed is not None,
        "rules": spec.house_rules().changed(), "results": str(db),
        "stored": told(f"Results: {db}, ")[0], "warnings": told("warning: "),
        "refused_names": told("Refused name: "),
        "trials": None if trials is None else [
            {"bot": trial.label, "started": trial.failure is None, "failure": trial.failure}
            for trial in trials],
        "ready": ready, "verdict": lines[-1],
    }


def _stored(spec: TournamentSpec, db: Path) -> tuple[str, bool]:
    """What the database holds of ``spec``'s tournament, and whether a run may go on with it
    (none stored, or stored with this very spec)."""
    if not db.exists():
        return "not created yet", True
    if holds_no_tables(db):  # created and killed before its tables were
        return "no tournament in it yet (an empty database)", True
    try:
        with Store(db, create=False, read_only=True) as store:
            played = current_edition(store, spec, False)[0]  # as a run picks the edition
            row = store.tournament(played.name)
            if row is None:
                return f"no tournament '{spec.name}' in it yet", True
            done = store.count_games(row.id)
            held = f"holds '{played.name}': {_held_games(row, done)}, {row.state}"
            edit = (swiss_change(store, row, played) if row.spec_hash != played.spec_hash()
                    else None)
    except sqlite3.OperationalError:  # created and killed before its tables were
        return "no tournament in it yet (an empty database)", True
    if isinstance(edit, SwissEdit):
        return f"{held}; this spec changes it: {edit.describe()}; a run goes on", True
    if isinstance(edit, StoreError):
        return f"{held}, and arena run refuses this spec: {edit}", False
    if row.spec_hash != played.spec_hash():
        return (f"{held}, with another spec (hash {row.spec_hash}, this spec "
                f"{played.spec_hash()})"), False
    budget = planned_games(spec)
    if spec.format == "league" and row.state == "finished" and (not budget or budget > done):
        # the budget is outside a league's hash: raised (or dropped), the league goes on
        return held + (f"; its budget raised to {budget:,} games" if budget
                       else "; without a budget now") + ", a run goes on", True
    return held + ("" if row.state == "finished" else "; a run resumes it"), True


def _held_games(row: TournamentRow, done: int) -> str:
    """``36/72 games``; a league's games beside its budget, ``504 games (budget 400 spent)``,
    as the site shows them (a budget lowered under the games played spent, not 126%)."""
    if row.format != "league":
        return f"{done}/{row.games_planned} games"
    return league_games(done, row.games_planned)
