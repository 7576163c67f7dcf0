"""``arena env list`` and ``arena env prune``: the cache of bots' environments (registered by
arena.cli.main); ``cache_line`` is the line ``arena doctor`` shows."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.options import (
    DryRunOption,
    JsonFlag,
    TableFormatOption,
    TableFormatOrJsonOption,
    wants_json,
)
from arena.cli.suggesting import SuggestingGroup
from arena.cli.terminal import wrapped
from arena.common.plural import counted
from arena.errors import BotEnvironmentError
from arena.registry.environments import (
    Environment,
    UnbuiltEnvironment,
    env_cache_dir,
    list_environments,
    on_build,
    remove_environment,
    unbuilt_environments,
)
from arena.registry.envusage import counted_bots_dir, environment_uses

__all__ = ["cache_line", "cache_summary", "register"]

# an existing directory: a mistyped one has no bots, and prune would take every environment
_BOTS_DIR = typer.Option("--bots-dir", exists=True, file_okay=False,
                         help="The bots directory whose registered bots count as users "
                              "(default: as for every command).")


def _size(nbytes: int) -> str:
    return f"{nbytes / 2**20:.1f} MiB"


def cache_summary() -> dict[str, str | int]:
    """Where the environments are, how many, how big, or why the cache cannot be used (for
    ``arena doctor --format json``)."""
    try:
        envs = list_environments()
    except BotEnvironmentError as exc:
        return {"cache": str(env_cache_dir()), "count": 0, "bytes": 0, "problem": str(exc)}
    return {"cache": str(env_cache_dir()), "count": len(envs),
            "bytes": sum(env.size() for env in envs)}


def cache_line() -> str:
    """:func:`cache_summary` in one line (for ``arena doctor``)."""
    summary = cache_summary()
    if "problem" in summary:
        return f"Bot envs:    {summary['cache']} (unusable: {summary['problem']})"
    return (f"Bot envs:    {summary['cache']} ({counted(int(summary['count']), 'environment')}"
            f", {_size(int(summary['bytes']))}; arena env list)")


def env_list(
    bots_dir: Annotated[Path | None, _BOTS_DIR] = None,
    fmt: TableFormatOrJsonOption = None,
    json_flag: JsonFlag = False,
) -> None:
    """List the environments, built and not (help text: ``_LIST_HELP``)."""
    as_json = wants_json(fmt, json_flag)
    uses = environment_uses(bots_dir)
    unbuilt = unbuilt_environments()
    if as_json:
        typer.echo(json.dumps({"cache": str(env_cache_dir()), "environments": [
            {"key": u.environment.key, "path": str(u.environment.path),
             "python": u.environment.python_version,
             "requirements": list(u.environment.requirements),
             "frozen": list(u.environment.frozen), "built": u.environment.built,
             "bytes": u.environment.size(), "bots": list(u.bots)} for u in uses],
            "unbuilt": [{"key": e.key, "path": str(e.path), "why": e.why,
                         "building": e.building, "bytes": e.size()} for e in unbuilt]},
            indent=2))
        return
    # a terminal's lines wrap at words (it broke them mid-word), continued indented
    broken = f", {len(unbuilt)} not built" if unbuilt else ""
    typer.echo(wrapped(f"Environment cache: {env_cache_dir()} "
                       f"({counted(len(uses), 'environment')}{broken})", indent="  "))
    for use in uses:
        env = use.environment
        typer.echo(wrapped(f"{env.key}  Python {env.python_version}  {_size(env.size())}  "
                           f"built {env.built}", indent="  "))
        typer.echo(wrapped("\n".join([
            f"    requires: {', '.join(env.requirements) or '(nothing)'}",
            f"    installed: {', '.join(env.frozen) or '(nothing)'}",
            f"    used by: {', '.join(use.bots) or 'no registered bot'}"]), indent=" " * 6))
    for entry in unbuilt:
        later = "" if entry.building else "; arena env prune removes it"
        typer.echo(wrapped(f"{entry.key}  not built  {_size(entry.size())}: {entry.why}"
                           f"{later}", indent="  "))


def env_prune(
    bots_dir: Annotated[Path | None, _BOTS_DIR] = None,
    dry_run: DryRunOption = False,
    yes: Annotated[bool, typer.Option(
        "--yes", "-y", help="Remove every environment even when the bots directory does not "
                            "exist (no bot registered yet).")] = False,
    fmt: TableFormatOption = None,
) -> None:
    """Remove the environments no registered bot uses, and those whose build stopped part
    way (help text: ``_PRUNE_HELP``)."""
    as_json = fmt == "json"
    counted = counted_bots_dir(bots_dir)
    uses = environment_uses(counted)
    unused: list[Environment | UnbuiltEnvironment] = [
        use.environment for use in uses if not use.bots]
    _confirm_every_one(counted, len(unused), len(uses), dry_run or yes)
    unused += [e for e in unbuilt_environments() if not e.building]
    removed: list[dict[str, Any]] = []
    left: list[dict[str, str]] = []
    for entry in unused:
        size = entry.size() if not entry.path.is_symlink() else 0
        what = _what(entry, size)  # said before: a link is no longer one after
        shown = _entry_data(entry, size)
        if not dry_run and not remove_environment(entry):
            left.append({"key": entry.key, "path": str(entry.path)})
            if not as_json:
                typer.echo(wrapped(f"left {entry.key}: another arena process is building it, "
                                   "or has just built or removed it"))
            continue
        removed.append(shown)
        if not as_json:
            typer.echo(wrapped(f"{'would remove' if dry_run else 'removed'} {what}"))
    if as_json:
        typer.echo(json.dumps({"cache": str(env_cache_dir()), "bots_dir": str(counted),
                               "dry_run": dry_run, "removed": removed, "left": left,
                               "bytes": sum(entry["bytes"] for entry in removed)}, indent=2))
    elif not unused:
        typer.echo("No environment is unused: nothing to remove.")
    elif removed:
        freed = _size(sum(entry["bytes"] for entry in removed))
        typer.echo(wrapped(f"{_counts(removed)}; {'would free' if dry_run else 'freed'} "
                           f"{freed}."))


def _entry_data(entry: Environment | UnbuiltEnvironment, size: int) -> dict[str, Any]:
    """An entry prune removes, as ``--format json`` shows it: a link's ``link`` is where it
    leads (left as it is), an unbuilt one's ``why`` says why it is no environment."""
    link = os.readlink(entry.path) if entry.path.is_symlink() else None
    built = isinstance(entry, Environment)
    return {"key": entry.key, "path": str(entry.path), "built": built, "link": link,
            "requirements": (list(entry.requirements) if isinstance(entry, Environment)
                             else None),
            "why": entry.why if isinstance(entry, UnbuiltEnvironment) else None,
            "bytes": size}


