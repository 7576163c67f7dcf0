"""What travels to a Ray worker besides the table: each bot's files as a :class:`BotBundle`,
written once per node into a cache keyed by its content and checked against the bot's version,
and a fingerprint of the arena code that decides a game (:func:`code_fingerprint`), compared
between the driver and every worker. The contract: :mod:`arena.tournament.ray_executor`.

Imported by the workers: no Ray, nothing of the planner.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import socket
import stat
import tempfile
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import arena
from arena.errors import ClusterError
from arena.registry import VERSIONS_DIR, BotSpec, content_version, kept_copy

__all__ = ["BotBundle", "PLAY_CODE", "bundle_identity", "code_fingerprint", "materialize_bot",
           "pack_bot"]

#: The arena code that decides a game, compared between the driver and every worker: what a
#: worker imports to play a table (the table's messages, the store's ids and compression, the
#: Ray backend itself) and everything the referee runs.
PLAY_CODE = ("__init__.py", "errors.py", "native.py", "common", "registry", "engine",
             "protocol", "referee", "sandbox", "sdk", "tournament/__init__.py",
             "tournament/worker.py", "tournament/pool.py", "tournament/tasks.py",
             "tournament/boards.py", "tournament/store.py", "tournament/game_records.py",
             "tournament/dbfiles.py", "tournament/runlock.py", "tournament/secrecy.py",
             "tournament/ray_bundles.py", "tournament/ray_worker.py", "tournament/ray_executor.py")
_COMPLETE = ".complete"


@dataclass(frozen=True)
class BotBundle:
    """A bot's files as they travel to a worker: the module file, or the files of the bot's
    directory (those its version hashes), with their permission bits."""

    name: str
    version: str
    top: str  # the module's file name, or the directory's name
    is_dir: bool
    files: tuple[tuple[str, int, bytes], ...]  # (posix path relative to the bot, mode, bytes)

    @property
    def size(self) -> int:
        return sum(len(data) for _, _, data in self.files)

    @property
    def digest(self) -> str:
        """Identifies the bundle's whole content (the name of its cache entry)."""
        h = hashlib.sha256(f"{self.top}\0{int(self.is_dir)}\0{self.version}\0".encode())
        for rel, mode, data in self.files:
            h.update(f"{rel}\0{mode:o}\0".encode())
            h.update(hashlib.sha256(data).digest())
        return h.hexdigest()[:20]


def pack_bot(spec: BotSpec, kept_copies: bool = False) -> BotBundle:
    """The bundle of a resolved bot, read from the driver's disk; refused if its files no
    longer match its version (edited since the tournament started). With ``kept_copies`` (a
    tournament's), files ``arena submit --update`` replaced are packed from the copy the update
    kept, under the bot's own file name: the bundle the version's files made before."""
    try:
        return _pack(spec)
    except ClusterError:
        kept = kept_copy(spec) if kept_copies else None
        if kept is None:
            raise
        return dataclasses.replace(_pack(kept), top=Path(spec.path).name)


def _pack(spec: BotSpec) -> BotBundle:
    path = Path(spec.path)
    try:
        if path.is_dir():
            root = path
            files = sorted(spec.files, key=lambda f: f.relative_to(root).as_posix())
            if not files:
                raise ClusterError(f"bot {spec.key}: no files listed for {path}")
        elif path.is_file():
            root = path.parent
            files = [path]
        else:
            raise ClusterError(f"bot {spec.key}: no bot at {path} any more")
        if content_version(files, root) != spec.files_digest:
            raise ClusterError(f"bot {spec.key}: its files at {path} changed since the "
                               "tournament started (version "
                               f"{content_version(files, root)} now)")
        entries = tuple((f.relative_to(root).as_posix() if path.is_dir() else f.name,
                         stat.S_IMODE(f.stat().st_mode) & 0o777, f.read_bytes())
                        for f in files)
    except OSError as exc:
        raise ClusterError(f"bot {spec.key}: cannot read its files: {exc}") from None
    return BotBundle(name=spec.name, version=spec.files_digest, top=_own_name(path),
                     is_dir=path.is_dir(), files=entries)


def bundle_identity(spec: BotSpec) -> tuple[str, str, str, tuple[str, ...]]:
    """What tells one bundle from another before it is packed: the bot's name, the hash of
    its files (their paths within the bot and their bytes), the name they travel under, and
    which of its files are executable now (the sandbox seals each file executable or not
    by its bits, and a chmod changes no byte the hash sees). Not the bot's path: a league's
    version seated from the copy ``arena submit --update`` kept (its modes kept too) packs
    to the very bundle its own files made; nor its options, which do not travel in the
    bundle; nor the other permission bits, which change nothing that runs."""
    return spec.name, spec.files_digest, _own_name(Path(spec.path)), _executables(spec)


