"""The referee: a bot process seen from the arena (:mod:`~arena.referee.client`), matches
(:mod:`~arena.referee.match`), failure types (:mod:`~arena.referee.failures`), the compliance
check (:mod:`~arena.referee.check`) and ``arena bench protocol`` (:mod:`~arena.bench.protocol`).

The tournament layer calls :func:`arena.referee.match.play_match`; see docs/ARCHITECTURE.md,
"Match results". Submodules are imported on demand (the sandbox probe behind the default
launcher is not free).
"""
