"""The bots directory: ``registry.yaml``, the bots it holds, and resolving a reference."""

from __future__ import annotations

import errno
import fcntl
import glob
import itertools
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from arena.common.printable import printable, quoted_command
from arena.common.suggest import closest, did_you_mean, suggestion
from arena.common.yamlfile import yaml_problem
from arena.errors import BotError, BotNotFoundError, ManifestError
from arena.registry.botspec import (
    MANIFEST,
    REGISTRY_FILE,
    SAMPLE_BOTS_DIR,
    VERSIONS_DIR,
    BotSpec,
    default_bots_dir,
    options_digest,
    sample_bots_seen,
)
from arena.registry.manifest import spec_from_path

__all__ = [
    "beside_hint",
    "bots_dir_problem",
    "expanded",
    "kept_versions",
    "list_bots",
    "read_entries",
    "registered",
    "registered_names",
    "require_named_options",
    "resolve",
    "resolve_named",
    "someone_elses",
    "submitted",
    "survey_bots",
    "unknown_bot",
]

log = logging.getLogger("arena.registry")

#: How long resolving a registered bot whose files are missing waits for a submit that holds
#: the bots directory's lock (putting files in place takes a moment; a submit stopped there
#: must not hang a tournament's start).
SUBMIT_WAIT_S = 30.0


def read_entries(bots_dir: Path) -> dict[str, dict[str, Any]]:
    """The entries of ``registry.yaml`` under ``bots_dir`` (none without the file)."""
    file = bots_dir / REGISTRY_FILE
    if not file.is_file():
        return {}
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ManifestError(f"{file}: {printable(yaml_problem(exc))}") from None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ManifestError(f"cannot read {file}: {why}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{file} must be a mapping with 'bots' (arena submit writes it), "
                            f"got {_kind(data)}")
    bots = data.get("bots") or {}
    if not isinstance(bots, dict):
        raise ManifestError(f"{file}: 'bots' must be a mapping of bot names to entries, got "
                            f"{_kind(bots)}")
    entries = {str(k): v for k, v in bots.items() if isinstance(v, dict)}
    for name, entry in entries.items():
        path = entry.get("path", name)
        # a path a hand's edit broke would be followed as text (a list's repr) or not at all
        if not isinstance(path, str) or not path or "\0" in path:
            raise ManifestError(f"{file}: bots.{printable(name)}.path must be the name of the "
                                f"bot's file or directory in {bots_dir}, got "
                                f"{_shortened(repr(path))}")
    return entries


def _kind(value: Any) -> str:
    return ("a list" if isinstance(value, list) else "a string" if isinstance(value, str)
            else "a number" if isinstance(value, int | float) else type(value).__name__)


def _shortened(text: str, limit: int = 60) -> str:
    return printable(text if len(text) <= limit else f"{text[:limit]}...")


def registered(bots_dir: Path) -> Iterator[tuple[str, Path]]:
    """(name, path) of every bot under ``bots_dir``, registry entries first, then the sample
    bots of other names when the bots directory shows them (:func:`sample_bots_seen`)."""
    seen: set[str] = set()
    yield from _registered_in(bots_dir, seen)
    if sample_bots_seen(bots_dir) and bots_dir.resolve() != SAMPLE_BOTS_DIR:
        yield from _registered_in(SAMPLE_BOTS_DIR, seen)


def _registered_in(bots_dir: Path, seen: set[str]) -> Iterator[tuple[str, Path]]:
    """(name, path) of the bots under ``bots_dir`` whose names are not in ``seen`` (which
    gains them)."""
    for name, entry in sorted(read_entries(bots_dir).items()):
        path = bots_dir / str(entry.get("path", name))
        try:
            there = path.exists()
        except OSError as exc:  # a name too long, a directory not ours to enter
            raise ManifestError(f"{bots_dir / REGISTRY_FILE}: bots.{printable(name)}.path "
                                f"{_shortened(str(entry.get('path', name)))}: "
                                f"{exc.strerror or exc}") from None
        if there and name not in seen:
            seen.add(name)
            yield name, path
    if not bots_dir.is_dir():
        return
    for child in sorted(bots_dir.iterdir()):
        if child.name.startswith((".", "_")):
            continue
        if child.is_file() and child.suffix == ".py":
            name = child.stem
        elif child.is_dir() and ((child / MANIFEST).is_file() or (child / "bot.py").is_file()):
            name = child.name
        else:
            continue
        if name not in seen:
            seen.add(name)
            yield name, child


