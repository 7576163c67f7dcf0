"""Run a bot module over protocol v1: ``python -m arena.sdk.runner path/to/bot.py [--class C]``.

The runner loads the module, finds the :class:`arena.sdk.Bot` subclass defined in it, answers
``hello`` with ``ready`` and every ``act`` with ``action``, forwards the other messages to the
bot's hooks and exits on ``bye`` or when stdin closes.

Protocol lines go to a private copy of the original stdout; the process's own stdout (fd 1 and
``sys.stdout``) is pointed at stderr, so a stray ``print`` in bot code lands in the bot's log
instead of corrupting the protocol. An exception in bot code is logged with its traceback and
ends the process with exit code 1: the referee records a ``crash`` and the author sees why.

Decoding is paid only for what a bot uses: event lines are not decoded unless the bot
overrides ``on_event``, and an ``act`` line is decoded when the bot first reads the request's
``observation``, ``legal``, ``time_ms`` or ``context`` (once; a bot that reads them gets every
later request decoded at once, as before).

Standard library only (plus :mod:`arena.sdk`), so it runs under the sandbox's interpreter.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import re
import sys
import traceback
from collections.abc import Callable
from json.scanner import make_scanner
from pathlib import Path
from typing import Any, BinaryIO

from arena.sdk.bot import Bot, GameEnd, GameStart, Request, as_index

__all__ = ["BotLoadError", "find_bot_class", "load_bot", "main", "serve"]

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_scan_once = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # typeshed: a class


def _loads(line: bytes) -> Any:
    """json.loads without its per-call set-up: the referee's lines are compact UTF-8 objects,
    one per line, so scanning the object at offset 0 is enough (anything odd falls back)."""
    try:
        return _scan_once(line.decode(), 0)[0]
    except (StopIteration, ValueError):
        return json.loads(line)


#: The head of an ``act`` line as the referee writes it (docs/PROTOCOL.md: ``type``, ``id``
#: and ``decision`` first); a line that starts otherwise is decoded whole at once.
_ACT_HEAD = re.compile(rb'\{"type":"act","id":(0|[1-9][0-9]{0,17}),"decision":"([a-z_]{1,32})",')
#: Request's own slots (member descriptors): the lazy request below stores into them directly.
_SLOT = {name: Request.__dict__[name] for name in ("observation", "legal", "time_ms", "context")}
_STASH = _SLOT["context"]  # holds the raw line until it is decoded


def _make_decode() -> Callable[[Request], None]:
    set_observation = _SLOT["observation"].__set__
    set_legal = _SLOT["legal"].__set__
    set_time = _SLOT["time_ms"].__set__
    get_line, set_context = _STASH.__get__, _STASH.__set__
    set_class = object.__setattr__

    def decode(request: Request) -> None:
        """Decode a lazy request's line into its fields; it is then a plain Request."""
        message = _loads(get_line(request))
        set_observation(request, message["observation"])
        set_legal(request, message["legal"])
        set_time(request, message.get("time_ms"))
        set_context(request, message.get("context") or {})
        set_class(request, "__class__", Request)

    return decode


_decode = _make_decode()


def _lazy_field(name: str) -> Any:
    slot = _SLOT[name]

    def get(self: Request) -> Any:
        _decode(self)
        return slot.__get__(self)

    def set(self: Request, value: Any) -> None:  # decoded first, so it is not overwritten
        _decode(self)
        slot.__set__(self, value)

    return property(get, set)


class _LineRequest(Request):
    """A :class:`Request` read from an ``act`` line, decoded on first use of ``observation``,
    ``legal``, ``time_ms`` or ``context``; the decode turns it into a plain ``Request`` (same
    slots, so ``__class__`` can change), so every later read is a plain slot read. A bot
    that decides without those fields (from ``kind`` alone, or not at all) pays no JSON
    decoding; any other pays the one decode it paid before. A malformed line (never from the
    referee) raises in the bot's ``act`` at its first read."""

    __slots__ = ()

    observation = _lazy_field("observation")
    legal = _lazy_field("legal")
    time_ms = _lazy_field("time_ms")
    context = _lazy_field("context")


class BotLoadError(Exception):
    """The module could not be loaded or holds no single Bot subclass."""


def find_bot_class(module: Any, class_name: str | None = None) -> type[Bot]:
    """The Bot subclass defined in ``module`` (by name when there are several)."""
    candidates = [obj for _, obj in inspect.getmembers(module, inspect.isclass)
                  if issubclass(obj, Bot) and obj is not Bot
                  and obj.__module__ == module.__name__]
    if class_name is not None:
        for obj in candidates:
            if obj.__name__ == class_name:
                return obj
        raise BotLoadError(f"no Bot subclass named {class_name!r} in {module.__file__}")
    if not candidates:
        raise BotLoadError(f"no subclass of arena.sdk.Bot defined in {module.__file__} (a "
                           "program that speaks the protocol itself is a directory with a "
                           "bot.yaml: command: [python3, bot.py])")
    if len(candidates) > 1:
        # Prefer the leaves: a module may define a base strategy and refine it.
        leaves = [c for c in candidates if not any(o is not c and issubclass(o, c)
                                                   for o in candidates)]
        if len(leaves) == 1:
            return leaves[0]
        names = sorted(c.__name__ for c in candidates)
        file = Path(module.__file__ or "bot.py").name
        raise BotLoadError(f"several Bot subclasses in {module.__file__} ({', '.join(names)}); "
                           "pick one with --class (in a bot directory's bot.yaml: command: "
                           f"[python3, -m, arena.sdk.runner, {file}, --class, {names[0]}]), "
                           "or keep one and move the others to a helper module")
    return candidates[0]


