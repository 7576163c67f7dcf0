"""The person's seat fed by a scripted input function: answers, refusals, help, the clock."""

from __future__ import annotations

import os
import re
import sys
import termios
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from play_script import Script, quiet_console

from arena.engine import GameConfig, RandomAgent, new_game, play_game
from arena.engine.rulebook import MAX_TRAPS
from arena.play.keyboard import keys_unechoed, terminal_ask
from arena.play.labels import option_label
from arena.play.person import LeftTable, Person
from arena.play.screen import option_numbers


def _game(script: Script, seat: int = 0, **kw: Any) -> tuple[Any, str]:
    console, out = quiet_console()
    person = Person(console, script, seat, **kw)
    agents: list[Any] = [RandomAgent(3), RandomAgent(4)]
    agents[seat] = person
    state = play_game(GameConfig(players=("alice", "bot"), seed=1), agents)
    return state, out.getvalue()


def _choices(state: Any, seat: int) -> list[int]:
    return [c[2] for c in state.record()["choices"]
            if c[0] == seat]


def test_enter_plays_the_safe_default_and_numbers_pick_options() -> None:
    state, text = _game(Script(["2"]))
    choices = _choices(state, 0)
    assert choices[0] == 2 and set(choices[1:]) == {0}
    assert "Your move" in text and "Hold (do nothing this turn)" in text
    assert "Your hand: 1 " in text


def test_an_invalid_key_is_refused_with_a_hint_and_changes_nothing() -> None:
    plain, _ = _game(Script(["2"]))
    script = Script(["x", "99", "-1", "2"])
    state, text = _game(script)
    assert "'x' is not an option: type a number 0-" in text
    assert "There is no option 99: choose 0-" in text
    assert "'-1' is not an option" in text
    assert state.record()["choices"] == plain.record()["choices"]
    # the same decision was asked again each time
    assert len(set(script.prompts[:4])) == 1


def test_help_and_card_texts_change_nothing() -> None:
    plain, _ = _game(Script([]))
    state, text = _game(Script(["?", "h 1", "h 9", "h God-1", "t", "g", "l"]))
    assert state.record()["choices"] == plain.record()["choices"]
    assert "Your turn: hold (do nothing), play a card" in text
    # the rulebook's limit (Max 2 Traps per Arena): the help said 3
    assert f"(then you draw one; at most {MAX_TRAPS} traps)" in " ".join(text.split())
    # a trap is ready from the next turn, anyone's (E9), and answers a discarded God (E10)
    assert "A trap can be triggered from the next turn on" in " ".join(text.split())
    assert ("when the Palaestron is drawn, when an opponent's God fires from a forced discard "
            "and before the showdown") in " ".join(text.split())
    assert "Hermes, Messenger's Trade): Choose an opponent and look at their hand" in text
    assert "Your hand has cards 1-5; there is no card 9." in text
    assert "Discard Graveyard (0, top last): empty" in text
    # h 1 shows the first card of the hand with its rules text
    hand = plain.record()["events"][1]["cards"]
    assert any(line.startswith(f"{hand[0]} (") for line in text.splitlines())


@pytest.mark.parametrize("word", ["help", "HELP", "h", " Help "])
def test_help_typed_as_a_word_shows_the_help_and_changes_nothing(word: str) -> None:
    # the prompt says "? = help": "help" and a bare "h" were refused as not an option
    plain, _ = _game(Script([]))
    state, text = _game(Script([word]))
    assert state.record()["choices"] == plain.record()["choices"]
    assert "is not an option" not in text
    assert "Your turn: hold (do nothing), play a card" in text


def test_a_card_is_found_however_it_is_typed() -> None:
    # "h GOD-3" used to answer "GOD-3: not a card", and "h Zeus" gave no hint of the names
    # and "h god3" (no separator, as one types it fast) was not a card either
    _, text = _game(Script(["h god-3", "h FATE 2", "h crown", "h Zeus", "h sophoi1"]))
    assert text.count("God-3 (Poseidon, Tidal Wave): ") == 1
    assert "Fate-2 (Lachesis, Measure): " in text and "Crown (Crown, Royal Favour): " in text
    assert "Sophoi-1 (Sophoi, Study): " in text
    assert "Zeus: not a card (cards are named like God-3, Sophoi-1, Crown)" in text


