"""Two bots at one table try every channel between them (host-wide counters, System V and
POSIX IPC, the kit's access times, files, sockets and FIFOs in shared temporary places, file
locks): with bubblewrap or Landlock not one bit passes; in the bare mode what does pass is
removed once the sender ends (nothing outlives a bot)."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

import pytest
from sandbox_support import HOSTILE, STARTUP_S, Bot, assert_nothing_left, has

from arena.protocol.transport import Line
from arena.sandbox import Limits, SandboxReport, launch, probe
from arena.sandbox.leftovers import ipc_objects, release_uids

#: Channels a look reports as present when the other bot's object is there.
PRESENCE = ("shm", "mq", "socket", "abstract")


def _start(report: SandboxReport, tag: str, kit_file: Path) -> Bot:
    marker = "mk" + secrets.token_hex(8)
    proc = launch(["python3", "collude.py", marker, tag, str(kit_file)],
                  workdir=HOSTILE / "collude.py", limits=Limits(), marker=marker,
                  report=report, env={"PYTHONPATH": str(report.kit_path)})
    bot = Bot(proc, marker)
    bot.ready()
    return bot


def _ask(bot: Bot, command: str) -> dict[str, object]:
    bot.send(command)
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    answer: dict[str, object] = json.loads(got.data)
    return answer


def _only_both(before: dict[str, object], after: dict[str, object], name: str) -> None:
    """Keep, of two looks at other bots' scratch, the scratch both saw: bots of other runs on
    this machine (other tests, other tournaments) come and go, which the sender cannot cause."""
    first, second = before[name], after[name]
    if isinstance(first, dict) and isinstance(second, dict):
        before[name] = {k: v for k, v in first.items() if k in second}
        after[name] = {k: v for k, v in second.items() if k in first}


def test_two_bots_at_one_table_pass_no_bit(report: SandboxReport) -> None:
    tag = secrets.token_hex(8)
    kit_file = report.kit_path / "arena" / "bench" / "ray.py"
    bots: list[Bot] = []
    try:
        bots.append(_start(report, tag, kit_file))
        bots.append(_start(report, tag, kit_file))
        receiver, sender = bots
        before = _ask(receiver, "look")
        sent = _ask(sender, "send")
        after = _ask(receiver, "look")
        assert before["kit_atime"] == after["kit_atime"]  # every mode: the kit keeps them
        if has(report, "bwrap", "landlock"):
            _only_both(before, after, "other_scratch")
            changed = {name: (str(before[name])[:120], str(after[name])[:120])
                       for name in before if before[name] != after[name]}
            assert not changed, (changed, sent)
            for name in PRESENCE:
                assert after[name] != "found" and after[name] != "connected", (name, after)
            assert all(after[f"/tmp/arena-collude-{tag}{s}"] == "absent"
                       for s in ("", ".fifo"))
            assert after[f"/dev/shm/arena-collude-{tag}"] == "absent"
        else:  # the bare mode protects none of these (docs/SANDBOX.md)
            assert str(after["shm"]).startswith("HAND"), (after, sent)
            assert after[f"/tmp/arena-collude-{tag}"] == "found"
            assert after["socket"] == "connected"
        sender_uid = os.stat(f"/proc/{sender.proc.pid}").st_uid
        for bot in (sender, receiver):  # the receiver holds the segment until it ends
            bot.transport.close()
            bot.proc.kill_all()
            assert_nothing_left(bot.proc)
        if sender_uid != os.geteuid():  # a uid of its own: what it owned is gone
            assert [o for o in ipc_objects() if sender_uid in o[2:]] == []
            assert release_uids({sender_uid}) == 0  # the message queue too
        for path in (f"/tmp/arena-collude-{tag}", f"/tmp/arena-collude-{tag}.fifo",
                     f"/tmp/arena-collude-{tag}.sock", f"/dev/shm/arena-collude-{tag}"):
            if sender_uid != os.geteuid() or has(report, "bwrap", "landlock"):
                assert not os.path.lexists(path), path
    finally:
        for bot in bots:
            bot.transport.close()
            bot.proc.kill_all()
            assert_nothing_left(bot.proc)
        for leftover in Path("/tmp").glob(f"arena-collude-{tag}*"):
            leftover.unlink()


def test_seccomp_alone_shares_no_ipc_object_between_bots() -> None:
    """A machine without bubblewrap and a kernel without Landlock leave seccomp alone between
    two bots and the IPC objects of the host's namespace. Elsewhere another layer hides a
    missing rule (Landlock refuses to open a message queue; bubblewrap gives each bot an IPC
    namespace), so this mode is the only one where a queue or a segment left to the bots
    would pass a hand."""
    report = probe(disable=("bwrap", "landlock"))
    if not report.active("seccomp"):
        pytest.skip(f"no seccomp here: {report.level}")
    tag = secrets.token_hex(8)
    bots: list[Bot] = []
    try:
        bots.append(_start(report, tag, report.kit_path / "arena" / "bench" / "ray.py"))
        bots.append(_start(report, tag, report.kit_path / "arena" / "bench" / "ray.py"))
        receiver, sender = bots
        sent = _ask(sender, "send")
        after = _ask(receiver, "look")
        if sent["mq"] == "no librt":
            pytest.skip("no librt.so.1 here: a message queue cannot be tried")
        assert (sent["shm"], sent["mq"]) == ("denied", "denied"), sent
        assert (after["shm"], after["mq"]) == ("absent", "absent"), after
    finally:
        for bot in bots:  # a queue or segment a failed run made goes with its uid
            uid = os.stat(f"/proc/{bot.proc.pid}").st_uid
            bot.transport.close()
            bot.proc.kill_all()
            assert_nothing_left(bot.proc)
            if uid != os.geteuid():
                release_uids({uid})


def test_a_bot_reads_no_host_counter(report: SandboxReport) -> None:
    """What the receiver saw: under bubblewrap static files, under Landlock nothing."""
    if not has(report, "bwrap", "landlock"):
        pytest.skip("the bare mode hides no counter")
    tag = secrets.token_hex(8)
    bot = _start(report, tag, report.kit_path / "arena" / "__init__.py")
    try:
        seen = _ask(bot, "look")
    finally:
        bot.transport.close()
        bot.proc.kill_all()
    if has(report, "bwrap"):
        assert "procs_running 1" in str(seen["/proc/stat"])
        assert seen["/proc/loadavg"] == "0.00 0.00 0.00 1/1 1\n"
        assert seen["/proc/vmstat"] == "" and seen["/proc/locks"] == ""
    else:
        for name in ("meminfo", "stat", "loadavg", "vmstat", "sys/fs/file-nr", "locks",
                     "self/net/sockstat", "self/net/unix"):
            assert seen[f"/proc/{name}"] == "PermissionError", name
