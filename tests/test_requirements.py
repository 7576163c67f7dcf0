"""What a bot.yaml asks to have installed: requirements and python, read and normalized."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.errors import ManifestError
from arena.registry.requirements import (
    MAX_REQUIREMENTS,
    manifest_python,
    manifest_requirements,
    normalized,
)

WHERE = Path("/b/bot.yaml")
_REQUIREMENTS = ["numpy>=1.24", "NumPy >= 1.24", "scikit_learn[Extra,all]==1.5.*",
                 "six; python_version >= '3'", "Pillow<11,>=9"]


def test_equal_requirements_are_written_one_way() -> None:
    assert normalized("NumPy >= 1.24", "w") == normalized("numpy>=1.24", "w") == "numpy>=1.24"
    assert normalized("scikit_learn[Extra,all]==1.5.*", "w") == "scikit-learn[all,extra]==1.5.*"
    assert normalized("Pillow<11,>=9", "w") == normalized("pillow>=9,<11", "w")


@given(st.lists(st.sampled_from(_REQUIREMENTS), min_size=1, max_size=8))
def test_order_and_repeats_do_not_matter(chosen: list[str]) -> None:
    """The environment's key is the normalized set: any order, any repeats, one key."""
    forward = manifest_requirements(chosen, Path("/b"), WHERE)
    backward = manifest_requirements(list(reversed(chosen)) * 2, Path("/b"), WHERE)
    assert forward == backward == tuple(sorted(set(forward)))


def test_a_requirements_file_of_the_bot(tmp_path: Path) -> None:
    (tmp_path / "reqs").mkdir()
    (tmp_path / "reqs" / "requirements.txt").write_text(
        "# what the bot needs\nnumpy >= 1.24  # arrays\n\nsix \\\n  ==1.17.0\n")
    assert manifest_requirements("reqs/requirements.txt", tmp_path, WHERE) == (
        "numpy>=1.24", "six==1.17.0")


@pytest.mark.parametrize(("text", "message"), [
    ("-r other.txt", "pip options ('-r other.txt') are not allowed"),
    ("--extra-index-url https://x", "pip options ('--extra-index-url https://x') are not"),
    ("numpy @ https://x/numpy.whl", "is a direct reference (name @ URL)"),
])
def test_a_requirements_file_takes_names_only(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "requirements.txt").write_text(f"six\n{text}\n")
    with pytest.raises(ManifestError, match=r"requirements\.txt:2: ") as info:
        manifest_requirements("requirements.txt", tmp_path, WHERE)
    assert message in str(info.value)


@pytest.mark.parametrize("text", ["pkg===/evil", "pkg===x.tar.gz", "numpy>=1,===2.0"])
def test_arbitrary_equality_is_refused(text: str) -> None:
    """pip reads a requirement holding '/' or ending in an archive's suffix as a path of its
    working directory, which may be the bot's own (``arena check-bot .``): 'pkg===/evil'
    built the bot's pkg===/evil/setup.py outside the sandbox, as the referee, wheels only
    or not."""
    with pytest.raises(ManifestError) as info:
        manifest_requirements([text], Path("/b"), WHERE)
    assert str(info.value) == (
        f"{WHERE}: requirements[0]: {text!r} compares with '===' (any text, which pip may "
        "read as a file or directory to build); use ==, >= and the like")


@pytest.mark.parametrize("text", ["pkg==1.0+x.tar.gz", "pkg>=1,!=2+a.WHL",
                                  "pkg==1+a.zip; os_name == 'posix'"])
def test_a_version_pip_would_read_as_an_archive_is_refused(text: str) -> None:
    """'pkg==1.0+x.tar.gz' is a version (a local label) to packaging and the file
    ./pkg==1.0+x.tar.gz to pip: the bot's own source archive, built as the referee."""
    with pytest.raises(ManifestError) as info:
        manifest_requirements([text], Path("/b"), WHERE)
    assert str(info.value) == (
        f"{WHERE}: requirements[0]: {text!r} ends like an archive's name, which pip reads as "
        "a file of its working directory to install; a bot may require packages of the index "
        "only")
    assert normalized("torch==2.1.0+cpu", "w") == "torch==2.1.0+cpu"  # local labels work


