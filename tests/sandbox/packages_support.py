"""Shared pieces of the per-bot environment tests: a private environment cache, a local
wheelhouse (numpy fetched once from the package index; tiny packages made here), and bots
that require them."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.sandbox import probe

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bots"
NUMPY_BOT = FIXTURES / "numpy_bot"
NUMPY_HOG = FIXTURES / "numpy_hog"


def make_wheel(directory: Path, name: str, version: str, source: str,
               extra: dict[str, bytes] | None = None) -> Path:
    """A pure-Python wheel of one module ``name`` holding ``source`` (and the ``extra`` files,
    by their paths in the wheel)."""
    dist = f"{name}-{version}"
    files = {
        f"{name}.py": source.encode(),
        f"{dist}.dist-info/METADATA": (f"Metadata-Version: 2.1\nName: {name}\n"
                                       f"Version: {version}\n").encode(),
        f"{dist}.dist-info/WHEEL": (b"Wheel-Version: 1.0\nGenerator: arena-tests\n"
                                    b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
        **(extra or {}),
    }
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{dist}.dist-info/RECORD,,")
    files[f"{dist}.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = directory / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return wheel


#: Why numpy could not be put in the wheelhouse (None: it is there).
_NO_NUMPY: list[str | None] = []


@pytest.fixture(scope="session")
def wheelhouse() -> Iterator[Path]:
    """A directory of wheels: two tiny packages, alpha_pkg and beta_pkg, and numpy for the
    sandbox's Python when the package index is reachable (downloaded once, through the host's
    pip settings; the tests that need it ask for ``numpy_wheel``)."""
    house = Path(tempfile.mkdtemp(prefix="arena-wheels-"))
    try:
        make_wheel(house, "alpha_pkg", "1.0", "WHO = 'alpha'\n")
        make_wheel(house, "beta_pkg", "2.0", "WHO = 'beta'\n")
        done = subprocess.run(
            [sys.executable, "-m", "pip", "--python", probe().python, "download",
             "--only-binary", ":all:", "--no-deps", "--disable-pip-version-check",
             "--retries", "1", "--timeout", "20", "-d", str(house), "numpy>=1.24"],
            capture_output=True, text=True, check=False)
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        _NO_NUMPY.append(None if done.returncode == 0 else last)
        yield house
    finally:
        shutil.rmtree(house, ignore_errors=True)


@pytest.fixture
def numpy_wheel(wheelhouse: Path) -> None:
    """Skips a test that needs numpy when the package index could not be reached."""
    if _NO_NUMPY and _NO_NUMPY[-1] is not None:
        pytest.skip(f"the package index is unreachable (pip download numpy: {_NO_NUMPY[-1]})")


@pytest.fixture(scope="session")
def env_cache(wheelhouse: Path) -> Iterator[Path]:
    """A private environment cache the bots' users can enter, with pip installing from the
    wheelhouse alone (no index: the builds need no network)."""
    base = Path(tempfile.mkdtemp(prefix="arena-envs-"))
    base.chmod(0o755)
    saved = {k: os.environ.get(k) for k in ("ARENA_ENV_CACHE", "PIP_NO_INDEX",
                                            "PIP_FIND_LINKS")}
    os.environ.update(ARENA_ENV_CACHE=str(base / "envs"), PIP_NO_INDEX="1",
                      PIP_FIND_LINKS=str(wheelhouse))
    try:
        yield base / "envs"
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(base, ignore_errors=True)


def package_bot(root: Path, name: str, requirements: list[str], mine: str,
                theirs: str) -> Path:
    """A bot requiring ``requirements`` that refuses to start unless it can import the
    module ``mine`` and cannot import ``theirs``."""
    bot = root / name
    bot.mkdir()
    (bot / "bot.yaml").write_text(f"name: {name}\nmodule: bot.py\nrequirements: "
                                  f"{requirements!r}\n")
    (bot / "bot.py").write_text(f'''
import importlib.util

from arena.sdk import Bot, Request

assert importlib.util.find_spec({mine!r}) is not None, "cannot import {mine}"
assert importlib.util.find_spec({theirs!r}) is None, "can import {theirs}"


class PackageBot(Bot):
    name = {name!r}

    def act(self, request: Request) -> int:
        return 0
''')
    return bot
