"""Run a bot module over protocol v1: ``python -m arena.sdk.runner path/to/bot.py [--class C]``.

The runner loads the module, finds the :class:`arena.sdk.Bot` subclass defined in it, answers
``hello`` with ``ready`` and every ``act`` with ``action``, forwards the other messages to the
bot's hooks and exits on ``bye`` or when stdin closes.

Protocol lines go to a private copy of the original stdout; the process's own stdout (fd 1 and
``sys.stdout``) is pointed at stderr, so a stray ``print`` in bot code lands in the bot's log
instead of corrupting the protocol. An exception in bot code is logged with its traceback and
ends the process with exit code 1: the referee records a ``crash`` and the author sees why.

The loop itself is :func:`arena.sdk.serving.serve`; the lines are read and written by
:mod:`arena.protocol.messages`, the codec the referee uses too.

Standard library only (plus ``arena``), so it runs under the sandbox's interpreter.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import os
import select
import signal
import sys
import traceback
from pathlib import Path
from typing import Any, BinaryIO

from arena.common.suggest import did_you_mean
from arena.errors import BotLoadError
from arena.sdk import stackdump
from arena.sdk.bot import Bot
from arena.sdk.hooks import check_hooks
from arena.sdk.serving import serve

__all__ = ["BotLoadError", "find_bot_class", "load_bot", "load_bot_class", "main", "serve"]


def find_bot_class(module: Any, class_name: str | None = None) -> type[Bot]:
    """The Bot subclass defined in ``module`` (by name when there are several)."""
    candidates = [obj for _, obj in inspect.getmembers(module, inspect.isclass)
                  if issubclass(obj, Bot) and obj is not Bot
                  and obj.__module__ == module.__name__]
    # The file's name, not its path: in the sandbox that is /bot/..., a path the author's
    # machine does not have.
    file = Path(module.__file__ or "bot.py").name
    if class_name is not None:
        for obj in candidates:
            if obj.__name__ == class_name:
                return obj
        found = ", ".join(sorted(c.__name__ for c in candidates)) or "none"
        meant = did_you_mean(class_name, [c.__name__ for c in candidates])
        raise BotLoadError(f"no Bot subclass named {class_name!r} in {file}{meant} (found: "
                           f"{found})")
    if not candidates:
        raise BotLoadError(f"no subclass of arena.sdk.Bot defined in {file}"
                           + (_near_miss(module) or " (a program that speaks the protocol "
                              "itself is a directory with a bot.yaml: command: [python3, "
                              "bot.py])"))
    if len(candidates) > 1:
        # Prefer the leaves: a module may define a base strategy and refine it.
        leaves = [c for c in candidates if not any(o is not c and issubclass(o, c)
                                                   for o in candidates)]
        if len(leaves) == 1:
            return leaves[0]
        names = sorted(c.__name__ for c in candidates)
        # the advice first, the names last: a failure quotes the first 200 characters of
        # this line. A single-file bot is copied alone, so "move one to a helper module"
        # would not work there: the class must be named.
        raise BotLoadError(f"several Bot subclasses in {file}: keep one, or name one in a bot "
                           f"directory's bot.yaml: command: [python3, -m, arena.sdk.runner, "
                           f"{file}, --class, {names[0]}]; found {', '.join(names)}")
    return candidates[0]


def _near_miss(module: Any) -> str:
    """``: class MyBot has an act() but ...`` when the module defines a class with an ``act``
    (the ``(Bot)`` left out, the usual slip), or a function ``act`` (no class at all), else
    ``""``."""
    for name, obj in inspect.getmembers(module, inspect.isclass):
        if obj.__module__ == module.__name__ and callable(getattr(obj, "act", None)):
            return f": class {name} has an act() but does not subclass it (write class {name}(Bot))"
    if inspect.isfunction(getattr(module, "act", None)):
        return (": act() is a function of the module; the kit calls the act(self, request) "
                "of a class MyBot(Bot)")
    return ""


def load_bot(path: str | Path, class_name: str | None = None) -> Bot:
    """Import the bot module at ``path`` and instantiate its Bot subclass (see
    :func:`load_bot_class`)."""
    return load_bot_class(path, class_name)()


def load_bot_class(path: str | Path, class_name: str | None = None) -> type[Bot]:
    """Import the bot module at ``path`` into this process and find its Bot subclass.

    Each load imports the file afresh, apart from every other bot loaded here: under a module
    name of its own, its helper modules its own (:mod:`arena.sdk.botfiles`), and the
    caller's ``sys.path`` unchanged."""
    # imported here: the sandboxed runner loads its bot alone and needs no finder of bots
    from arena.sdk import botfiles

    file = _bot_file(path)
    return find_bot_class(botfiles.import_bot(file), class_name)


