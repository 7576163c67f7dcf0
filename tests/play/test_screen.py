"""What the screen draws: the showdown, and the table told as it happens."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace
from typing import Any, cast

import pytest
from play_script import Script, quiet_console

from arena.engine import Category, GameConfig, Observation, RandomAgent, new_game, play_game
from arena.engine.cards import parse_cards
from arena.engine.decision import Decision
from arena.engine.desmos import evaluate, evaluate_family
from arena.engine.houserules import HouseRules
from arena.engine.record import cards_not_counted
from arena.play.person import Person
from arena.play.screen import (
    decision_view,
    hand_category,
    hand_line,
    option_numbers,
    showdown_view,
    table_view,
)


def _record(placements: list[int], desmos: list[str], tiebreak: str) -> dict[str, Any]:
    return {"players": ["alice", "bob", "carol"], "starting_seat": 0, "rounds": 5,
            "result": {"placements": placements, "desmos": desmos, "tiebreak": tiebreak,
                       "ascension": False, "forfeits": {}}}


def _shown(record: dict[str, Any], hands: list[list[str]]) -> str:
    console, out = quiet_console()
    console.print(showdown_view(record, 1, hands))
    return out.getvalue()


def test_the_showdown_lists_every_hand_by_place_and_says_how_first_was_settled() -> None:
    hands = [["God-1", "God-2", "Fate-1", "Fate-2", "Beast-1"],
             ["Agari-1", "Agari-2", "Fate-3", "Beast-2", "Beast-3"],
             ["Crown", "Sophoi-1", "Umbrae-1", "Arcoi-1", "Fate-4"]]
    text = _shown(_record([1, 2, 3], ["Two Pair", "Two Pair", "Pair"], "none"), hands)
    lines = [line.rstrip() for line in text.splitlines()]
    assert lines[0] == "Showdown"
    assert lines[2].split() == ["1", "alice", "Two", "Pair", "God-1,", "God-2,", "Fate-1,",
                                "Fate-2,", "Beast-1"]
    assert lines[3].startswith("2      bob (you)")
    assert " ".join(text.split()).endswith(
        "First place: alice's Two Pair beats bob's card by card, biggest groups first (tiers: "
        "God 5, Crown 4, Class 3, Fate 2, Beast 1)")
    rps = _shown(_record([2, 1, 3], ["Pair", "Pair", "Nothing"], "rps"), hands)
    assert rps.rstrip().splitlines()[-1] == "First place: tie broken by Rock-paper-scissors"


def test_card_by_card_is_said_to_read_the_biggest_groups_first() -> None:
    # greedy's hand shows its God first, and a reader took God 5 against Class 3 for the
    # comparison: the Quartets' cards are compared first (Ruling 5)
    record = _record([2, 1, 3], ["Quartet", "Quartet", "Pair"], "none")
    hands = [["God-7", "Fate-1", "Fate-3", "Fate-4", "Fate-5"],
             ["Sophoi-1", "Sophoi-2", "Sophoi-3", "Sophoi-5", "Beast-3"],
             ["Crown", "Sophoi-4", "Umbrae-1", "Arcoi-1", "Fate-2"]]
    assert evaluate(parse_cards(hands[1])) > evaluate(parse_cards(hands[0]))
    text = " ".join(_shown(record, hands).split())
    assert "First place: bob's Quartet beats alice's card by card, biggest groups first " \
           "(tiers: God 5," in text


def test_two_rank_flushes_are_said_to_compare_their_best_cards_first() -> None:
    # A Rank Flush has no kind groups (E30): "biggest groups first" would send the reader to
    # alice's pair of Beasts
    record = _record([1, 2, 3], ["Rank Flush", "Rank Flush", "Pair"], "none")
    hands = [["God-3", "Agari-3", "Fate-3", "Beast-3", "Beast-3"],
             ["Agari-4", "Umbrae-4", "Arcoi-4", "Fate-4", "Fate-4"],
             ["Crown", "Sophoi-4", "Umbrae-1", "Arcoi-1", "Fate-2"]]
    assert evaluate(parse_cards(hands[0])) > evaluate(parse_cards(hands[1]))
    text = " ".join(_shown(record, hands).split())
    assert "First place: alice's Rank Flush beats bob's card by card, best card first " \
           "(tiers: God 5," in text
    assert "biggest groups" not in text


def test_a_forfeited_player_is_marked_and_never_beaten_card_by_card() -> None:
    hands = [["God-1", "God-2", "Fate-1", "Fate-2", "Beast-1"],
             ["Agari-1", "Agari-2", "Fate-3", "Beast-2", "Beast-3"],
             ["God-3", "God-4", "God-5", "Umbrae-1", "Fate-4"]]
    # carol's Triplet beats both Pairs, but carol crashed: placed last (E18)
    record = _record([1, 2, 3], ["Two Pair", "Two Pair", "Triplet"], "none")
    record["result"]["forfeits"] = {"2": "crash"}
    text = " ".join(_shown(record, hands).split())
    assert "3 carol Triplet, forfeited (crash) God-3," in text
    assert "First place: alice's Two Pair beats bob's card by card" in text
    assert text.endswith("A player who forfeits is placed last, whatever their hand.")
    # the only other player forfeited with an equal category: nobody was beaten card by card
    record = _record([1, 2, 2], ["Pair", "Pair", "Pair"], "none")
    record["result"]["forfeits"] = {"1": "timeout", "2": "crash"}
    text = " ".join(_shown(record, hands).split())
    assert "card by card" not in text and "First place: no tie" in text
    assert "3 bob (you) Pair, forfeited (timeout)" in text  # both forfeited: last (E28)


def test_other_players_actions_are_told_with_a_pause_and_ones_own_without() -> None:
    console, out = quiet_console()
    pauses: list[float] = []
    person = Person(console, Script(), 0, pace=0.5, sleep=pauses.append)
    person.watch([
        {"type": "game_start", "players": ["alice", "bob"], "rounds": 5, "starting_seat": 1},
        {"type": "turn_start", "seat": 1, "round": 1},
        {"type": "play", "seat": 1, "card": "Agari-1"},
        {"type": "forced_discard", "seat": 0, "card": "God-3", "source": "Agari-1"},
        {"type": "turn_start", "seat": 0, "round": 1},
        {"type": "hold", "seat": 0},
    ])
    lines = out.getvalue().splitlines()
    assert lines[2:] == ["alice, bob sit down for 5 rounds; bob starts",
                         "Round 1: bob's turn", "  bob plays Agari-1 (Agari, Raid)",
                         "  alice discards God-3, forced (by Agari-1)", "Round 1: your turn",
                         "  alice holds"]
    assert pauses == [0.5]  # after bob's play only
    assert person.recent[-2:] == ["Round 1: your turn", "  alice holds"]


def test_what_happens_at_the_start_of_ones_turn_comes_under_its_heading() -> None:
    # bob's trap triggered at the start of alice's turn used to read as part of bob's turn:
    # alice's own heading is printed when something is told before her table
    console, out = quiet_console()
    person = Person(console, Script(), 0)
    person.watch([
        {"type": "game_start", "players": ["alice", "bob"], "rounds": 5, "starting_seat": 1},
        {"type": "turn_start", "seat": 1, "round": 1},
        {"type": "set_trap", "seat": 1},
        {"type": "turn_start", "seat": 0, "round": 1},
        {"type": "trap_triggered", "seat": 1, "card": "Umbrae-5", "window": "turn_start"},
    ])
    lines = out.getvalue().splitlines()
    assert lines[-3:] == ["  bob sets a trap face down", "Round 1: your turn",
                          "  bob's trap Umbrae-5 (Umbrae, Spy) triggers at the start of the turn"]
    # with nothing told before it, the table's heading says whose turn it is, once
    console, out = quiet_console()
    person = Person(console, Script(["0"]), 0)
    state = new_game(GameConfig(players=("alice", "bob"), seed=3))
    person.watch([dict(e) for e in state.observe(0).events])
    decision = state.decision
    assert decision is not None and decision.seat == 0 and decision.kind == "turn"
    person.choose(decision, state.observe(0))
    assert "Round 1: your turn" not in out.getvalue()
    assert out.getvalue().count("your turn") == 1


def test_the_hand_line_names_the_hands_desmos_under_the_house_rules() -> None:
    view = new_game(GameConfig(players=("a", "b"), seed=1)).observe(0)
    category = Category(evaluate(view.hand_ids)[0]).label
    assert hand_line(view).plain.endswith(f" ({category})")
    family = HouseRules(kinds="family")
    assert hand_category(view, family) == Category(evaluate_family(view.hand_ids)[0]).label
    # under reclaim=strict before any card is used, every card counts
    assert hand_category(view, HouseRules(reclaim="strict")) == category


def test_after_the_last_turn_the_table_says_the_showdown_not_a_round_past_the_last() -> None:
    # seed 80, random agents: the seats are asked in the window before the showdown (traps),
    # then throw Rock-Paper-Scissors at the showdown
    state = new_game(GameConfig(players=("a", "b"), seed=80))
    agents = [RandomAgent(80), RandomAgent(81)]
    headings = []
    while (decision := state.decision) is not None:
        view = state.observe(decision.seat)
        console, out = quiet_console()
        console.print(table_view(view))
        headings.append((view.round > view.rounds, view.phase, out.getvalue().splitlines()[0]))
        state.apply(agents[decision.seat].choose(decision, view))
    late = [(phase, heading) for after, phase, heading in headings if after]
    assert ("play", "Before the showdown") in late and ("showdown", "Showdown") in late
    assert {heading for _, heading in late} == {"Before the showdown", "Showdown"}
    assert all(heading.startswith("Round ") for after, _, heading in headings if not after)


def test_a_dealt_palaestron_is_played_before_round_1_and_the_heading_says_so() -> None:
    # seed 10: the Palaestron is dealt to seat 0 (a), played once the deal is done (E2),
    # before anyone's turn: the heading used to say "Round 1 of 5 · a's turn"
    state = new_game(GameConfig(players=("a", "b"), seed=10))
    headings = []
    while (decision := state.decision) is not None and decision.kind != "turn":
        console, out = quiet_console()
        for seat in (0, 1):
            console.print(table_view(state.observe(seat)))
        headings.append((decision.kind, *[line for line in out.getvalue().splitlines()
                                         if line.startswith(("Before ", "Round "))]))
        state.apply(0)
    assert headings[0] == ("discard", "Before round 1 of 5 · you were dealt the Palaestron",
                           "Before round 1 of 5 · a was dealt the Palaestron")
    assert {kind for kind, *_ in headings} == {"discard", "reveal"}
    assert len({tuple(h) for _, *h in headings}) == 1
    console, out = quiet_console()
    console.print(table_view(state.observe(0)))
    assert out.getvalue().splitlines()[0] == "Round 1 of 5 · your turn"


def test_two_copies_on_the_pile_read_as_two_places() -> None:
    # Sophoi onto Fate-3, Fate-3: each copy is its own option (RULES.md E26)
    options = ({"card": None}, {"card": "Fate-3"}, {"card": "Fate-3", "depth": 2})
    why = "take a card from the top of the draw pile (or pass)"
    console, out = quiet_console()
    console.print(decision_view(Decision(0, "card", options, {"why": why}), ["a", "b"]))
    lines = out.getvalue().splitlines()
    assert lines[2:] == ["  1  Fate-3 Atropos (nearest the top)",
                         "  2  Fate-3 Atropos (2nd from the top)"]


def _turn(seed: int) -> tuple[Decision, Any]:
    state = new_game(GameConfig(players=("alice", "greedy", "heuristic"), seed=seed))
    while (decision := state.decision) is not None and decision.kind != "turn":
        state.apply(0)
    assert decision is not None
    return decision, state.observe(decision.seat)


def test_a_narrow_terminal_wraps_an_option_under_its_text_and_a_card_with_its_number() -> None:
    # at 40 columns an option's second line began at the margin, like an option of its own,
    # and the hand broke between a card's number and its name ('3' / 'Fate-1')
    for seed in range(1, 6):
        decision, view = _turn(seed)
        traps = [(i, str(o["card"])) for i, o in enumerate(decision.options)
                 if o.get("action") == "trap"]
        for width in (30, 40, 50):
            console, out = quiet_console(width=width)
            console.print(decision_view(decision, list(view.players)))
            lines = out.getvalue().splitlines()[1:]
            assert all(len(line) <= width for line in lines)
            starts = [i for i, line in enumerate(lines) if re.match(r" *\d+(-\d+)?  \S", line)]
            assert starts[0] == 0 and len(starts) == len(decision.options) - len(traps) + 1
            for i, line in enumerate(lines):  # a continuation: indented under its text
                if i not in starts:
                    indent = 7 if i > starts[-1] else 5
                    assert line[:indent] == " " * indent and line[indent] != " "
            for number, card in traps:
                assert any(f"{number} {card}" in line for line in lines[starts[-1]:])
            console, out = quiet_console(width=width)
            console.print(hand_line(view))
            shown = out.getvalue().splitlines()
            assert all(len(line) <= width for line in shown)
            for number, card in enumerate(view.hand, start=1):
                assert any(f"{number} {card}" in line for line in shown)
            assert all(line.startswith(" " * len("Your hand: ")) for line in shown[1:])


def test_a_game_every_seat_forfeited_shows_them_all_last() -> None:
    """The engine places seats that all forfeited first together; the standings (E28), and
    so the person's table, count them last: a place nobody played for reads as no credit."""
    hands = [["God-1", "God-2", "Fate-1", "Fate-2", "Beast-1"],
             ["Agari-1", "Agari-2", "Fate-3", "Beast-2", "Beast-3"],
             ["God-3", "God-4", "God-5", "Umbrae-1", "Fate-4"]]
    record = _record([1, 1, 1], ["Two Pair", "Two Pair", "Triplet"], "none")
    record["result"]["forfeits"] = {"0": "crash", "1": "timeout", "2": "crash"}
    rows = [line.split()[:2] for line in _shown(record, hands).splitlines()
            if line[:1].isdigit()]
    assert rows == [["3", "alice"], ["3", "bob"], ["3", "carol"]]


