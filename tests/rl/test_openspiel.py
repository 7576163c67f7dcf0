"""Palaestra registered as an OpenSpiel game."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed "
                                                "(pip install -e '.[rl,openspiel]')")

import numpy as np  # noqa: E402

import arena.rl.openspiel  # noqa: E402,F401  (registers the game)
from arena.engine.houserules import DEFAULT_RULES, RULE_CHOICES, HouseRules  # noqa: E402
from arena.errors import IllegalChoiceError, RulesError  # noqa: E402
from arena.rl.aec import env  # noqa: E402
from arena.rl.features import OBS_SIZE  # noqa: E402
from arena.rl.openspiel import PalaestraGame  # noqa: E402
from arena.rl.view import placement_rewards  # noqa: E402


def _game(params: dict[str, Any]) -> PalaestraGame:
    """A game of the test's own: ``pyspiel.load_game`` may hand every load of the same
    parameters one game, whose deals would then follow from the tests run before."""
    return PalaestraGame(params)


def _play(game, seed: int) -> tuple[list[int], list[float]]:  # type: ignore[no-untyped-def]
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    actions = []
    while not state.is_terminal():
        action = int(rng.choice(state.legal_actions()))
        actions.append(action)
        state.apply_action(action)
    return actions, state.returns()


@pytest.mark.parametrize("players", [2, 3, 5])
def test_openspiels_random_simulation_test_passes(players: int) -> None:
    game = _game({"players": players, "seed": 1})
    assert game.num_players() == players
    assert game.num_distinct_actions() == 186
    assert game.observation_tensor_shape() == [OBS_SIZE]
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_returns_are_zero_sum_and_the_seed_replays_the_deals() -> None:
    first = _game({"players": 3, "seed": 4})
    again = _game({"players": 3, "seed": 4})
    for seed in range(3):
        played = _play(first, seed)
        assert played == _play(again, seed)
        assert sum(played[1]) == pytest.approx(0.0)


def test_a_clone_plays_on_without_touching_the_original() -> None:
    game = _game({"players": 2, "seed": 2})
    state = game.new_initial_state()
    before = state.observation_string(state.current_player())
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[-1])
    assert state.observation_string(state.current_player()) == before
    assert state.history() == [] and len(clone.history()) == 1


def test_a_clone_keeps_the_history_and_cloning_never_shifts_the_deals() -> None:
    """A clone is the same state to OpenSpiel (history, move number); and OpenSpiel's
    clone starts from a new initial state, whose deal must not be lost to the seed's
    sequence of deals."""
    game = _game({"players": 2, "seed": 5})
    twin = _game({"players": 2, "seed": 5})
    state = game.new_initial_state()
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    for clone in (state.clone(), pyspiel.State.clone(state)):  # Python's and C++'s
        assert clone.history() == state.history() and clone.move_number() == 3
        assert clone.observation_string(0) == state.observation_string(0)
    deals = [str(game.new_initial_state()) for _ in range(3)]
    twin.new_initial_state()
    assert deals == [str(twin.new_initial_state()) for _ in range(3)]


def test_only_the_seat_asked_has_legal_actions() -> None:
    game = _game({"players": 3, "seed": 3})
    state = game.new_initial_state()
    others = [p for p in range(3) if p != state.current_player()]
    assert all(state.legal_actions(p) == [] for p in others)
    assert state.action_to_string(state.current_player(), 0).endswith(": pass")


@pytest.mark.parametrize("players", [0, 1, 6])
def test_a_table_size_outside_two_to_five_is_refused_when_the_game_loads(players: int) -> None:
    with pytest.raises(RulesError, match=f"played by 2 to 5 players, not {players}"):
        pyspiel.load_game("palaestra", {"players": players})


def test_only_the_seats_own_view_is_offered() -> None:
    """The observer holds the seat's hand: asked for a public or all-seat observation, it
    refuses rather than hand that out as one; the information state (perfect recall) is a
    string, and its tensor is refused with the reason."""
    from open_spiel.python.observation import make_observation

    game = _game({"players": 2, "seed": 1})
    state = game.new_initial_state()
    assert state.observation_string(0) and len(state.observation_tensor(1)) == OBS_SIZE
    assert state.information_state_string(0) != state.information_state_string(1)
    with pytest.raises(Exception, match="as a string only"):
        state.information_state_tensor(0)
    for private in (pyspiel.PrivateInfoType.NONE, pyspiel.PrivateInfoType.ALL_PLAYERS):
        kind = pyspiel.IIGObservationType(public_info=True, perfect_recall=False,
                                          private_info=private)
        with pytest.raises(ValueError, match="only the seat's own view"):
            make_observation(game, kind)


@pytest.mark.parametrize("rule", sorted(RULE_CHOICES))
def test_house_rules_are_game_parameters_as_the_other_environments_take_them(rule: str) -> None:
    """PettingZoo and Gymnasium take ``rules=``; OpenSpiel's game took none, so a learner
    could not train there under the rules it meets in a tournament."""
    reading = RULE_CHOICES[rule][1]
    game = pyspiel.load_game(f"palaestra(players=3,seed=2,{rule}={reading})")
    assert game.get_parameters()[rule] == reading
    assert game.new_initial_state().state.config.rules == HouseRules(**{rule: reading})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
    # the observation tensor is the one the other environments give under those rules
    state = game.new_initial_state()
    seat = state.current_player()
    assert np.array_equal(np.asarray(state.observation_tensor(seat), np.float32),
                          env(3, rules={rule: reading})._views(state.state, seat)[0])
    plain = _game({"players": 3, "seed": 2}).new_initial_state()
    assert plain.state.config.rules == DEFAULT_RULES
    assert not np.array_equal(plain.observation_tensor(seat), state.observation_tensor(seat))


def test_an_unknown_house_rule_reading_is_refused_when_the_game_loads() -> None:
    with pytest.raises(RulesError, match="house rule kinds must be one of type, family"):
        pyspiel.load_game("palaestra", {"kinds": "suit"})


def test_a_pickled_game_and_state_play_on_exactly_as_the_originals() -> None:
    """OpenSpiel pickles a game by ``Serialize``, which for a sampled-stochastic game asks
    for the random generator's state (``GetRNGState unimplemented``): a researcher's
    multiprocessing, Ray or checkpoint failed on the first game or state handed over."""
    game = _game({"players": 3, "seed": 8, "kinds": "family"})
    game.new_initial_state()  # the copy deals on from where the original is
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(12):
        state.apply_action(int(rng.choice(state.legal_actions())))
    copies = (lambda: pickle.loads(pickle.dumps((game, state))),
              lambda: (copy.deepcopy(game), copy.deepcopy(state)))
    for copy_of in copies:
        copied_game, copied = copy_of()
        assert str(copied_game) == str(game)
        assert copied.history() == state.history() and str(copied) == str(state)
        assert str(copied_game.new_initial_state()) == str(game.new_initial_state())
        original = state.clone()
        while not copied.is_terminal():
            action = int(rng.choice(copied.legal_actions()))
            copied.apply_action(action)
            original.apply_action(action)
            assert copied.observation_string(0) == original.observation_string(0)
        assert copied.returns() == original.returns()


def test_an_action_that_cannot_apply_says_why() -> None:
    """At the end of the game a bare AssertionError came out, and OpenSpiel's legality check
    failed on an illegal action with ``GetRNGState unimplemented``, naming neither."""
    game = _game({"players": 2, "seed": 5})
    state = game.new_initial_state()
    illegal = next(a for a in range(186) if a not in state.legal_actions())
    with pytest.raises(IllegalChoiceError, match=f"action {illegal} .* is not legal here"):
        state.apply_action_with_legality_check(illegal)
    state.apply_action_with_legality_check(state.legal_actions()[0])
    assert len(state.history()) == 1
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    for apply in (state.apply_action, state.apply_action_with_legality_check):
        with pytest.raises(IllegalChoiceError, match="the game is over"):
            apply(0)


def test_a_game_played_in_openspiel_is_told_and_replayed_by_the_arena(tmp_path: Path) -> None:
    """docs/LEARNING.md: the record with its events is the replay of ``state.state``'s, and
    ``arena game FILE`` tells it and writes its replay page."""
    from typer.testing import CliRunner

    from arena.cli.main import app
    from arena.engine.record import replay

    game = _game({"players": 3, "seed": 6, "kinds": "family"})
    actions, returns = _play(game, 0)
    twin = _game({"players": 3, "seed": 6, "kinds": "family"})
    state = twin.new_initial_state()
    for action in actions:
        state.apply_action(action)
    record = replay(state.state.record()).record()
    assert record["events"] and placement_rewards(record["result"]["placements"]) == returns
    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps(record) + "\n")
    told = CliRunner().invoke(app, ["game", str(games), "-n", "1", "--html",
                                    str(tmp_path / "game.html")])
    assert told.exit_code == 0, told.output
    assert (tmp_path / "game.html").stat().st_size > 0
    told = CliRunner().invoke(app, ["game", str(games), "-n", "1"])
    assert "house rules: kinds=family" in told.output and "is dealt" in told.output


def test_a_clone_deals_no_game_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenSpiel's clone starts from a new initial state and overwrites it: dealing that
    state took about half of every clone, and MCTS clones at every simulation."""
    game = _game({"players": 2, "seed": 9})
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    dealt: list[object] = []
    real_new_game = arena.rl.openspiel.new_game
    monkeypatch.setattr(arena.rl.openspiel, "new_game",
                        lambda config: dealt.append(config) or real_new_game(config))
    clones = [state.clone(), pyspiel.State.clone(state), copy.deepcopy(state)]
    assert dealt == []
    assert all(str(clone) == str(state) for clone in clones)
    fresh = game.new_initial_state()
    twin = fresh.clone()  # a clone of a deal not looked at yet is that deal
    assert str(twin) == str(fresh) and len(dealt) == 2


