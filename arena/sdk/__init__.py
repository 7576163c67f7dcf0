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

from arena.sdk.bot import Bot, GameEnd, GameStart, Request

__all__ = ["Bot", "GameEnd", "GameStart", "Request"]
