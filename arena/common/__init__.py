"""Small helpers every layer may use: text made safe to print (``printable``), did-you-mean
hints (``suggest``), strict YAML loading (``yamlfile``), blocking stop signals around a write
(``signalmask``), what software judged a game (``provenance``), counted nouns (``plural``),
the CPUs a process may run on and be pinned to (``cpus``), a file written whole or not at
all (``wholefile``), names a reader cannot tell apart (``lookalike``), the rule of a bot's
name (``names``), a table fitted to a terminal's width (``fitting``), stored times as a
narrow table shows them (``timestamps``) and what a killed process left, claimed for removal
(``abandoned``)."""

__all__: list[str] = []
