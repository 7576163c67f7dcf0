"""The bot kit's two types: :class:`Bot` (what an author subclasses) and :class:`Request` (one
decision to answer).

Kept to the standard library so a bot runs under whatever interpreter the sandbox offers; the
runner (``python -m arena.sdk.runner bot.py``) does all the protocol work.
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import operator
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, SupportsIndex

from arena.protocol.messages import standing_places_of

if TYPE_CHECKING:  # imported lazily: a bot file named random.py must not shadow it
    import random

    from arena.engine.houserules import HouseRules

__all__ = ["Bot", "GameEnd", "GameStart", "Request", "as_index", "not_an_index", "was_configured"]

#: The key in a bot's ``__dict__`` saying ``configure`` has returned once (a subclass's own
#: ``configure`` is wrapped to note it, whether or not it calls ``super().configure``).
_CONFIGURED = "_kit_configured"


def as_index(choice: object) -> int | None:
    """An ``act()`` result as an option index: an int or an integer-like value (an IntEnum, a
    numpy integer); None for anything else (None from a forgotten ``return``, a float, a
    bool), which is never truncated into an index."""
    if type(choice) is int:
        return choice
    if not isinstance(choice, bool) and isinstance(choice, SupportsIndex):
        return operator.index(choice)
    return None


def not_an_index(bot: Bot, choice: object, legal: list[dict[str, Any]]) -> str:
    """What the kit logs of an ``act()`` result that is no index: what it was, where ``act``
    is, and what to return instead (the option's index where the result is an option of
    ``legal`` or a value one of them holds, as a beginner returns ``"hold"``)."""
    code = getattr(inspect.unwrap(type(bot).act), "__code__", None)
    where = f" ({os.path.basename(code.co_filename)} line {code.co_firstlineno})" if code else ""
    named = [index for index, option in enumerate(legal)
             if (isinstance(choice, dict) and choice == option)
             or (isinstance(choice, str) and choice in option.values())]
    if choice is None:
        advice = "every way through act() must end in 'return INDEX'"
    elif named:
        advice = (f"return the option's index ({named[0]} here)" if len(named) == 1 else
                  f"return the index of the option you mean ({', '.join(map(str, named))})")
    else:
        advice = f"return an int from 0 to {len(legal) - 1}"
    return (f"act(){where} returned {choice!r:.60} ({type(choice).__name__}), not an int index "
            f"into request.legal: {advice}")


@dataclass(slots=True)
class Request:
    """One decision: its kind (``turn``, ``swap``, ``target``, ...), what the bot's seat may
    see, and the legal options in order. Answer with an index into :attr:`legal`; index 0 is
    always the safe default (hold, no swap, pass) where the game has one."""

    id: int
    kind: str
    observation: dict[str, Any]
    legal: list[dict[str, Any]]
    #: Milliseconds the bot has for this answer, time bank included (None if not told).
    time_ms: int | None = None
    #: Why the choice is asked (e.g. the card whose effect asks it).
    context: dict[str, Any] = field(default_factory=dict)
    #: The bot's own seat in the current game (from ``game_start``; -1 outside a game).
    seat: int = -1

    @property
    def hand(self) -> list[str]:
        """The bot's own hand in card notation (``["God-3", "Crown", ...]``)."""
        hand = self.observation.get("hand", [])
        return list(hand) if isinstance(hand, list) else []


@dataclass(slots=True)
class GameStart:
    """A game begins: the bot's seat, the players' names by seat, who starts, how many
    rounds. ``raw`` keeps the whole message for fields a later protocol adds."""

    game: int
    seat: int
    players: list[str]
    starting_seat: int
    rounds: int
    raw: dict[str, Any] = field(default_factory=dict)
    #: Seed for the bot's own randomness in this game (``self.rng`` is already seeded with it).
    bot_seed: int | None = None

    @property
    def rules(self) -> HouseRules:
        """The game's house rules: the default ones unless ``game_start`` named others (a
        game under other rules plays on differently, and a search should simulate them)."""
        from arena.engine.houserules import HouseRules  # lazily: see the top

        return HouseRules.from_json(self.raw.get("rules"))


@dataclass(slots=True)
class GameEnd:
    """A game is over: 1-based places and Desmos category per seat (None for a hand the bot's
    seat was never shown: an Ascension shows only the ascender's, RULES.md E31), and how
    first place was settled; ``standing_places``: the places the standings count, a
    forfeited seat the table's last (RULES.md E28), computed from the placements and
    forfeits when not given."""

    game: int
    placements: list[int]
    desmos: list[str | None]
    ascension: bool
    tiebreak: str
    forfeits: dict[int, str] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)
    standing_places: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.standing_places:
            self.standing_places = standing_places_of(self.placements, self.forfeits)


