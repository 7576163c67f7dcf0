"""Telling a game record for people (``arena.engine.narration``): every event the engine
emits has a sentence, a seat's telling names no card that seat was not shown, and the whole
game's telling keeps every private card once."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import EFFECTS, GameConfig, RandomAgent, new_game, play_game
from arena.engine.cards import NOTATION
from arena.engine.houserules import HouseRules
from arena.engine.narration import event_lines, event_sentence, header_lines, narrate, sees

_CARD = re.compile(r"\b(?:God|Agari|Umbrae|Arcoi|Sophoi|Fate|Beast)-\d\b|\bCrown\b")


def _record(players: int, seed: int) -> dict[str, Any]:
    names = tuple(f"p{i}" for i in range(players))
    state = play_game(GameConfig(players=names, seed=seed),
                      [RandomAgent(seed * 10 + i) for i in range(players)])
    return json.loads(json.dumps(state.record()))


def _cards(text: str) -> Counter[str]:
    """Cards named in ``text``, not counting effect names (``Crown (Crown, Royal Favour)``)."""
    for effect in EFFECTS.values():
        text = text.replace(f"({effect.name})", "")
    return Counter(_CARD.findall(text))


@pytest.mark.parametrize("audience, seat, shown", [
    ("all", 0, True), ("all", 4, True), (2, 2, True), (2, 1, False), ("all_but:1", 1, False),
    ("all_but:1", 0, True), ("all_but:1", 3, True), (True, 1, False), ("nobody", 0, False),
    (None, 0, False),
])
def test_sees_follows_the_recorded_audience(audience: Any, seat: int, shown: bool) -> None:
    assert sees(audience, seat) is shown


def test_every_event_type_the_engine_emits_has_a_sentence() -> None:
    """A fallback line (``type: key=value``) means an event type the narration lacks."""
    seen: set[str] = set()
    # the test only means something if it meets the rare types too (a tie settled by
    # Rock-Paper-Scissors comes about once in 250 random games): play on until it has
    rare = {"palaestron", "exchange", "give", "peek_traps", "reshuffle", "rps", "updraft"}
    for players in range(2, 6):
        for seed in range(400):
            if seed >= 60 and rare <= seen:
                break
            record = _record(players, seed)
            seen.update(e["type"] for e in record["events"])
            for line in narrate(record):
                assert not re.search(r"^\s*\w+: \w+=", line), line
    assert rare <= seen


def _palaestron_lines(record: dict[str, Any], seat: int | None = None) -> list[str]:
    return [line.strip() for line in event_lines(record, seat) if " the Palaestron" in line]


def test_a_palaestron_dealt_is_told_as_dealt_not_drawn() -> None:
    config = GameConfig(players=("a", "b"), seed=10, starting_seat=0)  # deals the Palaestron
    dealt = [e for _, e in new_game(config).log if e["type"] == "palaestron"]
    assert dealt, "seed 10 no longer deals the Palaestron: pick another"
    holder = "ab"[dealt[0]["seat"]]
    state = play_game(config, [RandomAgent(1), RandomAgent(2)])
    record = json.loads(json.dumps(state.record()))
    told = f"{holder} was dealt the Palaestron: it is played now that every hand is dealt"
    assert _palaestron_lines(record)[0] == told
    assert [_palaestron_lines(record, seat)[0] for seat in (0, 1)] == [told, told]
    feed = state.feed(0)
    at = next(i for i, e in enumerate(feed) if e["type"] == "palaestron")
    assert event_sentence(feed[at], ["a", "b"], feed[:at]) == told


def test_a_palaestron_drawn_in_a_turn_is_told_as_drawn() -> None:
    config = GameConfig(players=("a", "b"), seed=7, starting_seat=0, track_events=True)
    state = play_game(config, [RandomAgent(1), RandomAgent(2)])
    feed = state.feed(0)
    drawn = [i for i, e in enumerate(feed) if e["type"] == "palaestron" and e["turn"] > 0]
    assert drawn, "seed 7 no longer draws the Palaestron in a turn: pick another"
    event = feed[drawn[0]]
    told = f"{'ab'[event['seat']]} draws the Palaestron"
    record = json.loads(json.dumps(state.record()))
    assert told in _palaestron_lines(record) and told in _palaestron_lines(record, 0)
    assert event_sentence(event, ["a", "b"], feed[:drawn[0]]) == told
    assert event_sentence(event, ["a", "b"]) == told  # no feed: the usual case


def test_a_reshuffle_is_told_as_both_graveyards_shuffled() -> None:
    record = {"players": ["a", "b"], "events": [{"to": "all", "type": "reshuffle",
                                                  "cards": 12, "turn": 3}]}
    told = "\n".join(event_lines(record, None))
    assert "Both graveyards are shuffled together into a new draw pile of 12 cards" in told


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**40), data=st.data())
def test_a_seat_is_told_no_card_it_was_not_shown(players: int, seed: int,
                                                  data: st.DataObject) -> None:
    """The cards a seat's telling names, counted, are within what its feed names, and
    the events it tells are exactly its feed."""
    record = _record(players, seed)
    seat = data.draw(st.integers(0, players - 1))
    feed = [e for e in record["events"] if sees(e["to"], seat)]
    shown = _cards(json.dumps(feed))
    told = event_lines(record, seat)
    assert not _cards("\n".join(told)) - shown
    told_events = [line for line in told if line != "Deal"]
    assert len(told_events) == sum(1 for e in feed if e["type"] != "game_start")


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**40))
def test_the_whole_game_tells_every_private_card_once(players: int, seed: int) -> None:
    record = _record(players, seed)
    names = record["players"]
    drawn = Counter((names[e["seat"]], e["card"]) for e in record["events"]
                    if e["type"] == "draw" and "card" in e)
    told = Counter()
    for line in event_lines(record):
        match = re.fullmatch(r"  (\S+) draws (\S+)  \[seen by (\S+)\]", line)
        if match:
            assert match[1] == match[3]  # a private draw is seen by its drawer
            told[(match[1], match[2])] += 1
    assert told == drawn
    public_draws = sum(1 for e in record["events"] if e["type"] == "draw" and "card" not in e)
    assert public_draws == sum(drawn.values())  # each draw has its public half...
    assert not any(line.endswith("draws a card") for line in event_lines(record))  # ...merged


def test_the_header_gives_places_and_categories() -> None:
    record = _record(3, 7)
    header = header_lines(record)
    result = record["result"]
    assert header[0] == (f"3 players, {record['rounds']} rounds, game seed {record['seed']}; "
                         f"{record['players'][record['starting_seat']]} starts")
    assert header[1] == "  house rules: the defaults"
    for seat in range(3):
        place = result["placements"][seat]
        suffix = {1: "st", 2: "nd", 3: "rd"}[place]
        assert header[2 + seat] == (f"  seat {seat}  p{seat}: {place}{suffix}, "
                                    f"{result['desmos'][seat]}")
    seat_header = header_lines(record, 2)
    assert seat_header[-1] == "As seat 2 (p2) saw it:"
    assert seat_header[0] == (f"3 players, {record['rounds']} rounds; "
                              f"{record['players'][record['starting_seat']]} starts")  # no seed
    with pytest.raises(ValueError, match=r"seat 3 is not in this game \(seats 0-2\)"):
        narrate(record, 3)


def test_the_header_names_the_house_rules_of_the_record() -> None:
    record = _record(2, 1)
    record["config"]["rules"]["kinds"] = "family"
    assert header_lines(record)[1] == "  house rules: kinds=family"
    del record["config"]["rules"]
    assert header_lines(record)[1] == ("  house rules: not recorded (the rules of the record's "
                                       "format)")


def test_turns_start_unindented_and_the_deal_comes_first() -> None:
    record = _record(2, 3)
    lines = event_lines(record)
    assert lines[0] == "Deal"
    starts = [line for line in lines if line.startswith("Round ")]
    assert len(starts) == len(record["turns"]) + (1 if record["result"]["ascension"] else 0)
    assert lines[-1].startswith("Game over: ")


def test_unknown_and_malformed_events_are_shown_field_by_field() -> None:
    record = _record(2, 1)
    record["events"] = [
        {"to": "all", "type": "turn_start", "seat": 0, "round": 1, "turn": 0},
        {"to": "all", "type": "comet", "seat": 1, "tail": "long", "turn": 0},
        {"to": "all", "type": "play", "turn": 0},  # no seat, no card
    ]
    assert event_lines(record) == ["Round 1: p0's turn", "  comet: seat=1, tail=long",
                                   "  play"]


def test_a_record_without_events_is_told_by_its_turns() -> None:
    record = _record(2, 5)
    record["events"] = []
    lines = event_lines(record)
    assert lines[0] == "(the record holds no events; its turns:)"
    assert len(lines) == 1 + len(record["turns"])
    first = record["turns"][0]
    assert lines[1].startswith(f"Round 1: p{first['seat']} ")
    traps = [(n, t) for n, t in enumerate(record["turns"]) if t["action"] == "trap"]
    assert traps
    for seat in (0, 1):
        told = event_lines(record, seat)
        for n, turn in traps:
            mine = turn["seat"] == seat
            expected = f"sets a trap ({turn['card']})" if mine else "sets a trap face down"
            assert expected in told[1 + n] and (mine or turn["card"] not in told[1 + n])


def test_effects_are_named_when_played() -> None:
    record = _record(2, 11)
    plays = [e for e in record["events"] if e["type"] == "play"]
    assert plays
    line = next(line for line in event_lines(record) if " plays " in line)
    assert re.fullmatch(r"  p\d plays (\S+) \(.+\)", line) or "Palaestron" in line
    assert set(NOTATION) >= {e["card"] for e in plays}


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 60) | st.text(max_size=6),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 50), where=st.data())
def test_telling_a_damaged_record_never_fails(seed: int, where: st.DataObject) -> None:
    """A record with any field or event field replaced by any JSON value is still told
    (a file may hold anything; ``arena game`` must not answer with a traceback)."""
    record = _record(2, seed)
    for _ in range(3):
        if isinstance(record.get("result"), dict) and record["result"] \
                and where.draw(st.booleans()):
            result = record["result"]
            result[where.draw(st.sampled_from(sorted(result)))] = where.draw(_JSON)
        elif where.draw(st.booleans()):
            key = where.draw(st.sampled_from(["result", "turns", "events", "rounds", "seed",
                                              "starting_seat"]))
            record[key] = where.draw(_JSON)
        elif isinstance(record.get("events"), list) and record["events"]:
            event = where.draw(st.sampled_from(record["events"]))
            if isinstance(event, dict) and event:
                event[where.draw(st.sampled_from(sorted(event)))] = where.draw(_JSON)
        turns = record.get("turns")
        if isinstance(turns, list) and turns and isinstance(turns[0], dict) and turns[0]:
            turns[0][where.draw(st.sampled_from(sorted(turns[0])))] = where.draw(_JSON)
    narrate(record)
    narrate(record, 1)


def test_a_game_every_seat_forfeited_names_no_first_place() -> None:
    state = new_game(GameConfig(players=("a", "b"), seed=3, starting_seat=0))
    state.forfeit(0, "timeout")
    state.forfeit(1, "crash")
    while state.decision is not None:
        state.apply(0)
    header = header_lines(json.loads(json.dumps(state.record())))
    assert "  seat 0  a: 2nd, " in "\n".join(header) and "  seat 1  b: 2nd, " in "\n".join(header)
    assert header[-1] == "  first place: nobody (every seat forfeited; all are placed last)"
    assert state.result is not None and state.result.placements == [1, 1]
    assert state.result.winners == []
    one = new_game(GameConfig(players=("a", "b"), seed=3, starting_seat=0))
    one.forfeit(0, "timeout")
    while one.decision is not None:
        one.apply(0)
    assert header_lines(json.loads(json.dumps(one.record())))[-1] == "  first place: no tie"


@pytest.mark.parametrize("face", sorted(EFFECTS))
def test_a_card_played_is_named_without_brackets_in_brackets(face: str) -> None:
    # a Beast read "greedy plays Beast-5 (Phoenix (Aether), Rebirth)"
    sentence = event_sentence({"type": "play", "seat": 0, "card": face, "to": "all"},
                              ["greedy", "alice"])
    named = sentence.split(f"{face} (", 1)[1]
    assert "(" not in named.split(")", 1)[0], sentence


def test_a_discard_an_effect_asked_for_names_its_card_after_by() -> None:
    """Clotho's discard read "discards Umbrae-4 (Fate-1)", unlike every other line that
    tells what made it so (docs/PLAY.md)."""
    event = {"type": "discard", "seat": 1, "card": "Umbrae-4", "why": "Fate-1", "turn": 2}
    assert event_sentence(event, ["a", "b"]) == "b discards Umbrae-4 (by Fate-1)"
    swap = dict(event, why="swap")
    assert event_sentence(swap, ["a", "b"]) == "b discards Umbrae-4 to swap"


def test_under_strict_reclaim_the_header_names_the_cards_a_hand_does_not_count() -> None:
    # seat 0 ends with God-1, God-6, Arcoi-2, Fate-3, Fate-4 and scores a Pair: the God-1 it
    # had played does not count under reclaim=strict, and the Showdown line shows the hand
    config = GameConfig(players=("p0", "p1", "p2", "p3"), seed=5,
                        rules=HouseRules(reclaim="strict"))
    state = play_game(config, [RandomAgent(50 + seat) for seat in range(4)])
    record = json.loads(json.dumps(state.record()))
    header = header_lines(record)
    assert "  seat 0  p0: 2nd, Pair; God-1 not counted (used for an effect, " \
           "reclaim=strict)" in header
    assert "  seat 3  p3: 1st, Triplet" in header  # nothing it used is in its hand
    default = dict(record, config=dict(record["config"], rules={}))
    assert not any("not counted" in line for line in header_lines(default))


def test_a_pile_exchange_and_a_phoenix_name_their_cards_to_their_player_only() -> None:
    """Their player's telling said only "exchanges a card with the draw pile" and "puts a card
    on top", though the player chose both cards."""
    events = [
        {"to": 0, "type": "pile_exchange", "seat": 0, "source": "God-4", "took": "Fate-1",
         "gave": "Agari-2", "turn": 0},
        {"to": "all_but:0", "type": "pile_exchange", "seat": 0, "source": "God-4", "turn": 0},
        {"to": 1, "type": "return_to_pile", "seat": 1, "source": "Beast-5", "card": "God-7",
         "turn": 1},
        {"to": "all_but:1", "type": "return_to_pile", "seat": 1, "source": "Beast-5",
         "turn": 1},
    ]
    record = {"players": ["a", "b"], "events": events}
    took = "a takes Fate-1 from the draw pile and puts Agari-2 in its place (by God-4)"
    put = "b puts God-7 on top of the draw pile (by Beast-5)"
    assert [line.strip() for line in event_lines(record, 0)[1:]] == [
        took, "b puts a card on top of the draw pile (by Beast-5)"]
    assert [line.strip() for line in event_lines(record, 1)[1:]] == [
        "a exchanges a card with the draw pile (by God-4)", put]
    assert [line.strip() for line in event_lines(record)[1:]] == [
        f"{took}  [seen by a]", f"{put}  [seen by b]"]