def test_after_an_ascension_the_showdown_shows_no_category_of_a_hidden_hand() -> None:
    # only the ascender's five Gods were shown, and the person's own hand (RULES.md E31)
    record = _record([2, 1, 3], ["Pair", "The Ascension", "Triplet"], "ascension")
    record["result"]["ascension"] = True
    hands = [[], ["God-1", "God-2", "God-3", "God-4", "God-5"], []]
    console, out = quiet_console()
    console.print(showdown_view(record, 0, hands))
    text = " ".join(out.getvalue().split())
    assert "alice (you) Pair" in text and "bob The Ascension" in text
    assert "Triplet" not in text and "carol not shown" in text


def test_under_strict_reclaim_the_showdown_names_the_cards_that_do_not_count() -> None:
    # seat 0 ends with God-1, God-6, Arcoi-2, Fate-3, Fate-4 and is scored a Pair: it had
    # played God-1, which under reclaim=strict does not count; the hand alone reads Two Pair
    config = GameConfig(players=("alice", "bob", "carol", "dave"), seed=5,
                        rules=HouseRules(reclaim="strict"))
    state = play_game(config, [RandomAgent(50 + seat) for seat in range(4)])
    record = json.loads(json.dumps(state.record()))
    hands = next(e["hands"] for e in record["events"] if e["type"] == "showdown")
    dead = cards_not_counted(record)
    assert dead[0] == ["God-1"] and "God-1" in hands[0]
    assert record["result"]["desmos"][0] == "Pair"
    console, out = quiet_console()
    console.print(showdown_view(record, 1, hands, dead))
    text = " ".join(out.getvalue().split())
    assert "Not counted, used for an effect by their player (reclaim=strict): alice's God-1" \
        in text
    # the default reading counts every card: nothing to say
    assert cards_not_counted(dict(record, config=dict(record["config"], rules={}))) == []


