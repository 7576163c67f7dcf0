"""Reading ``/proc/<pid>/stat`` past a command name a bot chose (arena.sandbox.procstat)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.sandbox.procstat import stat_fields

#: A command name that closes and reopens its parentheses, with spaces: what a naive split
#: of the stat line, or a split at the first ``)``, misreads.
TRICKY_NAME = "x) (Z 1 2"


@pytest.fixture
def renamed_child() -> Iterator[int]:
    """A child of this process that renamed itself :data:`TRICKY_NAME`, running."""
    child = subprocess.Popen(
        [sys.executable, "-c",
         f"import sys, time\nopen('/proc/self/comm', 'w').write({TRICKY_NAME!r})\n"
         "sys.stdout.write('renamed\\n'); sys.stdout.flush(); time.sleep(600)"],
        stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"renamed\n"
        yield child.pid
    finally:
        child.kill()
        child.wait()


def test_a_command_name_holding_parentheses_and_spaces_is_skipped_whole(
        renamed_child: int) -> None:
    assert Path(f"/proc/{renamed_child}/comm").read_text() == TRICKY_NAME + "\n"
    fields = stat_fields(renamed_child)
    assert fields is not None
    assert fields[0] in ("R", "S") and fields[1] == str(os.getpid())
    assert fields[3] == str(os.getsid(renamed_child))
    assert fields[2] == str(os.getpgid(renamed_child))


def test_a_thread_is_read_as_its_process(renamed_child: int) -> None:
    fields = stat_fields(renamed_child, renamed_child)
    assert fields is not None and fields[1] == str(os.getpid())


def test_a_process_gone_reads_as_none() -> None:
    """A pid above the kernel's highest never names a process: one gone for good."""
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    assert stat_fields(pid_max + 1) is None
