"""What a bot's packages cost: building its environment the first time, finding it again, and
its start-up against a standard-library bot's.

Run as ``python -m arena.bench.environments [REQUIREMENT ...]`` (default ``numpy>=1.24``);
it builds into a fresh temporary cache (``ARENA_ENV_CACHE``), so the first build is a real one
(pip's own download cache still applies). Start-ups are timed from launch to ``ready`` in the
sandbox, alternating the two bots in blocks so both see the same load.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from arena.referee.client import BotClient
from arena.referee.launch import sandbox_launcher
from arena.registry import SAMPLE_BOTS_DIR, BotSpec, spec_from_path
from arena.registry.environments import ensure_environment, with_environment
from arena.sandbox import Limits, probe

__all__ = ["main", "startup_s"]

_BOT = '''import numpy as np

from arena.sdk import Bot, Request


class NumpyBot(Bot):
    name = "numpy_bot"

    def act(self, request: Request) -> int:
        return int(np.argmax(np.zeros(len(request.legal))))
'''


def startup_s(spec: BotSpec, times: int) -> list[float]:
    """Seconds from launch to ``ready``, ``times`` starts of ``spec`` in the sandbox."""
    launcher = sandbox_launcher()
    seconds = []
    for _ in range(times):
        client = BotClient(spec.command, spec.path, Limits(), name=spec.name, key=spec.key,
                           launcher=launcher)
        start = time.perf_counter()
        failure = client.start()
        seconds.append(time.perf_counter() - start)
        client.close()
        if failure is not None:
            raise SystemExit(f"{spec.name} did not start: {failure.detail}")
    return seconds


def main(argv: list[str]) -> None:
    requirements = tuple(argv) or ("numpy>=1.24",)
    work = Path(tempfile.mkdtemp(prefix="arena-envbench-"))
    work.chmod(0o755)  # the bots' users enter the cache
    os.environ["ARENA_ENV_CACHE"] = str(work / "envs")
    try:
        probe()
        start = time.perf_counter()
        env = ensure_environment(requirements, None)
        first = time.perf_counter() - start
        bot = work / "numpy_bot"
        bot.mkdir()
        (bot / "bot.py").write_text(_BOT)
        (bot / "bot.yaml").write_text(f"name: numpy_bot\nmodule: bot.py\nrequirements: "
                                      f"{list(requirements)!r}\n")
        again = []
        for _ in range(9):
            start = time.perf_counter()
            spec = with_environment(spec_from_path(bot))
            again.append(time.perf_counter() - start)
        print(f"environment of {', '.join(requirements)} ({', '.join(env.frozen)}): first "
              f"build {first:.1f} s; found again (resolve + cache) median "
              f"{statistics.median(again) * 1000:.1f} ms")
        plain = spec_from_path(SAMPLE_BOTS_DIR / "random.py")
        packaged: list[float] = []
        stdlib: list[float] = []
        for _ in range(4):
            stdlib += startup_s(plain, 5)
            packaged += startup_s(spec, 5)
        ratio = statistics.median(packaged) / statistics.median(stdlib)
        print(f"start-up to ready (sandbox {probe().level}), medians of {len(stdlib)}: "
              f"standard-library bot {statistics.median(stdlib) * 1000:.0f} ms, numpy bot "
              f"{statistics.median(packaged) * 1000:.0f} ms ({ratio:.2f}x)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
