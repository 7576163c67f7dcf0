"""The replay viewer's data: at every step the table is the replayed game's, each seat's view
is exactly its observation, and the narration is ``arena game``'s, cut per step."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from site_db import isolated_names

from arena.engine import RandomAgent, play_game
from arena.engine.cards import NOTATION
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.narration import event_lines, header_lines
from arena.errors import ReplayError
from arena.web.replay import build_replay, option_label


def played(players: int, seed: int, forfeit_at: int | None) -> dict[str, Any]:
    """A random game's record, a seat forfeiting before choice ``forfeit_at`` if given."""
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=seed % players))
    rng = random.Random(seed)
    number = 0
    while state.decision is not None:
        if number == forfeit_at:
            state.forfeit(rng.randrange(players), "crash")
            if state.decision is None:
                break
        state.apply(rng.randrange(len(state.decision.options)))
        number += 1
    return state.record()


games = st.builds(played, st.integers(2, 5), st.integers(0, 10**6),
                  st.one_of(st.none(), st.integers(0, 60)))


@settings(max_examples=25)
@given(games)
def test_every_step_is_the_replayed_table(record: dict[str, Any]) -> None:
    replay = build_replay(record)
    state = new_game(GameConfig.from_json(record["config"]))
    forfeits = {f["at_choice"]: f for f in record["forfeits"]}
    steps = replay["steps"]
    assert len(steps) == len(record["choices"]) + 1
    for number, (_, _, index) in enumerate(record["choices"]):
        if number in forfeits:
            state.forfeit(forfeits[number]["seat"], forfeits[number]["reason"])
        step = steps[number]
        assert step["hands"] == [[NOTATION[c] for c in hand] for hand in state.hands]
        assert step["draw_pile"] == len(state.draw_pile)
        assert step["effect_graveyard"] == [NOTATION[c] for c in state.effect_graveyard]
        assert step["discard_graveyard"] == [NOTATION[c] for c in state.discard_graveyard]
        assert step["trap_counts"] == [len(t) for t in state.traps]
        for seat in range(state.n):  # a seat's view is its observation, nothing more
            seen = state.observe_json(seat)
            assert seen["hand"] == step["hands"][seat]
            assert seen["traps"] == [{"card": c, "turns_left": left, "triggerable": ready}
                                     for c, left, ready in step["traps"][seat]]
            assert seen["revealed"] == step["revealed"]
        assert step["decision"]["seat"] == state.decision.seat
        assert step["decision"]["chosen"] == index
        assert len(step["decision"]["options"]) == len(state.decision.options)
        state.apply(index)
    assert "decision" not in steps[-1]


@settings(max_examples=25)
@given(games)
def test_the_steps_tell_the_game_as_arena_game_does(record: dict[str, Any]) -> None:
    """Word for word, each name isolated (a right-to-left one keeps the words beside it
    in order)."""
    steps = build_replay(record)["steps"]
    named = isolated_names(record)
    assert [line for step in steps for line in step["lines"]] == event_lines(named)
    for seat in range(len(record["players"])):
        told = [line for step in steps for line in (
            step["lines"] if step["seat_lines"][seat] is None else step["seat_lines"][seat])]
        assert told == event_lines(named, seat)


@pytest.mark.parametrize("players, seed, told", [(2, 10, "was dealt the Palaestron"),
                                                  (3, 0, "draws the Palaestron")])
def test_the_steps_tell_whether_the_palaestron_was_dealt_or_drawn(players: int, seed: int,
                                                                  told: str) -> None:
    """A step is told apart from the steps before it, yet a Palaestron in a later step than
    the first is dealt only if no turn started before it (seed 10 deals it; at seed 0 of 3
    players it is drawn in a turn)."""
    record = played(players, seed, None)
    turns = [e["turn"] for e in record["events"] if e["type"] == "palaestron"]
    assert turns and (turns[0] == 0) == ("dealt" in told)
    lines = [line for step in build_replay(record)["steps"] for line in step["lines"]]
    assert any(told in line for line in lines)
    assert lines == event_lines(isolated_names(record))


