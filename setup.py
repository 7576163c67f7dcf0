"""Compile the engine's hot path with mypyc (about 2x faster play); pure Python otherwise.

Set ARENA_PURE_PYTHON=1 to install without compiling. The list of modules lives in
arena/engine/_native.py, which also refuses to run a build older than its sources.
"""

import ast
import hashlib
import json
import os
import sys

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE = os.path.join("arena", "engine")


def compiled_modules() -> list[str]:
    with open(os.path.join(HERE, ENGINE, "_native.py"), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if getattr(target, "id", "") == "COMPILED_MODULES" and node.value is not None:
            return list(ast.literal_eval(node.value))
    raise SystemExit("setup.py: COMPILED_MODULES not found in arena/engine/_native.py")


def write_build_record(modules: list[str]) -> None:
    sources = {}
    for name in modules:
        with open(os.path.join(HERE, ENGINE, name + ".py"), "rb") as source:
            sources[name] = hashlib.sha256(source.read()).hexdigest()
    with open(os.path.join(HERE, ENGINE, "_build.json"), "w", encoding="utf-8") as handle:
        json.dump({"compiler": "mypyc", "python": sys.version.split()[0], "sources": sources},
                  handle, indent=1, sort_keys=True)


def remove_leftover_extensions(modules: list[str]) -> None:
    """Extensions of engine modules no longer compiled would shadow their sources."""
    from importlib.machinery import EXTENSION_SUFFIXES

    for entry in os.listdir(os.path.join(HERE, ENGINE)):
        for suffix in EXTENSION_SUFFIXES:
            name = entry[: -len(suffix)]
            has_source = os.path.exists(os.path.join(HERE, ENGINE, name + ".py"))
            if entry.endswith(suffix) and has_source and name not in modules:
                os.remove(os.path.join(HERE, ENGINE, entry))


ext_modules = []
remove_leftover_extensions([] if os.environ.get("ARENA_PURE_PYTHON", "") not in ("", "0")
                           else compiled_modules())
if os.environ.get("ARENA_PURE_PYTHON", "") in ("", "0"):
    from mypyc.build import mypycify

    modules = compiled_modules()
    ext_modules = mypycify([os.path.join(ENGINE, name + ".py") for name in modules],
                           opt_level="3", group_name="arena.engine._compiled")
    write_build_record(modules)

setup(ext_modules=ext_modules)
