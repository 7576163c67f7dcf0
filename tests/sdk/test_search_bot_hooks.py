"""A SearchBot's tracker and house rules follow the games whatever its author's hooks do,
and its tracker is up to date when ``act`` reads it.

A new author's own ``__init__``, ``on_game_start`` (to keep the seat, as docs/BOTS.md's first
bot does) or ``on_event`` that does not call ``super()`` left the tracker missing (an
AttributeError that did not say why), not reset between games with the default house rules
(a search of the wrong game), or fed no event (a search that knew nothing, silently)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.engine import GameConfig, RandomAgent, play_game
from arena.engine.houserules import HouseRules
from arena.sdk import Bot, GameStart, Request
from arena.sdk.local import BotAgent
from arena.sdk.search import SearchBot, Tracker, default_reply

RULES = HouseRules(kinds="family", trap_windows="turn_and_play")


class Noting(SearchBot):
    """Notes what its view knows at every decision, and plays the kit's policy."""

    def act(self, request: Request) -> int:
        view = self.view(request)
        noted: list[Any] = getattr(self, "noted", [])
        self.noted = noted
        sample = view.sample_state(7) if view.searchable else None
        noted.append((request.kind, self.rules, view.unseen_cards(), view.whereabouts(),
                      [view.known_hand(seat) for seat in range(view.players)],
                      sample and (sample.hands, sample.draw_pile, sample.config.rules)))
        return default_reply(view, self.rng)


class OwnInit(Noting):
    def __init__(self) -> None:
        self.games = 0


class OwnGameStart(Noting):
    def on_game_start(self, game: GameStart) -> None:
        self.seat = game.seat


class OwnEvent(Noting):
    def on_event(self, event: dict[str, Any]) -> None:
        self.last = event


class Both(Noting):
    """Hooks of its own that do call super(): each event is read once, not twice."""

    def on_game_start(self, game: GameStart) -> None:
        super().on_game_start(game)
        self.seat = game.seat

    def on_event(self, event: dict[str, Any]) -> None:
        super().on_event(event)
        self.last = event


def _noted(bot: Noting) -> list[Any]:
    agent = BotAgent(bot, seed=3, rules=RULES)
    for seed in (11, 12):  # two games: the second starts from a tracker reset
        play_game(GameConfig(players=("me", "a", "b"), seed=seed, rules=RULES),
                  [agent, RandomAgent(seed), RandomAgent(seed + 1)])
    return bot.noted


def test_hooks_of_the_authors_own_without_super_keep_the_search_bots_knowledge() -> None:
    expected = _noted(Noting())
    assert any(noted[3] or any(noted[4]) for noted in expected)  # it did know something
    for bot in (OwnInit(), OwnGameStart(), OwnEvent(), Both()):
        assert _noted(bot) == expected, type(bot).__name__


class ReadsFirst(SearchBot):
    """Reads its tracker in ``act`` before asking for a view, as docs/BOTS.md's Tracker
    invites: it was the last decision's knowledge, the events since unread."""

    def act(self, request: Request) -> int:
        tracker = self.tracker
        before = (len(tracker.events), tracker.pile and list(tracker.pile),
                  {seat: dict(cards) for seat, cards in tracker.known.items()})
        view = self.view(request)
        after = (len(tracker.events), tracker.pile and list(tracker.pile),
                 {seat: dict(cards) for seat, cards in tracker.known.items()})
        assert before == after, request.id
        return default_reply(view, self.rng)


def test_the_tracker_has_read_every_event_when_act_reads_it() -> None:
    bot = ReadsFirst()
    agent = BotAgent(bot, seed=5)
    for seed in (1, 2, 3):
        play_game(GameConfig(players=("me", "a"), seed=seed), [agent, RandomAgent(seed)])
    assert agent.invalid_answers == 0


def test_the_docs_search_bot_searches_and_plays_legal_games() -> None:
    """docs/BOTS.md's search bot, as a reader copies it: it was a stub that always held, so
    a new author had no example of a sample played out."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "BOTS.md").read_text(encoding="utf-8")
    source = text.split("```python\n# my_search.py\n", 1)[1].split("```", 1)[0]
    space: dict[str, Any] = {}
    exec(compile(source, "BOTS.md", "exec"), space)  # noqa: S102 - the docs' own example
    bot = space["MyMonteCarlo"]()
    answers: list[int] = []
    act = bot.act
    bot.act = lambda request: answers.append(act(request)) or answers[-1]
    agent = BotAgent(bot)
    for seed in range(2):
        play_game(GameConfig(players=("me", "rnd"), seed=seed), [agent, RandomAgent(seed)])
    assert agent.invalid_answers == 0
    assert any(answers)  # it chose other options than holding


class PlainWithTracker(Bot):
    """A plain Bot keeping a Tracker, as docs/BOTS.md's Tracker says: reset at the game's
    start, each event added; it reads the tracker's knowledge without a view."""

    def on_game_start(self, game: GameStart) -> None:
        self.tracker = Tracker()
        self.tracker.reset(game.seat)
        self.knew: list[Any] = getattr(self, "knew", [])

    def on_event(self, event: dict[str, Any]) -> None:
        self.tracker.add(event)

    def act(self, request: Request) -> int:
        self.knew.append((self.tracker.pile and list(self.tracker.pile),
                          {seat: dict(cards) for seat, cards in self.tracker.known.items()}))
        return 0


class SearchingTwin(SearchBot):
    """The same bot on the kit's SearchBot, whose view reads every event."""

    def act(self, request: Request) -> int:
        self.view(request)
        self.knew: list[Any] = getattr(self, "knew", [])
        self.knew.append((self.tracker.pile and list(self.tracker.pile),
                          {seat: dict(cards) for seat, cards in self.tracker.known.items()}))
        return 0


def test_a_tracker_a_plain_bot_adds_events_to_has_read_them() -> None:
    """Without a catch_up (which the docs did not name) the plain bot's tracker read
    nothing: no pile, nothing known, silently."""
    knew = []
    for bot in (PlainWithTracker(), SearchingTwin()):
        agent = BotAgent(bot, seed=2)
        for seed in (4, 5):
            play_game(GameConfig(players=("me", "a"), seed=seed), [agent, RandomAgent(seed)])
        knew.append(bot.knew)
    assert knew[0] == knew[1]
