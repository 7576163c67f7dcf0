"""CLI commands of the bot layer: ``doctor``, ``check-bot``, ``submit``, ``match``, ``bots``,
``bots remove`` and ``bots prune``.

Registered by :mod:`arena.cli.main`; ``match`` lives in :mod:`arena.cli.match_commands`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.bot_options import (
    DecisionMs,
    MemoryMb,
    StartupMs,
    configured,
    limits_of,
    setting,
)
from arena.cli.env_commands import cache_line, cache_summary
from arena.cli.match_commands import MATCH_HELP, match
from arena.cli.options import (
    DryRunOption,
    JsonFlag,
    TableFormatOption,
    TableFormatOrJsonOption,
    wants_json,
)
from arena.cli.signals import stop_on_sigterm
from arena.cli.suggesting import SuggestingGroup
from arena.cli.terminal import terminal_width, wrapped
from arena.common.fitting import fit_rows, not_shown
from arena.common.lookalike import disguise, spelled
from arena.common.plural import counted
from arena.common.printable import printable
from arena.errors import StoreError, SubmitError
from arena.native import native_build
from arena.referee.check import CheckItem, CheckReport, check_bot
from arena.registry import (
    VERSIONS_DIR,
    BotSpec,
    KeptCopy,
    Removal,
    default_bots_dir,
    needed_by,
    orphaned_versions,
    remove_orphaned,
    submit,
    survey_bots,
    unregister,
)
from arena.registry.interpreters import missing_python
from arena.sandbox import Limits, SandboxReport, probe
from arena.sandbox.report import NOT_NEEDED
from arena.sandbox.uids import UID_BASE
from arena.tournament.bot_versions import bots_in_play
from arena.tournament.store import DEFAULT_RESULTS, Store

__all__ = ["register"]

_DOCTOR_HELP = "\n\n".join([
    "Check the bot sandbox: each isolation layer (active, or missing and why), the "
    "interpreter and user bots run with. Exit 1 only when bots cannot run at all.",
    "Example: arena doctor",
])


def doctor(fmt: TableFormatOrJsonOption = None, json_flag: JsonFlag = False) -> None:
    """Report the sandbox (help text: ``_DOCTOR_HELP``)."""
    as_json = wants_json(fmt, json_flag)
    report = probe()
    if as_json:
        data = {**report.to_json(), "engine": str(native_build()),
                "environments": cache_summary()}
        typer.echo(json.dumps(data, indent=2))
        raise typer.Exit(0 if report.can_run else 1)
    # a terminal's lines wrap at words (it broke them mid-word), continued under the text
    typer.echo(wrapped(f"Sandbox level: {report.level}"))
    for line in _layer_lines(report):
        typer.echo(wrapped(line, indent=" " * 4))
    typer.echo("\n".join(wrapped(line, indent=" " * 13) for line in (
        f"Interpreter: {report.python}"
        + (f" (Python {report.python_version})" if report.python_version else ""),
        f"Bots dir:    {default_bots_dir()} (arena submit registers there; docs/BOTS.md)",
        f"Runs as:     {report.user}" if report.uid is None else
        f"Runs as:     a uid and group of its own per bot (from {UID_BASE:,})",
        f"Paused by:   {_pause_line(report)}",
        f"Bot kit:     {report.kit_path} (on the bots' PYTHONPATH)",
        cache_line(),
        f"Build:       {native_build()} in the referee; {report.bot_engine or 'unknown'} in "
        "bots")))
    if not report.can_run:
        typer.echo("Bots cannot run here:", err=True)
        for line in report.warnings:
            typer.echo(wrapped(f"  {line}", err=True, indent="    "), err=True)
        raise typer.Exit(1)
    if report.warnings:
        # The one place besides ``arena run``'s header that says it (the probe only reports).
        for line in report.warnings:
            typer.echo(wrapped(f"warning: {line}", err=True, indent="  "), err=True)
        missing = sum(line.startswith("sandbox layer ") for line in report.warnings)
        typer.echo(wrapped(f"{missing} layer{'' if missing == 1 else 's'} missing; bots run "
                           f"at level {report.level}."))


def _pause_line(report: SandboxReport) -> str:
    """How a bot is stopped between its decisions (docs/SANDBOX.md, "CPU fairness")."""
    if report.freezer is True:
        where = report.freezer_parent or report.cgroup_parent
        return f"its cgroup frozen between its decisions (under {where})"
    how = ("SIGSTOP to its uid" if report.uid is not None and os.geteuid() == 0
           else "SIGSTOP to its process tree")
    return f"{how} between its decisions (no freezer: {report.freezer})"


def _layer_lines(report: SandboxReport) -> list[str]:
    """One line per layer: active (with what it does), not needed here, or missing (why)."""
    limits = Limits()
    what = {
        "setsid": "own session and process group, killed as a whole",
        "rlimits": (f"memory {limits.memory_mb} MiB, cpu {limits.cpu_seconds} s, "
                    f"{limits.open_files} files, {limits.file_size_mb} MiB per file, "
                    f"{limits.processes} processes, no locked memory, no core dumps (defaults)"),
        "user": ("each bot under a uid and group of its own (fresh per launch)"
                 if report.uid is not None else f"bots run as {report.user}"),
        "bwrap": "pid, network, ipc and uts namespaces; read-only system, root and /dev; "
                 "private /tmp and /dev/shm (tmp_mb each); /proc's host counters static",
        "landlock": ("inside bubblewrap: of /proc, static files and the bot's own entries "
                     "but pagemap, smaps, numa_maps (pages another bot maps), net, task"
                     if report.active("bwrap") else
                     "filesystem allow list: system, own files, kit; writes only to scratch; "
                     "no host counters in /proc"),
        "seccomp": "no ptrace, mounts, namespaces, kernel keys, bpf, io_uring, inet "
                   "sockets, locks, shared futexes, memory files, bigger socket buffers, "
                   "memory populated in one call or merged (KSM), CPU affinity, System V "
                   "and POSIX IPC, outliving the referee",
        "cgroup": "memory.max and pids.max per bot",
    }
    lines = []
    for name in ("setsid", "rlimits", "user", "bwrap", "landlock", "seccomp", "cgroup"):
        status = report.layers.get(name, "not probed")
        if status is True:
            mark, detail = "ok  ", what[name]
        elif isinstance(status, str) and status.startswith(NOT_NEEDED):
            mark, detail = "n/a ", status[len(NOT_NEEDED):]
        else:
            mark, detail = "MISS", str(status)
        lines.append(f"  [{mark}] {name:<8} {detail}")
    return lines


_CHECK_BOT_HELP = "\n\n".join([
    "Check that a bot follows the protocol: handshake, metadata, games of decisions within "
    "the limits, game boundaries, clean exit on bye. Prints one line per check (✓, or ✗ "
    "with the reason); exit code 0 when every check passes, 1 otherwise.",
    "Example: arena check-bot bots/greedy.py",
])


def check_bot_command(
    path: Annotated[str, typer.Argument(
        metavar="PATH", help="A bot: a .py module, a directory with bot.yaml, or a registered "
                             "name.")],
    games: Annotated[int, typer.Option("--games", min=1, help="Games to play (2, 3, 4 and 5 "
                                                              "players in turn).")] = 4,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the check's games.")] = 0,
    decision_ms: DecisionMs = None,
    startup_ms: StartupMs = None,
    memory_mb: MemoryMb = None,
    fmt: TableFormatOrJsonOption = None,
    json_flag: JsonFlag = False,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", metavar="KEY=VALUE",
        help="A setting sent in hello, as a tournament entry's options are (e.g. -o "
             "iterations=250); repeat for more.")] = None,
) -> None:
    """Run the compliance checklist (help text: ``_CHECK_BOT_HELP``)."""
    as_json = wants_json(fmt, json_flag)
    bot: BotSpec | str = path
    if option:
        settings = dict(setting(flag, flag, "KEY=VALUE") for flag in option)
        bot = configured(path, settings, "options")
    limits = limits_of(decision_ms, startup_ms=startup_ms, memory_mb=memory_mb)
    report = check_bot(bot, games=games, seed=seed, limits=limits,
                       on_item=None if as_json else _print_item, on_wait=_print_wait,
                       on_game=None if as_json else _print_game,
                       game_notice_s=PROGRESS_AFTER_S)
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        failed = len(report.failures())
        warned = report.warnings
        checks = len(report.items) - warned
        noted = f" (with {counted(warned, 'warning')}, above)" if warned else ""
        typer.echo(f"PASS: {report.bot} is ready to submit{noted}." if report.ok else
                   f"FAIL: {failed} of {checks} checks failed{noted}.")
    raise typer.Exit(0 if report.ok else 1)


def _print_report(report: CheckReport) -> None:
    _print_header(report)
    for line in report.lines():
        typer.echo(line)


def _print_header(report: CheckReport) -> None:
    typer.echo(wrapped(f"Checking {report.bot} (version {report.version})"
                       + (f" in the sandbox ({report.sandbox_level})"
                          if report.sandbox_level else "")))
    # a name the registry refuses gets no promise of a registered copy: its own check says why
    registered = report.registered_version
    if registered is not None and registered != report.version:
        typer.echo(wrapped(f"Note: arena submit registers this file as {report.bot}.py, "
                           f"version {registered} (a version covers the file's name, so "
                           "--name NAME gives NAME.py another)"))
    if report.packages:
        typer.echo(wrapped(f"Packages: {', '.join(report.packages)} (installed for it; its "
                           "version names them)"))


#: How long the check's games may go on without a word before the first one under way, then
#: each one played, is told.
PROGRESS_AFTER_S = 2.0


def _print_game(done: int, games: int, seconds: float) -> None:
    """Say how far the check's games are once they have gone on a while (on stderr): a bot
    that thinks near its limit takes a minute over them, with no line between the
    metadata's and the decisions' to show it is not stuck."""
    if done == 0:  # the first game under way, told once it has gone on a while
        typer.echo(f"game 1 of {games} under way ({seconds:.0f} s)...", err=True)
    elif done < games and seconds >= PROGRESS_AFTER_S:
        typer.echo(f"played {done} of {games} games ({seconds:.0f} s)...", err=True)


def _print_wait(bot: str, what: str, limit_ms: int) -> None:
    """Say what a silent check waits for (on stderr: stdout keeps the checklist)."""
    typer.echo(f"waiting for {bot} to answer {what} (limit {limit_ms / 1000:g} s)...", err=True)


def _print_item(report: CheckReport, item: CheckItem) -> None:
    """A check's line as soon as it is decided, after the header with the first."""
    if item is report.items[0]:
        _print_header(report)
    # on a terminal the item's line wraps at words under its text, not under its mark; its
    # notes (a traceback's end) as the bot wrote them
    head, *notes = item.line().split("\n")
    typer.echo("\n".join([wrapped(head, indent="  "), *notes]))