def test_a_missing_requirements_file(tmp_path: Path) -> None:
    with pytest.raises(ManifestError) as info:
        manifest_requirements("nope.txt", tmp_path, WHERE)
    assert str(info.value) == (f"{WHERE}: 'requirements' names nope.txt, which is not a file "
                               "of the bot's directory")


@pytest.mark.parametrize(("value", "shown"), [
    (["numpy", 2], "requirements[1] must be a pip requirement (a string such as "
                   "\"numpy>=1.24\"), got 2"),
    ([["numpy"]], "requirements[0] must be a pip requirement (a string such as "
                  "\"numpy>=1.24\"), got ['numpy']"),
])
def test_a_list_holding_other_than_strings_names_the_item(tmp_path: Path, value: list[object],
                                                          shown: str) -> None:
    """It said 'must be a list of pip requirements ..., got list' of a list."""
    with pytest.raises(ManifestError) as info:
        manifest_requirements(value, tmp_path, WHERE)
    assert str(info.value) == f"{WHERE}: {shown}"


def test_a_package_named_where_a_list_was_meant_is_shown_the_list(tmp_path: Path) -> None:
    with pytest.raises(ManifestError) as info:
        manifest_requirements("numpy>=1.24", tmp_path, WHERE)
    assert str(info.value) == (f"{WHERE}: 'requirements' names numpy>=1.24, which is not a file "
                               "of the bot's directory; a list of packages goes in brackets: "
                               "requirements: ['numpy>=1.24']")


@pytest.mark.parametrize(("value", "expected"), [(None, None), ("3.11", "3.11"),
                                                 (" 3.12 ", "3.12")])
def test_python_versions(value: object, expected: str | None) -> None:
    assert manifest_python(value, WHERE) == expected


@pytest.mark.parametrize("value", ["3", "python3.11", "2.7", "3.11.2", True, ["3.11"]])
def test_python_must_be_a_major_and_minor_version(value: object) -> None:
    with pytest.raises(ManifestError, match="'python' must be a version such as"):
        manifest_python(value, WHERE)


def test_a_requirements_files_name_is_shown_escaped(tmp_path: Path) -> None:
    """The name comes from the bot: printed raw, an escape sequence in it reached the
    operator's terminal when the file was too large or not UTF-8."""
    name = "r\x1b[2J.txt"
    (tmp_path / name).write_text("# x\n" * 20_000)
    with pytest.raises(ManifestError) as info:
        manifest_requirements(name, tmp_path, WHERE)
    assert str(info.value) == f"{tmp_path}/r\\x1b[2J.txt is larger than 64 KiB"
    (tmp_path / name).write_bytes(b"numpy\xff\n")
    with pytest.raises(ManifestError) as info:
        manifest_requirements(name, tmp_path, WHERE)
    assert str(info.value).startswith(f"cannot read {tmp_path}/r\\x1b[2J.txt: 'utf-8' codec")


def test_more_requirements_than_a_bot_may_list_are_refused(tmp_path: Path) -> None:
    """Thousands of lines (each a build step, a download) are a mistake, or an attack on the
    referee's time: refused before pip runs, in a list or a file."""
    many = [f"pkg{i}" for i in range(MAX_REQUIREMENTS + 1)]
    with pytest.raises(ManifestError) as info:
        manifest_requirements(many, tmp_path, WHERE)
    assert str(info.value) == f"{WHERE}: 201 requirements; a bot may list at most 200"
    (tmp_path / "requirements.txt").write_text("\n".join(["# many", *many * 10]) + "\n")
    with pytest.raises(ManifestError) as info:
        manifest_requirements("requirements.txt", tmp_path, WHERE)
    assert str(info.value) == f"{WHERE}: 2010 requirements; a bot may list at most 200"
    assert len(manifest_requirements(many[:MAX_REQUIREMENTS], tmp_path, WHERE)) == 200


