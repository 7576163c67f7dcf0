"""A bot's clock and strikes in one game: :class:`GameClock`, the referee's time rules.

* **Time limit**: each decision gets ``decision_ms``, plus whatever is left of the game's
  time bank.
* **Time bank**: ``time_bank_ms`` per game (Kaggle-style overage): a valid answer that took
  longer than ``decision_ms`` pays the excess from the bank; a timeout empties it, so the
  next decision of the game gets ``decision_ms`` alone.
* **Strikes**: a timeout, a protocol error or an illegal choice counts one strike (the
  decision plays its safe default, option 0; a lot at a throw, RULES.md E34). More than
  ``max_strikes`` in one game forfeits it.
* **What forfeits at once** (no strike count): a crash, an output overflow or a memory kill;
  those are judged by :class:`~arena.referee.client.BotClient`, not here.
* The bank and the strikes start afresh at every game, and at a kept process's rematch.
"""

from __future__ import annotations

from arena.sandbox import Limits

__all__ = ["GameClock"]


class GameClock:
    """The time bank and the strike count of one bot in its current game."""

    def __init__(self, limits: Limits) -> None:
        self.decision_ms = limits.decision_ms
        self.decision_s = limits.decision_ms / 1000
        self.bank_s = limits.time_bank_ms / 1000
        self.max_strikes = limits.max_strikes
        #: What is left of this game's time bank (seconds).
        self.bank = self.bank_s
        #: Strikes in this game.
        self.strikes = 0

    def new_game(self) -> None:
        """A game (or a rematch) begins: a full bank and no strikes."""
        self.strikes = 0
        self.bank = self.bank_s

    def budget(self) -> float:
        """Seconds the next decision may take: the limit plus what is left of the bank."""
        return self.decision_s + self.bank

    def answered(self, elapsed: float) -> None:
        """A valid answer in time took ``elapsed`` seconds: time past the limit is paid from
        the bank."""
        if elapsed > self.decision_s:
            self.bank = max(0.0, self.bank - (elapsed - self.decision_s))

    def timed_out(self) -> None:
        """A decision got no answer within its budget: the bank is spent."""
        self.bank = 0.0

    def strike(self) -> bool:
        """Count one strike; True when it is one too many and the game is forfeited."""
        self.strikes += 1
        return self.strikes > self.max_strikes

    def timeout_reason(self, budget: float) -> str:
        """Why a missed decision had ``budget`` seconds: the limit and the bank, or a bank
        used up earlier in the game (which explains a shorter wait)."""
        limit = self.decision_ms
        bank = round(budget * 1000) - round(self.decision_s * 1000)
        if bank > 0:
            return f" ({limit} ms + {bank} ms of time bank)"
        if self.bank_s > 0:
            return " (its time bank for the game is used up)"
        return ""
