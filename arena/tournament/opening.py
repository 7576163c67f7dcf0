"""The stored tournament a run plays: created for a new spec, reopened for the same one, and
refused for a changed spec with what changed, said for people."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.common.lookalike import disguise, look_alike, looks_like, spelled
from arena.common.printable import printable
from arena.common.provenance import software
from arena.errors import ArenaError, SpecError, StoreError
from arena.referee.seeds import utc_today
from arena.registry import resolve
from arena.tournament.bot_versions import bot_labels, bot_options
from arena.tournament.dbfiles import holds_no_tables, table_names
from arena.tournament.editions import (
    continue_with,
    continued_deals_warning,
    current_edition,
    edition_name,
    version_changes,
)
from arena.tournament.hint_commands import results_command
from arena.tournament.overrides import override_options
from arena.tournament.planning import planned_games
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import Store, TournamentRow, peek, stored_metadata
from arena.tournament.swiss_edits import SwissEdit, apply_swiss_edit, swiss_edit

__all__ = ["earlier_look_alike", "earlier_names", "earlier_twin", "earlier_twins",
           "open_tournament", "refuse_new_entrants", "swiss_change"]


def open_tournament(store: Store, spec: TournamentSpec, fresh: bool, *,
                    carry_on: bool = False, edition: dict[str, Any] | None = None,
                    warn: Callable[[str], None] = lambda text: None) -> TournamentRow:
    """The stored tournament for ``spec`` (created if new); a different spec is refused,
    naming what changed and the ways on. ``carry_on`` (``--continue``): a spec whose only
    change is a new version of some entrants goes on with them
    (:mod:`~arena.tournament.editions`). ``edition``: ``{of: NAME, number: k}`` of a new
    edition, stored with it. ``warn``: what a new tournament's entrants' names are told
    (:func:`earlier_look_alike`), and a continued one's deals its new versions' authors
    may know (:func:`~arena.tournament.editions.continued_deals_warning`)."""
    row = store.tournament(spec.name)
    if row is None or fresh:  # a new tournament: refused before a stored one is dropped
        _refuse_bad_names(spec)
        _refuse_earlier_twins(store, spec, warn, replacing=row.id if row is not None else None)
    if row is not None and fresh:
        # the edition started anew stays an edition: else its spec's next run would be
        # compared with the first edition, or start another playing the very same deals
        edition = edition or row.spec.get("edition")
        store.delete_tournament(row.id)
        row = None
    if row is None:
        return _created(store, spec, edition)
    if row.spec_hash != spec.spec_hash():
        return _changed(store, row, spec, carry_on, warn)
    return _reopened(store, row, spec)


def _changed(store: Store, row: TournamentRow, spec: TournamentSpec,
             carry_on: bool, warn: Callable[[str], None]) -> TournamentRow:
    """The stored tournament ``row`` for a spec that differs from its own: continued with
    new versions of its entrants (``carry_on``, when only they changed), else refused, naming
    what changed and the ways on."""
    refused = change_refusal(store, row, spec, carry_on)
    if refused is not None:
        raise refused
    if isinstance(swiss_change(store, row, spec), SwissEdit):
        _warn_shown_seed(row, spec, warn)
        held = len(store.entrant_ids(row.id))
        edited = apply_swiss_edit(store, row, spec)
        late = list(range(held, len(spec.entrants)))
        if late and (risk := continued_deals_warning(store, edited, spec, late,
                                                     "the spec's 'joined' enters")):
            warn(risk)
        return edited
    old = row.spec.get("canonical") or {}
    versions = version_changes(list(old.get("entrants", [])), spec)
    assert versions is not None  # no refusal: only new versions of its entrants
    continued = continue_with(store, row, spec, versions, spec.canonical())
    if (risk := continued_deals_warning(store, continued, spec, versions)) is not None:
        warn(risk)
    return continued


def change_refusal(store: Store, row: TournamentRow, spec: TournamentSpec,
                   carry_on: bool) -> StoreError | None:
    """Why the stored tournament ``row`` refuses ``spec``, which differs from its own, naming
    what changed and the ways on; None when ``carry_on`` goes on with new versions of its
    entrants. Reads the store only, so a run says it before any bot starts. A Swiss whose
    spec only adds or drops rounds, withdraws bots or enters late ones from a round not paired
    yet goes on (:mod:`~arena.tournament.swiss_edits`); one that would change a paired round
    is refused, saying which."""
    edit = swiss_change(store, row, spec)
    if edit is not None:
        return edit if isinstance(edit, StoreError) else None
    old = row.spec.get("canonical") or {}
    new = spec.canonical()
    changed = [key for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]
    what = f": {', '.join(changed)} changed" if changed else ""
    if changed == ["entrants"]:
        what += (_entry_rule_change(list(old.get("entrants", [])), new["entrants"])
                 if spec.format == "league"
                 else _entrants_change(store, list(old.get("entrants", [])), spec))
    if "rating" in changed:
        what += _rating_change(old.get("rating") or {}, new["rating"], spec)
    started = row.spec.get("overrides") or {}
    if started != spec.overrides:  # options of arena run that the rerun left out
        what += (f"; it was started with{override_options(started)}: give them "
                 "again to resume it" if started else
                 "; it was started without options setting the spec's fields")
    # a league's stored entrants are its entry rule, and it enters new versions itself
    versions = (version_changes(list(old.get("entrants", [])), spec)
                if changed == ["entrants"] and spec.format != "league" else None)
    if (versions is not None and spec.format != "league"
            and store.count_games(row.id) >= row.games_planned):
        # every game is played: a new version entered now would play none
        return StoreError(_finished_refusal(store, row, spec, what, carry_on))
    if carry_on and versions is not None:
        return None
    return StoreError(_refusal(store, row, spec, what, versions is not None, carry_on))


def swiss_change(store: Store, row: TournamentRow, spec: TournamentSpec
                 ) -> SwissEdit | StoreError | None:
    """:func:`~arena.tournament.swiss_edits.swiss_edit`, its late entrants' names held to
    the rule a new tournament's are (the bots it had resume with the names they hold)."""
    edit = swiss_edit(store, row, spec)
    if not isinstance(edit, SwissEdit):
        return edit
    held = len(store.entrant_ids(row.id))
    late = tuple(f"bots[{i}]:" for i in range(held, len(spec.entrants)))
    earlier = earlier_names(store, row.id)
    problems = [p for p in spec.name_problems if p.startswith(late)] + [
        f"{problem}; enter it under another name: {{bot: REF, name: NAME}}"
        for bot in spec.entrants[held:]
        if (problem := earlier_twin(bot.name, earlier, store.path)) is not None]
    return StoreError("; ".join(problems)) if problems else edit


