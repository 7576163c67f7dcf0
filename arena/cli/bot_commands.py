"""CLI commands of the bot layer (registered by arena.cli.main)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.output_file import check_output_file
from arena.referee.seating import SEATINGS, seatings_per_deal


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    _register_doctor(app)
    _register_check_bot(app)
    _register_submit(app)
    _register_match(app)
    _register_bots(app)


def _register_doctor(app: typer.Typer) -> None:
    """``arena doctor``: which sandbox layers work here and what bots run with."""

    @app.command("doctor", help=_help(
        "Check the bot sandbox: each isolation layer (active, or missing and why), the "
        "interpreter and user bots run with. Exit 1 only when bots cannot run at all.",
        "Example: arena doctor"))
    def doctor(
        as_json: bool = typer.Option(False, "--json", help="Print the report as one JSON object."),
    ) -> None:
        """Report the sandbox (help text above)."""
        import json

        from arena.native import native_build
        from arena.sandbox import Limits, probe
        from arena.sandbox.report import NOT_NEEDED
        from arena.sandbox.uids import UID_BASE

        report = probe()
        if as_json:
            data = {**report.to_json(), "engine": str(native_build())}
            typer.echo(json.dumps(data, indent=2))
            raise typer.Exit(0 if report.can_run else 1)
        limits = Limits()
        what = {
            "setsid": "own session and process group, killed as a whole",
            "rlimits": (f"memory {limits.memory_mb} MiB, cpu {limits.cpu_seconds} s, "
                        f"{limits.open_files} files, {limits.file_size_mb} MiB per file, "
                        f"{limits.processes} processes, no core dumps (defaults)"),
            "user": ("each bot under a uid and group of its own (fresh per launch)"
                     if report.uid is not None else f"bots run as {report.user}"),
            "bwrap": "pid, network, ipc and uts namespaces; read-only system, root and /dev; "
                     "private /tmp and /dev/shm (tmp_mb each)",
            "landlock": "filesystem allow list: system, own files, kit; writes only to scratch",
            "seccomp": "no ptrace, mounts, namespaces, kernel keys, bpf, io_uring, inet "
                       "sockets, locks",
            "cgroup": "memory.max and pids.max per bot",
        }
        typer.echo(f"Sandbox level: {report.level}")
        for name in ("setsid", "rlimits", "user", "bwrap", "landlock", "seccomp", "cgroup"):
            status = report.layers.get(name, "not probed")
            if status is True:
                mark, detail = "ok  ", what[name]
            elif isinstance(status, str) and status.startswith(NOT_NEEDED):
                mark, detail = "n/a ", status[len(NOT_NEEDED):]
            else:
                mark, detail = "MISS", str(status)
            typer.echo(f"  [{mark}] {name:<8} {detail}")
        typer.echo(f"Interpreter: {report.python}"
                   + (f" (Python {report.python_version})" if report.python_version else ""))
        typer.echo(f"Runs as:     {report.user}" if report.uid is None else
                   f"Runs as:     a uid and group of its own per bot (from {UID_BASE:,})")
        typer.echo(f"Bot kit:     {report.kit_path} (on the bots' PYTHONPATH)")
        typer.echo(f"Build:       {native_build()} in the referee; "
                   f"{report.bot_engine or 'unknown'} in bots")
        if not report.can_run:
            typer.echo("Bots cannot run here:", err=True)
            for line in report.warnings:
                typer.echo(f"  {line}", err=True)
            raise typer.Exit(1)
        if report.warnings:
            typer.echo(f"{len(report.warnings)} layer(s) missing; bots run at level "
                       f"{report.level}.")


# --------------------------------------------------------------------------- bots and matches
def _help(*paragraphs: str) -> str:
    return "\n\n".join(paragraphs)


def _limits(decision_ms: int | None, time_bank_ms: int | None, max_strikes: int | None) -> Any:
    from arena.sandbox import Limits

    changes = {k: v for k, v in (("decision_ms", decision_ms), ("time_bank_ms", time_bank_ms),
                                 ("max_strikes", max_strikes)) if v is not None}
    return Limits.from_mapping(changes)


def _setting(text: str, flag: str, form: str) -> tuple[str, Any]:
    """``KEY=VALUE`` -> (key, value), the value read as a YAML scalar (250, 0.5, true,
    text)."""
    import yaml

    key, equals, value = text.partition("=")
    if not (equals and key.strip()):
        raise typer.BadParameter(f"expected {form}, got {flag!r}", param_hint="'--option'")
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    return key.strip(), parsed


def _configured(ref: str, settings: dict[str, Any], where: str) -> Any:
    """``ref`` resolved and given ``settings`` as its options (checked first)."""
    from arena.registry import option_problems, require_named_options, resolve

    problems = option_problems(settings, where)
    if problems:
        raise typer.BadParameter("; ".join(problems), param_hint="'--option'")
    return require_named_options(ref, resolve(ref).with_options(settings))


def _told_apart(entrants: list[Any]) -> list[Any]:
    """The match's bots, resolved; a bot entered more than once (self-play) is named
    ``name#1``, ``name#2``, ... so that its rows and places can be told apart."""
    from dataclasses import replace

    from arena.registry import require_named_options, resolve

    specs = [e if not isinstance(e, str) else require_named_options(e, resolve(e))
             for e in entrants]
    names = [s.name for s in specs]
    seen: dict[str, int] = {}
    for i, spec in enumerate(specs):
        if names.count(spec.name) > 1:
            seen[spec.name] = seen.get(spec.name, 0) + 1
            specs[i] = replace(spec, name=f"{spec.name}#{seen[spec.name]}")
    return specs


