"""A resolved bot's files checked against its version later (:func:`files_unchanged`,
:func:`files_changed`), and the copy of them ``arena submit --update`` kept when it replaced
them (:func:`kept_copy`): the same bytes under the same version, which a tournament plays on.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from arena.errors import BotNotFoundError, ManifestError
from arena.registry.botspec import VERSIONS_DIR, BotSpec
from arena.registry.manifest import content_version, spec_from_path

__all__ = ["files_changed", "files_now", "files_unchanged", "kept_copy"]


def files_now(bot: BotSpec) -> str | None:
    """The content hash of ``bot``'s files as they are on disk now, None when they are gone:
    its version's files part while nobody touched them. The files are those it was resolved
    with (a file added to a bot directory since is not read: none of the bot's files import
    it unless one of them changed)."""
    path = Path(bot.path)
    if path.is_dir():
        root, files = path, list(bot.files)
    elif path.is_file():
        root, files = path.parent, [path]
    else:
        return None
    try:
        return content_version(files, root)
    except OSError:
        return None


def files_changed(bot: BotSpec, what_then: str = "") -> str:
    """Why ``bot`` does not play on: its files are no longer its version's (``what_then``:
    what that stopped, said after the cause)."""
    # 'submit --update' moved them to the bots directory's kept versions: a tournament plays
    # on from that copy itself, so this is one that plays none (arena match), or a copy
    # that no longer hashes to the version
    kept = _kept_name(bot)
    copy = Path(bot.path).parent / VERSIONS_DIR / kept
    replaced = f"bot {bot.key}: its files at {bot.path} changed since it entered{what_then}: "
    if copy.is_dir() and kept_copy(bot) is not None:
        return (f"{replaced}arena submit --update replaced them, keeping this version as "
                f"{kept}: name {kept} to play it again, {bot.name} to play the new one")
    if copy.is_dir():
        return (f"{replaced}arena submit --update replaced them, and the copy it kept of "
                f"this version at {copy} no longer matches it (changed since); put that "
                "copy back as it was to go on with this version, or go on with the new one "
                "('arena run SPEC --continue' in a tournament, docs/TOURNAMENTS.md)")
    return (f"bot {bot.key}: its files at {bot.path} changed or went away since it entered"
            f"{what_then}; put them back to go on, or see docs/TOURNAMENTS.md for a bot "
            "updated mid-tournament")


def kept_copy(bot: BotSpec) -> BotSpec | None:
    """``bot`` run from the copy of its files that ``arena submit --update`` kept when it
    replaced them, where that copy still hashes to its version; else None. The same bytes
    under the same version: a league seats it so rather than stopping at an update."""
    original = Path(bot.path)
    kept = original.parent / VERSIONS_DIR / _kept_name(bot)
    path = kept / original.name if _is_module(bot) else kept
    try:
        found = spec_from_path(path, bot.name)
    except (OSError, BotNotFoundError, ManifestError):
        return None
    if found.files_digest != bot.files_digest:
        return None
    moved = tuple(str(path) + arg[len(str(original)):]
                  if arg == str(original) or arg.startswith(str(original) + "/") else arg
                  for arg in bot.command)
    return replace(bot, path=path, files=found.files, command=moved)


def _kept_name(bot: BotSpec) -> str:
    """``NAME@VERSION``, where ``arena submit --update`` keeps ``bot``'s replaced files: a
    module is ``NAME.py``, a directory ``NAME`` itself (which may hold a '.' or end in
    '.py')."""
    original = Path(bot.path)
    return f"{original.stem if _is_module(bot) else original.name}@{bot.files_version}"


def _is_module(bot: BotSpec) -> bool:
    return tuple(bot.files) == (Path(bot.path),)


def files_unchanged(bot: BotSpec) -> bool:
    """Whether ``bot``'s files still hash to the version it was resolved with (an edit in
    place, or their removal, changes that)."""
    return files_now(bot) == bot.files_digest
