"""Small helpers every layer may use: text made safe to print (``printable``), did-you-mean
hints (``suggest``), strict YAML loading (``yamlfile``), blocking stop signals around a write
(``signalmask``), what software judged a game (``provenance``) and counted nouns
(``plural``)."""

__all__: list[str] = []
