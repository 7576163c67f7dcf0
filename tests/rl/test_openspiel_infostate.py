"""The OpenSpiel game's information states and resampling: what a seat was told and
nothing else, and OpenSpiel's imperfect-information algorithms running on them."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed "
                                                "(pip install -e '.[rl,openspiel]')")

import numpy as np  # noqa: E402
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import arena.rl.openspiel  # noqa: E402,F401  (registers the game)
from arena.engine.cards import NOTATION, PALAESTRON  # noqa: E402
from arena.engine.game import new_game  # noqa: E402
from arena.engine.state import State  # noqa: E402
from arena.engine.turn import _SET_TRAP  # noqa: E402
from arena.rl.actions import decision_actions  # noqa: E402
from arena.rl.openspiel import ArenaBot, PalaestraGame, PalaestraState, ismcts_bot  # noqa: E402
from arena.sdk.search import SearchView, Tracker  # noqa: E402


def _game(players: int, seed: int) -> PalaestraGame:
    """A game of the test's own: ``pyspiel.load_game`` may hand every load of the same
    parameters one game, whose deals would then follow from the tests run before."""
    return PalaestraGame({"players": players, "seed": seed})


def _play(state: PalaestraState, steps: int, rng: random.Random) -> None:
    for _ in range(steps):
        if state.is_terminal():
            return
        state.apply_action(rng.choice(state.legal_actions()))


def _told(state: PalaestraState, seat: int) -> list[Any]:
    """What the referee tells ``seat`` in this game, in order, from a replay that keeps every
    event: its feed's new events after each step, and each decision it is asked (with the
    revealed cards of its observation) with the option it chose."""
    replay = new_game(replace(state.state.config, track_events=True))
    told: list[Any] = list(replay.feed(seat))
    for asked, _, index in state.state.choices:
        decision = replay.decision
        assert decision is not None
        if asked == seat:
            told.append((decision.kind, decision.options, decision.context,
                         replay.observe_json(seat)["revealed"], index))
        seen = len(replay.feed(seat))
        replay.apply(index)
        told.extend(replay.feed(seat)[seen:])
    if replay.decision is not None and replay.decision.seat == seat:
        told.append((replay.decision.kind, replay.decision.options, replay.decision.context,
                     replay.observe_json(seat)["revealed"]))
    return told


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 3), st.integers(0, 10**6), st.integers(0, 150), st.integers(0, 30))
def test_a_seat_s_information_state_is_what_it_was_told(players: int, seed: int, shared: int,
                                                        after: int) -> None:
    """Two games of one deal that part at one decision (two different actions), then play
    alike where they can: for each seat, the same information state exactly when the
    referee told it the same things (another seat's hidden choice, a trap's card, a card
    drawn, changes nothing for it; anything it saw or chose does)."""
    first = _game(players, seed).new_initial_state()
    _play(first, shared, random.Random(seed))
    assume(not first.is_terminal() and len(first.legal_actions()) > 1)
    second = first.clone()
    one, other = random.Random(seed).sample(first.legal_actions(), 2)
    first.apply_action(one)
    second.apply_action(other)
    _play(first, after, random.Random(seed + 1))
    _play(second, after, random.Random(seed + 1))
    for seat in range(players):
        same_told = _told(first, seat) == _told(second, seat)
        same_key = (first.information_state_string(seat)
                    == second.information_state_string(seat))
        assert same_key == same_told, seat


def _revealed_or_hidden_trap(seed: int) -> tuple[PalaestraState, list[int]] | None:
    """A game at the turn of a seat that may set as a trap a revealed card or a hidden one:
    the state, and those two actions."""
    state = PalaestraGame({"players": 3, "seed": seed}).new_initial_state()
    rng = random.Random(seed)
    while not state.is_terminal():
        decision = state.state.decision
        assert decision is not None
        if decision.kind == "turn":
            revealed = state.state.revealed[decision.seat]
            traps = decision_actions(decision, 3)
            shown = [action for action, option, payload in zip(
                traps, decision.options, state.state._payloads)
                if option["action"] == "trap" and payload - _SET_TRAP in revealed]
            hidden = [action for action, option, payload in zip(
                traps, decision.options, state.state._payloads)
                if option["action"] == "trap" and payload - _SET_TRAP not in revealed]
            if shown and hidden:
                return state, [shown[0], hidden[0]]
        state.apply_action(rng.choice(state.legal_actions()))
    return None


def test_a_revealed_card_set_as_a_trap_changes_the_others_information_states() -> None:
    """The others see a revealed card leave its hand when it is set as a trap, though the
    event only says a trap was set: at their next decision their observations differ from
    a hidden card's trap, and so do their information states."""
    found = next(found for found in map(_revealed_or_hidden_trap, range(500)) if found)
    state, (shown, hidden) = found
    setter = state.current_player()
    games = []
    for action in (shown, hidden):
        game = state.clone()
        game.apply_action(action)
        while not game.is_terminal() and game.current_player() == setter:
            game.apply_action(game.legal_actions()[0])
        games.append(game)
    observer = games[0].current_player()
    assert observer == games[1].current_player() != setter
    assert games[0].observation_string(observer) != games[1].observation_string(observer)
    assert (games[0].information_state_string(observer)
            != games[1].information_state_string(observer))


