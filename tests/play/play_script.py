"""A scripted person for the play tests: lines to type, then a fallback answer."""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from rich.console import Console

from arena.engine import GameConfig, State, new_game
from arena.engine.houserules import DEFAULT_RULES, HouseRules


def numbers_in(spans: str) -> list[int]:
    """The numbers a prompt's ``Choose 1, 3-5`` offers: [1, 3, 4, 5]."""
    numbers: list[int] = []
    for span in spans.split(", "):
        first, _, last = span.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return numbers


def quiet_console(width: int = 80) -> tuple[Console, io.StringIO]:
    """A console writing plain text to a buffer."""
    out = io.StringIO()
    return Console(file=out, width=width, color_system=None, force_terminal=False,
                   highlight=False), out


def enter_or_first(prompt: str) -> str:
    """Enter where the prompt offers it (a safe default), else the first number it offers
    (a choice the rules force has no default)."""
    found = re.match(r"Choose ([\d, -]+) \((Enter)?", prompt)
    if found is None or found.group(2):
        return ""
    return str(numbers_in(found.group(1))[0])


class Script:
    """Answers prompts from ``lines`` in order; then ``then(prompt)`` (default:
    :func:`enter_or_first`). A line of None is a timeout; an EOFError instance is raised as
    the end of input."""

    def __init__(self, lines: Iterable[str | None | BaseException] = (),
                 then: Callable[[str], str] | None = None) -> None:
        self.lines = list(lines)
        self.then = then or enter_or_first
        self.prompts: list[str] = []
        self.limits: list[float | None] = []

    def __call__(self, prompt: str, seconds: float | None) -> str | None:
        self.prompts.append(prompt)
        self.limits.append(seconds)
        if self.lines:
            line = self.lines.pop(0)
            if isinstance(line, BaseException):
                raise line
            return line
        return self.then(prompt)


def random_table(players: int, seed: int, rules: HouseRules = DEFAULT_RULES) -> State:
    """A new game of ``players`` seats named p0, p1..., dealt from ``seed``."""
    return new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                               starting_seat=seed % players, rules=rules))


def news_each_step(state: State, seed: int) -> Iterator[list[list[dict[str, Any]]]]:
    """Plays ``state`` to its end with options drawn from ``seed``: before each step and after
    the last, the events each seat has been told since the step before, by seat."""
    rng = random.Random(seed)
    told = [0] * state.n
    while True:
        news = []
        for seat in range(state.n):
            news.append(state.events_for(seat, told[seat]))
            told[seat] += len(news[-1])
        yield news
        if state.is_over:
            return
        state.apply(rng.randrange(len(state.decision.options)))


def play_out(person: Any, state: State, bots: Sequence[Any]) -> None:
    """Play ``state`` to its end, seat 0 answered by ``person`` (told its events as the
    referee tells a seat, before each decision) and each other seat by ``bots[seat]``."""
    person.watch(state.events_for(0))
    while (decision := state.decision) is not None:
        seen = len(state.events_for(0))
        seat = decision.seat
        state.apply(person.choose(decision, state.observe(0)) if seat == 0
                    else bots[seat].choose(decision, state.observe(seat)))
        person.watch(state.events_for(0, seen))
