"""Reading a bot from its files: content hash, metadata, ``bot.yaml`` -> :class:`BotSpec`.

The referee never imports bot code: module metadata is read from the source with :mod:`ast`
and manifests with a safe loader (:mod:`arena.common.yamlfile`).
"""

from __future__ import annotations

import ast
import datetime as dt
import errno
import hashlib
import io
import logging
import os
import stat
import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from arena.common.printable import controls_escaped, printable
from arena.common.suggest import closest, did_you_mean
from arena.common.yamlfile import NoAliasLoader, yaml_problem
from arena.errors import BotNotFoundError, ManifestError
from arena.registry.botspec import (
    MANIFEST,
    MANIFEST_KEYS,
    METADATA_KEYS,
    PYTHON,
    RUNNER,
    BotSpec,
)
from arena.registry.environments import attach, cached_environment, environment_of_command
from arena.registry.requirements import manifest_python, manifest_requirements
from arena.sandbox.workdir import (
    MAX_BOT_BYTES,
    MAX_BOT_FILES,
    SKIPPED_DIRS,
    SKIPPED_SUFFIXES,
    files_version,
)

__all__ = ["content_version", "module_metadata", "spec_from_path"]

log = logging.getLogger("arena.registry")

#: The most a manifest may hold (a YAML file of a few lines; its aliases are refused too).
_MANIFEST_BYTES = 64 * 1024
#: Characters of a bot's name and of each metadata value kept (they are printed in tables).
_NAME_CHARS = 64
_METADATA_CHARS = 200
#: How deep a bot's directories may nest (node_modules and vendored packages stay far
#: within it; Python's directory walks recurse, and give up near 1,000).
_MAX_DEPTH = 64
#: Unicode categories of characters that show nothing (format, control, separator of lines,
#: private, unassigned): a name holding one would look like another bot's.
_HIDDEN = frozenset({"Cf", "Cc", "Co", "Cn", "Zl", "Zp"})
#: Characters of other categories that show nothing either: the blank fillers of Hangul and
#: braille (letters and symbols to Unicode, 'greedy\u3164' is the usual look-alike), the
#: combining grapheme joiner, the Khmer and Mongolian inherent vowels and variation selectors.
_BLANK = frozenset({0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x1810), 0x2800,
                    0x3164, *range(0xFE00, 0xFE10), 0xFFA0, *range(0xE0100, 0xE01F0)})


# --------------------------------------------------------------------------- hashing
def _bot_files(root: Path) -> list[Path]:
    """The files of a bot directory: regular files and directories only. A symbolic link
    (which ``submit`` would follow and copy, host files and all, where the bot can read
    them), a FIFO (which hangs whoever reads it) or a device is refused."""
    files: list[Path] = []
    sizes: list[int] = []
    # a file's names met in the walk, by inode: those the launch's copy keeps, the skipped
    names: dict[tuple[int, int], int] = {}
    skipped: dict[tuple[int, int], int] = {}
    for dirpath, dirnames, filenames in os.walk(root):  # caches too: checked, not counted
        dirnames.sort()
        parts = Path(dirpath).relative_to(root).parts
        if len(parts) >= _MAX_DEPTH and dirnames:  # before the walk's recursion runs out
            raise ManifestError(f"{printable(os.path.join(dirpath, dirnames[0]))} lies more "
                                f"than {_MAX_DEPTH} directories deep in "
                                f"{printable(str(root))}; a bot's directories may nest at "
                                f"most {_MAX_DEPTH} deep")
        cache = any(part in SKIPPED_DIRS for part in parts)
        if "pyvenv.cfg" in filenames and parts:
            _refuse_environment(root, Path(dirpath))
        for name in [*dirnames, *filenames]:
            info = _refuse_special(Path(dirpath) / name)
            _refuse_undecodable(Path(dirpath) / name)
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                key = (info.st_dev, info.st_ino)
                kept = names if not cache and not name.endswith(SKIPPED_SUFFIXES) else skipped
                kept[key] = kept.get(key, 0) + 1
        for name in sorted(filenames):
            if not cache and not name.endswith(SKIPPED_SUFFIXES):
                files.append(Path(dirpath) / name)
                sizes.append((Path(dirpath) / name).lstat().st_size)
        if len(files) > MAX_BOT_FILES:  # before hashing them all
            raise ManifestError(f"{printable(str(root))} holds more than {MAX_BOT_FILES:,} "
                                f"files; a bot may hold at most {MAX_BOT_FILES:,} (its "
                                "packages belong in its environment: requirements:)")
    if sum(sizes) > MAX_BOT_BYTES:
        largest = max(range(len(files)), key=sizes.__getitem__)
        raise ManifestError(f"{printable(str(root))} holds {sum(sizes) / 2**20:.0f} MiB of "
                            f"files; a bot may hold at most {MAX_BOT_BYTES >> 20} MiB (the "
                            f"largest: {printable(str(files[largest].relative_to(root)))}, "
                            f"{sizes[largest] / 2**20:.0f} MiB)")
    for file in files:
        _refuse_outside_link(file, names, skipped, root)
    return files


