"""Per-bot Python environments: the packages a ``bot.yaml`` requires, built outside the sandbox.

An environment is a virtual environment (``python -m venv --without-pip``) made with the
interpreter the sandbox runs bots with, or the Python version a ``bot.yaml`` asks for
(:mod:`arena.registry.interpreters`), into which the arena's own pip (``pip --python``)
installs the requirements from the package index, wheels only: a source distribution's build
would run the package's code outside the sandbox, as the referee. Nothing is ever installed
from inside the sandbox, which has no network.

Environments live in a cache (:func:`env_cache_dir`), one directory per key (the sorted,
normalized requirements and the interpreter's path and version), shared by every bot that
asks for the same. A build holds a lock on its key, so two builds of one key never race;
the directory counts as built once its record (:data:`RECORD`: requirements, interpreter,
the frozen package list) is there, written last by rename. The venv is built in place (its
scripts name their own path, so it cannot be moved once built); a build that died part way
is removed by the next one, or by ``arena env prune`` (under the same lock, taken without
waiting: one being built is left).

A bot with requirements runs under its environment's interpreter (``bin/python``, which
reads the environment's ``pyvenv.cfg`` and its site-packages, ``.pth`` files included); the
sandbox shows the environment read-only. Its version folds in the frozen package list, so a
dependency that resolves to another release makes a new version.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path

from arena.common.printable import printable
from arena.errors import BotEnvironmentError
from arena.registry.botspec import PYTHON, BotSpec
from arena.registry.build_steps import build_bound, run_step
from arena.registry.interpreters import Interpreter, interpreter_for

__all__ = [
    "RECORD",
    "Environment",
    "UnbuiltEnvironment",
    "attach",
    "build_count",
    "cached_environment",
    "ensure_environment",
    "env_cache_dir",
    "environment_changed",
    "environment_at",
    "environment_key",
    "environment_of_command",
    "list_environments",
    "on_build",
    "remove_environment",
    "unbuilt_environments",
    "with_environment",
]

#: The record that marks a built environment (written last).
RECORD = "arena-env.json"
_LOCKS = ".locks"
_KEY = re.compile(r"[0-9a-f]{16}")  # fullmatch: a directory a build names
_PIP_TIMEOUT_S = 20
_builds = 0
#: Told of each build as it starts (requirements, directory): the CLI says what the wait is.
_notices: list[Callable[[tuple[str, ...], Path], None]] = []


def on_build(notice: Callable[[tuple[str, ...], Path], None]) -> None:
    """Have ``notice(requirements, directory)`` called as each build starts."""
    _notices.append(notice)


def env_cache_dir() -> Path:
    """Where environments are kept: ``$ARENA_ENV_CACHE``; else, for a root referee (whose bots
    run as other users, who cannot enter ``/root``), ``/var/cache/palaestra-arena/envs``;
    else ``$XDG_CACHE_HOME/palaestra-arena/envs`` (default ``~/.cache``). Always absolute: a
    bot runs its environment's interpreter from its own directory."""
    given = os.environ.get("ARENA_ENV_CACHE")
    if given:
        return Path(given).absolute()
    if os.geteuid() == 0:
        return Path("/var/cache/palaestra-arena/envs")
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).absolute() / "palaestra-arena" / "envs"


def build_count() -> int:
    """How many environments this process has built (not reused)."""
    return _builds


@dataclass(frozen=True)
class Environment:
    """A built environment, as its record describes it."""

    key: str
    path: Path
    python: str
    python_version: str
    requirements: tuple[str, ...]
    frozen: tuple[str, ...]
    built: str

    @property
    def interpreter(self) -> Path:
        return self.path / "bin" / "python"

    def size(self) -> int:
        """Bytes of its files."""
        return _tree_size(self.path)