def _giving_to_the_top(seed: int) -> tuple[PalaestraState, int, list[int]] | None:
    """A game where a seat gives a card in place of one of the top cards it looked at and
    may give a revealed card or either of two hidden ones: the state, and those actions."""
    state = PalaestraGame({"players": 3, "seed": seed}).new_initial_state()
    rng = random.Random(seed)
    while not state.is_terminal():
        engine = state.state
        decision = engine.decision
        assert decision is not None
        actions = decision_actions(decision, 3)
        if decision.kind == "give" and str(decision.context.get("why")).startswith(
                "put a card in the draw pile"):
            revealed = engine.revealed[decision.seat]
            shown = [a for a, card in zip(actions, engine._payloads) if card in revealed]
            hidden = [a for a, card in zip(actions, engine._payloads) if card not in revealed]
            if shown and len(hidden) > 1:
                return state, shown[0], hidden[:2]
        looking = [a for a, option in zip(actions, decision.options)
                   if decision.kind == "turn" and option.get("action") == "play"
                   and str(option.get("card")).startswith(("God-4", "Sophoi-", "Arcoi-"))
                   or decision.kind == "card" and option.get("card") is not None]
        state.apply_action(rng.choice(looking) if looking and rng.random() < 0.8
                           else rng.choice(state.legal_actions()))
    return None


def _whereabouts(state: PalaestraState, seat: int) -> list[Any]:
    """What the kit, told the seat's feed, knows of cards in one of a few places."""
    tracker = Tracker()
    tracker.reset(seat)
    for event in state.memory(seat).events():
        tracker.add(event)
    tracker.catch_up(seat)
    return [tracker.whereabouts, tracker.live_exchanges()]


def test_a_card_known_given_to_the_top_cards_changes_the_others_information_states() -> None:
    """The others are told which revealed card went to one of the top cards (the kit's
    whereabouts), not which hidden one: the first makes another information state than a
    hidden card would, two hidden cards the same one, as the kit's knowledge goes."""
    found = next(found for found in map(_giving_to_the_top, range(300)) if found)
    state, shown, hidden = found
    giver = state.current_player()
    games = []
    for action in (shown, *hidden):
        game = state.clone()
        game.apply_action(action)
        games.append(game)
    for seat in range(3):
        if seat == giver:
            continue
        keys = [game.information_state_string(seat) for game in games]
        known = [_whereabouts(game, seat) for game in games]
        assert any(len(where.pile) > 1 for where in known[0][0])  # the top k, not which
        assert known[0] != known[1] and keys[0] != keys[1]
        assert known[1] == known[2] and keys[1] == keys[2]


def _hidden_twin(state: PalaestraState, seed: int) -> PalaestraState:
    """``state`` with the other seats' hands and the draw pile dealt again among
    themselves (the Palaestron kept where it is): a game seat 0 cannot tell from it."""
    twin = state.clone()
    engine = twin.state
    sizes = [len(engine.hands[seat]) for seat in range(1, engine.n)]
    pool = [card for seat in range(1, engine.n) for card in engine.hands[seat]]
    pile = [card for card in engine.draw_pile if card != PALAESTRON]
    pool += pile
    random.Random(seed).shuffle(pool)
    for seat, size in zip(range(1, engine.n), sizes):
        engine.hands[seat], pool = pool[:size], pool[size:]
    engine.draw_pile = [PALAESTRON if card == PALAESTRON else pool.pop()
                        for card in engine.draw_pile]
    return twin


