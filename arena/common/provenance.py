"""Which software made a result: stored with every tournament and game record.

Bot versions hash only the bots' own files; a changed engine or referee changes results too,
so a tournament and each of its records carry the arena's version and a fingerprint of the
engine's sources (the rules as code): two results with the same fingerprint were judged by
the same rules.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from arena import __version__

__all__ = ["software"]


@functools.lru_cache(maxsize=1)
def software() -> dict[str, str]:
    """``{"arena": version, "engine": first 12 hex digits of a sha256 over the engine's
    Python sources}``."""
    digest = hashlib.sha256()
    engine = Path(__file__).resolve().parents[1] / "engine"
    for source in sorted(engine.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return {"arena": __version__, "engine": digest.hexdigest()[:12]}
