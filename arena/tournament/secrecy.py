"""What keeps a contest's secrets: the results database readable by its owner alone, and no
contest played where bots could read it.

A tournament whose spec gives no seed draws a secret one and stores it in the results database;
whoever reads it can compute every hidden card. Without bubblewrap or Landlock (the bare
sandbox mode) a bot can read any file its uid may read, so the database and its ``-wal`` and
``-shm`` files are made private to the user running the arena (0600, the directory the arena
creates 0700), and ``arena run`` refuses such a contest in the bare mode unless told
``--insecure`` (docs/SANDBOX.md, "What the bare mode does not protect"): the driver, and
each Ray node as a table of it comes (docs/CLUSTER.md).
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path
from typing import Any

from arena.sandbox import SandboxReport

__all__ = ["PRIVATE_DIR_MODE", "PRIVATE_FILE_MODE", "bare_contest", "bare_node", "make_private",
           "private_directory", "secret_seed_note", "seed_is_secret"]

log = logging.getLogger("arena.tournament")

PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
#: The files SQLite keeps for one database in WAL mode.
_SUFFIXES = ("", "-wal", "-shm", "-journal")


def private_directory(path: Path) -> None:
    """Create ``path`` (and missing parents) readable by this user alone."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    os.chmod(path, PRIVATE_DIR_MODE)  # mkdir's mode passes through the umask


def make_private(db: Path) -> None:
    """Create the database file ``db`` with mode 0600 if it does not exist (SQLite gives its
    ``-wal`` and ``-shm`` files the database's mode), and take group and other access away
    from an existing one and its companions, with a warning; one that belongs to another
    user is only warned about."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(db, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE))
    for suffix in _SUFFIXES:
        path = Path(f"{db}{suffix}")
        try:
            st = path.stat()
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or not st.st_mode & 0o077:
            continue
        mode = stat.S_IMODE(st.st_mode)
        if st.st_uid != os.geteuid():
            log.warning("%s is readable by others (mode %o) and belongs to another user: "
                        "its secret seeds are not private", path, mode)
            continue
        os.chmod(path, mode & 0o700)
        log.warning("%s was readable by others (mode %o): now %o, as the arena makes it",
                    path, mode, mode & 0o700)


def bare_contest(seed: int | None, report: SandboxReport) -> str | None:
    """Why a tournament with ``seed`` (None: a secret one) must not run under ``report``'s
    layers, or None: a contest needs bubblewrap or Landlock to keep its seed from the bots."""
    if seed is not None or report.active("bwrap") or report.active("landlock"):
        return None
    return ("this tournament is a contest (its spec gives no public seed), and bots here run "
            "without bubblewrap or Landlock, where they could read its secret seed and every "
            "hand; pass --insecure to run it anyway")


def bare_node(report: SandboxReport, host: str) -> str | None:
    """Why the Ray node ``host``, whose sandbox is ``report``, must not play a contest's
    table, or None: as :func:`bare_contest` on the driver, naming the node and what it lacks
    (the driver's own probe says nothing of a node's)."""
    if bare_contest(None, report) is None:
        return None
    lacks = "; ".join(f"{name}: {report.layers.get(name, 'absent')}"
                      for name in ("bwrap", "landlock"))
    return (f"this tournament is a contest (its spec gives no public seed), and bots on the "
            f"Ray node {host} would run without bubblewrap or Landlock ({lacks}), where "
            "they could read its secret seed and every hand; install bubblewrap on it, or "
            "pass --insecure to run it anyway")


def seed_is_secret(spec: dict[str, Any], state: str) -> bool:
    """Whether a tournament's seed is kept from view: one the arena drew (the spec gives
    none) until the tournament is finished, since whoever knows it can compute every deal
    still to be played; afterwards it replays them. A league's always: one whose budget is
    spent is finished, yet goes on from the same seed when run again with a larger budget,
    while its bots' authors may submit new versions."""
    if spec.get("seed", 0) is not None:
        return False
    return state != "finished" or spec.get("format") == "league"


def secret_seed_note(spec: dict[str, Any]) -> str:
    """How long a drawn seed stays secret, as status and the site say it."""
    return ("secret while the league may go on" if spec.get("format") == "league"
            else "secret until the tournament finishes")