def _refuse_outside_link(file: Path, names: dict[tuple[int, int], int],
                         skipped: dict[tuple[int, int], int], root: Path) -> None:
    """Refuse a hard link to a file outside the bot (more names than the bot holds): the
    referee copies its content into the bot's reach, though its submitter may not be able to
    read it (a file of another user, linked where the kernel lets anyone link any file).
    Only the names a launch's copy keeps count (``names``; ``skipped``: those in caches):
    the copy counts no others, and would refuse at every launch a bot checked here."""
    info = file.lstat()
    inside = names.get((info.st_dev, info.st_ino), 1)
    cached = skipped.get((info.st_dev, info.st_ino), 0)
    if info.st_nlink > inside and info.st_nlink <= inside + cached:
        raise ManifestError(f"{printable(str(file))} is a hard link to a file the bot "
                            f"{printable(str(root))} also names where a launch copies nothing "
                            f"({info.st_nlink} names, {cached} of them in a cache directory or "
                            "a .pyc file): a launch would take it for a link to a file outside "
                            "the bot; copy the file (cp) instead of linking it")
    if info.st_nlink > inside:
        raise ManifestError(f"{printable(str(file))} is a hard link to a file outside the bot "
                            f"{printable(str(root))} ({info.st_nlink} names, {inside} of them "
                            "in the bot): a bot may hold only files of its own; copy the file "
                            "in (cp) instead of linking it")


def _refuse_environment(root: Path, venv: Path) -> None:
    """Refuse a virtual environment made in the bot's directory (the README's first step,
    taken there), naming it: its links were refused one by one, which said nothing of what
    to do. Its packages would not be the bot's anyway (the sandbox runs its own Python)."""
    raise ManifestError(f"{printable(str(venv))} is a virtual environment inside the bot "
                        f"{printable(str(root))}: move it out (the bot's Python never uses it; "
                        "packages a bot needs go in its bot.yaml, requirements:)")


def _refuse_undecodable(path: Path) -> None:
    """Refuse a name that is not UTF-8 (bytes a file system takes, Python holds as
    surrogates): a version hashes the names as UTF-8, and no message could print it."""
    try:
        path.name.encode()
    except UnicodeEncodeError:
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")
        raise ManifestError(f"{printable(shown)}: the name is not valid UTF-8: a bot's files "
                            "and directories need names in UTF-8 (rename it)") from None


def _refuse_special(path: Path) -> os.stat_result:
    info = path.lstat()
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        # npm links each package's commands there: its flag leaves them out
        npm = ("; npm install --no-bin-links makes node_modules without them"
               if path.parent.name == ".bin" and path.parent.parent.name == "node_modules"
               else "")
        raise ManifestError(f"{printable(str(path))} is a symbolic link (to "
                            f"{printable(os.readlink(path))}): a bot directory may hold only "
                            f"regular files and directories{npm}")
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise ManifestError(f"{printable(str(path))} is not a regular file: a bot directory "
                            "may hold only regular files and directories")
    return info


