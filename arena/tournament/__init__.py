"""Tournaments: a YAML spec played table by table through the referee, every game stored.

The modules, each importing only those listed before it
(tests/tournament/test_tournament_layout.py holds it):

* :mod:`~arena.tournament.runlock` (the run's lock), :mod:`~arena.tournament.secrecy` (a
  contest's database kept private), :mod:`~arena.tournament.dbfiles` (what is said of a
  database it cannot use), :mod:`~arena.tournament.store` (the results database),
  :mod:`~arena.tournament.bot_versions` (the bot versions it stores, read back),
  :mod:`~arena.tournament.game_details` (a game's showdown and conduct, read back),
  :mod:`~arena.tournament.game_records` (the games' records, compressed and read back),
  :mod:`~arena.tournament.events` (what a run reports),
  :mod:`~arena.tournament.field_changes` (a Swiss field's withdrawals and late entrants),
  :mod:`~arena.tournament.scoring` (points, Buchholz, standings),
  :mod:`~arena.tournament.schedule` (fixed schedules and seeds),
  :mod:`~arena.tournament.swiss_local` and :mod:`~arena.tournament.swiss` (Swiss pairing),
  :mod:`~arena.tournament.dealbook` (fixed deals), :mod:`~arena.tournament.overrides` (the
  ``arena run`` options that set spec fields);
* :mod:`~arena.tournament.entries`, :mod:`~arena.tournament.league_spec`,
  :mod:`~arena.tournament.rating_spec`, :mod:`~arena.tournament.spec_problems`,
  :mod:`~arena.tournament.spec` and :mod:`~arena.tournament.spec_loading` (the spec's bots,
  its league budget, its rating parameters, what is said of a spec that is wrong, the spec's
  model and its loading: the YAML read, checked and its bots resolved);
* :mod:`~arena.tournament.editions` (a stored tournament whose entrants changed),
  :mod:`~arena.tournament.planning` (the tables a spec plays),
  :mod:`~arena.tournament.swiss_edits` (a Swiss changed only in rounds not yet paired),
  :mod:`~arena.tournament.standings` (a stored Swiss tournament's standings),
  :mod:`~arena.tournament.league_store` (what a league stores),
  :mod:`~arena.tournament.hint_commands` (the commands a message gives to paste: resume,
  results), :mod:`~arena.tournament.gone_entrants` (a withdrawn bot whose files are gone,
  taken from the stored Swiss), :mod:`~arena.tournament.status_json` (``arena status``'s
  facts, as its json) and
  :mod:`~arena.tournament.status` (``arena status``, its text),
  :mod:`~arena.tournament.opening` (the stored tournament a run plays),
  :mod:`~arena.tournament.preflight` (the trial start of every entry),
  :mod:`~arena.tournament.pairings` (``arena pairings``), :mod:`~arena.tournament.export`
  (``arena export``), :mod:`~arena.tournament.matchmaking` (a league's next table);
* :mod:`~arena.tournament.tasks` (the workers' tasks and messages),
  :mod:`~arena.tournament.boards` (a duplicate deal's seatings on several workers),
  :mod:`~arena.tournament.worker` (a worker playing tables),
  :mod:`~arena.tournament.pool` (the local worker processes), the Ray backend
  (:mod:`~arena.tournament.ray_bundles`, :mod:`~arena.tournament.ray_worker`,
  :mod:`~arena.tournament.ray_executor`, optional);
* :mod:`~arena.tournament.league_vetting` (a league's new versions vetted aside),
  :mod:`~arena.tournament.league` (a league's loop);
* :mod:`~arena.tournament.run_state` (a run's tables, rounds and stored games as it plays),
  :mod:`~arena.tournament.runner` (:func:`~arena.tournament.runner.run_tournament`).
"""

__all__: list[str] = []
