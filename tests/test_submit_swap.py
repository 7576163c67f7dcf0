"""``arena submit --update`` swaps a bot's files whole: a reader of its path (a league's
launch or restart copying them) finds the old files or the new, never nothing."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena.registry import BotSpec, copying, resolve, submit

UPDATES = 30

MODULE = '''from arena.sdk import Bot


class Alpha(Bot):
    name = "alpha"

    def act(self, request):
        return 0
'''


def passing(spec: BotSpec) -> Any:
    return SimpleNamespace(ok=True, failures=lambda: [])


def _write_version(source: Path, kind: str, number: int) -> None:
    if kind == "module":
        source.write_text(f"{MODULE}# version {number}\n")
        return
    source.mkdir(exist_ok=True)
    (source / "bot.yaml").write_text("name: alpha\ncommand: [node, bot.js]\n")
    (source / "lib").mkdir(exist_ok=True)
    for part in range(20):  # a removal of many files is a gap a reader can fall into
        (source / "lib" / f"part{part}.js").write_text(f"// {number}.{part}\n")
    (source / "bot.js").write_text(f"// version {number}\n")


def _found(target: Path, kind: str) -> bool:
    if kind == "module":
        return target.is_file()
    return (target / "bot.yaml").is_file() and (target / "bot.js").is_file()


@pytest.mark.parametrize("kind", ["module", "directory"])
def test_a_reader_never_finds_an_updated_bots_path_empty(tmp_path: Path, kind: str) -> None:
    """The update removed the old files, then moved the new ones in: a league's launch in
    between found no bot and forfeited it. Counted, not timed: no read may find nothing."""
    bots = tmp_path / "bots"
    source = tmp_path / ("alpha.py" if kind == "module" else "alpha")
    _write_version(source, kind, 0)
    submit(source, bots_dir=bots, check=passing)
    target = resolve("alpha", bots).path
    reads, missed = [0], [0]
    done = threading.Event()

    def hammer() -> None:
        while not done.is_set():
            reads[0] += 1
            if not _found(target, kind):
                missed[0] += 1

    reader = threading.Thread(target=hammer)
    reader.start()
    try:
        for number in range(1, UPDATES + 1):
            _write_version(source, kind, number)
            submit(source, bots_dir=bots, check=passing, update=True)
    finally:
        done.set()
        reader.join()
    assert reads[0] > 0 and missed[0] == 0
    assert resolve("alpha", bots).version == resolve(source).version
    assert [p.name for p in bots.glob(".incoming-*")] == []


def test_an_update_without_an_atomic_exchange_still_replaces_a_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the system has no exchange of two paths (no renameat2, a file system without
    it), the old directory is renamed aside and the new one renamed in."""
    monkeypatch.setattr(copying, "exchange", lambda *args: False)
    bots = tmp_path / "bots"
    source = tmp_path / "alpha"
    _write_version(source, "directory", 0)
    old = submit(source, bots_dir=bots, check=passing)
    _write_version(source, "directory", 1)
    (source / "lib").chmod(0o555)  # a read-only directory of the bot's moves all the same
    new = submit(source, bots_dir=bots, check=passing, update=True)
    assert new.version != old.version and resolve("alpha", bots).version == new.version
    assert (bots / "alpha" / "bot.js").read_text() == "// version 1\n"
    assert (bots / ".versions" / f"alpha@{old.version}" / "bot.js").read_text() == (
        "// version 0\n")
    assert [p.name for p in bots.glob(".incoming-*")] == []


