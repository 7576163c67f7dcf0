"""``arena bench protocol``: what the referee costs per decision, against the pipe's floor.

Four figures, measured in the same run so they share the machine's state:

1. **Referee round trip**: every decision of 2-player games between two trivial sandboxed kit
   bots (they always answer 0; the game moves on with random choices), asked exactly as a
   match asks it: pending events and the observation built and encoded, written, answered,
   read and validated. Median per decision. The same decisions are also timed with a *bare*
   child that speaks the protocol without the kit (it answers each ``act`` with its id and
   option 0): the referee's cost alone, the kit's share being the difference. Beside them,
   the referee's own work from a bot's answer to the next ``act`` it writes (the game step,
   the events, the observation and the encoding), as it takes in the match's rhythm.
2. **Floor, three ways**, all through the same transport to trivial sandboxed children:

   * *replayed*: the very bytes the referee writes at each timed decision (pending events and
     the ``act`` line), each to the child of the seat that got it, which answers every
     ``act`` with an ``action`` line, back to back: the ping-pong of the same JSON messages
     with trivial children, the floor of the goal (a round trip of at most 2x it). Bytes are
     recorded in a pass of their own over the same games (a recorder wraps the bots'
     connections there), so the recorder's work is not in the timed round trips;
   * *tight*: one ``act`` line (median size of the warm-up's) echoed back to back by one child
     (:class:`arena.bench.children.EchoChild`): the pipe alone, lower than
     the replayed floor (one child always awake, one line per write);
   * *paced*: the replayed bytes with the referee's own time between two decisions spent in
     a busy wait first, so the children sleep as long as the bots did and the pipe pays the
     same wake-ups: on a virtual machine a process woken after an idle spell costs far more
     than one pinged back to back.

   All three ratios are reported. Round trips and floors are measured in alternating blocks
   of 50 decisions (every child started once), so a machine whose speed changes during the
   run (other jobs; a virtual machine's neighbours) weighs on all of them alike. Every block,
   round trips and floors alike, starts with a few untimed round trips, its processes having
   slept through the other blocks (the first decision after such a sleep takes several times
   the median here, and the next few more than it: a match's bots never sleep that long).
3. **Match throughput**: decisions/s of a sandboxed match between two sample random bots
   (persistent processes, one start per bot) against in-process random play of the same games.
4. **Bot start-up**: launching the trivial kit bot in the sandbox until its ``ready`` (its
   first starts and three restarts), in round trips: why one process serves a whole match.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.bench.children import EchoChild, TrivialChild
from arena.common.cpus import one_core
from arena.engine import GameConfig, RandomAgent, new_game, play_game
from arena.errors import SandboxError
from arena.protocol import messages
from arena.protocol.transport import Line
from arena.referee.client import BotClient
from arena.referee.connection import Connection, Launcher, Received
from arena.referee.launch import sandbox_launcher
from arena.referee.match import MatchRequest, play_match
from arena.referee.relay import EventRelay
from arena.referee.seeds import game_seed, utc_today
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
    #: The same decisions with a bare protocol child instead of the kit: the referee alone.
    bare_round_trip_s: float
    floor_s: float
    #: The very bytes of the timed decisions, each to the child of the seat that got it, back
    #: to back: the same messages' ping-pong with trivial children.
    replayed_floor_s: float
    paced_floor_s: float
    act_bytes: int
    match_games: int
    match_decisions: int
    match_rate: float
    match_game_rate: float
    local_rate: float
    sandbox_level: str
    #: The CPU the referee and its children were pinned to (``--one-core``), else None.
    cpu: int | None = None
    #: The referee's own work between a bot's answer and the next ``act`` it writes (the
    #: game step, events, observation, encoding), median over the timed decisions.
    work_s: float = 0.0
    #: One start of the trivial kit bot: launched in the sandbox until its ``ready`` (median).
    startup_s: float = 0.0

    @property
    def ratio(self) -> float:
        """Round trip over the tight floor."""
        return self.round_trip_s / self.floor_s if self.floor_s else float("inf")

    @property
    def bare_ratio(self) -> float:
        """The referee alone (bare child, no kit) over the replayed floor."""
        return (self.bare_round_trip_s / self.replayed_floor_s if self.replayed_floor_s
                else float("inf"))

    @property
    def replayed_ratio(self) -> float:
        """Round trip over the replayed floor: the goal's comparison (the same messages'
        ping-pong with trivial children), at most 2x."""
        return (self.round_trip_s / self.replayed_floor_s if self.replayed_floor_s
                else float("inf"))

    @property
    def paced_ratio(self) -> float:
        """Round trip over the paced floor (the replayed floor's children as idle as the
        bots were)."""
        return self.round_trip_s / self.paced_floor_s if self.paced_floor_s else float("inf")

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions, "round_trip_us": round(self.round_trip_s * 1e6, 1),
            "round_trip_p90_us": round(self.round_trip_p90_s * 1e6, 1),
            "bare_round_trip_us": round(self.bare_round_trip_s * 1e6, 1),
            "bare_ratio": round(self.bare_ratio, 2),
            "floor_us": round(self.floor_s * 1e6, 1), "ratio": round(self.ratio, 2),
            "replayed_floor_us": round(self.replayed_floor_s * 1e6, 1),
            "replayed_ratio": round(self.replayed_ratio, 2),
            "paced_floor_us": round(self.paced_floor_s * 1e6, 1),
            "paced_ratio": round(self.paced_ratio, 2),
            "act_bytes": self.act_bytes, "match_games": self.match_games,
            "match_decisions": self.match_decisions,
            "match_decisions_per_s": round(self.match_rate),
            "match_in_game_decisions_per_s": round(self.match_game_rate),
            "in_process_decisions_per_s": round(self.local_rate),
            "sandbox_level": self.sandbox_level, "cpu": self.cpu,
            "referee_work_us": round(self.work_s * 1e6, 1),
            "bot_startup_ms": round(self.startup_s * 1e3, 1),
        }

    def render(self) -> str:
        return "\n".join([
            f"Sandbox level: {self.sandbox_level}" + (
                "" if self.cpu is None else
                f"; the referee and every process it starts pinned to CPU {self.cpu}"),
            f"Referee round trip per decision (trivial bots, {self.decisions} decisions): "
            f"median {self.round_trip_s * 1e6:.1f} us, p90 {self.round_trip_p90_s * 1e6:.1f} us",
            f"The same with a bare protocol child instead of the kit (the referee alone): "
            f"median {self.bare_round_trip_s * 1e6:.1f} us "
            f"({self.bare_ratio:.2f}x the replayed floor)",
            f"The referee's own work from an answer to the next act (game step, events, "
            f"observation, encoding): median {self.work_s * 1e6:.1f} us",
            f"Floor, tight (one {self.act_bytes}-byte act line echoed back to back): "
            f"median {self.floor_s * 1e6:.1f} us; round trip {self.ratio:.2f}x it",
            f"Floor, replayed (the very bytes of the timed decisions, each to a trivial "
            f"child of its seat, back to back): median {self.replayed_floor_s * 1e6:.1f} us; "
            f"round trip {self.replayed_ratio:.2f}x it (goal: 2x or less)",
            f"Floor, paced (the same bytes to one trivial child per seat, with the referee's "
            f"gaps): median {self.paced_floor_s * 1e6:.1f} us; round trip "
            f"{self.paced_ratio:.2f}x it",
            f"Sandboxed match, 2 random bots, {self.match_games} games, "
            f"{self.match_decisions} decisions: {self.match_rate:,.0f} decisions/s overall "
            f"(2 start-ups and the bye included), {self.match_game_rate:,.0f} decisions/s "
            "within games",
            f"A bot start (the trivial kit bot, launched in the sandbox until its 'ready'): "
            f"median {self.startup_s * 1e3:.0f} ms, the price of "
            f"{self.startup_s / self.round_trip_s:,.0f} round trips: one process serves a "
            "whole match",
            f"In-process random play, same games: {self.local_rate:,.0f} decisions/s "
            f"({self.local_rate / self.match_game_rate:.1f}x the sandboxed match within games)"
            if self.match_game_rate else "In-process random play: n/a",
        ])


#: A bot without the kit: answers each ``act`` with option 0 and the act's id, nothing else.
#: Timed beside the kit bot, it tells the referee's own cost from the kit's.
_BARE = ("import os, sys\n"
         "for line in iter(sys.stdin.buffer.readline, b''):\n"
         "    if line.startswith(b'{\"type\":\"act\",\"id\":'):\n"
         "        os.write(1, b'{\"type\":\"action\",\"id\":%s,\"choice\":0}\\n'"
         " % line[19:line.index(b',', 19)])\n"
         "    elif line.startswith(b'{\"type\":\"hello\"'):\n"
         "        os.write(1, b'{\"type\":\"ready\",\"name\":\"bare\"}\\n')\n")


def _trivial_bot(directory: Path) -> Path:
    file = directory / "trivial.py"
    file.write_text(_TRIVIAL)
    os.chmod(directory, 0o755)
    os.chmod(file, 0o644)
    return file


#: A trivial child for the paced floor: reads every line, answers each ``act`` at once.
_ANSWER = ("import os, sys\n"
           "answer = b'{\"type\":\"action\",\"id\":0,\"choice\":0}\\n'\n"
           "for line in iter(sys.stdin.buffer.readline, b''):\n"
           "    if line.startswith(b'{\"type\":\"act\",'):\n"
           "        os.write(1, answer)\n")


@dataclass
class _Sent:
    """What the referee wrote for one decision, to whom, and how long it worked before."""

    seat: int
    data: bytes
    gap_s: float


class _Recorder:
    """Wraps a bot's connection: keeps the bytes of every ``act`` write and the time the
    referee spent since the previous answer (across both seats), for the paced floor."""

    def __init__(self, conn: Connection, seat: int, log: _Log) -> None:
        self.conn, self.seat, self.log = conn, seat, log
        self.level, self.pid, self.marker = conn.level, conn.pid, getattr(conn, "marker", None)

    def send(self, data: bytes) -> bool:
        log = self.log
        if log.on and b'{"type":"act",' in data:
            now = time.perf_counter()
            log.sent.append(_Sent(self.seat, data, now - log.last_answer if log.last_answer
                                  else 0.0))
        return self.conn.send(data)

    def receive(self, deadline: float) -> Received:
        got = self.conn.receive(deadline)
        self.log.last_answer = time.perf_counter()
        return got

    def __getattr__(self, name: str) -> Any:  # ended, stderr_text, shutdown, kill
        return getattr(self.conn, name)


@dataclass
class _Log:
    sent: list[_Sent] = field(default_factory=list)
    last_answer: float = 0.0
    on: bool = False


class _ReplayChildren:
    """One trivial answering child per seat for the replayed and paced floors, started once
    and kept for every block (a context manager)."""

    def __init__(self, seats: int, limits: Limits) -> None:
        self._children: list[TrivialChild] = []
        try:
            for _ in range(seats):
                self._children.append(TrivialChild(_ANSWER, limits))
        except BaseException:
            self.close()
            raise
        self.transports = [child.transport for child in self._children]

    def replay(self, sent: list[_Sent], warmup: int, *, paced: bool) -> list[float]:
        """Replay ``sent``, each to the child of its seat, back to back or (``paced``) with
        the recorded gaps; ``warmup`` untimed items first (taken from ``sent``)."""
        clock = time.perf_counter
        times: list[float] = []
        warm = sent[:warmup]
        for i, item in enumerate(warm + sent):
            transport = self.transports[item.seat]
            if paced:
                until = clock() + item.gap_s
                while clock() < until:  # the referee's own work, as it took in the timed run
                    pass
            start = clock()
            transport.send_line(item.data)
            reply = transport.receive(time.monotonic() + 30.0)
            elapsed = clock() - start
            if not isinstance(reply, Line):
                raise SandboxError(f"the floor's child failed: {reply}: "
                                   f"{transport.process.stderr_text()[-500:]}")
            if i >= len(warm):
                times.append(elapsed)
        return times

    def close(self) -> None:
        for child in self._children:
            child.close()

    def __enter__(self) -> _ReplayChildren:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _round_trips(clients: list[BotClient], decisions: int, seed: int, first_game: int = 0,
                 *, keep_lines: bool = False) -> tuple[list[float], list[bytes], int]:
    """Time the referee's whole per-decision work over real 2-player games between trivial
    bots, exactly as :func:`arena.referee.games.drive_game` does it (the game's
    :class:`~arena.referee.relay.EventRelay`); also returns the act lines sent (with
    ``keep_lines``, for the tight floor's sample: encoding them again is not the referee's
    work, so timed blocks skip it) and the next game number (a later block goes on with new
    games)."""
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
        relay = EventRelay(state)
        while state.decision is not None and len(times) < decisions:
            decision = state.decision
            seat = decision.seat
            start = clock()
            events = relay.take(seat)
            observation = state.observe_json(seat)
            result = clients[seat].act(decision.kind, observation, decision.options,
                                       decision.context, events)
            times.append(clock() - start)
            if result.failure is not None:
                raise RuntimeError(f"the benchmark bot failed: {result.failure.detail}")
            if keep_lines and len(lines) < 2000:
                lines.append(messages.act(0, decision.kind, observation, decision.options,
                                          1000, decision.context))
            state.apply(rng.randrange(len(decision.options)))
        for client in clients:
            client.end_game(messages.game_end(game, [1, 1], ["", ""], False, "none"))
        game += 1
    return times, lines, game


#: Decisions per block: round trips and floors alternate in blocks this small, so a virtual
#: machine whose speed changes from one tenth of a second to the next weighs on all of them
#: alike.
BLOCK_DECISIONS = 50
#: Untimed round trips that start every block (its processes slept through the others).
_BLOCK_WARMUP = 10


def run_protocol_bench(decisions: int = 5000, games: int = 20, seed: int = 0,
                       warmup: int = 300, blocks: int | None = None, *,
                       pin: bool = False) -> ProtocolBench:
    """Measure the figures (see the module docstring); round trips and floors in ``blocks``
    alternating blocks (default: :data:`BLOCK_DECISIONS` decisions each). With ``pin``, the
    referee and every process it starts (they inherit it) run on one CPU: both ends of every
    pipe share a core, and a wake-up never crosses to the other one."""
    if blocks is None:
        blocks = max(1, decisions // BLOCK_DECISIONS)
    if not pin:
        return _measure(decisions, games, seed, warmup, blocks)
    with one_core() as cpu:
        return replace(_measure(decisions, games, seed, warmup, blocks), cpu=cpu)


def _measure(decisions: int, games: int, seed: int, warmup: int,
             blocks: int) -> ProtocolBench:
    limits = Limits(decision_ms=5000, time_bank_ms=0)
    timed = _Timed()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp, \
            EchoChild(limits) as echo, _ReplayChildren(2, limits) as replay:
        bots = _BenchBots(_trivial_bot(Path(tmp)), limits)
        try:
            timed.starts = bots.start()
            _round_trips(bots.bare, warmup, seed + 1)
            bots.log.on = True
            _round_trips(bots.recorded, warmup, seed + 1)
            bots.log.on = False
            _, lines, _ = _round_trips(bots.kit, warmup, seed + 1, keep_lines=True)
            lines.sort(key=len)
            sample = lines[len(lines) // 2]
            echo.ping_pong(sample, 0, warmup)
            replay.replay(bots.log.sent, 0, paced=False)
            game = 0
            for block in range(blocks):
                n = (decisions * (block + 1)) // blocks - (decisions * block) // blocks
                game = _time_block(timed, bots, echo, replay, sample, n, seed, game)
        finally:
            bots.close()
    timed.times.sort()
    match_rates = _match_rates(games, seed, limits)
    return ProtocolBench(
        decisions=len(timed.times), round_trip_s=statistics.median(timed.times),
        round_trip_p90_s=timed.times[int(len(timed.times) * 0.9)],
        bare_round_trip_s=statistics.median(timed.bare), floor_s=statistics.median(timed.floors),
        replayed_floor_s=statistics.median(timed.replayed),
        paced_floor_s=statistics.median(timed.paced), act_bytes=len(sample),
        match_games=games, **match_rates,
        work_s=statistics.median(timed.gaps) if timed.gaps else 0.0,
        startup_s=statistics.median(timed.starts))


@dataclass
class _Timed:
    """Every sample of a run, in seconds."""

    times: list[float] = field(default_factory=list)
    bare: list[float] = field(default_factory=list)
    floors: list[float] = field(default_factory=list)
    replayed: list[float] = field(default_factory=list)
    paced: list[float] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    starts: list[float] = field(default_factory=list)


class _BenchBots:
    """The run's bot clients, two of each: the trivial kit bot, the same behind a recorder
    (for the floors' bytes and gaps: a pass of its own, so that the recorder's work is not
    timed as the referee's) and the bare protocol child."""

    def __init__(self, bot: Path, limits: Limits) -> None:
        self.log = _Log()
        launcher = sandbox_launcher()

        def recording(seat: int) -> Launcher:
            def start(command: Sequence[str], workdir: Path | str, limits: Limits) -> Connection:
                return _Recorder(launcher(command, workdir, limits), seat, self.log)
            return start

        command = (PYTHON, "-m", "arena.sdk.runner", bot.name)
        self.kit = [BotClient(command, bot, limits, name=f"trivial{seat}") for seat in range(2)]
        self.recorded = [BotClient(command, bot, limits, name=f"recorded{seat}",
                                   launcher=recording(seat)) for seat in range(2)]
        self.bare = [BotClient((PYTHON, "-c", _BARE), bot.parent, limits, name=f"bare{seat}")
                     for seat in range(2)]

    def start(self) -> list[float]:
        """Start every bot; the seconds of each start of a kit bot (its first starts, then
        three restarts of a warm interpreter, as after a forfeit)."""
        starts = []
        for client in self.kit + self.recorded + self.bare:
            began = time.perf_counter()
            _started(client)
            if client in self.kit:
                starts.append(time.perf_counter() - began)
        for _ in range(3):
            client = self.kit[0]
            client.close()
            began = time.perf_counter()
            _started(client)
            starts.append(time.perf_counter() - began)
        return starts

    def close(self) -> None:
        for client in self.kit + self.recorded + self.bare:
            client.close()


def _started(client: BotClient) -> None:
    failure = client.start()
    if failure is not None:
        raise RuntimeError(f"the benchmark bot did not start: {failure.detail}")


def _time_block(timed: _Timed, bots: _BenchBots, echo: EchoChild, replay: _ReplayChildren,
                sample: bytes, n: int, seed: int, game: int) -> int:
    """One block of ``n`` decisions of each measurement, from game ``game`` on; returns the
    game the next block starts with."""
    log = bots.log
    log.sent, log.last_answer, log.on = [], 0.0, True
    _round_trips(bots.recorded, n, seed, game)
    log.on = False
    timed.gaps += [item.gap_s for item in log.sent if item.gap_s > 0]
    # the warm-ups play games of their own (seed + 1), as the first warm-up did
    _round_trips(bots.kit, _BLOCK_WARMUP, seed + 1, game)
    block_times, _, next_game = _round_trips(bots.kit, n, seed, game)
    timed.times += block_times
    _round_trips(bots.bare, _BLOCK_WARMUP, seed + 1, game)
    timed.bare += _round_trips(bots.bare, n, seed, game)[0]
    timed.floors += echo.ping_pong(sample, n, _BLOCK_WARMUP)
    timed.replayed += replay.replay(log.sent, _BLOCK_WARMUP, paced=False)
    timed.paced += replay.replay(log.sent, _BLOCK_WARMUP, paced=True)
    return next_game


def _match_rates(games: int, seed: int, limits: Limits) -> dict[str, Any]:
    """A sandboxed match of two sample random bots against in-process random play of the
    same games: the :class:`ProtocolBench` fields of the match."""
    random_bot = Path(__file__).resolve().parents[2] / "bots" / "random.py"
    spec = resolve(random_bot)
    started = time.perf_counter()
    outcome = play_match(MatchRequest(bots=[spec, spec], games=games, seed=seed, limits=limits,
                                      event_date=utc_today()))
    match_s = time.perf_counter() - started
    in_games = sum(game.duration_s for game in outcome.games)
    local_decisions = 0
    started = time.perf_counter()
    for g in range(games):
        config = GameConfig(players=("a", "b"), seed=game_seed(seed, g))
        state = play_game(config, [RandomAgent(2 * g), RandomAgent(2 * g + 1)])
        local_decisions += len(state.choices)
    local_s = time.perf_counter() - started
    return {"match_decisions": outcome.decisions,
            "match_rate": outcome.decisions / match_s if match_s else 0.0,
            "match_game_rate": outcome.decisions / in_games if in_games else 0.0,
            "local_rate": local_decisions / local_s if local_s else 0.0,
            "sandbox_level": outcome.sandbox_level or probe().level}
