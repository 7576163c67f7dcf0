"""The benchmarks behind ``arena bench``: measurements of the product, kept beside it.

No product layer imports this package (a contract in pyproject.toml checks it); the CLI's
``arena bench`` commands call it.

* :mod:`arena.bench.engine`: in-process random play, decisions/s; the Desmos census.
* :mod:`arena.bench.protocol`: the referee's round trip against the floors of
  :mod:`arena.bench.children`.
* :mod:`arena.bench.tournament`: a whole tournament's games/s.
* :mod:`arena.bench.ray`: the same tournament on a Ray cluster.
"""

__all__: list[str] = []
