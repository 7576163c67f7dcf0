"""The referee's event relay: which ``event`` lines each seat has not been sent yet.

Every event a seat may see travels to it once, as ``event`` lines written just before its
next ``act`` (or with ``game_end``). The relay reads the game's log once for all seats: each
new entry's payload is encoded once, and queued for every seat that may see it (the
engine's :func:`~arena.engine.decision.visible_to` decides, so the relay cannot widen an audience;
a ``game_end`` goes to each seat as the engine's :func:`~arena.engine.result.end_seen_by` shows
it, without the categories of hands an Ascension left hidden).
A public event costs one encoding whatever the number of seats; this is on the path of every
decision, hence the plain loops.
"""

from __future__ import annotations

from arena.engine import State
from arena.engine.decision import visible_to
from arena.engine.result import end_seen_by
from arena.protocol.messages import event_json, event_lines

__all__ = ["EventRelay"]


class EventRelay:
    """Per-seat queues of encoded ``event`` lines for one game (``state``'s log)."""

    __slots__ = ("_log", "_read", "_queues", "sent")

    def __init__(self, state: State) -> None:
        self._log = state.log
        self._read = 0
        self._queues: list[list[bytes]] = [[] for _ in range(state.n)]
        #: Events handed out so far, per seat.
        self.sent = [0] * state.n

    def take(self, seat: int) -> bytes:
        """The lines of every event ``seat`` may see and has not been given yet."""
        log = self._log
        end = len(log)
        if self._read < end:
            queues = self._queues
            for to, event in log[self._read:end]:
                if event["type"] == "game_end":  # public, but each seat sees its own part (E31)
                    for viewer, queue in enumerate(queues):
                        queue.append(event_json(end_seen_by(event, viewer)))
                    continue
                payload = event_json(event)
                if to is None:  # public (visible_to's first case)
                    for queue in queues:
                        queue.append(payload)
                elif to >= 0:  # one seat's own
                    queues[to].append(payload)
                else:
                    for other, queue in enumerate(queues):
                        if visible_to(to, other):
                            queue.append(payload)
            self._read = end
        queue = self._queues[seat]
        if not queue:
            return b""
        self._queues[seat] = []
        self.sent[seat] += len(queue)
        return event_lines(queue)