_SUBMIT_HELP = "\n\n".join([
    "Run the compliance check on a bot, then register it in the bots directory "
    "($ARENA_BOTS_DIR; else ./bots if you have one; else $ARENA_HOME/bots or "
    "~/.local/share/palaestra-arena/bots, never the arena's checkout) with a content-hash "
    "version and its metadata (recorded in its registry.yaml). A name that is taken or a "
    "failing check is refused with the reason; --update registers a new version of a bot "
    "under its name (results keep naming the old one).",
    "--format json prints, instead of the checklist and the last line, one JSON object: "
    "registered (true, or false beside the error when the check refused it), name, "
    "version, path, already (the same files were registered: no check) and the check as "
    "arena check-bot --format json gives it.",
    "Example: arena submit ~/my_bot.py --name mybot",
    "Example: arena submit ~/my_bot.py --name mybot --update",
])


def submit_command(
    path: Annotated[str, typer.Argument(
        metavar="PATH", help="The bot to submit: a .py module or a directory with bot.yaml.")],
    name: Annotated[str | None, typer.Option("--name", help="Register under this name "
                                                            "(default: the bot's own).")
                    ] = None,
    update: Annotated[bool, typer.Option("--update", help="Replace the bot registered "
                                                          "under this name.")] = False,
    decision_ms: DecisionMs = None,
    startup_ms: StartupMs = None,
    memory_mb: MemoryMb = None,
    fmt: TableFormatOption = None,
) -> None:
    """Check, then register in the bots directory (help text: ``_SUBMIT_HELP``)."""
    as_json = fmt == "json"
    checked: list[CheckReport] = []
    # the check's limits only: a tournament that enters the bot gives its own
    limits = limits_of(decision_ms, startup_ms=startup_ms, memory_mb=memory_mb)

    def check(spec: BotSpec) -> CheckReport:
        """The compliance check, printed once decided, a long wait or a long run of games
        told meanwhile (the registry asks for it once the name is known to be free)."""
        report = check_bot(spec, limits=limits, on_wait=None if as_json else _print_wait,
                           on_game=None if as_json else _print_game,
                           game_notice_s=PROGRESS_AFTER_S)
        if not as_json:
            _print_report(report)
        checked.append(report)
        return report

    bots_dir = default_bots_dir()
    try:
        with stop_on_sigterm():  # as Ctrl-C does: the check's bot and the copy cleaned away
            spec = submit(path, name=name, bots_dir=bots_dir, check=check, update=update,
                          warn=lambda text: typer.echo(f"warning: {text}", err=True))
    except SubmitError:
        if as_json and checked:  # the checklist that refused it, beside the error
            typer.echo(json.dumps({"registered": False, "check": checked[0].to_json()},
                                  indent=2, ensure_ascii=False))
        raise
    where = bots_dir / (spec.path.relative_to(bots_dir.resolve()) if spec.path.is_relative_to(
        bots_dir.resolve()) else spec.path)
    if as_json:
        typer.echo(json.dumps({"registered": True, "name": spec.name, "version": spec.version,
                               "path": str(where), "already": not checked,
                               "check": checked[0].to_json() if checked else None},
                              indent=2, ensure_ascii=False))
    elif not checked:  # submit skips the check only when these files are registered already
        typer.echo(f"Already registered: {spec.name} version {spec.version} at "
                   f"{where} has the same files; nothing to do")
    else:
        typer.echo(f"Registered {spec.name} version {spec.version} at {where}")


