"""``submit``: register a checked bot under the bots directory with its content-hash version.

The compliance check is the caller's (the CLI runs :func:`arena.referee.check.check_bot`):
the registry sits below the referee and never runs a bot itself.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from arena.common.lookalike import disguise, look_alike, looks_like
from arena.common.names import check_name
from arena.common.printable import printable
from arena.errors import BotError, BotNameError, SubmitError
from arena.registry.botspec import (
    REGISTRY_FILE,
    SAMPLE_BOTS_DIR,
    VERSIONS_DIR,
    BotSpec,
    default_bots_dir,
    sample_bots_seen,
)
from arena.registry.catalog import (
    beside_hint,
    bots_dir_problem,
    kept_versions,
    read_entries,
    registered,
    unknown_bot,
)
from arena.registry.environments import with_environment
from arena.registry.manifest import content_version, spec_from_path
from arena.registry.staging import (
    discard,
    put_in_place,
    registry_lock,
    staged_copy,
    versions_held,
    write_registry,
)

__all__ = ["ComplianceReport", "KeptCopy", "Removal", "needed_by", "orphaned_versions",
           "remove_orphaned", "submit", "submit_version", "twin_entries", "unregister"]


class ComplianceReport(Protocol):
    """What :func:`submit` reads of a compliance check's result."""

    @property
    def ok(self) -> bool: ...

    def failures(self) -> list[str]: ...


def _is_sample(path: Path) -> bool:
    """Whether ``path`` is one of the sample bots shipped in the arena's checkout."""
    return path.resolve().parent == SAMPLE_BOTS_DIR


def submit(path: str | Path, name: str | None = None, bots_dir: Path | None = None, *,
           check: Callable[[BotSpec], ComplianceReport], update: bool = False,
           warn: Callable[[str], None] = lambda text: None) -> BotSpec:
    """Check a bot and register it under ``bots/`` with its content-hash version.

    ``check`` runs the compliance check (the CLI passes :func:`arena.referee.check.check_bot`)
    and returns a report with ``ok`` and ``failures()``. Refused with :class:`SubmitError` on a
    name clash (unless ``update``: a new version replaces the registered one; stored results
    keep naming the old version) or a failing check; nothing is copied then. The same files
    under the name they are registered with are already there: the registered spec is
    returned, without a check (a script may submit the same bot again and again). ``warn``
    is told of a new name a reader may take for a registered bot's, in ASCII alone (``bot1``
    beside ``botl``): registered all the same, as a registry may hold both already (an
    update of a registered bot is not told it again); and of files registered already under
    another name, byte for byte (a copy handed in twice).
    """
    bots_dir = bots_dir or default_bots_dir()
    if not str(path).strip():  # Path('') is '.': an unset shell variable would submit the cwd
        raise SubmitError("nothing to submit: the path is empty")
    source = Path(path)
    if not source.exists():
        raise SubmitError(f"nothing to submit at {source}{beside_hint(str(path))}")
    if (problem := bots_dir_problem(bots_dir)) is not None:
        raise SubmitError(problem)
    if source.is_dir() and bots_dir.resolve().is_relative_to(source.resolve()):
        # its copy would be made inside it, copied again as it grows, with the other bots
        raise SubmitError(f"{source} holds the bots directory {bots_dir}: a bot's directory "
                          "cannot hold the bots it is registered among; move the bot's files "
                          "to a directory of their own, or give another bots directory "
                          "($ARENA_BOTS_DIR)")
    spec = with_environment(_named_spec(source, name, bots_dir))  # its version names its packages
    found = _place(bots_dir, spec, update)
    if isinstance(found, BotSpec):
        return found  # already there: submitting is idempotent (no check, no copy)
    _, replaced = found
    # said when the name is first registered: an update keeps the name it was said of
    if replaced is None and (alike := _registered_look_alike(bots_dir, spec.name)) is not None:
        warn(alike)
    report = check(spec)
    if not report.ok:
        reasons = "; ".join(report.failures())
        raise SubmitError(f"{source} failed the compliance check: {reasons}")
    copy = _register(bots_dir, spec, source, update)
    if (twin := _registered_twin(bots_dir, copy)) is not None:
        warn(f"{copy.name}'s files are the same, byte for byte, as {twin}'s, a registered "
             "bot: one program under two names (a copy handed in twice?)")
    return copy


