"""Training environments over the engine: PettingZoo (AEC) and Gymnasium, for the ``rl`` extra."""

__all__: list[str] = []