def _with_options(bots: list[str], flags: list[str]) -> list[Any]:
    """The match's bots, those named by ``--option N:KEY=VALUE`` flags resolved and given
    their options."""
    options: dict[int, dict[str, Any]] = {}
    for flag in flags:
        seat, colon, setting = flag.partition(":")
        if not (colon and seat.strip().isdigit()):
            raise typer.BadParameter(f"expected N:KEY=VALUE, got {flag!r}",
                                     param_hint="'--option'")
        key, value = _setting(setting, flag, "N:KEY=VALUE")
        index = int(seat)
        if not 1 <= index <= len(bots):
            raise typer.BadParameter(f"{flag!r}: there is no bot {index} (give 1 to "
                                     f"{len(bots)})", param_hint="'--option'")
        options.setdefault(index - 1, {})[key] = value
    entrants: list[Any] = list(bots)
    for index, settings in sorted(options.items()):
        entrants[index] = _configured(bots[index], settings, f"bot {index + 1} options")
    return entrants


def _print_report(report: Any) -> None:
    _print_header(report)
    for line in report.lines():
        typer.echo(line)


def _print_header(report: Any) -> None:
    typer.echo(f"Checking {report.bot} (version {report.version})"
               + (f" in the sandbox ({report.sandbox_level})" if report.sandbox_level else ""))


def _print_item(report: Any, item: Any) -> None:
    """A check's line as soon as it is decided, after the header with the first."""
    if item is report.items[0]:
        _print_header(report)
    typer.echo(item.line())


def _register_check_bot(app: typer.Typer) -> None:
    """``arena check-bot PATH``: the compliance checklist for bot authors."""

    @app.command("check-bot", help=_help(
        "Check that a bot follows the protocol: handshake, metadata, games of decisions within "
        "the limits, game boundaries, clean exit on bye. Prints one line per check (✓, or ✗ "
        "with the reason); exit code 0 when every check passes, 1 otherwise.",
        "Example: arena check-bot bots/greedy.py"))
    def check_bot_command(
        path: str = typer.Argument(..., help="A bot: a .py module, a directory with bot.yaml, "
                                             "or a registered name."),
        games: int = typer.Option(4, "--games", min=1, help="Games to play (2, 3, 4 and 5 "
                                                            "players in turn)."),
        seed: int = typer.Option(0, "--seed", help="Seed of the check's games."),
        decision_ms: int | None = typer.Option(None, "--decision-ms", min=1,
                                               help="Time per decision (default 1000)."),
        as_json: bool = typer.Option(False, "--json", help="Print the checklist as JSON."),
        option: Annotated[list[str] | None, typer.Option(
            "--option", "-o", metavar="KEY=VALUE",
            help="A setting sent in hello, as a tournament entry's options are (e.g. -o "
                 "iterations=250); repeat for more.")] = None,
    ) -> None:
        import json

        from arena.referee.check import check_bot

        bot: Any = path
        if option:
            settings = dict(_setting(flag, flag, "KEY=VALUE") for flag in option)
            bot = _configured(path, settings, "options")
        report = check_bot(bot, games=games, seed=seed,
                           limits=_limits(decision_ms, None, None),
                           on_item=None if as_json else _print_item)
        if as_json:
            typer.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        else:
            failed = len(report.failures())
            typer.echo(f"PASS: {report.bot} is ready to submit." if report.ok else
                       f"FAIL: {failed} of {len(report.items)} checks failed.")
        raise typer.Exit(0 if report.ok else 1)


