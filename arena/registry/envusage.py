"""Which registered bots use which environment of the cache (for ``arena env list`` and
``arena env prune``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.errors import BotError
from arena.registry.botspec import VERSIONS_DIR, BotSpec, default_bots_dir
from arena.registry.catalog import bots_dir_problem, kept_versions, registered
from arena.registry.environments import Environment, environment_key, list_environments
from arena.registry.manifest import spec_from_path

__all__ = ["EnvironmentUse", "counted_bots_dir", "environment_uses"]


@dataclass(frozen=True)
class EnvironmentUse:
    """A built environment and the registered bots (``name`` or ``name@version`` for a kept
    earlier version, whose bot may be registered no longer) that run in it."""

    environment: Environment
    bots: tuple[str, ...]


def _registered_specs(bots_dir: Path) -> Iterator[tuple[str, BotSpec]]:
    """Every registered bot and every earlier version ``submit --update`` kept, its bot's
    or one no longer registered (a spec or a stored tournament may still enter it by
    ``NAME@VERSION``: its environment goes when ``arena bots prune`` has taken it)."""
    names = set()
    for name, path in registered(bots_dir):
        names.add(name)
        try:
            yield name, spec_from_path(path, name)
        except BotError:
            pass  # a broken bot uses no environment; its kept versions may
        yield from _kept_specs(name, bots_dir, "")
    versions = bots_dir / VERSIONS_DIR
    kept_names = {kept.name.partition("@")[0] for kept in versions.iterdir()
                  if "@" in kept.name} if versions.is_dir() else set()
    for name in sorted(kept_names - names):
        yield from _kept_specs(name, bots_dir, f" (kept; {name} is not registered)")


def _kept_specs(name: str, bots_dir: Path, note: str) -> Iterator[tuple[str, BotSpec]]:
    for version, kept in kept_versions(name, bots_dir).items():
        try:
            yield f"{name}@{version}{note}", spec_from_path(kept, name)
        except BotError:
            continue


def counted_bots_dir(bots_dir: Path | None = None) -> Path:
    """``bots_dir``, or the bots directory every command uses, refused when it cannot be one:
    counted as holding no bot, it would make every environment unused."""
    if bots_dir is not None:
        return bots_dir
    bots_dir = default_bots_dir()
    if (problem := bots_dir_problem(bots_dir)) is not None:
        raise BotError(problem)
    given = os.environ.get("ARENA_BOTS_DIR")
    if given and not bots_dir.exists():
        raise BotError(f"ARENA_BOTS_DIR names {bots_dir}, which does not exist: no bot "
                       "there would use an environment (a mistyped path?)")
    return bots_dir


def environment_uses(bots_dir: Path | None = None,
                     cache: Path | None = None) -> list[EnvironmentUse]:
    """Every environment of the cache with the registered bots using it (none: prunable)."""
    users: dict[str, list[str]] = {}
    for label, spec in _registered_specs(counted_bots_dir(bots_dir)):
        if not (spec.requirements or spec.python):
            continue
        try:
            key = environment_key(spec.requirements, spec.python)
        except BotError:
            continue  # asks for a Python this host lacks: it has no environment here
        users.setdefault(key, []).append(label)
    return [EnvironmentUse(env, tuple(users.get(env.key, ())))
            for env in list_environments(cache)]