def content_version(files: list[Path] | tuple[Path, ...], root: Path,
                    names: dict[Path, str] | None = None) -> str:
    """First 12 hex digits of a sha256 over the files' relative paths and contents.

    ``names`` gives a file the relative path it will have (a module registered under another
    name is copied as ``<name>.py``: :func:`submit` reports the copy's version up front)."""
    names = names or {}

    def rel(file: Path) -> str:
        return names.get(file) or file.relative_to(root).as_posix()

    digests: dict[str, bytes] = {}
    for file in files:
        with _open_regular(file) as handle:  # in chunks: a big file is not read whole
            digests[rel(file)] = hashlib.file_digest(handle, "sha256").digest()
    return files_version(digests)  # the formula the per-launch copy is checked with


def _open_regular(file: Path) -> io.BufferedReader:
    """``file`` open for reading when it is a regular file, else OSError. The files are
    hashed again at each table's start, when their author may have made one a FIFO (whose
    opening waits for a writer) or a link to /dev/zero (endless): the referee would hang."""
    fd = os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    handle = open(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        handle.close()
        raise OSError(errno.EINVAL, "not a regular file", str(file))
    return handle


# --------------------------------------------------------------------------- metadata
def _plain(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return value


def module_metadata(file: Path) -> dict[str, Any]:
    """Class attributes (``name`` and :data:`METADATA_KEYS`) of the Bot subclass in a module,
    read from its syntax tree without running it; literals only."""
    try:
        # utf-8-sig: an editor's byte order mark is no syntax error (Python runs such a file)
        with _open_regular(file) as handle:  # (made a FIFO since it was looked at)
            source = handle.read(MAX_BOT_BYTES + 1).decode("utf-8-sig")
        tree = ast.parse(source, filename=str(file))
    except (SyntaxError, UnicodeDecodeError, ValueError, RecursionError, MemoryError):
        return {}  # not ours to judge here: the bot fails its start-up, with Python's reason
    found: dict[str, Any] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        bases = {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute)
                 else "" for b in node.bases}
        if not bases:
            continue
        attrs: dict[str, Any] = {}
        for stmt in node.body:
            targets: list[ast.expr] = []
            value: ast.expr | None = None
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            for target in targets:
                if isinstance(target, ast.Name) and target.id in ("name", *METADATA_KEYS):
                    try:
                        attrs[target.id] = _plain(ast.literal_eval(value))  # type: ignore[arg-type]
                    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                        pass
        if "Bot" in bases or attrs:
            found = attrs
            if "Bot" in bases:
                break
    return {k: v for k, v in found.items() if isinstance(v, str) and v}


def _class_metadata(file: Path) -> dict[str, str]:
    """The metadata a kit bot's class sets (the kit's ``ready`` says it), read from its
    syntax tree, without its name (a ``bot.yaml``'s names the bot): what the ``bot.yaml``
    leaves out. A ``command`` bot's ``ready`` is known only once it runs, and a bot runs only
    in its sandbox: its ``bot.yaml`` alone is read."""
    return {key: str(value) for key, value in module_metadata(file).items()
            if key in METADATA_KEYS}


def _load_manifest(directory: Path) -> dict[str, Any]:
    file = directory / MANIFEST
    try:
        # read as the files are hashed: it may have become a FIFO or a link to /dev/zero
        # since the directory was walked, and only so much of it is read
        with _open_regular(file) as handle:
            raw = handle.read(_MANIFEST_BYTES + 1)
        if len(raw) > _MANIFEST_BYTES:
            raise ManifestError(f"{file} is larger than {_MANIFEST_BYTES >> 10} KiB")
        data = yaml.load(raw.decode("utf-8"), Loader=NoAliasLoader)  # noqa: S506
    except yaml.YAMLError as exc:
        raise ManifestError(f"{file}: {printable(yaml_problem(exc))}") from None
    except RecursionError:
        raise ManifestError(f"{file} is nested too deeply to read") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"cannot read {file}: {getattr(exc, 'strerror', None) or exc}") \
            from None
    if not isinstance(data, dict):
        raise ManifestError(f"{file} must be a mapping with at least 'name' and 'command' "
                            "or 'module'")
    return data


