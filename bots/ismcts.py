"""ISMCTS: information-set Monte-Carlo tree search, searched with the engine itself.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012) for the ``turn`` and ``swap``
decisions, the ones that shape a hand. Each iteration

1. **determinises**: deals every card the bot has not seen at random into the places it cannot
   see (other hands, other traps, the draw pile), consistent with its observation and events
   (``SearchView.sample_state``: no hidden truth is read), giving a full engine state;
2. **selects** down a tree whose edges are the bot's own options (a turn's hold / play / trap,
   then its swap, then its next turn, ...), by UCB1 among the options *available in this
   determinisation* (an option counts as tried only when it could have been chosen);
   every other choice (the other seats, the bot's targets and discards) is made by the kit's
   fast greedy policy, ``playout_choice``, which sees the whole sampled state;
3. **expands** one untried option and **plays out** the rest of the game with the same policy;
4. **backs up** the result: 1 for first place, 0 for last, evenly in between.

The answer is the most visited option at the root. The budget is per decision: ``ms``
milliseconds and/or ``iterations`` (class attributes; the environment variables
``ARENA_ISMCTS_MS`` and ``ARENA_ISMCTS_ITERATIONS`` override them, for experiments in-process).
A request's ``time_ms`` caps the time further. Other decisions get the kit's ``default_reply``
(the same greedy policy, from what the bot knows), so the bot plays as its playouts assume.
"""

from __future__ import annotations

import math
import os
import random
import time
from typing import Any

from arena.engine.cards import NOTATION
from arena.sdk import Request
from arena.sdk.search import SearchBot, default_reply, hand_score, playout_choice


class Node:
    __slots__ = ("children", "visits", "reward", "available")

    def __init__(self) -> None:
        self.children: dict[Any, Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.available = 0


def key(option: dict[str, Any]) -> tuple[Any, ...]:
    """An option as a dict key: the same option in every determinisation."""
    return tuple(sorted(option.items()))


class ISMCTSBot(SearchBot):
    name = "ismcts"
    author = "Palaestra Arena"
    version = "1"

    #: Milliseconds of search per decision (0: no time limit).
    ms = 150.0
    #: Iterations per decision (0: no limit); with ``ms = 0`` the search is deterministic.
    iterations = 0
    #: UCB1 exploration constant (rewards are in [0, 1]).
    exploration = 0.7
    #: Cards of the hand searched as candidates to give up (0: every option).
    width = 3
    #: Progressive bias towards the playout policy's own choice (fades with visits).
    bias = 0.5
    #: Base seed of the search's random choices.
    seed = 0

    def __init__(self) -> None:
        super().__init__()
        self.ms = float(os.environ.get("ARENA_ISMCTS_MS", self.ms))
        self.iterations = int(os.environ.get("ARENA_ISMCTS_ITERATIONS", self.iterations))
        self.width = int(os.environ.get("ISMCTS_WIDTH", self.width))
        self.bias = float(os.environ.get("ISMCTS_BIAS", self.bias))
        #: Iterations run by the last search (for benchmarks and tests).
        self.last_iterations = 0

    def act(self, request: Request) -> int:
        view = self.view(request)
        rng = random.Random(f"{self.seed}/{request.observation.get('turn')}/{request.kind}/"
                            f"{len(self.tracker.events)}/{request.hand}")
        if not view.searchable or len(request.legal) == 1:
            return default_reply(view, rng)
        budget = self.ms / 1000 if self.ms > 0 else math.inf
        if request.time_ms:
            budget = min(budget, request.time_ms / 3000)
        return self.search(view, rng, budget)

    def search(self, view: Any, rng: random.Random, budget_s: float) -> int:
        root = Node()
        me = view.seat
        limit = self.iterations if self.iterations > 0 else math.inf
        deadline = time.process_time() + budget_s
        done = 0
        while done < limit and (done == 0 or time.process_time() < deadline):
            self.iterate(root, view.sample_state(rng.getrandbits(64)), me, rng)
            done += 1
        self.last_iterations = done
        keys = [key(option) for option in view.legal]
        return max(range(len(keys)), key=lambda i: self._rank(root.children.get(keys[i])))

    @staticmethod
    def _rank(node: Node | None) -> tuple[int, float]:
        return (0, 0.0) if node is None else (node.visits, node.reward)

    def iterate(self, root: Node, state: Any, me: int, rng: random.Random) -> None:
        path = [root]
        node = root
        expanded = False
        while state.decision is not None and not expanded:
            decision = state.decision
            if decision.seat != me or decision.kind not in ("turn", "swap"):
                state.apply(playout_choice(state, rng))
                continue
            preferred = playout_choice(state, rng)
            options = candidates(state, preferred, self.width)
            keys = {i: key(decision.options[i]) for i in options}
            untried = []
            for i, k in keys.items():
                child = node.children.get(k)
                if child is None:
                    untried.append(i)
                else:
                    child.available += 1
            if untried:
                choice = preferred if preferred in untried else rng.choice(untried)
                child = node.children[keys[choice]] = Node()
                child.available = 1
                expanded = True
            else:
                choice = self._select(node, keys, preferred)
                child = node.children[keys[choice]]
            state.apply(choice)
            node = child
            path.append(node)
        while state.decision is not None:
            state.apply(playout_choice(state, rng))
        places = state.result.placements
        worst = len(places) - 1
        reward = (worst - (places[me] - 1)) / worst if worst else 1.0
        for visited in path:
            visited.visits += 1
            visited.reward += reward

    def _select(self, node: Node, keys: dict[int, tuple[Any, ...]], preferred: int) -> int:
        """UCB1 over the available options, plus a bias towards the policy's own choice
        that fades as the option is visited (progressive bias)."""
        c, bias = self.exploration, self.bias
        best, best_value = 0, -math.inf
        for i, k in keys.items():
            child = node.children[k]
            value = (child.reward / child.visits
                     + c * math.sqrt(math.log(child.available) / child.visits))
            if i == preferred:
                value += bias / (child.visits + 1)
            if value > best_value:
                best, best_value = i, value
        return best


def candidates(state: Any, preferred: int, width: int) -> list[int]:
    """The options worth searching: hold (or keep), the policy's choice, and every option
    that gives up one of the ``width`` cards the hand needs least."""
    decision = state.decision
    hand = state.hands[decision.seat]
    if width <= 0 or len(hand) <= width:
        return list(range(len(decision.options)))
    def loss(i: int) -> float:
        return -hand_score(hand[:i] + hand[i + 1:])
    spare = {NOTATION[hand[i]] for i in sorted(range(len(hand)), key=loss)[:width]}
    return [i for i, option in enumerate(decision.options)
            if i == 0 or i == preferred
            or (option.get("card") if decision.kind == "turn" else option.get("swap")) in spare]