def _pass_until_seat_zero_is_asked(state: PalaestraState, kind: str) -> bool:
    """Every seat holds, passes and keeps its cards until seat 0 is asked a ``kind``
    decision; false where a decision cannot be passed (the Palaestron dealt forces
    discards) or the game ends first."""
    while True:
        if state.is_terminal() or 0 not in state.legal_actions():
            return False
        state.apply_action(0)
        decision = state.state.decision
        if decision is not None and decision.seat == 0 and decision.kind == kind:
            return True


def _seat_zero_sets_a_trap(state: PalaestraState) -> bool:
    """Seat 0's first turn sets a trap, and the others pass until seat 0 may spring it: a
    decision the kit's sampler cannot position a state at, where a copy is dealt again."""
    if not _pass_until_seat_zero_is_asked(state, "turn"):
        return False
    traps = [action for action in state.legal_actions() if 42 <= action < 83]
    if not traps:
        return False
    state.apply_action(traps[0])
    return _pass_until_seat_zero_is_asked(state, "trigger")


def _layout(engine: State) -> tuple[Any, ...]:
    """Where every card is, by face (copies of a card are alike), and the decision asked."""
    def faces(cards: Any) -> list[str]:
        return [NOTATION[card] for card in cards]
    return ([sorted(faces(hand)) for hand in engine.hands],
            [faces(trap.card for trap in traps) for traps in engine.traps],
            faces(engine.draw_pile), faces(engine.discard_graveyard),
            faces(engine.effect_graveyard), engine.decision.kind, engine.decision.options)


@pytest.mark.parametrize("decision", ["turn", "trigger"])
@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 3), seed=st.integers(0, 10**6),
       twin_seed=st.integers(0, 10**6))
def test_hidden_cards_and_pile_order_change_no_information_state(decision: str, players: int,
                                                                  seed: int,
                                                                  twin_seed: int) -> None:
    """Seat 0 has seen no card of the other hands nor of the pile; dealt otherwise among
    themselves, it cannot tell: its information state is the same, and a resample of it
    is the same state (it reads no hidden card), at its turn (sampled afresh) as at a
    trigger decision (a copy dealt again)."""
    state = _game(players, seed).new_initial_state()
    to_decision = (_seat_zero_sets_a_trap if decision == "trigger"
                   else lambda state: _pass_until_seat_zero_is_asked(state, "turn"))
    assume(to_decision(state))
    twin = _hidden_twin(state, twin_seed)
    assert state.information_state_string(0) == twin.information_state_string(0)
    assert _layout(state.state) != _layout(twin.state)
    resampled, twin_resampled = (
        deal.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(7, 0., 1.))
        for deal in (state, twin))
    assert _layout(resampled.state) == _layout(twin_resampled.state)


def _assert_knowledge_kept(state: PalaestraState, resampled: PalaestraState,
                           seat: int) -> None:
    """Everything ``seat`` knows of where the cards are holds in ``resampled``: its
    observation, and the cards of other hands and of the pile it saw and has not seen
    leave since (the kit's tracker, reading the seat's feed)."""
    engine, sampled = state.state, resampled.state
    assert sampled.observe_json(seat) == engine.observe_json(seat)
    decision = engine.decision
    view = SearchView(engine.observe_json(seat), state.memory(seat).events(),
                      decision.kind, decision.options, context=decision.context,
                      rules=engine.config.rules)
    for other in range(engine.n):
        if other != seat:
            held = Counter(NOTATION[card] for card in sampled.hands[other])
            assert not Counter(view.known_hand(other)) - held, other
    pile = [NOTATION[card] for card in sampled.draw_pile]
    assert len(pile) == len(view.known_pile())
    assert all(known in (None, card) for known, card in zip(view.known_pile(), pile))


