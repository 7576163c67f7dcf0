"""The check that a bot's hooks can be called as the kit calls them, made once for both
ways a kit bot runs: sandboxed (the runner, at start-up) and in-process
(:class:`arena.sdk.local.BotAgent`, when made). Either way a hook that cannot take the
kit's argument is told in one line naming its line and what to write, not a ``TypeError``
naming no line of the bot at its first decision."""

from __future__ import annotations

import inspect
from pathlib import Path

from arena.errors import BotLoadError
from arena.sdk.bot import Bot

__all__ = ["check_hooks"]

#: The hooks the kit calls, each with the one argument it passes.
_HOOKS = (("act", "request"), ("on_game_start", "game"), ("on_event", "event"),
          ("on_game_end", "result"), ("configure", "options"))


def check_hooks(bot: Bot) -> None:
    """Refuse a hook the kit could not call with its one argument (``def act(self)``, the
    request left out): the call would raise a ``TypeError`` naming no line of the bot, at
    its first decision. Told with where the hook is and what to write; so is a bot with no
    ``act`` at all (named otherwise, ``choose``)."""
    if type(bot).act is Bot.act:
        own = [name for name, value in vars(type(bot)).items()
               if inspect.isfunction(value) and not name.startswith("_")]
        defines = f" ({type(bot).__name__} defines {', '.join(own)})" if own else ""
        raise BotLoadError(f"{type(bot).__name__} has no act(self, request), which the kit "
                           f"calls at every decision{defines}: write def act(self, request)")
    for hook, argument in _HOOKS:
        method = getattr(bot, hook, None)
        if getattr(type(bot), hook, None) is getattr(Bot, hook) or not callable(method):
            continue
        try:
            inspect.signature(method).bind(None)
        except ValueError:  # no signature to read (a builtin): the call will tell
            continue
        except TypeError:
            function = inspect.unwrap(getattr(type(bot), hook))
            code = getattr(function, "__code__", None)
            where = (f" ({Path(code.co_filename).name} line {code.co_firstlineno})"
                     if code is not None else "")
            params = ", ".join(inspect.signature(function).parameters)
            raise BotLoadError(f"{type(bot).__name__}.{hook}({params}){where} is called with "
                               f"one argument, the {argument}: write def {hook}(self, "
                               f"{argument})") from None
