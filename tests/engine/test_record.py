"""Game records (docs/RECORDS.md): the schema, the JSON round trip, and a replay that fails
loudly (ReplayError, with a message saying where) on any tampering."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from engine_scenario import act, build_state

from arena.engine import FirstOptionAgent, GameConfig, RandomAgent, new_game, play_game
from arena.engine.cards import Card
from arena.engine.desmos import Category
from arena.engine.record import RECORD_FORMAT, build_record, replay, replay_one
from arena.errors import ReplayError

TURN_KEYS = {"round", "seat", "action", "card", "swap", "hand_size_after", "traps_after"}
EVENT_TYPES = {
    "game_start", "deal", "turn_start", "hold", "play", "set_trap", "trap_triggered",
    "trap_expired", "trap_destroyed", "trap_cleared", "effect", "draw", "discard",
    "forced_discard", "palaestron", "palaestron_redealt", "reveal", "reveal_hand", "peek",
    "peek_traps", "look",
    "exchange", "graveyard_exchange", "pile_exchange", "pile_bottomed", "return_to_pile", "burn",
    "updraft", "reshuffle", "pile_exhausted", "round_end", "forfeit", "showdown", "rps",
    "ascension", "game_end",
}
CATEGORY_NAMES = {c.label for c in Category}


def random_record(players: int = 3, seed: int = 21) -> dict[str, Any]:
    config = GameConfig(players=tuple(f"bot{i}" for i in range(players)), seed=seed,
                        starting_seat=1)
    state = play_game(config, [RandomAgent(seed * 10 + i) for i in range(players)])
    return state.record()


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return random_record()


def test_record_schema(record: dict[str, Any]) -> None:
    assert record["format"] == RECORD_FORMAT
    assert record["seed"] == 21 == record["config"]["seed"]
    assert record["players"] == ["bot0", "bot1", "bot2"] == record["config"]["players"]
    assert record["starting_seat"] == 1 == record["config"]["starting_seat"]
    assert record["rounds"] == 5
    assert record["forfeits"] == []
    # turns: one per turn, seat order from the starting seat
    turns = record["turns"]
    assert len(turns) == 15
    for number, turn in enumerate(turns):
        assert set(turn) == TURN_KEYS
        assert turn["round"] == number // 3 + 1 and turn["seat"] == (1 + number) % 3
        assert turn["action"] in ("hold", "play", "trap")
        assert (turn["card"] is None) == (turn["action"] == "hold")
        if turn["card"] is not None:
            assert Card.parse(turn["card"]).notation() == turn["card"]
        assert isinstance(turn["swap"], bool)
        assert turn["hand_size_after"] == 5
        assert len(turn["traps_after"]) == 3 and all(0 <= t <= 2 for t in turn["traps_after"])
    # choices: [seat, kind, index]
    assert record["choices"] and all(
        isinstance(s, int) and isinstance(k, str) and isinstance(i, int) and i >= 0
        for s, k, i in record["choices"])
    # events: every event, public and private, with its audience
    for event in record["events"]:
        assert event["type"] in EVENT_TYPES
        assert isinstance(event["turn"], int)
        to = event["to"]
        assert to == "all" or to in (0, 1, 2) or to in ("all_but:0", "all_but:1", "all_but:2")
    kinds = [e["type"] for e in record["events"]]
    assert kinds[0] == "game_start" and kinds[-1] == "game_end"
    assert sum(1 for e in record["events"] if e["type"] == "deal") == 3
    # result
    result = record["result"]
    assert {"placements", "desmos", "ascension", "tiebreak"} <= set(result)
    assert sorted(result["placements"])[0] == 1 and len(result["placements"]) == 3
    assert all(1 <= p <= 3 for p in result["placements"])
    assert all(name in CATEGORY_NAMES for name in result["desmos"])
    assert result["ascension"] is False
    assert result["tiebreak"] in ("none", "book", "rps", "lot")
    assert record["events"][-1]["placements"] == result["placements"]


def test_record_events_are_the_log_with_audiences() -> None:
    state = play_game(GameConfig(players=("a", "b"), seed=3), [RandomAgent(1), RandomAgent(2)])
    record = state.record()
    assert len(record["events"]) == len(state.log)
    for (to, event), written in zip(state.log, record["events"], strict=True):
        expected_to = "all" if to is None else to if to >= 0 else f"all_but:{~to}"
        assert written == {"to": expected_to, **event}
    private = [e for e in record["events"] if isinstance(e["to"], int)]
    assert {e["type"] for e in private} >= {"deal", "draw"}


def test_json_round_trip_and_replay(record: dict[str, Any]) -> None:
    text = json.dumps(record)
    loaded = json.loads(text)
    assert loaded == record
    state = replay(loaded)
    assert state.record() == record
    assert json.dumps(state.record()) == text


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_table_size_replays(players: int) -> None:
    for seed in range(3):
        record = random_record(players, seed)
        assert replay(json.loads(json.dumps(record))).record() == record


def test_forfeits_are_recorded_and_replayed() -> None:
    state = new_game(GameConfig(players=("a", "b", "c"), seed=8))
    agent = RandomAgent(8)
    number = 0
    while state.decision is not None:
        if number == 7:
            state.forfeit(2, "timeout")
        decision = state.decision
        state.apply(0 if decision.seat in state.forfeits
                    else agent.choose(decision, state.observe(decision.seat)))
        number += 1
    record = json.loads(json.dumps(state.record()))
    assert record["forfeits"] == [{"seat": 2, "reason": "timeout", "at_choice": 7}]
    assert record["result"]["forfeits"] == {"2": "timeout"}
    assert record["result"]["placements"][2] == 3
    assert replay(record).record() == record
    # without the forfeit the replay is another game: it fails
    tampered = copy.deepcopy(record)
    tampered["forfeits"] = []
    with pytest.raises(ReplayError):
        replay(tampered)


def test_an_ascension_record_stops_mid_turn() -> None:
    state = build_state(["God-1 God-2 God-3 God-4 Beast-2",
                         "Agari-1 Agari-2 Agari-3 Agari-4 Fate-1"], pile_top="God-5")
    act(state, "turn", 0, action="play", card="Beast-2")
    record = state.record()
    assert record["turns"] == []  # the last (unfinished) turn is not in `turns`
    assert record["result"]["ascension"] is True
    assert record["result"]["tiebreak"] == "ascension"
    assert record["result"]["desmos"][0] == "The Ascension"
    assert record["events"][-2]["type"] == "ascension"


def test_an_unfinished_game_has_no_result() -> None:
    state = new_game(GameConfig(players=("a", "b"), seed=1))
    assert state.record()["result"] is None


def test_a_game_without_events_still_replays() -> None:
    config = GameConfig(players=("a", "b"), seed=5, track_events=False)
    state = play_game(config, [RandomAgent(1), RandomAgent(2)])
    record = json.loads(json.dumps(state.record()))
    assert record["events"] == []
    assert replay(record).result is not None
    assert replay(record).result.to_json() == record["result"]  # type: ignore[union-attr]


# ---------------------------------------------------------------------------- tampering


def _tamper(record: dict[str, Any], change: Any) -> dict[str, Any]:
    bad = copy.deepcopy(record)
    change(bad)
    return bad


def _set_choice(number: int, value: list[Any]) -> Any:
    def change(bad: dict[str, Any]) -> None:
        bad["choices"][number] = value
    return change


def test_a_record_from_before_each_copy_was_an_option_is_refused(
        record: dict[str, Any]) -> None:
    # Format 3 offered two copies in the pile's top cards as one option (RULES.md E26): its
    # option indices mean other moves now, so it is refused, both versions named.
    old = copy.deepcopy(record)
    old["format"] = "palaestra-record/3"
    with pytest.raises(ReplayError, match="'palaestra-record/3'.*'palaestra-record/7'"):
        replay(old)


def test_a_record_from_before_the_palaestron_cleared_from_its_drawer_is_refused(
        record: dict[str, Any]) -> None:
    # Format 4 cleared the Arenas from seat 0 (RULES.md E25): the Discard Graveyard's order,
    # which later options follow, may differ now
    old = copy.deepcopy(record)
    old["format"] = "palaestra-record/4"
    with pytest.raises(ReplayError, match="'palaestra-record/4'.*'palaestra-record/7'"):
        replay(old)


def test_a_record_from_before_nemesis_gave_from_the_card_received_is_refused(
        record: dict[str, Any]) -> None:
    # Format 5 gave Nemesis's card from the hand before the gift arrived (RULES.md E29): its
    # give options, and so its choices, mean other cards now
    old = copy.deepcopy(record)
    old["format"] = "palaestra-record/5"
    with pytest.raises(ReplayError, match="'palaestra-record/5'.*'palaestra-record/7'"):
        replay(old)


def test_a_record_from_before_a_seat_sprang_both_traps_in_a_last_window_is_refused(
        record: dict[str, Any]) -> None:
    # Format 6 asked a seat once in the Palaestron's and the showdown's windows (RULES.md
    # E36): the decisions it recorded there are fewer than the engine now asks
    old = copy.deepcopy(record)
    old["format"] = "palaestra-record/6"
    with pytest.raises(ReplayError, match="'palaestra-record/6'.*'palaestra-record/7'"):
        replay(old)


def test_a_record_of_an_older_version_is_refused_naming_only_what_changed(
        record: dict[str, Any]) -> None:
    # the line `arena game` shows for every game stored before the last rules change: it
    # named house rules, which only format 2 lacked
    old = copy.deepcopy(record)
    old["format"] = "palaestra-record/5"
    with pytest.raises(ReplayError) as refused:
        replay(old)
    assert str(refused.value) == (
        "recorded as 'palaestra-record/5' under the rules of that version; this engine "
        "replays 'palaestra-record/7' records only (the rules changed in between: see "
        "RULES.md)")


def test_tampered_choice_index_is_refused(record: dict[str, Any]) -> None:
    seat, kind, _ = record["choices"][0]
    with pytest.raises(ReplayError, match=r"choice 0: option 99 is not legal"):
        replay(_tamper(record, _set_choice(0, [seat, kind, 99])))


def test_tampered_choice_kind_or_seat_is_refused(record: dict[str, Any]) -> None:
    seat, kind, index = record["choices"][0]
    assert kind == "turn"
    with pytest.raises(ReplayError, match=r"choice 0: the record has seat \d choosing swap"):
        replay(_tamper(record, _set_choice(0, [seat, "swap", index])))
    with pytest.raises(ReplayError, match=r"choice 0: the record has seat 2 choosing turn, "
                                          r"the replay asks seat 1 to choose turn"):
        replay(_tamper(record, _set_choice(0, [2, kind, index])))


def test_another_legal_choice_is_refused(record: dict[str, Any]) -> None:
    # same seat and kind, a different legal option: the game diverges and the replay says so
    seat, kind, index = record["choices"][0]
    for other in (0, 1, 2, 3):
        if other != index:
            with pytest.raises(ReplayError):
                replay(_tamper(record, _set_choice(0, [seat, kind, other])))


def test_truncated_or_extended_choices_are_refused(record: dict[str, Any]) -> None:
    def drop_last(bad: dict[str, Any]) -> None:
        bad["choices"].pop()

    def add_one(bad: dict[str, Any]) -> None:
        bad["choices"].append([0, "turn", 0])

    with pytest.raises(ReplayError, match="ends after .* choices but the game goes on"):
        replay(_tamper(record, drop_last))
    with pytest.raises(ReplayError, match="the game ended but the record goes on"):
        replay(_tamper(record, add_one))


def test_tampered_result_or_turns_are_refused(record: dict[str, Any]) -> None:
    def flip_placements(bad: dict[str, Any]) -> None:
        bad["result"]["placements"] = list(reversed(bad["result"]["placements"])) + [9]

    def other_tiebreak(bad: dict[str, Any]) -> None:
        bad["result"]["tiebreak"] = "lot"

    def short_hand(bad: dict[str, Any]) -> None:
        bad["turns"][3]["hand_size_after"] = 4

    def swapped(bad: dict[str, Any]) -> None:
        bad["turns"][0]["swap"] = not bad["turns"][0]["swap"]

    for change in (flip_placements, other_tiebreak):
        with pytest.raises(ReplayError, match="the replayed result .* differs from the recorded"):
            replay(_tamper(record, change))
    for change in (short_hand, swapped):
        with pytest.raises(ReplayError, match="the replayed turns differ from the recorded turns"):
            replay(_tamper(record, change))


def test_tampered_config_is_refused(record: dict[str, Any]) -> None:
    def other_seed(bad: dict[str, Any]) -> None:
        bad["config"]["seed"] += 1

    def other_start(bad: dict[str, Any]) -> None:
        bad["config"]["starting_seat"] = 0

    for change in (other_seed, other_start):
        with pytest.raises(ReplayError):
            replay(_tamper(record, change))


@pytest.mark.parametrize("change", [
    lambda bad: bad.pop("config"),
    lambda bad: bad.pop("choices"),
    lambda bad: bad["choices"].__setitem__(0, [0, "turn"]),
    lambda bad: bad["choices"].__setitem__(0, [0, "turn", "first"]),
    lambda bad: bad["config"].__setitem__("players", ["only-one"]),
    lambda bad: bad["config"].__setitem__("last_book_finished", 10**30),
    # JSON's 1e400 reads back as an infinite float, which no int holds
    lambda bad: bad["choices"].__setitem__(0, [0, "turn", float("inf")]),
    lambda bad: bad["forfeits"].append({"at_choice": float("inf"), "seat": 0, "reason": "x"}),
], ids=["no-config", "no-choices", "short-choice", "bad-index", "one-player", "books-a-number",
        "infinite-index", "infinite-forfeit"])
def test_malformed_records_are_refused_clearly(record: dict[str, Any], change: Any) -> None:
    with pytest.raises(ReplayError, match="not a game record"):
        replay(_tamper(record, change))


@pytest.mark.parametrize("value", [[1, 2], None, "palaestra-record/7"])
def test_what_is_no_object_is_no_game_record_not_a_record_of_other_rules(value: Any) -> None:
    # it was called "recorded as None under the rules of that version"
    with pytest.raises(ReplayError) as refused:
        replay(value)
    assert str(refused.value) == (
        f"not a game record: a JSON {type(value).__name__}, not an object")


def test_a_replay_of_an_all_defaults_game() -> None:
    config = GameConfig(players=("a", "b", "c", "d"), seed=12, starting_seat=3)
    state = play_game(config, [FirstOptionAgent()] * 4)
    record = state.record()
    assert all(index == 0 for _, _, index in record["choices"])
    assert replay(record).record() == record


def test_recorded_events_that_are_not_a_list_are_refused_clearly(
        record: dict[str, Any]) -> None:
    """A records file from elsewhere whose "events" was a number ended arena replay in a
    TypeError traceback."""
    with pytest.raises(ReplayError, match="^the recorded events are not a list"):
        replay_one(_tamper(record, lambda bad: bad.__setitem__("events", 7)))


def _palaestron_drawn_last_record() -> tuple[dict[str, Any], int]:
    """A game in which a draw takes the Palaestron as the pile's last card, and where its
    ``palaestron`` event is among the record's events."""
    config = GameConfig(players=("a", "b", "c", "d"), seed=267)
    state = play_game(config, [RandomAgent(267 + seat) for seat in range(4)])
    record = state.record()
    types = [event["type"] for event in record["events"]]
    drawn_last = [at for at in range(len(types) - 1)
                  if types[at:at + 2] == ["palaestron", "reshuffle"]]
    assert drawn_last, "the seed no longer draws the Palaestron as the pile's last card"
    return record, drawn_last[0]