def _warn_shown_seed(row: TournamentRow, spec: TournamentSpec,
                     warn: Callable[[str], None]) -> None:
    """Warn when rounds are added to a finished Swiss whose drawn seed its end showed: the
    seed decides the new rounds' deals too, and whoever read it can compute them."""
    if row.state == "finished" and spec.seed is None and spec.format == "swiss":
        warn(f"tournament '{spec.name}' was finished, so arena status and arena results show "
             "its seed, which deals the rounds added too: an author who read it could know "
             "their deals (a new edition draws a new seed: --new-edition)")


def _reopened(store: Store, row: TournamentRow, spec: TournamentSpec) -> TournamentRow:
    """The stored tournament ``row`` for its own spec, with where the spec is now and a
    league's budget brought up to date."""
    path = str(spec.source.resolve()) if spec.source is not None else None
    if path and path != row.spec_path:
        store.set_spec_path(row.id, path)
    if spec.format == "league" and planned_games(spec) != row.games_planned:
        # a league's budget is outside its hash: a raised one is its new end
        store.set_games_planned(row.id, planned_games(spec))
        row = store.require(spec.name)
    return row


def _created(store: Store, spec: TournamentSpec,
             edition: dict[str, Any] | None) -> TournamentRow:
    """A new stored tournament for ``spec``, its seed drawn where the spec gives none."""
    data = spec.to_json()
    data["canonical"] = spec.canonical()
    if edition is not None:
        data["edition"] = edition
    data["software"] = software()  # what judged it (arena.common.provenance)
    return store.create_tournament(
        name=spec.name, spec_hash=spec.spec_hash(), spec_json=data, format=spec.format,
        players_per_game=max(spec.table_sizes),
        seed=spec.seed if spec.seed is not None else secrets.randbits(63),
        event_date=spec.event_date or utc_today(), rounds=spec.effective_rounds(),
        games_planned=planned_games(spec),
        spec_path=str(spec.source.resolve()) if spec.source is not None else None,
        bots=[(b.name, b.version, str(b.path), stored_metadata(b.metadata, b.options))
              for b in spec.entrants])


