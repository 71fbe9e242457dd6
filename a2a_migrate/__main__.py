"""``python -m a2a_migrate``."""

from a2a_migrate.cli import main

main(prog_name="a2a-migrate")
