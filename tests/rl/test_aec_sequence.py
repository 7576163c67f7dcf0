"""The PettingZoo environment's deals as a sequence: ``reset(seed=s)`` starts it, each
``reset()`` without a seed deals the next game of it, starting seats drawn from it."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

from arena.rl.aec import PalaestraAEC, env  # noqa: E402


def _deal(game: PalaestraAEC) -> tuple[int, int]:
    """The game seed and the starting seat of the environment's current game."""
    assert game.state is not None
    return game.state.config.seed, game.state.config.starting_seat


def _deals(seed: int, games: int) -> list[tuple[int, int]]:
    game = env(3)
    game.reset(seed=seed)
    deals = [_deal(game)]
    for _ in range(games - 1):
        game.reset()
        deals.append(_deal(game))
    return deals


def test_a_reset_without_a_seed_deals_the_next_game_of_the_seeded_sequence() -> None:
    deals = _deals(4, 5)
    assert deals == _deals(4, 5)
    assert len({seed for seed, _ in deals}) == 5
    assert deals != _deals(5, 5)


def test_the_starting_seat_is_drawn_from_the_seed() -> None:
    seats = [_deals(seed, 1)[0][1] for seed in range(30)]
    assert seats == [_deals(seed, 1)[0][1] for seed in range(30)]
    assert set(seats) == {0, 1, 2}