def _registered_twin(bots_dir: Path, copy: BotSpec) -> str | None:
    """The first other registered bot (a sample bot too) whose files are ``copy``'s, byte
    for byte. A single file is compared by its contents, as its copy's name is the bot's
    own; a directory by its version, which covers its files' names and contents, not the
    directory's name."""
    entries = read_entries(bots_dir)
    mine = copy.path.read_bytes() if copy.path.is_file() else None
    for name, where in registered(bots_dir):
        if name == copy.name:
            continue
        if mine is None:
            if where.is_dir() and _version_of(name, where, entries) == copy.version:
                return name
        elif _holds_bytes(where, mine):
            return name
    return None


def _holds_bytes(where: Path, data: bytes) -> bool:
    """Whether ``where`` is a file holding ``data``, byte for byte."""
    return where.is_file() and where.stat().st_size == len(data) and where.read_bytes() == data


def twin_entries(bots: Sequence[BotSpec]) -> list[str]:
    """One line for each bot among ``bots`` whose files are an earlier one's under another
    name, byte for byte, compared as ``submit`` compares a new bot with the registered ones:
    a module by its contents, a directory by the hash of its files' names and contents."""
    lines = []
    for index, bot in enumerate(bots):
        try:
            mine = bot.path.read_bytes() if bot.path.is_file() else None
            twin = next((other for other in bots[:index] if other.name != bot.name and (
                _holds_bytes(other.path, mine) if mine is not None
                else other.path.is_dir() and other.files_digest == bot.files_digest)), None)
        except OSError:  # gone since it was resolved: the run says what is wrong with it
            continue
        if twin is not None:
            lines.append(f"{bot.name}'s files are the same, byte for byte, as {twin.name}'s: "
                         "one program entered under two names (a copy handed in twice?)")
    return lines


def _version_of(name: str, where: Path, entries: dict[str, dict[str, Any]]) -> str | None:
    """A registered directory bot's version: its registry entry's, else (a sample bot's)
    read from its files; None for one that cannot be read."""
    if name in entries:
        return str(entries[name].get("version"))
    try:
        return spec_from_path(where, name).version
    except (BotError, OSError):
        return None


def _place(bots_dir: Path, spec: BotSpec, update: bool) -> BotSpec | tuple[Path, Path | None]:
    """Where ``spec`` goes and the files it replaces, or the registered bot of the same
    files and name (nothing to do); a clash raises :class:`SubmitError`."""
    existing = _existing(bots_dir, spec, update)
    if isinstance(existing, BotSpec):
        return existing
    target = bots_dir / (f"{spec.name}.py" if spec.path.is_file() else spec.name)
    if (target.exists() or target.is_symlink()) and target != existing:
        # one bot's name can be another's file name: 'foo' is foo.py, and a bot may be 'foo.py'
        owner = next((n for n, where in registered(bots_dir) if where == target), None)
        taken = f"the files of bot {owner!r}" if owner else "files no registered bot names"
        raise SubmitError(f"cannot register {spec.name!r}: {target} already holds {taken}; "
                          "choose another name with --name")
    return target, existing


def _register(bots_dir: Path, spec: BotSpec, source: Path, update: bool) -> BotSpec:
    """Copy the checked bot in and write its registry entry. The copy is made beside, then
    placed and entered under the registry's lock: the check took seconds, and another
    submit may have taken the name or written the registry meanwhile."""
    with staged_copy(bots_dir, spec) as staged, registry_lock(bots_dir):
        found = _place(bots_dir, spec, update)
        if isinstance(found, BotSpec):
            return found
        target, replaced = found
        put_in_place(bots_dir, spec, staged, target, replaced)
        copy = spec_from_path(target, spec.name)
        entries = read_entries(bots_dir)
        entries[spec.name] = {
            "path": target.name,
            "version": copy.version,
            "kind": copy.kind,
            "metadata": dict(copy.metadata),
            "submitted_at": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
            "source": str(source.resolve()),
        }
        write_registry(bots_dir, entries)
        _discard_replaced(bots_dir, target, replaced)
        return copy