def test_a_record_that_told_the_reshuffle_before_the_palaestron_still_replays() -> None:
    """Records made before E4 told a Palaestron drawn as the last card ahead of the rebuilt
    pile told the reshuffle first: the same game in another order, which replays."""
    record, at = _palaestron_drawn_last_record()
    replay_one(record)
    events = record["events"]
    swapped = [*events[:at], events[at + 1], events[at], *events[at + 2:]]
    # made before then, a record was made before every later change of telling too
    older = dict(record, events=_told_before_pile_cards(_told_before_trap_sources(
        _told_before_depths(swapped))))
    replay_one(older)
    # any other order is still a difference
    moved = dict(record, events=[*events[:at], events[at + 1], *events[at + 2:], events[at]])
    with pytest.raises(ReplayError, match="replayed events differ"):
        replay_one(moved)


def _told_before_pile_cards(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events as told before a pile exchange and a Phoenix named their cards to their
    player: one public event each, naming none."""
    older: list[dict[str, Any]] = []
    for event in events:
        if event["type"] in ("pile_exchange", "return_to_pile"):
            if isinstance(event["to"], int):
                continue  # the private half did not exist
            event = {**event, "to": "all"}
        older.append(event)
    return older


def _told_before_trap_sources(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events as told before a trap destroyed named the card that destroyed it."""
    return [{key: value for key, value in event.items() if key != "source"}
            if event["type"] == "trap_destroyed" else event for event in events]


def _told_before_revealed_names(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events as told before the others' half of a trap set or a card put on the draw
    pile named a card that was revealed."""
    named = {"set_trap": "card", "return_to_pile": "card", "pile_exchange": "gave"}
    return [{key: value for key, value in event.items() if key != named[event["type"]]}
            if event["type"] in named and not isinstance(event["to"], int) else event
            for event in events]


def _told_before_cleared_sources(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events as told before a trap cleared away named the Palaestron (and so before the
    newer change too: a revealed card going face down named)."""
    return [{key: value for key, value in event.items() if key != "source"}
            if event["type"] == "trap_cleared" else event
            for event in _told_before_revealed_names(events)]


def _told_before_depths(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events as told before an exchange named the depth of the copy it took (and so
    before the newer change too: a trap cleared naming the Palaestron)."""
    return [{key: value for key, value in event.items() if key != "depth"}
            if event["type"] in ("graveyard_exchange", "pile_exchange") else event
            for event in _told_before_cleared_sources(events)]


def _pile_moves_record() -> dict[str, Any]:
    """A game with exchanges with the draw pile and Phoenix's card put back on it."""
    config = GameConfig(players=("a", "b", "c"), seed=29)
    record = play_game(config, [RandomAgent(29 + seat) for seat in range(3)]).record()
    kinds = [event["type"] for event in record["events"]]
    assert "pile_exchange" in kinds and "return_to_pile" in kinds, "pick another seed"
    return json.loads(json.dumps(record))


def test_a_record_that_told_pile_moves_to_everyone_without_cards_still_replays() -> None:
    """Records made before a pile exchange and a Phoenix told their player the cards held one
    public event without them: the same game, told as the engine then told it."""
    record = _pile_moves_record()
    replay_one(record)
    older = _told_before_pile_cards(_told_before_trap_sources(
        _told_before_depths(record["events"])))
    assert len(older) < len(record["events"])
    replay_one(dict(record, events=older))


def test_a_pile_move_with_a_wrong_card_or_a_missing_half_is_refused() -> None:
    record = _pile_moves_record()
    events = record["events"]
    private = next(at for at, event in enumerate(events)
                   if event["type"] == "pile_exchange" and isinstance(event["to"], int))
    wrong = copy.deepcopy(record)
    wrong["events"][private]["took"] = "Palaestron"
    missing = dict(record, events=[*events[:private], *events[private + 1:]])
    put_back = next(at for at, event in enumerate(events)
                    if event["type"] == "return_to_pile" and isinstance(event["to"], int))
    other_card = copy.deepcopy(record)
    other_card["events"][put_back]["card"] = "Palaestron"
    for bad in (wrong, missing, other_card):
        with pytest.raises(ReplayError, match="replayed events differ"):
            replay_one(bad)


def test_a_record_that_told_a_trap_destroyed_without_its_source_still_replays() -> None:
    record = _pile_moves_record()
    destroyed = [at for at, event in enumerate(record["events"])
                 if event["type"] == "trap_destroyed"]
    assert destroyed, "pick another seed"
    older = _told_before_trap_sources(_told_before_depths(record["events"]))
    assert older != record["events"]
    replay_one(dict(record, events=older))
    # made before it, a record was made after every older change of telling
    with pytest.raises(ReplayError, match="replayed events differ"):
        replay_one(dict(record, events=_told_before_pile_cards(record["events"])))
    wrong = copy.deepcopy(record)
    wrong["events"][destroyed[0]]["source"] = "Arcoi-5" if wrong["events"][destroyed[0]][
        "source"] != "Arcoi-5" else "God-7"
    with pytest.raises(ReplayError, match="replayed events differ"):
        replay_one(wrong)


def _hades_farther_copy_record() -> dict[str, Any]:
    """A game in which a Hades takes the copy of a card farther from the top (E26)."""
    state = new_game(GameConfig(players=("a", "b", "c", "d"), seed=218, starting_seat=2))
    choose = random.Random(218)
    while state.decision is not None:
        state.apply(choose.randrange(len(state.decision.options)))
    record = json.loads(json.dumps(state.record()))
    assert any(e["type"] == "graveyard_exchange" and "depth" in e for e in record["events"]), \
        "pick another seed"
    return record


def test_a_record_that_told_no_depth_of_the_copy_taken_still_replays() -> None:
    record = _hades_farther_copy_record()
    replay_one(record)
    replay_one(dict(record, events=_told_before_depths(record["events"])))


def test_a_record_that_told_a_trap_cleared_without_the_palaestron_still_replays() -> None:
    record = _hades_farther_copy_record()
    cleared = [at for at, event in enumerate(record["events"]) if event["type"] == "trap_cleared"]
    assert cleared, "pick another seed"
    assert all(record["events"][at]["source"] == "Palaestron" for at in cleared)
    replay_one(dict(record, events=_told_before_cleared_sources(record["events"])))
    # made before a newer change, a record was made before every newer one too
    depths_only = [{key: value for key, value in event.items() if key != "depth"}
                   for event in record["events"]]
    with pytest.raises(ReplayError, match="replayed events differ"):
        replay_one(dict(record, events=depths_only))
    wrong = copy.deepcopy(record)
    wrong["events"][cleared[0]]["source"] = "Arcoi-1"
    with pytest.raises(ReplayError, match="replayed events differ"):
        replay_one(wrong)


def test_a_record_with_another_depth_or_without_the_exchange_is_refused() -> None:
    record = _hades_farther_copy_record()
    events = record["events"]
    at = next(i for i, e in enumerate(events) if e["type"] == "graveyard_exchange"
              and "depth" in e)
    other = copy.deepcopy(record)
    other["events"][at]["depth"] += 1
    missing = dict(record, events=[*events[:at], *events[at + 1:]])
    for bad in (other, missing):
        with pytest.raises(ReplayError, match="replayed events differ"):
            replay_one(bad)


def _revealed_moves_record() -> dict[str, Any]:
    """A game in which revealed cards are set as traps, put back by Phoenix and given for a
    top card of the pile."""
    config = GameConfig(players=("a", "b", "c"), seed=7)
    record = play_game(config, [RandomAgent(7 + seat) for seat in range(3)]).record()
    named = {e["type"] for e in record["events"] if not isinstance(e["to"], int)
             and ("card" in e or "gave" in e)}
    assert {"set_trap", "return_to_pile", "pile_exchange"} <= named, "pick another seed"
    return json.loads(json.dumps(record))


def test_a_record_that_told_revealed_cards_going_face_down_unnamed_still_replays() -> None:
    """Records made before the others' half of a trap set, a Phoenix and a pile exchange
    named a card that was revealed (RULES.md E23) told the others no card: the same game."""
    record = _revealed_moves_record()
    replay_one(record)
    older = _told_before_revealed_names(record["events"])
    assert older != record["events"]
    replay_one(dict(record, events=older))


def test_a_revealed_card_named_wrong_or_a_hidden_one_named_is_refused() -> None:
    record = _revealed_moves_record()
    events = record["events"]
    named = next(at for at, e in enumerate(events) if e["type"] == "set_trap"
                 and not isinstance(e["to"], int) and "card" in e)
    hidden = next(at for at, e in enumerate(events) if e["type"] == "set_trap"
                  and not isinstance(e["to"], int) and "card" not in e)
    wrong = copy.deepcopy(record)
    wrong["events"][named]["card"] = "Palaestron"
    told = copy.deepcopy(record)
    told["events"][hidden]["card"] = events[hidden - 1]["card"]  # its private half's card
    for bad in (wrong, told):
        with pytest.raises(ReplayError, match="replayed events differ"):
            replay_one(bad)


def test_the_docs_example_record_is_the_game_its_seed_and_choices_play() -> None:
    """docs/RECORDS.md's example, its elisions dropped: its seed and choices replay to its
    result, the entries it shows are the game's own (the first ones and the last event), and
    the counts it gives of what it left out are the game's (it said 70 events of 71)."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "RECORDS.md").read_text("utf-8")
    block = text.split("## Example", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    kept = "\n".join(line for line in block.splitlines() if line.strip() != "...")
    shown = json.loads(re.sub(r",(\s*[\]}])", r"\1", kept))
    counts = re.search(r"`turns` keeps (\d+) of its (\d+) entries and `events` (\d+) of its "
                       r"(\d+)", " ".join(text.split()))
    assert counts is not None
    record = build_record(replay({k: v for k, v in shown.items() if k not in ("turns", "events")}))
    assert {k: v for k, v in record.items() if k not in ("turns", "events")} == {
        k: v for k, v in shown.items() if k not in ("turns", "events")}
    turns, events = shown["turns"], shown["events"]
    assert turns == record["turns"][:len(turns)]
    assert events[:-1] == record["events"][:len(events) - 1]
    assert events[-1] == record["events"][-1]
    assert [int(n) for n in counts.groups()] == [
        len(turns), len(record["turns"]), len(events), len(record["events"])]