@settings(max_examples=25)
@given(games)
def test_each_seat_left_at_the_step_that_tells_its_forfeit(record: dict[str, Any]) -> None:
    """The page keeps a forfeited seat's view at the table it left (its bot was sent nothing
    more): ``left`` says from which step, and why."""
    replay = build_replay(record)
    told = {f["seat"]: f for f in record["forfeits"]}
    assert len(replay["left"]) == len(record["players"])
    for seat, left in enumerate(replay["left"]):
        if seat not in told:
            assert left is None
            continue
        assert left["reason"] == told[seat]["reason"]
        steps = replay["steps"]
        assert steps[left["step"]]["seat_lines"][seat][-1].endswith(
            "forfeits here: shown nothing more)")
        assert all(step["seat_lines"][seat] == [] for step in steps[left["step"] + 1:])
        assert "forfeited" not in steps[left["step"]]  # the page carries only ``left``


def test_the_showdown_gives_categories_tie_keys_and_the_tiebreak() -> None:
    record = played(3, 11, None)
    showdown = build_replay(record)["showdown"]
    assert showdown["categories"] == record["result"]["desmos"]
    assert showdown["placements"] == record["result"]["placements"]
    assert showdown["tiebreak"] == record["result"]["tiebreak"]
    assert all(isinstance(k, int) for key in showdown["keys"] for k in key)


def test_the_showdown_places_a_game_nobody_played_last_for_every_seat() -> None:
    """A forfeit is the table's last place on the replay page too, as on the games list
    (RULES.md E28): a game both bots never started shows neither first."""
    state = new_game(GameConfig(players=("p0", "p1"), seed=3, starting_seat=0))
    state.forfeit(0, "startup_failure")
    state.forfeit(1, "startup_failure")
    while state.decision is not None:
        state.apply(0)
    showdown = build_replay(state.record())["showdown"]
    assert showdown["placements"] == [2, 2]


def test_a_record_that_does_not_replay() -> None:
    record = played(2, 3, None)
    record["choices"][0][1] = "rps"
    with pytest.raises(ReplayError, match="choice 0: the record does not replay here"):
        build_replay(record)


@pytest.mark.parametrize(("field", "value"), [("seats", 7), ("failures", 7)])
def test_a_referee_field_of_the_wrong_type_is_left_out(field: str, value: Any) -> None:
    """arena game FILE --html on a records file from elsewhere: a number where the seats or
    the failures go ended in a TypeError traceback."""
    record = played(2, 3, None)
    record["referee"] = {field: value}
    replay = build_replay(record)
    assert replay["bots"] == replay["players"] and replay["failures"] == []


def test_a_failure_of_the_wrong_shape_is_shown_as_far_as_it_goes() -> None:
    """arena game FILE --html on a records file from elsewhere: a failure whose seat was no
    seat of the game, or whose bot was not a name, ended in a Jinja2 traceback."""
    from arena.web.site import game_page

    record = played(2, 3, None)
    record["referee"] = {"failures": [
        {"seat": "x", "bot": None, "type": {"a": 1}, "detail": ["<b>"], "round": "2"},
        {"seat": 99, "type": "crash", "detail": "gone <b>", "round": 3, "kind": "turn"},
        {"seat": 1, "bot": ["x"], "type": "timeout", "detail": 5},
        {"seat": True, "bot": "q@v1"}, "not a failure", None]}
    assert build_replay(record)["failures"] == [
        {"seat": None, "bot": "?", "type": "?", "detail": "", "round": None, "kind": None},
        {"seat": None, "bot": "?", "type": "crash", "detail": "gone <b>", "round": 3,
         "kind": "turn"},
        {"seat": 1, "bot": "p1", "type": "timeout", "detail": "", "round": None,
         "kind": None},
        {"seat": None, "bot": "q@v1", "type": "?", "detail": "", "round": None, "kind": None}]
    page = game_page(record, "g")
    assert "<li><bdi>?</bdi> <b>crash</b>, round 3, turn: gone &lt;b&gt;</li>" in page
    assert "<li><bdi>p1</bdi> (seat 1) <b>timeout</b>: </li>" in page