@pytest.mark.parametrize("ending", [["quit"], ["exit"], [EOFError()]])
def test_quit_or_the_end_of_input_leaves_the_table(ending: list[Any]) -> None:
    with pytest.raises(LeftTable):
        _game(Script(ending))


def _first_decision(kind: str) -> tuple[Any, Any]:
    """The first decision of ``kind`` in random three-seat games, with its seat's view."""
    for seed in range(50):
        state = new_game(GameConfig(players=("alice", "bot", "carol"), seed=seed))
        agent = RandomAgent(seed)
        while (decision := state.decision) is not None:
            if decision.kind == kind:
                return decision, state.observe(decision.seat)
            state.apply(agent.choose(decision, state.observe(decision.seat)))
    raise AssertionError(f"no {kind} decision met")


@pytest.mark.parametrize("kind", ["discard", "reveal", "target"])
def test_enter_at_a_choice_the_rules_force_asks_again(kind: str) -> None:
    # a forced discard has no safe default: Enter pressed by mistake must not lose card 1
    decision, view = _first_decision(kind)
    numbering = option_numbers(decision, view)
    last = max(numbering.picks)
    console, out = quiet_console()
    script = Script(["", str(last)])
    choice = Person(console, script, decision.seat).choose(decision, view)
    assert choice == numbering.picks[last]
    assert f"This choice has no default: type a number {numbering.spans} (? for help)." in \
        " ".join(out.getvalue().split())
    assert len(script.prompts) == 2 and not any("Enter" in p for p in script.prompts)


def test_enter_still_takes_the_safe_default_where_there_is_one() -> None:
    decision, view = _first_decision("swap")
    assert Person(quiet_console()[0], Script([""]), decision.seat).choose(decision, view) == 0


def test_from_a_pipe_enter_takes_option_zero_even_where_the_rules_force_the_choice() -> None:
    # asking again would read the line meant for the next decision
    decision, view = _first_decision("discard")
    script = Script([""])
    person = Person(quiet_console()[0], script, decision.seat, enter_anywhere=True)
    assert person.choose(decision, view) == 0
    assert "(Enter = 1, ? = help)" in script.prompts[0]


def test_the_clock_plays_option_zero_when_time_is_up() -> None:
    script = Script([None])
    state, text = _game(script, clock=30)
    assert "Time is up (30s): played option 0, Hold (do nothing this turn)." in text
    assert _choices(state, 0)[0] == 0
    assert script.limits[0] is not None and 0 < script.limits[0] <= 30


def test_the_clock_at_a_throw_leaves_the_throw_to_the_referees_lot() -> None:
    # Rock played for a person out of time was the bot asked next's to beat: it saw the
    # whole clock pass (RULES.md E34)
    for seed in range(2000):  # a game whose hands tie when both seats play option 0
        state = new_game(GameConfig(players=("alice", "bot"), seed=seed))
        while (decision := state.decision) is not None and decision.kind != "rps":
            state.apply(0)
        if decision is not None:
            break
    assert decision is not None
    console, out = quiet_console()
    person = Person(console, Script([None]), decision.seat, clock=30)
    person.choose(decision, state.observe(decision.seat))
    assert person.gave_none()
    assert "Time is up (30s): your throw is drawn by lot." in out.getvalue()
    person = Person(quiet_console()[0], Script(["2"]), decision.seat, clock=30)
    person.choose(decision, state.observe(decision.seat))
    assert not person.gave_none()


def test_without_a_clock_the_person_has_no_time_limit() -> None:
    script = Script([])
    _game(script)
    assert script.limits and set(script.limits) == {None}


