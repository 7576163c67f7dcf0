"""Which bot of a match may run (docs/SANDBOX.md, "CPU fairness"): :class:`CpuTurn`, and
the time a bot asked is credited for the CPU the stopped ones took from it."""

from __future__ import annotations

from dataclasses import dataclass

from arena.common.cpus import allowed_cpus
from arena.referee.connection import Connection
from arena.sandbox.freezer import FREEZING_US

__all__ = ["CpuTurn", "Deadline"]

#: CPU a stopped bot may use without it being credited to the bot asked: what stopping
#: takes (its processes wake to freeze or stop).
_STOPPING_S = FREEZING_US / 1e6
#: The least a deadline is moved on by: the CPU credited in smaller steps waits for more, or
#: the referee would poll in a loop, on the CPU of the bot asked, while a stopped bot runs on.
_STEP_S = 0.001


class CpuTurn:
    """Which bot of a match may run: the one asked last (docs/SANDBOX.md, "CPU fairness").
    Asking another stops it first; a bot asked twice in a row is not stopped in between
    (nobody else thinks meanwhile), so only a change of bot costs a stop and a continue.

    A process stops only when it next leaves the kernel, so a stopped bot inside a long
    system call runs on, on the CPU of the bot asked. Where the bots share one CPU
    (:attr:`shares_cpu`: a pinned worker, or a machine with one), :meth:`credit` hands the bot
    asked the CPU the others used since its decision began; on separate CPUs they took nothing
    from it (and crediting would give a partner's run-on away as thinking time). A turn is a
    bot's decisions in a row: it begins when the bot is continued after another ran."""

    def __init__(self, *, shares_cpu: bool | None = None) -> None:
        self.running: Connection | None = None
        #: Whether the match's bots run on one CPU (the referee's, which they inherit).
        self.shares_cpu = len(allowed_cpus()) == 1 if shares_cpu is None else shares_cpu
        #: The match's bots stopped now (by :meth:`stop_other` or :meth:`rest`), by identity.
        self._stopped: dict[int, Connection] = {}
        #: The one stopped to begin the turn now beginning: its CPU counts from its stop.
        self._just_stopped: Connection | None = None
        #: Each stopped bot, and its CPU since its stop when the turn began (seconds).
        self._at_turn_start: list[tuple[Connection, float]] = []
        #: What the stopped bots used in this turn that is no longer to credit: handed out by
        #: :meth:`credit`, or used during the decisions before this one (seconds).
        self._credited = 0.0

    def stop_other(self, conn: Connection) -> None:
        """Stop the bot running now, if it is another than ``conn``; if it is ``conn``, asked
        again in a row, what the stopped bots used so far is its earlier decisions' (read
        here, before the new decision's clock starts)."""
        running = self.running
        if running is conn and self.shares_cpu:
            # a decision is credited only what was taken during it: what the stopped bots
            # used while it idled through the one before took nothing it wanted
            self._credited = max(self._credited, self._used())
        elif running is not conn:
            if running is not None:
                running.pause()
                self._stopped[id(running)] = running
                self._just_stopped = running
            self.running = None

    def give(self, conn: Connection) -> None:
        """Continue ``conn``, the bot running now stopped first if another."""
        begins = self.running is not conn
        if begins:
            self.stop_other(conn)
        conn.resume()
        self.running = conn
        if begins:
            self._stopped.pop(id(conn), None)
            self._begin_turn()

    def rest(self, conn: Connection) -> None:
        """Stop ``conn`` outside any turn (it has started and waits to be asked)."""
        self.forget(conn)
        conn.pause()
        self._stopped[id(conn)] = conn

    def forget(self, conn: Connection) -> None:
        """``conn`` is stopped or ended: no longer the one running (nor counted for others)."""
        if self.running is conn:
            self.running = None
        if self._stopped.pop(id(conn), None) is not None:
            self._at_turn_start = [(known, at) for known, at in self._at_turn_start
                                   if known is not conn]

    def credit(self, conn: Connection, cap_s: float) -> float:
        """Seconds to add to the deadline of ``conn``, the bot asked: the CPU the stopped bots
        used since its decision began, beyond what stopping takes, not credited yet,
        at most ``cap_s``; 0 under a millisecond (it waits for more), or unless they share
        its CPU."""
        if not self.shares_cpu or self.running is not conn:
            return 0.0
        extra = min(self._used() - self._credited, cap_s)
        if extra < _STEP_S:
            return 0.0
        self._credited += extra
        return extra

    def _used(self) -> float:
        """The CPU the stopped bots used since the turn began, beyond what stopping takes."""
        used = 0.0
        for other, at_start in self._at_turn_start:
            now = other.cpu_since_pause()
            if now is not None:
                used += max(0.0, now - at_start - _STOPPING_S)
        return used

    def _begin_turn(self) -> None:
        """The CPU each stopped bot used so far: the one just stopped counts from its stop
        (nothing to read), the others from now (read only where it could be credited)."""
        just, self._just_stopped = self._just_stopped, None
        self._credited = 0.0
        if self.shares_cpu:
            self._at_turn_start = [(other, 0.0 if other is just else _cpu_or_zero(other))
                                   for other in self._stopped.values()]


def _cpu_or_zero(conn: Connection) -> float:
    used = conn.cpu_since_pause()
    return used if used is not None else 0.0


@dataclass(slots=True)
class Deadline:
    """One decision's deadline (``at``, ``time.monotonic``), moved on by the seconds
    ``credited`` for the CPU the stopped bots took from ``conn``, at most its ``budget``."""

    conn: Connection
    at: float
    budget: float
    credited: float = 0.0

    def move_on(self, turn: CpuTurn) -> bool:
        """Move the deadline on by what :meth:`CpuTurn.credit` hands out now; False when
        nothing more."""
        extra = turn.credit(self.conn, self.budget - self.credited)
        if extra <= 0:
            return False
        self.at += extra
        self.credited += extra
        return True