def test_exchange_swaps_two_directories_whole(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for directory in (first, second):
        directory.mkdir()
        (directory / "name").write_text(directory.name)
    second.chmod(0o555)  # a read-only directory changes parents too, its mode kept
    if not copying.exchange(first, second):
        pytest.skip("this system cannot exchange two paths")
    assert (first / "name").read_text() == "second" and (second / "name").read_text() == "first"
    assert os.stat(first).st_mode & 0o777 == 0o555


@pytest.mark.parametrize("kind", ["module", "directory"])
@pytest.mark.parametrize("linked", [".versions", "kept"])
def test_an_update_keeps_the_old_version_in_the_bots_directory_only(
        tmp_path: Path, kind: str, linked: str) -> None:
    """A '.versions' (or the kept version's own entry) made a link by whoever may write the
    bots directory: the update wrote the kept copy at the link's target, outside the bots
    directory, or took the target's files for the kept version 'alpha@VERSION' runs."""
    from arena.errors import SubmitError

    bots, outside = tmp_path / "bots", tmp_path / "outside"
    source = tmp_path / ("alpha.py" if kind == "module" else "alpha")
    _write_version(source, kind, 0)
    old = submit(source, bots_dir=bots, check=passing)
    outside.mkdir()
    if linked == ".versions":
        (bots / ".versions").symlink_to(outside)
    else:
        (bots / ".versions").mkdir()
        (bots / ".versions" / f"alpha@{old.version}").symlink_to(outside)
    _write_version(source, kind, 1)
    with pytest.raises(SubmitError, match="is a symbolic link .*nothing was registered"):
        submit(source, bots_dir=bots, check=passing, update=True)
    assert list(outside.iterdir()) == []
    assert resolve("alpha", bots).version == old.version


@pytest.mark.parametrize(("name", "kind"), [("alpha", "directory"), ("my.bot", "directory"),
                                            ("bot.py", "directory"), ("alpha", "module"),
                                            ("v1.2", "module")])
def test_the_copy_an_update_kept_is_found_whatever_the_bots_name(
        tmp_path: Path, name: str, kind: str) -> None:
    """A league seats a bot whose files an update replaced from the copy the update kept
    (.versions/NAME@VERSION): it looked for the path's stem, 'my' for the bot 'my.bot', found
    nothing and forfeited the bot."""
    from arena.registry import files_changed, kept_copy

    source = tmp_path / "src" / ("alpha.py" if kind == "module" else "alpha")
    source.parent.mkdir()
    _write_version(source, kind, 0)
    old = submit(source, name=name, bots_dir=tmp_path / "bots", check=passing)
    _write_version(source, kind, 1)
    submit(source, name=name, bots_dir=tmp_path / "bots", check=passing, update=True)
    kept = kept_copy(old)
    copy = tmp_path / "bots" / ".versions" / f"{name}@{old.files_version}"
    assert kept is not None and kept.path == (copy / f"{name}.py" if kind == "module" else copy)
    assert kept.files_digest == old.files_digest
    # and a match stopped by the update is told where the old files are
    assert f"keeping this version as {name}@{old.files_version}:" in files_changed(old)


def test_a_link_made_in_the_registered_copy_after_its_look_is_not_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whoever may write the bots directory adds a link to the organiser's file to the
    registered copy between the update's look at it and its copy to .versions: the copy
    followed the link and put the file's bytes in the bots directory."""
    from arena.errors import SubmitError
    from arena.registry import staging

    bots, secret = tmp_path / "bots", tmp_path / "secret.txt"
    secret.write_text("the organiser's own\n")
    source = tmp_path / "alpha"
    _write_version(source, "directory", 0)
    old = submit(source, bots_dir=bots, check=passing)
    looked = staging.spec_from_path

    def look_then_link(path: Path, *args: Any, **kwargs: Any) -> BotSpec:
        found = looked(path, *args, **kwargs)
        if path == bots / "alpha" and not (path / "lib" / "leak").is_symlink():
            (path / "lib" / "leak").symlink_to(secret)
        return found

    monkeypatch.setattr(staging, "spec_from_path", look_then_link)
    _write_version(source, "directory", 1)
    with pytest.raises(SubmitError, match="changed while it was kept"):
        submit(source, bots_dir=bots, check=passing, update=True)
    assert not any("the organiser's own" in path.read_text()
                   for path in bots.rglob("*") if path.is_file() and not path.is_symlink())
    assert not (bots / ".versions" / f"alpha@{old.version}").exists()


@pytest.mark.parametrize("kind", ["module", "directory"])
@pytest.mark.parametrize("existed", [True, False])
def test_a_versions_link_swapped_in_after_the_look_gets_no_kept_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, existed: bool) -> None:
    """Whoever may write the bots directory swaps '.versions' for a link after the update
    looked at it and before it wrote the kept copy: the copy, written by path, landed at the
    link's target, outside the bots directory."""
    from arena.registry import staging

    bots, outside = tmp_path / "bots", tmp_path / "outside"
    source = tmp_path / ("alpha.py" if kind == "module" else "alpha")
    _write_version(source, kind, 0)
    old = submit(source, bots_dir=bots, check=passing)
    outside.mkdir()
    if existed:
        (bots / ".versions").mkdir()
    swapped: list[bool] = []

    def swap_then(copy: Any) -> Any:
        def copied(*args: Any, **kwargs: Any) -> None:
            # the registered copy kept, not the submitted one staged
            if Path(args[0]).is_relative_to(bots.resolve()) and not swapped:
                (bots / ".versions").rename(bots / ".versions-moved")
                (bots / ".versions").symlink_to(outside)
                swapped.append(True)
            copy(*args, **kwargs)
        return copied

    monkeypatch.setattr(staging, "copy_tree", swap_then(staging.copy_tree))
    monkeypatch.setattr(staging, "copy_module", swap_then(staging.copy_module))
    _write_version(source, kind, 1)
    submit(source, bots_dir=bots, check=passing, update=True)
    assert swapped and list(outside.iterdir()) == []
    kept = bots / ".versions-moved" / f"alpha@{old.version}"
    assert resolve(kept if kind == "directory" else kept / "alpha.py").version == old.version