@settings(max_examples=40, deadline=None)
# the sampler's seed is an int32, and so is the one after it
@given(st.integers(2, 3), st.integers(0, 10**6), st.integers(0, 250), st.integers(0, 2**31 - 2))
def test_a_resampled_state_is_one_the_seat_cannot_tell_apart(players: int, seed: int,
                                                              steps: int,
                                                              sampler_seed: int) -> None:
    """At any decision (turn and swap: sampled afresh; the others: a copy dealt again),
    the resample gives the seat asked the same information state, the same legal actions
    and everything it knows where it was; it does not depend on the true hidden cards (a
    resample of a resample deals the same, for one sampler seed); and it plays on."""
    state = _game(players, seed).new_initial_state()
    _play(state, steps, random.Random(seed))
    if state.is_terminal():
        return
    seat = state.current_player()
    resampled = state.resample_from_infostate(
        seat, pyspiel.UniformProbabilitySampler(sampler_seed, 0., 1.))
    assert resampled.information_state_string(seat) == state.information_state_string(seat)
    assert resampled.legal_actions() == state.legal_actions()
    _assert_knowledge_kept(state, resampled, seat)
    other_truth = state.resample_from_infostate(
        seat, pyspiel.UniformProbabilitySampler(sampler_seed + 1, 0., 1.))
    assert _layout(other_truth.resample_from_infostate(
        seat, pyspiel.UniformProbabilitySampler(sampler_seed, 0., 1.)).state) == _layout(
        state.resample_from_infostate(
            seat, pyspiel.UniformProbabilitySampler(sampler_seed, 0., 1.)).state)
    _play(resampled, 1000, random.Random(seed))
    assert resampled.is_terminal()


def _traps_apart(seed: int) -> tuple[PalaestraState, PalaestraState] | None:
    """Two games of one deal in which seat 0 sets a trap, seat 1 then sets a trap of a
    different card of its hand, and every seat passes until seat 0 may spring its trap (a
    copy dealt again); None where the deal allows no such games."""
    state = _game(2, seed).new_initial_state()
    if not _pass_until_seat_zero_is_asked(state, "turn"):
        return None
    traps = [action for action in state.legal_actions() if 42 <= action < 83]
    if not traps:
        return None
    state.apply_action(traps[0])
    while state.state.decision is not None and (state.state.decision.seat, state.state.decision
                                                .kind) != (1, "turn"):
        if 0 not in state.legal_actions():
            return None
        state.apply_action(0)
    traps = [action for action in state.legal_actions() if 42 <= action < 83]
    if state.is_terminal() or len(traps) < 2:
        return None
    games = state.clone(), state.clone()
    for game, trap in zip(games, (traps[0], traps[-1])):
        game.apply_action(trap)
        if not _pass_until_seat_zero_is_asked(game, "trigger"):
            return None
    return games


def test_another_seat_s_hidden_choices_are_not_in_a_resample() -> None:
    """Seat 1 set one card of its hand as a trap, or another: seat 0 was told the same, and
    a state resampled for it holds nothing of which (its record's choices name the option
    seat 1 took, its hand's place: a copy's record starts afresh, as a sampled state's)."""
    pairs = [games for games in map(_traps_apart, range(30)) if games is not None]
    assert pairs
    for first, second in pairs:
        assert first.information_state_string(0) == second.information_state_string(0)
        resampled = [game.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(
            3, 0., 1.)).state for game in (first, second)]
        assert resampled[0].record()["choices"] == resampled[1].record()["choices"]
        assert _layout(resampled[0]) == _layout(resampled[1])


def test_only_the_seat_asked_is_resampled_for() -> None:
    """Another seat's pending decision holds its hidden cards: a resample for a seat that
    is not asked is refused, not dealt around them."""
    state = _game(2, 3).new_initial_state()
    waiting = 1 - state.current_player()
    with pytest.raises(ValueError, match="resampled for the seat asked"):
        state.resample_from_infostate(waiting, pyspiel.UniformProbabilitySampler(1, 0., 1.))


def _ismcts(game: Any, simulations: int, seed: int) -> Any:
    """OpenSpiel's ISMCTSBot, restartable as ``evaluate_bots`` asks (it only resets)."""
    from open_spiel.python.algorithms import mcts

    rng = np.random.RandomState(seed)
    return ismcts_bot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, simulations,
                      random_state=rng)


