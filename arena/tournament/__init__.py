"""Tournaments: a YAML spec played table by table through the referee, every game stored.

The modules, each importing only those listed before it:

* :mod:`~arena.tournament.store` (the results database), :mod:`~arena.tournament.events` (what
  a run reports), :mod:`~arena.tournament.scoring` (points, Buchholz, standings),
  :mod:`~arena.tournament.schedule` (fixed schedules and seeds),
  :mod:`~arena.tournament.swiss` (Swiss pairing);
* :mod:`~arena.tournament.entries` and :mod:`~arena.tournament.spec` (the spec and its bots);
* :mod:`~arena.tournament.planning` (the tables a spec plays),
  :mod:`~arena.tournament.standings` (a stored Swiss tournament's standings),
  :mod:`~arena.tournament.opening` (the stored tournament a run plays),
  :mod:`~arena.tournament.status` (``arena status``),
  :mod:`~arena.tournament.preflight` (the trial start of every entry);
* :mod:`~arena.tournament.pool` (worker processes playing tables), the Ray backend
  (:mod:`~arena.tournament.ray_bundles`, :mod:`~arena.tournament.ray_worker`,
  :mod:`~arena.tournament.ray_executor`, optional);
* :mod:`~arena.tournament.runner` (:func:`~arena.tournament.runner.run_tournament`).
"""

__all__: list[str] = []
