"""CLI commands of the tournament layer: ``arena run``, ``status`` and ``delete``.

Registered by :mod:`arena.cli.main`. A run is shown by :mod:`arena.cli.run_report`; after it
the leaderboard of the rating layer is printed: the CLI sits above both layers, so it may call
the rating layer, while the tournament layer itself never imports it (docs/ARCHITECTURE.md).
Each command imports what it uses when it runs: ``arena`` starts for every command, and most
need little of the library.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.options import DbOption, TableFormatOption, TournamentArgument, table_or_json
from arena.cli.output_file import check_output_file, warn_left_out
from arena.common.printable import printable, printable_log
from arena.errors import ArenaError, SpecError
from arena.tournament.store import DEFAULT_RESULTS

if TYPE_CHECKING:  # pydantic is slow to import, and only `arena run` needs the spec
    from arena.tournament.runner import RunSummary
    from arena.tournament.spec import TournamentSpec

__all__ = ["register"]

_RUN_HELP = "\n\n".join([
    "Run a tournament from a YAML spec: round_robin, swiss, gauntlet or league (played until "
    "stopped, docs/LEAGUE.md), tables of 2-5 bots, played by parallel worker processes and "
    "recorded game by game in SQLite.",
    "Stop and resume: Ctrl-C (or kill) stops a run at any moment, losing at most the games "
    "in flight, and running the same command again resumes where it stopped. A changed "
    "spec under a stored name is refused: --continue enters a bot's new version into it, "
    "--new-edition starts NAME-2 beside it, --fresh replaces it (after asking, when it has "
    "games; --yes does not ask). A Swiss takes added rounds, withdrawn: and joined: bots "
    "from a round not yet paired, and goes on (docs/TOURNAMENTS.md, Changing a Swiss under "
    "way). The leaderboard is printed at the end.",
    "--games, --rounds, --decision-ms, --time-bank-ms and --deals set spec fields "
    "(games_per_match, rounds, limits.decision_ms, limits.time_bank_ms, deals: a deal book "
    "every pairing plays in order); they are recorded with the spec, so give them again to "
    "resume.",
    "Every entry is started once before the games: a bot that does not start is named up "
    "front (--no-trial skips it); --check does only that and prints the plan (with "
    "--no-trial, the plan alone; with --format json, as one JSON object for a script).",
    "Example: arena run tournaments/swiss.yaml --workers 2",
    "Example: arena run my_contest.yaml --check",
    "Example: arena run tournaments/swiss.yaml --games 4 --decision-ms 500 --deals book.txt",
])

_INSECURE_HELP = ("Run a contest (a spec without a public seed) even where bots run without "
                  "bubblewrap or Landlock and could read its secret seed.")

_STATUS_HELP = "\n\n".join([
    "Show the progress of stored tournaments: all of them, or one in detail (rounds, tables, "
    "Swiss standings and how to resume).",
    "--failures lists every distinct reason the bots failed (--bot NAME: one bot's), each "
    "with how often and the first game and seat to open with arena game.",
    "--format json prints the same as one JSON document for a script: the state, whether a "
    "run plays it now (live, pid), games done and planned, the round, each round's "
    "progress, failures by type and every reason, kept copies, standings, and the commands "
    "that resume or stop it (docs/TOURNAMENTS.md, \"Status as JSON\").",
    "Example: arena status swiss --failures --bot alice --db results/arena.db",
    "Example: arena status swiss --records swiss.jsonl && arena replay swiss.jsonl",
])


_ContinueOption = Annotated[
    bool, typer.Option("--continue", help="A bot was updated since the tournament began: its "
                       "new version plays the deals not begun yet (the games played stay "
                       "rated under the old version).")
]
_FreshOption = Annotated[
    bool, typer.Option("--fresh", help="Drop a stored tournament of this name first (asks "
                       "when it has games).")
]
_YesOption = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")]
_CheckOption = Annotated[
    bool, typer.Option("--check", help="Check only: load the spec, start every entry once "
                       "in the sandbox, print the plan; play nothing (exit 1 if arena run "
                       "would refuse it: an entry that does not start in a new tournament, "
                       "say).")
]
#: ``--format`` of ``--check``'s plan: a run's own output is its progress, for people.
_CheckFormatOption = Annotated[str | None, typer.Option(
    "--format", "-f", metavar="table|json", callback=table_or_json,
    help="With --check: the plan as text (table, the default) or json, for a script.")]
_PinOption = Annotated[
    bool | None, typer.Option("--pin-workers/--no-pin-workers", help="Each worker and its bots "
                              "on one CPU of their own (default: the spec's pin_workers, off).")
]
_NewEditionOption = Annotated[
    bool, typer.Option("--new-edition", help="The spec changed: start a new edition (NAME-2, "
                       "NAME-3, ...) and keep the stored one for comparison.")
]


def _one_way_on(*, fresh: bool, carry_on: bool, new_edition: bool) -> None:
    """--fresh, --continue and --new-edition each say what to do with a changed spec."""
    ways = [flag for flag, given in (("--fresh", fresh), ("--continue", carry_on),
                                     ("--new-edition", new_edition)) if given]
    if len(ways) > 1:
        raise typer.BadParameter(f"give one of {', '.join(ways)}, not several",
                                 param_hint=ways[-1])


def run(
    spec_file: Annotated[Path, typer.Argument(metavar="SPEC", help="Tournament spec (YAML).")],
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", min=1,
                                 help="Worker processes (default: the spec's, else all cores).")
    ] = None,
    fresh: _FreshOption = False,
    pin_workers: _PinOption = None,
    backend: Annotated[
        str | None, typer.Option("--backend", metavar="local|ray",
                                 help="Where tables are played (default: the spec's, local).")
    ] = None,
    address: Annotated[
        str | None, typer.Option("--address", metavar="ADDR",
                                 help="Ray cluster address (implies --backend ray).")
    ] = None,
    db: Annotated[
        Path | None, typer.Option("--db", envvar="ARENA_DB",
                                  help="Results database (default: $ARENA_DB when set, else "
                                  f"the spec's 'results', else {DEFAULT_RESULTS}).")
    ] = None,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Show the progress bar (on a tty).")
    ] = True,
    check: _CheckOption = False,
    check_format: _CheckFormatOption = None,
    trial: Annotated[
        bool, typer.Option("--trial/--no-trial", help="Start every entry once before the "
                           "games, to warn about a bot that does not start.")
    ] = True,
    insecure: Annotated[bool, typer.Option("--insecure", help=_INSECURE_HELP)] = False,
    games: Annotated[int | None, typer.Option(
        "--games", min=1, help="Games per pairing (sets games_per_match).")] = None,
    rounds: Annotated[int | None, typer.Option(
        "--rounds", min=1, help="Swiss rounds, or round-robin cycles (sets rounds).")] = None,
    decision_ms: Annotated[int | None, typer.Option(
        "--decision-ms", min=1, help="Time per decision (sets limits.decision_ms).")] = None,
    time_bank_ms: Annotated[int | None, typer.Option(
        "--time-bank-ms", min=0, help="Time bank per game (sets limits.time_bank_ms).")] = None,
    deals: Annotated[Path | None, typer.Option(
        "--deals", metavar="FILE", help="A deal book every pairing plays in order (sets "
        "deals; docs/TOURNAMENTS.md).")] = None,
    carry_on: _ContinueOption = False,
    new_edition: _NewEditionOption = False,
    yes: _YesOption = False,
) -> None:
    """Run or resume a tournament (help text: ``_RUN_HELP``)."""
    from arena.cli.run_report import TerminalReport
    from arena.cli.signals import stop_on_sigterm
    from arena.tournament.runner import run_tournament

    backend = _backend_of(backend, address)
    _one_way_on(fresh=fresh, carry_on=carry_on, new_edition=new_edition)
    as_json = _check_json(check, check_format)
    spec = _run_spec(spec_file, db, {
        "games_per_match": games, "rounds": rounds, "limits.decision_ms": decision_ms,
        "limits.time_bank_ms": time_bank_ms,
        "deals": str(deals.resolve()) if deals else None}, anew=fresh or new_edition)
    if check:
        _check_only(spec, workers, db, trial=trial, as_json=as_json, fresh=fresh,
                    new_edition=new_edition)
        return
    _refuse_a_bare_contest(spec.seed, insecure)
    if fresh and not yes:
        _ask_before_dropping(spec, Path(db) if db is not None else Path(spec.results))
    board: list[str] = []  # rated while the workers wind down
    with stop_on_sigterm():
        summary = run_tournament(spec, workers, fresh=fresh, db=db, backend=backend,
                                 address=address, trial=trial, pin_workers=pin_workers,
                                 report=TerminalReport(progress=progress), carry_on=carry_on,
                                 new_edition=new_edition, insecure=insecure,
                                 while_closing=lambda done: board.extend(_leaderboard(done)))
    _print_summary(summary, board)
    _say_if_nothing_played(spec, spec_file, summary)


def _say_if_nothing_played(spec: TournamentSpec, spec_file: Path, summary: RunSummary) -> None:
    """Why a run of a finished tournament played no game, and how to play more: the same
    command again (a newcomer's first guess, after an update of a bot) changes nothing."""
    if summary.state != "finished" or summary.games_recorded:
        return
    from arena.cli.terminal import wrapped

    if spec.format == "league" and summary.games_planned:
        said = (f"Nothing played: the league's budget of {summary.games_planned:,} games is "
                f"spent. Raise 'budget' in {spec_file} and run it again to go on (new "
                "versions of its bots enter then; docs/LEAGUE.md).")
    else:
        said = ("Nothing played: the tournament was finished already (--fresh plays it anew; "
                "docs/TOURNAMENTS.md).")
    typer.echo(printable_log(wrapped(said)))


def _with_stored_results(error: SpecError, db: Path | None) -> SpecError:
    """A spec refused for bots removed since, with where its stored tournament is shown (a
    finished one's results stay: ``arena leaderboard``)."""
    from arena.tournament.gone_entrants import missing_bots_hint
    from arena.tournament.status import stored_results_hint

    if error.stored_as is None:
        return error
    name, results = error.stored_as
    hint = missing_bots_hint(error, db) or stored_results_hint(
        name, db if db is not None else Path(results))
    return error if hint is None else SpecError(f"{error}\n{hint}")


def _backend_of(backend: str | None, address: str | None) -> str | None:
    """--backend checked, and implied by --address."""
    if backend is not None and backend not in ("local", "ray"):
        raise typer.BadParameter(f"unknown backend '{backend}' (choose local or ray)",
                                 param_hint="--backend")
    if address is not None:
        if backend == "local":
            raise typer.BadParameter("--address is a Ray cluster address; it needs "
                                     "--backend ray", param_hint="--address")
        return "ray"  # a cluster address only makes sense for the Ray backend
    return backend


def _ask_before_dropping(spec: TournamentSpec, db: Path) -> None:
    """--fresh deletes games as ``arena delete`` does: asked the same way, when there are any
    (a tournament without games loses nothing)."""
    from arena.tournament.editions import stored_games

    found = stored_games(db, spec)
    if found is None:
        return
    name, games, state = found
    what = (f"tournament '{printable(name)}' ({games} game{'' if games == 1 else 's'}, "
            f"{state}) from {db}")
    if not _confirmed(f"--fresh: drop {what} and start anew?",
                      "nothing dropped: no answer (--yes drops it without asking)"):
        typer.echo("Nothing dropped.")
        raise typer.Exit(1)


def _run_spec(spec_file: Path, db: Path | None, overrides: dict[str, Any], *,
              anew: bool) -> TournamentSpec:
    """The spec the run plays, with the options that set its fields (``overrides``, by the
    field they set), said in the run's header; a spec error names the stored results too."""
    from arena.tournament.gone_entrants import load_run_spec

    try:
        spec = load_run_spec(spec_file, overrides, db, anew=anew)
    except SpecError as exc:
        raise _with_stored_results(exc, db) from None
    _say_overrides(spec)
    return spec


def _say_overrides(spec: TournamentSpec) -> None:
    """The run header's line on the options that set the spec's fields."""
    from arena.cli.terminal import wrapped
    from arena.tournament.overrides import override_options

    if spec.overrides:
        typer.echo(wrapped(f"Spec fields set on the command line, recorded with the spec:"
                           f"{override_options(spec.overrides)} (give them again to resume)",
                           err=True), err=True)


def _leaderboard(summary: RunSummary) -> list[str]:
    """The leaderboard ``arena run`` ends with, as ``arena leaderboard`` shows it (a league's
    retired versions left out, and said so), and the rating history stored: the games are
    rated once for both. Nothing when no game was played."""
    if not summary.games_done:
        return []
    from arena.cli.terminal import terminal_width
    from arena.rating.board_view import leaderboard_text

    return [leaderboard_text(summary.db, summary.name, store_ratings=True,
                             width=terminal_width())]


def _print_summary(summary: RunSummary, board: list[str] | None = None) -> None:
    """What a run did, then the leaderboard (``board``: computed already, while the workers
    wound down) and the bots' failures."""
    from arena.cli.terminal import wrapped
    from arena.tournament.planning import league_budget_note

    rate = summary.games_per_s
    done, planned = summary.games_done, summary.games_planned
    # a league's budget beside its games, as status tells it, never as a share of it
    games = str(done) if summary.league or not planned else f"{done}/{planned}"
    note = league_budget_note(done, planned) if summary.league else ""
    # a resumed database may come from elsewhere, never through the arena's escaping entry
    typer.echo(printable_log(wrapped(
        f"{summary.name}: {games} games recorded ({f'{note}; ' if note else ''}"
        f"{summary.games_recorded} this run, {summary.elapsed_s:.1f} s, {rate:.1f} games/s) "
        f"in {summary.db}; state {summary.state}")))
    for text in summary.kept_copies:  # said as it happened, above the bar: said again
        typer.echo(printable_log(wrapped(text)))
    if summary.games_done:
        from arena.tournament.status import failure_summary

        for text in board if board is not None else _leaderboard(summary):
            typer.echo(printable_log(text))
        failures = failure_summary(summary.db, summary.name)
        if failures is not None:
            typer.echo(printable_log(wrapped(failures)))


def _check_json(check: bool, fmt: str | None) -> bool:
    """Whether --check's plan is asked as json; --format goes with --check alone."""
    if fmt is None:
        return False
    if not check:
        raise typer.BadParameter("--format goes with --check (a run shows its progress)",
                                 param_hint="'--format' / '-f'")
    return fmt == "json"


def _check_only(spec: TournamentSpec, workers: int | None, db: Path | None, *,
                trial: bool, as_json: bool = False, fresh: bool = False,
                new_edition: bool = False) -> None:
    """``arena run --check``: start every entry once (not with ``--no-trial``), print the
    plan (exit 1 when the run would be refused, as
    :func:`~arena.tournament.preflight.check_lines` judges)."""
    from arena.tournament.editions import held_versions, refuse_if_running
    from arena.tournament.preflight import (
        check_lines,
        gone_left_out,
        league_left_out,
        trial_starts,
    )
    from arena.tournament.run_state import kept_copy_line, updated_line
    from arena.tournament.runner import resume_hint
    from arena.tournament.store import peek

    results = db if db is not None else Path(spec.results)
    refuse_if_running(results, spec, new_edition)  # as arena run refuses it, at once
    # as a run resumes it: an entrant updated since plays on from its kept copy, said so
    spec, held = peek(results, lambda store: held_versions(store, spec)) or (spec, [])
    # a stored league starts its active versions only, as its run does; no bot whose
    # files are gone is started
    left_out = {**league_left_out(spec, results), **gone_left_out(spec)}
    started = [bot for bot in spec.entrants if bot.key not in left_out]
    trials = (trial_starts(started, spec.limits, parallel=spec.effective_workers(workers))
              if trial else None)
    lines, ready = check_lines(spec, results, trials, left_out, fresh=fresh,
                               new_edition=new_edition)
    resume = resume_hint(spec, results)
    kept = [kept_copy_line(updated_line(bot.name, True), f"{bot.name}@{bot.files_version}",
                           "running", resume) for bot in held]
    lines[1:1] = [f"warning: {line}" for line in kept]  # under the spec's line, as warned
    if as_json:
        from arena.rating.render import render_json
        from arena.tournament.preflight import check_data

        typer.echo(render_json(check_data(spec, results, trials, lines, ready)))
    else:
        typer.echo("\n".join(lines))
    if not ready:
        raise typer.Exit(1)


def _refuse_a_bare_contest(seed: int | None, insecure: bool) -> None:
    """Raise when a contest (no public ``seed``) would run where bots could read its seed,
    unless ``insecure``."""
    if insecure:
        return
    from arena.sandbox import probe
    from arena.tournament.secrecy import bare_contest

    refusal = bare_contest(seed, probe())
    if refusal is not None:
        raise SpecError(refusal)


def status(
    tournament: Annotated[
        str | None, typer.Argument(metavar="TOURNAMENT",
                                    help="Tournament name (default: every stored one).")
    ] = None,
    db: DbOption = Path(DEFAULT_RESULTS),
    records: Annotated[
        Path | None, typer.Option("--records", metavar="FILE.jsonl[.gz]",
                                  help="Also write the tournament's game records as JSON lines "
                                       "(gzip if FILE ends in .gz; arena replay reads them).")
    ] = None,
    failures: Annotated[bool, typer.Option("--failures", help="Instead of the progress, "
                        "every distinct reason a bot failed, how often, and where first.")
                        ] = False,
    bot: Annotated[str | None, typer.Option("--bot", metavar="NAME", help="With --failures: "
                   "only this bot's (NAME or NAME@VERSION).")] = None,
    fmt: TableFormatOption = None,
) -> None:
    """Show tournament progress (help text: ``_STATUS_HELP``)."""
    from arena.cli.terminal import hanging, terminal_width
    from arena.tournament.status import status_lines, write_records

    if records is not None and tournament is None:
        raise typer.BadParameter("--records needs a tournament name", param_hint="--records")
    if failures and tournament is None:
        raise typer.BadParameter("--failures needs a tournament name", param_hint="--failures")
    if bot is not None and not failures:
        raise typer.BadParameter("--bot goes with --failures", param_hint="--bot")
    if records is not None:
        check_output_file(records, "--records")
    if fmt == "json":
        _status_json(db, tournament, records, failures=failures, bot=bot)
        return
    width = terminal_width()
    lines = status_lines(db, tournament, width=width, failures=failures, bot=bot)
    if records is not None and tournament is not None:
        count, skipped = write_records(db, tournament, records)
        warn_left_out(skipped, str(records))
        lines += ["", f"wrote {count} game records to {records}"]
    if width is not None:  # a terminal's: its lines wrap at words, which it broke anywhere
        lines = [line if "\n" in line else hanging(line, width)  # a table: fitted already
                 for line in lines]
    # a database from elsewhere never passed the arena's entry, where a bot's text is escaped
    typer.echo(printable_log("\n".join(lines)))


def _status_json(db: Path, tournament: str | None, records: Path | None, *, failures: bool,
                 bot: str | None) -> None:
    """``arena status --format json``: the document alone on stdout; what ``--records``
    wrote said on stderr."""
    from arena.rating.render import render_json
    from arena.tournament.status import status_data, write_records

    data = status_data(db, tournament, failures=failures, bot=bot)
    if records is not None and tournament is not None:
        count, skipped = write_records(db, tournament, records)
        warn_left_out(skipped, str(records))
        typer.echo(f"wrote {count} game records to {records}", err=True)
    typer.echo(render_json(data))


_DELETE_HELP = "\n\n".join([
    "Delete a stored tournament and everything recorded for it (games, records, tables, "
    "ratings) from the results database, after asking (--yes does not ask). Refused while a "
    "run of it is going on. Other tournaments and the bots they share are kept.",
    "Example: arena delete trial-run --db results/arena.db",
])


def delete(
    tournament: TournamentArgument,
    db: DbOption = Path(DEFAULT_RESULTS),
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
) -> None:
    """Delete a stored tournament (help text: ``_DELETE_HELP``)."""
    from arena.tournament.store import Store, shown_state

    with Store(db, create=False) as store:
        row = store.require(tournament)
        state = shown_state(db, tournament, row.state)  # "stopped" for a killed run
        games = store.count_games(row.id)
        what = (f"tournament '{printable(tournament)}' ({games} "
                f"game{'' if games == 1 else 's'}, {state}) from {db}")
        # asked before the lock is taken: a prompt left waiting must not pass for a run
        if not yes and not _confirmed(f"Delete {what}?", "nothing deleted: no answer (--yes "
                                                          "deletes without asking)"):
            typer.echo("Nothing deleted.")
            raise typer.Exit(1)
        with store.lock(tournament):  # not under a running tournament's feet
            row = store.require(tournament)  # as it is now (a run may have come and gone)
            store.delete_tournament(row.id)
    typer.echo(f"Deleted {what}.")


def _confirmed(question: str, unanswered: str) -> bool:
    """The answer to ``question``; input that ends (a script's closed stdin) or Ctrl-C is the
    error line ``unanswered``, not the prompt library's bare 'Aborted.'."""
    try:
        return typer.confirm(question)
    except typer.Abort:
        typer.echo()  # the prompt's line, ended
        raise ArenaError(unanswered) from None


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("run", help=_RUN_HELP, short_help='Run a tournament from a YAML spec.')(run)
    app.command("status", help=_STATUS_HELP,
                short_help="Show the progress of stored tournaments.")(status)
    app.command("delete", help=_DELETE_HELP, short_help='Delete a stored tournament.')(delete)