def test_a_bot_resolved_while_an_update_without_an_exchange_moves_it_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an exchange of two paths, the update renames the old directory aside, then the
    new one in: a tournament resolving the bot in between found its files gone and stopped.
    The reader comes exactly in between: while the old files are aside."""
    from arena.registry import catalog

    monkeypatch.setattr(copying, "exchange", lambda *args: False)
    bots = tmp_path / "bots"
    source = tmp_path / "alpha"
    _write_version(source, "directory", 0)
    submit(source, bots_dir=bots, check=passing)
    found: list[Any] = []
    waiting = threading.Event()
    real_wait = getattr(catalog, "_wait_for_submits", None)

    def noticed(bots_dir: Path) -> None:
        waiting.set()
        if real_wait is not None:
            real_wait(bots_dir)

    monkeypatch.setattr(catalog, "_wait_for_submits", noticed, raising=False)

    def resolving() -> None:
        try:
            found.append(resolve("alpha", bots))
        except Exception as exc:  # the failure the tournament stopped with
            found.append(exc)
        waiting.set()

    real_move, readers = copying.move, []

    def move_then_read(source: Path, target: Path, *args: Any, **kwargs: Any) -> None:
        real_move(source, target, *args, **kwargs)
        if source == bots / "alpha":  # the old files are aside, the new not yet in
            readers.append(threading.Thread(target=resolving))
            readers[0].start()
            waiting.wait()  # until it has found them gone (or failed)

    monkeypatch.setattr(copying, "move", move_then_read)
    _write_version(source, "directory", 1)
    new = submit(source, bots_dir=bots, check=passing, update=True)
    readers[0].join()  # it looks again once the update lets go of the bots directory
    assert isinstance(found[0], BotSpec) and found[0].version == new.version


@pytest.mark.parametrize("kind", ["module", "directory"])
def test_a_staging_link_swapped_in_before_the_copy_gets_no_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """Whoever may write the bots directory swaps a submit's staging directory
    ('.incoming-...') for a link once it is made: the copy, written by path, put the bot's
    files at the link's target, outside the bots directory. Written, compared and put in
    place through the staging directory held, the copy is the bot's."""
    from arena.registry import staging

    bots, outside = tmp_path / "bots", tmp_path / "outside"
    outside.mkdir()
    source = tmp_path / ("alpha.py" if kind == "module" else "alpha")
    _write_version(source, kind, 0)

    def swap_then(copy: Any) -> Any:
        def copied(*args: Any, **kwargs: Any) -> None:
            made = next(bots.glob(".incoming-*"))
            made.rename(bots / "moved")
            made.symlink_to(outside)
            copy(*args, **kwargs)
        return copied

    monkeypatch.setattr(staging, "copy_tree", swap_then(staging.copy_tree))
    monkeypatch.setattr(staging, "copy_module", swap_then(staging.copy_module))
    new = submit(source, bots_dir=bots, check=passing)
    assert list(outside.iterdir()) == []
    assert resolve("alpha", bots).version == new.version


