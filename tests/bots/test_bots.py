"""The ladder's bots: legal answers to every decision kind, the ISMCTS budget, determinism.

The bots are driven in-process exactly as the referee asks them (``bot_harness.play``), so no
subprocess or sandbox is involved. No wall-clock assertions: the ISMCTS bot is run with an
iteration budget (``ms = 0``), which is also what makes it deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from bot_harness import NAMES, bot, play

from arena.engine import GameConfig, new_game
from arena.engine.decision import DECISION_KINDS
from arena.sdk import Bot, GameStart, Request

#: (players, seed): trajectories of uniformly random play (``random.Random(seed)``) that
#: between them meet every decision kind, Rock-Paper-Scissors included.
TRAJECTORIES = [(3, 0), (3, 34), (2, 42), (2, 93), (4, 51), (5, 42), (4, 7), (5, 3)]


def fast_ismcts(iterations: int = 8) -> Bot:
    b = bot("ismcts")
    b.ms = 0  # type: ignore[attr-defined]
    b.iterations = iterations  # type: ignore[attr-defined]
    return b


FACTORIES: dict[str, Callable[[], Bot]] = {
    "random": lambda: bot("random"),
    "greedy": lambda: bot("greedy"),
    "heuristic": lambda: bot("heuristic"),
    "ismcts": fast_ismcts,
}


def probe(make: Callable[[], Bot], players: int, seed: int) -> set[str]:
    """Play a uniformly random game; at every decision, ask the seat's bot (one instance
    per seat, fed its own events) and check its answer is a legal index. Returns the
    decision kinds asked."""
    state = new_game(GameConfig(players=NAMES[:players], seed=seed))
    bots = [make() for _ in range(players)]
    for seat, b in enumerate(bots):
        b.seed(seed + seat)
        b.on_game_start(GameStart(0, seat, list(NAMES[:players]), 0, state.rounds))
    rng = random.Random(seed)
    cursors = [0] * players
    kinds: set[str] = set()
    ids = 0
    while state.decision is not None:
        decision = state.decision
        seat = decision.seat
        events = state.events_for(seat, cursors[seat])
        cursors[seat] += len(events)
        for event in events:
            bots[seat].on_event(event)
        ids += 1
        request = Request(ids, decision.kind, state.observe(seat).to_json(include_events=False),
                          list(decision.options), None, dict(decision.context), seat)
        choice = bots[seat].act(request)
        assert isinstance(choice, int) and 0 <= choice < len(decision.options), \
            (decision.kind, choice, decision.options)
        kinds.add(decision.kind)
        state.apply(rng.randrange(len(decision.options)))
    return kinds


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_every_decision_kind_gets_a_legal_answer(name: str) -> None:
    kinds: set[str] = set()
    for players, seed in TRAJECTORIES:
        kinds |= probe(FACTORIES[name], players, seed)
    assert kinds == set(DECISION_KINDS)


@pytest.mark.parametrize("name", ["greedy", "heuristic", "ismcts"])
@pytest.mark.parametrize("players", [2, 4])
def test_bots_play_whole_games_legally(name: str, players: int) -> None:
    """Against each other (states they reach themselves, not random ones)."""

    def legal(state, request, choice):  # type: ignore[no-untyped-def]
        assert isinstance(choice, int) and 0 <= choice < len(request.legal)

    others = ["greedy", "heuristic", "random", "greedy"]
    for seed in range(2):
        bots = [FACTORIES[name]()] + [FACTORIES[o]() for o in others[: players - 1]]
        state = play(bots, seed, check=legal)
        assert state.result is not None


def test_ismcts_respects_its_iteration_budget() -> None:
    b = fast_ismcts(20)
    counted: list[int] = []
    original = b.iterate  # type: ignore[attr-defined]

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        counted.append(1)
        return original(*args, **kwargs)

    b.iterate = counting  # type: ignore[attr-defined]
    searches: list[int] = []
    original_search = b.search  # type: ignore[attr-defined]

    def search(*args, **kwargs):  # type: ignore[no-untyped-def]
        counted.clear()
        choice = original_search(*args, **kwargs)
        searches.append(len(counted))
        assert len(counted) == b.last_iterations  # type: ignore[attr-defined]
        return choice

    b.search = search  # type: ignore[attr-defined]
    play([b, bot("greedy")], 3)
    assert searches and all(0 < n <= 20 for n in searches)
    assert max(searches) > 10  # the budget is used, not just one descent


def test_ismcts_is_deterministic_given_its_seed() -> None:
    """The referee seeds every bot's ``rng`` per game; with an iteration budget the search
    then replays move for move."""

    def choices() -> list[int]:
        made: list[int] = []

        def record(state, request, choice):  # type: ignore[no-untyped-def]
            if request.seat == 0:
                made.append(choice)

        play([fast_ismcts(16), bot("heuristic")], 11, check=record)
        return made

    first = choices()
    assert first == choices()
    assert len(first) > 5


def test_ismcts_reads_its_entry_options() -> None:
    b = bot("ismcts")
    b.configure({"iterations": 12, "width": 2})
    assert (b.iterations, b.width, b.ms) == (12, 2, 0.0)  # type: ignore[attr-defined]
    timed = bot("ismcts")
    timed.configure({"iterations": 12, "ms": 40})
    assert (timed.iterations, timed.ms) == (12, 40.0)  # type: ignore[attr-defined]

    def moves(first: Bot) -> list[int]:
        made: list[int] = []

        def record(state, request, choice):  # type: ignore[no-untyped-def]
            if request.seat == 0:
                made.append(choice)

        play([first, bot("heuristic")], 11, check=record)
        return made

    def configured() -> Bot:
        b = bot("ismcts")
        b.configure({"iterations": 16})
        return b

    # configured by options, it replays, and like the bot with the attributes set
    assert moves(configured()) == moves(configured()) == moves(fast_ismcts(16))


@pytest.mark.parametrize(("options", "message"), [
    ({"iteration": 5}, "ismcts: unknown option 'iteration' (known: ms, wall_ms, iterations, "
                       "exploration, bias, width, margin, model_from)"),
    ({"iterations": -1}, "ismcts: option iterations must be a whole number of at least 0, "
                         "got -1"),
    ({"iterations": 2.5}, "ismcts: option iterations must be a whole number of at least 0, "
                          "got 2.5"),
    ({"ms": "fast"}, "ismcts: option ms must be a number of at least 0, got 'fast'"),
    ({"ms": True}, "ismcts: option ms must be a number of at least 0, got True"),
])
def test_ismcts_refuses_a_bad_option(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as info:
        bot("ismcts").configure(options)
    assert str(info.value) == message


def test_ismcts_uses_a_time_budget_when_given_one() -> None:
    b = bot("ismcts")
    b.ms = 5  # type: ignore[attr-defined]
    state = play([b, bot("random")], 1)
    assert state.result is not None and b.last_iterations >= 1  # type: ignore[attr-defined]


class _TickingClock:
    """A fake ``time`` module: CPU time advances 1 ms per reading, wall time stands still."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.readings = 0

    def process_time(self) -> float:
        self.cpu += 0.001
        self.readings += 1
        return self.cpu

    def perf_counter(self) -> float:
        return 0.0


