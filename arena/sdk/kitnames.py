"""Where a kit name an author imports from the wrong place really is.

``from arena.sdk.search import sample_state`` failed with Python's bare "cannot import name",
the bot's failure report saying nothing more; ``sample_state`` is a method of ``SearchView``.
A kit module's ``__getattr__`` (see :func:`misplaced`) answers such a name with an
``ImportError`` that says where it is; any other missing name stays an ``AttributeError``, so
``hasattr`` and ``from package import submodule`` work as before.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping

from arena.common.suggest import closest

__all__ = ["MODULE_AS_BASE_HINT", "kit_import_hint", "misplaced"]

#: Python's own words for a name a kit module lacks: ``... from 'arena.sdk' (/path/...)``,
#: not the words of :func:`misplaced`, which say where the name is.
_KIT_IMPORT = re.compile(r"^ImportError: cannot import name '(\w+)' from "
                         r"'(arena\.sdk(?:\.\w+)*)'(?: \(|$)")


def misplaced(module: str, name: str, elsewhere: Mapping[str, str]) -> ImportError | AttributeError:
    """The error for ``module``'s missing attribute ``name``: an ``ImportError`` saying where
    it is if ``elsewhere`` names it, Python's own ``AttributeError`` otherwise."""
    if name in elsewhere:
        return ImportError(f"cannot import name {name!r} from {module!r}: {elsewhere[name]}",
                           name=module)
    return AttributeError(f"module {module!r} has no attribute {name!r}")


#: Python's words for a class derived from a module (``class MyBot(bot)`` after ``from
#: arena.sdk import bot``, which imports the kit's module of that name), in 3.11 and 3.12.
_MODULE_AS_BASE = re.compile(r"^TypeError: module(?:\.__init__)?\(\) takes at most 2 "
                             r"arguments \(3 given\)$")
MODULE_AS_BASE_HINT = ("hint: a class derives from a module, not from a class (from arena.sdk "
                       "import bot imports the kit's module bot): write from arena.sdk import "
                       "Bot and class MyBot(Bot)")


def kit_import_hint(error: str) -> str | None:
    """``hint: did you mean 'Bot'? arena.sdk offers Bot, GameEnd, ...`` for a traceback's last
    line ``error`` that is a name a bot imports from a kit module lacking it (``from
    arena.sdk import BotBase``): what the module offers, the name it most likely misspells
    first, whatever its case; :data:`MODULE_AS_BASE_HINT` for a class derived from a module.
    None for any other line. The kit's names are public, so the hint may be shown to
    anyone."""
    if _MODULE_AS_BASE.match(error):
        return MODULE_AS_BASE_HINT
    found = _KIT_IMPORT.match(error)
    if found is None:
        return None
    try:
        offered = sorted(importlib.import_module(found[2]).__all__)
    except (ImportError, AttributeError):
        return None
    by_case = {name.lower(): name for name in offered}
    meant = closest(found[1].lower(), by_case)
    guess = f"did you mean {by_case[meant]!r}? " if meant is not None else ""
    return f"hint: {guess}{found[2]} offers {', '.join(offered)}"