_BOTS_HELP = "\n\n".join([
    "List the registered bots with their content-hash versions, kinds and metadata: the "
    "bots directory's (arena submit says where it is), then the sample bots (unless "
    "$ARENA_BOTS_DIR chose a directory to hold every bot). A terminal too narrow for the "
    "list leaves out the file, then the own version, the author, the kind and the version "
    "(and cuts names too long with an ellipsis), and says so.",
    "Example: arena bots",
])


def bots_command(
    ctx: typer.Context,
    fmt: TableFormatOrJsonOption = None,
    json_flag: JsonFlag = False,
) -> None:
    """List the registered bots (help text: ``_BOTS_HELP``); ``arena bots remove`` is its
    subcommand."""
    if ctx.invoked_subcommand is not None:
        return
    as_json = wants_json(fmt, json_flag)
    specs, broken = survey_bots(default_bots_dir())
    unlisted = [f"Not listed: {printable(name)}: {why}" for name, why in broken]
    # a bot that asks for a Python this host lacks can never run here: not "not installed yet"
    lacking = {s.key: why for s in specs if s.python and s.environment is None
               and (why := missing_python(s.python)) is not None}
    if as_json:
        typer.echo(json.dumps([{**s.to_json(), **({"cannot_run": lacking[s.key]}
                                                  if s.key in lacking else {})}
                                for s in specs], indent=2))
        for line in unlisted:  # beside the JSON, not in it
            typer.echo(line, err=True)
        return
    if not specs:
        typer.echo(f"No bots registered in {default_bots_dir()}"
                   f"{' that can be listed' if broken else ''}.")
        for line in unlisted:
            typer.echo(wrapped(line))
        return
    # a bot whose packages are not installed yet gets its version once they are
    unbuilt = [s for s in specs if (s.requirements or s.python) and s.environment is None
               and s.key not in lacking]
    # a name passing for another (a Cyrillic e among Latin letters) shows its code points
    names = [s.name for s in specs]
    rows = [[spelled(s.name) if disguise(s.name, names) else s.name,
             s.version + ("*" if s in unbuilt else "!" if s.key in lacking else ""), s.kind,
             str(s.metadata.get("author", "-")), str(s.metadata.get("version", "-")),
             s.path.name]
            for s in specs]
    table, left_out = _bots_table(rows, terminal_width())
    typer.echo(table)
    if unbuilt and "version" not in left_out:  # the mark is on the version
        typer.echo(wrapped("* its packages are not installed yet: the version names them "
                           "once check-bot, match or run installs them"))
    for spec in specs:
        if spec.key in lacking:
            typer.echo(wrapped(f"! {spec.name} {lacking[spec.key]}: it cannot play here"))
    if left_out:
        typer.echo(wrapped(not_shown(left_out, "--format json has every field")))
    for line in unlisted:
        typer.echo(wrapped(line))
    typer.echo("\n" + wrapped(f"Bots directory: {default_bots_dir()} (arena submit "
                              "registers there)"))


