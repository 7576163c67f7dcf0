"""Compile the hot paths with mypyc (the engine's play about 2x faster, the referee's work per
decision about a third cheaper); pure Python otherwise.

Set ARENA_PURE_PYTHON=1 to install without compiling. The list of modules lives in
arena/native.py, which also refuses to run a build older than its sources.
"""

import ast
import hashlib
import json
import os
import sys

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
ARENA = os.path.join(HERE, "arena")
GROUP = "arena._compiled"


def compiled_modules() -> list[str]:
    with open(os.path.join(ARENA, "native.py"), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if getattr(target, "id", "") == "COMPILED_MODULES" and node.value is not None:
            return list(ast.literal_eval(node.value))
    raise SystemExit("setup.py: COMPILED_MODULES not found in arena/native.py")


def source(module: str) -> str:
    return os.path.join("arena", *module.split(".")) + ".py"


def write_build_record(modules: list[str]) -> None:
    sources = {}
    for name in modules:
        with open(os.path.join(HERE, source(name)), "rb") as handle:
            sources[name] = hashlib.sha256(handle.read()).hexdigest()
    with open(os.path.join(ARENA, "_build.json"), "w", encoding="utf-8") as handle:
        json.dump({"compiler": "mypyc", "python": sys.version.split()[0], "sources": sources},
                  handle, indent=1, sort_keys=True)


def remove_leftover_extensions(modules: list[str]) -> None:
    """Extensions of modules no longer compiled would shadow their sources; a shared library
    of an older layout (the engine's own group) is dead weight."""
    from importlib.machinery import EXTENSION_SUFFIXES

    for directory, _, entries in os.walk(ARENA):
        package = os.path.relpath(directory, ARENA).replace(os.sep, ".")
        for entry in entries:
            for suffix in EXTENSION_SUFFIXES:
                if not entry.endswith(suffix):
                    continue
                name = entry[: -len(suffix)]
                module = name if package == "." else f"{package}.{name}"
                has_source = os.path.exists(os.path.join(directory, name + ".py"))
                old_group = name.endswith("__mypyc") and module != GROUP + "__mypyc"
                if (has_source and module not in modules) or old_group:
                    os.remove(os.path.join(directory, entry))


pure = os.environ.get("ARENA_PURE_PYTHON", "") not in ("", "0")
ext_modules = []
remove_leftover_extensions([] if pure else compiled_modules())
if not pure:
    from mypyc.build import mypycify

    modules = compiled_modules()
    ext_modules = mypycify([source(name) for name in modules], opt_level="3",
                           group_name=GROUP)
    write_build_record(modules)

setup(ext_modules=ext_modules)