def _register_submit(app: typer.Typer) -> None:
    """``arena submit PATH [--name NAME]``: check, then register under bots/."""

    @app.command("submit", help=_help(
        "Run the compliance check on a bot, then register it in the bots directory "
        "($ARENA_BOTS_DIR, else ./bots, else the arena's own bots/) with a content-hash "
        "version and its metadata (recorded in its registry.yaml). A name that is taken or a "
        "failing check is refused with the reason; --update registers a new version of a bot "
        "under its name (results keep naming the old one).",
        "Example: arena submit ~/my_bot.py --name mybot",
        "Example: arena submit ~/my_bot.py --name mybot --update"))
    def submit_command(
        path: str = typer.Argument(..., help="The bot to submit: a .py module or a directory "
                                             "with bot.yaml."),
        name: str | None = typer.Option(None, "--name", help="Register under this name "
                                                             "(default: the bot's own)."),
        update: bool = typer.Option(False, "--update", help="Replace the bot registered "
                                                            "under this name."),
    ) -> None:
        from arena.referee.check import check_bot
        from arena.registry import default_bots_dir, submit

        checked: list[Any] = []

        def check(spec: Any) -> Any:
            report = check_bot(spec)
            _print_report(report)
            checked.append(report)
            return report

        bots_dir = default_bots_dir()
        spec = submit(path, name=name, bots_dir=bots_dir, check=check, update=update)
        where = spec.path.relative_to(bots_dir.resolve()) if spec.path.is_relative_to(
            bots_dir.resolve()) else spec.path
        if not checked:  # submit skips the check only when these files are registered already
            typer.echo(f"Already registered: {spec.name} version {spec.version} at "
                       f"{bots_dir / where} has the same files; nothing to do")
            return
        typer.echo(f"Registered {spec.name} version {spec.version} at "
                   f"{bots_dir / where}")


