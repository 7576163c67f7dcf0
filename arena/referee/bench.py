"""``arena bench protocol``: what the referee costs per decision, against the pipe's floor.

Three figures, measured in the same run so they share the machine's state:

1. **Referee round trip**: every decision of 2-player games between two trivial sandboxed kit
   bots (they always answer 0; the game moves on with random choices), asked exactly as a
   match asks it: pending events and the observation built and encoded, written, answered,
   read and validated. Median per decision.
2. **Floor**: the same ``act`` line (median size of the warm-up's) echoed by a trivial
   sandboxed child through the same transport
   (:func:`arena.protocol.transport.measure_ping_pong_floor`): what any referee would pay for
   the pipe round trip alone. The goal is a ratio of at most 2. Round trips and floor are
   measured in alternating blocks, so a machine whose load changes during the run (other
   jobs) weighs on both alike instead of on whichever ran at the busy moment.
3. **Match throughput**: decisions/s of a sandboxed match between two sample random bots
   (persistent processes, one start per bot) against in-process random play of the same games.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.engine import GameConfig, RandomAgent, new_game, play_game
from arena.protocol import messages
from arena.protocol.transport import measure_ping_pong_floor
from arena.referee.client import BotClient
from arena.referee.match import MatchRequest, _event_encoder, game_seed, play_match
from arena.registry import PYTHON, resolve
from arena.sandbox import Limits, probe

__all__ = ["ProtocolBench", "run_protocol_bench"]

_TRIVIAL = '''"""Benchmark bot: always the safe default."""

from arena.sdk import Bot


class Trivial(Bot):
    name = "trivial"

    def act(self, request):
        return 0
'''


@dataclass
class ProtocolBench:
    """Figures of one ``arena bench protocol`` run (seconds unless named otherwise)."""

    decisions: int
    round_trip_s: float
    round_trip_p90_s: float
    floor_s: float
    act_bytes: int
    match_games: int
    match_decisions: int
    match_rate: float
    match_game_rate: float
    local_rate: float
    sandbox_level: str

    @property
    def ratio(self) -> float:
        return self.round_trip_s / self.floor_s if self.floor_s else float("inf")

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions, "round_trip_us": round(self.round_trip_s * 1e6, 1),
            "round_trip_p90_us": round(self.round_trip_p90_s * 1e6, 1),
            "floor_us": round(self.floor_s * 1e6, 1), "ratio": round(self.ratio, 2),
            "act_bytes": self.act_bytes, "match_games": self.match_games,
            "match_decisions": self.match_decisions,
            "match_decisions_per_s": round(self.match_rate),
            "match_in_game_decisions_per_s": round(self.match_game_rate),
            "in_process_decisions_per_s": round(self.local_rate),
            "sandbox_level": self.sandbox_level,
        }

    def render(self) -> str:
        return "\n".join([
            f"Sandbox level: {self.sandbox_level}",
            f"Referee round trip per decision (trivial bots, {self.decisions} decisions): "
            f"median {self.round_trip_s * 1e6:.1f} us, p90 {self.round_trip_p90_s * 1e6:.1f} us",
            f"Pipe ping-pong floor (same {self.act_bytes}-byte act line, same transport): "
            f"median {self.floor_s * 1e6:.1f} us",
            f"Ratio: {self.ratio:.2f}x the floor (goal: 2x or less)",
            f"Sandboxed match, 2 random bots, {self.match_games} games, "
            f"{self.match_decisions} decisions: {self.match_rate:,.0f} decisions/s overall "
            f"(2 start-ups and the bye included), {self.match_game_rate:,.0f} decisions/s "
            "within games",
            f"In-process random play, same games: {self.local_rate:,.0f} decisions/s "
            f"({self.local_rate / self.match_game_rate:.1f}x the sandboxed match within games)"
            if self.match_game_rate else "In-process random play: n/a",
        ])


def _trivial_bot(directory: Path) -> Path:
    file = directory / "trivial.py"
    file.write_text(_TRIVIAL)
    os.chmod(directory, 0o755)
    os.chmod(file, 0o644)
    return file


def _round_trips(clients: list[BotClient], decisions: int, seed: int, first_game: int = 0
                 ) -> tuple[list[float], list[bytes], int]:
    """Time the referee's whole per-decision work over real 2-player games between trivial
    bots, exactly as :func:`arena.referee.match.drive_game` does it (events encoded once per
    game and shared between seats); also returns the act lines sent (for the floor) and the
    next game number (a later block goes on with new games)."""
    times: list[float] = []
    lines: list[bytes] = []
    clock = time.perf_counter
    rng = random.Random(seed * 7919 + first_game)
    names = ["p0", "p1"]
    game = first_game
    while len(times) < decisions:
        state = new_game(GameConfig(players=tuple(names), seed=game_seed(seed, game)))
        for seat, client in enumerate(clients):
            client.begin_game(messages.game_start(game, seat, names, 0, state.rounds))
        cursors = [0, 0]
        encode_events = _event_encoder()
        while state.decision is not None and len(times) < decisions:
            decision = state.decision
            seat = decision.seat
            start = clock()
            pending = state.events_for(seat, cursors[seat])
            cursors[seat] += len(pending)
            observation = state.observe(seat).to_json(include_events=False)
            result = clients[seat].act(decision.kind, observation, decision.options,
                                       decision.context, encode_events(pending))
            times.append(clock() - start)
            if result.failure is not None:
                raise RuntimeError(f"the benchmark bot failed: {result.failure.detail}")
            if len(lines) < 2000:
                lines.append(messages.act(0, decision.kind, observation, decision.options,
                                          1000, decision.context))
            state.apply(rng.randrange(len(decision.options)))
        for client in clients:
            client.end_game(messages.game_end(game, [1, 1], ["", ""], False, "none"))
        game += 1
    return times, lines, game


def run_protocol_bench(decisions: int = 5000, games: int = 20, seed: int = 0,
                       warmup: int = 300, blocks: int = 5) -> ProtocolBench:
    """Measure the three figures (see the module docstring); round trips and floor in
    ``blocks`` alternating blocks of ``decisions / blocks`` each."""
    limits = Limits(decision_ms=5000, time_bank_ms=0)
    times: list[float] = []
    floors: list[float] = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        bot = _trivial_bot(Path(tmp))
        clients = [BotClient((PYTHON, "-m", "arena.sdk.runner", bot.name), bot, limits,
                             name=f"trivial{seat}") for seat in range(2)]
        try:
            for client in clients:
                failure = client.start()
                if failure is not None:
                    raise RuntimeError(f"the benchmark bot did not start: {failure.detail}")
            _, lines, _ = _round_trips(clients, warmup, seed + 1)
            lines.sort(key=len)
            sample = lines[len(lines) // 2]
            game = 0
            for block in range(blocks):
                n = (decisions * (block + 1)) // blocks - (decisions * block) // blocks
                block_times, _, game = _round_trips(clients, n, seed, game)
                times += block_times
                measure_ping_pong_floor(n, sample, limits=limits,
                                        warmup=max(1, warmup // blocks), samples=floors)
        finally:
            for client in clients:
                client.close()
    floor = statistics.median(floors)
    times.sort()
    random_bot = Path(__file__).resolve().parents[2] / "bots" / "random.py"
    spec = resolve(random_bot)
    started = time.perf_counter()
    outcome = play_match(MatchRequest(bots=[spec, spec], games=games, seed=seed, limits=limits,
                                      event_date=dt.date.today()))
    match_s = time.perf_counter() - started
    in_games = sum(game.duration_s for game in outcome.games)
    local_decisions = 0
    started = time.perf_counter()
    for g in range(games):
        config = GameConfig(players=("a", "b"), seed=game_seed(seed, g))
        state = play_game(config, [RandomAgent(2 * g), RandomAgent(2 * g + 1)])
        local_decisions += len(state.choices)
    local_s = time.perf_counter() - started
    return ProtocolBench(
        decisions=len(times), round_trip_s=statistics.median(times),
        round_trip_p90_s=times[int(len(times) * 0.9)], floor_s=floor, act_bytes=len(sample),
        match_games=games, match_decisions=outcome.decisions,
        match_rate=outcome.decisions / match_s if match_s else 0.0,
        match_game_rate=outcome.decisions / in_games if in_games else 0.0,
        local_rate=local_decisions / local_s if local_s else 0.0,
        sandbox_level=outcome.sandbox_level or probe().level)
