"""Where bots live: resolving a bot reference to a :class:`BotSpec`, and ``submit``.

A bot reference is one of

* a registered name: ``bots/<name>.py``, ``bots/<name>/`` or an entry of ``bots/registry.yaml``;
* a path to a Python module holding an :class:`arena.sdk.Bot` subclass (run by the kit's
  runner);
* a path to a directory with a ``bot.yaml`` manifest (``name``; ``command``, a list of
  arguments run in the bot's own directory, for any language, or ``module``, a Python file of
  the directory; optional metadata ``author``, ``version``, ``last_read_page``,
  ``last_book_finished``), or with a ``bot.py`` and no manifest.

The referee never imports bot code: module metadata is read from the source with :mod:`ast`
and manifests with a safe loader (:mod:`arena.common.yamlfile`). A bot's version is the content hash
of its files, so the same name with edited files is a different version in the results. A bot
entered with options (:meth:`BotSpec.with_options`, e.g. a search budget from a tournament
spec) plays differently, so its version also names them: ``<files>+o<options>``.
"""

from __future__ import annotations

import ast
import datetime as dt
import glob
import hashlib
import json
import logging
import math
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from arena.common.printable import printable
from arena.common.suggest import closest, did_you_mean
from arena.common.yamlfile import NoAliasLoader, yaml_problem
from arena.errors import BotError, BotNotFoundError, ManifestError, SubmitError
from arena.sandbox.launcher import MAX_BOT_BYTES, SKIPPED_DIRS, SKIPPED_SUFFIXES

log = logging.getLogger("arena.registry")

__all__ = [
    "MANIFEST",
    "METADATA_KEYS",
    "PYTHON",
    "REGISTRY_FILE",
    "RUNNER",
    "BotSpec",
    "content_version",
    "default_bots_dir",
    "command_problem",
    "list_bots",
    "option_problems",
    "options_digest",
    "require_named_options",
    "resolve",
    "submit",
]

MANIFEST = "bot.yaml"
REGISTRY_FILE = "registry.yaml"
METADATA_KEYS = ("author", "version", "last_read_page", "last_book_finished")
#: Where ``submit --update`` keeps the versions it replaced (``<name>@<version>/``).
VERSIONS_DIR = ".versions"
#: The sample bots shipped with the arena (found by name when no other bots directory is set).
SAMPLE_BOTS_DIR = Path(__file__).resolve().parent.parent / "bots"
#: Every key a ``bot.yaml`` may hold (the metadata either at the top or under ``metadata``).
MANIFEST_KEYS = ("name", "command", "module", "metadata", *METADATA_KEYS)
#: Stands for "the Python interpreter the sandbox runs bots with" in a command; the referee
#: substitutes it at launch (see :mod:`arena.referee.client`).
PYTHON = "{python}"
#: How a module bot is run: ``python -m arena.sdk.runner`` but with the working directory (the
#: bot's) taken off ``sys.path`` before anything is imported. ``-m`` puts it first while Python
#: imports the runner, so a bot file named like a standard module (``copy.py``, ``json.py``)
#: broke the start-up; ``-P`` does the same but needs Python 3.11.
RUNNER = ("-c", "import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
                 "import runpy; runpy.run_module('arena.sdk.runner', run_name='__main__', "
                 "alter_sys=True)")
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")  # fullmatch: no "\n" after
_SKIP_DIRS = SKIPPED_DIRS
_SKIP_SUFFIXES = SKIPPED_SUFFIXES
#: What a registered copy leaves out (submitted, or kept at an update): caches, bytecode.
_NOT_COPIED = shutil.ignore_patterns(*_SKIP_DIRS, "*.pyc", "*.pyo")
#: The most a manifest may hold (a YAML file of a few lines; its aliases are refused too).
_MANIFEST_BYTES = 64 * 1024
#: Characters of a bot's name and of each metadata value kept (they are printed in tables).
_NAME_CHARS = 64
_METADATA_CHARS = 200


