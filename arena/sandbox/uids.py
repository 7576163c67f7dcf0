"""The uids bots of a root referee run under: one fresh uid (and group) per launch."""

from __future__ import annotations

import pwd
import secrets

from arena.sandbox import reaper

__all__ = ["UID_BASE", "UID_SPAN", "fresh_uid", "is_bot_uid"]

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
