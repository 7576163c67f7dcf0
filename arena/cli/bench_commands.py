"""CLI commands of the bench layer (registered by arena.cli.main).

``arena bench`` is a group: one subcommand per thing to measure (``arena bench engine``, ...).
"""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["bench_app", "register"]

bench_app = typer.Typer(
    name="bench",
    help="Measure how fast the arena runs.\n\nExample: arena bench engine",
    no_args_is_help=True,
)


def _register_engine_bench(bench_app: typer.Typer) -> None:
    help_text = "\n\n".join([
        "Measure the rules engine on one core (the process is pinned to one CPU while it "
        "runs): random play in decisions/s and games/s with an observation built at every "
        "decision (as play_game does), Desmos evaluate() calls/s on random 5-card hands, and "
        "the census of all 2,349,060 hands in seconds and hands/s. Every figure is the median "
        "of --repeat repetitions. Targets: 100,000 decisions/s; census under 5 s.",
        "Example: arena bench engine",
        "Example: arena bench engine --players 2 --players 5 --games 200 --repeat 7 "
        "--format json",
    ])

    def engine_command(
        players: Annotated[
            list[int] | None,
            typer.Option("--players", "-p", help="Table sizes to play (repeatable; default 2 "
                                                 "and 4)."),
        ] = None,
        games: Annotated[int, typer.Option("--games", "-g", help="Games per repetition.")] = 100,
        repeat: Annotated[int, typer.Option("--repeat", "-r", help="Repetitions per figure "
                                                                   "(the median is shown).")] = 5,
        hands: Annotated[int, typer.Option("--hands", help="Random hands per evaluate() "
                                                           "repetition.")] = 200_000,
        census_repeat: Annotated[int, typer.Option("--census-repeat",
                                                   help="Census repetitions.")] = 3,
        fmt: Annotated[str, typer.Option("--format", "-f", metavar="table|json",
                                         help="table or json.")] = "table",
    ) -> None:
        import json

        from arena.engine.bench import run_engine_bench

        if fmt not in ("table", "json"):
            raise typer.BadParameter(f"unknown format '{fmt}' (choose table or json)",
                                     param_hint="'--format'")
        result = run_engine_bench(tuple(players or (2, 4)), games=games, repeat=repeat,
                                  hands=hands, census_repeat=census_repeat)
        if fmt == "json":
            typer.echo(json.dumps(result.to_json(), indent=2))
        else:
            typer.echo(result.render())

    bench_app.command("engine", help=help_text)(engine_command)


def _register_tournament_bench(bench_app: typer.Typer) -> None:
    """``arena bench tournament`` (the tournament layer's figures; see arena.tournament.bench)."""
    help_text = "\n\n".join([
        "Measure the tournament runner: the same small round-robin of sample bots through the "
        "sandboxed referee with 1 and with 2 worker processes (games/s over the whole run and "
        "the speed-up; aim 1.8x or better on 2 cores), and the store's cost per game (median "
        "milliseconds to commit one game and its compressed record).",
        "Example: arena bench tournament --games 10 --rounds 6 --format json",
    ])

    def tournament_command(
        games: Annotated[int, typer.Option("--games", "-g", min=1,
                                           help="Games per match.")] = 10,
        rounds: Annotated[int, typer.Option("--rounds", "-r", min=1,
                                            help="Round-robin cycles (tables = 3 x rounds).")] = 6,
        workers: Annotated[
            list[int] | None,
            typer.Option("--workers", "-w", min=1,
                         help="Worker counts to measure (repeatable; default 1 and 2)."),
        ] = None,
        store_games: Annotated[int, typer.Option("--store-games", min=1,
                                                 help="Games inserted to time the store.")] = 500,
        fmt: Annotated[str, typer.Option("--format", "-f", metavar="table|json",
                                         help="table or json.")] = "table",
    ) -> None:
        import json

        from arena.tournament.bench import run_tournament_bench

        if fmt not in ("table", "json"):
            raise typer.BadParameter(f"unknown format '{fmt}' (choose table or json)",
                                     param_hint="'--format'")
        result = run_tournament_bench(games=games, rounds=rounds,
                                      workers=tuple(workers or (1, 2)),
                                      store_games=store_games)
        if fmt == "json":
            typer.echo(json.dumps(result.to_json(), indent=2))
        else:
            typer.echo(result.render())

    bench_app.command("tournament", help=help_text)(tournament_command)


def _register_protocol_bench(bench_app: typer.Typer) -> None:
    """``arena bench protocol`` (the referee's figures; see arena.referee.bench)."""
    help_text = "\n\n".join([
        "Measure the referee: the median round trip per decision with a trivial sandboxed bot "
        "(real game decisions: observation and events encoded, written, answered, read, "
        "validated), the raw pipe ping-pong floor of the same act line through the same "
        "transport measured in the same run (goal: the round trip within 2x of it), and the "
        "decisions/s of a sandboxed match of two random bots against in-process random play.",
        "Example: arena bench protocol --decisions 5000 --games 20",
    ])

    def protocol_command(
        decisions: Annotated[int, typer.Option("--decisions", "-d", min=100,
                                               help="Decisions timed (and floor round "
                                                    "trips).")] = 5000,
        games: Annotated[int, typer.Option("--games", "-g", min=1,
                                           help="Games of the sandboxed match.")] = 20,
        seed: Annotated[int, typer.Option("--seed", help="Seed of the games.")] = 0,
        fmt: Annotated[str, typer.Option("--format", "-f", metavar="table|json",
                                         help="table or json.")] = "table",
    ) -> None:
        import json

        from arena.referee.bench import run_protocol_bench

        if fmt not in ("table", "json"):
            raise typer.BadParameter(f"unknown format '{fmt}' (choose table or json)",
                                     param_hint="'--format'")
        result = run_protocol_bench(decisions=decisions, games=games, seed=seed)
        if fmt == "json":
            typer.echo(json.dumps(result.to_json(), indent=2))
        else:
            typer.echo(result.render())

    bench_app.command("protocol", help=help_text)(protocol_command)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    _register_protocol_bench(bench_app)
    _register_engine_bench(bench_app)
    _register_tournament_bench(bench_app)
    app.add_typer(bench_app, name="bench")