@dataclass(frozen=True)
class BotSpec:
    """A resolved bot: how to start it and what it is.

    ``path`` is the module file or the bot directory: the sandbox copies exactly that into
    the bot's private working directory, so a single-file bot never sees its neighbours in
    ``bots/``. ``command`` is the argv run there, where :data:`PYTHON` stands for the
    sandbox's interpreter; ``version`` the content hash of ``files``.
    """

    name: str
    version: str
    path: Path
    command: tuple[str, ...]
    metadata: dict[str, Any] = field(default_factory=dict)
    kind: str = "module"  # "module" (kit runner) or "command" (any language)
    files: tuple[Path, ...] = ()
    #: Settings sent to the bot in ``hello`` (``options``), e.g. a fixed search budget.
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """``name@version``: the identity of a bot in results."""
        return f"{self.name}@{self.version}"

    @property
    def files_version(self) -> str:
        """The content hash of the files alone (the version without the options' part)."""
        return self.version.partition("+")[0]

    def with_options(self, options: dict[str, Any]) -> BotSpec:
        """This bot with ``options`` for ``hello``; its version names them, so results of
        one bot under different settings stay apart."""
        if not options:
            return replace(self, options={}, version=self.files_version)
        return replace(self, options=dict(options),
                       version=f"{self.files_version}+o{options_digest(options)}")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "path": str(self.path),
                "command": list(self.command), "kind": self.kind,
                "metadata": dict(self.metadata), "options": dict(self.options)}


def default_bots_dir() -> Path:
    """``$ARENA_BOTS_DIR``, else ``./bots`` when it exists, else the repository's ``bots/``."""
    env = os.environ.get("ARENA_BOTS_DIR")
    if env:
        return Path(env)
    here = Path("bots")
    if here.is_dir():
        return here
    return SAMPLE_BOTS_DIR


# --------------------------------------------------------------------------- hashing
def _bot_files(root: Path) -> list[Path]:
    """The files of a bot directory: regular files and directories only. A symbolic link
    (which ``submit`` would follow and copy, host files and all, where the bot can read
    them), a FIFO (which hangs whoever reads it) or a device is refused."""
    files: list[Path] = []
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):  # caches too: checked, not counted
        dirnames.sort()
        cache = any(part in _SKIP_DIRS for part in Path(dirpath).relative_to(root).parts)
        for name in [*dirnames, *filenames]:
            _refuse_special(Path(dirpath) / name)
        for name in sorted(filenames):
            if not cache and not name.endswith(_SKIP_SUFFIXES):
                files.append(Path(dirpath) / name)
                total += (Path(dirpath) / name).lstat().st_size
    if total > MAX_BOT_BYTES:
        raise ManifestError(f"{printable(str(root))} holds {total / 2**20:.0f} MiB of files; a "
                            f"bot may hold at most {MAX_BOT_BYTES >> 20} MiB")
    return files


def _refuse_special(path: Path) -> None:
    mode = path.lstat().st_mode
    if stat.S_ISLNK(mode):
        raise ManifestError(f"{printable(str(path))} is a symbolic link (to "
                            f"{printable(os.readlink(path))}): a bot directory may hold only "
                            "regular files and directories")
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise ManifestError(f"{printable(str(path))} is not a regular file: a bot directory "
                            "may hold only regular files and directories")


def content_version(files: list[Path] | tuple[Path, ...], root: Path,
                    names: dict[Path, str] | None = None) -> str:
    """First 12 hex digits of a sha256 over the files' relative paths and contents.

    ``names`` gives a file the relative path it will have (a module registered under another
    name is copied as ``<name>.py``: :func:`submit` reports the copy's version up front)."""
    names = names or {}

    def rel(file: Path) -> str:
        return names.get(file) or file.relative_to(root).as_posix()

    digest = hashlib.sha256()
    for file in sorted(files, key=rel):
        digest.update(rel(file).encode() + b"\0")
        with file.open("rb") as handle:  # in chunks: a big file is not read whole
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()[:12]


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a registered bot's name, or None when it can."""
    if name == "registry":
        return "bot name 'registry' is reserved (the bots directory's registry.yaml)"
    if _NAME_RE.fullmatch(name):
        return None
    return (f"bot name {name!r} is not allowed: use 1-40 letters, digits, '_', '-' or '.', "
            "starting with a letter or digit")


_OPTION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,59}")  # fullmatch