def _register_match(app: typer.Typer) -> None:
    """``arena match BOT BOT [BOT ...]``: one sandboxed match with diagnostics."""

    @app.command("match", help=_help(
        "Play one match of 2-5 bots through the sandbox, each bot one persistent process. "
        "Prints placements per game and per-bot diagnostics: decisions, median and max "
        "latency, timeouts, failures by type; with two bots also the first one's Elo "
        "difference with its 95% interval.",
        "With --sprt ELO0,ELO1 (two bots) the match is a sequential test, as chess engine "
        "testers run them: it stops once the games show the first bot at least ELO1 Elo "
        "stronger (H1) or at most ELO0 (H0), with error rates --alpha and --beta; --games "
        "is then the most it plays (default 2000). It plays each deal twice, the bots' seats "
        "swapped (--duplicate rotations), so that neither a seat nor a deal favours one bot.",
        "With --duplicate each deal is played once per seat order: rotations (k orders for k "
        "bots) or permutations (k!); --games is then a multiple of that.",
        "Example: arena match bots/random.py bots/greedy.py --games 10 --seed 1",
        "Example: arena match mybot mybot@1a2b3c4d5e6f --sprt 0,10"))
    def match_command(
        bots: Annotated[list[str], typer.Argument(
            help="2 to 5 bots: registered names, .py modules or bot directories.")],
        games: Annotated[int | None, typer.Option(
            "--games", "-g", min=1, help="Games to play (default 1, or one deal in each "
            "seating with --duplicate; with --sprt the most to play, default 2000).")] = None,
        seed: Annotated[int | None, typer.Option(
            "--seed", "-s", min=0, help="Match seed (game seeds derive from it). Default: a "
            "secret one, drawn now and printed after the match: a bot that knew the seed "
            "could compute every deal.")] = None,
        records: Annotated[Path | None, typer.Option(
            "--records", help="Write each game's record to this JSONL file.")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as one JSON "
                                                             "object.")] = False,
        decision_ms: Annotated[int | None, typer.Option(
            "--decision-ms", min=1, help="Time per decision (default 1000).")] = None,
        time_bank_ms: Annotated[int | None, typer.Option(
            "--time-bank-ms", min=0, help="Time bank per game (default 10000).")] = None,
        max_strikes: Annotated[int | None, typer.Option(
            "--max-strikes", min=0,
            help="Strikes per game before a forfeit (default 3).")] = None,
        option: Annotated[list[str] | None, typer.Option(
            "--option", "-o", metavar="N:KEY=VALUE",
            help="A setting for the N-th bot (1-based), sent in hello as a tournament "
                 "entry's options are, e.g. -o 1:iterations=250; repeat for more.")] = None,
        sprt: Annotated[str | None, typer.Option(
            "--sprt", metavar="ELO0,ELO1",
            help="Play a sequential test of the first bot against the second: H0 it is ELO0 "
                 "Elo stronger, H1 ELO1 (e.g. 0,10); stops when one is accepted.")] = None,
        alpha: Annotated[float | None, typer.Option(
            "--alpha", help="With --sprt: the chance of accepting H1 when H0 holds (default "
            "0.05).")] = None,
        beta: Annotated[float | None, typer.Option(
            "--beta", help="With --sprt: the chance of accepting H0 when H1 holds (default "
            "0.05).")] = None,
        duplicate: Annotated[str | None, typer.Option(
            "--duplicate", metavar="|".join(SEATINGS),
            help="Play each deal once per seat order (default: none; rotations with "
                 "--sprt).")] = None,
    ) -> None:
        import json
        import secrets

        from arena.errors import ArenaError
        from arena.rating.sprt import Score
        from arena.referee.match import MatchRequest, play_match

        test = _sprt_test(sprt, alpha, beta, len(bots))
        seating = _seating(duplicate, test is not None)
        per_deal = seatings_per_deal(len(bots), seating) if len(bots) <= 5 else 1
        if games is None:
            games = SPRT_GAMES - SPRT_GAMES % per_deal if test is not None else per_deal
        elif games % per_deal:
            raise typer.BadParameter(
                f"--duplicate {seating} plays each deal in {per_deal} seatings: give a "
                f"multiple of {per_deal}, not {games}", param_hint="'--games'")

        drawn = seed is None
        seed = secrets.randbits(63) if seed is None else seed
        limits = _limits(decision_ms, time_bank_ms, max_strikes)
        entrants = _told_apart(_with_options(bots, option or []))
        if records is not None:
            check_output_file(records, "'--records'")
        opened: list[Any] = []
        played: list[Any] = []

        def on_game(game: Any) -> None:
            played.append(game)
            # Opened at the first finished game: a match that cannot start leaves no file.
            if records is None:
                return
            try:
                if not opened:
                    opened.append(records.open("w", encoding="utf-8"))
                opened[0].write(json.dumps(game.record, separators=(",", ":")) + "\n")
                opened[0].flush()
            except OSError as exc:  # a full disk, say: the match stops, its bots ended
                raise ArenaError(f"cannot write game records to {records}: "
                                 f"{exc.strerror or exc}") from None

        def decided(played: list[Any]) -> bool:
            return test is not None and test.decision(_score(played)) is not None

        try:
            outcome = play_match(MatchRequest(bots=entrants, games=games, seed=seed,
                                              limits=limits, duplicate=seating),
                                 on_game=on_game, stop=decided)
        except KeyboardInterrupt:
            typer.echo(_interrupted(played, games, seed, records), err=True)
            whole = played[:len(played) - len(played) % per_deal]  # the test counts deals
            if test is not None and whole:
                typer.echo("\n".join(_head_to_head_lines(whole[0].names, _score(whole), test,
                                                         None)), err=True)
            raise
        finally:
            for out in opened:
                out.close()
        score = _score(outcome.games) if len(bots) == 2 else Score()
        if as_json:
            extra: dict[str, Any] = {}
            if len(bots) == 2:
                extra["elo"] = _elo_json(score)
            if test is not None:
                extra["sprt"] = {"elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha,
                                 "beta": test.beta, "llr": round(test.llr(score), 4),
                                 "bounds": [round(b, 4) for b in test.bounds],
                                 "decision": test.decision(score)}
            typer.echo(json.dumps({"seed": seed, **outcome.to_json(), **extra}, indent=2))
        else:
            typer.echo(_render_match(outcome, f"Seed {seed}" + (
                f" (drawn for this match; --seed {seed} plays the same games)" if drawn
                else "")))
            if len(bots) == 2 and score.games:
                typer.echo("\n" + "\n".join(_head_to_head_lines(outcome.names, score, test,
                                                                 games)))
            if records is not None:
                typer.echo(f"Wrote {len(outcome.games)} game records to {records} "
                           f"(arena game {records} -n 1 shows game 0)")
        never = _never_started(outcome)
        if never:
            from arena.errors import BotError

            raise BotError(f"{', '.join(never)} never started (the failures above say why)")