_BOTS_COLUMNS = ("name", "version", "kind", "author", "own version", "file")
#: What a terminal too narrow for the list leaves out, first to last: the file is most often
#: the name again, and the name is what a spec or a match is given (names too long for the
#: narrowest terminals are cut with an ellipsis).
_BOTS_LEFT_OUT = ("file", "own version", "author", "kind", "version")


def _bots_table(rows: list[list[str]], width: int | None) -> tuple[str, list[str]]:
    """The list of bots as text, and the columns it leaves out to fit ``width`` (None: a
    pipe's or a file's, every column). Cells are shown as written: a bot's own version
    ``1.10`` is not the number 1.1."""
    return fit_rows(_BOTS_COLUMNS, rows, _BOTS_LEFT_OUT, width, names=0, disable_numparse=True)


_REMOVE_HELP = "\n\n".join([
    "Remove a bot arena submit registered: its files in the bots directory, the earlier "
    "versions submit --update kept, and its registry.yaml entry. Stored results keep its "
    "games (they name its versions); a sample bot, or a file of your own the registry does not "
    "name, is refused. Its environment stays until arena env prune.",
    "Example: arena bots remove mybot",
])


def remove_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The registered bot's name.")],
) -> None:
    """Unregister a bot (help text: ``_REMOVE_HELP``)."""
    bots_dir = default_bots_dir()
    typer.echo(wrapped(_removal_line(unregister(name, bots_dir), bots_dir)))


