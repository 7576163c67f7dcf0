"""CLI commands of the bench layer (registered by arena.cli.main).

``arena bench`` is a group: one subcommand per thing to measure (``arena bench engine``, ...).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["bench_app", "register"]

bench_app = typer.Typer(
    name="bench",
    help="Measure how fast the arena runs.\n\nExample: arena bench engine",
    no_args_is_help=True,
)



def _check_format(fmt: str) -> None:
    """Every bench prints a table or JSON; refuse anything else before measuring."""
    if fmt not in ("table", "json"):
        raise typer.BadParameter(f"unknown format '{fmt}' (choose table or json)",
                                 param_hint="'--format'")


def _emit(result: Any, fmt: str) -> None:
    """Print a bench result (anything with ``to_json()`` and ``render()``)."""
    import json

    if fmt == "json":
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        typer.echo(result.render())

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

        from arena.bench.engine import run_engine_bench

        _check_format(fmt)
        result = run_engine_bench(tuple(players or (2, 4)), games=games, repeat=repeat,
                                  hands=hands, census_repeat=census_repeat)
        _emit(result, fmt)

    bench_app.command("engine", help=help_text)(engine_command)


def _register_tournament_bench(bench_app: typer.Typer) -> None:
    """``arena bench tournament`` (the tournament layer's figures; see arena.bench.tournament)."""
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

        from arena.bench.tournament import run_tournament_bench

        _check_format(fmt)
        result = run_tournament_bench(games=games, rounds=rounds,
                                      workers=tuple(workers or (1, 2)),
                                      store_games=store_games)
        _emit(result, fmt)

    bench_app.command("tournament", help=help_text)(tournament_command)


def _register_protocol_bench(bench_app: typer.Typer) -> None:
    """``arena bench protocol`` (the referee's figures; see arena.bench.protocol)."""
    help_text = "\n\n".join([
        "Measure the referee: the median round trip per decision with a trivial sandboxed bot "
        "(real game decisions: observation and events encoded, written, answered, read, "
        "validated), and with a bare protocol child instead of the kit (the referee alone); "
        "the pipe's floor through the same transport in the same run, three ways: the very "
        "bytes of the timed decisions replayed back to back to one trivial child per seat "
        "(replayed: the same messages' ping-pong; goal: the round trip within 2x of it), one "
        "act line echoed back to back (tight), and the replay with the referee's own gaps "
        "between decisions (paced); and the decisions/s of "
        "a sandboxed match of two random bots against in-process random play.",
        "Example: arena bench protocol --decisions 5000 --games 20",
    ])

    def protocol_command(
        decisions: Annotated[int, typer.Option("--decisions", "-d", min=100,
                                               help="Decisions timed (and floor round "
                                                    "trips).")] = 5000,
        games: Annotated[int, typer.Option("--games", "-g", min=1,
                                           help="Games of the sandboxed match.")] = 20,
        seed: Annotated[int, typer.Option("--seed", help="Seed of the games.")] = 0,
        pin: Annotated[bool, typer.Option(
            "--one-core", help="Pin the referee and every process it starts to one CPU "
                               "(both ends of each pipe on one core).")] = False,
        fmt: Annotated[str, typer.Option("--format", "-f", metavar="table|json",
                                         help="table or json.")] = "table",
    ) -> None:

        from arena.bench.protocol import run_protocol_bench

        _check_format(fmt)
        result = run_protocol_bench(decisions=decisions, games=games, seed=seed, pin=pin)
        _emit(result, fmt)

    bench_app.command("protocol", help=help_text)(protocol_command)


def _register_ray_bench(bench_app: typer.Typer) -> None:
    """``arena bench ray``: the Ray backend's figures (issue 6; arena.tournament.ray_backend)."""
    help_text = "\n\n".join([
        "Measure the Ray backend against the local pool: the same tournament (default "
        "tournaments/swiss.yaml with fewer games) played by the local worker pool and by a "
        "fresh local Ray (games/s over each whole run, start-up included), then where Ray's "
        "overhead goes: ray.init and shutdown, the workers' warm-up, an empty task's round "
        "trip, a streaming task's first message, packing and shipping the bots' files, writing "
        "them on a worker, and the transfer of one game's result to the driver. Needs the "
        "'ray' extra.",
        "Example: arena bench ray --games 20 --workers 2 --repeat 3 --format json",
    ])

    def ray_command(
        spec: Annotated[Path, typer.Option("--spec", help="Tournament spec to play (its name "
                                                          "and results are replaced).")] =
            Path("tournaments/swiss.yaml"),
        games: Annotated[int, typer.Option("--games", "-g", min=1,
                                           help="Games per match.")] = 20,
        rounds: Annotated[int | None, typer.Option("--rounds", "-r", min=1,
                                                   help="Rounds (default: the spec's).")] = None,
        workers: Annotated[int, typer.Option("--workers", "-w", min=1,
                                             help="Workers (local pool) and CPUs (Ray).")] = 2,
        repeat: Annotated[int, typer.Option("--repeat", min=1,
                                            help="Runs per backend, alternating (the median "
                                                 "is shown).")] = 1,
        fmt: Annotated[str, typer.Option("--format", "-f", metavar="table|json",
                                         help="table or json.")] = "table",
    ) -> None:

        _check_format(fmt)
        try:
            from arena.bench.ray import run_ray_bench
        except ImportError:
            from arena.errors import ClusterError

            raise ClusterError("Ray is not installed: pip install -e '.[ray]' in the checkout"
                               ) from None
        result = run_ray_bench(spec, games=games, rounds=rounds, workers=workers,
                               repeat=repeat)
        _emit(result, fmt)

    bench_app.command("ray", help=help_text)(ray_command)


def _register_ismcts_bench(bench_app: typer.Typer) -> None:
    """``arena bench ismcts``: the ISMCTS bot's search speed, and its strength at two budgets
    (issue 7). Runs the bot in-process (it is our own sample bot, not untrusted code)."""
    help_text = "\n\n".join([
        "Measure bots/ismcts.py: ISMCTS iterations (descents: determinise, select, play out "
        "to the end with the engine, back up) per second of CPU and of wall-clock time, from "
        "the positions of real games (greedy players, 2 and 4 players; early, middle and late "
        "turns), each search with a fixed number of iterations; plus the cost of one "
        "determinisation and one playout. With --games, also its strength at two budgets "
        "(milliseconds of CPU per decision): duplicate 2-player games of the two budgets head "
        "to head and each against bots/heuristic.py, in-process.",
        "Example: arena bench ismcts --positions 12 --iterations 200",
        "Example: arena bench ismcts --games 100 --budget 30 --budget 150 --format json",
    ])

    def ismcts_command(
        positions: Annotated[int, typer.Option("--positions", "-p", min=1,
                                               help="Positions per table size.")] = 12,
        iterations: Annotated[int, typer.Option("--iterations", "-i", min=1,
                                                help="Iterations per search.")] = 200,
        games: Annotated[int, typer.Option("--games", "-g", min=0,
                                           help="Deals per strength match (each played "
                                                "from both seats; 0: skip).")] = 0,
        budget: Annotated[list[int] | None, typer.Option(
            "--budget", "-b", help="The two budgets in CPU ms (default 30 and 150).")] = None,
        bots_dir: Annotated[Path | None, typer.Option(
            "--bots", help="Where ismcts.py and heuristic.py are (default: the arena's own "
            "sample bots).")] = None,
        seed: Annotated[int, typer.Option("--seed", help="Seed of the games.")] = 1,
        fmt: Annotated[str, typer.Option("--format", "-f", metavar="table|json",
                                         help="table or json.")] = "table",
    ) -> None:
        import json
        import random
        import statistics
        import time

        from arena.engine import GameConfig, new_game
        from arena.sdk import Bot, GameStart, Request
        from arena.sdk.runner import load_bot
        from arena.sdk.search import SearchView, play_out

        _check_format(fmt)
        budgets = list(budget or [30, 150])
        if len(budgets) != 2:
            raise typer.BadParameter("give exactly two budgets", param_hint="'--budget'")

        from arena.errors import ArenaError
        from arena.registry import SAMPLE_BOTS_DIR
        from arena.sdk.runner import BotLoadError

        where = bots_dir if bots_dir is not None else SAMPLE_BOTS_DIR
        for name in ("ismcts", "heuristic"):
            if not (where / f"{name}.py").is_file():
                raise ArenaError(f"no {name}.py in {where} (--bots names the directory of "
                                 "ismcts.py and heuristic.py)")

        def make(name: str, ms: float = 0, its: int = 0) -> Bot:
            try:
                bot = load_bot(where / f"{name}.py")
            except BotLoadError as exc:
                raise ArenaError(str(exc)) from None
            if name == "ismcts":
                bot.ms, bot.iterations = ms, its  # type: ignore[attr-defined]
            return bot

        def play(bots: list[Bot], game_seed: int, visit: Any = None) -> Any:
            """A game between kit bots in-process, asked as the referee asks them."""
            n = len(bots)
            config = GameConfig(players=tuple(f"p{i}" for i in range(n)), seed=game_seed)
            state = new_game(config)
            for s, b in enumerate(bots):
                b.on_game_start(GameStart(0, s, list(config.players), 0, config.rounds))
            cursors = [0] * n
            while state.decision is not None:
                d = state.decision
                events = state.events_for(d.seat, cursors[d.seat])
                cursors[d.seat] += len(events)
                for event in events:
                    bots[d.seat].on_event(event)
                request = Request(0, d.kind, state.observe(d.seat, False).to_json(False),
                                  list(d.options), None, dict(d.context), d.seat)
                if visit is not None:
                    visit(state, request, bots[d.seat])
                state.apply(bots[d.seat].act(request))
            return state

        # -- speed: searches from positions of real games ------------------------------------
        speed: list[dict[str, Any]] = []
        for players in (2, 4):
            found: list[tuple[Any, Request, Bot]] = []

            def keep(state: Any, request: Request, bot: Bot, players: int = players,
                     found: list[Any] = found) -> None:
                if request.kind in ("turn", "swap") and request.seat == 0:
                    found.append((state.turn / (state.rounds * players), request, bot))

            rows: dict[str, list[tuple[float, float, int]]] = {"early": [], "middle": [],
                                                               "late": []}
            costs: list[tuple[float, float]] = []
            game = 0
            while sum(map(len, rows.values())) < positions:
                found.clear()
                probe = make("ismcts", 0, iterations)
                timed: list[tuple[float, float, int]] = []

                def search(view: Any, rng: Any, time_ms: Any = None, probe: Any = probe,
                           timed: list[Any] = timed) -> int:
                    cpu, wall = time.process_time(), time.perf_counter()
                    choice = type(probe).search(probe, view, rng, time_ms)
                    timed.append((time.process_time() - cpu, time.perf_counter() - wall,
                                  probe.last_iterations))
                    return int(choice)

                probe.search = search  # type: ignore[attr-defined]
                bots = [probe] + [make("greedy") for _ in range(players - 1)]
                play(bots, seed * 1000 + game, keep)
                game += 1
                searched = [f for f in found if f[1].kind in ("turn", "swap")]
                for (phase, request, _), measured in zip(searched, timed):
                    bucket = "early" if phase < 1 / 3 else "middle" if phase < 2 / 3 else "late"
                    rows[bucket].append(measured)
                    view = SearchView(request.observation, [], request.kind, request.legal)
                    if len(costs) < 3 * positions:
                        cpu = time.process_time()
                        sample = view.sample_state(len(costs))
                        mid = time.process_time()
                        play_out(sample, random.Random(len(costs)))
                        costs.append((mid - cpu, time.process_time() - mid))
            for phase, results in rows.items():
                if results:
                    speed.append({
                        "players": players, "phase": phase, "searches": len(results),
                        "iterations_per_cpu_s": statistics.median(
                            n / c for c, _, n in results if c > 0),
                        "iterations_per_wall_s": statistics.median(
                            n / w for _, w, n in results if w > 0),
                    })
            speed.append({"players": players, "phase": "costs",
                          "determinisation_ms": 1000 * statistics.median(c for c, _ in costs),
                          "playout_ms": 1000 * statistics.median(p for _, p in costs)})

        # -- strength at two budgets ---------------------------------------------------------
        strength: list[dict[str, Any]] = []
        if games:
            low, high = budgets
            pairs = [(f"ismcts@{high}ms", lambda: make("ismcts", high),
                      f"ismcts@{low}ms", lambda: make("ismcts", low)),
                     (f"ismcts@{high}ms", lambda: make("ismcts", high),
                      "heuristic", lambda: make("heuristic")),
                     (f"ismcts@{low}ms", lambda: make("ismcts", low),
                      "heuristic", lambda: make("heuristic"))]
            # deal by deal, every pair in turn: a run stopped early still reports all three
            players_ = [(make_a(), make_b()) for _, make_a, _, make_b in pairs]
            scores = [0.0] * len(pairs)
            for g in range(games):
                for k, (a, b) in enumerate(players_):
                    for seats in ((a, b), (b, a)):
                        places = play(list(seats), seed * 7919 + g).result.placements
                        mine = places[seats.index(a)]
                        scores[k] += 1.0 / places.count(1) if mine == 1 else 0.0
                typer.echo(f"strength: {g + 1}/{games} deals: " + ", ".join(
                    f"{name_a} vs {name_b} {scores[k] / (2 * g + 2):.3f}"
                    for k, (name_a, _, name_b, _) in enumerate(pairs)), err=True)
            for k, (name_a, _, name_b, _) in enumerate(pairs):
                share = scores[k] / (2 * games)
                strength.append({"a": name_a, "b": name_b, "games": 2 * games,
                                 "a_first_share": share,
                                 "stderr": (share * (1 - share) / (2 * games)) ** 0.5})

        result = {"iterations_per_search": iterations, "speed": speed, "strength": strength}
        if fmt == "json":
            typer.echo(json.dumps(result, indent=2))
            return
        typer.echo(f"ISMCTS speed ({iterations} iterations per search, median per position):")
        for row in speed:
            if row["phase"] == "costs":
                typer.echo(f"  {row['players']} players: one determinisation "
                           f"{row['determinisation_ms']:.3f} ms, one playout to the end "
                           f"{row['playout_ms']:.2f} ms (CPU)")
            else:
                typer.echo(f"  {row['players']} players, {row['phase']:6s} "
                           f"({row['searches']:2d} searches): "
                           f"{row['iterations_per_cpu_s']:7.0f} iterations/s CPU, "
                           f"{row['iterations_per_wall_s']:7.0f} wall")
        for row in strength:
            typer.echo(f"  {row['a']} vs {row['b']}: first place {row['a_first_share']:.3f} "
                       f"+- {row['stderr']:.3f} over {row['games']} duplicate games")

    bench_app.command("ismcts", help=help_text)(ismcts_command)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    _register_protocol_bench(bench_app)
    _register_engine_bench(bench_app)
    _register_tournament_bench(bench_app)
    _register_ismcts_bench(bench_app)
    _register_ray_bench(bench_app)
    app.add_typer(bench_app, name="bench")
