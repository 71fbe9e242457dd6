"""The ``a2a-migrate`` command group: one place that names every command.

Each command lives in the module of its concern; this module only gathers
them. Importing it imports click and the command modules, never the work they
do (tests/test_lazy_start.py).
"""

from __future__ import annotations

import os

import click

from a2a_migrate import __version__
from a2a_migrate.cli import inspect, migrate, review, signing, transforms
from a2a_migrate.cli.common import disable_colour

#: ``--no-color`` on the group and on every command (``a2a-migrate upgrade --no-color ...`` reads naturally).
NO_COLOR_HELP = "No colour in messages and diffs (also when NO_COLOR is set, or the output is not a terminal)."


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="a2a-migrate")
@click.option("--no-color", is_flag=True, expose_value=False, callback=disable_colour, help=NO_COLOR_HELP)
@click.pass_context
def main(ctx: click.Context) -> None:
    """Upgrade A2A Agent Cards to protocol 1.0, or downgrade them for 0.3 clients.

    Every change is made by a named transform, can be shown as a diff or an RFC
    6902 patch, and anything the target version cannot hold is reported with
    its JSON pointer.
    """
    if os.environ.get("NO_COLOR"):  # https://no-color.org: set and not empty
        ctx.color = False


for command in (migrate.upgrade, migrate.downgrade, inspect.detect, inspect.validate_command,
                review.plan_command, review.apply_command, review.diff_command,
                signing.sign_command, signing.verify_command,
                transforms.transform_command, transforms.transforms_command):
    command.params.append(click.Option(["--no-color"], is_flag=True, expose_value=False, callback=disable_colour,
                                       help=NO_COLOR_HELP))
    main.add_command(command)