def _removal_line(done: Removal, bots_dir: Path) -> str:
    """What ``arena bots remove`` did, in one line."""
    version = f" version {done.version}" if done.version else ""
    parts = [f"its files ({done.path.name})"] if done.files_removed else []
    if done.kept:
        parts.append(f"{done.kept} earlier version{'' if done.kept == 1 else 's'} kept by "
                     "--update")
    what = ", ".join(parts) + (" and " if parts else "") + "its registry entry"
    if done.left:
        what += f" (its files at {done.path} {done.left}: left as they are)"
    elif not done.files_removed:
        what += f" (its files at {done.path} were gone already)"
    sample = f"; the sample bot {done.name} answers to its name again" if done.sample else ""
    return (f"Removed {done.name}{version} from {bots_dir}: {what}; stored results keep its "
            f"games{sample}")


_PRUNE_HELP = "\n\n".join([
    "Remove the earlier versions submit --update kept (.versions/ of the bots directory) "
    "whose bot is no longer registered: its registry.yaml entry edited away, or its files "
    "deleted by hand. A version a stored tournament may still start (one not finished, or a "
    "league) is kept: the results databases counted are --db's (repeat it; default "
    "$ARENA_DB, else results/arena.db). The versions of registered bots stay (arena bots "
    "remove takes them with their bot). The environments of those removed go at the next arena "
    "env prune.",
    "Example: arena bots prune --dry-run --db results/arena.db",
])


