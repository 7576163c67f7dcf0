"""Protocol v1 between the referee and a bot: the codec of every line, both sides
(:mod:`arena.protocol.messages`), the JSON Schemas (:mod:`arena.protocol.schema`) and the
transports (:mod:`arena.protocol.transport`).

Kept import-free on purpose: the bot kit imports this package inside the sandbox, where only the
standard library and the ``arena`` package are available.
"""

__all__: list[str] = []
