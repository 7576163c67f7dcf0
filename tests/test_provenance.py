"""What judged a result: the arena's version and a fingerprint of the engine's sources."""

from __future__ import annotations

import hashlib
from pathlib import Path

import arena
from arena.common.provenance import software

ENGINE = Path(arena.__file__).resolve().parent / "engine"


def test_the_fingerprint_covers_every_engine_source() -> None:
    sources = sorted(ENGINE.glob("*.py"))
    assert len(sources) > 10
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    assert software() == {"arena": arena.__version__, "engine": digest.hexdigest()[:12]}
    assert software()["engine"] != hashlib.sha256(b"").hexdigest()[:12]  # no files found
