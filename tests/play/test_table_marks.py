"""The marks the table puts on cards, traps and options, as docs/PLAY.md describes them:
``(revealed)`` on a hand's card every player sees, ``(used)`` only under ``reclaim=strict``, a
trap's turns left or ``until the end``, the graveyards' counts, the default option in bold."""

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


def _drawn(view: Observation) -> str:
    console, out = quiet_console()
    console.print(table_view(view))
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