def _registered_look_alike(bots_dir: Path, name: str) -> str | None:
    """What to say of ``name`` when it looks like a registered bot's though it does not pass
    for it (:func:`_named_spec` refuses that): ASCII strokes drawn alike."""
    twin = next((other for other in sorted(n for n, _ in registered(bots_dir))
                 if other != name and look_alike(other, name)), None)
    if twin is None:
        return None
    return (f"{looks_like(name, twin, 'a registered bot')}: arena bots lists both, which a "
            "reader may take for one bot")


def _named_spec(source: Path, name: str | None, bots_dir: Path) -> BotSpec:
    """The bot at ``source`` under the name it is registered with (checked: the rule of
    :mod:`arena.common.names`, and no name passing for a registered one), with the version
    its registered copy will have."""
    spec = spec_from_path(source)
    bot_name = spec.name if name is None else name
    # the name came from the bot (its class's name, its file's): say how to give another
    how = "" if name is not None else " (--name NAME registers it under another)"
    try:
        check_name(bot_name)
    except BotNameError as exc:
        raise BotNameError(f"{exc}{how}") from None
    known = [other for other, _ in registered(bots_dir)]
    if (disguised := disguise(bot_name, known)) is not None:
        raise BotNameError(f"bot name {bot_name!r} ({ascii(bot_name)}) {disguised}{how}")
    # copied as <name>.py: check and report the copy's version
    return replace(spec, name=bot_name, version=submit_version(spec, bot_name))


def submit_version(spec: BotSpec, name: str | None = None) -> str:
    """The version :func:`submit` registers ``spec`` with under ``name`` (default: its own).
    A single-file bot is copied as ``<name>.py`` and a version covers the files' names, so a
    file named otherwise gets another version than ``spec.version``."""
    copy = f"{name or spec.name}.py"
    if not spec.path.is_file() or spec.path.name == copy:
        return spec.version
    return content_version([spec.path], spec.path.parent, {spec.path: copy})


def _existing(bots_dir: Path, spec: BotSpec, update: bool) -> BotSpec | Path | None:
    """The registered bot of the same files and name (nothing to do), else the path of the
    bot an update replaces (None when the name is free); a clash raises :class:`SubmitError`."""
    bot_name = spec.name
    replaced: Path | None = None
    for existing, where in registered(bots_dir):
        if existing.lower() == bot_name.lower():
            try:
                other = spec_from_path(where, existing)
            except BotError as exc:  # its own error would read as the submitted bot's
                raise SubmitError(f"the registered bot {existing!r} cannot be read ({exc}): "
                                  f"'arena bots remove {existing}' drops it (its results "
                                  "stay), then submit again") from None
            if other.version == spec.version and existing == bot_name:
                return other
            if other.version == spec.version:
                raise SubmitError(f"{existing!r} is already registered with the same files "
                                  f"(version {other.version}); submit it as --name {existing}")
            if not update and _is_sample(where):
                raise SubmitError(f"{existing!r} is a sample bot (version {other.version}); "
                                  "--update registers yours under its name, which then comes "
                                  "first (the sample stays in the checkout), or choose "
                                  "another name with --name")
            if not update and existing != bot_name:
                # often another author's bot (a class's 'Bea' beside 'bea'): another name
                # first, and the case difference said, which the names alone hide
                raise SubmitError(f"the name {bot_name!r} is taken, but for case, by "
                                  f"{existing!r} (registered, version {other.version}): "
                                  "choose another name with --name NAME, or, if "
                                  f"{existing!r} is this bot, --update --name {existing} "
                                  "replaces it with this version (its results stay with "
                                  "the old one)")
            if not update:
                raise SubmitError(f"a bot named {existing!r} is already registered (version "
                                  f"{other.version}); --update replaces it with this version "
                                  "(its results stay with the old one), or choose another "
                                  "name with --name")
            if existing != bot_name:
                raise SubmitError(f"--update replaces a bot under its registered name: "
                                  f"--name {existing}")
            if _is_sample(where) and bots_dir.resolve() == SAMPLE_BOTS_DIR:
                raise SubmitError(f"{existing!r} is a sample bot of the arena's checkout, which "
                                  "--update does not overwrite; choose another name with --name")
            replaced = where
    return replaced


