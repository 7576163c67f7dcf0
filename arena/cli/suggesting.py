"""A command group that answers a mistyped command with the command it most likely misspells
(``arena leaderbord``: did you mean 'leaderboard'?), as a mistyped bot, tournament or option
is answered: click says only that there is no such command."""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup

from arena.cli.click_errors import UsageError
from arena.common.printable import quoted_word
from arena.common.suggest import did_you_mean

__all__ = ["SuggestingGroup"]


class SuggestingGroup(TyperGroup):
    """A typer group whose unknown command is told the likely one."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except UsageError:
            hint = did_you_mean(args[0], self.list_commands(ctx)) if args else ""
            if not hint:
                raise
            raise UsageError(f"No such command {quoted_word(args[0])}{hint}.", ctx) from None