#: The most games ``arena match --sprt`` plays when --games is not given.
SPRT_GAMES = 2000


def _seating(duplicate: str | None, sequential: bool) -> str:
    """``--duplicate`` checked; by default a sequential test plays each deal both ways."""
    if duplicate is None:
        return "rotations" if sequential else "none"
    if duplicate not in SEATINGS:
        raise typer.BadParameter(f"unknown seating '{duplicate}' (choose "
                                 f"{', '.join(SEATINGS[:-1])} or {SEATINGS[-1]})",
                                 param_hint="'--duplicate'")
    return duplicate


def _sprt_test(text: str | None, alpha: float | None, beta: float | None, bots: int) -> Any:
    """``--sprt ELO0,ELO1`` as a test (None without it); usage errors say what is wrong."""
    from arena.rating.sprt import SprtTest

    if text is None:
        given = [flag for flag, value in (("--alpha", alpha), ("--beta", beta))
                 if value is not None]
        if given:
            raise typer.BadParameter(f"{' and '.join(given)} only set the error rates of a "
                                     "sequential test: give --sprt ELO0,ELO1 too",
                                     param_hint=f"'{given[0]}'")
        return None
    alpha = 0.05 if alpha is None else alpha
    beta = 0.05 if beta is None else beta
    if bots != 2:
        raise typer.BadParameter(f"a sequential test compares two bots, not {bots}",
                                 param_hint="'--sprt'")
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        values = []
    if len(values) != 2 or not all(math.isfinite(v) for v in values):
        raise typer.BadParameter(f"expected ELO0,ELO1 such as 0,10, got {text!r}",
                                 param_hint="'--sprt'")
    try:
        return SprtTest(values[0], values[1], alpha, beta)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--sprt'") from None


def _score(games: list[Any]) -> Any:
    """The first bot's score against the second: a better place 1, the same 1/2, worse 0
    (a forfeited seat is placed last)."""
    from arena.rating.sprt import Score

    score = Score()
    for game in games:
        first, second = game.placements[game.seat_of(0)], game.placements[game.seat_of(1)]
        score = score.add(1.0 if first < second else 0.0 if first > second else 0.5)
    return score


def _elo_json(score: Any) -> dict[str, Any]:
    """The first bot's score and Elo difference (an infinite end of the interval is null)."""
    elo, low, high = score.elo()

    def shown(value: float) -> float | None:
        return None if math.isinf(value) else round(value, 1)

    return {"wins": score.wins, "draws": score.draws, "losses": score.losses,
            "score": round(score.mean, 4), "elo": shown(elo), "elo_95": [shown(low),
                                                                          shown(high)],
            "los": round(score.los(), 4)}


def _signed(value: float) -> str:
    return f"{value:+.1f}" if not math.isinf(value) else ("+inf" if value > 0 else "-inf")


def _head_to_head_lines(names: list[str], score: Any, test: Any,
                        cap: int | None) -> list[str]:
    """The first bot against the second: score, Elo with its 95% interval, LOS, and the
    sequential test's verdict."""
    elo, low, high = score.elo()
    interval = (f"95%: {_signed(low)} to {_signed(high)}" if not (math.isinf(low)
                and math.isinf(high)) else "no interval while every game ended alike")
    counted = ", ".join(f"{n} {word}{'' if n == 1 else plural}" for n, word, plural in (
        (score.wins, "win", "s"), (score.draws, "shared place", "s"),
        (score.losses, "loss", "es")))
    lines = [f"{names[0]} against {names[1]}: {counted}; score {score.mean:.1%}; Elo "
             f"difference {_signed(elo)} "
             f"({interval}); likelihood of superiority {score.los():.1%}"]
    if test is not None:
        lower, upper = test.bounds
        decision = test.decision(score)
        favoured = {"H1": (test.elo1, test.elo0), "H0": (test.elo0, test.elo1)}
        if decision is not None:
            this, other = favoured[decision]
            verdict = (f"{decision} accepted: the games favour {names[0]} at {this:+g} Elo "
                       f"over {other:+g} against {names[1]}")
        elif cap is None:
            verdict = "undecided so far"
        else:
            verdict = f"undecided at the cap of {cap} game{'' if cap == 1 else 's'} (--games)"
        lines.append(f"{test.describe()}: LLR {test.llr(score):.2f} (bounds {lower:.2f}, "
                     f"{upper:.2f}) after {score.games} game{'' if score.games == 1 else 's'}: "
                     f"{verdict}")
    return lines


