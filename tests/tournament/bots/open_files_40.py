"""Starts only where its limit of open files is 40 (a spec's ``limits: {open_files: 40}``
reached the sandbox that started it); elsewhere it fails to start, saying its limit. Then
always the first legal option."""

import resource

from arena.sdk import Bot, Request

_SOFT, _HARD = resource.getrlimit(resource.RLIMIT_NOFILE)
if (_SOFT, _HARD) != (40, 40):
    raise RuntimeError(f"runs with at most {_SOFT} open files (hard {_HARD}), not 40")


class OpenFiles40Bot(Bot):
    name = "open_files_40"

    def act(self, request: Request) -> int:
        return 0
