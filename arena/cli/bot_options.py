"""The bots' settings on the command line: ``--option`` flags and the limit flags."""

from __future__ import annotations

from typing import Annotated, Any

import typer
import yaml

from arena.registry import BotSpec, option_problems, require_named_options, resolve
from arena.sandbox import Limits

__all__ = ["DecisionMs", "MemoryMb", "StartupMs", "configured", "limits_of", "setting",
           "with_options"]


#: The limit flags that ``arena check-bot``, ``arena submit`` and ``arena match`` share.
DecisionMs = Annotated[int | None, typer.Option(
    "--decision-ms", min=1, help="Time per decision (default 1000).")]
StartupMs = Annotated[int | None, typer.Option(
    "--startup-ms", min=1, help="Time to answer 'hello' (default 10000), for a bot slow to "
    "start (a runtime or a model to load).")]

MemoryMb = Annotated[int | None, typer.Option(
    "--memory-mb", min=1, help="Memory per bot process in MiB, as address space (default "
    "1024), for a runtime that reserves more up front (a JVM, Node's worker threads); a "
    "tournament gives it as limits: {memory_mb: ...}.")]


def limits_of(decision_ms: int | None = None, time_bank_ms: int | None = None,
              max_strikes: int | None = None, startup_ms: int | None = None,
              memory_mb: int | None = None) -> Limits:
    """The default limits with the flags given."""
    changes = {k: v for k, v in (("decision_ms", decision_ms), ("time_bank_ms", time_bank_ms),
                                 ("max_strikes", max_strikes), ("startup_ms", startup_ms),
                                 ("memory_mb", memory_mb))
               if v is not None}
    return Limits.from_mapping(changes)


def setting(text: str, flag: str, form: str) -> tuple[str, Any]:
    """``KEY=VALUE`` -> (key, value), the value read as a YAML scalar (250, 0.5, true,
    text)."""
    key, equals, value = text.partition("=")
    if not (equals and key.strip()):
        raise typer.BadParameter(f"expected {form}, got {flag!r}", param_hint="'--option'")
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    return key.strip(), parsed


def configured(ref: str, settings: dict[str, Any], where: str) -> BotSpec:
    """``ref`` resolved and given ``settings`` as its options (checked first)."""
    problems = option_problems(settings, where)
    if problems:
        raise typer.BadParameter("; ".join(problems), param_hint="'--option'")
    return require_named_options(ref, resolve(ref).with_options(settings))


def with_options(bots: list[str], flags: list[str]) -> list[BotSpec | str]:
    """The match's bots, those named by ``--option N:KEY=VALUE`` flags resolved and given
    their options."""
    options: dict[int, dict[str, Any]] = {}
    for flag in flags:
        seat, colon, text = flag.partition(":")
        if not (colon and seat.strip().isdigit()):
            raise typer.BadParameter(f"expected N:KEY=VALUE, got {flag!r}",
                                     param_hint="'--option'")
        key, value = setting(text, flag, "N:KEY=VALUE")
        index = int(seat)
        if not 1 <= index <= len(bots):
            raise typer.BadParameter(f"{flag!r}: there is no bot {index} (give 1 to "
                                     f"{len(bots)})", param_hint="'--option'")
        options.setdefault(index - 1, {})[key] = value
    entrants: list[BotSpec | str] = list(bots)
    for index, settings in sorted(options.items()):
        entrants[index] = configured(bots[index], settings, f"bot {index + 1} options")
    return entrants
