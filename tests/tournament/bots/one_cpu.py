"""Starts only where it may run on exactly one CPU (a pinned worker's bot); elsewhere it fails
to start, saying how many it sees. Then always the first legal option."""

import os

from arena.sdk import Bot, Request

_CPUS = sorted(os.sched_getaffinity(0))
if len(_CPUS) != 1:
    raise RuntimeError(f"runs on CPUs {_CPUS}, not on one of its own")


class OneCpuBot(Bot):
    name = "one_cpu"

    def act(self, request: Request) -> int:
        return 0
