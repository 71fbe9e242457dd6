"""The command line, ``a2a-migrate``: one module per command group, shared helpers in
:mod:`a2a_migrate.cli.common`. Nothing outside this package imports it (design.md,
"Layers"); it reaches the library only through its public modules.

Data goes to stdout, messages to stderr. Exit codes: 0 success; 1 ``--check``
found work (or a card is invalid or unverified); 2 usage error; 123 at least
one input could not be processed (the others still were).
"""

from a2a_migrate.cli.app import main

__all__ = ["main"]