def refuse_new_entrants(db_path: Path, spec: TournamentSpec, fresh: bool,
                        new_edition: bool, carry_on: bool = False) -> None:
    """Refuse at once the entrants :func:`open_tournament` would refuse in a new tournament
    (their names, or one passing for an earlier tournament's bot), and a spec that differs
    from the stored tournament's (unless ``carry_on`` goes on with it), reading the database
    at ``db_path`` without changing it: before any bot starts (the trial start of forty bots
    takes seconds, and its warnings would read as if the games were to come), and before a
    database that is not there is made, which a refused run would leave behind empty. The
    opening checks them again, under the run's lock."""
    if not db_path.is_file() or holds_no_tables(db_path):
        _refuse_bad_names(spec)
        return
    found = peek(db_path, lambda store: _new_entrants_problem(store, spec, fresh, new_edition,
                                                              carry_on))
    if found is not None:  # peek takes a raised error for an unusable database
        raise found


def _new_entrants_problem(store: Store, spec: TournamentSpec, fresh: bool,
                          new_edition: bool, carry_on: bool) -> SpecError | StoreError | None:
    """What :func:`open_tournament` would refuse of ``spec`` in ``store``: its entrants in a
    new tournament, or the spec of a stored one when it differs (a stored tournament keeps
    the names it holds)."""
    played, _ = current_edition(store, spec, new_edition)
    stored = store.tournament(played.name)
    if not fresh and stored is not None:
        if stored.spec_hash == played.spec_hash():
            return None
        return change_refusal(store, stored, played, carry_on)
    try:
        _refuse_bad_names(spec)
        _refuse_earlier_twins(store, spec, lambda text: None,
                              replacing=stored.id if stored is not None else None)
    except SpecError as refused:
        return refused
    return None


def _refuse_bad_names(spec: TournamentSpec) -> None:
    """Refuse a new tournament whose entrants' names break the rule of
    :mod:`arena.common.names` (a stored one resumes with the names it holds)."""
    problems = spec.name_problems
    if len(problems) == 1:
        raise SpecError(problems[0])
    if problems:
        lines = "\n".join(f"  {problem}" for problem in problems)
        raise SpecError(f"{len(problems)} entrants' names are refused:\n{lines}")


def _refuse_earlier_twins(store: Store, spec: TournamentSpec, warn: Callable[[str], None],
                          replacing: int | None = None) -> None:
    """Refuse an entrant whose name passes for a bot's of an earlier tournament of the
    database, or that such a bot's name passes for (:func:`earlier_twin`); ``warn`` of one
    that only looks like such a bot's (:func:`earlier_look_alike`). ``replacing``: the
    stored tournament ``--fresh`` drops for this one, whose bots are no earlier ones."""
    if twins := earlier_twins(store, spec, replacing):
        raise SpecError(twins[0])
    earlier = earlier_names(store, replacing)
    for bot in spec.entrants:
        if (alike := earlier_look_alike(bot.name, earlier, store.path)) is not None:
            warn(alike)


def earlier_twins(store: Store, spec: TournamentSpec,
                   replacing: int | None = None) -> list[str]:
    """Why each entrant of ``spec`` whose name passes for a bot's of an earlier tournament of
    ``store`` (but the one it is ``replacing``), or that such a bot's name passes for
    (:func:`earlier_twin`), may not enter a new tournament: one line each, saying how to
    enter it (``arena run --check`` lists them)."""
    earlier = earlier_names(store, replacing)
    return [f"{problem}; enter it under another name: {{bot: REF, name: NAME}}"
            for bot in spec.entrants
            if (problem := earlier_twin(bot.name, earlier, store.path)) is not None]