@pytest.mark.parametrize("players", [2, 4])
def test_ismcts_cpu_budget_scales_with_the_table(players: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``ms`` of CPU per decision at 2 players, ``players / 2`` times as much at bigger
    tables (longer playouts); measured on a fake clock, never the wall clock."""
    b = bot("ismcts")
    b.ms = 6.25  # type: ignore[attr-defined]
    clock = _TickingClock()
    monkeypatch.setitem(b.search.__globals__, "time", clock)  # type: ignore[attr-defined]
    readings: list[int] = []
    original = b.search  # type: ignore[attr-defined]

    def search(*args, **kwargs):  # type: ignore[no-untyped-def]
        clock.readings = 0
        choice = original(*args, **kwargs)
        readings.append(clock.readings)
        return choice

    b.search = search  # type: ignore[attr-defined]
    play([b, *(bot("greedy") for _ in range(players - 1))], 5)
    # one reading sets the deadline (6.25 ms, 12.5 ms at 4 players), then one per round of
    # candidates until it has passed
    assert readings and set(readings) == {8 if players == 2 else 14}


def test_ismcts_opponent_model_keeps_the_determinisation_consistent() -> None:
    """``model_opponents`` trades hidden cards of the other hands with the draw pile only:
    what the bot knows stays where it is (in a hand, at its place in the pile), and no
    opponent's hand gets weaker."""
    import sys

    from arena.engine.cards import NOTATION, PALAESTRON
    from arena.sdk.search import SearchView, Tracker, hand_score

    model = sys.modules[type(bot("ismcts")).__module__].model_opponents
    checked = kept = 0
    for seed in range(12):
        state = new_game(GameConfig(players=NAMES[:4], seed=seed))
        rng = random.Random(seed)
        tracker, cursor = Tracker(), 0
        while state.decision is not None:
            decision = state.decision
            for event in state.events_for(0, cursor):
                cursor += 1
                tracker.add(event)
            if decision.seat == 0 and decision.kind in ("turn", "swap"):
                view = SearchView(state.observe(0).to_json(include_events=False),
                                  tracker.events, decision.kind, list(decision.options),
                                  tracker)
                sample = view.sample_state(seed)
                before = sample.clone()
                model(sample, view, random.Random(seed))
                checked += 1
                assert sample.hands[0] == before.hands[0]
                assert all(PALAESTRON not in hand for hand in sample.hands)
                only = before.clone()  # the Palaestron is never held (a crash in playouts)
                only.draw_pile = [PALAESTRON] * len(only.draw_pile)
                model(only, view, random.Random(seed))
                assert all(PALAESTRON not in hand for hand in only.hands)
                assert sorted(sample.draw_pile + sum(sample.hands, [])) == \
                    sorted(before.draw_pile + sum(before.hands, []))
                assert sample.decision.options == decision.options
                for s in range(1, 4):
                    assert len(sample.hands[s]) == len(before.hands[s])
                    assert hand_score(sample.hands[s]) >= hand_score(before.hands[s])
                    held = [NOTATION[c] for c in sample.hands[s]]
                    assert all(held.count(c) >= view.known_hand(s).count(c)
                               for c in view.known_hand(s))
                for place, name in enumerate(view.known_pile()):  # and where in the pile
                    if name is not None:
                        assert NOTATION[sample.draw_pile[place]] == name, (place, seed)
                        kept += 1
            state.apply(rng.randrange(len(decision.options)))
    assert checked > 20 and kept > 2


def test_ismcts_opponent_model_leaves_a_card_known_in_some_places_there() -> None:
    """A revealed card given for one of the top cards Athena or Sophoi showed is known to be
    at one of those places or in a hand that drew from them: the opponent model traded it
    from the pile into any opponent's hand."""
    import sys

    from told_windows import told_windows, within

    model = sys.modules[type(bot("ismcts")).__module__].model_opponents
    checked = 0
    for _, view, *_told in told_windows(range(100, 160), 4):
        for seed in range(4):
            sample = view.sample_state(seed)
            model(sample, view, random.Random(seed))
            for where in view.whereabouts():
                assert where.card in within(sample, where.pile, where.hands), (where, seed)
                checked += 1
    assert checked > 20, checked


def test_a_reveal_shows_the_card_needed_least_never_a_second_copy_first() -> None:
    """A reveal never offers a card already shown (RULES.md E16), but it offers a second
    copy of one (two Fate-1, two Crowns): heuristic and the kit's playout policy revealed
    that copy "as telling nothing new", which told the table the hand holds two. They reveal
    the card needed least. (Games of five greedy bots meet the case about once in eight.)"""
    from arena.engine.cards import NOTATION
    from arena.sdk.policy import playout_choice
    from arena.sdk.search import hand_score

    met = 0
    heuristic = bot("heuristic")

    def check(state: Any, request: Request, choice: int) -> None:
        nonlocal met
        shown = set(request.observation["revealed"][request.seat])
        if request.kind != "reveal" or not any(o.get("card") in shown for o in request.legal):
            return
        met += 1
        heuristic.on_game_start(GameStart(0, request.seat, list(NAMES), 0, 3))
        assert heuristic.act(request) == heuristic.least_needed(request.hand, request.legal)
        hand = list(state.hands[request.seat])

        def kept(name: str) -> float:  # the hand's score without that card
            return hand_score([c for i, c in enumerate(hand)
                               if i != [NOTATION[x] for x in hand].index(name)])

        policy = request.legal[playout_choice(state.clone(), random.Random(0))]["card"]
        assert kept(policy) == max(kept(o["card"]) for o in request.legal)

    for seed in range(100):
        play([bot("greedy") for _ in NAMES], seed, check=check)
    assert met >= 5  # the case was met
