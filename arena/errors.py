"""The one exception tree of Palaestra Arena.

Every error a user can cause derives from :class:`ArenaError`; the command line turns any of
them into ``Error: <message>`` and exit code 1, so the message must read well on its own line.
Anything else escaping to the CLI is a bug in the arena.

    ArenaError
    ├── CardError             a card or hand written in bad notation
    ├── RulesError            a game set up or driven against the rules (bad player count,
    │   │                     an option index that is not legal)
    │   └── IllegalChoiceError
    ├── ReplayError           a game record that does not replay to the same game
    ├── BotError              a bot that cannot be found, loaded or registered
    │   ├── BotNotFoundError
    │   ├── BotLoadError      a bot module the kit cannot import, or with no single Bot
    │   │                     subclass (``python -m arena.sdk.runner``, in-process opponents)
    │   ├── ManifestError     a bot.yaml that is missing fields or is not YAML
    │   ├── BotEnvironmentError  a bot's packages that cannot be installed (a requirement
    │   │                     that does not resolve, no network to the index, a full disk)
    │   ├── FilesChangedError a bot whose files are no longer its version's (a table's
    │   │                     check, a restart, the copy a launch runs)
    │   ├── SubmitError       a submission refused (name clash, failing check)
    │   └── BotNameError      a name a new bot may not take (arena.common.names; docs/BOTS.md,
    │                         "Names")
    ├── ProtocolError         a message that breaks protocol v1
    ├── SandboxError          the sandbox could not be set up
    ├── SpecError             a tournament spec that does not validate
    ├── StoreError            the results database is missing, locked or from another spec
    │   ├── DamagedRecordError  a stored game's record that does not decompress or parse
    │   └── TournamentNotFoundError
    └── ClusterError          the Ray backend is unavailable or failed

The few other exception classes are signals, not errors, and live beside the code that
raises and catches them: ``LeftTable`` (a person left ``arena play``), ``Terminated``
(SIGTERM, handled as Ctrl-C), ``VetCancelled`` (a league's vet no longer needed, unwinding
its thread), and private ones a module raises and catches itself: a search over its budget,
a cancelled table's task, a rerun's last decision, a damaged game shown from its row, a web
page asked by another spelling.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ArenaError",
    "BotEnvironmentError",
    "BotError",
    "BotLoadError",
    "BotNameError",
    "BotNotFoundError",
    "CardError",
    "ClusterError",
    "DamagedRecordError",
    "FilesChangedError",
    "IllegalChoiceError",
    "ManifestError",
    "ProtocolError",
    "ReplayError",
    "RulesError",
    "SandboxError",
    "SpecError",
    "StoreError",
    "SubmitError",
    "TournamentNotFoundError",
]


class ArenaError(Exception):
    """Base of every error a user can cause; its message is shown as ``Error: ...``."""


class CardError(ArenaError, ValueError):
    """A card name or hand that is not valid Palaestra notation."""


class RulesError(ArenaError):
    """A game set up or driven against the rules."""


class IllegalChoiceError(RulesError):
    """A choice index outside the legal options of the pending decision."""


class ReplayError(ArenaError):
    """A game record whose replay diverges from what it recorded."""


class BotError(ArenaError):
    """A bot that cannot be found, loaded, checked or registered."""


class BotNotFoundError(BotError):
    """No registered bot and no path of that name."""


class BotLoadError(BotError):
    """A bot module that cannot be imported or holds no single Bot subclass."""


class ManifestError(BotError):
    """A bot.yaml that is not valid."""


class BotEnvironmentError(BotError):
    """A bot's environment (the packages its ``bot.yaml`` requires) that cannot be built."""


class FilesChangedError(BotError):
    """A bot whose files no longer hash to the version it was checked under: what would run
    is another program under that version's name."""


class SubmitError(BotError):
    """A submission that was refused."""


class BotNameError(BotError):
    """A name a new bot may not take (:mod:`arena.common.names`)."""


class ProtocolError(ArenaError):
    """A message that breaks the referee-bot line protocol."""


class SandboxError(ArenaError):
    """The sandbox could not be prepared."""


class SpecError(ArenaError):
    """A tournament spec that does not validate; the message names the field.

    ``stored_as``: the spec's ``name`` and ``results`` as its file gives them, when bots it
    enters cannot be found (a bot removed since), so that the command may point to the
    results a tournament of that name holds; ``missing``: the indexes in ``bots`` of those
    bots, each with its entry as the file writes it (a reference, or a mapping); ``rounds``:
    the rounds the spec asks for, when it gives a whole number."""

    def __init__(self, message: str, *, stored_as: tuple[str, str] | None = None,
                 missing: dict[int, Any] | None = None, rounds: int | None = None) -> None:
        super().__init__(message)
        self.stored_as = stored_as
        self.missing = dict(missing or {})
        self.rounds = rounds


class StoreError(ArenaError):
    """The results database cannot serve the request."""


class DamagedRecordError(StoreError):
    """A stored game's record does not decompress, is not JSON, or is not a game record: the
    rest of its tournament still reads (its ``games`` row tells the game as far as it goes)."""

    def __init__(self, game: str, reason: str) -> None:
        super().__init__(f"game {game}: its stored record is damaged ({reason})")
        self.game = game
        self.reason = reason


class TournamentNotFoundError(StoreError):
    """No stored tournament of that name."""


class ClusterError(ArenaError):
    """The Ray backend is unavailable or failed."""