def earlier_names(store: Store, replacing: int | None = None) -> list[str]:
    """The names of the bots a stored tournament or league holds (but the tournament of id
    ``replacing``, which ``--fresh`` drops): the ``bots`` table keeps the bots of a deleted
    tournament too, which must not bar a name any longer."""
    held = ("SELECT bot_id FROM tournament_bots JOIN tournaments ON tournaments.id = "
            "tournament_id WHERE tournament_id IS NOT ?")
    if "league_entries" in table_names(store.conn):
        held += (" UNION SELECT bot_id FROM league_entries JOIN tournaments ON "
                 "tournaments.id = tournament_id WHERE bot_id IS NOT NULL AND tournament_id "
                 "IS NOT ?")
    params = (replacing,) * held.count("?")
    return [row[0] for row in store.conn.execute(
        f"SELECT DISTINCT name FROM bots WHERE id IN ({held}) ORDER BY name", params)]


def earlier_twin(name: str, earlier: Sequence[str], db: Path) -> str | None:
    """Why a bot named ``name`` may not enter beside the bots of the database ``db`` named
    ``earlier``, or None: its name passes for one of theirs, or one of theirs passes for it
    (neither registered nor at its table, the spec's checks cannot see it): ``arena
    leaderboard --all`` and the reports would show the two as one. ``arena run`` asks it of a
    new tournament's entrants, a league of its newcomers."""
    if not name.isascii() and (problem := disguise(name, earlier)) is not None:
        return (f"the name {spelled(name)} {problem}, a bot of an earlier tournament of {db}: "
                "a reader of the results would take one for the other")
    for other in earlier:
        # An earlier name that mixes scripts ('gr\u0435edy': disguise finds it with no other
        # name) is left out: such a name is refused as it enters now, and one stored before
        # must not bar the very bot it mimics.
        if (other != name and not other.isascii() and look_alike(other, name)
                and disguise(other, []) is None
                and (problem := disguise(other, [name])) is not None):
            return (f"the name {spelled(name)} is taken, to the eye, by {spelled(other)}, a "
                    f"bot of an earlier tournament of {db}, which {problem}: a reader of the "
                    "results would take one for the other")
    return None


def earlier_look_alike(name: str, earlier: Sequence[str], db: Path) -> str | None:
    """What to say of a bot named ``name`` entering beside the bots of ``db`` named
    ``earlier`` when its name looks like one of theirs though neither passes for the other
    (:func:`earlier_twin`): the same but for case, or for ASCII strokes drawn alike (``bot1``
    and ``botl``, ``AI`` and ``Al``). Said, not refused: a database may hold both from before,
    and a refusal would bar either bot from every later tournament of it."""
    twin = next((other for other in sorted(earlier)
                 if other != name and look_alike(other, name)), None)
    if twin is None:
        return None
    return (f"{looks_like(name, twin, f'a bot of an earlier tournament of {db}')}: arena "
            "leaderboard --all shows both, which a reader may take for one bot")


def _refusal(store: Store, row: TournamentRow, spec: TournamentSpec, what: str,
             versions_only: bool, carry_on: bool) -> str:
    """Why a changed spec is not played, and the ways on: ``--continue`` when only versions
    changed, a new edition, or starting anew."""
    base = (row.spec.get("edition") or {}).get("of") or row.name
    edition = f"--new-edition starts {edition_name(store, base)} and keeps this one for comparison"
    if carry_on:
        return (f"--continue enters new versions of the same bots, and tournament "
                f"'{spec.name}' changed more (hash {row.spec_hash}, this spec "
                f"{spec.spec_hash()}{what}); {edition}, --fresh starts anew")
    ways = (f"--continue goes on with the new version (the games played stay rated under "
            f"the old one), {edition}, --fresh starts anew" if versions_only
            else f"{edition}, --fresh starts anew, or rename it")
    shown = (f"; it is finished: {results_command(row.name, store.path)} shows its results"
             if row.state == "finished" else "")
    return (f"tournament '{spec.name}' exists with a different spec (hash {row.spec_hash}, "
            f"this spec {spec.spec_hash()}{what}); {ways}{shown}")


