"""A person at the table: one seat answered from the keyboard, through the sandboxed referee."""

__all__: list[str] = []