def _discard_replaced(bots_dir: Path, target: Path, replaced: Path | None) -> None:
    """Remove the replaced version's files left at a path the new ones did not take. A
    sample bot stays in the checkout (the bot registered here comes first by its name), and
    files a hand-edited entry names outside the bots directory are not the arena's."""
    if (replaced is None or replaced == target or _is_sample(replaced)
            or replaced.parent != bots_dir):
        return
    try:
        discard(bots_dir, replaced)  # (read-only directories and all)
    except OSError as exc:
        raise SubmitError(f"registered the new version at {target}, but cannot remove the "
                          f"replaced files at {replaced}: {exc.strerror or exc}; remove them "
                          "by hand") from None


# --------------------------------------------------------------------------- unregister
@dataclass(frozen=True)
class Removal:
    """What :func:`unregister` did: the bot's entry went from ``registry.yaml``; ``path`` is
    where its files were (``files_removed``: removed now; else they were gone already, or
    ``left`` says why they stay), ``kept`` the earlier versions of it removed from
    ``.versions/``, ``sample`` whether a sample bot of that name is found again."""

    name: str
    version: str | None
    path: Path
    files_removed: bool
    left: str
    kept: int
    sample: bool


def unregister(name: str, bots_dir: Path | None = None) -> Removal:
    """Remove the bot ``arena submit`` registered as ``name``: its copy, the earlier versions
    ``submit --update`` kept, then its ``registry.yaml`` entry (in that order: a removal cut
    short leaves an entry to remove again, never files no entry names). Stored results are
    not touched: they name the versions. Only a copy the registry names, directly in the bots
    directory, is removed: a bot file found there without an entry is its author's own, and
    a sample bot is the arena's."""
    bots_dir = bots_dir or default_bots_dir()
    if not (bots_dir / REGISTRY_FILE).is_file():
        raise _not_removable(name, bots_dir)
    with registry_lock(bots_dir):
        entries = read_entries(bots_dir)
        entry = entries.get(name)
        if entry is None:
            raise _not_removable(name, bots_dir)
        relative = str(entry.get("path", name))
        path = bots_dir / relative
        left = _left_alone(name, relative, entries)
        if not left and _is_sample(path) and "submitted_at" not in entry:
            # the checkout's own bots dir: an entry submit never wrote names a sample
            raise SubmitError(f"{name!r} is a sample bot of the arena's checkout ({path}): "
                              "it cannot be removed")
        version = entry.get("version")
        files_removed = not left and (path.exists() or path.is_symlink())
        root = _versions_root(bots_dir)  # its kept versions are the bots directory's own
        kept = kept_versions(name, bots_dir)
        try:
            with versions_held(bots_dir) as versions:  # (never a link swapped in since)
                for kept_path in kept.values():
                    discard(bots_dir, root / kept_path.relative_to(root).parts[0], versions)
            if files_removed:
                discard(bots_dir, path)
        except OSError as exc:
            raise SubmitError(f"cannot remove {name!r} from {bots_dir}: "
                              f"{exc.strerror or exc}") from None
        del entries[name]
        write_registry(bots_dir, entries)
    sample = (sample_bots_seen(bots_dir) and bots_dir.resolve() != SAMPLE_BOTS_DIR
              and any(n == name for n, _ in registered(SAMPLE_BOTS_DIR)))
    return Removal(name, version if isinstance(version, str) else None, path, files_removed,
                   left, len(kept), sample)


def _left_alone(name: str, relative: str, entries: dict[str, dict[str, Any]]) -> str:
    """Why the files an entry names are not the removed bot's to delete (empty: they are).
    A hand's edit may point it anywhere: the bots directory itself, the registry, files the
    arena never copied, or another entry's copy."""
    if (relative in (".", "..", REGISTRY_FILE) or "/" in relative
            or relative.startswith(".")):
        return "lie outside the bots directory's copies"
    other = next((n for n, e in entries.items()
                  if n != name and str(e.get("path", n)) == relative), None)
    return f"are bot {other!r}'s too" if other is not None else ""


