"""The usage errors typer raises, from the click it runs on: a newer typer's own copy of
click, an older one's click itself."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from typer._click.exceptions import NoArgsIsHelpError, UsageError
else:
    _click_exceptions = importlib.import_module(typer.BadParameter.__module__)
    UsageError = _click_exceptions.UsageError
    NoArgsIsHelpError = _click_exceptions.NoArgsIsHelpError

__all__ = ["NoArgsIsHelpError", "UsageError"]
