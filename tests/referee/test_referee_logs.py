"""Each game's record keeps what the bot logged during that game, in full, however much the
bot logged before (the stderr cap drops the middle of a process's log, not a game's), and the
last game keeps what the bot logged while ending it."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from arena.referee.match import MatchRequest, play_match
from arena.registry import resolve
from arena.sandbox import Limits, probe

ROOT = Path(__file__).resolve().parents[2]
CHATTY = ROOT / "tests" / "fixtures" / "bots" / "chatty.py"

pytestmark = pytest.mark.skipif(not probe().can_run, reason="bots cannot run on this machine")


def test_each_game_keeps_its_own_log_past_the_stderr_cap() -> None:
    games = 14
    # 8 KiB of stderr per process: a dozen games of about 600 bytes each run past it.
    limits = Limits(decision_ms=2000, time_bank_ms=0, stderr_bytes=8192)
    outcome = play_match(MatchRequest(bots=[resolve(CHATTY), resolve(ROOT / "bots" / "random.py")],
                                      games=games, seed=5, limits=limits,
                                      event_date=dt.date(2026, 11, 29)))
    total = 0
    for game in outcome.games:
        log = game.record["referee"]["logs"]["0"]
        total += len(log)
        lines = log.splitlines()
        decisions = [int(m[2]) for line in lines
                     if (m := re.fullmatch(r"game (\d+) decision (\d+) \.+", line))
                     and int(m[1]) == game.game_index]
        assert decisions == list(range(1, game.latency[0]["decisions"] + 1))
        ends = [line for line in lines if line.startswith("END game ")]
        others = [line for line in lines if line not in ends and not line.startswith(
            f"game {game.game_index} decision ")]
        assert others == []
        # what the bot logs while ending a game opens the next game's log; the last game's
        # closes its own
        previous = outcome.games[game.game_index - 1] if game.game_index else None
        expected_ends = [] if previous is None else [
            f"END game {previous.game_index} after {previous.latency[0]['decisions']} "
            "decisions"]
        if game.game_index == games - 1:
            expected_ends.append(f"END game {game.game_index} after "
                                 f"{game.latency[0]['decisions']} decisions")
            assert lines[-1] == expected_ends[-1]
        assert ends == expected_ends
        if previous is not None:
            assert lines[0] == expected_ends[0]
    assert total > limits.stderr_bytes  # the cap was passed, and nothing was lost


def test_a_long_game_log_keeps_its_end_and_counts_what_it_dropped() -> None:
    pad = 1200  # about 14 KB a game: more than a record keeps of one game
    bot = resolve(CHATTY).with_options({"pad": pad})
    outcome = play_match(MatchRequest(bots=[bot, resolve(ROOT / "bots" / "random.py")],
                                      games=6, seed=5, limits=Limits(decision_ms=2000),
                                      event_date=dt.date(2026, 11, 29)))
    for game in outcome.games:
        log = game.record["referee"]["logs"]["0"]
        header, kept = log.split("\n", 1)
        dropped = int(re.fullmatch(r"\[\.\.\. (\d+) bytes dropped\]", header)[1])
        decisions = game.latency[0]["decisions"]
        written = sum(len(f"game {game.game_index} decision {n} ".encode()) + pad + 1
                      for n in range(1, decisions + 1))
        if game.game_index:  # the previous game's END line opens this one's log
            previous = outcome.games[game.game_index - 1].latency[0]["decisions"]
            written += len(f"END game {game.game_index - 1} after {previous} decisions\n")
        if game.game_index == len(outcome.games) - 1:
            written += len(f"END game {game.game_index} after {decisions} decisions\n")
        assert dropped + len(kept.encode()) == written