def _not_removable(name: str, bots_dir: Path) -> BotError:
    """Why ``name``, which ``registry.yaml`` does not hold, cannot be removed."""
    found = next((where for n, where in registered(bots_dir) if n == name), None)
    if found is None:
        return unknown_bot(name, bots_dir)
    if _is_sample(found):
        return SubmitError(f"{name!r} is a sample bot of the arena's checkout ({found}): "
                           "it cannot be removed")
    return SubmitError(f"{name!r} was not registered by arena submit: {found} is a file of "
                       "your own in the bots directory, left to you to delete")


# --------------------------------------------------------------------------- orphans
@dataclass(frozen=True)
class KeptCopy:
    """An earlier version ``submit --update`` kept in ``.versions/NAME@VERSION``; ``versions``
    are those it answers to (its directory's, and its files' as they hash now)."""

    name: str
    version: str
    path: Path
    versions: frozenset[str]

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"


def _owners(bots_dir: Path) -> set[str]:
    """The names whose kept versions are theirs: every ``registry.yaml`` entry (its files
    gone too: ``arena bots remove`` takes its versions with it) and every bot of the bots
    directory's own; a sample bot of the checkout made none of them."""
    here = bots_dir.resolve() == SAMPLE_BOTS_DIR
    return set(read_entries(bots_dir)) | {
        name for name, where in registered(bots_dir) if here or not _is_sample(where)}


def orphaned_versions(bots_dir: Path | None = None) -> list[KeptCopy]:
    """The kept versions whose bot the bots directory no longer registers (its entry edited
    away, its files deleted by hand): nothing names them but ``NAME@VERSION`` in a spec or
    a stored tournament, and no command took them with it."""
    bots_dir = bots_dir or default_bots_dir()
    if (problem := bots_dir_problem(bots_dir)) is not None:
        raise SubmitError(problem)
    root = _versions_root(bots_dir)
    if not root.is_dir():
        return []
    owners = _owners(bots_dir)
    found = []
    for kept in sorted(root.iterdir()):
        name, at, version = kept.name.partition("@")
        if not at or not name or not version or name in owners or kept.is_symlink() \
                or not kept.is_dir():
            continue  # not one submit made: left as it is
        versions = {version}
        with contextlib.suppress(BotError, OSError):
            spec = spec_from_path(kept_versions(name, bots_dir)[version], name)
            versions |= {spec.version.partition("+")[0], spec.files_digest}
        found.append(KeptCopy(name, version, kept, frozenset(versions)))
    return found


def _versions_root(bots_dir: Path) -> Path:
    """``.versions/`` of ``bots_dir``, refused when it is a link: what lies at its target
    (a bots directory unpacked or written by another may point it anywhere) is not the bots
    directory's to remove."""
    root = bots_dir / VERSIONS_DIR
    if root.is_symlink():
        raise SubmitError(f"{printable(str(root))} is a symbolic link (to "
                          f"{printable(os.readlink(root))}): the kept versions must be the bots "
                          "directory's own; nothing was removed (make it a directory)")
    return root


def needed_by(copy: KeptCopy, in_play: list[tuple[str, str, str, str]]) -> str | None:
    """The first tournament of ``in_play`` ((tournament, bot name, version, path) of the bot
    versions stored tournaments may start again) that may start ``copy``, or None."""
    where = copy.path.resolve()
    for tournament, _name, version, path in in_play:
        stored = Path(path).resolve()
        # by version alone: an entry {bot: NAME, name: OTHER} stores it under OTHER
        if stored == where or stored.is_relative_to(where) or (
                version.partition("+")[0] in copy.versions):
            return tournament
    return None


def remove_orphaned(copy: KeptCopy, bots_dir: Path | None = None) -> bool:
    """Remove ``copy`` when it is still orphaned (a submit may have registered its name
    meanwhile: then it is left, and False returned)."""
    bots_dir = bots_dir or default_bots_dir()
    with registry_lock(bots_dir):
        _versions_root(bots_dir)  # not made a link meanwhile
        if copy.name in _owners(bots_dir) or copy.path.is_symlink() or not copy.path.is_dir():
            return False
        try:
            with versions_held(bots_dir) as versions:  # (never a link swapped in since)
                discard(bots_dir, copy.path, versions)
        except OSError as exc:
            raise SubmitError(f"cannot remove {copy.path}: {exc.strerror or exc}") from None
    return True