def registered_names(bots_dir: Path | None = None) -> list[str]:
    return sorted(name for name, _ in registered(bots_dir or default_bots_dir()))


def resolve(ref: str | Path, bots_dir: Path | None = None) -> BotSpec:
    """A bot reference (registered name, ``.py`` path or bot directory) -> :class:`BotSpec`."""
    try:
        return _resolve(ref, bots_dir or default_bots_dir())
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
        # the name (or it with .py, or a path under the bots directory) names no file the
        # system can look up: no bot, as an unknown name is
        shown = printable(str(ref))
        shown = shown if len(shown) <= 60 else shown[:60] + "..."
        raise BotNotFoundError(f"no bot {shown}: longer than a file name may be") from None


def _resolve(ref: str | Path, bots_dir: Path) -> BotSpec:
    text = str(ref)
    if not text.strip():  # Path('') is '.': an unset shell variable would enter the cwd
        raise BotNotFoundError("no bot given: the name or path is empty")
    path = Path(text)
    looks_like_path = isinstance(ref, Path) or "/" in text or text.endswith(".py")
    if path.exists() and (looks_like_path or not _is_registered(text, bots_dir)):
        return spec_from_path(path)
    spec = _registered_spec(text, path, bots_dir)
    if spec is not None:
        return spec
    if looks_like_path:
        raise BotNotFoundError(f"no bot at {text}{beside_hint(text) or sample_hint(text)}")
    if "@" in text:
        return _resolve_version(text, bots_dir)
    raise unknown_bot(text, bots_dir, here=Path(f"{text}.py"))


#: How many entries of a directory a path's typo is compared with: enough for a project's
#: bots, not a walk through a download folder.
_BESIDE_LIMIT = 2000


def expanded(text: str) -> str:
    """``text`` with a leading ``~`` read as a shell reads it (the home directory), where it
    names one; else ``text`` as it is."""
    if not text.startswith("~"):
        return text
    try:
        return os.path.expanduser(text)
    except ValueError:  # a NUL in a spec's text: no such user, as for any other
        return text


def sample_hint(text: str) -> str:
    """`` (the sample bot is .../bots/greedy.py)`` for a path that is not there whose last
    part is a sample bot's file or directory (``bots/greedy.py`` typed outside the arena's
    checkout, where ``$ARENA_BOTS_DIR`` has the samples named by path), else nothing."""
    last = os.path.basename(text.rstrip("/"))
    for _, path in _registered_in(SAMPLE_BOTS_DIR, set()):
        if path.name == last:
            return f" (the sample bot is {path})"
    return ""


def beside_hint(text: str) -> str:
    """`` (did you mean 'my_bot.py'?)`` for the module or directory beside the path ``text``
    that it most likely misspells (a path typed by hand), or nothing. A path of a spec starting
    with ``~`` is no shell's to expand: the hint gives it expanded, where that is a file."""
    parent = os.path.dirname(text.rstrip("/"))
    try:  # a spec's text may hold a NUL, which no system call takes
        home = expanded(text)
        if home != text and os.path.lexists(home):
            return (f" ({text.split('/')[0]} is a shell's shorthand, not expanded here: write "
                    f"{printable(home)})")
        with os.scandir(parent or ".") as entries:
            beside = [entry.name for entry in itertools.islice(entries, _BESIDE_LIMIT)
                      if not entry.name.startswith(".")
                      and (entry.name.endswith(".py") or entry.is_dir())]
    except (OSError, ValueError):
        return ""
    # compared without ".py", which would make any two modules' names look alike
    stems = {name.removesuffix(".py"): name for name in beside}
    match = closest(os.path.basename(text.rstrip("/")).removesuffix(".py"), stems)
    return suggestion(os.path.join(parent, stems[match]) if match is not None else None)


def _registered_spec(text: str, path: Path, bots_dir: Path) -> BotSpec | None:
    """The registered bot called ``text``, or None. Where the system cannot exchange two
    directories, ``arena submit --update`` renames the old files aside, then the new ones
    in: a bot the registry names whose files are missing, or went while they were read, is
    looked at again once no submit holds the bots directory's lock (:func:`_wait_for_submits`),
    so a tournament starting meanwhile finds the new files rather than stopping."""
    try:
        found = _registered_now(text, path, bots_dir)
    except (BotNotFoundError, ManifestError):
        if not _submitted_name(text, bots_dir):
            raise
        found = None
    if found is not None or not _submitted_name(text, bots_dir):
        return found
    _wait_for_submits(bots_dir)
    return _registered_now(text, path, bots_dir)


