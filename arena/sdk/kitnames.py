"""Where a kit name an author imports from the wrong place really is.

``from arena.sdk.search import sample_state`` failed with Python's bare "cannot import name",
the bot's failure report saying nothing more; ``sample_state`` is a method of ``SearchView``.
A kit module's ``__getattr__`` (see :func:`misplaced`) answers such a name with an
``ImportError`` that says where it is; any other missing name stays an ``AttributeError``, so
``hasattr`` and ``from package import submodule`` work as before.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["misplaced"]


def misplaced(module: str, name: str, elsewhere: Mapping[str, str]) -> ImportError | AttributeError:
    """The error for ``module``'s missing attribute ``name``: an ``ImportError`` saying where
    it is if ``elsewhere`` names it, Python's own ``AttributeError`` otherwise."""
    if name in elsewhere:
        return ImportError(f"cannot import name {name!r} from {module!r}: {elsewhere[name]}",
                           name=module)
    return AttributeError(f"module {module!r} has no attribute {name!r}")