def option_problems(options: Any, where: str = "options") -> list[str]:
    """What is wrong with a bot's ``options`` (one line each; empty when fine): a mapping of
    names (1-60 letters, digits, '_', '-' or '.') to strings, numbers or booleans, the values
    every bot can read from ``hello``."""
    if not isinstance(options, dict):
        return [f"{where}: must be a mapping of option names to values, got "
                f"{_shown(options)}"]
    problems = []
    for key, value in options.items():
        if isinstance(key, bool):
            problems.append(f"{where}: option name {key} is not a name: YAML reads an unquoted "
                            "on, off, yes or no as true or false; quote it")
        elif not isinstance(key, str) or not _OPTION_NAME.fullmatch(key):
            problems.append(f"{where}: option name {key!r} must be 1-60 letters, digits, '_', "
                            "'-' or '.', starting with a letter or digit")
        elif not isinstance(value, str | int | float | bool) or (
                isinstance(value, float) and not math.isfinite(value)):  # not JSON
            problems.append(f"{where}.{key}: must be a string, number or true/false, got "
                            f"{_shown(value)}")
        elif isinstance(value, str) and printable(value) != value:  # shown in every table
            problems.append(f"{where}.{key}: must not hold control characters, got "
                            f"{printable(value)!r}")
    return problems


def _shown(value: Any) -> str:
    return ("a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict)
            else repr(value))


def options_digest(options: dict[str, Any]) -> str:
    """First 8 hex digits of a sha256 over the options as canonical JSON (key order does not
    matter)."""
    text = json.dumps(options, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:8]


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
        tree = ast.parse(file.read_text(encoding="utf-8-sig"), filename=str(file))
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


def _load_manifest(directory: Path) -> dict[str, Any]:
    file = directory / MANIFEST
    try:
        if file.stat().st_size > _MANIFEST_BYTES:
            raise ManifestError(f"{file} is larger than {_MANIFEST_BYTES >> 10} KiB")
        data = yaml.load(file.read_text(encoding="utf-8"), Loader=NoAliasLoader)  # noqa: S506
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
    """A bot's name as results key it (``name@version``): no ``@`` in it."""
    if "@" in name:
        raise ManifestError(f"{printable(str(where))}: a bot's name cannot contain '@' (it "
                            f"separates the name from the version in results): "
                            f"'{printable(name)}'")
    return name


def _module_spec(file: Path, name: str | None = None) -> BotSpec:
    file = file.resolve()
    if file.stat().st_size > MAX_BOT_BYTES:
        raise ManifestError(f"{printable(str(file))} is larger than {MAX_BOT_BYTES >> 20} MiB")
    meta = module_metadata(file)
    bot_name = _plain_name(name or str(meta.pop("name", "") or file.stem), file)
    meta.pop("name", None)
    return BotSpec(name=bot_name, version=content_version([file], file.parent), path=file,
                   command=(PYTHON, *RUNNER, file.name), metadata=meta, kind="module",
                   files=(file,))


def _directory_spec(directory: Path, name: str | None = None) -> BotSpec:
    directory = directory.resolve()
    has_manifest = (directory / MANIFEST).is_file()
    if not has_manifest and not (directory / "bot.py").is_file():
        # said before its files are read: a directory given by mistake (/tmp) may be huge
        raise ManifestError(f"{directory} is no bot directory: it has neither {MANIFEST} nor "
                            "bot.py")
    files = tuple(_bot_files(directory))
    version = content_version(files, directory)
    if not has_manifest:  # a kit bot in bot.py
        found = module_metadata(directory / "bot.py")
        module_name = _plain_name(name or str(found.pop("name", "") or directory.name),
                                  directory)
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
    if not isinstance(bot_name, str) or not bot_name.strip():  # type: ignore[redundant-expr]
        raise ManifestError(f"{where}: 'name' is required (a string)")
    command, module = data.get("command"), data.get("module")
    if (command is None) == (module is None):
        typo = next((f" ({key!r} is not a key: {match!r}?)" for key in unknown
                     if (match := closest(key, ("command", "module"))) is not None), "")
        raise ManifestError(f"{where}: give exactly one of 'command' (a list of arguments) "
                            f"or 'module' (a Python file){typo}")
    if module is not None:
        if not isinstance(module, str) or not (directory / module).is_file():
            raise ManifestError(f"{where}: 'module' must name a Python file of the bot's "
                                f"directory, got {module!r}")
        argv: tuple[str, ...] = (PYTHON, *RUNNER, module)
        kind = "module"
    else:
        if (not isinstance(command, list) or not command
                or not all(isinstance(a, str | int | float) for a in command)):
            raise ManifestError(f"{where}: 'command' must be a non-empty list of arguments, "
                                f"e.g. [python3, bot.py]; got {command!r}")
        argv = tuple(str(a) for a in command)
        if any("\0" in a for a in argv):
            raise ManifestError(f"{where}: 'command' arguments cannot hold a NUL character")
        kind = "command"
    meta: dict[str, Any] = {}
    nested = data.get("metadata")
    for key in (nested if isinstance(nested, dict) else {}):
        if key not in METADATA_KEYS:
            log.warning("%s: unknown metadata key %r%s (metadata takes %s)", where,
                        printable(str(key)), did_you_mean(str(key), METADATA_KEYS),
                        ", ".join(METADATA_KEYS))
    for source in (nested if isinstance(nested, dict) else {}, data):
        for key in METADATA_KEYS:
            value = source.get(key)
            if isinstance(value, str | int | float | dt.date):  # scalars: shown as text
                meta[key] = str(_plain(value))
    return BotSpec(_plain_name(bot_name.strip(), where), version, directory, argv, meta, kind,
                   files)


