"""Dies before it answers 'hello' (a dependency missing in the sandbox, say): it never starts."""

raise ImportError("No module named 'numpy' (deliberately)")
