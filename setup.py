"""Compile the engine with mypyc where a C compiler works; install the Python sources where not.

The modules to compile are listed in arena/native.py (COMPILED_MODULES), which also holds the
rule for a build older than its sources. ARENA_PURE_PYTHON=1 installs without compiling. When
compiling fails (no C compiler, no Python headers, mypyc missing), the install goes on with the
sources and says why in one line (shown by `pip install -v`, and by `arena doctor` after).
"""

import ast
import hashlib
import json
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ARENA = os.path.join(HERE, "arena")
BUILD_RECORD = os.path.join(ARENA, "_build.json")


def compiled_modules() -> list[str]:
    with open(os.path.join(ARENA, "native.py"), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if (isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "")
                == "COMPILED_MODULES"):
            return list(ast.literal_eval(node.value))
    raise SystemExit("setup.py: COMPILED_MODULES not found in arena/native.py")


def source(module: str) -> str:
    return os.path.join("arena", *module.split(".")) + ".py"


def write_build_record(record: dict) -> None:
    with open(BUILD_RECORD, "w", encoding="utf-8") as handle:
        json.dump(record, handle, indent=1, sort_keys=True)


def compiled_record(modules: list[str]) -> dict:
    sources = {}
    for name in modules:
        with open(os.path.join(HERE, source(name)), "rb") as handle:
            sources[name] = hashlib.sha256(handle.read()).hexdigest()
    return {"compiler": "mypyc", "python": sys.version.split()[0], "sources": sources}


def remove_extensions() -> None:
    """Extensions of an earlier build (another module list, or a half-finished build) would
    shadow their sources."""
    for directory, _, entries in os.walk(ARENA):
        for entry in entries:
            if entry.endswith(tuple(EXTENSION_SUFFIXES)):
                os.remove(os.path.join(directory, entry))
    if os.path.exists(BUILD_RECORD):
        os.remove(BUILD_RECORD)


def short_reason(exc: BaseException) -> str:
    """One line on why compiling failed (a compiler's whole command line says too much)."""
    cause: BaseException | None = exc
    while cause is not None:  # a compiler error wraps the failed command
        command = getattr(cause, "cmd", None)
        if isinstance(command, (list, tuple)) and command:
            return (f"the C compiler {command[0]} exited with status "
                    f"{getattr(cause, 'returncode', '?')}")
        cause = cause.__cause__ or cause.__context__
    lines = str(exc).strip().splitlines()
    return lines[-1][:200] if lines else type(exc).__name__


def fall_back(reason: str) -> None:
    remove_extensions()
    write_build_record({"compiler": None, "reason": reason})
    print(f"palaestra-arena: not compiled ({reason}); installing the Python sources (the same "
          "games, about half the engine's speed)", file=sys.stderr)


class BuildOrFallBack(build_ext):
    """build_ext that installs the sources when compiling fails, instead of failing."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            fall_back(short_reason(exc))
            self.extensions = []
            self.distribution.ext_modules = []


def mypyc_extensions(modules: list[str]) -> list:
    """The extensions to build, or none (after saying why) when mypyc cannot make them."""
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        fall_back(f"mypyc is not installed: {exc}")
        return []
    try:
        return mypycify([source(name) for name in modules], opt_level="3",
                        group_name="arena._compiled")
    except SystemExit:  # mypyc printed its errors and gave up
        fall_back("mypyc refused the sources (its errors are printed above)")
        return []
    except Exception as exc:
        fall_back(f"mypyc failed: {short_reason(exc)}")
        return []


def main() -> None:
    remove_extensions()
    if os.environ.get("ARENA_PURE_PYTHON", "") not in ("", "0"):
        write_build_record({"compiler": None, "reason": "ARENA_PURE_PYTHON=1"})
        setup()
        return
    modules = compiled_modules()
    write_build_record(compiled_record(modules))  # before setup(): a wheel ships it
    setup(ext_modules=mypyc_extensions(modules), cmdclass={"build_ext": BuildOrFallBack})


main()
