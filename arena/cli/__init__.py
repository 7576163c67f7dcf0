"""The ``arena`` command line: a thin layer over the library (see ``arena.cli.main``)."""
