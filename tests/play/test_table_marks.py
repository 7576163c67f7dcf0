"""The marks the table puts on cards and traps, as docs/PLAY.md describes them: ``(revealed)``
on a hand's card every player sees, ``(used)`` only under ``reclaim=strict``, and a trap's turns
left or ``until the end``."""

from __future__ import annotations

from typing import Any

from play_script import quiet_console

from arena.engine import GameConfig, Observation, new_game
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.play.screen import hand_line, table_view


def _start(seed: int = 3) -> dict[str, Any]:
    """Seat 0's view of a new game of three, as JSON to edit."""
    state = new_game(GameConfig(players=("alice", "bob", "carol"), seed=seed, starting_seat=0))
    return state.observe(0).to_json()


def _drawn(view: Observation, **rules: str) -> str:
    console, out = quiet_console()
    console.print(table_view(view, HouseRules.from_json(rules) if rules else DEFAULT_RULES))
    return out.getvalue()


def test_a_revealed_card_of_the_hand_is_marked_revealed() -> None:
    data = _start()
    data["revealed"][0] = [data["hand"][1]]
    line = hand_line(Observation.from_json(data)).plain
    cards = line.removeprefix("Your hand: ").split(" · ")
    assert cards[1] == f"2 {data['hand'][1]} (revealed)"
    assert "(revealed)" not in " ".join(cards[:1] + cards[2:])


def test_a_used_card_is_marked_only_under_strict_reclaim() -> None:
    """Under the default reclaim a card used for an effect counts again once back in hand:
    marking it ``(used)`` would tell the person it does not."""
    view = Observation.from_json(_start())
    used = frozenset(view.hand_ids[:1])
    first = f"1 {view.hand[0]}"
    assert f"{first} ·" in hand_line(view, DEFAULT_RULES, used).plain
    assert "(used)" not in hand_line(view, DEFAULT_RULES, used).plain
    strict = HouseRules.from_json({"reclaim": "strict"})
    assert f"{first} (used) ·" in hand_line(view, strict, used).plain


def _with_trap(turns_left: int) -> Observation:
    """Round 1 of 5, seat 0's turn: its own turns left, this one counted, are 5."""
    data = _start()
    data["traps"] = [{"card": "Sophoi-4", "turns_left": turns_left, "triggerable": False}]
    data["trap_counts"][0] = 1
    return Observation.from_json(data)


def test_a_trap_lasting_as_long_as_the_game_says_its_turns_left() -> None:
    view = _with_trap(5)
    assert (view.round, view.rounds, view.active_seat) == (1, 5, 0)
    assert "Sophoi-4 (5 turns left)" in _drawn(view)


def test_a_trap_outlasting_the_game_stays_until_the_end() -> None:
    assert "Sophoi-4 (until the end)" in _drawn(_with_trap(6))


def test_a_trap_with_one_turn_left_says_turn() -> None:
    assert "Sophoi-4 (1 turn left)" in _drawn(_with_trap(1))


def test_a_seat_that_forfeited_is_marked_on_the_table() -> None:
    console, out = quiet_console()
    console.print(table_view(Observation.from_json(_start()), forfeited={1}))
    rows = {line.split()[0]: line for line in out.getvalue().splitlines()[2:5]}
    assert "bob (forfeited)" in rows["1"]
    assert "forfeited" not in rows["0"] + rows["2"]


def test_the_piles_line_counts_each_graveyard_and_shows_the_discards_last_cards() -> None:
    data = _start()
    unseen = [face for face in ("Crown", "God-1", "God-2", "God-3", "God-4", "Fate-2",
                                "Fate-3", "Fate-4", "Fate-5", "Beast-1", "Beast-2", "Beast-3")
              if face not in data["hand"]]
    data["discard_graveyard"] = unseen[:6]
    data["effect_graveyard"] = unseen[6:8]
    data["draw_pile"] -= 8
    text = " ".join(_drawn(Observation.from_json(data)).split())
    assert (f"Draw pile 29 · Effect Graveyard 2 · Discard Graveyard: 2 more, "
            f"{', '.join(unseen[2:6])}") in text


def test_a_play_or_trigger_that_would_do_nothing_says_why_among_the_options() -> None:
    """A fresh table: the Discard Graveyard is empty and no opponent has a trap."""
    from arena.engine.decision import Decision
    from arena.play.idle_effects import idle_notes
    from arena.play.screen import decision_view

    idle = idle_notes(Observation.from_json(_start()))
    turn = Decision(0, "turn", ({"action": "hold"}, {"action": "play", "card": "God-2"},
                                {"action": "play", "card": "God-1"},
                                {"action": "trap", "card": "God-2"}), {})
    trigger = Decision(0, "trigger", ({"trap": None}, {"trap": "Beast-3"}),
                       {"why": "trigger a trap (or pass)", "window": "turn_start"})
    lines = []
    for decision in (turn, trigger):
        console, out = quiet_console(width=200)
        console.print(decision_view(decision, ["alice", "bob", "carol"], idle=idle))
        lines += [line.strip() for line in out.getvalue().splitlines()]
    [hades] = [line for line in lines if line.startswith("1  Play God-2")]
    assert hades.endswith(": may trade a card for one in the Discard Graveyard "
                          "(nothing in the graveyard to take)")
    [hermes] = [line for line in lines if line.startswith("2  Play God-1")]
    assert "(" not in hermes
    assert lines[-1].endswith("(no opponent has a trap)") and "Beast-3" in lines[-1]


def test_a_turns_traps_share_one_line_headed_by_their_numbers() -> None:
    from arena.play.screen import decision_view, option_numbers

    state = new_game(GameConfig(players=("alice", "bob", "carol"), seed=3, starting_seat=0))
    decision, view = state.decision, state.observe(0)
    assert decision is not None and decision.kind == "turn"
    console, out = quiet_console()
    console.print(decision_view(decision, list(view.players),
                                numbering=option_numbers(decision, view)))
    traps = "  ".join(f"{number} {card}" for number, card in enumerate(view.hand, start=6))
    assert f" 6-10  Set as a trap: {traps}" in out.getvalue().replace("\xa0", " ")


def test_the_first_option_enters_default_is_bold_and_no_other() -> None:
    import io

    from rich.console import Console

    from arena.play.screen import decision_view, option_numbers

    state = new_game(GameConfig(players=("alice", "bob", "carol"), seed=3, starting_seat=0))
    decision, view = state.decision, state.observe(0)
    assert decision is not None
    out = io.StringIO()
    Console(file=out, width=80, force_terminal=True, color_system="standard").print(
        decision_view(decision, list(view.players), numbering=option_numbers(decision, view)))
    options = out.getvalue().splitlines()[1:]
    bold = [line for line in options if "\x1b[1m" in line]
    assert len(bold) == 1 and "Hold (do nothing this turn)" in bold[0]
