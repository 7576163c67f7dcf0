"""``arena run ... 2>&1 | tee log`` when a Ctrl-C ends tee first: the run's last words meet a
closed pipe, and it must still end as a closed pipe ends a command, its games kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from store_polling import wait_for_games
from tournament_fixtures import (  # noqa: F401 - _repo_cwd: an autouse fixture
    REPO,
    _repo_cwd,
    _terminal_sigint,
    signature,
    write_spec,
)


@pytest.mark.parametrize("piped, code", [
    ("stdout", 130),  # arena run | tee log: the stop is still said on the terminal
    ("stdout and stderr", 141),  # arena run 2>&1 | tee log: nothing can be said
])
def test_a_run_whose_pipe_closed_on_ctrl_c_ends_quietly_and_resumes(
        tmp_path: Path, piped: str, code: int) -> None:
    db = tmp_path / "tee.db"
    spec = write_spec(tmp_path / "spec.yaml", db)
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "run", str(spec), "--no-progress",
         "--workers", "1"], cwd=REPO, stdout=write_end,
        stderr=write_end if piped != "stdout" else subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=_terminal_sigint)
    os.close(write_end)
    try:
        assert wait_for_games(db, "swiss-e2e", 2, timeout=120) >= 2
        os.close(read_end)  # tee, killed by the Ctrl-C before the arena says a word
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == code, err
    if err is not None:
        assert "Traceback" not in err and err.rstrip().endswith("Interrupted."), err
    signature(db, "swiss-e2e")  # every game stored whole, with its record
    resumed = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "run", str(spec), "--no-progress"],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert "swiss-e2e: 18/18 games recorded" in resumed.stdout
    assert len(signature(db, "swiss-e2e")["games"]) == 18
