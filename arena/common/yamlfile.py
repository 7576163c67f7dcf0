"""The YAML loaders for what users write: tournament specs and bot manifests.

Both are PyYAML's safe loader (no Python objects), stricter in two ways a typo or a hostile
file needs:

* a key given twice in one mapping is an error: PyYAML keeps the last one silently, so
  ``name: cup`` followed later by ``name: test`` ran a tournament called ``test``;
* :class:`NoAliasLoader` also refuses aliases: a few lines of ``&a [*b, *b, ...]`` expand to
  billions of items once read (a "billion laughs"), and a bot's manifest has no use for them.
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["NoAliasLoader", "UniqueKeyLoader", "yaml_problem"]


class UniqueKeyLoader(yaml.SafeLoader):
    """The safe loader, refusing a mapping that gives a key twice."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, Any] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node.start_mark)
                except TypeError:
                    continue  # an unhashable key: the base class reports it
                if first is not key_node.start_mark:
                    raise yaml.constructor.ConstructorError(
                        "while reading a mapping", node.start_mark,
                        f"the key {key!r} is given twice (also on line {first.line + 1})",
                        key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def _construct_timestamp(loader: UniqueKeyLoader, node: Any) -> Any:
    """PyYAML's date, or a YAML error at the value: an unquoted ``2026-13-45`` looks like a
    date to the resolver and raises a bare ValueError in the constructor."""
    try:
        return yaml.SafeLoader.construct_yaml_timestamp(loader, node)
    except ValueError as exc:
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} is not a date ({exc}); quote it if it is text",
            node.start_mark) from None


UniqueKeyLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


class NoAliasLoader(UniqueKeyLoader):
    """:class:`UniqueKeyLoader` without aliases (``*name``)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed",
                                              event.start_mark)
        return super().compose_node(parent, index)


def yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's error on one line: ``line 3, column 7: invalid YAML: <problem> (<context>)``
    (its own text spans several lines, with a caret under the source)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
    context = getattr(exc, "context", None)
    detail = f"{problem} ({context})" if context else str(problem)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return f"{where}invalid YAML: {detail}"
