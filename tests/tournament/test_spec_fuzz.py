"""The spec loader under mutated specs: whatever an organiser's editor or script makes of a
valid spec, ``load_spec`` returns a spec or raises a SpecError of short lines, never another
exception (which the CLI would show as a traceback)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tournament_fixtures import _repo_cwd  # noqa: F401 - _repo_cwd: an autouse fixture

from arena.errors import SpecError
from arena.tournament.spec_loading import load_spec

VALID_SPECS = [
    {"name": "cup", "format": "swiss", "bots": ["random", "greedy", "collector"], "rounds": 2,
     "games_per_match": 2, "seed": 7, "event_date": "2026-12-05",
     "limits": {"decision_ms": 500, "time_bank_ms": 2000}, "rating": {"mu": 25.0}},
    {"name": "rr", "format": "round_robin", "bots": ["random", {"bot": "greedy", "name": "g2"}],
     "players_per_game": [2], "duplicate": "rotations", "rules": {"kinds": "family"}},
    {"name": "gx", "format": "gauntlet", "bots": ["random", "collector"],
     "challengers": ["greedy"], "max_tables": 10, "workers": 1, "reuse_bots": False},
]
FIELDS = sorted({key for spec in VALID_SPECS for key in spec} | {"budget", "deals", "backend"})

#: What YAML can hold, nested a little: the values a typo or a wrong type puts in a field.
scalars = (st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
           | st.floats() | st.text(max_size=30) | st.dates().map(str))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)

#: Longer than any problem line a spec gives (a field's list of known names is the longest).
MAX_LINE = 600


def _loaded(text: str) -> None:
    """Load ``text`` as a spec file: a spec, or a SpecError whose lines are all short."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "spec.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            load_spec(path)
        except SpecError as exc:
            lines = str(exc).split("\n")
            assert all(len(line) <= MAX_LINE for line in lines), max(lines, key=len)[:200]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from(VALID_SPECS), field=st.sampled_from(FIELDS), value=values,
       drop=st.booleans())
def test_a_field_set_to_any_value_gives_a_spec_or_a_spec_error(
        spec: dict[str, Any], field: str, value: Any, drop: bool) -> None:
    mutated = dict(spec)
    if drop:
        mutated.pop(field, None)
    else:
        mutated[field] = value
    _loaded(yaml.safe_dump(mutated, allow_unicode=True))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from(VALID_SPECS), data=st.data())
def test_an_edited_spec_text_gives_a_spec_or_a_spec_error(spec: dict[str, Any],
                                                          data: st.DataObject) -> None:
    text = yaml.safe_dump(spec)
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        start = data.draw(st.integers(min_value=0, max_value=len(text)))
        end = data.draw(st.integers(min_value=start, max_value=min(len(text), start + 8)))
        inserted = data.draw(st.text(alphabet=st.sampled_from(list(":-[]{}&*!|>'\"#\t\n ,?%@`")
                                                              + ["a", "1", "é", "\x00"]),
                                     max_size=4))
        text = text[:start] + inserted + text[end:]
    _loaded(text)


@settings(max_examples=15, deadline=None)
@given(depth=st.integers(min_value=1, max_value=3000), opener=st.sampled_from(["[", "{a: "]))
def test_a_spec_nested_any_depth_gives_a_spec_or_a_spec_error(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    _loaded("name: t\nformat: swiss\nbots: [random, greedy]\nrounds: 2\nrules: "
            + opener * depth + ("1" if opener != "[" else "") + closer * depth + "\n")