@pytest.mark.parametrize("players", [2, 3])
def test_an_arena_bot_plays_in_openspiel_as_it_plays_in_the_arena(players: int) -> None:
    """``ArenaBot`` puts greedy, heuristic or ismcts into ``evaluate_bots`` beside OpenSpiel's
    bots: it follows its seat's event feed (the OpenSpiel game keeps no events), so it
    chooses exactly as the engine's ``play_game`` has the same bot choose."""
    from dataclasses import replace

    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    from arena.engine.agents import play_game
    from arena.rl.openspiel import ArenaBot
    from arena.rl.opponents import load_opponent
    from arena.sdk.local import BotAgent

    names = ["heuristic", "greedy", "random"][:players]
    game = _game({"players": players, "seed": 3})
    for game_number in range(2):
        bots = [ArenaBot(game, seat, name, seed=seat) for seat, name in enumerate(names)]
        deal = game.new_initial_state()
        config = replace(deal.state.config, track_events=True)
        returns = evaluate_bots(deal, bots, np.random.RandomState(0))
        agents = [BotAgent(load_opponent(name), seed=seat) for seat, name in enumerate(names)]
        played = play_game(config, agents)
        assert deal.state.choices == played.choices, game_number
        assert list(returns) == placement_rewards(played.result.placements)


