"""Property tests: random seeds and random legal choices for 2-5 players.

Every game is played under a :class:`Watch` that checks the invariants at EVERY STEP of the
stack machine (each step popped), at every emitted event, at every end of turn and at every
decision:

* all 52 cards are conserved (``card_count()`` and the multiset of ``all_cards()``);
* the draw pile is empty only if both graveyards are empty too (E4), and in fact never (E5);
* no Arena ever holds more than 2 traps; the Palaestron is never in a hand;
* every hand is 5 at the end of every turn (live state and ``turn_log``) and whenever a turn,
  swap or throw is asked, and never more than 6 within a turn (E7);
* no Ascension is missed: while the game goes on, no contending seat holds five natural Gods
  it may count (E19; under ``reclaim=strict`` none of them used);
* every card takes its graveyard's road (Ruling 6): a card reaches the Effect Graveyard only
  from resolving, after its effect was announced, and leaves it only for the pile, in a
  reshuffle, which takes both graveyards whole; a forced discard is shown to everyone and
  goes to the Discard Graveyard, unless it is a God: that one fires for the seat that
  discarded it (``"how": "discarded"``: no other card ever fires so) and then goes to the
  Effect Graveyard; a drawn Palaestron is played at once (a burned one is not); an
  Ascension is five natural Gods (no Crown);
* every trap set is tracked: it leaves only through an event saying so, and an expired trap
  expires exactly at the end of its owner's second turn after the one it was set in (and no
  live trap is older than that);
* rounds by player count; the same seed and choices give the same record; replay reproduces;
* all of the above under every combination of house rules, and in games staged rich in Gods;
* no observation holds another seat's hidden card: each observation's events are exactly the
  logged events of its audience (``state.log`` visibility: None = all, s >= 0 only s, s < 0
  all but ~s); no event reaches a seat with a card that is hidden from it (in another seat's
  hand unrevealed, or in another seat's Arena) both before and after the step that logged it,
  unless that seat took part in what the event reports (its own draw, its own peek, its own
  exchange); each observation holds exactly its own hand and traps, revealed cards that were
  revealed publicly, and graveyards; a chooser's options name no hidden card but those of a
  hand it just peeked at.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from engine_scenario import build_state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine.cards import CARD_IDS, KIND_OF, NOTATION, PALAESTRON, Card, Kind
from arena.engine.config import GameConfig, rounds_for
from arena.engine.decision import DECISION_KINDS
from arena.engine.game import new_game
from arena.engine.houserules import RULE_CHOICES, HouseRules
from arena.engine.record import replay
from arena.engine.state import State, Trap
from arena.engine.turn import MAX_TRAPS, begin_game, start_turn

IDS: dict[str, tuple[int, ...]] = {text: CARD_IDS[Card.parse(text)] for text in set(NOTATION)}
#: Hands are public at the end: the showdown and an Ascension show them to all.
END_EVENTS = {"showdown", "ascension", "game_end"}
TRAP_GONE = {"trap_triggered", "trap_expired", "trap_destroyed", "trap_cleared"}

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None,
                             suppress_health_check=[HealthCheck.too_slow])

seeds = st.integers(min_value=0, max_value=2**32 - 1)
player_counts = st.integers(min_value=2, max_value=5)
#: every combination of the house rules' readings
house_rules = st.builds(HouseRules, **{name: st.sampled_from(choices)
                                       for name, choices in RULE_CHOICES.items()})


def strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from strings(value)
    elif isinstance(obj, list | tuple):
        for value in obj:
            yield from strings(value)


def hidden_from(state: State, seat: int) -> set[int]:
    """Cards another seat holds hidden from ``seat``: unrevealed hand cards and traps."""
    hidden: set[int] = set()
    for other in range(state.n):
        if other != seat:
            revealed = state.revealed[other]
            hidden.update(c for c in state.hands[other] if c not in revealed)
            hidden.update(t.card for t in state.traps[other])
    return hidden


def missed_ascension(state: State) -> int | None:
    """A contending seat holding five natural Gods it may count while the game goes on."""
    if state.result is not None or state.ascended is not None:
        return None
    for seat, hand in enumerate(state.hands):
        if (len(hand) == 5 and seat not in state.forfeits
                and all(KIND_OF[c] == Kind.GOD for c in hand)
                and state.used[seat].isdisjoint(hand)):
            return seat
    return None


def zones_of(state: State) -> dict[int, str]:
    """Where every card is: ``hand S``, ``trap S``, ``draw_pile``, a graveyard or ``limbo``."""
    zones = {card: f"hand {seat}" for seat, cards in enumerate(state.hands) for card in cards}
    zones.update((trap.card, f"trap {seat}") for seat, traps in enumerate(state.traps)
                 for trap in traps)
    for zone in ("draw_pile", "effect_graveyard", "discard_graveyard", "limbo"):
        zones.update((card, zone) for card in getattr(state, zone))
    return zones


def shown_end(event: dict[str, Any], seat: int) -> dict[str, Any]:
    """An event as ``seat`` is told it: an Ascension's game_end names the categories of the
    seat's own hand and the ascender's only, the hands shown (E31)."""
    if event["type"] != "game_end" or not event["ascension"]:
        return event
    winner = event["placements"].index(1)
    return {**event, "desmos": [d if s in (seat, winner) else None
                                for s, d in enumerate(event["desmos"])]}


def audience(state: State, to: int | None) -> list[int]:
    if to is None:
        return list(range(state.n))
    if to >= 0:
        return [to]
    return [seat for seat in range(state.n) if seat != ~to]


class Watch:
    """Checks one game's invariants as it is played (see the module docstring).

    It reads the append-only ``state.log`` at every step boundary and every decision, so an
    event is judged against the state just before and just after the step that logged it.
    """

    def __init__(self, state: State) -> None:
        self.state = state
        self.steps = 0
        self.turns_seen = 0
        self.logged = 0
        self.before = [hidden_from(state, seat) for seat in range(state.n)]
        #: id(trap) -> [trap, owner, owner's completed turns when set, gone?]
        self.traps: dict[int, list[Any]] = {}
        self.leaks: list[tuple[int, dict[str, Any]]] = []
        self.last_peek: list[set[str]] = [set() for _ in range(state.n)]
        self.public_reveals: list[set[tuple[int, str]]] = [set() for _ in range(state.n)]
        self.zones: dict[int, str] | None = None  # where each card was at the last reading
        self.announced: Counter[str] = Counter()  # effects announced, not yet in a graveyard
        self.forced_gods: Counter[tuple[int, str]] = Counter()  # (seat, God) yet to fire
        state.step_hook = lambda _state: self.at_step()

    # ------------------------------------------------------------------ every step
    def at_step(self) -> None:
        state = self.state
        self.steps += 1
        if state.phase == "deal":  # before the shuffle: no card is anywhere yet
            return
        self.read_log()
        assert state.card_count() == 52
        assert sorted(state.all_cards()) == list(range(52))
        assert all(len(traps) <= MAX_TRAPS for traps in state.traps), state.traps
        assert all(PALAESTRON not in h for h in state.hands)
        assert all(len(h) <= 6 for h in state.hands), state.hands  # E7
        assert missed_ascension(state) is None, state
        # E4: the pile is rebuilt the moment it empties, so it is never empty while a
        # graveyard holds a card; and hands, Arenas and resolving cards never hold more than
        # 41 cards, so it is never empty at all (E5)
        assert state.draw_pile or not (state.effect_graveyard or state.discard_graveyard)
        assert len(state.draw_pile) + len(state.effect_graveyard) + len(
            state.discard_graveyard) >= 11 and state.draw_pile
        for trap, owner, set_at, gone in self.traps.values():
            if not gone:
                assert trap in state.traps[owner], f"{trap} left seat {owner} without an event"
                assert state.own_turns[owner] - set_at < 3, f"{trap} outlived its lifetime"
        if len(state.turn_log) != self.turns_seen:
            assert len(state.turn_log) == self.turns_seen + 1
            self.turns_seen += 1
            record = state.turn_log[-1]
            assert record["hand_size_after"] == 5
            assert [len(h) for h in state.hands] == [5] * state.n
            assert record["traps_after"] == [len(t) for t in state.traps]
            assert record["action"] in ("hold", "play", "trap")
        self.before = [hidden_from(state, seat) for seat in range(state.n)]

    # ------------------------------------------------------------------ every event
    def read_log(self) -> None:
        state = self.state
        log = state.log
        batch = log[self.logged:]
        for to, event in batch:
            self.judge(to, event)
        self.logged = len(log)
        self.check_roads(batch)

    def check_roads(self, batch: list[tuple[int | None, dict[str, Any]]]) -> None:
        """Every card moved since the last reading took its road (Ruling 6, Forced Discards),
        judged from the moves and the events that told them."""
        state = self.state
        kinds = {event["type"] for _, event in batch}
        for to, event in batch:
            kind = event["type"]
            if kind == "forced_discard":
                assert to is None, f"a forced discard is revealed to everyone: {event}"
                if event["card"].startswith("God-"):
                    self.forced_gods[event["seat"], event["card"]] += 1
            elif kind == "palaestron":
                self.announced["Palaestron"] += 1
            elif kind == "effect":
                self.announced[event["card"]] += 1
                if event["how"] == "discarded":  # only a God fires, for whoever discarded it
                    key = (event["seat"], event["card"])
                    assert self.forced_gods[key] > 0, f"{event} fired without a forced discard"
                    self.forced_gods[key] -= 1
        now = zones_of(state)
        before, self.zones = self.zones, now
        if before is None:
            return
        moves = [(card, before[card], zone) for card, zone in now.items()
                 if before[card] != zone]
        for card, was, zone in moves:
            name = NOTATION[card]
            if zone == "effect_graveyard":
                assert was == "limbo" and self.announced[name] > 0, (name, was, batch)
                self.announced[name] -= 1
            if was == "effect_graveyard":
                assert zone == "draw_pile" and "reshuffle" in kinds, (name, zone, batch)
            if card == PALAESTRON and was == "draw_pile":  # drawn: played at once; or burned
                assert (zone == "limbo" and "palaestron" in kinds) or (
                    zone == "discard_graveyard" and "burn" in kinds), (zone, batch)
        if "reshuffle" in kinds:  # both graveyards, whole
            assert not (state.effect_graveyard or state.discard_graveyard), batch
            assert all(now[card] == "draw_pile" for card, was in before.items()
                       if was in ("effect_graveyard", "discard_graveyard")), batch
        for _, event in batch:
            if event["type"] == "forced_discard":
                road = "limbo" if event["card"].startswith("God-") else "discard_graveyard"
                assert any(NOTATION[card] == event["card"] and was == f"hand {event['seat']}"
                           and zone in (road, "draw_pile") for card, was, zone in moves), \
                    (event, moves)

    def judge(self, to: int | None, event: dict[str, Any]) -> None:
        state = self.state
        kind = event["type"]
        seats = audience(state, to)
        # content: no hidden card of another seat, unless the seat took part
        if kind not in END_EVENTS:
            for seat in seats:
                if to == seat and seat in (event.get("seat"), event.get("target")):
                    continue
                now = hidden_from(state, seat)
                for text in strings(event):
                    ids = IDS.get(text)
                    if ids and all(c in now and c in self.before[seat] for c in ids):
                        self.leaks.append((seat, dict(event)))
        if kind == "peek" and to is not None and to >= 0:
            self.last_peek[to] = set(event["cards"])
        if kind in ("reveal", "reveal_hand") and to is None:
            shown = event["cards"] if kind == "reveal_hand" else [event["card"]]
            for seat in seats:
                self.public_reveals[seat].update((event["seat"], text) for text in shown)
        if kind == "set_trap" and to is not None and to >= 0:
            owner = event["seat"]
            trap: Trap = state.traps[owner][-1]
            assert NOTATION[trap.card] == event["card"]
            self.traps[id(trap)] = [trap, owner, state.own_turns[owner], False]
        if kind in TRAP_GONE:
            owner = event["seat"]
            vanished = [entry for entry in self.traps.values()
                        if entry[1] == owner and not entry[3]
                        and entry[0] not in state.traps[owner]
                        and NOTATION[entry[0].card] == event["card"]]
            assert vanished, f"{event} names no trap that left"
            entry = vanished[0]
            if kind == "trap_expired":
                # exactly at the end of the owner's second turn after the one it was set in
                assert state.own_turns[owner] == entry[2] + 3, (event, entry)
            entry[3] = True

    # ------------------------------------------------------------------ every decision
    def at_decision(self) -> None:
        state = self.state
        self.read_log()
        decision = state.decision
        assert decision is not None
        assert decision.options, "a decision always has options"
        assert 0 <= decision.seat < state.n
        assert decision.kind in DECISION_KINDS
        assert state.draw_pile or not (state.effect_graveyard or state.discard_graveyard)
        assert missed_ascension(state) is None, state
        json.dumps(decision.to_json())
        # the safe default comes first: hold, no swap, no trigger, any "pass" option
        options = decision.options
        safe = {"turn": {"action": "hold"}, "swap": {"swap": None}, "trigger": {"trap": None}}
        if decision.kind in safe:
            assert options[0] == safe[decision.kind]
        passes = [i for i, o in enumerate(options) if any(v is None for v in o.values())]
        assert passes in ([], [0]), decision
        # copies of a card are one option: no two options alike
        assert len({json.dumps(o, sort_keys=True) for o in options}) == len(options), decision
        if decision.kind == "rps":
            assert state.phase == "showdown"
        if decision.kind in ("turn", "swap", "rps"):  # between effects: every hand is whole
            assert [len(h) for h in state.hands] == [5] * state.n, (decision, state)
        if decision.kind == "reveal":  # a reveal must show a card not yet revealed (E16)
            chooser = decision.seat
            hidden_names = {NOTATION[c] for c in state.hands[chooser]
                            if c not in state.revealed[chooser]}
            assert {o["card"] for o in options} <= hidden_names, decision
        for seat in range(state.n):
            view = state.observe(seat)
            assert view.hand_ids == tuple(state.hands[seat])
            assert [c for c, _, _ in view.trap_cards] == [t.card for t in state.traps[seat]]
            assert view.hand_sizes == tuple(len(h) for h in state.hands)
            assert view.trap_counts == tuple(len(t) for t in state.traps)
            assert view.draw_pile == len(state.draw_pile)
            for other in range(state.n):
                shown = set(view.revealed_ids[other])
                assert shown == state.revealed[other] and shown <= set(state.hands[other])
                if other != seat:
                    for card in shown:
                        assert (other, NOTATION[card]) in self.public_reveals[seat]
            data = view.to_json(include_events=True)
            events = data.pop("events")
            # exactly the logged events this seat is in the audience of, in order
            assert events == [e for to, e in state.log if seat in audience(state, to)]
            # the rest of the view: own hand and traps, revealed cards, graveyards only
            listed = sorted(strings([data["hand"], data["traps"], data["revealed"],
                                     data["effect_graveyard"], data["discard_graveyard"]]))
            allowed = sorted(
                [NOTATION[c] for c in state.hands[seat]]
                + [NOTATION[t.card] for t in state.traps[seat]]
                + [NOTATION[c] for r in state.revealed for c in r]
                + [NOTATION[c] for c in state.effect_graveyard + state.discard_graveyard]
            )
            assert [s for s in listed if s in IDS] == allowed
            hidden = hidden_from(state, seat)
            text = set(strings(data))
            for card in hidden:
                if all(c in hidden for c in IDS[NOTATION[card]]):
                    assert NOTATION[card] not in text, f"seat {seat} sees {NOTATION[card]}"
        # the chooser's options name no card hidden from it, except a hand it just peeked at
        hidden = hidden_from(state, decision.seat)
        for text in strings(list(decision.options)):
            ids = IDS.get(text)
            if ids and all(c in hidden for c in ids):
                assert text in self.last_peek[decision.seat], (decision, text)
        self.before = [hidden_from(state, seat) for seat in range(state.n)]

    def at_end(self) -> None:
        state = self.state
        self.read_log()
        assert state.result is not None and state.decision is None
        assert not self.leaks, f"hidden cards reached other seats: {self.leaks[:3]}"
        for seat in range(state.n):
            expected = [shown_end(e, seat) for to, e in state.log
                        if seat in audience(state, to)]
            assert state.events_for(seat) == expected
            assert state.observe(seat).events == expected
        assert all(PALAESTRON not in h for h in state.hands)
        if state.result.ascension:  # five natural Gods, none of them used (reclaim=strict)
            winner = state.result.placements.index(1)
            hand = state.hands[winner]
            assert len(hand) == 5 and all(KIND_OF[c] == Kind.GOD for c in hand), hand
            assert state.used[winner].isdisjoint(hand)
        else:  # every announced effect reached the Effect Graveyard, every forced God fired
            assert not +self.announced and not +self.forced_gods, (self.announced,
                                                                   self.forced_gods)


def watched_game(seed: int, players: int, agent_seed: int,
                 rules: HouseRules | None = None) -> tuple[State, Watch]:
    """A game with random legal choices (from ``agent_seed``), watched at every step."""
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                        starting_seat=seed % players, rules=rules or HouseRules())
    state = State(config)
    watch = Watch(state)
    state.push(begin_game)
    state.run()
    return state, play_watched(state, watch, agent_seed)


def play_watched(state: State, watch: Watch, agent_seed: int) -> Watch:
    """Play ``state`` out with random legal choices, checking the invariants throughout."""
    choose = random.Random(agent_seed)
    while state.decision is not None:
        watch.at_decision()
        state.apply(choose.randrange(len(state.decision.options)))
    watch.at_end()
    return watch


def plain_game(seed: int, players: int, agent_seed: int, forfeit: tuple[int, int] | None = None
               ) -> State:
    """The same game through the public API (``new_game``), optionally with a forfeit at
    decision ``forfeit[0]`` of seat ``forfeit[1]`` (which then plays safe defaults)."""
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                        starting_seat=seed % players)
    state = new_game(config)
    choose = random.Random(agent_seed)
    number = 0
    while state.decision is not None:
        if forfeit is not None and number == forfeit[0]:
            state.forfeit(forfeit[1], "test forfeit")
        index = choose.randrange(len(state.decision.options))
        state.apply(0 if state.decision.seat in state.forfeits else index)
        number += 1
    return state


@PROPERTY_SETTINGS
@given(seed=seeds, players=player_counts, agent_seed=seeds)
def test_invariants_at_every_step(seed: int, players: int, agent_seed: int) -> None:
    state, watch = watched_game(seed, players, agent_seed)
    assert watch.steps > 0
    # rounds by player count: every seat had its turns, unless an Ascension ended the game
    assert state.result is not None
    if state.result.ascension:
        assert len(state.turn_log) <= rounds_for(players) * players
    else:
        assert len(state.turn_log) == rounds_for(players) * players
        assert state.round == rounds_for(players) + 1
    # exactly one first place: ties for first are always settled (book, RPS, lot)
    assert state.result.placements.count(1) == 1
    assert max(state.result.placements) <= players


@settings(PROPERTY_SETTINGS, max_examples=30)
@given(seed=seeds, players=player_counts, agent_seed=seeds, rules=house_rules)
def test_invariants_at_every_step_under_every_house_rule(seed: int, players: int,
                                                         agent_seed: int,
                                                         rules: HouseRules) -> None:
    state, _ = watched_game(seed, players, agent_seed, rules)
    assert state.result is not None and state.result.placements.count(1) == 1


@settings(PROPERTY_SETTINGS, max_examples=40)
@given(seed=seeds, players=player_counts, agent_seed=seeds, rules=house_rules,
       used=st.integers(0, 7))
def test_invariants_in_games_rich_in_gods(seed: int, players: int, agent_seed: int,
                                          rules: HouseRules, used: int) -> None:
    """Four Gods in seat 0's hand and the other three near the top of the pile, so that
    Ascensions (and, under reclaim=strict, used Gods drawn back) are common, not one game in
    thousands: none is ever missed, and every other invariant holds."""
    deck = random.Random(seed)
    gods = [f"God-{r}" for r in range(1, 8)]
    deck.shuffle(gods)
    others = [NOTATION[c] for c in range(52) if c != PALAESTRON and KIND_OF[c] != Kind.GOD]
    deck.shuffle(others)
    hands = [" ".join(gods[:4] + others[:1])]
    hands += [" ".join(others[1 + 5 * k:6 + 5 * k]) for k in range(players - 1)]
    rest = others[5 * players - 4:]
    top = gods[4:] + rest[:6]  # the last three Gods among the first nine cards drawn
    below = rest[6:] + ["Palaestron"]
    deck.shuffle(top)
    deck.shuffle(below)
    pile = top + below
    state = build_state(hands, pile_top=pile, seed=seed, rules=rules.to_json(), start=False)
    if state.strict_reclaim and used < 7:  # one God seat 0 holds or will draw: used before
        state.used[0].update(CARD_IDS[Card.parse(gods[used])])
    watch = Watch(state)
    state.push(start_turn)
    state.run()
    play_watched(state, watch, agent_seed)
    assert state.result is not None and state.result.placements.count(1) == 1


@settings(PROPERTY_SETTINGS, max_examples=15)
@given(seed=seeds, players=player_counts, agent_seed=seeds)
def test_the_watched_game_is_the_public_api_game(seed: int, players: int,
                                                 agent_seed: int) -> None:
    # the instrumentation changes nothing: same record as an unwatched game
    watched, _ = watched_game(seed, players, agent_seed)
    assert watched.record() == plain_game(seed, players, agent_seed).record()


@settings(max_examples=40, deadline=None)
@given(seed=seeds, players=player_counts, agent_seed=seeds,
       forfeit=st.none() | st.tuples(st.integers(0, 60), st.integers(0, 4)))
def test_determinism_and_replay(seed: int, players: int, agent_seed: int,
                                forfeit: tuple[int, int] | None) -> None:
    if forfeit is not None:
        forfeit = (forfeit[0], forfeit[1] % players)
    first = plain_game(seed, players, agent_seed, forfeit)
    second = plain_game(seed, players, agent_seed, forfeit)
    record = first.record()
    assert json.dumps(record, sort_keys=True) == json.dumps(second.record(), sort_keys=True)
    # replay from the JSON text reproduces the whole record
    again = replay(json.loads(json.dumps(record)))
    assert again.record() == record
    assert again.result is not None and first.result is not None
    assert again.result.to_json() == first.result.to_json()
    if forfeit is not None and forfeit[1] in first.forfeits:
        # a forfeited seat is placed last and someone else is first
        placements = first.result.placements
        assert placements[forfeit[1]] == players and placements.count(1) == 1


@settings(max_examples=25, deadline=None)
@given(seed=seeds, players=player_counts)
def test_clones_play_on_identically(seed: int, players: int) -> None:
    # a clone taken mid-game (what search bots rely on) continues exactly like the original
    state = plain_game_until(seed, players, stop=seed % 40)
    if state.decision is None:
        return
    twin = state.clone()
    choose = random.Random(seed)
    while state.decision is not None:
        assert twin.decision == state.decision
        index = choose.randrange(len(state.decision.options))
        state.apply(index)
        twin.apply(index)
    assert twin.result is not None and state.result is not None
    assert twin.result.to_json() == state.result.to_json()
    assert twin.hands == state.hands and twin.turn_log == state.turn_log


@settings(max_examples=25, deadline=None)
@given(seed=seeds, players=player_counts)
def test_a_deep_copy_plays_on_alike_with_its_events(seed: int, players: int) -> None:
    # copy.deepcopy (PettingZoo and OpenSpiel copy environments so), compiled or not
    state = plain_game_until(seed, players, stop=seed % 40)
    twin = copy.deepcopy(state)
    choose = random.Random(seed)
    while state.decision is not None:
        assert twin.decision == state.decision
        index = choose.randrange(len(state.decision.options))
        state.apply(index)
        twin.apply(index)
    assert twin.record() == state.record()
    assert [twin.events_for(s) for s in range(players)] == [
        state.events_for(s) for s in range(players)]


def plain_game_until(seed: int, players: int, stop: int) -> State:
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed)
    state = new_game(config)
    choose = random.Random(seed ^ 0x5EED)
    for _ in range(stop):
        if state.decision is None:
            break
        state.apply(choose.randrange(len(state.decision.options)))
    return state


@settings(PROPERTY_SETTINGS, max_examples=40)
@given(seed=seeds, players=st.integers(min_value=4, max_value=5), agent_seed=seeds)
def test_the_pile_is_empty_only_with_both_graveyards_empty(seed: int, players: int,
                                                           agent_seed: int) -> None:
    """E4 after every applied decision, at the table sizes that recycle the pile; every card
    in exactly one place throughout."""
    state = plain_game_until(seed, players, 0)
    choose = random.Random(agent_seed)
    while state.decision is not None:
        state.apply(choose.randrange(len(state.decision.options)))
        assert state.draw_pile or not (state.effect_graveyard or state.discard_graveyard)
        assert sorted(state.all_cards()) == list(range(52))