def _finished_refusal(store: Store, row: TournamentRow, spec: TournamentSpec, what: str,
                      carry_on: bool) -> str:
    """Why a finished tournament is not continued with a new version of an entrant: no deal
    is left for it; a new edition plays it."""
    base = (row.spec.get("edition") or {}).get("of") or row.name
    ways = (f"--new-edition starts {edition_name(store, base)} with the new version and keeps "
            "this one for comparison, --fresh starts anew")
    if carry_on:
        return (f"--continue enters a new version for the deals not begun, and tournament "
                f"'{spec.name}' is finished (this spec {spec.spec_hash()}{what}); {ways}")
    return (f"tournament '{spec.name}' is finished, and this spec differs (hash "
            f"{row.spec_hash}, this spec {spec.spec_hash()}{what}); {ways}; "
            f"{results_command(row.name, store.path)} shows its results")


def _entrants_change(store: Store, old: list[str], spec: TournamentSpec) -> str:
    """How the entrants differ, for people: bots gone and come, a new version, other options
    (shown as the options, not their digests), or the same bots in another order."""
    new = [b.key for b in spec.entrants]
    if sorted(old) == sorted(new):
        return " (the same bots in another order: the order sets the seats and the schedule)"
    labels = bot_labels(store)
    old_options = {labels[i]: o for i, o in bot_options(store).items() if i in labels}
    new_options = {b.key: b.options for b in spec.entrants}
    gone = [k for k in old if k not in new]
    came = [k for k in new if k not in old]
    changes = []
    for key in list(gone):
        name, files = key.split("@")[0], key.split("@")[1].split("+")[0]
        twin = next((k for k in came if k.split("@")[0] == name), None)
        if twin is None:
            continue
        gone.remove(key)
        came.remove(twin)
        if twin.split("@")[1].split("+")[0] == files:
            changes.append(f"{name} options {_options_text(old_options.get(key, {}))} -> "
                           f"{_options_text(new_options.get(twin, {}))}")
        else:
            changes.append(f"{key} -> {twin}" + _old_version_hint(key))
    changes += [f"{k} left" for k in gone] + [f"{k} joined" for k in came]
    old_names, new_names = ([k.split("@")[0] for k in keys] for keys in (old, new))
    stayed = set(old_names) & set(new_names)
    if [n for n in old_names if n in stayed] != [n for n in new_names if n in stayed]:
        changes.append("the others in another order")
    return f" ({'; '.join(changes)})"


def _entry_rule_change(old: list[Any], new: list[Any]) -> str:
    """How a league's ``bots`` (its entry rule: names, paths, patterns, entries as written)
    differ, for people: the entries gone and come, or the same ones in another order."""
    def shown(entry: Any) -> str:
        return (entry if isinstance(entry, str)
                else json.dumps(entry, sort_keys=True, ensure_ascii=False))

    before, after = [shown(e) for e in old], [shown(e) for e in new]
    if sorted(before) == sorted(after):
        return " (bots: the same entries in another order)"
    changes = [f"{e} left" for e in before if e not in after]
    changes += [f"{e} joined" for e in after if e not in before]
    return f" (bots: {'; '.join(printable(c) for c in changes)})"


def _old_version_hint(key: str) -> str:
    """How to finish a tournament with the version it started with, when that version can
    still be found (``submit --update`` keeps the versions it replaces)."""
    pinned = key.split("+", 1)[0]
    try:
        resolve(pinned)
    except ArenaError:
        return ""
    return f"; to go on with the version it started with, enter it as {pinned}"


def _options_text(options: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in sorted(options.items())) + "}"


def _rating_change(old: dict[str, Any], new: dict[str, Any], spec: TournamentSpec) -> str:
    """Which rating parameters differ; a hint when only the default tau moved (it was
    ``sigma / 100`` before bots were rated without drift)."""
    keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]

    def show(value: Any) -> str:
        return f"{value:.4g}" if isinstance(value, int | float) else repr(value)

    text = " (" + ", ".join(f"{k} {show(old.get(k))} -> {show(new.get(k))}" for k in keys) + ")"
    if keys == ["tau"] and spec.rating.tau is None:
        text += (f"; tau now defaults to 0 (bots do not drift): set rating.tau: "
                 f"{old['tau']!r} in the spec to resume with the old value")
    return text
