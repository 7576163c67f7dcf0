"""What the sandbox can do on this machine (:class:`SandboxReport`) and the names of its layers."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["LAYERS", "LEVEL_LAYERS", "NOT_NEEDED", "OPTIONAL_LAYERS", "SandboxReport", "level_of"]

#: Every layer, in the order ``level`` lists the active ones.
LAYERS = ("bwrap", "landlock", "seccomp", "cgroup", "user", "rlimits", "setsid")
#: Layers that can be switched off (setsid and rlimits are always on).
OPTIONAL_LAYERS = ("bwrap", "landlock", "seccomp", "cgroup", "user")
#: Layers named in ``level`` (setsid is always there, so it is left out of the name).
LEVEL_LAYERS = ("bwrap", "landlock", "seccomp", "cgroup", "user", "rlimits")
#: Prefix of a layer status that is not needed here (not a warning).
NOT_NEEDED = "not needed: "


@dataclass(frozen=True)
class SandboxReport:
    """What the sandbox can do here, and with what bots run."""

    #: layer -> True (active) or why not (``"not needed: ..."`` when it does not apply).
    layers: dict[str, bool | str]
    #: The active layers joined by ``+``, e.g. ``bwrap+seccomp+user+rlimits``.
    level: str
    #: One line per missing layer.
    warnings: list[str]
    #: Interpreter the bots run with (reachable and able to import the kit as the bot user).
    python: str
    python_version: str = ""
    #: Directories the interpreter needs (bound read-only under bubblewrap when not in /usr).
    python_prefixes: tuple[str, ...] = ()
    #: Directory holding the read-only copy of the ``arena`` package (put it on PYTHONPATH).
    kit_path: Path = Path()
    #: How the engine runs in bots (``compiled (...)`` or ``pure (why)``).
    bot_engine: str = ""
    #: True when the kit's compiled engine failed to load in the bots' interpreter: bots then
    #: get a kit of the sources alone (``kit_path``).
    bot_engine_pure: bool = False
    #: The account bots run as, and its ids (None: the referee's own).
    user: str = ""
    uid: int | None = None
    gid: int | None = None
    bwrap: str | None = None
    cgroup_parent: Path | None = None
    #: Where a bot gets a bare cgroup of its own, only to be frozen between its decisions,
    #: when the ``cgroup`` layer is not active (with it, the bot's cgroup is frozen); None:
    #: the referee stops bots with signals (docs/SANDBOX.md, "CPU fairness").
    freezer_parent: Path | None = None
    #: Whether bots are frozen by their cgroup, or why not.
    freezer: bool | str = "not probed"
    #: False only when no bot can run at all.
    can_run: bool = True
    disabled: frozenset[str] = field(default_factory=frozenset)

    def active(self, layer: str) -> bool:
        return self.layers.get(layer) is True

    def to_json(self) -> dict[str, Any]:
        return {
            "layers": dict(self.layers), "level": self.level, "warnings": list(self.warnings),
            "python": self.python, "python_version": self.python_version,
            "kit_path": str(self.kit_path), "bot_engine": self.bot_engine,
            "user": self.user, "uid": self.uid, "freezer": self.freezer,
            "gid": self.gid, "can_run": self.can_run, "disabled": sorted(self.disabled),
        }


def level_of(layers: dict[str, bool | str]) -> str:
    """The active layers joined by ``+`` (``setsid`` when none is)."""
    return "+".join(name for name in LEVEL_LAYERS if layers.get(name) is True) or "setsid"

