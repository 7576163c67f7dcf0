"""What a ``bot.yaml`` asks to have installed: ``requirements:`` and ``python:``.

``requirements`` is a list of pip requirement strings (``numpy>=1.24``) or the path of a
requirements file among the bot's own files. Only names from the package index are taken:
no pip options (``--index-url``, ``-e``, ``-r``), no direct references (``name @ URL``) and no
arbitrary equality (``===``, any text, which pip may read as a local path), which would let
a bot choose what the referee's pip downloads or builds, or read the host's files into its
environment. The index and its mirrors are the operator's pip settings, not the bot's.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from arena.common.printable import printable
from arena.errors import ManifestError

__all__ = ["MAX_REQUIREMENTS", "manifest_python", "manifest_requirements", "normalized"]

#: The most requirements one bot may list (a file of a few lines; this bounds a mistake).
MAX_REQUIREMENTS = 200
_REQUIREMENTS_FILE_BYTES = 64 * 1024
_PYTHON_VERSION = re.compile(r"3\.\d{1,2}")  # fullmatch
_COMMENT = re.compile(r"(^|\s)#.*$")
#: The names pip takes for an archive to install rather than a requirement (its
#: ``is_archive_file``).
_ARCHIVE_SUFFIXES = (".whl", ".zip", ".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tbz", ".tar.xz",
                     ".txz", ".tlz", ".tar.lz", ".tar.lzma")


def normalized(text: str, where: str) -> str:
    """``text`` as one canonical requirement string (the name in canonical form, extras
    sorted), so equal requirements key one environment; a bad one is refused with ``where``."""
    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        reason = str(exc).splitlines()[0]
        raise ManifestError(f"{where}: {printable(text)!r} is not a pip requirement "
                            f"({printable(reason)})") from None
    if req.url:
        raise ManifestError(f"{where}: {printable(text)!r} is a direct reference (name @ "
                            "URL); a bot may require packages of the index only, by name "
                            "and version")
    if any(s.operator == "===" for s in req.specifier):
        # '===' takes any text, and pip reads a requirement holding '/' (or ending in .whl,
        # .tar.gz, ...) as a path of its working directory: a project there is built, its
        # setup.py run outside the sandbox, however wheels-only the install
        raise ManifestError(f"{where}: {printable(text)!r} compares with '===' (any text, "
                            "which pip may read as a file or directory to build); use ==, >= "
                            "and the like")
    if any(s.version.lower().endswith(_ARCHIVE_SUFFIXES) for s in req.specifier):
        # a local label ('1.0+x.tar.gz') is a version to packaging, a file to pip
        raise ManifestError(f"{where}: {printable(text)!r} ends like an archive's name, which "
                            "pip reads as a file of its working directory to install; a bot "
                            "may require packages of the index only")
    extras = f"[{','.join(sorted(canonicalize_name(e) for e in req.extras))}]" \
        if req.extras else ""
    specifier = ",".join(sorted(str(s) for s in req.specifier))
    marker = f"; {req.marker}" if req.marker else ""
    return f"{canonicalize_name(req.name)}{extras}{specifier}{marker}"


def manifest_requirements(value: Any, directory: Path, where: Path) -> tuple[str, ...]:
    """The normalized, sorted requirements a manifest's ``requirements`` value gives (see the
    module docstring); ``directory`` is the bot's, ``where`` its ``bot.yaml``."""
    if value is None:
        return ()
    if isinstance(value, str):
        lines = _requirements_file(value, directory, where)
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        lines = [(f"{where}: requirements[{i}]", v.strip()) for i, v in enumerate(value)]
        for place, text in lines:
            if text.startswith("-"):
                raise ManifestError(f"{place}: pip options ({printable(text)!r}) are not "
                                    "allowed in a bot's requirements: the host's pip settings "
                                    "choose the index")
    elif isinstance(value, list):  # YAML reads numpy==1 as a string, but 2 or [a] not
        index, item = next((i, v) for i, v in enumerate(value) if not isinstance(v, str))
        raise ManifestError(f"{where}: requirements[{index}] must be a pip requirement (a "
                            f"string such as \"numpy>=1.24\"), got {printable(repr(item))}")
    else:
        raise ManifestError(f"{where}: 'requirements' must be a list of pip requirements "
                            "(e.g. [\"numpy>=1.24\"]) or the path of a requirements file of "
                            f"the bot's directory, got {type(value).__name__}")
    if len(lines) > MAX_REQUIREMENTS:
        raise ManifestError(f"{where}: {len(lines)} requirements; a bot may list at most "
                            f"{MAX_REQUIREMENTS}")
    return tuple(sorted({normalized(text, place) for place, text in lines if text}))