def test_a_trap_that_outlives_the_games_turns_is_said_to_stay_to_the_end() -> None:
    # seat 0 sets a trap in round 1 and another in round 5, the last: the first has its turns
    # counted down; the second would expire after two more own turns, which the game does not
    # have, and read "2 turns left" before the showdown
    state = new_game(GameConfig(players=("a", "b"), seed=3, starting_seat=0))
    arenas: list[tuple[int, str]] = []
    while (decision := state.decision) is not None:
        index = 0
        if decision.seat == 0:
            console, out = quiet_console()
            console.print(table_view(state.observe(0)))
            row = next(line for line in out.getvalue().splitlines() if line.startswith("0 "))
            arenas.append((state.round, row))
            if decision.kind == "turn" and state.round in (1, 5):
                index = next(i for i, o in enumerate(decision.options) if o["action"] == "trap")
        state.apply(index)
    early = [row for round_, row in arenas if round_ == 2]
    assert early and "Umbrae-3 (2 turns left, ready)" in early[0], early
    late = [row for round_, row in arenas if round_ > 5]  # the showdown's window
    assert late and all("(until the end, ready)" in row for row in late), late
    assert not any("turns left" in row for round_, row in arenas if round_ >= 5)


def test_with_two_copies_in_hand_every_number_the_prompt_offers_is_listed() -> None:
    """The swap said "Choose 0-5" and 5 worked, yet the list showed the second copy's card
    under its first number only (docs/PLAY.md: at the swap N lets card N go)."""
    hand = ["Agari-1", "Fate-3", "God-2", "Umbrae-4", "Fate-3"]
    view = cast(Any, SimpleNamespace(hand=hand))
    swap = Decision(0, "swap", ({"swap": None}, *({"swap": card} for card in hand[:4])),
                    {"round": 1})
    turn = Decision(0, "turn", ({"action": "hold"},
                                *({"action": "play", "card": card} for card in hand[:4]),
                                *({"action": "trap", "card": card} for card in hand[:4])),
                    {"round": 1})
    for decision in (swap, turn):
        numbering = option_numbers(decision, view)
        console, out = quiet_console()
        console.print(decision_view(decision, ["a", "b"], numbering=numbering))
        listed = []
        for line in out.getvalue().splitlines()[1:]:
            if "Set as a trap:" in line:
                listed += [int(n) for n in re.findall(r"(\d+) \S", line.split(":", 1)[1])]
            else:
                listed.append(int(line.split()[0]))
        assert sorted(listed) == sorted(numbering.picks), (decision.kind, out.getvalue())
    assert option_numbers(swap, view).spans == "0-5"