def test_every_card_offered_to_play_or_trigger_says_its_gist() -> None:
    """A card's few words live in its row of the engine's table, beside its rules text: every
    face has them, and a play or a trigger shows them."""
    from arena.engine import EFFECTS

    for face, effect in EFFECTS.items():
        assert 0 < len(effect.gist) <= 60, face
        play = option_label("turn", {"action": "play", "card": face}, [], {})
        trigger = option_label("trigger", {"trap": face, "slot": 0}, [], {})
        assert play.endswith(f": {effect.gist}") and trigger.endswith(f": {effect.gist}")


def test_labels_read_plainly() -> None:
    assert option_label("turn", {"action": "play", "card": "God-1"}, [], {}) == \
        "Play God-1 Hermes: look at a hand, may trade a card"
    assert option_label("turn", {"action": "trap", "card": "Agari-2"}, [], {}) == \
        "Set Agari-2 Raid as a trap (face down)"
    assert option_label("target", {"seat": 1, "slot": 0}, ["a", "bob"], {}) == "bob's trap 1"
    assert option_label("target", {"seat": 1}, ["a", "bob"], {}) == "bob (seat 1)"
    assert option_label("swap", {"swap": None}, [], {}) == "Keep your hand"
    assert option_label("swap", {"swap": "Beast-5"}, [], {}) == "Swap away Beast-5 Phoenix"
    assert option_label("rps", {"throw": "rock"}, [], {}) == "Rock"
    assert option_label("card", {"card": "Fate-3"}, [], {}) == "Fate-3 Atropos"
    assert option_label("card", {"card": "Fate-3", "depth": 2}, [], {}) == \
        "Fate-3 Atropos (2nd from the top)"


def test_a_palaestron_dealt_is_told_live_as_dealt() -> None:
    console, out = quiet_console()
    person = Person(console, Script([]), 0)
    state = new_game(GameConfig(players=("a", "b"), seed=10))  # seed 10 deals the Palaestron
    person.watch(state.events_for(0, 0))
    text = " ".join(out.getvalue().split())
    assert "was dealt the Palaestron: it is played now that every hand is dealt" in text
    assert "draws the Palaestron" not in text


def _play_beside(state: Any, person: Person, other: RandomAgent,
                 before_person: Callable[[Any], None] | None = None) -> None:
    """Play ``state`` to its end as the referee does: ``person`` (seat 0) is told its events
    before each decision, ``other`` plays every other seat; ``before_person`` sees each of
    the person's decisions before it is asked."""
    told = 0
    while True:
        events = state.events_for(0, told)
        told += len(events)
        person.watch(events)
        if (decision := state.decision) is None:
            return
        if decision.seat == 0 and before_person is not None:
            before_person(decision)
        agent = person if decision.seat == 0 else other
        state.apply(agent.choose(decision, state.observe(decision.seat)))


def test_the_hands_that_tied_are_shown_before_a_rock_paper_scissors_throw() -> None:
    # seed 80 between random agents ends in equal first place; seat 0 plays its answers
    plain = play_game(GameConfig(players=("a", "b"), seed=80),
                      [RandomAgent(80), RandomAgent(81)])
    assert plain.record()["result"]["tiebreak"] == "rps"
    console, out = quiet_console()
    choices, script = iter(_choices(plain, 0)), Script([])
    person = Person(console, script, 0)
    state = new_game(GameConfig(players=("a", "b"), seed=80))

    def answer(decision: Any) -> None:  # the number the screen shows for the recorded choice
        numbering = option_numbers(decision, state.observe(0))
        script.lines.append(str(numbering.shown[next(choices)]))

    _play_beside(state, person, RandomAgent(81), answer)
    text = out.getvalue()
    first_throw = text.index("Sudden-death Rock-Paper-Scissors")
    hands = next(e for e in state.events_for(0) if e["type"] == "showdown")["hands"]
    told_hands = text[:first_throw].split("Showdown: ")[-1]
    assert all(", ".join(hand) in " ".join(told_hands.split()) for hand in hands)
    assert text.count("Showdown: a: ") == 1  # once, not again at the next throw
    assert text.count("Sudden-death Rock-Paper-Scissors") > 1


