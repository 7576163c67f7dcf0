"""Who bots run as: the account the probe reports (:func:`bot_account`, its ``user`` layer)
and, under a root referee, a fresh uid (and group) of their own for each launch."""

from __future__ import annotations

import contextlib
import logging
import os
import pwd
import secrets
import shutil
import subprocess

from arena.sandbox import reaper
from arena.sandbox.report import NOT_NEEDED

__all__ = ["BOT_USER", "UID_BASE", "UID_SPAN", "bot_account", "fresh_uid", "is_bot_uid"]

log = logging.getLogger("arena.sandbox")

#: The account a root referee's bots run as, created when missing (``ARENA_BOT_USER`` picks
#: another).
BOT_USER = "arena-bot"

#: Bots started by a root referee run under uids of their own, one per launch, drawn from
#: this range (no account needed), each in a group of the same number. RLIMIT_NPROC counts the
#: processes of a uid: with a uid shared by all bots, one bot forking up to its limit left
#: another without room for a thread, and lost it its game. Files and signals follow the uid
#: too, so a bot cannot touch another bot's processes or scratch even without bubblewrap.
UID_BASE = 1_600_000_000
UID_SPAN = 400_000_000


def fresh_uid() -> int:
    """A uid of the bot range that no account and no running process has."""
    while True:
        uid = UID_BASE + secrets.randbelow(UID_SPAN)
        try:
            pwd.getpwuid(uid)
        except KeyError:
            if reaper.processes_of_uid(uid) == 0:
                return uid



def is_bot_uid(uid: int) -> bool:
    """Whether ``uid`` is one of the bots' own (:func:`fresh_uid`)."""
    return UID_BASE <= uid < UID_BASE + UID_SPAN


def bot_account() -> tuple[str, int | None, int | None, bool | str]:
    """(name, uid, gid, the ``user`` layer's status) of the account bots run as: the
    referee's own when it is not root; else ``ARENA_BOT_USER``, or ``arena-bot`` (created
    when missing), or ``nobody``."""
    if os.geteuid() != 0:
        name = pwd.getpwuid(os.geteuid()).pw_name if _has_pwent(os.geteuid()) else str(os.geteuid())
        return name, None, None, NOT_NEEDED + f"the referee is not root (bots run as {name})"
    wanted = os.environ.get("ARENA_BOT_USER") or BOT_USER
    try:
        entry = pwd.getpwnam(wanted)
    except KeyError:
        entry = None
        if wanted == BOT_USER and shutil.which("useradd"):
            result = subprocess.run(
                ["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                 "--shell", "/usr/sbin/nologin", BOT_USER],
                capture_output=True, text=True, check=False)
            if result.returncode == 0:
                log.info("created system user %s for bots", BOT_USER)
            with contextlib.suppress(KeyError):
                entry = pwd.getpwnam(BOT_USER)
        if entry is None:
            with contextlib.suppress(KeyError):
                entry = pwd.getpwnam("nobody")
    if entry is None or entry.pw_uid == 0:
        return "root", None, None, "no unprivileged account (arena-bot could not be created, " \
                                   "no nobody): bots run as root"
    return entry.pw_name, entry.pw_uid, entry.pw_gid, True


def _has_pwent(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True