def test_a_trap_of_yours_is_never_broken_however_wide_the_revealed_cards() -> None:
    # two traps of the seat's beside a hand that Apollo brought to light: the table passed
    # 80 columns and rich broke the trap notes ('Sophoi-4 (1 turn left,' over 'ready)')
    state = new_game(GameConfig(players=("a", "bob", "c"), seed=3, starting_seat=0))
    data = state.observe(0).to_json()
    data["traps"] = [{"card": "Sophoi-4", "turns_left": 1, "triggerable": True},
                     {"card": "Umbrae-1", "turns_left": 2, "triggerable": True}]
    data["trap_counts"][0] = 2
    seen = {*data["hand"], *data["discard_graveyard"], *data["effect_graveyard"], "Sophoi-4",
            "Umbrae-1"}
    data["revealed"][1] = [card for card in ("Agari-6", "Umbrae-5", "Arcoi-3", "Arcoi-4",
                                             "Sophoi-1", "Sophoi-2", "Agari-3")
                           if card not in seen][:5]
    console, out = quiet_console()
    console.print(table_view(Observation.from_json(data)))
    text = out.getvalue()
    assert "Sophoi-4 (1 turn left, ready)" in text and "Umbrae-1 (2 turns left, ready)" in text
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80


@pytest.mark.parametrize(("face", "noted"), [
    ("Fate-3", True), ("Arcoi-2", True), ("Umbrae-1", False), ("God-1", False)])