def prune_command(
    dry_run: DryRunOption = False,
    db: Annotated[list[Path] | None, typer.Option(
        "--db", help="A results database whose stored tournaments count (repeat for more; "
                     "default $ARENA_DB, else results/arena.db).")] = None,
    fmt: TableFormatOption = None,
) -> None:
    """Remove the kept versions no registered bot owns (help text: ``_PRUNE_HELP``)."""
    bots_dir = default_bots_dir()
    databases = db or [Path(os.environ.get("ARENA_DB") or DEFAULT_RESULTS)]
    in_play, counted_in = _bots_in_play(databases)
    removable: list[KeptCopy] = []
    kept: list[tuple[KeptCopy, str]] = []
    for copy in orphaned_versions(bots_dir):
        tournament = needed_by(copy, in_play)
        if tournament is not None:
            kept.append((copy, tournament))
        else:
            removable.append(copy)
    removed = [c for c in removable if dry_run or remove_orphaned(c, bots_dir)]
    if fmt == "json":
        typer.echo(json.dumps({
            "versions_dir": str(bots_dir / VERSIONS_DIR), "dry_run": dry_run,
            "removed": [{"bot": c.label, "path": str(c.path)} for c in removed],
            "kept": [{"bot": c.label, "path": str(c.path),
                      **dict(zip(("tournament", "db"), counted_in.tournaments[t], strict=True))}
                     for c, t in kept],
            "databases": counted_in.databases}, indent=2))
        return
    for copy, tournament in kept:
        typer.echo(wrapped(f"kept {copy.label}: tournament {printable(tournament)} may "
                           "still start it (not finished, or a league)"))
    for copy in removed:
        typer.echo(f"{'would remove' if dry_run else 'removed'} {copy.label} "
                   f"({copy.path})")
    verb = "would remove" if dry_run else "removed"
    what = (f"{verb} {counted(len(removed), 'kept version')} whose bot is no longer "
            "registered" if removed else "no kept version to remove: each is a registered "
            "bot's or a stored tournament's")
    typer.echo(wrapped(f"{what.capitalize()} in {bots_dir / VERSIONS_DIR}; stored "
                       f"tournaments counted: {counted_in.said}."))


@dataclass(frozen=True)
class _Counted:
    """The databases whose tournaments prune counted: in words, as data (each one's path and
    whether it exists), and each tournament's name and database by the words naming it."""

    said: str
    databases: list[dict[str, str | bool]]
    tournaments: dict[str, tuple[str, str]]


def _bots_in_play(databases: list[Path]) -> tuple[list[tuple[str, str, str, str]], _Counted]:
    """The bot versions the stored tournaments of ``databases`` may start again, and what
    was counted (a database that is not there holds none; one that cannot be read is an
    error: its tournaments' versions would be taken)."""
    found: list[tuple[str, str, str, str]] = []
    said = []
    tournaments: dict[str, tuple[str, str]] = {}
    for path in databases:
        if not path.exists():
            said.append(f"none in {path} (no such file)")
            continue
        try:
            with Store(path, create=False, read_only=True) as store:
                rows = bots_in_play(store)
        except StoreError as exc:
            raise StoreError(f"{exc}; nothing was pruned (its tournaments may need "
                             "a kept version)") from None
        for row in rows:
            tournaments[f"{row[0]!r} in {path}"] = (row[0], str(path))
        found += [(f"{row[0]!r} in {path}", *row[1:]) for row in rows]
        said.append(f"those of {path}")
    return found, _Counted(", ".join(said), [{"path": str(path), "exists": path.exists()}
                                             for path in databases], tournaments)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("doctor", help=_DOCTOR_HELP, short_help='Check the sandbox bots run in.')(doctor)
    app.command("check-bot", help=_CHECK_BOT_HELP,
                short_help="Check that a bot follows the protocol.")(check_bot_command)
    app.command("submit", help=_SUBMIT_HELP,
                short_help="Check a bot and register it.")(submit_command)
    app.command("match", help=MATCH_HELP, short_help='Play one match of 2-5 bots.')(match)
    bots_app = typer.Typer(cls=SuggestingGroup, help=_BOTS_HELP,
                           subcommand_metavar="[COMMAND [ARGS]...]")
    bots_app.callback(invoke_without_command=True)(bots_command)
    bots_app.command("remove", help=_REMOVE_HELP,
                     short_help="Remove a registered bot.")(remove_command)
    bots_app.command("prune", help=_PRUNE_HELP,
                     short_help="Remove the old versions of unregistered bots.")(prune_command)
    app.add_typer(bots_app, name="bots",
                  short_help="List the registered bots; remove or prune them.")