def test_an_arena_bot_is_told_each_game_ends_as_play_game_tells_it() -> None:
    """A kit bot that learns between games (its ``on_game_end``) was never told a game ended
    under ``evaluate_bots``, so from its second game on it chose otherwise than in the
    engine's ``play_game``; the last action of a game may be its own or another seat's."""
    from dataclasses import replace

    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    from arena.engine.agents import play_game
    from arena.rl.openspiel import ArenaBot
    from arena.sdk.bot import Bot, GameEnd, Request
    from arena.sdk.local import BotAgent

    class Learner(Bot):
        """Plays the option its count of ended games names: it learns between games."""

        def configure(self, options: dict[str, Any]) -> None:
            super().configure(options)
            self.ended = 0

        def act(self, request: Request) -> int:
            return self.ended % len(request.legal)

        def on_game_end(self, end: GameEnd) -> None:
            self.ended += 1

    game = _game({"players": 3, "seed": 4})
    in_openspiel = [Learner() for _ in range(3)]
    bots = [ArenaBot(game, seat, bot) for seat, bot in enumerate(in_openspiel)]
    agents = [BotAgent(Learner()) for _ in range(3)]
    for game_number in range(3):
        deal = game.new_initial_state()
        config = replace(deal.state.config, track_events=True)
        evaluate_bots(deal, bots, np.random.RandomState(0))
        assert deal.state.choices == play_game(config, agents).choices, game_number
    assert [bot.ended for bot in in_openspiel] == [3, 3, 3]