# --------------------------------------------------------------------------- specs
def _plain_name(name: str, where: Path) -> str:
    """A bot's name as results key it (``name@version``): no ``@`` in it, no ``|`` (the cell
    separator of Markdown tables) and no start a spreadsheet reads as a formula (the csv
    exports hold it; '@' is one too)."""
    if "@" in name:
        raise ManifestError(f"{printable(str(where))}: a bot's name cannot contain '@' (it "
                            f"separates the name from the version in results): "
                            f"'{printable(name)}'")
    # refused rather than escaped: each table format escapes it its own way, or not at all
    # (Markdown's \| is a backslash in org-mode), and every table of every command shows it
    if "|" in name:
        raise ManifestError(f"{printable(str(where))}: a bot's name cannot contain '|' "
                            "(Markdown and the other table formats of --format would split it "
                            f"into columns): '{printable(name)}'")
    # controls and bidi overrides are shown escaped (printable); the rest would show nothing
    hidden = next((c for c in controls_escaped(name)
                   if unicodedata.category(c) in _HIDDEN or ord(c) in _BLANK), None)
    if hidden is not None:
        raise ManifestError(f"{printable(str(where))}: a bot's name cannot hold an invisible "
                            f"character (U+{ord(hidden):04X}): two bots would show the same "
                            f"name in results: {ascii(name)}")
    # a hair or thin space inside is drawn as a pixel or nothing, an ideographic one as two
    spaced = next((c for c in name if unicodedata.category(c) == "Zs" and c != " "), None)
    if spaced is not None:
        raise ManifestError(f"{printable(str(where))}: a bot's name cannot hold a space other "
                            f"than ' ' (U+{ord(spaced):04X}, drawn narrower, wider or not at "
                            f"all): two bots would show the same name in results: {ascii(name)}")
    if name.startswith(("=", "+", "-")):
        raise ManifestError(f"{printable(str(where))}: a bot's name cannot start with '=', '+' "
                            "or '-' (a spreadsheet opening the csv exports would run it as a "
                            f"formula): '{printable(name)}'")
    return name


def _module_spec(file: Path, name: str | None = None) -> BotSpec:
    file = file.resolve()
    if file.stat().st_nlink > 1:  # its other names lie anywhere (see _refuse_outside_link)
        raise ManifestError(f"{printable(str(file))} is a hard link ({file.stat().st_nlink} "
                            "names): a bot's file must be its own; copy it (cp) instead of "
                            "linking it")
    if file.stat().st_size > MAX_BOT_BYTES:
        raise ManifestError(f"{printable(str(file))} is larger than {MAX_BOT_BYTES >> 20} MiB")
    meta = module_metadata(file)
    # stripped as a manifest's name is: 'greedy ' would show as 'greedy'
    bot_name = _plain_name(name or str(meta.pop("name", "") or "").strip() or file.stem,
                           file)
    meta.pop("name", None)
    return BotSpec(name=bot_name, version=content_version([file], file.parent), path=file,
                   command=(PYTHON, *RUNNER, file.name), metadata=meta, kind="module",
                   files=(file,))