def test_who_reveals_a_card_is_known_by_the_card_not_by_the_words(face: str,
                                                                   noted: bool) -> None:
    """The engine's own target decision with other words for why it is asked (effects.py
    rewording its prose): the reveals (Atropos, an Arcoi with no trap to destroy) still get
    the note, a look at a hand (Umbrae, Hermes) does not. The words were read: reworded,
    every note was lost without a test failing."""
    from effect_asks import ASKER, PLAYERS, asked_by, reworded

    from arena.engine.cards import NOTATION
    from arena.play.idle_effects import reveal_targets

    state, asked = asked_by(face)
    data = state.observe(ASKER).to_json()
    data["revealed"][1] = [NOTATION[card] for card in state.hands[1]]
    console, out = quiet_console()
    console.print(decision_view(reworded(asked), list(PLAYERS),
                                idle_seats=reveal_targets(Observation.from_json(data))))
    assert ("(their hand is all revealed: nothing to reveal)" in out.getvalue()) == noted


def test_choosing_who_reveals_a_card_notes_an_opponent_with_nothing_hidden() -> None:
    """Atropos's target was offered with no word that one opponent's hand was all revealed
    (an Apollo's), where the reveal would show nothing."""
    from arena.engine.observation import Observation
    from arena.play.idle_effects import reveal_targets

    shown = new_game(GameConfig(players=("alice", "bob", "carol"), seed=4)).observe(0)
    data = shown.to_json()
    data["revealed"][1] = ["God-1", "Agari-2", "Fate-1", "Beast-4", "Sophoi-5"]
    view = Observation.from_json(data)
    decision = Decision(0, "target", ({"seat": 1}, {"seat": 2}),
                        {"why": "Cut: who reveals a card", "source": "Fate-3"})
    console, out = quiet_console()
    console.print(decision_view(decision, ["alice", "bob", "carol"],
                                idle_seats=reveal_targets(view)))
    lines = [line.strip() for line in out.getvalue().splitlines()]
    assert "0  bob (seat 1) (their hand is all revealed: nothing to reveal)" in lines
    assert "1  carol (seat 2)" in lines
    other = Decision(0, "target", ({"seat": 1}, {"seat": 2}),
                     {"why": "Spy: whose hand to look at", "source": "Umbrae-1"})
    console, out = quiet_console()
    console.print(decision_view(other, ["alice", "bob", "carol"],
                                idle_seats=reveal_targets(view)))
    assert "nothing to reveal" not in out.getvalue()