def _list_hint(value: str) -> str:
    """How to list ``value`` when it reads as a package rather than a file's name: a bot.yaml
    that says ``requirements: numpy`` meant a list of one."""
    if "/" in value or value.endswith(".txt"):
        return ""
    try:
        Requirement(value)
    except InvalidRequirement:
        return ""
    return f"; a list of packages goes in brackets: requirements: [{printable(value)!r}]"


def _requirements_file(value: str, directory: Path, where: Path) -> list[tuple[str, str]]:
    """The (place, requirement) lines of a requirements file inside the bot's directory."""
    root = directory.resolve()
    file = (root / value).resolve()
    if not file.is_relative_to(root):
        raise ManifestError(f"{where}: 'requirements' names {printable(value)}, which is "
                            "outside the bot's directory: a requirements file must be one of "
                            "the bot's own files")
    if not file.is_file():
        raise ManifestError(f"{where}: 'requirements' names {printable(value)}, which is not "
                            f"a file of the bot's directory{_list_hint(value)}")
    parts = Path(os.path.normpath(value)).parts
    if ".." in parts or os.path.isabs(value):  # inside once resolved: walked as resolved
        parts = file.relative_to(root).parts
    file = root.joinpath(*parts)  # as named: a link on the way is refused, not followed
    try:
        raw = _read_regular(root, parts, _REQUIREMENTS_FILE_BYTES + 1)
        if len(raw) > _REQUIREMENTS_FILE_BYTES:
            raise ManifestError(f"{printable(str(file))} is larger than "
                                f"{_REQUIREMENTS_FILE_BYTES >> 10} KiB")
        text = raw.decode("utf-8-sig")  # (a byte order mark, as pip reads it)
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"cannot read {printable(str(file))}: "
                            f"{getattr(exc, 'strerror', None) or exc}") from None
    lines = []
    for number, line in enumerate(text.replace("\\\n", "").splitlines(), start=1):
        stripped = _COMMENT.sub("", line).strip()
        place = f"{printable(str(file))}:{number}"
        if stripped.startswith("-"):
            raise ManifestError(f"{place}: pip options ({printable(stripped)!r}) are not "
                                "allowed in a bot's requirements: the host's pip settings "
                                "choose the index")
        if stripped:
            lines.append((place, stripped))
    return lines


def _read_regular(root: Path, parts: tuple[str, ...], limit: int) -> bytes:
    """At most ``limit`` bytes of the regular file ``parts`` of ``root``, else OSError. The
    path was looked at resolved, but whoever may write the bot's directory may have made a
    folder on it a link since (to a host directory), or the file a FIFO (whose opening waits
    for a writer) or a link to /dev/zero (endless): so it is walked one name at a time from
    ``root``, a link anywhere refused as a link, never followed."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in parts[:-1]:
            folder = _open_no_follow(fd, name, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            os.close(fd)
            fd = folder
        file = _open_no_follow(fd, parts[-1], os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    finally:
        os.close(fd)
    with open(file, "rb") as handle:
        if not stat.S_ISREG(os.fstat(file).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return handle.read(limit)


def _open_no_follow(dir_fd: int, name: str, flags: int) -> int:
    """``name`` of ``dir_fd`` opened, or OSError: ELOOP when it is a symbolic link (which
    Linux reports as ENOTDIR where a directory is asked for)."""
    try:
        return os.open(name, flags | os.O_NOFOLLOW, dir_fd=dir_fd)
    except NotADirectoryError:
        if stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP)) from None
        raise


def manifest_python(value: Any, where: Path) -> str | None:
    """The Python version (``"3.11"``) a manifest's ``python`` asks for, or None."""
    if value is None:
        return None
    if isinstance(value, float | int) and not isinstance(value, bool):
        raise ManifestError(f"{where}: 'python' must be quoted, e.g. python: \"3.11\" (YAML "
                            f"reads an unquoted {value} as a number)")
    if not isinstance(value, str) or not _PYTHON_VERSION.fullmatch(value.strip()):
        raise ManifestError(f"{where}: 'python' must be a version such as \"3.11\", got "
                            f"{printable(repr(value))}")
    return value.strip()