def test_a_number_json_cannot_hold_is_a_bad_record_not_a_traceback() -> None:
    """A seed past 64 bits ended arena game FILE --html in orjson's TypeError traceback: the
    game is shown as recorded, under the reason."""
    from arena.web.site import GameShown, render_game

    record = played(2, 3, None)
    record["seed"] = 10**30
    page = render_game(record, "g")
    assert page.shown is GameShown.DAMAGED
    assert page.note is not None and "the replay says: not a game record (" in page.note


def test_an_infinite_number_is_a_bad_record_not_a_traceback() -> None:
    """JSON's 1e400 reads back as an infinite float: a choice's index of it ended arena
    report in an OverflowError traceback, and arena serve answered 500."""
    from arena.web.site import GameShown, render_game

    record = played(2, 3, None)
    record["choices"][0][2] = float("inf")
    page = render_game(record, "g")
    assert page.shown is GameShown.DAMAGED
    assert page.note is not None and "the replay says: not a game record (" in page.note


def test_players_that_are_no_list_are_a_bad_record_not_a_traceback() -> None:
    """The replay plays from the record's config, then read its players: a TypeError."""
    record = played(2, 3, None)
    record["players"] = 5
    with pytest.raises(ReplayError, match=r"^not a game record \(its players are not a list\)$"):
        build_replay(record)


def test_a_list_is_no_game_record_not_one_of_another_rules_version() -> None:
    # it was "the record is None, from another rules version"
    with pytest.raises(ReplayError, match=r"^not a game record: a JSON list, not an object$"):
        build_replay([played(2, 3, None)])


def test_the_other_copy_of_a_card_in_a_pile_says_its_place() -> None:
    # two copies among the pile's top cards are two options (RULES.md E26): told apart
    assert option_label("card", {"card": "Fate-3"}, []) == "Fate-3"
    assert option_label("card", {"card": "Fate-3", "depth": 2}, []) == \
        "Fate-3 (2nd from the top)"


def test_lachesis_says_what_each_option_does() -> None:
    """The replay offered Lachesis's choice as "bottom None" and "bottom Crown"."""
    assert option_label("card", {"bottom": None}, []) == "keep it on top"
    assert option_label("card", {"bottom": "Crown"}, []) == "move Crown to the bottom"


def test_the_copy_nearest_the_top_says_so_beside_the_other() -> None:
    """A look at the pile's top cards Fate-3, Fate-3 offered "Fate-3" and "Fate-3 (2nd from
    the top)": the first did not say which copy it was (arena play says "nearest the top")."""
    step = build_replay(played(2, 4, None))["steps"][11]  # God-4 looks at the top 3 cards
    assert step["decision"]["options"] == [
        "pass", "Fate-3 (nearest the top)", "Fate-3 (2nd from the top)", "Arcoi-5"]


def test_each_trap_a_snipe_may_destroy_is_its_own_option() -> None:
    """Arcoi's snipe at an opponent with two traps offered "p1 (seat 1)" twice."""
    step = build_replay(played(2, 540, None))["steps"][25]
    assert step["decision"]["why"] == "trap to destroy: Arcoi-2"  # its card named
    assert step["decision"]["options"] == ["\u2068p1\u2069's trap 1", "\u2068p1\u2069's trap 2"]


