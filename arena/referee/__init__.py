"""The referee: a bot process seen from the arena (:mod:`~arena.referee.client`, behind a
:mod:`~arena.referee.connection` that :mod:`~arena.referee.launch` makes in the sandbox),
matches (:mod:`~arena.referee.match`, their games in :mod:`~arena.referee.games`, their seeds
in :mod:`~arena.referee.seeds`), failure types (:mod:`~arena.referee.failures`) and the
compliance check (:mod:`~arena.referee.check`).

The tournament layer calls :func:`arena.referee.match.play_match`; see docs/ARCHITECTURE.md,
"Match results".
"""

__all__: list[str] = []