def test_a_staging_link_swapped_in_before_a_removal_gets_no_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Removing a bot moves its files into a staging directory first; whoever may write the
    bots directory swaps that directory for a link once it is made: the move, by path, put
    the bot's files at the link's target, outside the bots directory, where they stayed."""
    from arena.registry import staging

    bots, outside = tmp_path / "bots", tmp_path / "outside"
    bots.mkdir()
    outside.mkdir()
    _write_version(bots / "alpha", "directory", 0)

    def swap_then(move: Any) -> Any:
        def moved(*args: Any, **kwargs: Any) -> None:
            made = next(bots.glob(".incoming-*"))
            made.rename(bots / "moved")
            made.symlink_to(outside)
            move(*args, **kwargs)
        return moved

    monkeypatch.setattr(staging, "move", swap_then(staging.move))
    staging.discard(bots, bots / "alpha")
    assert list(outside.iterdir()) == []
    assert not (bots / "alpha").exists()


@pytest.mark.parametrize("how", ["exchange", "no exchange", "new bot"])
def test_a_staging_link_swapped_in_after_the_check_moves_nothing_outside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """Whoever may write the bots directory swaps a submit's staging directory for a link
    once its copy is checked: putting the copy in place, by path, exchanged the registered
    files with a directory of the link's target (or renamed them aside into it, where the
    system cannot exchange), or took that directory into the bots directory as the bot."""
    from arena.registry import staging

    bots, outside = tmp_path / "bots", tmp_path / "outside"
    (outside / "alpha").mkdir(parents=True)
    (outside / "alpha" / "theirs.txt").write_text("not the bot's\n")
    source = tmp_path / "alpha"
    _write_version(source, "directory", 0)
    if how != "new bot":
        submit(source, bots_dir=bots, check=passing)
        _write_version(source, "directory", 1)
    if how == "no exchange":
        monkeypatch.setattr(copying, "exchange", lambda *args, **kwargs: False)

    def swap_then(put: Any) -> Any:
        def put_after_the_swap(*args: Any, **kwargs: Any) -> None:
            made = next(bots.glob(".incoming-*"))
            made.rename(bots / "moved")
            made.symlink_to(outside)
            put(*args, **kwargs)
        return put_after_the_swap

    monkeypatch.setattr(staging, "swap_in", swap_then(staging.swap_in))
    monkeypatch.setattr(staging, "move", swap_then(staging.move))
    new = submit(source, bots_dir=bots, check=passing, update=how != "new bot")
    assert sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*")) == [
        "alpha", "alpha/theirs.txt"]
    assert resolve("alpha", bots).version == new.version
    assert (bots / "alpha" / "bot.js").read_text() == (
        "// version 0\n" if how == "new bot" else "// version 1\n")


@pytest.mark.parametrize("how", ["bots remove", "bots prune"])
def test_a_versions_link_swapped_in_after_the_look_loses_its_target_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """Removing a bot's kept versions (arena bots remove, arena bots prune) looks that
    '.versions' is no link, then moved each out by path: whoever may write the bots directory
    swaps a link in after the look, and the removal took the link's target's files of that
    name (outside the bots directory) and deleted them."""
    from arena.registry import staging, submission

    bots, outside = tmp_path / "bots", tmp_path / "outside"
    source = tmp_path / "alpha"
    _write_version(source, "directory", 0)
    first = submit(source, bots_dir=bots, check=passing)
    _write_version(source, "directory", 1)
    submit(source, bots_dir=bots, check=passing, update=True)
    theirs = outside / f"alpha@{first.version}"
    theirs.mkdir(parents=True)
    (theirs / "theirs.txt").write_text("not the bots directory's\n")
    if how == "bots prune":  # the entry edited away by hand, the files deleted
        (bots / "registry.yaml").write_text("bots: {}\n")
        shutil.rmtree(bots / "alpha")
    real_discard = staging.discard

    def swap_then_discard(*args: Any, **kwargs: Any) -> None:
        if not (bots / ".versions").is_symlink():
            (bots / ".versions").rename(bots / "versions-moved")
            (bots / ".versions").symlink_to(outside)
        real_discard(*args, **kwargs)

    monkeypatch.setattr(submission, "discard", swap_then_discard)
    if how == "bots remove":
        submission.unregister("alpha", bots)
    else:
        [orphan] = submission.orphaned_versions(bots)
        assert submission.remove_orphaned(orphan, bots)
    assert (theirs / "theirs.txt").read_text() == "not the bots directory's\n"
    assert list((bots / "versions-moved").iterdir()) == []  # the kept copy it meant
