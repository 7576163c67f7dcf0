"""Protocol v1 between the referee and a bot: messages (:mod:`arena.protocol.messages`) and
transports (:mod:`arena.protocol.transport`).

Kept import-free on purpose: the bot kit imports this package inside the sandbox, where only the
standard library and the ``arena`` package are available.
"""
