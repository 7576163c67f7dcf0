"""CLI commands of the tournament layer: ``arena run`` and ``arena status``.

Registered by :mod:`arena.cli.main`. After a run the leaderboard of the rating layer is
printed: the CLI sits below both layers, so it may call the rating layer, while the tournament
layer itself never imports it (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.tournament.spec import DEFAULT_RESULTS

__all__ = ["register"]

_RUN_HELP = "\n\n".join([
    "Run a tournament from a YAML spec: round_robin, swiss or gauntlet, tables of 2-5 bots, "
    "played by parallel worker processes and recorded game by game in SQLite.",
    "Running the same spec again resumes where it stopped (Ctrl-C or kill at any moment "
    "loses at most the games in flight); a changed spec under a stored name is refused "
    "unless --fresh. The leaderboard is printed at the end.",
    "Example: arena run tournaments/swiss.yaml --workers 2",
])

_STATUS_HELP = "\n\n".join([
    "Show the progress of stored tournaments: all of them, or one in detail (rounds, tables, "
    "Swiss standings and how to resume).",
    "Example: arena status swiss --db results/arena.db",
    "Example: arena status swiss --records swiss.jsonl && arena replay swiss.jsonl",
])


def run(
    spec_file: Annotated[Path, typer.Argument(metavar="SPEC", help="Tournament spec (YAML).")],
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", min=1,
                                 help="Worker processes (default: the spec's, else all cores).")
    ] = None,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Drop a stored tournament of this name first.")
    ] = False,
    backend: Annotated[
        str | None, typer.Option("--backend", metavar="local|ray",
                                 help="Where tables are played (default: the spec's, local).")
    ] = None,
    address: Annotated[
        str | None, typer.Option("--address", metavar="ADDR",
                                 help="Ray cluster address (implies --backend ray).")
    ] = None,
    db: Annotated[
        Path | None, typer.Option("--db", help="Results database (default: the spec's "
                                  f"'results', {DEFAULT_RESULTS}).")
    ] = None,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Show the progress bar.")
    ] = True,
) -> None:
    """Run or resume a tournament (help text: ``_RUN_HELP``)."""
    from arena.tournament.runner import run_tournament
    from arena.tournament.spec import load_spec

    if backend is not None and backend not in ("local", "ray"):
        raise typer.BadParameter(f"unknown backend '{backend}' (choose local or ray)",
                                 param_hint="--backend")
    if address is not None:
        if backend == "local":
            raise typer.BadParameter("--address is a Ray cluster address; it needs "
                                     "--backend ray", param_hint="--address")
        backend = "ray"  # a cluster address only makes sense for the Ray backend
    spec = load_spec(spec_file)
    summary = run_tournament(spec, workers, fresh=fresh, progress=progress, db=db,
                             backend=backend, address=address)
    rate = summary.games_per_s
    typer.echo(
        f"{summary.name}: {summary.games_done}/{summary.games_planned} games recorded "
        f"({summary.games_recorded} this run, {summary.elapsed_s:.1f} s, {rate:.1f} games/s) "
        f"in {summary.db}; state {summary.state}")
    if summary.games_done:
        from arena.rating.leaderboard import print_leaderboard
        from arena.rating.trueskill_rating import rate_tournament

        rate_tournament(summary.db, summary.name)
        print_leaderboard(summary.db, summary.name)


def status(
    tournament: Annotated[
        str | None, typer.Argument(help="Tournament name (default: every stored one).")
    ] = None,
    db: Annotated[Path, typer.Option("--db", help="Results database.")] = Path(DEFAULT_RESULTS),
    records: Annotated[
        Path | None, typer.Option("--records", metavar="FILE.jsonl[.gz]",
                                  help="Also write the tournament's game records as JSON lines "
                                       "(gzip if FILE ends in .gz; arena replay reads them).")
    ] = None,
) -> None:
    """Show tournament progress (help text: ``_STATUS_HELP``)."""
    from arena.tournament.status import status_lines

    if records is not None and tournament is None:
        raise typer.BadParameter("--records needs a tournament name", param_hint="--records")
    typer.echo("\n".join(status_lines(db, tournament, records)))


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("run", help=_RUN_HELP)(run)
    app.command("status", help=_STATUS_HELP)(status)