def _confirm_every_one(counted: Path, unused: int, built: int, confirmed: bool) -> None:
    """Refuses to remove the ``unused`` of the ``built`` environments for a bots directory
    that does not exist (a mistyped ``$ARENA_HOME`` counts none of the user's bots; the
    sample bots still count) unless ``confirmed``; a dry run is warned."""
    if unused == 0 or counted.is_dir():
        return
    # it said 'every one' where the sample bots kept theirs
    which = f"every one ({unused})" if unused == built else f"{unused} of the {built}, all "\
        "but the sample bots'"
    why = (f"the bots directory {counted} does not exist, so none of your bots counts as "
           f"using an environment and prune would remove {which}")
    if not confirmed:
        raise BotEnvironmentError(f"{why}: a mistyped $ARENA_HOME? --bots-dir DIR counts "
                                  "another directory's bots; --yes removes them even so")
    typer.echo(wrapped(f"warning: {why}", err=True), err=True)


def _counts(removed: list[dict[str, Any]]) -> str:
    """How many environments unused and how many unbuilt (:func:`_entry_data`), in words."""
    unbuilt = sum(not entry["built"] for entry in removed)
    parts = [f"{counted(len(removed) - unbuilt, 'environment')} no registered bot uses"
             if len(removed) > unbuilt else "",
             f"{counted(unbuilt, 'environment')} not built" if unbuilt else ""]
    return " and ".join(part for part in parts if part)


def _what(entry: Environment | UnbuiltEnvironment, size: int) -> str:
    """An entry prune removes, in words."""
    if entry.path.is_symlink():
        return (f"the link {entry.key} (to {os.readlink(entry.path)}: what it leads to is "
                "left as it is)")
    if isinstance(entry, UnbuiltEnvironment):
        return f"{entry.key} (not built; {entry.why}; {_size(size)})"
    return f"{entry.key} ({', '.join(entry.requirements) or 'nothing'}; {_size(size)})"


_LIST_HELP = ("List the environments built for bots that require packages: where they are, "
              "what each installs, its size and which registered bots use it; then those not "
              "built, and why (being built now, or a build that stopped part way).\n\n"
              "Example: arena env list")
_PRUNE_HELP = ("Remove the environments no registered bot (nor a version kept by submit "
               "--update, its bot registered or not: arena bots prune removes those) uses, "
               "and those whose build stopped part way (never one being built now); a link "
               "in the cache is removed itself, not what it leads to. A bot that needs one "
               "again has it rebuilt by check-bot, match or run. Where the bots directory does "
               "not exist (a mistyped $ARENA_HOME, or no bot submitted yet), removing every "
               "environment needs --yes.\n\n"
               "Example: arena env prune --dry-run")


#: How many requirements the notice of a build names.
_NAMED_REQUIREMENTS = 5


def _building(requirements: tuple[str, ...], path: Path) -> None:
    # a bot may list a few hundred: the first few say what it is, the environment the rest
    named = ", ".join(requirements[:_NAMED_REQUIREMENTS]) or "an empty environment"
    rest = len(requirements) - _NAMED_REQUIREMENTS
    typer.echo(f"Installing {named}{f' and {rest} more' if rest > 0 else ''} for a bot into "
               f"{path} (once; reused after)", err=True)


def register(app: typer.Typer) -> None:
    """Add ``arena env`` and its commands to the root app; every command says when it
    installs a bot's packages (a wait of seconds)."""
    on_build(_building)
    env_app = typer.Typer(cls=SuggestingGroup,
                          help="The environments of bots that require packages (bot.yaml "
                               "requirements).\n\nExample: arena env list",
                          no_args_is_help=True)
    env_app.command("list", help=_LIST_HELP, short_help="List the bots' environments.")(env_list)
    env_app.command("prune", help=_PRUNE_HELP,
                    short_help="Remove the environments no bot uses.")(env_prune)
    app.add_typer(env_app, name="env",
                  short_help="List or prune the environments of bots' packages.")
