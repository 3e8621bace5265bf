"""The ``xpg`` command line: :mod:`~xpg.cli.main` builds the parser and runs a command."""
