"""The console script's set-up: the arena's log records read like the CLI's own warnings."""

from __future__ import annotations

import logging

import pytest

from arena.cli.main import configure_logging


def test_arena_warnings_are_printed_as_warning_lines(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    logger = logging.getLogger("arena")
    saved = (list(logger.handlers), logger.level, logger.propagate)
    logger.handlers.clear()
    try:
        configure_logging()
        configure_logging()  # once only, however often called
        logging.getLogger("arena.sandbox.probe").warning("sandbox layer %s is not active", "x")
        logging.getLogger("arena.sandbox.probe").info("not shown")
        assert capsys.readouterr().err == "warning: sandbox layer x is not active\n"
    finally:
        logger.handlers[:] = saved[0]
        logger.setLevel(saved[1])
        logger.propagate = saved[2]