def test_lines_piped_at_once_are_all_read_under_the_clock(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # with the pipe still open, the lines after the first waited in sys.stdin's buffer,
    # unseen by the clock's wait on the descriptor: the clock ran out instead
    read_end, write_end = os.pipe()
    stdin = os.fdopen(read_end, encoding="utf-8")
    writer = os.fdopen(write_end, "wb", buffering=0)
    monkeypatch.setattr(sys, "stdin", stdin)
    ask = terminal_ask(quiet_console()[0])
    with stdin, writer:
        writer.write("1\nx\n2\né".encode())
        started = time.monotonic()
        assert [ask("? ", 3), ask("? ", 3), ask("? ", None)] == ["1", "x", "2"]
        assert time.monotonic() - started < 2
        assert ask("? ", 0.1) is None  # a line not ended yet: the clock runs out
        writer.close()
        assert ask("? ", 3) == "é"  # the last line, without a newline
        with pytest.raises(EOFError):
            ask("? ", 3)


def test_a_line_typed_while_the_table_was_told_is_dropped_and_said_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the terminal echoed the line where the narration went on, and nothing came of it
    # nor was said of it
    keyboard, terminal = os.openpty()
    stdin = os.fdopen(terminal, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    console, out = quiet_console()
    ask = terminal_ask(console)
    dropped = "(what you typed while the table was told was dropped: answer here)"
    with stdin:
        os.write(keyboard, b"7\n")
        time.sleep(0.1)  # the terminal's line discipline takes the line
        assert ask("? ", 0.3) is None  # dropped: the clock ran out
        assert out.getvalue().count(dropped) == 1
        later = threading.Timer(0.2, os.write, (keyboard, b"2\n"))
        later.start()
        assert ask("? ", 5) == "2"  # typed at the prompt: read
        later.join()
        assert out.getvalue().count(dropped) == 1
    os.close(keyboard)


def test_a_terminal_echoes_keys_at_a_prompt_only_and_is_given_back_as_it_was(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Enter pressed while the table was told was echoed as a blank line into it
    keyboard, terminal = os.openpty()
    stdin = os.fdopen(terminal, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)

    def echoes() -> bool:
        return bool(termios.tcgetattr(terminal)[3] & termios.ECHO)

    seen_at_the_prompt = []
    with stdin:
        ask = terminal_ask(quiet_console()[0])
        with pytest.raises(LeftTable), keys_unechoed():
            assert not echoes()
            threading.Timer(0.2, lambda: (seen_at_the_prompt.append(echoes()),
                                          os.write(keyboard, b"1\n"))).start()
            assert ask("? ", 5) == "1"
            assert seen_at_the_prompt == [True] and not echoes()
            raise LeftTable
        assert echoes()  # as it was before, however the table was left
    os.close(keyboard)


def test_the_help_of_a_discard_says_whether_it_is_forced() -> None:
    """Clotho's own discard was explained as a forced one (shown to all, a God fires); and
    the help told them apart by the engine's words for why a discard is asked: reworded
    there, every forced discard was explained as one's own. Which it was is told here by
    what the engine does with the card (a forced_discard event or a plain discard), and the
    help is given other words than the engine's."""
    from arena.play.labels import KIND_HELP, kind_help

    seen: dict[bool, str] = {}
    for seed in range(200):
        state = new_game(GameConfig(players=("a", "b", "c"), seed=seed))
        agents = [RandomAgent(seed * 3 + i) for i in range(3)]
        while (decision := state.decision) is not None and len(seen) < 2:
            choice = agents[decision.seat].choose(decision, state.observe(decision.seat))
            logged = len(state.log)
            state.apply(choice)
            if decision.kind == "discard":
                forced = any(event["type"] == "forced_discard"
                             for _, event in state.log[logged:])
                seen[forced] = kind_help(decision.kind, {**decision.context, "why": "discard"})
        if len(seen) == 2:
            break
    assert seen[True] == KIND_HELP["discard"]
    # a God forced out opens a window to the opponents (E10)
    assert seen[True].endswith("only a God fires its effect when forced out (for you; under "
                               "the default house rules your opponents may answer it with a "
                               "trap first).")
    assert seen[False].startswith("Your own effect asks you to discard a card")
    assert "no effect fires, a God's included" in seen[False]


def _nemesis_gifts_to(seat: int) -> dict[str, tuple[Any, Any]]:
    """A decision of each Nemesis gift asked of ``seat`` in random two-seat games, with its
    observation: ``return`` after its own Nemesis (played whenever it can), ``give`` when an
    opponent's Nemesis chose it (the engine's ``why`` tells them apart)."""
    found: dict[str, tuple[Any, Any]] = {}
    for seed in range(300):
        state = new_game(GameConfig(players=("alice", "bot"), seed=seed))
        agents = [RandomAgent(seed * 2 + i) for i in range(2)]
        while (decision := state.decision) is not None and len(found) < 2:
            view = state.observe(decision.seat)
            why = str(decision.context.get("why"))
            if decision.seat == seat and decision.kind == "give" and "Nemesis" in why:
                found.setdefault("give", (decision, view))
            elif decision.seat == seat and decision.kind == "give" and "gave you" in why:
                found.setdefault("return", (decision, view))
            plays = [o.get("card") if o.get("action") == "play" else None
                     for o in decision.options]
            mine = decision.seat == seat and decision.kind == "turn" and "Fate-5" in plays
            state.apply(plays.index("Fate-5") if mine
                        else agents[decision.seat].choose(decision, view))
        if len(found) == 2:
            return found
    raise AssertionError("no game in range met both Nemesis gifts")


def test_a_nemesis_gift_names_its_card_and_its_help_says_the_received_card_may_go_back(
) -> None:
    gifts = _nemesis_gifts_to(0)
    for which, title in (("return", "Give a card to the player who gave you one (Fate-5)"),
                         ("give", "Give a card to Nemesis's player (Fate-5)")):
        decision, view = gifts[which]
        console, out = quiet_console()
        Person(console, Script(["?", ""]), 0).choose(decision, view)
        text = " ".join(out.getvalue().split())
        assert title in text
        assert ("then its player gives that opponent a card of their choice from their hand "
                "as it is then, so the card just received may be given back") in text
        assert "Fate-5 (Nemesis, Retribution): Choose an opponent: they give you a card" in text


def test_the_face_nemesis_is_told_by_is_the_one_whose_effect_is_nemesis() -> None:
    # the give's help and the gift's card are told by the decision's source: a face
    from arena.engine import EFFECTS
    from arena.engine.cards import NEMESIS

    assert EFFECTS[NEMESIS].name.startswith("Nemesis")


def test_the_help_of_a_trigger_window_says_what_moment_it_is() -> None:
    # a God fired by a forced discard opens a window (E10): its help said only "trigger or pass"
    from arena.play.labels import KIND_HELP, kind_help

    helps: dict[str, str] = {}
    for seed in range(100):
        state = new_game(GameConfig(players=("a", "b", "c", "d", "e"), seed=seed))
        agents = [RandomAgent(seed * 5 + i) for i in range(5)]
        while (decision := state.decision) is not None and "discarded" not in helps:
            if decision.kind == "trigger":
                window = str(decision.context.get("window"))
                helps[window] = kind_help(decision.kind, decision.context)
            state.apply(agents[decision.seat].choose(decision, state.observe(decision.seat)))
        if "discarded" in helps:
            break
    assert helps["discarded"].startswith(
        f"{KIND_HELP['trigger']} An opponent's God was forced out of their hand and is about to "
        "fire its effect for them: a trap triggered now resolves before it.")
    assert helps["turn_start"].endswith("a trap triggered now resolves before its player acts.")


def _first_trigger_in(window: str) -> tuple[Any, Any]:
    """The first trigger decision of ``window`` in random three-seat games, with its view."""
    for seed in range(300):
        state = new_game(GameConfig(players=("alice", "bot", "carol"), seed=seed))
        agent = RandomAgent(seed)
        while (decision := state.decision) is not None:
            if decision.kind == "trigger" and decision.context.get("window") == window:
                return decision, state.observe(decision.seat)
            state.apply(agent.choose(decision, state.observe(decision.seat)))
    raise AssertionError(f"no {window} window in 300 games")


@pytest.mark.parametrize("window", ["palaestron", "showdown"])
def test_the_help_of_a_last_window_says_a_sprung_trap_is_followed_by_another_ask(
        window: str) -> None:
    # E36: there a seat is asked again after each trap it springs; the help said only that
    # it was the last chance, so a person with two traps would think one was all they had
    decision, observation = _first_trigger_in(window)
    console, out = quiet_console(width=200)
    Person(console, Script(["?", ""]), decision.seat).choose(decision, observation)
    shown = " ".join(out.getvalue().split())
    assert "last chance" in shown
    assert "After each trap you trigger here you are asked again, until you pass." in shown


def test_a_window_opened_by_a_card_names_it_and_its_help_shows_its_text() -> None:
    # a discarded God, a declared play, a triggered trap: the window said none of them
    from arena.play.labels import card_text

    met: dict[str, tuple[Any, Any, str]] = {}
    for seed in range(100):
        state = new_game(GameConfig(players=("a", "b", "c", "d", "e"), seed=seed))
        agents = [RandomAgent(seed * 5 + i) for i in range(5)]
        shown = ""
        while (decision := state.decision) is not None and len(met) < 3:
            window = str(decision.context.get("window"))
            if decision.kind == "trigger" and window in ("discarded", "declare", "answer"):
                met.setdefault(window, (decision, state.observe(decision.seat), shown))
            state.apply(agents[decision.seat].choose(decision, state.observe(decision.seat)))
            # the card about to resolve, as the events tell it everyone
            for _, event in state.log[-12:]:
                if event.get("type") in ("forced_discard", "play", "trap_triggered"):
                    shown = str(event["card"])
        if len(met) == 3:
            break
    for window, moment in (("discarded", "before the discarded God resolves"),
                           ("declare", "against the play just declared"),
                           ("answer", "in answer to a trap")):
        decision, view, card = met[window]
        console, out = quiet_console(120)
        Person(console, Script(["?", ""]), decision.seat).choose(decision, view)
        text = out.getvalue()
        assert f"Trigger a trap (or pass), {moment} ({card})" in text
        assert card_text(card) in " ".join(text.split())


class _NemesisPlayer(Person):
    """A person who plays Nemesis whenever it can and otherwise presses Enter."""

    def choose(self, decision: Any, observation: Any) -> int:
        plays = [o.get("card") if o.get("action") == "play" else None for o in decision.options]
        nemesis = str(plays.index("Fate-5")) if "Fate-5" in plays else ""
        self.ask = Script([nemesis if decision.kind == "turn" else ""])
        return super().choose(decision, observation)


def test_the_card_a_nemesis_brought_is_marked_among_those_to_give_back() -> None:
    # the prompt did not say which card had just been received (E29: it may go back)
    for seed in range(100):
        console, out = quiet_console()
        person = _NemesisPlayer(console, Script(), 0)
        state = new_game(GameConfig(players=("alice", "bot"), seed=seed))
        bot = RandomAgent(seed)
        person.watch(state.events_for(0))  # as the referee tells a seat, before each decision
        while (decision := state.decision) is not None:
            seen = len(state.events_for(0))
            state.apply(person.choose(decision, state.observe(0)) if decision.seat == 0
                        else bot.choose(decision, state.observe(1)))
            person.watch(state.events_for(0, seen))
        text = out.getvalue()
        played = text.find("alice plays Fate-5")
        gift = re.search(r"bot gives (\S+) to alice \(by Fate-5\)", text[played:])
        if played >= 0 and gift:
            break
    else:
        raise AssertionError("alice played no Nemesis in range")
    received = re.escape(gift.group(1))
    assert re.search(rf"\n +\d+  {received} \S+ \(just received from bot\)\n", text)
    assert len(re.findall(r"\(just received from", text)) == 1


def _asked(kind: str, players: int, ready: Callable[[Any, Any], bool],
           seat: int = 0) -> tuple[Any, Any]:
    """The first decision of ``kind`` asked of ``seat`` in random games for which ``ready``
    (the decision, the seat's observation) holds, with that observation."""
    for seed in range(300):
        state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed))
        agents = [RandomAgent(seed * players + i) for i in range(players)]
        while (decision := state.decision) is not None:
            view = state.observe(decision.seat)
            if decision.seat == seat and decision.kind == kind and ready(decision, view):
                return decision, view
            state.apply(agents[decision.seat].choose(decision, view))
    raise AssertionError(f"no {kind} decision in range")


def _answered(decision: Any, view: Any, typed: str) -> tuple[int, str]:
    """The option ``typed`` picks (Enter after a refusal), and the screen with the prompt."""
    console, out = quiet_console()
    script = Script([typed])
    choice = Person(console, script, 0).choose(decision, view)
    return choice, out.getvalue() + script.prompts[0]


def test_a_card_of_the_hand_is_chosen_by_its_number_in_the_hand() -> None:
    # a forced discard listed the hand from 0 under "Your hand: 1 ...": typing 2 for the
    # hand's second card discarded the third
    decision, view = _asked("discard", 2, lambda d, v: len(d.options) == len(v.hand) >= 3)
    choice, text = _answered(decision, view, "2")
    assert decision.options[choice]["card"] == view.hand[1]
    assert f"  2  {option_label('discard', decision.options[choice], [], {})}" in text
    assert f"Choose 1-{len(view.hand)} (? = help): " in text  # no default to take
    # a reveal skips the card already shown; its number still names the same card
    decision, view = _asked("reveal", 2, lambda d, v: len(v.hand) == 5
                            and v.hand[0] in v.revealed[0] and v.hand.count(v.hand[0]) == 1
                            and v.hand[1] not in v.revealed[0])
    choice, text = _answered(decision, view, "1")
    assert "There is no option 1: choose " in text  # refused, then Enter: the first option
    assert decision.options[choice]["card"] == view.hand[1]


def test_a_player_is_chosen_by_their_seat() -> None:
    decision, view = _asked("target", 4, lambda d, v: all(o.get("slot") is None
                                                           for o in d.options))
    seats = [o["seat"] for o in decision.options]
    choice, text = _answered(decision, view, str(seats[-1]))
    assert choice == len(seats) - 1
    assert f"{seats[0]}  p{seats[0]} (seat {seats[0]})" in text


def test_players_numbered_by_seat_are_listed_in_seat_order() -> None:
    # the engine offers them from the next seat on (3, 0, 1 at seat 2), as bots see them
    decision, view = _asked("target", 4, lambda d, v: len(d.options) == 3 and all(
        o.get("slot") is None for o in d.options), seat=2)
    assert [o["seat"] for o in decision.options] == [3, 0, 1]
    choice, text = _answered(decision, view, "0")
    assert decision.options[choice]["seat"] == 0
    listed = [int(n) for n in re.findall(r"^ +(\d+)  p\d \(seat \d\)$", text, re.MULTILINE)]
    assert listed == [0, 1, 3]
    assert "Choose 0-1, 3 (? = help): " in text


def test_a_hand_holding_two_copies_keeps_its_numbers_on_a_turn() -> None:
    # one option per face: after two copies of a card, option N played card N+1
    decision, view = _asked("turn", 2, lambda d, v: len(v.hand) == 5 and v.hand[4] != v.hand[3]
                            and len(set(v.hand[:4])) < 4)
    choice, text = _answered(decision, view, "5")
    assert decision.options[choice] == {"action": "play", "card": view.hand[4]}
    choice, _ = _answered(decision, view, "10")
    assert decision.options[choice] == {"action": "trap", "card": view.hand[4]}
    twin = next(n for n, card in enumerate(view.hand, start=1) if view.hand.count(card) > 1)
    choice, _ = _answered(decision, view, str(view.hand.index(view.hand[twin - 1], twin) + 1))
    assert decision.options[choice] == {"action": "play", "card": view.hand[twin - 1]}


@pytest.mark.parametrize(("word", "kind"), [("hold", "turn"), ("Keep", "swap"),
                                            ("pass", "trigger")])
def test_the_first_option_is_picked_by_its_word(word: str, kind: str) -> None:
    # "hold" was refused as not an option where option 0 reads "Hold (do nothing this turn)"
    decision, view = _asked(kind, 2, lambda d, v: len(d.options) > 1)
    choice, text = _answered(decision, view, word)
    assert choice == 0 and "is not an option" not in text
    decision, view = _asked("discard", 2, lambda d, v: len(d.options) > 1)
    choice, text = _answered(decision, view, word)  # no such option here: refused
    assert f"'{word}' is not an option" in text



class _Trapper(Person):
    """Sets a trap whenever it can, passes every trigger window: asked at others' turns."""

    asked_at_others_turn = 0

    def choose(self, decision: Any, observation: Any) -> int:
        traps = [i for i, option in enumerate(decision.options) if option.get("action") == "trap"]
        numbering = option_numbers(decision, observation)
        self.ask = Script([str(numbering.shown[traps[0]])] if decision.kind == "turn"
                          and traps else [""])
        if (decision.kind == "trigger" and decision.context.get("window") == "turn_start"
                and observation.active_seat != self.seat):
            self.asked_at_others_turn += 1
        return super().choose(decision, observation)


def test_another_players_turn_is_headed_once_when_a_trap_window_opens_at_its_start() -> None:
    # "Round 2: bot's turn" came right before the table's "Round 2 of 5 · bot's turn"
    console, out = quiet_console()
    person = _Trapper(console, Script(), 0)
    _play_beside(new_game(GameConfig(players=("alice", "bot"), seed=3)), person, RandomAgent(4))
    lines = [line.strip() for line in out.getvalue().splitlines() if line.strip()]
    assert person.asked_at_others_turn > 0
    heading, table = r"Round \d+: bot's turn", r"Round \d+ of 5 · bot's turn"
    tables = [i for i, line in enumerate(lines) if re.fullmatch(table, line)]
    assert tables
    assert [lines[i - 1] for i in tables if re.fullmatch(heading, lines[i - 1])] == []
    # a turn of the bot's that asks nothing of the person is still headed before it is told
    assert any(re.fullmatch(heading, line) for line in lines)


def test_a_beast_is_named_with_its_element_without_brackets_in_brackets() -> None:
    from arena.play.labels import card_label, card_text

    assert card_label("Beast-5") == "Beast-5 Phoenix"
    assert card_text("Beast-5").startswith("Beast-5 (Phoenix of Aether, Rebirth): ")


@pytest.mark.parametrize(("placements", "starting", "why"), [
    ([2, 1, 3], 2, " (the loser of the game before)"),
    ([1, 3, 3], 2, " (drawn by lot among the 2 players placed last in the game before)"),
    ([1, 2, 3], 0, ""),  # places that do not account for the start: no reason made up
])
def test_a_later_games_starting_seat_is_said_with_its_reason(
        placements: list[int], starting: int, why: str) -> None:
    # the first game said why its seat starts; the second named its starter alone
    console, out = quiet_console()
    person = Person(console, Script([]), 0)
    person.watch([{"type": "game_end", "placements": placements, "desmos": ["Pair"] * 3,
                   "ascension": False, "tiebreak": "none"},
                  {"type": "game_start", "players": ["a", "b", "c"], "rounds": 5,
                   "starting_seat": starting}])
    told = " ".join(out.getvalue().split())
    assert told.endswith(f"a, b, c sit down for 5 rounds; {'abc'[starting]} starts{why}")