def _registered_now(text: str, path: Path, bots_dir: Path) -> BotSpec | None:
    for name, where in registered(bots_dir):
        if name == text:
            if path.exists():
                log.warning("%r is the registered bot %s; the %s of that name here is not "
                            "used (write ./%s for it)", text, where,
                            "directory" if path.is_dir() else "file", text)
            return spec_from_path(where, name)
    return None


def _submitted_name(text: str, bots_dir: Path) -> bool:
    return bots_dir.is_dir() and text in read_entries(bots_dir)


def _wait_for_submits(bots_dir: Path) -> None:
    """Wait while a submit holds the bots directory's lock (``staging.registry_lock``: it
    puts a bot's files in place and writes the registry under it), at most
    :data:`SUBMIT_WAIT_S`; at once when none does."""
    try:
        fd = os.open(bots_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    deadline = time.monotonic() + SUBMIT_WAIT_S
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return
                time.sleep(0.01)
    finally:
        os.close(fd)


def unknown_bot(text: str, bots_dir: Path, here: Path | None = None) -> BotNotFoundError:
    """No bot of that name: the closest registered name, or the sample bot of that name when
    another bots directory is in use, then every registered name. A name registry.yaml holds
    whose files are gone says so (they were deleted by hand). ``here``: the bot file the name
    may mean (``my_bot`` for ``my_bot.py``, the file its author just wrote), named when it is
    there."""
    entry = read_entries(bots_dir).get(text) if bots_dir.is_dir() else None
    if entry is not None:
        return BotNotFoundError(f"bot '{printable(text)}' is registered in "
                                f"{bots_dir / REGISTRY_FILE}, but its files at "
                                f"{bots_dir / str(entry.get('path', text))} are gone: put "
                                f"them back, or {quoted_command('arena bots remove', text)} drops "
                                "its entry")
    names = registered_names(bots_dir)
    hint = did_you_mean(text, names)
    samples = SAMPLE_BOTS_DIR
    if not hint and bots_dir.resolve() != samples and (samples / f"{text}.py").is_file():
        hint = f" (the sample bot is {samples / text}.py)"
    if here is not None and here.is_file():
        hint += f" (a file is named with its .py: {printable(str(here))})"
    return BotNotFoundError(f"unknown bot '{printable(text)}'{hint} (registered: "
                            f"{', '.join(printable(n) for n in names) or 'none'})")


def _is_registered(name: str, bots_dir: Path) -> bool:
    return any(n == name for n, _ in registered(bots_dir))


def list_bots(bots_dir: Path | None = None) -> list[BotSpec]:
    """Every registered bot, resolved (a broken one is skipped, not fatal for the listing)."""
    return survey_bots(bots_dir)[0]


def survey_bots(bots_dir: Path | None = None) -> tuple[list[BotSpec], list[tuple[str, str]]]:
    """Every registered bot, resolved, and the registered bots that cannot be, each with why
    (a bot.yaml edited wrong, files gone): a listing that left them out silently would hide
    a bot its author believes entered."""
    bots_dir = bots_dir or default_bots_dir()
    problem = bots_dir_problem(bots_dir)
    if problem is not None:
        raise ManifestError(problem)
    specs, broken = [], []
    for name, path in registered(bots_dir):
        try:
            specs.append(spec_from_path(path, name))
        except (ManifestError, BotNotFoundError) as error:
            broken.append((name, str(error)))
    return specs, broken


def bots_dir_problem(bots_dir: Path) -> str | None:
    """Why ``bots_dir`` cannot be the bots directory (it is a file), or None: said at once,
    not as no bot registered, nor after a submit's check as 'File exists'."""
    if bots_dir.exists() and not bots_dir.is_dir():
        return (f"the bots directory {bots_dir} is a file, not a directory (docs/BOTS.md: "
                "$ARENA_BOTS_DIR, else ./bots, else $ARENA_HOME/bots or your data directory)")
    return None


def kept_versions(name: str, bots_dir: Path | None = None) -> dict[str, Path]:
    """The earlier versions of a registered bot that ``submit --update`` kept: version ->
    the path to resolve (the module file, or the bot's directory)."""
    root = (bots_dir or default_bots_dir()) / VERSIONS_DIR
    found: dict[str, Path] = {}
    for kept in sorted(root.glob(f"{glob.escape(name)}@*")) if root.is_dir() else []:
        # a kept directory bot has its bot.yaml or bot.py; a kept module is <name>.py alone
        whole = (kept / MANIFEST).is_file() or (kept / "bot.py").is_file()
        found[kept.name.split("@", 1)[1]] = kept if whole else kept / f"{name}.py"
    return found


def require_named_options(ref: str | Path, spec: BotSpec) -> BotSpec:
    """``spec``, the bot ``ref`` names as entered with its options; a ``name@version+o...``
    (a results key copied from a leaderboard) must name the options it was given. The
    digest cannot give the options back, so a mismatch would quietly play another entrant."""
    text = str(ref)
    name, at, version = text.partition("@")
    if not at or "+" not in version or "/" in text or version == spec.version:
        return spec
    given = ("no options" if not spec.options
             else f"other options (+o{options_digest(spec.options)})")
    raise BotError(f"{text!r} names options (+{version.partition('+')[2]}) but was given "
                   f"{given}: a results key cannot carry options, give them with the bot "
                   f"('-o' in 'arena match', 'options:' in a spec) or enter {name}@"
                   f"{version.partition('+')[0]}")


def resolve_named(ref: str | Path, bots_dir: Path | None = None) -> BotSpec:
    """The bot ``ref`` names, as ``arena match`` and the RL opponents resolve a name: a
    results key naming options (``name@version+o...``) is refused, since ``ref`` gives
    none."""
    return require_named_options(ref, resolve(ref, bots_dir))


def _resolve_version(text: str, bots_dir: Path) -> BotSpec:
    """``name@version`` (a results key; a ``+o...`` options part is ignored: the entry's
    options give it): the registered bot when it is that version, else the kept copy."""
    name, _, version = text.partition("@")
    version = version.split("+", 1)[0]
    where = next((path for n, path in registered(bots_dir) if n == name), None)
    current = spec_from_path(where, name) if where is not None else None
    if current is not None and current.version == version:
        return current
    kept = kept_versions(name, bots_dir)
    if version in kept:
        spec = spec_from_path(kept[version], name)
        if spec.version != version:
            raise ManifestError(f"the kept copy of {name}@{version} was changed (its files "
                                f"hash to {spec.version})")
        return spec
    if current is None and not kept:
        raise unknown_bot(name, bots_dir)
    have = ([current.version] if current is not None else []) + list(kept)
    raise BotNotFoundError(f"no version {version!r} of {name!r} (there are: {', '.join(have)})")


def submitted(bots_dir: Path | None = None) -> dict[str, dict[str, Any]]:
    """The entries of ``registry.yaml`` (what ``submit`` recorded)."""
    return read_entries(bots_dir or default_bots_dir())


def someone_elses(path: Path, bots_dir: Path | None = None) -> str | None:
    """Why the bot at ``path`` is, as far as the arena can tell, not the code of the user
    running this (a bot submitted to the bots directory, a kept version of one, a registered
    bot's files elsewhere, or files another user owns), or None when nothing says so: what
    runs it outside the sandbox (``arena game --rerun``) asks first."""
    bots_dir = bots_dir or default_bots_dir()
    target = path.resolve()
    if not _a_sample(target):
        if target.is_relative_to(bots_dir.resolve()):
            return f"it is a bot submitted to the bots directory {printable(str(bots_dir))}"
        for name, where in registered(bots_dir):
            if target.is_relative_to(where.resolve()):
                return f"it is the registered bot {name}"
    return _owned_by_another(target)


def _a_sample(target: Path) -> bool:
    """One of the arena's own sample bots, which are trusted: under the checkout's ``bots/``
    and not submitted there (with ``ARENA_BOTS_DIR`` set to it, a registry entry's files or
    a kept version are a submitter's code)."""
    if (not target.is_relative_to(SAMPLE_BOTS_DIR)
            or target.is_relative_to(SAMPLE_BOTS_DIR / VERSIONS_DIR)):
        return False
    return not any(target.is_relative_to((SAMPLE_BOTS_DIR / str(entry.get("path", name))).resolve())
                   for name, entry in read_entries(SAMPLE_BOTS_DIR).items())


def _owned_by_another(target: Path) -> str | None:
    """Which of the bot's files (the file, or the directory and everything in it) another
    user owns: code they wrote, whatever copied it here."""
    mine = os.getuid()
    found = [target, *(Path(top) / name for top, dirs, files in os.walk(target)
                       for name in (*dirs, *files))] if target.is_dir() else [target]
    for item in found:
        try:  # a link's target is what runs: its owner is the one that counts
            owner = item.stat().st_uid
        except OSError:  # not there (a mistyped path, a dangling link): loading it says so
            continue
        if owner != mine:
            return (f"{printable(str(item))} belongs to another user (uid {owner}), not to you "
                    f"(uid {mine})")
    return None