def _manifest_metadata(data: dict[str, Any], where: Path) -> dict[str, str]:
    """A manifest's metadata, at its top or under ``metadata``, as text; what cannot be
    text (a list, a mapping) is left out with a warning, never silently."""
    meta: dict[str, str] = {}
    nested = data.get("metadata")
    if nested is not None and not isinstance(nested, dict):
        log.warning("%s: 'metadata' must be a mapping (e.g. metadata: {author: Ann}), got %s: "
                    "left out", where, _read_as(nested).removeprefix("got "))
        nested = None
    for key in (nested or {}):
        if key not in METADATA_KEYS:
            log.warning("%s: unknown metadata key %r%s (metadata takes %s)", where,
                        printable(str(key)), did_you_mean(str(key), METADATA_KEYS),
                        ", ".join(METADATA_KEYS))
    for prefix, source in (("metadata.", nested or {}), ("", data)):
        for key in METADATA_KEYS:
            value = source.get(key)
            if isinstance(value, bool):  # an int to Python: it was shown as "True"
                log.warning("%s: '%s%s' must be text, %s; left out", where, prefix, key,
                            _read_as(value))
            elif isinstance(value, str | int | float | dt.date):  # scalars: shown as text
                meta[key] = str(_plain(value))
            elif value is not None:
                log.warning("%s: '%s%s' must be text, got %s: left out", where, prefix, key,
                            _read_as(value).removeprefix("got "))
    return meta


def _python_files(directory: Path) -> str:
    """The Python files at the top of a bot directory, for a message (a few, or none)."""
    found = sorted(p.name for p in directory.glob("*.py") if p.is_file())
    shown = ", ".join(printable(name) for name in found[:5])
    return (shown + (f" and {len(found) - 5} more" if len(found) > 5 else "")) or "none"


def _read_as(value: Any) -> str:
    """What YAML made of a value meant as text, and how to write it (it was not said: a
    name given as 123 was 'required')."""
    if isinstance(value, bool):
        return ("but YAML reads an unquoted yes, no, on, off, true or false as "
                f"{str(value).lower()}: quote it")
    if isinstance(value, int | float | dt.date):
        text = value.isoformat() if isinstance(value, dt.date) else str(value)
        kind = "a date" if isinstance(value, dt.date) else "a number"
        return f'but YAML reads an unquoted {text} as {kind}: quote it (name: "{text}")'
    kind = ("a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict)
            else "a string" if isinstance(value, str) else type(value).__name__)
    return f"got {kind}"


def _directory_spec(directory: Path, name: str | None = None) -> BotSpec:
    directory = directory.resolve()
    has_manifest = (directory / MANIFEST).is_file()
    if not has_manifest and (directory / MANIFEST).is_dir():
        raise ManifestError(f"{directory / MANIFEST} is a directory: a bot's {MANIFEST} is a "
                            "file (docs/BOTS.md)")
    if not has_manifest and not (directory / "bot.py").is_file():
        # said before its files are read: a directory given by mistake (/tmp) may be huge
        raise ManifestError(f"{directory} is no bot directory: it has neither {MANIFEST} nor "
                            "bot.py")
    files = tuple(_bot_files(directory))
    version = content_version(files, directory)
    if not has_manifest:  # a kit bot in bot.py
        found = module_metadata(directory / "bot.py")
        module_name = _plain_name(name or str(found.pop("name", "") or "").strip()
                                  or directory.name, directory)
        found.pop("name", None)
        return BotSpec(module_name, version, directory, (PYTHON, *RUNNER, "bot.py"),
                       found, "module", files)
    data = _load_manifest(directory)
    where = directory / MANIFEST
    unknown = [printable(str(key)) for key in data if key not in MANIFEST_KEYS]
    for key in unknown:  # a typo, most likely; not fatal: older manifests may hold notes
        log.warning("%s: unknown key %r%s (a bot.yaml takes %s)", where, key,
                    did_you_mean(key, MANIFEST_KEYS), ", ".join(MANIFEST_KEYS))
    bot_name = name or data.get("name")
    if bot_name is not None and not isinstance(bot_name, str):
        raise ManifestError(f"{where}: 'name' must be a string, {_read_as(bot_name)}")
    if not isinstance(bot_name, str) or not bot_name.strip():
        raise ManifestError(f"{where}: 'name' is required (a string)")
    argv, module = _manifest_program(data, directory, where, unknown)
    meta = _manifest_metadata(data, where)
    if module is not None:  # what its ready will say, read without running it
        meta = {**_class_metadata(directory / module), **meta}
    kind = "command" if module is None else "module"
    spec = BotSpec(_plain_name(bot_name.strip(), where), version, directory, argv, meta, kind,
                   files, requirements=manifest_requirements(data.get("requirements"),
                                                             directory, where),
                   python=manifest_python(data.get("python"), where))
    if spec.requirements or spec.python:  # once built, the version it plays under
        env = cached_environment(spec.requirements, spec.python)
        return attach(spec, env) if env is not None else spec
    return spec