def test_extras_in_any_order_are_one_requirement() -> None:
    """Written in the order the parser's set gave them, one bot's ``pkg[a,b]`` and another's
    ``pkg[b,a]`` keyed two environments, or one bot's key moved from run to run."""
    extras = ["zeta", "alpha", "mid", "beta", "omega", "kappa"]
    expected = "pkg[alpha,beta,kappa,mid,omega,zeta]>=1"
    assert normalized(f"pkg[{','.join(extras)}]>=1", "w") == expected
    assert normalized(f"pkg[{','.join(reversed(extras))}]>=1", "w") == expected


def test_a_marker_is_kept() -> None:
    """Dropped, ``pkg; sys_platform == 'win32'`` was installed on Linux too, and shared the
    environment of a bot requiring ``pkg`` everywhere."""
    assert manifest_requirements(["six; python_version < '3'", "six"], Path("/b"), WHERE) == (
        "six", 'six; python_version < "3"')
    assert normalized("pywin32>=300 ; sys_platform=='win32'", "w") == \
        'pywin32>=300; sys_platform == "win32"'


def test_a_requirements_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Windows editors begin a UTF-8 file with a byte order mark, which pip skips: its first
    requirement was refused as '\\ufeffnumpy' is not a pip requirement."""
    (tmp_path / "requirements.txt").write_bytes("numpy>=1.24\r\nsix\r\n".encode("utf-8-sig"))
    assert manifest_requirements("requirements.txt", tmp_path, WHERE) == ("numpy>=1.24", "six")


def test_blank_requirements_in_a_list_are_skipped() -> None:
    assert manifest_requirements(["numpy", " ", ""], Path("/b"), WHERE) == ("numpy",)



@pytest.mark.parametrize(("named", "link"), [
    ("a/b/requirements.txt", "a"),
    ("a/b/requirements.txt", "a/b"),
    ("a/b/requirements.txt", "a/b/requirements.txt"),
])
def test_a_link_anywhere_on_the_requirements_files_path_is_refused(tmp_path: Path, named: str,
                                                                   link: str) -> None:
    """The path was opened with no-follow on its last name only: a folder on it that is a
    link (to another of the bot's, here) was followed."""
    (tmp_path / "real" / "a" / "b").mkdir(parents=True)
    (tmp_path / "real" / named).write_text("numpy\n")
    (tmp_path / link).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / link).symlink_to(tmp_path / "real" / link)
    with pytest.raises(ManifestError) as info:
        manifest_requirements(named, tmp_path, WHERE)
    assert str(info.value) == (f"cannot read {tmp_path / named}: Too many levels of symbolic "
                               "links")


def test_a_folder_swapped_for_a_link_after_the_check_is_not_followed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whoever may write the bot's directory during a submit could make a folder on the
    checked path a link to a host directory before the file was opened: the host file's
    text was then read, and shown in the operator's error."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "requirements.txt").write_text("secret-of-the-host\n")
    bot = tmp_path / "bot"
    (bot / "reqs").mkdir(parents=True)
    (bot / "reqs" / "requirements.txt").write_text("numpy\n")
    looked = Path.is_file

    def swapping(path: Path) -> bool:
        found = looked(path)
        if path == bot / "reqs" / "requirements.txt":
            shutil.rmtree(bot / "reqs")
            (bot / "reqs").symlink_to(host)
        return found

    monkeypatch.setattr(Path, "is_file", swapping)
    with pytest.raises(ManifestError) as info:
        manifest_requirements("reqs/requirements.txt", bot, WHERE)
    assert str(info.value) == (f"cannot read {bot / 'reqs/requirements.txt'}: Too many levels "
                               "of symbolic links")
