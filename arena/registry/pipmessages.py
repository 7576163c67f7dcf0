"""pip's output, when an install fails, in one line that names the cause (:func:`pip_failure`)."""

from __future__ import annotations

import re

from arena.common.printable import printable

__all__ = ["pip_failure"]

_NETWORK = ("NewConnectionError", "Failed to establish a new connection",
            "Temporary failure in name resolution", "Name or service not known",
            "Network is unreachable", "ConnectTimeoutError", "ReadTimeoutError",
            "Connection refused", "ProxyError", "SSLError")
_NOT_FOUND = re.compile(r"Could not find a version that satisfies the requirement (\S+)"
                        r"(?: \(from versions: ([^)]*)\))?")
_CAUSE = re.compile(r"Failed to establish a new connection: [^'\")]*|\[Errno -?\d+\] [^'\")]*"
                    r"|Read timed out|Temporary failure in name resolution")
_LINE_CHARS = 300
#: The newest releases a "no matching release" line names.
_VERSIONS_SHOWN = 8


def _short(text: str) -> str:
    text = printable(text.strip())
    return text if len(text) <= _LINE_CHARS else text[:_LINE_CHARS - 3] + "..."


def _versions(text: str) -> str:
    """pip's list of the releases there are, oldest first, shortened to its first and its
    newest ones: the newest are those a requirement most likely meant."""
    versions = [v.strip() for v in text.split(",") if v.strip()]
    if len(versions) <= _VERSIONS_SHOWN + 1:
        return _short(text)
    newest = versions[-_VERSIONS_SHOWN:]
    return _short(f"{versions[0]}, ... ({len(versions) - 1 - len(newest)} more), "
                  f"{', '.join(newest)}")


def _where(lines: list[str], no_index: bool) -> str:
    """Where pip looked for releases, in words: the index, or (told to use none) the
    directories of wheels it names."""
    if not no_index:
        return "on the package index"
    links = next((line.removeprefix("Looking in links:").strip() for line in lines
                  if line.startswith("Looking in links:")), "")
    if links:
        return f"in {_short(links)}, pip's only source (PIP_NO_INDEX: no package index)"
    return ("anywhere: pip is told to use no package index (PIP_NO_INDEX) and no directory of "
            "wheels (PIP_FIND_LINKS)")


def pip_failure(output: str, python: str, no_index: bool = False) -> str:
    """Why ``pip install`` failed, from its ``output`` (stderr then stdout); ``python`` is
    the interpreter that ran pip; ``no_index``: pip was told to use no index
    (``PIP_NO_INDEX``), only its directories of wheels."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if any("No space left on device" in line for line in lines):
        return "the disk is full: pip could not install the requirements (No space left on " \
            "device)"
    if any("No module named pip" in line for line in lines):
        return (f"building a bot's environment needs pip in the arena's Python ({python}): "
                f"{python} -m ensurepip, or pip install pip")
    if any("no such option: --python" in line for line in lines):
        return (f"building a bot's environment needs pip 22.3 or later in the arena's Python "
                f"({python}): {python} -m pip install -U pip")
    network = next((line for line in lines if any(word in line for word in _NETWORK)), None)
    if network is not None:
        cause = _CAUSE.search(network)
        shown = _short(cause.group(0) if cause else network)
        return (f"cannot reach the package index ({shown}): check the network and pip's "
                "index settings")
    for line in lines:
        found = _NOT_FOUND.search(line)
        if found is not None:
            versions = _versions((found.group(2) or "none").strip())
            return (f"cannot install {_short(found.group(1))}: no matching release "
                    f"{_where(lines, no_index)} (pip: from versions: {versions}; only wheels "
                    "are installed, never built from source)")
    errors = [line for line in lines if line.startswith("ERROR:")]
    if errors:
        return f"pip: {_short(errors[-1].removeprefix('ERROR:'))}"
    return f"pip failed: {_short(lines[-1]) if lines else 'no output'}"