def test_a_trap_window_says_its_moment_and_the_card_about_to_resolve() -> None:
    """A trap's window read "trigger a trap (or pass)" whatever it answered: after a God's
    forced discard it says so, and which God."""
    for seed in range(300):
        for step in build_replay(played(5, seed, None))["steps"]:
            decision, lines = step.get("decision"), step["lines"]
            if decision and decision["kind"] == "trigger" and lines and " discards God-" in \
                    lines[-1] and ", forced (" in lines[-1]:
                god = lines[-1].split(" discards ")[1].split(",")[0]
                assert decision["why"] == ("trigger a trap (or pass), before the discarded God "
                                           f"resolves: {god}")
                return
    raise AssertionError("no window after a discarded God in range")


def test_a_pile_exchange_names_its_cards_in_its_players_view_only() -> None:
    """The replay told every seat, its player too, that a card went to and from the pile."""
    config = GameConfig(players=("a", "b", "c"), seed=29)
    record = play_game(config, [RandomAgent(29 + seat) for seat in range(3)]).record()
    private = next(e for e in record["events"]
                   if e["type"] == "pile_exchange" and isinstance(e["to"], int))
    named = (f"takes {private['took']} from the draw pile and puts {private['gave']} in its "
             "place")
    steps = build_replay(record)["steps"]
    told = [[line for step in steps for line in (step["seat_lines"][seat] or step["lines"])
             if "draw pile and puts" in line or "exchanges a card with the draw pile" in line]
            for seat in range(3)]
    assert any(named in line for line in told[private["seat"]])
    for seat in range(3):
        if seat != private["seat"]:
            assert told[seat] and not any(named in line for line in told[seat])
    assert any(named in line and "[seen by" in line
               for step in steps for line in step["lines"])


def test_every_hand_is_shown_whole_from_the_showdown_on() -> None:
    """A seat's view showed "?" for the other hands at the showdown's step, while the
    showdown's own table below showed them: from the showdown on they are public."""
    record = played(3, 7, None)
    steps = build_replay(record)["steps"]
    [told] = [e["hands"] for e in record["events"] if e["type"] == "showdown"]
    public = [step["shown_hands"] for step in steps if step["shown_hands"] is not None]
    assert public and public == [told] * len(public)
    assert steps[-1]["shown_hands"] == told
    assert steps[0]["shown_hands"] is None


def test_after_an_ascension_only_the_ascenders_hand_is_shown_whole() -> None:
    from staged_ascension import ascending_at_once, trap_a_non_god

    from arena.web.replay import _shown_hands

    state = ascending_at_once(GameConfig(players=("a", "b", "c"), seed=3, starting_seat=0))
    state.apply(trap_a_non_god(state.decision.options))
    assert state.result is not None and state.result.ascension
    [ascension] = [e for _, e in state.log if e["type"] == "ascension"]
    assert _shown_hands(state) == [ascension["hand"], None, None]


@pytest.mark.parametrize(("players", "seed"), [(3, 11), (3, 34)])
def test_the_showdown_says_how_first_place_was_settled_as_arena_game_does(
        players: int, seed: int) -> None:
    """The page's "First place: ..." line (seed 34's tie went to Rock-paper-scissors)."""
    record = played(players, seed, None)
    [settled] = [line for line in header_lines(record) if "first place:" in line]
    text = build_replay(record)["showdown"]["tiebreak_text"]
    assert settled.strip() == f"first place: {text}"


def test_the_hands_shown_at_the_showdown_stay_shown_through_its_tie_break() -> None:
    """Seed 34's tie goes to Rock-paper-scissors: at its throws every hand is public already
    (RULES.md E23), as at the end; before the showdown none is."""
    steps = build_replay(played(3, 34, None))["steps"]
    throws = [step for step in steps if step.get("decision", {}).get("kind") == "rps"]
    assert throws and all(step["phase"] == "showdown" for step in throws)
    assert all(step["shown_hands"] == steps[-1]["shown_hands"] for step in throws)
    assert all(None not in step["shown_hands"] for step in throws)
    assert all(step["shown_hands"] is None for step in steps[:-1]
               if step["phase"] != "showdown")