def command_problem(command: Sequence[str], workdir: str | Path) -> str | None:
    """Why a bot's program would not start, as far as its files tell: a bare name of one of
    the bot's own files (looked up on PATH, not in the bot's directory), or a script whose
    ``#!`` line ends in a Windows line ending or names an interpreter that is not here. The
    system's own words ("not found") name the program, not the cause.

    Runs in the referee, maybe as root, on a bot's say-so: it reads only a regular file of
    the bot's own directory (no absolute path, no way out with "..", no link, FIFO or
    device, never blocking), and of the host it tells only whether an interpreter exists in
    the system directories every bot sees anyway."""
    if not command:
        return None
    program = str(command[0])
    directory = Path(workdir)
    if "\0" in program:
        return None
    if "/" not in program:
        if (directory / program).is_file() and shutil.which(program) is None:
            return (f"{printable(program)!r} is a file of the bot: write ./{printable(program)} "
                    "to run it; a bare name is looked up on PATH")
        return None
    first = _first_line(directory, program)
    if first is None or not first.startswith(b"#!"):
        return None
    shown = printable(program)
    if first.endswith(b"\r"):
        return (f"the #! line of {shown} ends in a Windows line ending (\\r): save it with "
                "Unix line endings")
    words = first[2:].split()
    interpreter = words[0].decode(errors="replace") if words else ""
    if (interpreter.startswith(_SYSTEM_DIRS) and "\0" not in interpreter
            and not os.path.lexists(interpreter)):
        return (f"the #! line of {shown} names {printable(interpreter)}, which is not "
                "installed here")
    return None


#: Where a bot's interpreter may live: the system directories every bot sees read-only.
_SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/")


def _first_line(directory: Path, program: str) -> bytes | None:
    """The first line (without its newline, at most 512 bytes) of ``program`` when it is a
    regular file inside ``directory``; None for anything else."""
    if program.startswith("/"):
        return None
    root = directory.resolve()
    script = (root / program).resolve()
    if not script.is_relative_to(root):
        return None
    try:
        fd = os.open(script, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, 512).split(b"\n", 1)[0]
    except OSError:
        return None
    finally:
        os.close(fd)


def spec_from_path(path: Path, name: str | None = None) -> BotSpec:
    """The spec of a bot given by path (a ``.py`` module or a bot directory)."""
    if path.is_file():
        if path.suffix != ".py":
            raise BotNotFoundError(f"{path} is not a Python module (.py) or a bot directory")
        return _printable_spec(_module_spec(path, name))
    if path.is_dir():
        return _printable_spec(_directory_spec(path, name))
    raise BotNotFoundError(f"no bot at {path}")


def _printable_spec(spec: BotSpec) -> BotSpec:
    """The bot's own words (its name, its metadata) with control characters escaped: they
    are printed in tables and reports (:mod:`arena.common.printable`)."""
    metadata = {k: printable(v[:_METADATA_CHARS]) if isinstance(v, str) else v
                for k, v in spec.metadata.items()}
    return replace(spec, name=printable(spec.name[:_NAME_CHARS]), metadata=metadata)


