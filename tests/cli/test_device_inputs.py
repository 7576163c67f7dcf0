"""A file argument that is a device: ``/dev/zero`` never ends, and read until a line or the
file ended it would fill the memory until the kernel killed the arena. One ``Error:`` line."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


@pytest.mark.parametrize("command", [["replay", "/dev/zero"], ["game", "/dev/zero"],
                                     ["game", "/dev/zero", "--failures"]])
def test_a_records_file_that_is_a_device_is_refused_unread(command: list[str]) -> None:
    result = runner.invoke(app, command)
    assert result.exit_code == 1
    assert result.output == "Error: cannot read /dev/zero: a device, not a file\n"