def test_a_trap_destroyed_names_the_card_that_destroyed_it() -> None:
    """"b's trap God-7 is destroyed" lacked the "(by Arcoi-3)" every other effect's line has."""
    event = {"type": "trap_destroyed", "seat": 1, "card": "God-7", "slot": 0,
             "source": "Arcoi-3", "turn": 2}
    assert event_sentence(event, ["a", "b"]) == "b's trap God-7 is destroyed (by Arcoi-3)"
    expired = {"type": "trap_expired", "seat": 1, "card": "God-7", "slot": 0, "turn": 2}
    assert event_sentence(expired, ["a", "b"]) == "b's trap God-7 expires"
    cleared = {"type": "trap_cleared", "seat": 0, "card": "Fate-2", "slot": 1,
               "source": "Palaestron", "turn": 3}
    assert event_sentence(cleared, ["a", "b"]) == \
        "a's trap Fate-2 is cleared away (by Palaestron)"


def test_an_exchange_that_took_the_farther_copy_says_its_place() -> None:
    """Two copies of a card apart in the Discard Graveyard: the telling did not say which one
    Hades took, so the graveyard's order could not be followed (RULES.md E26)."""
    event = {"type": "graveyard_exchange", "seat": 0, "source": "God-2", "took": "Fate-3",
             "gave": "Agari-1", "depth": 3, "turn": 4}
    assert event_sentence(event, ["a", "b"]) == (
        "a takes Fate-3 (3rd from the top) from the Discard Graveyard and leaves Agari-1 "
        "(by God-2)")
    nearest = {key: value for key, value in event.items() if key != "depth"}
    assert event_sentence(nearest, ["a", "b"]) == (
        "a takes Fate-3 from the Discard Graveyard and leaves Agari-1 (by God-2)")
    pile = dict(event, type="pile_exchange", source="God-4", depth=2)
    assert event_sentence(pile, ["a", "b"]) == (
        "a takes Fate-3 (2nd from the top) from the draw pile and puts Agari-1 in its place "
        "(by God-4)")


