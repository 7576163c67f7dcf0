"""CLI commands of the bench layer (registered by arena.cli.main).

``arena bench`` is a group: one subcommand per thing to measure (``arena bench engine``, ...).
The measuring is in :mod:`arena.bench`; each result has ``to_json()`` and ``render()``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.run_report import TerminalReport
from arena.cli.suggesting import SuggestingGroup
from arena.cli.terminal import hanging, terminal_width
from arena.errors import ArenaError, ClusterError
from arena.tournament.events import (
    DatabaseCreated,
    Report,
    RunEvent,
    RunWarning,
    TournamentDropped,
)

# Each command imports its bench when it runs: the benches pull in the whole tournament
# runner, the referee and the kit, which every other ``arena`` command would pay for at
# start-up (Ray, an optional extra, likewise).

__all__ = ["bench_app", "register"]

bench_app = typer.Typer(
    name="bench",
    cls=SuggestingGroup,
    help="Measure how fast the arena runs.\n\nExample: arena bench engine",
    no_args_is_help=True,
)

FormatOption = Annotated[str, typer.Option("--format", "-f", metavar="table|json",
                                           help="table or json.")]


#: Table sizes to measure, for the benches of tournament-sized fields.
TableSizesOption = Annotated[list[int] | None, typer.Option(
    "--players", "-p", min=2, max=5, help="Table sizes (repeatable; default 2 and 4).")]


def _check_format(fmt: str) -> None:
    """Every bench prints a table or JSON; refuse anything else before measuring."""
    if fmt not in ("table", "json"):
        raise typer.BadParameter(f"unknown format '{fmt}' (choose table or json)",
                                 param_hint="'--format' / '-f'")


def _emit(result: Any, fmt: str, *, fits: bool = False) -> None:
    """Print a bench result (anything with ``to_json()`` and ``render()``; ``fits``: whose
    ``render(width=...)`` fits its table to a terminal); on a terminal, its lines wider than
    it wrapped at words (the terminal broke them mid-word)."""
    if fmt == "json":
        typer.echo(json.dumps(result.to_json(), indent=2))
        return
    width = terminal_width()
    text = result.render(width=width) if fits else result.render()
    if width is not None:
        text = "\n".join(line if len(line) <= width else hanging(line, width)
                         for line in text.splitlines())
    typer.echo(text)


_ENGINE_HELP = "\n\n".join([
    "Measure the rules engine on one core (the process is pinned to one CPU while it "
    "runs): random play in decisions/s and games/s with an observation built at every "
    "decision (as play_game does), Desmos evaluate() calls/s on random 5-card hands, and "
    "the census of all 2,349,060 hands in seconds and hands/s. Every figure is the median "
    "of --repeat repetitions. Targets: 100,000 decisions/s; census under 5 s.",
    "Example: arena bench engine",
    "Example: arena bench engine --players 2 --players 5 --games 200 --repeat 7 "
    "--format json",
])


def engine(
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
    fmt: FormatOption = "table",
) -> None:
    """Measure the engine (help text: ``_ENGINE_HELP``)."""
    from arena.bench.engine import run_engine_bench  # start-up: see the note at the top

    _check_format(fmt)
    result = run_engine_bench(tuple(players or (2, 4)), games=games, repeat=repeat,
                              hands=hands, census_repeat=census_repeat)
    _emit(result, fmt, fits=True)


_TOURNAMENT_HELP = "\n\n".join([
    "Measure the tournament runner: the same small round-robin of sample bots (or the "
    "tournament of --spec) through the sandboxed referee with 1 and with 2 worker processes "
    "(games/s over the whole run and the speed-up; aim 1.8x or better on 2 cores); the CPU "
    "of each run (every process of it), split into the runner's, the referees' (the "
    "workers themselves) and the bots' with their sandbox, against the very same games "
    "played in-process on one core right after it (aim: 1.4x or less; wall time 1.6x or less the "
    "in-process CPU over the workers); after a run of several workers, the same games "
    "in-process in as many processes at once, one CPU each (the machine's own speed-up, "
    "which bounds the workers'); "
    "and the store's cost per game (median milliseconds to commit one game and its "
    "compressed record).",
    "With --repeat N each worker count runs N times, every other time in the reverse order, "
    "and the table adds each figure's median and range and the median of the repeats' "
    "speed-ups: on a machine whose speed swings (a cloud VM), one run says little.",
    "Example: arena bench tournament --games 10 --rounds 6 --format json",
    "Example: arena bench tournament --spec tournaments/swiss.yaml --repeat 3",
])


def tournament(
    games: Annotated[int, typer.Option("--games", "-g", min=1, help="Games per match.")] = 10,
    rounds: Annotated[int, typer.Option("--rounds", "-r", min=1,
                                        help="Round-robin cycles (tables = 3 x rounds).")] = 6,
    workers: Annotated[
        list[int] | None,
        typer.Option("--workers", "-w", min=1,
                     help="Worker counts to measure (repeatable; default 1 and 2)."),
    ] = None,
    store_games: Annotated[int, typer.Option("--store-games", min=1,
                                             help="Games inserted to time the store.")] = 500,
    spec: Annotated[Path | None, typer.Option(
        "--spec", metavar="SPEC.yaml",
        help="Play this tournament instead (its results go to a temporary database).")] = None,
    fresh_bots: Annotated[bool, typer.Option(
        "--fresh-bots", help="Start every table's bots afresh (no processes kept between a "
        "worker's tables), to compare.")] = False,
    pin_workers: Annotated[bool | None, typer.Option(
        "--pin-workers/--no-pin-workers", help="Each worker and its bots on one CPU of their "
        "own (default: the spec's pin_workers; off for the built-in round-robin).")] = None,
    repeat: Annotated[int, typer.Option("--repeat", min=1, help="Runs of each worker count, "
                                        "summed up by their medians.")] = 1,
    fmt: FormatOption = "table",
) -> None:
    """Measure the tournament runner (help text: ``_TOURNAMENT_HELP``)."""
    from arena.bench.tournament import run_tournament_bench  # start-up: see the top

    _check_format(fmt)
    result = run_tournament_bench(games=games, rounds=rounds, workers=tuple(workers or (1, 2)),
                                  store_games=store_games, spec_file=spec,
                                  reuse_bots=False if fresh_bots else None,
                                  pin_workers=pin_workers, repeat=repeat,
                                  report=_runs_report())
    _emit(result, fmt)


def _runs_report() -> Report:
    """What the bench's tournament runs tell: their warnings, each once (every run gives the
    sandbox's again), not the news of the bench's own throwaway databases (made, and dropped
    at each repeat)."""
    terminal = TerminalReport(progress=False)
    told: set[str] = set()

    def report(event: RunEvent) -> None:
        if isinstance(event, DatabaseCreated | TournamentDropped):
            return
        if isinstance(event, RunWarning):
            if event.text in told:
                return
            told.add(event.text)
        terminal(event)
    return report


_LEAGUE_HELP = "\n\n".join([
    "Measure league matchmaking on a simulated field (no bots, no sandbox): bots of known "
    "strength, games decided from their true skills plus noise, TrueSkill after every game; "
    "the rank correlation (Kendall's tau, Spearman's rho) of the ratings with the true order "
    "at a number of games, for the league's choice of tables and for uniform random "
    "pairing, averaged over --repeats fields (docs/LEAGUE.md).",
    "Example: arena bench league --bots 50 --repeats 6",
])


def league(
    bots: Annotated[int, typer.Option("--bots", min=4, help="Simulated entrants.")] = 50,
    players: Annotated[int, typer.Option("--players", "-p", min=2, max=5,
                                         help="Table size.")] = 2,
    repeats: Annotated[int, typer.Option("--repeats", min=1,
                                         help="Fields simulated per method.")] = 3,
    checkpoint: Annotated[
        list[int] | None, typer.Option("--games", "-g", min=1,
                                       help="Games at which to measure (repeatable).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the fields and games.")] = 2026,
    fmt: FormatOption = "table",
) -> None:
    """Measure league matchmaking (help text: ``_LEAGUE_HELP``)."""
    from arena.bench.league import CHECKPOINTS, bench_league  # start-up: see the top

    _check_format(fmt)
    if players > bots:
        raise typer.BadParameter(f"{bots} bots cannot fill tables of {players}",
                                 param_hint="--players")
    _emit(bench_league(bots=bots, players=players, repeats=repeats, seed=seed,
                       checkpoints=tuple(sorted(checkpoint or CHECKPOINTS))), fmt)


_PROTOCOL_HELP = "\n\n".join([
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


def protocol(
    decisions: Annotated[int, typer.Option("--decisions", "-d", min=100,
                                           help="Decisions timed (and floor round "
                                                "trips).")] = 5000,
    games: Annotated[int, typer.Option("--games", "-g", min=1,
                                       help="Games of the sandboxed match.")] = 20,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the games.")] = 0,
    pin: Annotated[bool, typer.Option(
        "--one-core", help="Pin the referee and every process it starts to one CPU "
                           "(both ends of each pipe on one core).")] = False,
    fmt: FormatOption = "table",
) -> None:
    """Measure the referee (help text: ``_PROTOCOL_HELP``)."""
    from arena.bench.protocol import run_protocol_bench  # start-up: see the note at the top

    _check_format(fmt)
    result = run_protocol_bench(decisions=decisions, games=games, seed=seed, pin=pin)
    _emit(result, fmt)


_RAY_HELP = "\n\n".join([
    "Measure the Ray backend against the local pool: the same tournament (default "
    "tournaments/swiss.yaml with fewer games) played by the local worker pool and by a "
    "fresh local Ray (games/s over each whole run, start-up included), then where Ray's "
    "overhead goes: ray.init and shutdown, the workers' warm-up, an empty task's round "
    "trip, a streaming task's first message, packing and shipping the bots' files, writing "
    "them on a worker, and the transfer of one game's result to the driver. Needs the "
    "'ray' extra. With --address, Ray's runs join that running cluster (a multi-node one, "
    "say) and its start-up is the join.",
    "Example: arena bench ray --games 20 --workers 2 --repeat 3 --format json",
])


def ray(
    spec: Annotated[Path, typer.Option("--spec", help="Tournament spec to play (its name "
                                                      "and results are replaced).")] =
        Path("tournaments/swiss.yaml"),
    games: Annotated[int, typer.Option("--games", "-g", min=1, help="Games per match.")] = 20,
    rounds: Annotated[int | None, typer.Option("--rounds", "-r", min=1,
                                               help="Rounds (default: the spec's).")] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", min=1,
                                         help="Workers (local pool) and CPUs (Ray).")] = 2,
    repeat: Annotated[int, typer.Option("--repeat", min=1,
                                        help="Runs per backend, alternating (the median "
                                             "is shown).")] = 1,
    address: Annotated[str | None, typer.Option(
        "--address", help="Join this running Ray cluster (HOST:PORT) for Ray's runs instead "
                          "of starting a local Ray.")] = None,
    fmt: FormatOption = "table",
) -> None:
    """Measure the Ray backend (help text: ``_RAY_HELP``)."""
    _check_format(fmt)
    try:  # Ray is an optional extra
        from arena.bench.ray import run_ray_bench
    except ImportError:
        raise ClusterError("Ray is not installed: pip install -e '.[ray]' in the checkout"
                           ) from None
    result = run_ray_bench(spec, games=games, rounds=rounds, workers=workers, repeat=repeat,
                           address=address, report=_runs_report())
    _emit(result, fmt)


_ISMCTS_HELP = "\n\n".join([
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


def ismcts(
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
    fmt: FormatOption = "table",
) -> None:
    """Measure the ISMCTS bot (help text: ``_ISMCTS_HELP``)."""
    from arena.bench.ismcts import run_ismcts_bench  # start-up: see the note at the top

    _check_format(fmt)
    budgets = list(budget or [30, 150])
    if len(budgets) != 2:
        raise typer.BadParameter("give exactly two budgets", param_hint="'--budget'")
    result = run_ismcts_bench(positions, iterations, games, (budgets[0], budgets[1]),
                              bots_dir, seed, on_deal=_print_deal)
    _emit(result, fmt)


def _print_deal(done: int, games: int, shares: list[tuple[str, str, float]]) -> None:
    """The strength games so far, on stderr (the result goes to stdout)."""
    typer.echo(f"strength: {done}/{games} deals: " + ", ".join(
        f"{name_a} vs {name_b} {share:.3f}" for name_a, name_b, share in shares), err=True)


_RL_HELP = "\n\n".join([
    "Measure the PettingZoo environment (arena.rl) against RLCard's UNO environment in the "
    "same run, pinned to one core: steps per CPU second with a random legal action at "
    "every step, ours building the vector observation and the action mask (and, in a "
    "second row, the structured view in infos), RLCard's its state and legal actions. "
    "Aim: 1.5x RLCard's UNO. That is the environment alone.",
    "Then what a learner gets: the Gymnasium environment's learner steps per CPU second (a "
    "random legal action each) with --opponent (a bot, in-process) at every other seat, "
    "--opponent-steps a repetition (fewer: a bot's decision costs far more than a step; 0 "
    "leaves these rows out).",
    "Medians of --repeat alternating repetitions. Needs the 'rl' extra (and rlcard for the "
    "comparison).",
    "Example: arena bench rl --players 2 --steps 20000 --repeat 5 --opponent greedy",
])


def rl(
    players: Annotated[
        list[int] | None,
        typer.Option("--players", "-p", min=2, max=5,
                     help="Table sizes (repeatable; default 2 and 4)."),
    ] = None,
    steps: Annotated[int, typer.Option("--steps", "-s", min=100,
                                       help="AEC steps per repetition.")] = 20_000,
    repeat: Annotated[int, typer.Option("--repeat", "-r", min=1,
                                        help="Repetitions (the median is shown).")] = 5,
    opponent: Annotated[str, typer.Option(
        "--opponent", help="The bot at the learner's other seats (a name or path, run "
        "in-process, unsandboxed: someone else's bot, such as a submitted one, is "
        "refused).")] = "greedy",
    opponent_steps: Annotated[int, typer.Option(
        "--opponent-steps", min=0, help="Learner steps per repetition against --opponent "
        "(0: not measured).")] = 2_000,
    fmt: FormatOption = "table",
) -> None:
    """Measure the training environment (help text: ``_RL_HELP``)."""
    _check_format(fmt)
    try:  # the rl extra is optional
        from arena.bench.rl import run_rl_bench
    except ImportError as exc:
        raise ArenaError(f"the rl extra is not installed ({exc}): pip install -e '.[rl]'"
                         ) from None
    _emit(run_rl_bench(tuple(players or (2, 4)), steps=steps, repeat=repeat,
                       opponent=opponent if opponent_steps else None,
                       opponent_steps=opponent_steps), fmt)


_SWISS_HELP = "\n\n".join([
    "Measure Swiss pairing: seconds to pair one round for fields of 64, 256, 1,000 and "
    "10,000 entrants at tables of 2 and 4 (each field plays --rounds simulated rounds with "
    "seeded random results; the median and the slowest round are shown), what the driver "
    "computes before pairing (the TrueSkill tie-break over every game so far, and the "
    "standings), and the previous "
    "solver on the same inputs for fields up to --before-max, with how the two pairings' "
    "costs compare. Targets: 1,000 entrants under 2 s, 10,000 under 60 s.",
    "Example: arena bench swiss --entrants 1000 --players 4 --rounds 5",
])


def swiss(
    entrants: Annotated[list[int] | None, typer.Option(
        "--entrants", "-n", min=2, help="Field sizes (repeatable; default 64, 256, 1000 "
                                        "and 10000).")] = None,
    players: TableSizesOption = None,
    rounds: Annotated[int, typer.Option("--rounds", "-r", min=1,
                                        help="Rounds paired per field.")] = 3,
    before_max: Annotated[int, typer.Option(
        "--before-max", min=0, help="Largest field the previous solver is timed on (it "
                                    "grows with the square of the field).")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the results.")] = 0,
    fmt: FormatOption = "table",
) -> None:
    """Measure Swiss pairing (help text: ``_SWISS_HELP``)."""
    from arena.bench.swiss import run_swiss_bench  # start-up: see the note at the top

    _check_format(fmt)
    result = run_swiss_bench(tuple(entrants or (64, 256, 1000, 10_000)),
                             tuple(players or (2, 4)), rounds=rounds,
                             before_max=before_max, seed=seed)
    _emit(result, fmt, fits=True)


_LEADERBOARD_HELP = "\n\n".join([
    "Measure what a big tournament costs to read: a finished Swiss of --bots bots and seeded "
    "random results (ten games a table) is written to a temporary database for each --games "
    "and --players; then the leaderboard (what arena leaderboard computes) with no rating "
    "history stored, as a running tournament's is, storing the history once (what arena "
    "run does as it finishes), the leaderboard with it, and one tournament's data for the "
    "site (arena serve, arena report) without and with it, each the median of --repeat "
    "calls. Both leaderboards must list the same ratings ('same').",
    "Example: arena bench leaderboard --games 50000 --players 4 --repeat 1",
])


def leaderboard(
    games: Annotated[list[int] | None, typer.Option(
        "--games", "-g", min=1, help="Games in the tournament (repeatable; default 10000 "
                                     "and 50000).")] = None,
    players: TableSizesOption = None,
    bots: Annotated[int, typer.Option("--bots", min=2, help="Entrants.")] = 200,
    repeat: Annotated[int, typer.Option("--repeat", min=1, help="Calls of each, summed up "
                                                                "by their median.")] = 3,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the results.")] = 0,
    fmt: FormatOption = "table",
) -> None:
    """Measure the leaderboard and the site's reads (help text: ``_LEADERBOARD_HELP``)."""
    from arena.bench.leaderboard import run_leaderboard_bench  # start-up: see the top

    _check_format(fmt)
    sizes = tuple(players or (2, 4))
    if bots < max(sizes):
        raise typer.BadParameter(f"{bots} bots cannot fill a table of {max(sizes)}",
                                 param_hint="'--bots'")
    _emit(run_leaderboard_bench(tuple(games or (10_000, 50_000)), sizes, bots=bots,
                                repeat=repeat, seed=seed), fmt, fits=True)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    bench_app.command("protocol", help=_PROTOCOL_HELP,
                      short_help="Measure the referee's round trip per decision.")(protocol)
    bench_app.command("engine", help=_ENGINE_HELP,
                      short_help="Measure the rules engine's speed on one core.")(engine)
    bench_app.command("tournament", help=_TOURNAMENT_HELP,
                      short_help="Measure the tournament runner's workers.")(tournament)
    bench_app.command("ismcts", help=_ISMCTS_HELP,
                      short_help="Measure the ISMCTS bot's iterations per second.")(ismcts)
    bench_app.command("ray", help=_RAY_HELP,
                      short_help="Measure the Ray backend against the local pool.")(ray)
    bench_app.command("rl", help=_RL_HELP,
                      short_help="Measure the RL environments' steps.")(rl)
    bench_app.command("swiss", help=_SWISS_HELP,
                      short_help="Measure Swiss pairing for large fields.")(swiss)
    bench_app.command("league", help=_LEAGUE_HELP,
                      short_help="Measure league matchmaking on a simulated field.")(league)
    bench_app.command("leaderboard", help=_LEADERBOARD_HELP,
                      short_help="Measure reading a big tournament's results.")(leaderboard)
    app.add_typer(bench_app, name="bench", short_help="Measure how fast the arena runs.")