# --------------------------------------------------------------------------- registry
def _registry(bots_dir: Path) -> dict[str, dict[str, Any]]:
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
    bots = data.get("bots") if isinstance(data, dict) else None
    return {str(k): v for k, v in (bots or {}).items() if isinstance(v, dict)}


def _write_registry(bots_dir: Path, entries: dict[str, dict[str, Any]]) -> None:
    text = ("# Bots registered with `arena submit` (name -> content-hash version, path, "
            "metadata).\n" + yaml.safe_dump({"bots": entries}, sort_keys=True))
    fd, tmp = tempfile.mkstemp(dir=bots_dir, prefix=".registry-", suffix=".yaml")
    try:  # mkstemp makes it private (0600): keep the registry's mode, or a plain file's
        mode = stat.S_IMODE((bots_dir / REGISTRY_FILE).stat().st_mode)
    except OSError:
        mode = 0o644
    os.fchmod(fd, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(tmp, bots_dir / REGISTRY_FILE)


def _registered(bots_dir: Path) -> Iterator[tuple[str, Path]]:
    """(name, path) of every bot under ``bots_dir``, registry entries first."""
    seen: set[str] = set()
    for name, entry in sorted(_registry(bots_dir).items()):
        path = bots_dir / str(entry.get("path", name))
        if path.exists():
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
    return sorted(name for name, _ in _registered(bots_dir or default_bots_dir()))


def resolve(ref: str | Path, bots_dir: Path | None = None) -> BotSpec:
    """A bot reference (registered name, ``.py`` path or bot directory) -> :class:`BotSpec`."""
    bots_dir = bots_dir or default_bots_dir()
    text = str(ref)
    path = Path(text)
    looks_like_path = isinstance(ref, Path) or "/" in text or text.endswith(".py")
    if path.exists() and (looks_like_path or not _is_registered(text, bots_dir)):
        return spec_from_path(path)
    for name, where in _registered(bots_dir):
        if name == text:
            if path.exists():
                log.warning("%r is the registered bot %s; the %s of that name here is not "
                            "used (write ./%s for it)", text, where,
                            "directory" if path.is_dir() else "file", text)
            return spec_from_path(where, name)
    if looks_like_path:
        raise BotNotFoundError(f"no bot at {text}")
    if "@" in text:
        return _resolve_version(text, bots_dir)
    raise _unknown(text, bots_dir)


def _unknown(text: str, bots_dir: Path) -> BotNotFoundError:
    """No bot of that name: the closest registered name, or the sample bot of that name when
    another bots directory is in use, then every registered name."""
    names = registered_names(bots_dir)
    hint = did_you_mean(text, names)
    samples = SAMPLE_BOTS_DIR
    if not hint and bots_dir.resolve() != samples and (samples / f"{text}.py").is_file():
        hint = f" (the sample bot is {samples / text}.py)"
    return BotNotFoundError(f"unknown bot '{printable(text)}'{hint} (registered: "
                            f"{', '.join(printable(n) for n in names) or 'none'})")


def _is_registered(name: str, bots_dir: Path) -> bool:
    return any(n == name for n, _ in _registered(bots_dir))


def list_bots(bots_dir: Path | None = None) -> list[BotSpec]:
    """Every registered bot, resolved (a broken one is skipped, not fatal for the listing)."""
    bots_dir = bots_dir or default_bots_dir()
    specs = []
    for name, path in _registered(bots_dir):
        try:
            specs.append(spec_from_path(path, name))
        except (ManifestError, BotNotFoundError):
            continue
    return specs


def _keep_version(bots_dir: Path, name: str, where: Path) -> None:
    """Copy a registered bot's files to ``.versions/<name>@<version>/`` before an update
    replaces them: a tournament that started with that version still resumes with it, and
    ``name@version`` names it in a spec or a match."""
    old = spec_from_path(where, name)
    kept = bots_dir / VERSIONS_DIR / f"{name}@{old.version}"
    if kept.exists():
        return
    if where.is_dir():
        shutil.copytree(where, kept, ignore=_NOT_COPIED)
    else:
        kept.mkdir(parents=True)
        shutil.copy2(where, kept / f"{name}.py")


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


def _resolve_version(text: str, bots_dir: Path) -> BotSpec:
    """``name@version`` (a results key; a ``+o...`` options part is ignored: the entry's
    options give it): the registered bot when it is that version, else the kept copy."""
    name, _, version = text.partition("@")
    version = version.split("+", 1)[0]
    where = next((path for n, path in _registered(bots_dir) if n == name), None)
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
        raise _unknown(name, bots_dir)
    have = ([current.version] if current is not None else []) + list(kept)
    raise BotNotFoundError(f"no version {version!r} of {name!r} (there are: {', '.join(have)})")


def submitted(bots_dir: Path | None = None) -> dict[str, dict[str, Any]]:
    """The entries of ``registry.yaml`` (what ``submit`` recorded)."""
    return _registry(bots_dir or default_bots_dir())


def submit(path: str | Path, name: str | None = None, bots_dir: Path | None = None,
           check: Callable[[BotSpec], Any] | None = None, *, update: bool = False) -> BotSpec:
    """Check a bot and register it under ``bots/`` with its content-hash version.

    ``check`` runs the compliance check and returns a report with ``ok`` and ``failures()``
    (default: :func:`arena.referee.check.check_bot`). Refused with :class:`SubmitError` on a
    name clash (unless ``update``: a new version replaces the registered one; stored results
    keep naming the old version) or a failing check; nothing is copied then. The same files
    under the name they are registered with are already there: the registered spec is
    returned, without a check (a script may submit the same bot again and again).
    """
    bots_dir = bots_dir or default_bots_dir()
    source = Path(path)
    if not source.exists():
        raise SubmitError(f"nothing to submit at {source}")
    spec = spec_from_path(source)
    bot_name = spec.name if name is None else name
    problem = name_problem(bot_name)
    if problem is not None:
        raise SubmitError(problem)
    if spec.path.is_file():  # copied as <name>.py: check and report the copy's version
        spec = replace(spec, version=content_version(
            [spec.path], spec.path.parent, {spec.path: f"{bot_name}.py"}))
    spec = replace(spec, name=bot_name)
    replaced: Path | None = None
    for existing, where in _registered(bots_dir):
        if existing.lower() == bot_name.lower():
            other = spec_from_path(where, existing)
            if other.version == spec.version and existing == bot_name:
                return other  # already there: submitting is idempotent (no check, no copy)
            if other.version == spec.version:
                raise SubmitError(f"{existing!r} is already registered with the same files "
                                  f"(version {other.version}); submit it as --name {existing}")
            if not update:
                raise SubmitError(f"a bot named {existing!r} is already registered (version "
                                  f"{other.version}); --update replaces it with this version "
                                  "(its results stay with the old one), or choose another "
                                  "name with --name")
            if existing != bot_name:
                raise SubmitError(f"--update replaces a bot under its registered name: "
                                  f"--name {existing}")
            replaced = where
    target = bots_dir / (f"{bot_name}.py" if spec.path.is_file() else bot_name)
    if (target.exists() or target.is_symlink()) and target != replaced:
        # one bot's name can be another's file name: 'foo' is foo.py, and a bot may be 'foo.py'
        owner = next((n for n, where in _registered(bots_dir) if where == target), None)
        taken = f"the files of bot {owner!r}" if owner else "files no registered bot names"
        raise SubmitError(f"cannot register {bot_name!r}: {target} already holds {taken}; "
                          "choose another name with --name")
    if check is None:
        from arena.referee.check import check_bot

        check = check_bot
    report = check(spec)
    if not report.ok:
        reasons = "; ".join(report.failures())
        raise SubmitError(f"{source} failed the compliance check: {reasons}")
    try:
        bots_dir.mkdir(parents=True, exist_ok=True)
        if replaced is not None:  # the check passed: the old files make way, kept aside
            _keep_version(bots_dir, bot_name, replaced)
            if replaced.is_dir():
                shutil.rmtree(replaced)
            else:
                replaced.unlink()
        if spec.path.is_file():
            shutil.copy2(spec.path, target)
        else:
            shutil.copytree(spec.path, target, ignore=_NOT_COPIED)
    except OSError as exc:
        raise SubmitError(f"cannot register into {bots_dir}: {exc.strerror or exc}") from None
    registered = spec_from_path(target, bot_name)
    entries = _registry(bots_dir)
    entries[bot_name] = {
        "path": target.name,
        "version": registered.version,
        "kind": registered.kind,
        "metadata": dict(registered.metadata),
        "submitted_at": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "source": str(source.resolve()),
    }
    _write_registry(bots_dir, entries)
    return registered