def _manifest_program(data: dict[str, Any], directory: Path, where: Path,
                      unknown: list[str]) -> tuple[tuple[str, ...], str | None]:
    """What a ``bot.yaml`` runs: its argv, and the kit module it names (None for a
    ``command``). ``unknown``: its keys that are none of a manifest's, a typo of which the
    refusal names."""
    command, module = data.get("command"), data.get("module")
    if (command is None) == (module is None):
        typo = next((f" ({key!r} is not a key: {match!r}?)" for key in unknown
                     if (match := closest(key, ("command", "module"))) is not None), "")
        raise ManifestError(f"{where}: give exactly one of 'command' (a list of arguments) "
                            f"or 'module' (a Python file){typo}")
    if module is not None:
        # resolved: '../other/bot.py' or '/abs/bot.py' is a file, but none the sandbox copies
        if (isinstance(module, str) and module.strip() and not (directory / module).exists()
                and (directory / module).parent.resolve().is_relative_to(directory)):
            raise ManifestError(f"{where}: 'module' names {printable(module)}, which the bot's "
                                f"directory does not hold (its Python files: "
                                f"{_python_files(directory)})")
        if (not isinstance(module, str) or not (directory / module).is_file()
                or not (directory / module).resolve().is_relative_to(directory)):
            raise ManifestError(f"{where}: 'module' must name a Python file of the bot's "
                                f"directory, got {module!r}")
        return (PYTHON, *RUNNER, module), module
    if (not isinstance(command, list) or not command
            or not all(isinstance(a, str | int | float) for a in command)):
        raise ManifestError(f"{where}: 'command' must be a non-empty list of arguments, "
                            f"e.g. [python3, bot.py]; got {command!r}")
    argv = tuple(str(a) for a in command)
    if any("\0" in a for a in argv):
        raise ManifestError(f"{where}: 'command' arguments cannot hold a NUL character")
    if environment_of_command(argv) is not None:
        # the launcher shows a command's environment to the bot: another bot's, its packages
        raise ManifestError(f"{where}: 'command' runs {printable(argv[0])}, the interpreter "
                            "of a packages environment; a bot names the packages it needs in "
                            "'requirements' and runs in an environment of its own (command: "
                            "[python3, ...], docs/BOTS.md)")
    return argv, None


def spec_from_path(path: Path, name: str | None = None) -> BotSpec:
    """The spec of a bot given by path (a ``.py`` module or a bot directory)."""
    try:
        if path.is_file():
            if path.suffix != ".py":
                raise BotNotFoundError(f"{path} is not a Python module (.py) or a bot "
                                       "directory")
            return _printable_spec(_module_spec(path, name))
        if path.is_dir():
            return _printable_spec(_directory_spec(path, name))
    except OSError as exc:  # a file removed, or made a FIFO or a link, since the walk
        where = printable(str(exc.filename or path))
        raise ManifestError(f"cannot read {where}: {exc.strerror or exc}") from None
    if path.exists():  # a FIFO, a socket, a device: there is something, never a bot
        raise BotNotFoundError(f"{printable(str(path))} is not a Python module (.py) or a bot "
                               "directory: it is not a regular file")
    raise BotNotFoundError(f"no bot at {path}")


def _printable_spec(spec: BotSpec) -> BotSpec:
    """The bot's own words (its name, its metadata) with control characters escaped: they
    are printed in tables and reports (:mod:`arena.common.printable`)."""
    metadata = {k: printable(v[:_METADATA_CHARS]) if isinstance(v, str) else v
                for k, v in spec.metadata.items()}
    return replace(spec, name=printable(spec.name[:_NAME_CHARS]), metadata=metadata)