class Bot:
    """Base class of a Palaestra bot. Override :meth:`act`; the hooks are optional.

    Class attributes are the bot's metadata, sent in ``ready``: ``name`` (defaults to the class
    name), ``author``, ``version``, and the two dates the rules read for ties (ISO strings or
    ``datetime.date``): ``last_read_page`` (who starts the first game, ruling 13) and
    ``last_book_finished`` (equal first place, ruling 12).

    One instance serves a whole match, so state kept on ``self`` lives across games; reset
    what must not carry over in :meth:`on_game_start`. The runner makes a new instance for
    each match (its process may play several, one after the other: docs/PROTOCOL.md,
    "Rematch"); module-level state lives as long as the process. ``rematch = False`` asks
    for a fresh process for every match instead.

    ``self.rng`` is a :class:`random.Random` reseeded by the referee's ``bot_seed`` at every
    game start: use it for every random choice and the same tournament replays move for move.

    :meth:`configure` receives the settings of the bot's tournament entry (``hello``'s
    ``options``) before the first game; override it to read them.
    """

    name: str = ""
    author: str | None = None
    version: str | None = None
    last_read_page: str | dt.date | None = None
    last_book_finished: str | dt.date | None = None
    #: Whether the runner offers the referee this process for later matches (a new instance
    #: of the class each time).
    rematch: bool = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("configure")
        if inspect.isfunction(own):  # noted whether or not it calls super().configure
            cls.configure = _noting_configured(own)  # type: ignore[method-assign]

    @property
    def rng(self) -> random.Random:
        """The bot's seeded random source (reseeded at every game start)."""
        rng: random.Random | None = self.__dict__.get("_rng")
        if rng is None:
            # imported here, after the runner has put the bot's folder at the end of
            # sys.path: a bot file named random.py cannot shadow the standard module
            import random

            rng = self.__dict__["_rng"] = random.Random(0)
        return rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        import random

        # the runner reseeds it at every game start: anything else (a numpy Generator, the
        # natural slip) would fail there, in the kit, one game later
        if not isinstance(value, random.Random):
            raise TypeError(f"self.rng must be a random.Random (the kit reseeds it at every "
                            f"game start), not {type(value).__name__}: keep yours under "
                            "another name, e.g. self.np_rng")
        self.__dict__["_rng"] = value

    @property
    def options(self) -> dict[str, Any]:
        """The settings given to :meth:`configure` (empty until then, and when none)."""
        options: dict[str, Any] = self.__dict__.setdefault("_options", {})
        return options

    @options.setter
    def options(self, value: dict[str, Any]) -> None:  # an override may keep them itself
        self.__dict__["_options"] = dict(value)

    def configure(self, options: dict[str, Any]) -> None:
        """Take the settings of the bot's tournament entry (``{bot: ..., options: {...}}``),
        sent in ``hello`` before the first game. The default keeps them in :attr:`options`;
        a bot that reads them overrides this, and may raise ``ValueError`` for a bad one:
        the match then reports the bot's start-up failure with that message."""
        self.__dict__["_options"] = dict(options)
        self.__dict__[_CONFIGURED] = True

    def seed(self, bot_seed: int | None) -> None:
        """Reseed :attr:`rng` for a new game (the runner calls it before on_game_start)."""
        self.rng.seed(bot_seed if bot_seed is not None else 0)

    def act(self, request: Request) -> int:
        """Return the index of the chosen option in ``request.legal``."""
        raise NotImplementedError(f"{type(self).__name__} must implement act(request)")

    def on_game_start(self, game: GameStart) -> None:
        """A game begins (called before its first event)."""

    def on_event(self, event: dict[str, Any]) -> None:
        """Something visible to this bot happened; each event arrives exactly once."""

    def on_game_end(self, result: GameEnd) -> None:
        """A game is over."""

    def log(self, *parts: object) -> None:
        """Write to the bot's log (stderr, kept with the game); stdout belongs to the
        protocol."""
        print(*parts, file=sys.stderr, flush=True)

    def metadata(self) -> dict[str, Any]:
        """The ``ready`` fields: name plus the metadata attributes that are set."""
        data: dict[str, Any] = {"name": self.name or type(self).__name__}
        for key in ("author", "version", "last_read_page", "last_book_finished"):
            value = getattr(self, key, None)
            if isinstance(value, dt.date):
                value = value.isoformat()
            if value is not None:
                data[key] = str(value)
        return data


def was_configured(bot: Bot) -> bool:
    """Whether ``bot.configure`` has returned at least once (by the base class's or by an
    override's, which need not call ``super().configure``; reading :attr:`Bot.options` does
    not count)."""
    return bool(vars(bot).get(_CONFIGURED, False))


def _noting_configured(configure: Callable[..., Any]) -> Callable[..., Any]:
    """``configure`` that notes on the bot that it returned, for :func:`was_configured`."""
    @functools.wraps(configure)
    def noted(self: Bot, *args: Any, **kwargs: Any) -> Any:
        result = configure(self, *args, **kwargs)
        self.__dict__[_CONFIGURED] = True
        return result

    return noted
