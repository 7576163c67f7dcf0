"""What the referee keeps of a bot's ``ready`` and of a line that is no message
(docs/PROTOCOL.md, "Handshake" and "Limits and failures")."""

from __future__ import annotations

import pytest

from arena.errors import ProtocolError
from arena.protocol import messages


def test_a_ready_name_is_cut_to_64_characters_and_each_metadata_value_to_200() -> None:
    """A player's name is at most 64 characters (the bound a line of the referee's is
    built on); a longer one is cut, not refused."""
    for sent, kept in (("n" * 64, "n" * 64), ("n" * 65, "n" * 64), ("é" * 90, "é" * 64)):
        assert messages.parse_ready({"type": "ready", "name": sent})[0] == kept
    long = {"type": "ready", "name": "x", "author": "a" * 201, "version": "v" * 200}
    assert messages.parse_ready(long)[1] == {"author": "a" * 200, "version": "v" * 200}


@pytest.mark.parametrize("line", [
    b'{"type":1,"id":4,"choice":0}', b'{"type":null,"id":4,"choice":0}',
    b'{"type":["action"],"id":4,"choice":0}',
])
def test_a_line_whose_type_is_no_string_is_a_protocol_error_not_a_later_version(
        line: bytes) -> None:
    """Only a message of unknown *string* type is skipped as a later version's; any other
    ``type`` makes the line no message at all, which is struck."""
    assert messages.unknown_type(line) is None and not messages.is_unknown_type(line)
    with pytest.raises(ProtocolError, match="^message without a string 'type': "):
        messages.parse_action(line, 4, 3)


@pytest.mark.parametrize("said", [1, "true", "yes", [True], {"on": True}])
def test_only_a_json_true_offers_a_stack_dump_or_a_rematch(said: object) -> None:
    """The referee sends SIGUSR1, which ends a program that does not catch it, and keeps a
    process for a later match, only when ``ready`` says ``true``."""
    for field, offers in (("stack_dump", messages.offers_stack_dump),
                          ("rematch", messages.offers_rematch)):
        assert offers({"type": "ready", "name": "x", field: True}) is True
        assert offers({"type": "ready", "name": "x", field: said}) is False