def test_a_revealed_card_going_face_down_is_named_to_the_others() -> None:
    """The others' half of a trap set, a Phoenix and a pile exchange names a card that was
    revealed before it moved (RULES.md E23)."""
    players = ["a", "b"]
    trap = {"type": "set_trap", "seat": 0, "card": "God-3", "turn": 0}
    assert event_sentence(trap, players) == "a sets God-3 as a trap"
    put = {"type": "return_to_pile", "seat": 1, "source": "Beast-5", "card": "God-7", "turn": 1}
    assert event_sentence(put, players) == "b puts God-7 on top of the draw pile (by Beast-5)"
    given = {"type": "pile_exchange", "seat": 0, "source": "Crown", "gave": "Fate-2", "turn": 2}
    assert event_sentence(given, players) == (
        "a exchanges a card with the draw pile (by Crown), puts Fate-2 in its place")
    unnamed = {key: value for key, value in given.items() if key != "gave"}
    assert event_sentence(unnamed, players) == "a exchanges a card with the draw pile (by Crown)"


def test_the_whole_game_says_whom_a_view_was_kept_from() -> None:
    """A view told to all but one seat is marked with that seat's name. Whole logs hold the
    seat's own view beside it (then the happening is everyone's, or the seat's view is
    kept): each draw here keeps only its public half, as a log cut short may."""
    record = _record(3, 0)
    players = record["players"]
    public = [e for e in record["events"] if not (e["type"] == "draw" and isinstance(e["to"], int))]
    lines = event_lines({**record, "events": public})
    draws = [e for e in public if e["type"] == "draw"]
    told = [line for line in lines if " draws a card  [seen by " in line]
    assert len(told) == len(draws) >= 10
    for event, line in zip(draws, told, strict=True):
        who = players[int(event["to"][8:])]
        assert line.endswith(f"  [seen by all but {who}]"), line
        assert line.startswith(f"  {who} draws"), line


def test_the_whole_game_marks_nothing_everyone_saw() -> None:
    """A happening told to a seat in one view and to all but that seat in another, the same
    words (a revealed card set as a trap), was everyone's: it was marked '[seen by a, all but
    a]', as if someone had not seen it."""
    lines = [line for seed in range(30) for line in event_lines(_record(3, seed))]
    both = [line for line in lines
            if (match := re.search(r"\[seen by (.+)\]$", line)) is not None
            and any(f"all but {name}" in match[1].split(", ")
                    for name in match[1].split(", "))]
    assert both == []
    assert any(re.fullmatch(r"  \S+ sets \S+ as a trap", line) for line in lines)