def _never_started(outcome: Any) -> list[str]:
    """The bots whose every game was a failed start: the match measured nothing of them."""
    names = outcome.names
    return [names[seat] for seat in range(len(names))
            if outcome.games and all(game.forfeits.get(game.seat_of(seat))
                                     == "startup_failure"
                                     for game in outcome.games)]


def _interrupted(played: list[Any], games: int, seed: int, records: Path | None) -> str:
    """What a Ctrl-C leaves: how far the match got, each bot's wins so far, how to replay."""
    if not played:
        return f"Interrupted before the first game ended (seed {seed})."
    names = played[0].names  # the first game of a deal seats the bots in the match's order
    wins = [sum(1 for game in played if game.won(game.seat_of(index)))
            for index in range(len(names))]
    kept = f"; their records are in {records}" if records is not None else ""
    return (f"Interrupted after {len(played)} of {games} games (seed {seed} replays them"
            f"{kept}); wins so far: "
            + ", ".join(f"{name} {n}" for name, n in zip(names, wins, strict=True)))


def _render_match(outcome: Any, seed_line: str) -> str:
    from tabulate import tabulate

    names = outcome.names
    lines = [f"Match {' vs '.join(names)}: {len(outcome.games)} game(s), "
             f"sandbox {outcome.sandbox_level or 'n/a'}", seed_line]
    rows = []
    seated = any(game.entrants for game in outcome.games)
    for game in outcome.games:
        failures = ", ".join(f"{game.names[f['seat']]} {f['type']}" for f in game.failures)
        order = range(len(names))
        rows.append([game.game_index, *([" ".join(game.names)] if seated else []),
                     game.names[game.starting_seat],
                     " ".join(str(game.placements[game.seat_of(i)]) for i in order),
                     ", ".join(game.desmos[game.seat_of(i)] for i in order), game.tiebreak,
                     failures or "-"])
    lines.append(tabulate(rows, headers=["game", *(["seats"] if seated else []), "starts",
                                         f"places ({', '.join(names)})",
                                         "desmos (same order)" if seated else "desmos",
                                         "tiebreak", "failures"]))
    lines.append("")
    rows = []
    standings = outcome.standings()
    for stats, diag in zip(standings, outcome.bots, strict=True):
        failures = ", ".join(f"{t} {n}" for t, n in diag["failures"].items()) or "-"
        rows.append([diag["name"], diag["bot"].split("@")[1], stats["wins"],
                     stats["mean_place"], diag["decisions"],
                     "-" if diag["median_ms"] is None else f"{diag['median_ms']:.2f}",
                     "-" if diag["max_ms"] is None else f"{diag['max_ms']:.1f}",
                     diag["timeouts"], failures, diag["restarts"]])
    lines.append(tabulate(rows, headers=["bot", "version", "wins", "mean place", "decisions",
                                         "median ms", "max ms", "timeouts", "failures",
                                         "restarts"]))
    lines.extend(_failure_reasons(outcome))
    return "\n".join(lines)


def _failure_reasons(outcome: Any) -> list[str]:
    """Why each bot failed (:func:`arena.referee.failures.describe`); --json has all."""
    from arena.referee.failures import describe

    lines = describe(((game.names[f["seat"]], str(game.game_index), f)
                      for game in outcome.games for f in game.failures),
                     more=" (--json lists every one)")
    return ["", "Failures:", *(f"  {line}" for line in lines)] if lines else []


def _register_bots(app: typer.Typer) -> None:
    """``arena bots``: the registered bots and their versions."""

    @app.command("bots", help=_help(
        "List the registered bots (bots/) with their content-hash versions, kinds and "
        "metadata.", "Example: arena bots"))
    def bots_command(
        as_json: bool = typer.Option(False, "--json", help="Print the list as JSON."),
    ) -> None:
        import json

        from tabulate import tabulate

        from arena.registry import default_bots_dir, list_bots

        specs = list_bots(default_bots_dir())
        if as_json:
            typer.echo(json.dumps([s.to_json() for s in specs], indent=2))
            return
        if not specs:
            typer.echo(f"No bots registered in {default_bots_dir()}.")
            return
        rows = [[s.name, s.version, s.kind, s.metadata.get("author", "-"),
                 s.metadata.get("version", "-"), s.path.name] for s in specs]
        typer.echo(tabulate(rows, headers=["name", "version", "kind", "author",
                                           "own version", "file"]))