def load_bot(path: str | Path, class_name: str | None = None) -> Bot:
    """Import the bot module at ``path`` and instantiate its Bot subclass.

    The bot's directory goes to the *end* of sys.path (and leaves the front, where ``python
    -m`` put the working directory): the bot can import its own helpers, but a bot file
    named like a standard module (``random.py``) never shadows it."""
    file = Path(path).resolve()
    if file.is_dir():
        file = file / "bot.py"
    if not file.is_file():
        raise BotLoadError(f"bot module {path} not found")
    home = str(file.parent)
    sys.path[:] = [p for p in sys.path if p not in ("", home)]
    sys.path.append(home)
    spec = importlib.util.spec_from_file_location(f"palaestra_bot_{file.stem}", file)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"cannot load {file} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return find_bot_class(module, class_name)()


def _writer(fd: int) -> Any:
    def write(data: bytes) -> None:
        written = os.write(fd, data)
        if written < len(data):  # a pipe takes small writes whole; this is the rare rest
            view = memoryview(data)[written:]
            while view:
                view = view[os.write(fd, view):]
    return write


def _odd_answer(bot: Bot, id_: int, choice: object) -> bytes:
    """The answer line for an ``act()`` result that is not a plain int (:func:`as_index`):
    anything that is no index is logged and sent as a null choice, which the referee counts
    as a protocol error (a strike)."""
    index = as_index(choice)
    if index is not None:
        return b'{"type":"action","id":%d,"choice":%d}\n' % (id_, index)
    bot.log(f"[runner] act() returned {choice!r} ({type(choice).__name__}), not an int index "
            "into request.legal: sent as no choice, which the referee counts as a strike")
    return b'{"type":"action","id":%d,"choice":null}\n' % id_


def serve(bot: Bot, infile: BinaryIO, out_fd: int) -> int:
    """Speak protocol v1 for ``bot`` until ``bye`` or end of input; returns the exit code."""
    write = _writer(out_fd)
    os_write = os.write
    seat = -1
    act = bot.act
    # Most events go unread by simple bots: skip decoding them unless the bot listens.
    skip_events = type(bot).on_event is Bot.on_event
    # An act is decoded only if the bot reads it: a lazy request until the bot has read
    # one, then decoded at once (the bot reads them; laziness would only cost it).
    lazy = True
    act_head = _ACT_HEAD.match
    new_lazy, stash = _LineRequest.__new__, _STASH.__set__
    for line in iter(infile.readline, b""):
        if skip_events and line.startswith(b'{"type":"event",'):
            continue
        if lazy and (head := act_head(line)) is not None:
            id_ = int(head[1])
            pending: Request = new_lazy(_LineRequest)
            pending.id, pending.kind, pending.seat = id_, head[2].decode(), seat
            stash(pending, line)
            choice = act(pending)
            lazy = type(pending) is _LineRequest
            answer = (b'{"type":"action","id":%d,"choice":%d}\n' % (id_, choice)
                      if type(choice) is int else _odd_answer(bot, id_, choice))
            written = os_write(out_fd, answer)
            if written < len(answer):
                write(answer[written:])
            continue
        try:
            message = _loads(line)
        except ValueError:
            bot.log(f"[runner] ignoring a line that is not JSON: {line[:80]!r}")
            continue
        if type(message) is not dict:
            continue
        kind = message.get("type")
        if kind == "act":
            id_ = message["id"]
            request = Request(id_, message["decision"], message["observation"],
                              message["legal"], message.get("time_ms"),
                              message.get("context") or {}, seat)
            choice = act(request)
            write(b'{"type":"action","id":%d,"choice":%d}\n' % (id_, choice)
                  if type(choice) is int else _odd_answer(bot, id_, choice))
        elif kind == "event":
            bot.on_event(message.get("event") or {})
        elif kind == "hello":
            options = message.get("options")
            bot.configure(dict(options) if isinstance(options, dict) else {})
            metadata = bot.metadata()
            write((_dumps({"type": "ready", "protocol": 1, **metadata}) + "\n").encode())
        elif kind == "game_start":
            seat = int(message.get("seat", -1))
            seed = message.get("bot_seed")
            seed = int(seed) if isinstance(seed, int) else None
            bot.seed(seed)
            bot.on_game_start(GameStart(
                game=int(message.get("game", 0)), seat=seat,
                players=list(message.get("players", [])),
                starting_seat=int(message.get("starting_seat", 0)),
                rounds=int(message.get("rounds", 0)), raw=message, bot_seed=seed))
        elif kind == "game_end":
            bot.on_game_end(GameEnd(
                game=int(message.get("game", 0)),
                placements=list(message.get("placements", [])),
                desmos=list(message.get("desmos", [])),
                ascension=bool(message.get("ascension", False)),
                tiebreak=str(message.get("tiebreak", "")),
                forfeits={int(k): str(v) for k, v in (message.get("forfeits") or {}).items()},
                raw=message))
            seat = -1
        elif kind == "bye":
            return 0
        # Unknown types are ignored: that is how protocol v1 grows.
    return 0


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
    try:
        bot = load_bot(args[0], class_name)
    except BotLoadError as exc:
        print(f"[runner] {exc}", file=sys.stderr)
        return 2
    except Exception:
        print(f"[runner] loading {args[0]} failed:", file=sys.stderr)
        traceback.print_exc()
        return 2
    try:
        return serve(bot, infile, out_fd)
    except BrokenPipeError:
        return 0
    except Exception:
        print("[runner] the bot raised:", file=sys.stderr)
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
