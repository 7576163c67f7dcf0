"""The benchmarks behind ``arena bench``: measurements of the product, kept beside it.

No product layer imports this package (a contract in pyproject.toml checks it); the CLI's
``arena bench`` commands call it.

* :mod:`arena.bench.engine`: in-process random play, decisions/s; the Desmos census.
* :mod:`arena.bench.protocol`: the referee's round trip against the floors of
  :mod:`arena.bench.children`.
* :mod:`arena.bench.tournament`: a whole tournament's games/s.
* :mod:`arena.bench.ray`: the same tournament on a Ray cluster.
* :mod:`arena.bench.inprocess`: a stored tournament's games played again in-process.
* :mod:`arena.bench.league`: how fast league matchmaking finds the true order.
* :mod:`arena.bench.swiss`: the time to pair one Swiss round.
* :mod:`arena.bench.leaderboard`: a big tournament's leaderboard and site pages read.
* :mod:`arena.bench.environments`: what a bot's packages cost to build and start.
* :mod:`arena.bench.ismcts`: the ISMCTS sample bot's speed and strength.
* :mod:`arena.bench.rl`: the RL environments' steps per second.
"""

__all__: list[str] = []
