"""The ``xpg`` command line: one module per group of commands, shared helpers in
:mod:`~xpg.cli.common`, and :mod:`~xpg.cli.main`, which builds the parser and runs a command."""
