"""The ``arena`` command line: a thin layer over the library (see ``arena.cli.main``)."""

import sys

__all__ = ["run"]


def run() -> None:
    """The ``arena`` console script. The CLI takes a moment to import; a Ctrl-C meanwhile
    stops it like one during a command, without a traceback."""
    try:  # imported here, not at the top, so that the Ctrl-C above can be caught
        from arena.cli.main import main
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted.\n")
        raise SystemExit(130) from None
    main()