def _executables(spec: BotSpec) -> tuple[str, ...]:
    """The bot's files whose executable bits are set, as they travel (a module by its file
    name, a directory's files by their paths within it)."""
    path = Path(spec.path)
    found = []
    for file in spec.files:
        try:
            executable = bool(os.stat(file).st_mode & 0o111)
        except OSError:  # packing says what is wrong with it
            continue
        if executable:
            found.append(file.relative_to(path).as_posix() if file != path else file.name)
    return tuple(sorted(found))


def _own_name(path: Path) -> str:
    """The name of a bot's files as registered: a directory that ``arena submit --update``
    kept as ``.versions/NAME@VERSION`` (which a league seats once its files are replaced)
    was ``NAME``, and travels so, the bundle it made before (a module's file keeps its
    name there)."""
    if path.parent.name == VERSIONS_DIR and "@" in path.name:
        return path.name.rpartition("@")[0]
    return path.name


def _cache_root() -> Path:
    """This user's bundle cache on this node (mode 0700, refused when not ours)."""
    root = Path(os.environ.get("ARENA_RAY_CACHE")
                or Path(tempfile.gettempdir()) / f"arena-ray-bots-{os.geteuid()}")
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(root)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise ClusterError(f"the bot cache {root} is not a directory of this user")
    if info.st_mode & 0o077:
        os.chmod(root, 0o700)
    return root


_verified: set[str] = set()
_verified_lock = threading.Lock()


def materialize_bot(bundle: BotBundle, spec: BotSpec, cache: Path | None = None) -> BotSpec:
    """Write a bundle into this node's cache (once per content) and return ``spec`` pointing at
    that copy; the copy must reproduce the bot's version. Several workers of a node may do this
    at once: each writes a private directory and renames it into place."""
    root = cache or _cache_root()
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    root = root.resolve()  # the sandbox's copy takes no link in a bot's path
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", bundle.name)[:40]
    entry = root / f"{safe}-{bundle.digest}"
    for attempt in (1, 2):
        if not (entry / _COMPLETE).is_file():
            _write_entry(bundle, root, entry)
        path = entry / bundle.top
        if bundle.is_dir:
            files = tuple(path / rel for rel, _, _ in bundle.files)
            base = path
        else:
            files = (path,)
            base = entry
        with _verified_lock:
            if str(entry) in _verified:
                break
        try:
            version = content_version(files, base)
        except OSError:
            version = "unreadable"
        if version == bundle.version:
            with _verified_lock:
                _verified.add(str(entry))
            break
        if attempt == 2:
            raise ClusterError(f"bot {bundle.name}@{bundle.version}: its files arrived on "
                               f"{socket.gethostname()} as version {version}")
        shutil.rmtree(entry, ignore_errors=True)  # a damaged cache entry: write it anew
    old = str(spec.path)
    command = tuple(str(path) + arg[len(old):] if arg == old or arg.startswith(old + "/")
                    else arg for arg in spec.command)
    return dataclasses.replace(spec, path=path, command=command, files=files)


def _write_entry(bundle: BotBundle, root: Path, entry: Path) -> None:
    for name in (bundle.top, *(rel for rel, _, _ in bundle.files)):
        parts = Path(name).parts
        if not parts or Path(name).is_absolute() or ".." in parts or parts[0] == _COMPLETE:
            raise ClusterError(f"bot {bundle.name}: bad file name {name!r} in its bundle")
    if "/" in bundle.top:
        raise ClusterError(f"bot {bundle.name}: bad name {bundle.top!r} in its bundle")
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=root))
    try:
        top = tmp / bundle.top
        for rel, mode, data in bundle.files:
            target = (top / rel) if bundle.is_dir else top
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            os.chmod(target, (mode & 0o755) | 0o400)
        (tmp / _COMPLETE).write_text(bundle.version)
        try:
            os.rename(tmp, entry)
        except OSError:
            if not (entry / _COMPLETE).is_file():  # neither ours nor a complete one: retry
                shutil.rmtree(entry, ignore_errors=True)
                os.rename(tmp, entry)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """``<arena version>:<hash>`` of the arena code that decides a game (engine, protocol,
    referee, sandbox, kit, registry, the table's messages and this module)."""
    root = Path(arena.__file__).resolve().parent
    digest = hashlib.sha256()
    for item in PLAY_CODE:
        where = root / item
        files = sorted(where.rglob("*.py")) if where.is_dir() else [where]
        for file in files:
            if "__pycache__" in file.parts or not file.is_file():
                continue
            digest.update(file.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    return f"{arena.__version__}:{digest.hexdigest()[:16]}"

