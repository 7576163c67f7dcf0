"""ISMCTS: information-set Monte-Carlo tree search, searched with the engine itself.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012) for the ``turn`` and ``swap``
decisions, the ones that shape a hand. Each iteration

1. **determinises**: deals every card the bot has not seen at random into the places it cannot
   see (other hands, other traps, the draw pile), consistent with its observation and events
   (``SearchView.sample_state``; cards it saw in a hand stay in that hand; no hidden truth is
   read), giving a full engine state positioned at the decision;
2. **selects** down a tree whose edges are the bot's own options (this turn's hold / play /
   trap, its swap, its next turn, ...) by UCB1 among the options *available in this
   determinisation* (each child counts how often it could have been chosen), with a bias
   towards the playout policy's own choice that fades as the child is visited; the other
   seats' choices and the bot's own effect choices (targets, cards, discards) are made by the
   kit's fast greedy policy ``playout_choice``, which sees the whole sampled state;
3. **expands** one new option and **plays out** the game to its end with the same policy;
4. **backs up** the placement: 1 for first place, 0 for last, evenly in between.

Two choices make a small budget go further in this game of luck. Only the options giving up
one of the ``width`` cards the hand needs least are searched (plus hold and the policy's
choice). And the root's candidates are all played on *the same* determinisation with the
same random future (common random numbers): the bot leaves the policy's choice only for an
option that beats it by ``margin`` standard errors of the paired difference.

Budget per decision: ``ms`` milliseconds of CPU time (process time, so that a loaded machine
does not weaken it; times ``players / 2`` at bigger tables, whose playouts are longer), never
more than ``wall_ms`` of wall-clock time nor a third of the time the referee grants (decision
limit plus what is left of the time bank), and/or ``iterations`` (descents). Class
attributes; a tournament entry sets them as options (``{bot: ismcts, options: {iterations:
250}}``, see :meth:`ISMCTSBot.configure`), and the environment variables ``ARENA_ISMCTS_MS``
and ``ARENA_ISMCTS_ITERATIONS`` override them in-process. Random choices come from
``self.rng``, which the referee seeds for every game: with an iteration budget (``ms = 0``)
the bot replays move for move. Decisions it does not search get the kit's ``default_reply``:
the same greedy policy, from what the bot knows, as its playouts assume.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections import Counter
from typing import Any

from arena.engine.cards import NOTATION, PALAESTRON
from arena.sdk import Request
from arena.sdk.search import (
    SearchBot,
    SearchView,
    default_reply,
    hand_score,
    playout_choice,
)


class Node:
    """One of the bot's information sets: statistics of the option that leads here."""

    __slots__ = ("children", "visits", "reward", "available")

    def __init__(self) -> None:
        self.children: dict[tuple[Any, ...], Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.available = 0


def key(option: dict[str, Any]) -> tuple[Any, ...]:
    """An option as a dict key: the same option in every determinisation."""
    return tuple(sorted(option.items()))


def candidates(state: Any, preferred: int, width: int) -> list[int]:
    """The options worth searching: hold (or no swap), the policy's choice, and every option
    giving up one of the ``width`` cards the hand needs least."""
    decision = state.decision
    hand = state.hands[decision.seat]
    if width <= 0 or len(hand) <= width:
        return list(range(len(decision.options)))
    order = sorted(range(len(hand)), key=lambda i: -hand_score(hand[:i] + hand[i + 1:]))
    spare = {NOTATION[hand[i]] for i in order[:width]}
    field = "card" if decision.kind == "turn" else "swap"
    return [i for i, option in enumerate(decision.options)
            if i in (0, preferred) or option.get(field) in spare]


def model_opponents(state: Any, view: SearchView, rng: random.Random) -> None:
    """Opponent modelling for a determinisation: the other players have spent their turns
    improving their hands, so a uniformly dealt hand is too weak late in the game. For each
    of its past turns, an opponent tries twice to trade the card it needs least, among those
    the bot does not know it holds, for a random card of the draw pile the bot does not know
    at its place (both hidden from the bot, so the observation still holds), keeping the
    trade if it raises the hand's Desmos. A card the bot knows is in one of a few places
    (``view.whereabouts()``) stays in them: their pile places and that card in their hands
    are not traded."""
    pile = state.draw_pile
    whereabouts = view.whereabouts()
    windows = {place for where in whereabouts for place in where.pile}
    unknown = [j for j, name in enumerate(view.known_pile()) if name is None and j not in windows]
    for seat, hand in enumerate(state.hands):
        if seat == view.seat or not unknown or len(hand) < 2:
            continue
        known = Counter(view.known_hand(seat))
        known.update(where.card for where in whereabouts if seat in where.hands)
        free = []
        for i, card in enumerate(hand):
            if known[NOTATION[card]]:
                known[NOTATION[card]] -= 1
            else:
                free.append(i)
        if not free:
            continue
        score = hand_score(hand)
        for _ in range(2 * state.own_turns[seat]):
            i = max(free, key=lambda k: hand_score(hand[:k] + hand[k + 1:]))
            j = rng.choice(unknown)
            if pile[j] == PALAESTRON:  # never held: it is discarded as soon as it is drawn
                continue
            trial = hand[:i] + [pile[j]] + hand[i + 1:]
            new = hand_score(trial)
            if new > score:
                hand[i], pile[j], score = pile[j], hand[i], new


class ISMCTSBot(SearchBot):
    name = "ismcts"
    author = "Palaestra Arena"
    version = "1"

    #: CPU milliseconds of search per decision at a 2-player table (0: no time limit);
    #: bigger tables get ``players / 2`` times as much (their playouts are longer).
    ms = 150.0
    #: Wall-clock cap per decision, in milliseconds: a safety net, high enough that a busy
    #: machine (a small share of a core) still gets the full CPU budget.
    wall_ms = 2000.0
    #: Descents per decision (0: no limit); with ``ms = 0`` the search is deterministic.
    iterations = 0
    #: UCB1 exploration constant (rewards are in [0, 1]).
    exploration = 0.7
    #: Progressive bias towards the playout policy's choice (fades with visits).
    bias = 0.5
    #: Cards of the hand searched as candidates to give up (0: every option).
    width = 3
    #: Standard errors by which a root option must beat the policy's choice.
    margin = 1.0
    #: Model the opponents' hands (``model_opponents``) at tables of this many players or
    #: more (measured at 4 players; 2-player tables are searched as before).
    model_from = 3

    def __init__(self) -> None:
        super().__init__()
        self.ms = float(os.environ.get("ARENA_ISMCTS_MS", self.ms))
        self.iterations = int(os.environ.get("ARENA_ISMCTS_ITERATIONS", self.iterations))
        #: Descents made by the last search (for benchmarks and tests).
        self.last_iterations = 0

    #: The settings a tournament entry may give (``options``), and their types.
    SETTINGS = {"ms": float, "wall_ms": float, "iterations": int, "exploration": float,
                "bias": float, "width": int, "margin": float, "model_from": int}

    def configure(self, options: dict[str, Any]) -> None:
        """Read the entry's settings (``{bot: ismcts, options: {iterations: 250}}``). A
        budget of ``iterations`` alone also turns the time budget off (``ms = 0``), so the
        bot replays move for move; an unknown name or a bad value is refused (the match then
        reports a start-up failure quoting it) rather than silently searched otherwise."""
        super().configure(options)
        for name, value in options.items():
            kind = self.SETTINGS.get(name)
            if kind is None:
                raise ValueError(f"ismcts: unknown option {name!r} (known: "
                                 f"{', '.join(self.SETTINGS)})")
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 \
                    or (kind is int and value != int(value)):
                what = "a whole number" if kind is int else "a number"
                raise ValueError(f"ismcts: option {name} must be {what} of at least 0, "
                                 f"got {value!r}")
            setattr(self, name, kind(value))
        if "iterations" in options and "ms" not in options:
            self.ms = 0.0

    def act(self, request: Request) -> int:
        view = self.view(request)
        rng = random.Random(self.rng.getrandbits(64))  # self.rng: seeded by the referee
        if not view.searchable or len(request.legal) == 1:
            return default_reply(view, rng)
        return self.search(view, rng, request.time_ms)

    def search(self, view: SearchView, rng: random.Random, time_ms: int | None = None) -> int:
        scale = max(1.0, view.players / 2)
        cpu_end = time.process_time() + (self.ms * scale / 1000 if self.ms > 0 else math.inf)
        wall = min(self.wall_ms, time_ms / 3) if time_ms else self.wall_ms
        wall_end = time.perf_counter() + wall / 1000
        limit = self.iterations if self.iterations > 0 else math.inf
        me = view.seat
        root = Node()
        model = 0 < self.model_from <= view.players

        def determinise() -> Any:
            state = view.sample_state(rng.getrandbits(64))
            if model:
                model_opponents(state, view, rng)
            return state

        first = determinise()
        preferred = playout_choice(first.clone(), random.Random(0))
        options = candidates(first, preferred, self.width)
        rewards: dict[int, list[float]] = {option: [] for option in options}
        done = 0
        while done == 0 or (done + len(options) <= limit and time.process_time() < cpu_end
                            and time.perf_counter() < wall_end):
            state = first if done == 0 else determinise()
            future = rng.getrandbits(64)
            for option in options:  # every candidate on the same deal and the same future
                rewards[option].append(
                    self.iterate(root, state.clone(), me, random.Random(future), option))
            done += len(options)
        self.last_iterations = done
        if self.ms <= 0 and self.iterations > 0 and done + len(options) <= limit:
            # the clock, not the budget, ended a search meant to replay move for move: say so
            self.log(f"[ismcts] the wall-clock cap ({wall:.0f} ms) stopped the search after "
                     f"{done} of {self.iterations} iterations: this move may not replay")
        return self.choose(rewards, preferred)

    def choose(self, rewards: dict[int, list[float]], preferred: int) -> int:
        """The policy's choice, unless an option beats it by ``margin`` standard errors of
        the paired difference (the biggest such margin wins)."""
        base = rewards[preferred]
        best, best_z = preferred, self.margin
        for option, values in rewards.items():
            diffs = [a - b for a, b in zip(values, base)]
            n = len(diffs)
            if option == preferred or n < 2:
                continue
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            z = mean / math.sqrt(var / n) if var > 0 else (math.inf if mean > 0 else 0.0)
            if z > best_z:
                best, best_z = option, z
        return best

    def iterate(self, root: Node, state: Any, me: int, rng: random.Random,
                first: int) -> float:
        """One descent from the root option ``first``; returns its reward."""
        path = [root]
        node = root
        forced = first
        expanded = False
        while state.decision is not None and not expanded:
            decision = state.decision
            if decision.seat != me or decision.kind not in ("turn", "swap"):
                state.apply(playout_choice(state, rng))
                continue
            if forced >= 0:
                choice, forced = forced, -1
                keys = {choice: key(decision.options[choice])}
                preferred = choice
            else:
                preferred = playout_choice(state, rng)
                keys = {i: key(decision.options[i])
                        for i in candidates(state, preferred, self.width)}
            untried = []
            for i, k in keys.items():
                child = node.children.get(k)
                if child is None:
                    untried.append(i)
                else:
                    child.available += 1
            if untried:  # expand: the policy's choice first
                choice = preferred if preferred in untried else rng.choice(untried)
                child = node.children[keys[choice]] = Node()
                child.available = 1
                expanded = node is not root
            else:
                choice = self.select(node, keys, preferred)
                child = node.children[keys[choice]]
            state.apply(choice)
            node = child
            path.append(node)
        while state.decision is not None:  # play out
            state.apply(playout_choice(state, rng))
        places = state.result.placements
        worst = len(places) - 1
        reward = (worst - (places[me] - 1)) / worst if worst else 1.0
        for visited in path:
            visited.visits += 1
            visited.reward += reward
        return reward

    def select(self, node: Node, keys: dict[int, tuple[Any, ...]], preferred: int) -> int:
        """UCB1 over the options available here, plus the fading bias to the policy."""
        best, best_value = preferred, -math.inf
        for i, k in keys.items():
            child = node.children[k]
            value = (child.reward / child.visits
                     + self.exploration * math.sqrt(math.log(child.available) / child.visits)
                     + (self.bias / (child.visits + 1) if i == preferred else 0.0))
            if value > best_value:
                best, best_value = i, value
        return best