def test_the_ismcts_helper_restarts_as_evaluate_bots_asks() -> None:
    # OpenSpiel's ISMCTSBot has no restart_at: evaluate_bots failed on it before a game
    from open_spiel.python.algorithms import ismcts, mcts

    game = _game(2, 5)
    rng = np.random.RandomState(0)
    bot = ismcts_bot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 4, random_state=rng,
                     max_world_samples=3)
    assert isinstance(bot, ismcts.ISMCTSBot) and bot._max_world_samples == 3
    state = game.new_initial_state()
    bot.step(state)
    assert bot._nodes  # the search's tree, kept until the next search or a restart
    bot.restart_at(state)
    assert bot._nodes == {}


@pytest.mark.parametrize("players", [2, 3])
def test_ismcts_plays_whole_games_against_random_and_greedy(players: int) -> None:
    """OpenSpiel's ISMCTS searches from resampled states to the end of real games, beside
    OpenSpiel's uniform random bot and the arena's greedy."""
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    game = _game(players, 11)
    for others in ("uniform_random", "greedy"):
        bots = [_ismcts(game, 8, 0)] + [
            pyspiel.make_uniform_random_bot(seat, seat) if others == "uniform_random"
            else ArenaBot(game, seat, "greedy") for seat in range(1, players)]
        returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
        assert len(returns) == players and sum(returns) == pytest.approx(0.0)


@pytest.mark.parametrize("players", [2, 3])
def test_outcome_sampling_mccfr_fills_its_tables_with_information_states(players: int) -> None:
    """Outcome-sampling MCCFR runs iterations; its tables are keyed by the information
    states it met, and its average policy answers at a new deal's first decision."""
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = _game(players, 5)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(5):
        solver.iteration()
    assert len(solver._infostates) > 5
    assert all(" told, " in key for key in solver._infostates)
    state = game.new_initial_state()
    policy = solver.average_policy().action_probabilities(state)
    assert set(policy) == set(state.legal_actions())
    assert sum(policy.values()) == pytest.approx(1.0)


def test_external_sampling_mccfr_updates_regrets_in_a_games_last_turns() -> None:
    """External sampling walks every action of the traverser: a whole iteration from the
    deal is out of reach (docs/LEARNING.md), so it is run on the subtree of a game's last
    turn, where it fills its tables with the information states it met."""
    from open_spiel.python.algorithms import external_sampling_mccfr

    game = _game(2, 5)
    state = game.new_initial_state()
    rng = random.Random(5)
    engine = state.state
    while not (engine.round == engine.rounds and engine.turn_in_round == engine.n - 1):
        state.apply_action(rng.choice(state.legal_actions()))
    solver = external_sampling_mccfr.ExternalSamplingSolver(game)
    for player in range(2):
        solver._update_regrets(state.clone(), player)
    assert state.information_state_string() in solver._infostates


@pytest.mark.parametrize("players", [2, 3])
def test_information_states_begun_late_are_those_kept_all_along(players: int) -> None:
    """Plain play logs no events; a seat's information state first asked late (a replay of
    the game tells the journal), or asked of a clone made before or after, is the one a
    game asked at every action has."""
    rng = random.Random(players)
    asked = _game(players, 21).new_initial_state()
    plain = _game(players, 21).new_initial_state()
    clones: list[PalaestraState] = []
    while not asked.is_terminal():
        [asked.information_state_string(seat) for seat in range(players)]
        action = rng.choice(asked.legal_actions())
        asked.apply_action(action)
        plain.apply_action(action)
        if len(asked.history()) in (5, 25):
            clones.append(plain.clone())
    assert not plain.state.track_events
    assert [plain.information_state_string(seat) for seat in range(players)] == [
        asked.information_state_string(seat) for seat in range(players)]
    late = clones[0]
    for action in asked.history()[5:25]:
        late.apply_action(action)
        if len(late.history()) == 15:
            late.information_state_string(0)  # the journal begins here, halfway
    assert all(late.information_state_string(seat) == clones[1].information_state_string(seat)
               for seat in range(players))
