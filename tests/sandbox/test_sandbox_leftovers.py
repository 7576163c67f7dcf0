"""What a bot of a killed referee left in shared places (System V IPC objects, POSIX message
queues, files in /tmp and /dev/shm) is removed by the next referee, and nothing of a bot that
still runs."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import probe
from arena.sandbox.leftovers import ipc_objects, sweep_dead_uids
from arena.sandbox.uids import fresh_uid

#: Run as the bot's uid: a segment, a message queue, a file in /tmp and one in /dev/shm
#: (named after argv[1]); then exits, or sleeps with argv[2] == "stay".
_LEAVE = r"""
import ctypes, os, sys, time
name = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
assert libc.shmget(int(name[:7], 16), 4096, 0o1000 | 0o600) >= 0
rt = ctypes.CDLL("librt.so.1", use_errno=True)
assert rt.mq_open(("/" + name).encode(), os.O_CREAT | os.O_RDWR, 0o600, None) >= 0
for place in ("/tmp", "/dev/shm"):
    open(f"{place}/{name}", "w").close()
os.mkdir(f"/tmp/{name}.d")
open(f"/tmp/{name}.d/inner", "w").close()
print("left", flush=True)
if sys.argv[2] == "stay":
    time.sleep(600)
"""


def _leave(name: str, uid: int, stay: bool) -> subprocess.Popen[str]:
    proc = subprocess.Popen([probe().python, "-c", _LEAVE, name, "stay" if stay else "go"],
                            user=uid, group=uid, extra_groups=[], stdout=subprocess.PIPE,
                            text=True, cwd="/")
    assert proc.stdout is not None and proc.stdout.readline() == "left\n"
    return proc


def _left(name: str, uid: int) -> list[str]:
    found = [path for path in (f"/tmp/{name}", f"/dev/shm/{name}", f"/tmp/{name}.d")
             if os.path.lexists(path)]
    return found + [kind for kind, _ident, owner, _creator in ipc_objects() if owner == uid]


@pytest.mark.skipif(os.geteuid() != 0, reason="bots get uids of their own under root only")
def test_the_next_referee_removes_what_dead_bots_left() -> None:
    dead, alive = fresh_uid(), fresh_uid()
    dead_name, alive_name = os.urandom(8).hex(), os.urandom(8).hex()
    _leave(dead_name, dead, stay=False).wait(30)
    running = _leave(alive_name, alive, stay=True)
    try:
        assert _left(dead_name, dead) == [f"/tmp/{dead_name}", f"/dev/shm/{dead_name}",
                                          f"/tmp/{dead_name}.d", "shm"]
        assert sweep_dead_uids() >= 5  # the queue too
        assert _left(dead_name, dead) == []
        assert len(_left(alive_name, alive)) == 4  # its bot still runs
    finally:
        running.kill()
        running.wait()
    sweep_dead_uids()
    assert _left(alive_name, alive) == []
    assert not Path(f"/dev/shm/{alive_name}").exists()


def test_a_link_named_like_a_dead_referees_box_is_not_followed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Anyone may write /tmp: a link named like a dead referee's box, to a tree of the
    referee's user, had the next referee's sweep chmod every directory of that tree to 0700
    and detach every mount under it (a link to / would take the root filesystem)."""
    from arena.sandbox import strays
    from arena.sandbox.workdir import remove_tree

    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    for directory in (victim, victim / "sub"):
        directory.chmod(0o755)
    temp = tmp_path / "tmp"
    temp.mkdir()
    dead = subprocess.Popen(["true"])  # a pid that has ended
    dead.wait()
    link = temp / f"arena-box-{dead.pid}-planted"
    link.symlink_to(victim)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(strays, "_swept", False)
    monkeypatch.setattr(strays, "kill_strays", lambda: [])
    monkeypatch.setattr(strays, "sweep_dead_uids", lambda: 0)
    strays.sweep_once()
    remove_tree(link)
    assert [oct(d.stat().st_mode & 0o777) for d in (victim, victim / "sub")] == ["0o755"] * 2
    assert (victim / "sub").is_dir()


