"""Starts only at a normal process's niceness, 0 (a local worker's bot; a Ray table's, whose
referee leaves the niceness of 15 Ray starts its workers at); elsewhere it fails to start,
saying its niceness. Then always the first legal option."""

import os

from arena.sdk import Bot, Request

_NICENESS = os.getpriority(os.PRIO_PROCESS, 0)
if _NICENESS != 0:
    raise RuntimeError(f"runs at niceness {_NICENESS}, not a normal process's 0")


class NormalNiceBot(Bot):
    name = "normal_nice"

    def act(self, request: Request) -> int:
        return 0
