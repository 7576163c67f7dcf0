"""Game records: one JSON object per game, enough to replay it move for move.

``replay`` re-plays a record from its seed and choices and fails loudly (ReplayError) at the
first difference. The schema is documented in docs/RECORDS.md.
"""

from __future__ import annotations

from typing import Any

from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.state import RECORD_FORMAT, State
from arena.errors import ReplayError, RulesError

__all__ = ["RECORD_FORMAT", "build_record", "replay"]


def build_record(state: State) -> dict[str, Any]:
    """The record of a (normally finished) game: :meth:`State.record`."""
    return state.record()


def replay(record: dict[str, Any]) -> State:
    """Re-play ``record`` from its seed and choices; raise ReplayError where it differs."""
    recorded = record.get("format", RECORD_FORMAT) if isinstance(record, dict) else None
    if recorded != RECORD_FORMAT:
        raise ReplayError(f"recorded as {recorded!r}, this engine replays {RECORD_FORMAT!r} "
                          "(the rules changed in between: see RULES.md)")
    try:
        config = GameConfig.from_json(record["config"])
        choices = [(int(s), str(k), int(i)) for s, k, i in record["choices"]]
        forfeits = sorted((int(f["at_choice"]), int(f["seat"]), str(f["reason"]))
                          for f in record.get("forfeits", []))
    except (KeyError, TypeError, ValueError, RulesError) as exc:  # RulesError: a bad config
        raise ReplayError(f"not a game record: {exc}") from None
    state = new_game(config)
    for number, (seat, kind, index) in enumerate(choices):
        while forfeits and forfeits[0][0] == number:
            _, f_seat, reason = forfeits.pop(0)
            state.forfeit(f_seat, reason)
        decision = state.decision
        if decision is None:
            raise ReplayError(f"choice {number}: the game ended but the record goes on")
        if (decision.seat, decision.kind) != (seat, kind):
            raise ReplayError(
                f"choice {number}: the record has seat {seat} choosing {kind}, the replay asks "
                f"seat {decision.seat} to choose {decision.kind}"
            )
        if not 0 <= index < len(decision.options):
            raise ReplayError(f"choice {number}: option {index} is not legal here")
        state.apply(index)
    for _, f_seat, reason in forfeits:
        state.forfeit(f_seat, reason)
    if state.decision is not None:
        raise ReplayError(f"the record ends after {len(choices)} choices but the game goes on")
    expected = record.get("result")
    actual = state.result.to_json() if state.result else None
    if expected != actual:
        raise ReplayError(f"the replayed result {actual} differs from the recorded {expected}")
    if record.get("turns") is not None and record["turns"] != [dict(t) for t in state.turn_log]:
        raise ReplayError("the replayed turns differ from the recorded turns")
    return state