def _key(requirements: tuple[str, ...], interpreter: Interpreter) -> str:
    text = json.dumps({"requirements": sorted(set(requirements)), "python": interpreter.path,
                       "version": interpreter.version}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def environment_at(path: Path) -> Environment | None:
    """The built environment at ``path``, or None."""
    return _read_record(path)


def _read_record(path: Path) -> Environment | None:
    found = _examine(path)
    return found if isinstance(found, Environment) else None


def _examine(path: Path) -> Environment | str:
    """The built environment at ``path``, or why it does not count as one."""
    if path.is_symlink() and not path.exists():
        return f"a symbolic link to {os.readlink(path)}, which is not there"
    if not path.is_dir():
        return "a file, not an environment's directory"
    try:
        data = json.loads((path / RECORD).read_text(encoding="utf-8"))
        return Environment(key=path.name, path=path, python=data["python"],
                           python_version=data["python_version"],
                           requirements=tuple(data["requirements"]),
                           # a wheel's data may hold another distribution's metadata,
                           # unchecked by pip: the names are the bot author's, and printed
                           frozen=tuple(printable(str(f)) for f in data["frozen"]),
                           built=data["built"])
    except FileNotFoundError:
        return f"no {RECORD}: a build that stopped part way (killed, or a full disk)"
    except OSError as exc:
        return f"its {RECORD} cannot be read ({exc.strerror or exc})"
    except (ValueError, KeyError, TypeError, AttributeError):
        return f"its {RECORD} is not an environment's record (a build cut short, or edited)"


def environment_key(requirements: tuple[str, ...], python: str | None) -> str:
    """The cache key of the environment for these requirements (raises when the host lacks
    the Python asked for)."""
    return _key(requirements, interpreter_for(python))


def cached_environment(requirements: tuple[str, ...],
                       python: str | None) -> Environment | None:
    """The built environment for these requirements, or None (nothing is built here)."""
    try:
        interpreter = interpreter_for(python)
    except BotEnvironmentError:
        return None
    return _read_record(env_cache_dir() / _key(requirements, interpreter))


def ensure_environment(requirements: tuple[str, ...], python: str | None) -> Environment:
    """The environment for these requirements, built now unless the cache has it."""
    interpreter = interpreter_for(python)
    key = _key(requirements, interpreter)
    root = env_cache_dir()
    found = _read_record(root / key)
    if found is not None:
        return found
    _make_cache(root)
    with _locked(root, key):
        found = _read_record(root / key)  # built meanwhile by another process
        if found is not None:
            return found
        return _build(root / key, requirements, interpreter)


def _closed_ancestor(root: Path) -> Path | None:
    """The first directory above ``root`` other users cannot enter, if any."""
    for directory in reversed(root.resolve().parents):
        if directory.is_dir() and not directory.stat().st_mode & 0o001:
            return directory
    return None


def _not_a_directory(root: Path) -> str:
    """Why the cache ``root`` cannot be a directory: it, or a directory it is to be in, is a
    file."""
    file = next((p for p in reversed([root, *root.parents]) if p.exists() and not p.is_dir()),
                root)
    where = "" if file == root else f" ({file} is a file)"
    what = "is a file, not a directory" if file == root else "cannot be a directory"
    return (f"the environment cache {root} {what}{where}: ARENA_ENV_CACHE picks another "
            "directory")


def _make_cache(root: Path) -> None:
    if any(p.exists() and not p.is_dir() for p in [root, *root.parents]):
        raise BotEnvironmentError(_not_a_directory(root))
    closed = _closed_ancestor(root) if os.geteuid() == 0 else None
    if closed is not None:  # a root referee's bots run as other users: they must reach it
        raise BotEnvironmentError(
            f"the environment cache {root} is out of the bots' reach ({closed} is closed to "
            "other users): set ARENA_ENV_CACHE to a directory they may enter, such as "
            "/var/cache/palaestra-arena/envs")
    existed = root.is_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
        (root / _LOCKS).mkdir(exist_ok=True)
        root.chmod(0o755)  # the bots' users look inside (without bubblewrap)
    except OSError as exc:
        what = "cannot write into" if existed else "cannot create"
        raise BotEnvironmentError(f"{what} the environment cache {root}: "
                                  f"{exc.strerror or exc} (ARENA_ENV_CACHE picks another "
                                  "directory)") from None


@contextlib.contextmanager
def _locked(root: Path, key: str, wait: bool = True) -> Iterator[None]:
    """``key``'s lock held (without ``wait``: BlockingIOError when another process holds
    it)."""
    (root / _LOCKS).mkdir(exist_ok=True)
    fd = os.open(root / _LOCKS / f"{key}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        yield
    finally:
        os.close(fd)


def _build(path: Path, requirements: tuple[str, ...],
           interpreter: Interpreter) -> Environment:
    global _builds
    bound = build_bound()
    deadline = time.monotonic() + bound
    if path.exists():  # a build that died part way
        shutil.rmtree(path)
    for notice in _notices:
        notice(requirements, path)
    try:
        # -I (isolated): ``-m`` and ``-c`` would import from the working directory first,
        # and the user may stand in the bot's own directory (``arena check-bot .``), whose
        # venv.py or pip/ would then run here, outside the sandbox, as the referee
        run_step([interpreter.path, "-I", "-m", "venv", "--without-pip", str(path)],
                 f"{interpreter.path} cannot make a virtual environment", deadline,
                 "making its virtual environment", bound)
        # a package's data files land where it says, a record too: a directory holds the
        # record's place, so none counts as built until the build's own replaces it
        (path / RECORD).mkdir()
        if requirements:  # (a bot may ask for a Python alone)
            run_step([sys.executable, "-I", "-m", "pip", "--python", str(path / "bin" / "python"),
                      "install", "--only-binary", ":all:", "--no-input",
                      "--disable-pip-version-check", "--no-warn-script-location",
                      "--progress-bar", "off", "--retries", "2", "--timeout", str(_PIP_TIMEOUT_S),
                      *requirements], None, deadline, "installing its requirements", bound)
        frozen = _frozen(path)
        _open_to_bots(path)
        record = {"requirements": list(requirements), "python": interpreter.path,
                  "python_version": interpreter.version, "frozen": list(frozen),
                  "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        partial = path / f".{RECORD}.part"
        partial.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        partial.chmod(0o644)
        shutil.rmtree(path / RECORD)
        partial.rename(path / RECORD)
    except OSError as exc:
        shutil.rmtree(path, ignore_errors=True)
        if exc.errno == errno.ENOSPC:
            raise BotEnvironmentError(f"the disk is full: cannot install into {path}") \
                from None
        raise BotEnvironmentError(f"cannot build an environment in {path}: "
                                  f"{exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise
    _builds += 1
    found = _read_record(path)
    assert found is not None
    return found


def _site_packages(path: Path) -> list[Path]:
    return sorted(path.glob("lib/python3*/site-packages"))


def _frozen(path: Path) -> tuple[str, ...]:
    """``name==version`` of every distribution installed in the environment, sorted (made
    printable as the record is read: see :func:`_examine`)."""
    found = {f"{d.metadata['Name']}=={d.version}"
             for d in metadata.distributions(path=[str(p) for p in _site_packages(path)])
             if d.metadata["Name"]}
    return tuple(sorted(found, key=str.lower))


def _open_to_bots(path: Path) -> None:
    """Readable (and, where executable, runnable) by every user: a bot runs as its own."""
    for dirpath, _dirnames, filenames in os.walk(path):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            file = Path(dirpath) / name
            if not file.is_symlink():
                mode = file.stat().st_mode
                file.chmod(0o755 if mode & 0o100 else 0o644)


def list_environments(root: Path | None = None) -> list[Environment]:
    """Every built environment in the cache, by key."""
    found = (_examine(p) for p in _cache_entries(root))
    return [env for env in found if isinstance(env, Environment)]


@dataclass(frozen=True)
class UnbuiltEnvironment:
    """An entry of the cache that is no built environment: a build under way, or one that
    stopped part way (killed, a full disk), or what else was left there."""

    key: str
    path: Path
    why: str
    building: bool  # a build holds its key's lock now

    def size(self) -> int:
        """Bytes of its files (none of a link's: they are elsewhere)."""
        return 0 if self.path.is_symlink() else _tree_size(self.path)


def unbuilt_environments(root: Path | None = None) -> list[UnbuiltEnvironment]:
    """Every entry of the cache that is not a built environment, by key."""
    root = root if root is not None else env_cache_dir()
    found = []
    for path in _cache_entries(root):
        if not _KEY.fullmatch(path.name):
            continue  # not one of ours: left as it is
        why = _examine(path)
        if isinstance(why, str):
            building = _held(root, path.name)
            found.append(UnbuiltEnvironment(path.name, path, "being built now" if building
                                            else why, building))
    return found


def _cache_entries(root: Path | None) -> list[Path]:
    """The cache's entries by name (not its locks, nor a record being written)."""
    root = root if root is not None else env_cache_dir()
    try:
        return sorted(p for p in root.iterdir() if not p.name.startswith("."))
    except NotADirectoryError:
        raise BotEnvironmentError(_not_a_directory(root)) from None
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise BotEnvironmentError(f"cannot read the environment cache {root}: "
                                  f"{exc.strerror or exc}") from None


def _tree_size(path: Path) -> int:
    """Bytes of the files under ``path`` (links not followed; what vanishes meanwhile, or
    cannot be entered, not counted)."""
    if not path.is_dir():
        with contextlib.suppress(OSError):
            return path.lstat().st_size
    total = 0
    for dirpath, _dirnames, filenames in os.walk(path):
        for name in filenames:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def _held(root: Path, key: str) -> bool:
    """Whether another process holds ``key``'s lock now (builds it, or removes it)."""
    try:
        fd = os.open(root / _LOCKS / f"{key}.lock", os.O_RDONLY)
    except OSError:
        return False  # never locked, or not ours to open: no build of ours holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def remove_environment(entry: Environment | UnbuiltEnvironment) -> bool:
    """Remove one entry of the cache, under its key's lock, so never one being built: False
    (nothing removed) when another process holds the lock, or when an unbuilt one has been
    built meanwhile, or is gone. A symbolic link is removed itself, never what it leads to. Raises
    :class:`BotEnvironmentError` when its files cannot be removed."""
    path = entry.path
    try:
        with _locked(path.parent, entry.key, wait=False):
            if not os.path.lexists(path) or (isinstance(entry, UnbuiltEnvironment)
                                             and _read_record(path) is not None):
                return False  # removed, or built, by another process meanwhile
            if path.is_symlink() or not path.is_dir():
                path.unlink(missing_ok=True)
            else:
                # no longer counts as built (a directory in its place: a build killed
                # while pip installed, which counts as none already)
                with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                    (path / RECORD).unlink()
                shutil.rmtree(path)
    except BlockingIOError:
        return False
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename and exc.filename != str(path) else ""
        if exc.errno == errno.EROFS:
            where = f" (the cache {path.parent} cannot be written)"
        raise BotEnvironmentError(f"cannot remove the environment {path}: "
                                  f"{exc.strerror or exc}{where}") from None
    return True


def environment_of_command(command: Sequence[str]) -> Path | None:
    """The environment directory a bot's command runs in (its interpreter is the
    environment's ``bin/python``), or None for a command of no environment."""
    if not command or not command[0].endswith("/bin/python"):
        return None
    directory = Path(command[0]).parent.parent
    if (directory / RECORD).exists() or directory.parent == env_cache_dir():
        return directory
    return None


def _folded_version(spec: BotSpec, env: Environment) -> str:
    """The files' hash folded with the interpreter and the frozen package list (the options'
    part, if any, kept)."""
    text = "\n".join([spec.files_digest, env.python_version, *env.frozen])
    options = spec.version.partition("+")[2]
    folded = hashlib.sha256(text.encode()).hexdigest()[:12]
    return f"{folded}+{options}" if options else folded


def environment_changed(spec: BotSpec) -> str | None:
    """Why the environment ``spec`` runs in no longer holds the packages its version names
    (removed and built again since, after the index moved on), or None: a version is its
    files, its interpreter and its packages, and only that may play under its name. An
    environment gone is the launch's to say."""
    if spec.environment is None:
        return None
    env = environment_at(spec.environment)
    if env is None or _folded_version(spec, env) == spec.version:
        return None
    return (f"its environment {spec.environment} was built again since it entered, with "
            f"other packages ({', '.join(env.frozen) or 'none'} now)")


def attach(spec: BotSpec, env: Environment) -> BotSpec:
    """``spec`` running in ``env``: the environment's interpreter and the folded version."""
    command = list(spec.command)
    if command and (command[0] == PYTHON or Path(command[0]).name in
                    ("python", "python3", f"python{env.python_version.rsplit('.', 1)[0]}")):
        command[0] = str(env.interpreter)
    return replace(spec, command=tuple(command), environment=env.path,
                   version=_folded_version(spec, env), files_hash=spec.files_digest)


def with_environment(spec: BotSpec) -> BotSpec:
    """``spec`` with its environment built (or found in the cache); unchanged when it
    requires nothing (no ``requirements``, no ``python``) or already has one. Raises
    :class:`BotEnvironmentError` with the reason (after the bot's name) when it cannot be
    built."""
    if not (spec.requirements or spec.python) or spec.environment is not None:
        return spec
    try:
        env = ensure_environment(spec.requirements, spec.python)
    except BotEnvironmentError as exc:
        raise BotEnvironmentError(f"{spec.name}: {exc}") from None
    return attach(spec, env)
