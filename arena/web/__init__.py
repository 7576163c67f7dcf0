"""The tournament site: a static report of a tournament (leaderboard, rating charts, head-to-head,
rounds, games and a replay viewer) and the same pages served live from the results database."""

__all__: list[str] = []
