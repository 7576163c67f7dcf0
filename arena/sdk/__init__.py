"""The Python bot kit: subclass :class:`Bot`, implement ``act(request) -> int``, then run it with
``python -m arena.sdk.runner path/to/bot.py`` (the arena does this for you inside its sandbox).

Example::

    from arena.sdk import Bot, Request

    class FirstOption(Bot):
        name = "first"

        def act(self, request: Request) -> int:
            return 0

The kit needs only the standard library and the ``arena`` package (orjson is not needed), so
it runs under the sandbox's interpreter.
"""

from typing import TYPE_CHECKING, Any

from arena.sdk.bot import Bot, GameEnd, GameStart, Request
from arena.sdk.kitnames import misplaced

__all__ = ["Bot", "GameEnd", "GameStart", "Request"]

#: Kit names an author may import from the package that its modules hold (the search kit is
#: imported only by the bots that use it: it loads the engine).
_ELSEWHERE = {
    **{name: f"it is in arena.sdk.search: from arena.sdk.search import {name}"
       for name in ("SearchBot", "SearchView", "Tracker", "default_reply", "play_out",
                    "playout_choice", "hand_score")},
    "sample_state": "it is a method of SearchView (arena.sdk.search): in a SearchBot, "
                    "view = self.view(request), then view.sample_state(seed)",
    "BotAgent": "it is in arena.sdk.local: from arena.sdk.local import BotAgent",
}

if not TYPE_CHECKING:  # a module __getattr__ would let the type checker pass any name
    def __getattr__(name: str) -> Any:
        raise misplaced(__name__, name, _ELSEWHERE)