def test_a_box_named_with_a_number_past_any_pid_is_removed_not_a_crash(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Anyone may make /tmp/arena-box-99999999999999999999-x: looking for that "referee"
    raised OverflowError, so every arena match and run ended in a traceback."""
    from arena.sandbox import strays

    temp = tmp_path / "tmp"
    planted = temp / "arena-box-99999999999999999999-x"
    planted.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(strays, "_swept", False)
    monkeypatch.setattr(strays, "kill_strays", lambda: [])
    monkeypatch.setattr(strays, "sweep_dead_uids", lambda: 0)
    strays.sweep_once()
    assert not planted.exists()  # ours and nobody's: removed like a dead referee's box


@pytest.mark.parametrize("when", ["listed", "looked at"])
def test_a_directory_swapped_for_a_link_while_a_box_is_removed_is_not_followed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    """Without bubblewrap and Landlock, a helper a bot left behind (other bots of the
    referee still running) may still reach its scratch directory under the box once its
    tmpfs is detached, and swap a directory there for a link to a tree of the referee's
    user just after the removal listed it, or looked whether it was a link: the removal
    chmodded whatever the link named to 0700 (/etc would lock every other user out)."""
    from arena.sandbox.workdir import remove_tree

    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    for directory in (victim, victim / "sub"):
        directory.chmod(0o755)
    box = tmp_path / "box"
    home = box / "home"
    (home / "swapped" / "deeper").mkdir(parents=True)
    islink, scandir = os.path.islink, os.scandir

    def swap() -> None:  # the helper's, once: the directory made a link to the victim
        if not (home / "swapped").is_symlink():
            (home / "swapped").rename(home / "was")
            (home / "swapped").symlink_to(victim)

    class Listed:
        """A listing of the directory taken whole, the swap made just after it."""

        def __init__(self, path: Any) -> None:
            with scandir(path) as it:
                self.entries = iter(list(it))
            shown = os.readlink(f"/proc/self/fd/{path}") if isinstance(path, int) else path
            if when == "listed" and str(shown) == str(home):
                swap()

        def __iter__(self) -> Listed:
            return self

        def __next__(self) -> Any:
            return next(self.entries)

        def __enter__(self) -> Listed:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def close(self) -> None:
            return None

    def racing_islink(path: Any) -> bool:  # where the look at a name precedes the chmod
        found = islink(path)
        if when == "looked at" and str(path) == str(home / "swapped"):
            swap()
        return found

    monkeypatch.setattr(os.path, "islink", racing_islink)
    monkeypatch.setattr(os, "scandir", Listed)
    remove_tree(box)
    monkeypatch.undo()
    assert [oct(d.stat().st_mode & 0o777) for d in (victim, victim / "sub")] == ["0o755"] * 2
    assert (victim / "sub").is_dir()


@pytest.mark.parametrize("root", [True, False])
def test_a_link_a_bot_left_in_its_box_is_not_followed_by_its_removal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: bool) -> None:
    """A bot may leave a link to a directory in its scratch, no race needed: a referee that
    is not root opened the box's directories up by name, the link followed, and chmodded
    the directory it named to 0700 (one of the referee's user, which a bot under bubblewrap
    cannot reach itself). A directory the bot made unreadable is still opened up."""
    from arena.sandbox import workdir

    victim = tmp_path / "victim"
    victim.mkdir()
    victim.chmod(0o755)
    scratch = tmp_path / "box" / "home"
    (scratch / "closed" / "inner").mkdir(parents=True)
    (scratch / "link").symlink_to(victim)
    (scratch / "closed").chmod(0)
    monkeypatch.setattr(workdir.os, "geteuid", lambda: 0 if root else os.getuid() or 1000)
    workdir.remove_tree(tmp_path / "box")
    assert oct(victim.stat().st_mode & 0o777) == "0o755"
    assert not (tmp_path / "box").exists()


def test_a_dead_referees_box_and_kit_are_removed_though_its_pid_was_reused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy machine soon gives a dead referee's pid to another process: its box and kit
    (a copy of a bot's files each), made before that process started, stayed in /tmp as
    long as it ran. A live referee's, made after it started, stay."""
    from arena.sandbox import strays

    temp = tmp_path / "tmp"
    reuser = subprocess.Popen(["sleep", "3600"])  # the dead referee's number, taken later
    live = subprocess.Popen(["sleep", "3600"])
    left = [temp / f"arena-box-{reuser.pid}-dead", temp / f"arena-kit-{reuser.pid}-dead"]
    running = temp / f"arena-box-{live.pid}-live"
    try:
        for directory in [*left, running]:
            (directory / "bot").mkdir(parents=True)
        an_hour_ago = time.time() - 3600  # when the dead referee made them
        for directory in left:
            os.utime(directory, (an_hour_ago, an_hour_ago))
        monkeypatch.setattr(tempfile, "tempdir", str(temp))
        monkeypatch.setattr(strays, "_swept", False)
        monkeypatch.setattr(strays, "kill_strays", lambda: [])
        monkeypatch.setattr(strays, "sweep_dead_uids", lambda: 0)
        strays.sweep_once()
        assert [directory.exists() for directory in left] == [False, False]
        assert (running / "bot").is_dir()
    finally:
        for process in (reuser, live):
            process.kill()
            process.wait()