def _bot_file(path: str | Path) -> Path:
    file = Path(path).resolve()
    if file.is_dir():
        file = file / "bot.py"
    if not file.is_file():
        raise BotLoadError(f"bot module {path} not found")
    return file


def _load_alone(path: str | Path, class_name: str | None = None) -> type[Bot]:
    """The runner's own load, the bot alone in its process: the bot's directory goes to the
    *end* of sys.path (and leaves the front, where ``python -m`` put the working directory),
    so the bot can import its own helpers, but a bot file named like a standard module
    (``random.py``) never shadows it."""
    file = _bot_file(path)
    home = str(file.parent)
    sys.path[:] = [p for p in sys.path if p not in ("", home)]
    sys.path.append(home)
    spec = importlib.util.spec_from_file_location(f"palaestra_bot_{file.stem}", file)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"cannot load {file} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return find_bot_class(module, class_name)


def _instantiate(bot_class: type[Bot]) -> Bot:
    """The bot, made as the runner makes it: without arguments. An ``__init__`` that wants
    some is told so in one line, not with a traceback through the runner."""
    try:
        return bot_class()
    except TypeError as exc:
        if exc.__traceback__ is not None and exc.__traceback__.tb_next is None:
            # raised by the call itself: the signature, not the bot's own code
            raise BotLoadError(f"{bot_class.__name__}() needs arguments ({exc}): the runner "
                               "passes none; settings reach configure(options)") from None
        raise


class _TerminalLines:
    """Protocol lines typed at a terminal, read so that Ctrl-C stops the runner whenever it
    comes. Python runs a signal's handler between its own steps and a read does not end for
    one it already took: a Ctrl-C that came a moment before the read (or that another thread
    took) waited inside it for the next line. The signal's byte on a wakeup pipe ends the
    wait instead, and the handler runs."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending = b""
        self._woken, wake = os.pipe()
        for end in (self._woken, wake):
            os.set_blocking(end, False)
        signal.set_wakeup_fd(wake, warn_on_full_buffer=False)

    def readline(self) -> bytes:
        """The next line with its newline; at the end of input what is left, then ``b""``."""
        while b"\n" not in self._pending:
            ready, _, _ = select.select([self._fd, self._woken], [], [])
            if self._woken in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self._woken, 4096)
                continue
            chunk = os.read(self._fd, 65536)
            if not chunk:
                line, self._pending = self._pending, b""
                return line
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line + b"\n"


def main(argv: list[str] | None = None) -> int:
    """Entry point: load the bot, move the protocol to a private fd, serve."""
    args = list(sys.argv[1:] if argv is None else argv)
    class_name = None
    if "--class" in args:
        at = args.index("--class")
        if at + 1 >= len(args):
            print("usage: python -m arena.sdk.runner BOT.py [--class NAME]", file=sys.stderr)
            return 2
        class_name = args[at + 1]
        del args[at:at + 2]
    if len(args) != 1:
        print("usage: python -m arena.sdk.runner BOT.py [--class NAME]", file=sys.stderr)
        return 2
    # Keep the protocol channel private before any bot code runs (it might print on import).
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    infile = sys.stdin.buffer
    sys.stdin = open(os.devnull)  # noqa: SIM115 - bot code must not read protocol lines
    # At a timeout the referee asks for the stack (SIGUSR1) to name the line act() was stuck
    # on: a C-level handler, so it answers even inside a long C call, and costs nothing until
    # the signal comes.
    stackdump.register()
    try:
        return _load_and_serve(args[0], class_name, infile, out_fd)
    except KeyboardInterrupt:
        if not infile.isatty():  # not a person at the keyboard: the bot's own doing, shown
            raise
        print("[runner] stopped (Ctrl-C)", file=sys.stderr)
        return 130


def _load_and_serve(path: str, class_name: str | None, infile: BinaryIO, out_fd: int) -> int:
    """Load the bot and serve it; the exit code. A Ctrl-C is the caller's to tell."""
    try:
        bot_class = _load_alone(path, class_name)
        bot = _instantiate(bot_class)
        check_hooks(bot)
    except BotLoadError as exc:
        print(f"[runner] {exc}", file=sys.stderr)
        return 2
    except Exception:
        print(f"[runner] loading {path} failed:", file=sys.stderr)
        traceback.print_exc()
        return 2
    try:
        lines = _TerminalLines(infile.fileno()) if infile.isatty() else infile
        return serve(bot, lines, out_fd, new_bot=bot_class, stack_dump=True)
    except BrokenPipeError:
        return 0
    except Exception:
        print("[runner] the bot raised:", file=sys.stderr)
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
